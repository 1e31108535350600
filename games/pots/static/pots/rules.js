/* Pots rules in the browser: a faithful port of games/pots/engine.py, for the verifier.
 *
 * window.WickwiseRules.pots: setup(seats, options, rng) -> Promise<state> (the shuffles read WebCrypto,
 * which is asynchronous), apply(state, seat, action, rng) -> Promise<{state, events}> (a draw from an
 * empty deck reshuffles the discard pile with the stream "reshuffle:K"), toAct(state), legal(state, seat),
 * outcome(state). The state has exactly the Python engine's shape and values, so a replay here can be
 * compared with the Python one key for key.
 */
(function (root) {
  "use strict";

  const GAME = "pots";
  const MIN_SEATS = 2;
  const MAX_SEATS = 8;
  const HONEY = ["+2", "+4", "+6", "+8", "+10"];
  const TWIN_WICK = "x2";
  const SNUFFER = "snuffer";
  const BELLOWS = "bellows";
  const SAUCER = "saucer";
  // Canonical order: 0, 1, 2, 2, 3, 3, 3, ... twelve 12s, then honey, the twin wick, three of each action card.
  const DECK = [];
  for (let n = 0; n <= 12; n += 1) {
    for (let copy = 0; copy < Math.max(n, 1); copy += 1) DECK.push(n);
  }
  DECK.push(...HONEY, TWIN_WICK, SNUFFER, SNUFFER, SNUFFER, BELLOWS, BELLOWS, BELLOWS, SAUCER, SAUCER, SAUCER);
  const FULL_POT = 7; // different numbers that fill the pot
  const FULL_POT_BONUS = 15;
  const BELLOWS_DRAWS = 3;
  const WINNING_TOTAL = 200;
  const IN_HAND = ["waiting", "in"]; // statuses of players still in the hand (a target for snuffer and bellows)

  /** The engine's IllegalAction: a stable code and an English message; the state is unchanged. */
  class IllegalAction extends Error {
    constructor(code, message) {
      super(message);
      this.name = "IllegalAction";
      this.code = code;
    }
  }

  function honeyValue(card) {
    return HONEY.includes(card) ? Number(card.slice(1)) : 0;
  }

  /** (numbers) x 2 with the twin wick, then honey, then 15 for a full pot; 0 once spilled. */
  function handScore(row) {
    if (row.status === "spilled") return 0;
    const numbers = row.numbers.reduce((sum, n) => sum + n, 0) * (row.extras.includes(TWIN_WICK) ? 2 : 1);
    const bonus = row.status === "full" ? FULL_POT_BONUS : 0;
    return numbers + row.extras.reduce((sum, card) => sum + honeyValue(card), 0) + bonus;
  }

  function newRow() {
    return { numbers: [], extras: [], saucer: false, status: "waiting" };
  }

  /** Every seat from `start`'s left around the table, `start` itself last. */
  function leftward(seats, start) {
    return Array.from({ length: seats }, (_, step) => (start + step + 1) % seats);
  }

  function copy(value) {
    return JSON.parse(JSON.stringify(value));
  }

  function isPlainObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // --- setup --------------------------------------------------------------------------------------

  /** The first dealer from the stream `first`, the deck from the stream `deck`, then the first deal. */
  async function setup(seats, _options, rng) {
    if (!Number.isInteger(seats) || seats < MIN_SEATS || seats > MAX_SEATS) {
      throw new RangeError(`pots takes ${MIN_SEATS} to ${MAX_SEATS} seats`);
    }
    const dealer = await rng.stream("first").uniform(seats);
    const state = {
      game: GAME,
      seats,
      hand: 1,
      dealer,
      turn: dealer, // the seat that took the last turn; the next turn goes to its left
      phase: "play",
      current: null,
      pending: null,
      rows: Array.from({ length: seats }, newRow),
      bellows: null,
      queue: [],
      totals: new Array(seats).fill(0),
      hands: [],
      deck: await rng.stream("deck").shuffle(DECK),
      discard: [],
      reshuffles: 0,
      finished: false,
    };
    await settle(state, [], rng);
    return state;
  }

  // --- moves --------------------------------------------------------------------------------------

  function toAct(state) {
    return state.finished ? [] : [state.current];
  }

  function legal(state, seat) {
    if (!toAct(state).includes(seat)) return [];
    if (state.phase === "play") return [{ type: "draw" }, { type: "stop" }];
    return state.pending.targets.map((target) => ({ type: "target", seat: target }));
  }

  function check(state, seat, action) {
    if (state.finished) throw new IllegalAction("game_over", "the game is over");
    if (!Number.isInteger(seat) || seat < 0 || seat >= state.seats) {
      throw new IllegalAction("no_such_seat", "there is no such seat");
    }
    if (seat !== state.current) throw new IllegalAction("not_your_turn", "another seat decides now");
    if (!isPlainObject(action)) throw new IllegalAction("bad_action", "an action is a dict with a type");
    const keys = Object.keys(action).sort().join(",");
    if (state.phase === "play") {
      if (keys !== "type" || (action.type !== "draw" && action.type !== "stop")) {
        throw new IllegalAction("bad_action", 'expected {"type": "draw"} or {"type": "stop"}');
      }
      return;
    }
    if (action.type !== "target" || keys !== "seat,type" || !Number.isInteger(action.seat)) {
      throw new IllegalAction("bad_action", 'expected {"type": "target", "seat": N}');
    }
    if (!state.pending.targets.includes(action.seat)) {
      throw new IllegalAction("not_a_target", "that seat cannot be chosen for this card");
    }
  }

  /** One decision; everything that follows without one happens here too. Returns {state, events}. */
  async function apply(state, seat, action, rng) {
    check(state, seat, action);
    const next = copy(state);
    const events = [];
    if (action.type === "draw") {
      next.turn = seat;
      await receive(next, seat, await draw(next, rng, events), "draw", events);
    } else if (action.type === "stop") {
      next.turn = seat;
      const row = next.rows[seat];
      row.status = "stopped";
      events.push({ type: "stopped", seat, score: handScore(row) });
    } else {
      const pending = next.pending;
      next.pending = null;
      resolve(next, pending.card, seat, action.seat, events);
    }
    await settle(next, events, rng);
    return { state: next, events };
  }

  // --- everything that needs no decision ----------------------------------------------------------

  /** Runs the game on until a seat must decide or the game is over. */
  async function settle(state, events, rng) {
    while (!state.finished) {
      const rows = state.rows;
      if (rows.some((row) => row.status === "full") || !rows.some((row) => IN_HAND.includes(row.status))) {
        endHand(state, events);
      } else if (state.pending) {
        state.phase = state.pending.card === SAUCER ? "give" : "target";
        state.current = state.pending.by;
        return;
      } else if (state.bellows) {
        await bellowsStep(state, events, rng);
      } else if (state.queue.length) {
        resolveQueued(state, events);
      } else {
        const waiting = nextWaiting(state);
        if (waiting !== null) {
          await receive(state, waiting, await draw(state, rng, events), "deal", events);
        } else {
          state.phase = "play";
          state.current = leftward(state.seats, state.turn).find((s) => rows[s].status === "in");
          return;
        }
      }
    }
  }

  /** The deal gives one card to each seat that has none yet, from the dealer's left. */
  function nextWaiting(state) {
    for (const seat of leftward(state.seats, state.dealer)) {
      if (state.rows[seat].status === "waiting") return seat;
    }
    return null;
  }

  /** The deck's first card; an empty deck is first replaced by the shuffled discard pile. */
  async function draw(state, rng, events) {
    if (!state.deck.length) {
      if (!rng) throw new Error("the deck is empty: a reshuffle needs the game's rng");
      state.reshuffles += 1;
      state.deck = await rng.stream(`reshuffle:${state.reshuffles}`).shuffle(state.discard);
      state.discard = [];
      events.push({ type: "reshuffled", count: state.deck.length });
    }
    if (!state.deck.length) throw new Error("no card is left to draw");
    return state.deck.shift();
  }

  /** `seat` turns up `card` (how: deal, draw or bellows) and the card does what it does. */
  async function receive(state, seat, card, how, events) {
    const row = state.rows[seat];
    if (row.status === "waiting") row.status = "in";
    events.push({ type: "card", seat, card, how });
    if (typeof card === "number") {
      receiveNumber(state, seat, card, events);
    } else if (HONEY.includes(card) || card === TWIN_WICK) {
      row.extras.push(card);
    } else if (card === SAUCER) {
      if (row.saucer) offerSaucer(state, seat, events);
      else row.saucer = true; // kept at once, even during a bellows
    } else if (how === "bellows") {
      state.bellows.held.push(card); // waits for the end of the three draws
    } else {
      playAction(state, seat, card, events);
    }
  }

  function receiveNumber(state, seat, card, events) {
    const row = state.rows[seat];
    if (!row.numbers.includes(card)) {
      row.numbers.push(card);
      if (row.numbers.length === FULL_POT) {
        row.status = "full"; // the hand ends at once (settle)
        events.push({ type: "full", seat });
      }
    } else if (row.saucer) {
      row.saucer = false;
      state.discard.push(card, SAUCER);
      events.push({ type: "saved", seat, card });
    } else {
      row.numbers.push(card); // the repeat stays in the row until the hand ends, to show the spill
      row.status = "spilled";
      events.push({ type: "spilled", seat, card });
      const bellows = state.bellows;
      if (bellows && bellows.seat === seat) {
        // The draws stop; what they turned up for later is discarded.
        for (const held of bellows.held) {
          state.discard.push(held);
          events.push({ type: "discarded", seat, card: held });
        }
        state.bellows = null;
      }
    }
  }

  function inHand(state) {
    const seats = [];
    state.rows.forEach((row, seat) => {
      if (IN_HAND.includes(row.status)) seats.push(seat);
    });
    return seats;
  }

  /** A second saucer goes to another player in the hand who has none; the drawer chooses. */
  function offerSaucer(state, seat, events) {
    const targets = inHand(state).filter((s) => s !== seat && !state.rows[s].saucer);
    ask(state, SAUCER, seat, targets, events);
  }

  /** A snuffer or bellows hits any player still in the hand, `seat` included. */
  function playAction(state, seat, card, events) {
    ask(state, card, seat, inHand(state), events);
  }

  /** No target: the card is discarded. One: it goes there without asking. More: `by` decides. */
  function ask(state, card, by, targets, events) {
    if (!targets.length) {
      state.discard.push(card);
      events.push({ type: "discarded", seat: by, card });
    } else if (targets.length === 1) {
      resolve(state, card, by, targets[0], events);
    } else {
      state.pending = { card, by, targets };
    }
  }

  function resolve(state, card, by, target, events) {
    const row = state.rows[target];
    if (card === SAUCER) {
      row.saucer = true;
      events.push({ type: "saucer_given", from: by, to: target });
      return;
    }
    state.discard.push(card);
    if (card === SNUFFER) {
      row.status = "snuffed";
      events.push({ type: "snuffed", seat: target, by, score: handScore(row) });
    } else {
      state.bellows = { seat: target, left: BELLOWS_DRAWS, held: [] };
      events.push({ type: "bellows", seat: target, by });
    }
  }

  /** One of the bellows's draws; after the last one, the held action cards join the queue. */
  async function bellowsStep(state, events, rng) {
    const bellows = state.bellows;
    if (bellows.left === 0) {
      state.queue.push(...bellows.held.map((card) => ({ card, by: bellows.seat })));
      state.bellows = null;
      return;
    }
    bellows.left -= 1;
    await receive(state, bellows.seat, await draw(state, rng, events), "bellows", events);
  }

  /** Held cards are resolved in the order they were turned up; a player who spilled loses them. */
  function resolveQueued(state, events) {
    const item = state.queue.shift();
    if (state.rows[item.by].status === "spilled") {
      state.discard.push(item.card);
      events.push({ type: "discarded", seat: item.by, card: item.card });
    } else {
      playAction(state, item.by, item.card, events);
    }
  }

  /** Score the hand; then the game ends, or the cards go to the discard pile and the next hand starts. */
  function endHand(state, events) {
    const scores = state.rows.map(handScore);
    state.totals = state.totals.map((total, seat) => total + scores[seat]);
    state.hands.push(scores);
    events.push({ type: "hand_over", hand: state.hand, scores: scores.slice(), totals: state.totals.slice() });
    // A full pot ends the hand at once: cards still waiting for a decision are discarded.
    state.discard.push(...looseCards(state));
    state.pending = null;
    state.bellows = null;
    state.queue = [];
    const top = Math.max(...state.totals);
    if (top >= WINNING_TOTAL && state.totals.filter((total) => total === top).length === 1) {
      state.finished = true;
      state.phase = "over";
      state.current = null;
      events.push({ type: "game_over" });
      return;
    }
    for (const row of state.rows) {
      state.discard.push(...row.numbers, ...row.extras, ...(row.saucer ? [SAUCER] : []));
    }
    state.hand += 1;
    state.dealer = (state.dealer + 1) % state.seats;
    state.turn = state.dealer;
    state.rows = Array.from({ length: state.seats }, newRow);
    events.push({ type: "hand", hand: state.hand, dealer: state.dealer });
  }

  /** Drawn cards in no row: the card being decided, the bellows's held cards, the queue. */
  function looseCards(state) {
    const loose = state.pending ? [state.pending.card] : [];
    if (state.bellows) loose.push(...state.bellows.held);
    return loose.concat(state.queue.map((item) => item.card));
  }

  // --- outcome ------------------------------------------------------------------------------------

  /** null while playing; else the seats from the highest total down, ties sharing a place (1, 1, 3). */
  function outcome(state) {
    if (!state.finished) return null;
    const order = Array.from({ length: state.seats }, (_, s) => s)
      .sort((a, b) => state.totals[b] - state.totals[a] || a - b);
    const ranking = [];
    order.forEach((seat, position) => {
      const total = state.totals[seat];
      const last = ranking[ranking.length - 1];
      const place = last && last.score === total ? last.place : position + 1;
      ranking.push({ seat, place, score: total });
    });
    return ranking;
  }

  root.WickwiseRules = root.WickwiseRules || {};
  root.WickwiseRules.pots = {
    GAME,
    DECK,
    MIN_SEATS,
    MAX_SEATS,
    FULL_POT,
    FULL_POT_BONUS,
    BELLOWS_DRAWS,
    WINNING_TOTAL,
    IllegalAction,
    handScore,
    leftward,
    setup,
    toAct,
    legal,
    apply,
    outcome,
  };
})(typeof window !== "undefined" ? window : globalThis);
