/* Trails rules in the browser: a faithful port of games/trails/engine.py, for the verifier.
 *
 * window.WickwiseRules.trails: setup(seats, options, rng) -> Promise<state>, apply(state, seat, action,
 * rng) -> Promise<{state, events}> (a throw reads WebCrypto, which is asynchronous), toAct(state),
 * legal(state, seat), outcome(state), risk(state) -> {throws, of}. The state has exactly the Python
 * engine's shape and values, so a replay here can be compared with the Python one key for key.
 */
(function (root) {
  "use strict";

  const GAME = "trails";
  const MIN_SEATS = 2;
  const MAX_SEATS = 4;
  const TRAILS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const LENGTHS = [3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3];
  const LANTERNS = 3;
  const LANDMARKS_TO_WIN = 3;
  const DICE = 4;
  const FACES = 6;
  const ALL_THROWS = FACES ** DICE;
  // Every trail length divides this: progress is counted in 45045ths, exactly, as Python's Fraction.
  const PROGRESS_UNIT = 3 * 3 * 5 * 7 * 11 * 13;

  /** The engine's IllegalAction: a stable code and an English message; the state is unchanged. */
  class IllegalAction extends Error {
    constructor(code, message) {
      super(message);
      this.name = "IllegalAction";
      this.code = code;
    }
  }

  const lengthOf = (trail) => LENGTHS[trail - 2];

  // --- dice ------------------------------------------------------------------------------------

  /** The `number`-th throw of the game (from 1): stream "throw:<number>", four dice read d0..d3. */
  async function readThrow(rng, number) {
    const stream = rng.stream(`throw:${number}`);
    const dice = [];
    for (let i = 0; i < DICE; i += 1) dice.push((await stream.uniform(FACES)) + 1);
    return dice;
  }

  /** The three ways to pair four dice, in this order: d0+d1 | d2+d3, d0+d2 | d1+d3, d0+d3 | d1+d2. */
  function pairings(dice) {
    const [d0, d1, d2, d3] = dice;
    return [[d0 + d1, d2 + d3], [d0 + d2, d1 + d3], [d0 + d3, d1 + d2]];
  }

  // How many of the 1,296 ordered throws show each set of sums (as a bit mask of trails).
  const THROWS_BY_SUMS = (() => {
    const counts = new Map();
    for (let a = 1; a <= FACES; a += 1) {
      for (let b = 1; b <= FACES; b += 1) {
        for (let c = 1; c <= FACES; c += 1) {
          for (let d = 1; d <= FACES; d += 1) {
            let mask = 0;
            for (const pair of pairings([a, b, c, d])) {
              for (const total of pair) mask |= 1 << (total - 2);
            }
            counts.set(mask, (counts.get(mask) || 0) + 1);
          }
        }
      }
    }
    return Array.from(counts.entries());
  })();

  // --- setup and turn order -------------------------------------------------------------------

  /** Nobody on the map yet; the stream "first" picks who starts. */
  async function setup(seats, _options, rng) {
    if (!Number.isInteger(seats) || seats < MIN_SEATS || seats > MAX_SEATS) {
      throw new RangeError(`trails takes ${MIN_SEATS} to ${MAX_SEATS} seats`);
    }
    const first = await rng.stream("first").uniform(seats);
    return {
      game: GAME,
      seats,
      first,
      current: first,
      phase: "throw",
      turn: 1,
      throws: 0,
      banners: Array.from({ length: seats }, () => new Array(TRAILS.length).fill(0)),
      lanterns: new Array(TRAILS.length).fill(0),
      topped: [],
      claimed: new Array(TRAILS.length).fill(null),
      dice: null,
      last_throw: null,
      winner: null,
      finished: false,
    };
  }

  function toAct(state) {
    return state.finished ? [] : [state.current];
  }

  function lanternsLeft(lanterns) {
    return LANTERNS - lanterns.filter((step) => step).length;
  }

  function landmarks(claimed, seat) {
    return claimed.filter((owner) => owner === seat).length;
  }

  // --- what can climb ----------------------------------------------------------------------------

  /** Whether a lantern can go up `trail` now: not claimed, not topped, and a lantern there or left. */
  function canClimb(position, trail) {
    const index = trail - 2;
    if (position.claimed[index] !== null || position.topped.includes(trail)) return false;
    return Boolean(position.lanterns[index]) || lanternsLeft(position.lanterns) > 0;
  }

  /** The legal climbs of one pairing: [[a, b]], [[a], [b]], [[a]] or [[b]], or []. */
  function climbChoices(position, sums) {
    const [a, b] = sums.slice().sort((x, y) => x - y);
    if (a === b) return canClimb(position, a) ? [[a, a]] : [];
    const open = [a, b].filter((t) => canClimb(position, t));
    if (open.length < 2) return open.length ? [open] : [];
    const newTrails = [a, b].filter((t) => !position.lanterns[t - 2]).length;
    if (newTrails > lanternsLeft(position.lanterns)) return [[a], [b]];
    return [[a, b]];
  }

  /** One card per distinct pairing of the dice on the tray (sums sorted), in pairing order. */
  function tray(position) {
    const cards = [];
    const seen = new Set();
    for (const pair of pairings(position.dice)) {
      const sums = pair.slice().sort((x, y) => x - y);
      const key = sums.join(",");
      if (!seen.has(key)) {
        seen.add(key);
        cards.push({ sums, choices: climbChoices(position, sums) });
      }
    }
    return cards;
  }

  function openTrailsMask(position) {
    return TRAILS.reduce((mask, t) => (canClimb(position, t) ? mask | (1 << (t - 2)) : mask), 0);
  }

  function bustThrows(openMask) {
    return THROWS_BY_SUMS.reduce((sum, [sums, count]) => (sums & openMask ? sum : sum + count), 0);
  }

  /** The exact chance that the next throw busts, as {throws, of}: `throws` of the 1,296. */
  function risk(position) {
    return { throws: bustThrows(openTrailsMask(position)), of: ALL_THROWS };
  }

  // --- legal moves -----------------------------------------------------------------------------

  function legal(state, seat) {
    if (!toAct(state).includes(seat)) return [];
    if (state.phase === "throw") return [{ type: "throw" }];
    if (state.phase === "decide") return [{ type: "throw" }, { type: "camp" }];
    const climbs = [];
    for (const card of tray(state)) {
      for (const trails of card.choices) {
        if (!climbs.some((action) => sameList(action.trails, trails))) climbs.push({ type: "climb", trails });
      }
    }
    return climbs;
  }

  function sameList(a, b) {
    return a.length === b.length && a.every((value, i) => value === b[i]);
  }

  function isPlainObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function check(state, seat, action) {
    if (state.finished) throw new IllegalAction("game_over", "the game is over");
    if (!Number.isInteger(seat) || seat < 0 || seat >= state.seats) {
      throw new IllegalAction("no_such_seat", "there is no such seat");
    }
    if (seat !== state.current) throw new IllegalAction("not_your_turn", "it is another seat's turn");
    if (!isPlainObject(action) || !["throw", "climb", "camp"].includes(action.type)) {
      throw new IllegalAction("bad_action", 'expected {"type": "throw" | "climb" | "camp"}');
    }
    const keys = Object.keys(action).sort().join(",");
    if (action.type === "climb") {
      const trails = action.trails;
      if (keys !== "trails,type" || !Array.isArray(trails) || trails.length < 1 || trails.length > 2 ||
          trails.some((t) => !Number.isInteger(t))) {
        throw new IllegalAction("bad_action", 'expected {"type": "climb", "trails": [a, b] or [a]}');
      }
    } else if (keys !== "type") {
      throw new IllegalAction("bad_action", `expected {"type": "${action.type}"}`);
    }
    const wanted = { throw: ["throw", "decide"], climb: ["choose"], camp: ["decide"] }[action.type];
    if (!wanted.includes(state.phase)) {
      throw new IllegalAction("wrong_phase", `cannot ${action.type} now (${state.phase})`);
    }
    if (action.type === "climb" && !legal(state, seat).some((move) => sameList(move.trails, action.trails))) {
      throw new IllegalAction("not_a_choice", "those trails are not one of the tray's choices");
    }
  }

  function copy(value) {
    return JSON.parse(JSON.stringify(value));
  }

  /** One decision; a throw reads the game's rng. Returns a Promise of {state, events}. */
  async function apply(state, seat, action, rng) {
    check(state, seat, action);
    const next = copy(state);
    if (action.type === "throw") {
      if (!rng) throw new Error("a throw needs the game's rng");
      return { state: next, events: await throwDice(next, seat, rng) };
    }
    if (action.type === "climb") return { state: next, events: climb(next, seat, action.trails.slice()) };
    return { state: next, events: camp(next, seat) };
  }

  async function throwDice(state, seat, rng) {
    state.throws += 1;
    const dice = await readThrow(rng, state.throws);
    state.dice = dice;
    const busted = !tray(state).some((card) => card.choices.length);
    state.last_throw = { seat, dice: dice.slice(), busted };
    const events = [{ type: "thrown", seat, dice: dice.slice(), busted }];
    if (!busted) {
      state.phase = "choose";
      return events;
    }
    // Losing balance: the lanterns go, the banners stay where the turn began.
    events.push({ type: "fell", seat });
    return events.concat(nextTurn(state));
  }

  /** The lanterns after climbing `trails`, and the trails topped by it (not topped before). */
  function climbLanterns(position, seat, trails) {
    const lanterns = position.lanterns.slice();
    const topped = [];
    for (const trail of trails) {
      const index = trail - 2;
      const start = lanterns[index] || position.banners[seat][index];
      lanterns[index] = Math.min(start + 1, LENGTHS[index]);
      if (lanterns[index] === LENGTHS[index] && !topped.includes(trail)) topped.push(trail);
    }
    return [lanterns, topped.filter((t) => !position.topped.includes(t))];
  }

  function climb(state, seat, trails) {
    const [lanterns, toppedNow] = climbLanterns(state, seat, trails);
    state.lanterns = lanterns;
    state.topped = state.topped.concat(toppedNow).sort((a, b) => a - b);
    state.dice = null;
    state.phase = "decide";
    return [{ type: "climbed", seat, trails: trails.slice(), lanterns: lanterns.slice(), topped: toppedNow }];
  }

  function camp(state, seat) {
    const banners = state.banners[seat];
    const claimedNow = [];
    const removed = [];
    state.lanterns.forEach((step, index) => {
      if (!step) return;
      banners[index] = step;
      if (step === LENGTHS[index]) {
        // A landmark: the trail is the seat's, and every other banner on it comes down.
        state.claimed[index] = seat;
        claimedNow.push(TRAILS[index]);
        for (let other = 0; other < state.seats; other += 1) {
          if (other !== seat && state.banners[other][index]) {
            state.banners[other][index] = 0;
            removed.push([other, TRAILS[index]]);
          }
        }
      }
    });
    const events = [{ type: "camped", seat, banners: banners.slice(), claimed: claimedNow, removed }];
    if (landmarks(state.claimed, seat) >= LANDMARKS_TO_WIN) {
      clearTurn(state);
      Object.assign(state, { phase: "over", finished: true, winner: seat });
      return events.concat([{ type: "won", seat }]);
    }
    return events.concat(nextTurn(state));
  }

  function clearTurn(state) {
    state.lanterns = new Array(TRAILS.length).fill(0);
    state.topped = [];
    state.dice = null;
  }

  /** The turn passes clockwise: to the next seat index. */
  function nextTurn(state) {
    clearTurn(state);
    state.current = (state.current + 1) % state.seats;
    state.turn += 1;
    state.phase = "throw";
    return [{ type: "turn", seat: state.current, turn: state.turn }];
  }

  // --- the end -------------------------------------------------------------------------------

  /** How much of the map a seat has climbed, in 45045ths (an exact integer). */
  function progressUnits(banners) {
    return banners.reduce((sum, step, index) => sum + step * (PROGRESS_UNIT / LENGTHS[index]), 0);
  }

  /** The same as a number: Python's float(Fraction) and this division both round the exact value once. */
  function progress(banners) {
    return progressUnits(banners) / PROGRESS_UNIT;
  }

  /** null while playing; else the winner first, then by landmarks, then by progress; ties share. */
  function outcome(state) {
    if (!state.finished) return null;
    const key = (seat) => [seat !== state.winner ? 1 : 0, -landmarks(state.claimed, seat),
      -progressUnits(state.banners[seat])];
    const compare = (a, b) => {
      const ka = key(a);
      const kb = key(b);
      for (let i = 0; i < ka.length; i += 1) {
        if (ka[i] !== kb[i]) return ka[i] - kb[i];
      }
      return 0;
    };
    const order = Array.from({ length: state.seats }, (_, s) => s).sort((a, b) => compare(a, b) || a - b);
    const ranking = [];
    order.forEach((seat, position) => {
      const shared = ranking.length > 0 && compare(order[position - 1], seat) === 0;
      ranking.push({
        seat, place: shared ? ranking[ranking.length - 1].place : position + 1,
        score: landmarks(state.claimed, seat), progress: progress(state.banners[seat]),
      });
    });
    return ranking;
  }

  root.WickwiseRules = root.WickwiseRules || {};
  root.WickwiseRules.trails = {
    GAME,
    TRAILS,
    LENGTHS,
    LANTERNS,
    IllegalAction,
    lengthOf,
    readThrow,
    pairings,
    setup,
    toAct,
    legal,
    apply,
    outcome,
    tray,
    climbChoices,
    canClimb,
    risk,
    landmarks,
    progress,
  };
})(typeof window !== "undefined" ? window : globalThis);
