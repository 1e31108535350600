/* Candles rules in the browser: a faithful port of games/candles/engine.py, for the verifier.
 *
 * window.WickwiseRules.candles: setup(seats, options, rng) -> Promise<state> (the shuffle reads
 * WebCrypto, which is asynchronous), apply(state, seat, action) -> {state, events}, toAct(state),
 * legal(state, seat), outcome(state). The state has exactly the Python engine's shape and values,
 * so a replay here can be compared with the Python one key for key.
 */
(function (root) {
  "use strict";

  const GAME = "candles";
  const DECK = Array.from({ length: 104 }, (_, i) => i + 1); // canonical order: 1 to 104
  const HAND_SIZE = 6;
  const ROUNDS = 6;
  const SHELVES = 4;
  const SHELF_CAPACITY = 5;
  const MIN_SEATS = 2;
  const MAX_SEATS = 10;

  /** The engine's IllegalAction: a stable code and an English message; the state is unchanged. */
  class IllegalAction extends Error {
    constructor(code, message) {
      super(message);
      this.name = "IllegalAction";
      this.code = code;
    }
  }

  function waxOf(candle) {
    if (candle === 55) return 7;
    if (candle % 11 === 0) return 5;
    if (candle % 10 === 0) return 3;
    if (candle % 5 === 0) return 2;
    return 1;
  }

  function shelfWax(shelf) {
    return shelf.reduce((sum, candle) => sum + waxOf(candle), 0);
  }

  const byNumber = (a, b) => a - b;

  /** Shuffle the deck with the stream `deck`; deal 6 to each seat in seat order, then 1 to each shelf. */
  async function setup(seats, _options, rng) {
    if (!Number.isInteger(seats) || seats < MIN_SEATS || seats > MAX_SEATS) {
      throw new RangeError(`candles takes ${MIN_SEATS} to ${MAX_SEATS} seats`);
    }
    const deck = await rng.stream("deck").shuffle(DECK);
    const hands = [];
    for (let i = 0; i < seats; i += 1) {
      hands.push(deck.slice(i * HAND_SIZE, (i + 1) * HAND_SIZE).sort(byNumber));
    }
    const dealt = seats * HAND_SIZE;
    const shelves = [];
    for (let i = 0; i < SHELVES; i += 1) {
      shelves.push([deck[dealt + i]]);
    }
    return {
      game: GAME,
      seats,
      round: 1,
      hands,
      shelves,
      picks: new Array(seats).fill(null),
      wax: new Array(seats).fill(0),
      collected: Array.from({ length: seats }, () => []),
      deck: deck.slice(dealt + SHELVES),
      last_round: [],
      finished: false,
    };
  }

  function toAct(state) {
    if (state.finished) return [];
    const seats = [];
    state.picks.forEach((pick, seat) => {
      if (pick === null) seats.push(seat);
    });
    return seats;
  }

  function legal(state, seat) {
    if (!toAct(state).includes(seat)) return [];
    return state.hands[seat].map((candle) => ({ type: "play", candle }));
  }

  function isPlainObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function check(state, seat, action) {
    if (state.finished) throw new IllegalAction("game_over", "the game is over");
    if (!Number.isInteger(seat) || seat < 0 || seat >= state.seats) {
      throw new IllegalAction("no_such_seat", "there is no such seat");
    }
    if (state.picks[seat] !== null) {
      throw new IllegalAction("already_picked", "this seat has already picked a candle this round");
    }
    const keys = isPlainObject(action) ? Object.keys(action).sort().join(",") : "";
    if (!isPlainObject(action) || action.type !== "play" || keys !== "candle,type") {
      throw new IllegalAction("bad_action", 'expected {"type": "play", "candle": N}');
    }
    const candle = action.candle;
    if (typeof candle !== "number" || !Number.isInteger(candle) || !state.hands[seat].includes(candle)) {
      throw new IllegalAction("not_in_hand", "that candle is not in your hand");
    }
    return candle;
  }

  function copy(value) {
    return JSON.parse(JSON.stringify(value));
  }

  /** One seat's pick; the last pick of a round places every candle. Returns {state, events}. */
  function apply(state, seat, action) {
    const candle = check(state, seat, action);
    const next = copy(state);
    const hand = next.hands[seat];
    hand.splice(hand.indexOf(candle), 1);
    next.picks[seat] = candle;
    let events = [{ type: "picked", seat }];
    if (next.picks.every((pick) => pick !== null)) {
      events = events.concat(resolveRound(next));
    }
    return { state: next, events };
  }

  /** The shelf whose last candle is the closest below `candle`, or null if it is lower than all. */
  function targetShelf(shelves, candle) {
    let best = null;
    shelves.forEach((shelf, index) => {
      const end = shelf[shelf.length - 1];
      if (end < candle && (best === null || end > shelves[best][shelves[best].length - 1])) {
        best = index;
      }
    });
    return best;
  }

  /** The shelf with the least wax; the first (top) one on a tie. */
  function leastWaxShelf(shelves) {
    let best = 0;
    for (let i = 1; i < shelves.length; i += 1) {
      if (shelfWax(shelves[i]) < shelfWax(shelves[best])) best = i;
    }
    return best;
  }

  /** Place one candle; returns [shelf, how, taken] with how one of add, tip, low. */
  function place(shelves, candle) {
    let shelf = targetShelf(shelves, candle);
    if (shelf === null) {
      shelf = leastWaxShelf(shelves);
      const taken = shelves[shelf];
      shelves[shelf] = [candle];
      return [shelf, "low", taken];
    }
    if (shelves[shelf].length >= SHELF_CAPACITY) {
      const taken = shelves[shelf];
      shelves[shelf] = [candle];
      return [shelf, "tip", taken];
    }
    shelves[shelf].push(candle);
    return [shelf, "add", []];
  }

  function resolveRound(state) {
    const picks = state.picks;
    const order = Array.from({ length: state.seats }, (_, s) => s).sort((a, b) => picks[a] - picks[b]);
    const events = [{ type: "reveal", round: state.round, picks: picks.slice() }];
    const placements = [];
    for (const seat of order) {
      const candle = picks[seat];
      const [shelf, how, taken] = place(state.shelves, candle);
      const wax = shelfWax(taken);
      state.wax[seat] += wax;
      state.collected[seat].push(...taken);
      const placement = { seat, candle, shelf, how, taken, wax };
      placements.push(placement);
      events.push({ type: "place", ...copy(placement) });
    }
    state.last_round = placements;
    state.picks = new Array(state.seats).fill(null);
    if (state.round === ROUNDS) {
      state.finished = true;
      events.push({ type: "end", ranking: outcome(state) });
    } else {
      state.round += 1;
      events.push({ type: "round", round: state.round });
    }
    return events;
  }

  /** null while playing; else seats from least wax to most, ties sharing a place (1, 1, 3...). */
  function outcome(state) {
    if (!state.finished) return null;
    const order = Array.from({ length: state.seats }, (_, s) => s)
      .sort((a, b) => state.wax[a] - state.wax[b] || a - b);
    const ranking = [];
    order.forEach((seat, position) => {
      const wax = state.wax[seat];
      const last = ranking[ranking.length - 1];
      const placeNumber = last && last.score === wax ? last.place : position + 1;
      ranking.push({ seat, place: placeNumber, score: wax });
    });
    return ranking;
  }

  root.WickwiseRules = root.WickwiseRules || {};
  root.WickwiseRules.candles = {
    GAME,
    DECK,
    HAND_SIZE,
    ROUNDS,
    SHELVES,
    SHELF_CAPACITY,
    IllegalAction,
    waxOf,
    shelfWax,
    setup,
    toAct,
    legal,
    apply,
    outcome,
    targetShelf,
    leastWaxShelf,
  };
})(typeof window !== "undefined" ? window : globalThis);
