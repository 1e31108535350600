/* Tiles rules in the browser: a faithful port of games/tiles/rules.py (the judgement of a table) and of
 * games/tiles/engine.py (for the verifier's replay).
 *
 * window.WickwiseRules.tiles: judge(table, width, height) -> {valid, problems, jokers} exactly as Python
 * (same problems, same order, same reasons, same joker faces; `jokers` keyed by the joker's id), usable
 * by the table while a player drags; lines(table), structures(table); and the engine: setup(seats,
 * options, rng) -> Promise<state>, apply(state, seat, action, rng) -> Promise<{state, events}>,
 * toAct(state), legal(state, seat), outcome(state). States have the Python engine's shape and values.
 */
(function (root) {
  "use strict";

  const TILE_COUNT = 106;
  const JOKERS = [104, 105];
  const JOKER_POINTS = 30;
  const TWO_TILES = "two_tiles", LONE = "lone", NOT_SET = "not_set", JOKER_CONFLICT = "joker_conflict";

  const isJoker = (tile) => tile >= 104;

  function face(tile) {
    if (isJoker(tile)) throw new Error("a joker has no face");
    return tile % 52;
  }
  const colour = (tile) => Math.floor(face(tile) / 13);
  const number = (tile) => (face(tile) % 13) + 1;
  const points = (tile) => (isJoker(tile) ? JOKER_POINTS : number(tile));

  // Lookups by tile id for the hot path; -1 for jokers.
  const COLOUR = Array.from({length: TILE_COUNT}, (_, t) => (t < 104 ? Math.floor((t % 52) / 13) : -1));
  const NUMBER = Array.from({length: TILE_COUNT}, (_, t) => (t < 104 ? (t % 13) + 1 : -1));

  // --- scanning -----------------------------------------------------------------------------------

  /** Cells keyed y * stride + x (stride > width, so the key right of the last column is never a cell):
   * the tiles by key, horizontal lines by (y, x), vertical lines by (x, y), lone keys by (y, x). */
  function scan(table, stride) {
    const at = new Map();
    for (const [tile, x, y] of table) at.set(y * stride + x, tile);
    const keys = [...at.keys()].sort((a, b) => a - b);
    const inLine = new Set();
    const follow = (key, step) => {
      const line = [key];
      for (let next = key + step; at.has(next); next += step) line.push(next);
      for (const k of line) inLine.add(k);
      return line;
    };
    const horizontal = [], vertical = [];
    for (const key of keys) {
      if (!at.has(key - 1) && at.has(key + 1)) horizontal.push(follow(key, 1));
    }
    for (const key of keys) {
      if (!at.has(key - stride) && at.has(key + stride)) vertical.push(follow(key, stride));
    }
    vertical.sort((a, b) => (a[0] % stride) - (b[0] % stride) || a[0] - b[0]);
    const lone = keys.filter((key) => !inLine.has(key));
    return {at, horizontal, vertical, lone};
  }

  function strideOf(table) {
    let widest = 0;
    for (const cell of table) widest = Math.max(widest, cell[1]);
    return widest + 2;
  }

  /** Every maximal line of two or more, as tile ids in reading order: horizontal, then vertical. */
  function lines(table) {
    const {at, horizontal, vertical} = scan(table, strideOf(table));
    return [...horizontal, ...vertical].map((line) => line.map((key) => at.get(key)));
  }

  /** Tiles connected through lines (a lone tile alone), each sorted, ordered by their smallest id. */
  function structures(table) {
    const {at, horizontal, vertical} = scan(table, strideOf(table));
    const parent = new Map([...at.values()].map((tile) => [tile, tile]));
    const rootOf = (tile) => {
      while (parent.get(tile) !== tile) {
        parent.set(tile, parent.get(parent.get(tile)));
        tile = parent.get(tile);
      }
      return tile;
    };
    for (const line of [...horizontal, ...vertical]) {
      const first = rootOf(at.get(line[0]));
      for (const key of line.slice(1)) {
        const other = rootOf(at.get(key));
        if (other !== first) parent.set(other, first);
      }
    }
    const groups = new Map();
    for (const tile of at.values()) {
      const r = rootOf(tile);
      if (!groups.has(r)) groups.set(r, []);
      groups.get(r).push(tile);
    }
    return [...groups.values()].map((g) => g.sort((a, b) => a - b)).sort((a, b) => a[0] - b[0]);
  }

  // --- reading one line ---------------------------------------------------------------------------

  /** A line without jokers: a run (one colour, +1 or -1 all along) or a group (3-4 colours, one number). */
  function plainSet(tiles) {
    const c = COLOUR[tiles[0]];
    let n = NUMBER[tiles[0]];
    const second = NUMBER[tiles[1]];
    if (second === n) {
      if (tiles.length > 4) return false;
      let seen = 0;
      for (const tile of tiles) {
        if (NUMBER[tile] !== n) return false;
        const bit = 1 << COLOUR[tile];
        if (seen & bit) return false;
        seen |= bit;
      }
      return true;
    }
    const step = second - n;
    if (step !== 1 && step !== -1) return false;
    for (const tile of tiles) {
      if (COLOUR[tile] !== c || NUMBER[tile] !== n) return false;
      n += step;
    }
    return true;
  }

  /** Ordered choices of `count` items (Python's itertools.permutations order does not matter here). */
  function arrangements(items, count) {
    if (count === 0) return [[]];
    const out = [];
    items.forEach((item, i) => {
      for (const rest of arrangements([...items.slice(0, i), ...items.slice(i + 1)], count - 1)) {
        out.push([item, ...rest]);
      }
    });
    return out;
  }

  /** Every assignment of faces to the line's jokers (in id order) that makes it a run or a group, as
   * a Map from a text key to the faces (a Set of tuples, as Python's). */
  function jokerReadings(tiles) {
    const length = tiles.length;
    const jokerAt = [];
    const reals = [];
    tiles.forEach((tile, i) => (tile >= 104 ? jokerAt.push([tile, i]) : reals.push([i, tile])));
    jokerAt.sort((a, b) => a[0] - b[0]);
    const readings = new Map();
    const add = (faces) => readings.set(faces.join(","), faces);
    const c = COLOUR[reals[0][1]];
    if (reals.every(([, tile]) => COLOUR[tile] === c)) {
      const [i0, t0] = reals[0];
      for (const step of [1, -1]) {
        const start = NUMBER[t0] - step * i0;
        const end = start + step * (length - 1);
        if (!(start >= 1 && start <= 13 && end >= 1 && end <= 13)) continue;
        if (reals.every(([i, tile]) => NUMBER[tile] === start + step * i)) {
          add(jokerAt.map(([, i]) => c * 13 + start + step * i - 1));
        }
      }
    }
    if (length <= 4) {
      const n = NUMBER[reals[0][1]];
      const colours = new Set(reals.map(([, tile]) => COLOUR[tile]));
      if (colours.size === reals.length && reals.every(([, tile]) => NUMBER[tile] === n)) {
        const missing = [0, 1, 2, 3].filter((k) => !colours.has(k));
        for (const chosen of arrangements(missing, jokerAt.length)) add(chosen.map((k) => k * 13 + n - 1));
      }
    }
    return [...readings.values()];
  }

  // --- judging a table ----------------------------------------------------------------------------

  /** Judge a well-formed table of [tile, x, y] (distinct ids, distinct cells on the board).
   * Problems: two_tiles, lone, not_set, joker_conflict, each line with one reason; horizontal lines by
   * (y, x), vertical lines by (x, y), then lone tiles. `jokers`: each joker's possible faces. */
  function judge(table, width = 24, _height = 16) { // the height: the same signature as Python's
    const stride = width + 1;
    const {at, horizontal, vertical, lone} = scan(table, stride);
    const allLines = [...horizontal, ...vertical];
    const reasons = [];
    const readable = []; // [line index, jokers in id order, readings]
    let paired = false; // the two jokers share a line of 3+
    const jokersInPlay = [...at.values()].filter((tile) => tile >= 104).sort((a, b) => a - b);
    allLines.forEach((line, index) => {
      if (line.length === 2) {
        reasons.push(TWO_TILES);
        return;
      }
      const tiles = line.map((key) => at.get(key));
      const lineJokers = tiles.filter((tile) => tile >= 104).sort((a, b) => a - b);
      if (!lineJokers.length) {
        reasons.push(plainSet(tiles) ? null : NOT_SET);
        return;
      }
      if (lineJokers.length === 2) paired = true;
      const found = jokerReadings(tiles);
      if (found.length) {
        readable.push([index, lineJokers, found]);
        reasons.push(null);
      } else {
        reasons.push(NOT_SET);
      }
    });

    const identities = {};
    for (const tile of jokersInPlay) identities[tile] = [];
    const components = jokersInPlay.length === 2 && paired ? [[104, 105]] : jokersInPlay.map((tile) => [tile]);
    for (const component of components) {
      const constraints = readable.filter(([, lineJokers]) => lineJokers.some((j) => component.includes(j)));
      if (!constraints.length) continue;
      const solved = solve(component, constraints);
      if (solved === null) {
        for (const [index] of constraints) reasons[index] = JOKER_CONFLICT;
      } else {
        Object.assign(identities, solved);
      }
    }

    const cell = (key) => [key % stride, Math.floor(key / stride)];
    const problems = [];
    allLines.forEach((line, index) => {
      if (reasons[index] !== null) problems.push({cells: line.map(cell), reason: reasons[index]});
    });
    for (const key of lone) problems.push({cells: [cell(key)], reason: LONE});
    return {valid: problems.length === 0, problems, jokers: identities};
  }

  const sortedFaces = (faces) => [...faces].sort((a, b) => a - b);

  /** Faces for the component's jokers that satisfy every readable line together, projected on each
   * joker ([] for a joker in none of them); null when no identities do. */
  function solve(component, constraints) {
    const single = new Map(component.map((j) => [j, null]));
    let pairs = null; // Map key -> [a, b]
    for (const [, lineJokers, found] of constraints) {
      if (lineJokers.length === 2) {
        const here = new Map(found.map((faces) => [faces.join(","), faces]));
        pairs = pairs === null ? here : new Map([...pairs].filter(([key]) => here.has(key)));
      } else {
        const j = lineJokers[0];
        const faces = new Set(found.map((reading) => reading[0]));
        const before = single.get(j);
        single.set(j, before === null ? faces : new Set([...before].filter((f) => faces.has(f))));
      }
    }
    if (pairs === null) {
      if ([...single.values()].some((faces) => faces !== null && faces.size === 0)) return null;
      const out = {};
      for (const [j, faces] of single) out[j] = faces === null ? [] : sortedFaces(faces);
      return out;
    }
    const first = single.get(104), second = single.get(105);
    const joint = [...pairs.values()].filter(
      ([a, b]) => (first === null || first.has(a)) && (second === null || second.has(b)));
    if (!joint.length) return null;
    return {104: sortedFaces(new Set(joint.map(([a]) => a))), 105: sortedFaces(new Set(joint.map(([, b]) => b)))};
  }

  // --- the engine (games/tiles/engine.py) ---------------------------------------------------------

  const GAME = "tiles";
  const MIN_SEATS = 2, MAX_SEATS = 4;
  const BOARD = [24, 16];
  const HAND_SIZE = 14;
  const DIE_FACES = 6;
  const OUT_OF_TURN = ["resign"];
  const ACTION_TYPES = ["begin", "play", "draw", "pass", "resign"];

  /** The engine's IllegalAction: a stable code and an English message; the state is unchanged. */
  class IllegalAction extends Error {
    constructor(code, message, details) {
      super(message);
      this.name = "IllegalAction";
      this.code = code;
      if (details) this.details = details;
    }
  }

  const isInt = (value) => Number.isInteger(value);
  const copy = (value) => JSON.parse(JSON.stringify(value));

  /** Every seat rolls; only the seats tied on the highest value roll again. Round R reads stream
   * `dice:R`, one uniform(6) + 1 per rolling seat in seat order. */
  async function rollDice(seats, rng) {
    let rolling = [...Array(seats).keys()];
    const rounds = [];
    for (;;) {
      const stream = rng.stream(`dice:${rounds.length + 1}`);
      const values = Array(seats).fill(null);
      for (const seat of rolling) values[seat] = (await stream.uniform(DIE_FACES)) + 1;
      rounds.push(values);
      const top = Math.max(...rolling.map((seat) => values[seat]));
      rolling = rolling.filter((seat) => values[seat] === top);
      if (rolling.length === 1) return {dice: rounds, chooser: rolling[0]};
    }
  }

  /** The dice, then the deal of 14 a seat from stream `bag` (seat i takes items 14 i .. 14 i + 13). */
  async function setup(seats, _options, rng) {
    if (!isInt(seats) || seats < MIN_SEATS || seats > MAX_SEATS) {
      throw new RangeError(`tiles takes ${MIN_SEATS} to ${MAX_SEATS} seats`);
    }
    const {dice, chooser} = await rollDice(seats, rng);
    const tiles = await rng.stream("bag").shuffle([...Array(TILE_COUNT).keys()]);
    const hands = [];
    for (let seat = 0; seat < seats; seat += 1) {
      hands.push(tiles.slice(HAND_SIZE * seat, HAND_SIZE * (seat + 1)).sort((a, b) => a - b));
    }
    return {
      game: GAME, seats, board: [...BOARD], phase: "begin", dice, chooser, current: chooser, hands,
      bag: tiles.slice(HAND_SIZE * seats), table: [], places: {}, finished: [], resigned: [], passes: 0,
      turn: 0, rebags: 0, blocked: false, end: null,
    };
  }

  function inPlay(state) {
    if (state.phase === "over") return [];
    const out = new Set([...state.finished, ...state.resigned]);
    return [...Array(state.seats).keys()].filter((seat) => !out.has(seat));
  }

  const toAct = (state) => (state.phase === "over" ? [] : [state.current]);

  /** Begin, draw or pass for the seat to act, resign for any seat in play; plays are not listed. */
  function legal(state, seat) {
    if (!isInt(seat) || !inPlay(state).includes(seat)) return [];
    const actions = [];
    if (seat === state.current) {
      if (state.phase === "begin") actions.push({type: "begin"});
      else actions.push({type: state.bag.length ? "draw" : "pass"});
    }
    actions.push({type: "resign"});
    return actions;
  }

  function tableChoice(state) {
    if (state.phase === "begin") return {type: "begin"};
    return {type: state.bag.length ? "draw" : "pass"};
  }

  function checkSeat(state, seat) {
    if (state.phase === "over") throw new IllegalAction("game_over", "the game is over");
    if (!isInt(seat) || seat < 0 || seat >= state.seats) throw new IllegalAction("no_such_seat", "there is no such seat");
    if (state.finished.includes(seat) || state.resigned.includes(seat)) {
      throw new IllegalAction("not_in_play", "this seat has finished or resigned");
    }
  }

  function checkAction(action) {
    if (action === null || typeof action !== "object" || Array.isArray(action) || !ACTION_TYPES.includes(action.type)) {
      throw new IllegalAction("bad_action", 'expected {"type": "begin" | "play" | "draw" | "pass" | "resign"}');
    }
    const expected = action.type === "play" ? ["table", "type"] : ["type"];
    if (Object.keys(action).sort().join(",") !== expected.join(",")) {
      throw new IllegalAction("bad_action", `a ${action.type} action has the keys ${expected}`);
    }
  }

  function checkTurn(state, seat, type) {
    if (seat !== state.current) throw new IllegalAction("not_your_turn", "another seat acts now");
    if ((type === "begin") !== (state.phase === "begin")) {
      throw new IllegalAction("wrong_phase", `cannot ${type} now (${state.phase})`);
    }
  }

  /** A table as sent, checked for form only; returns it sorted by id. */
  function parseTable(state, table) {
    const [width, height] = state.board;
    if (!Array.isArray(table) || table.length > TILE_COUNT) {
      throw new IllegalAction("bad_table", "a table is a list of [id, x, y]");
    }
    const ids = new Set(), cells = new Set(), parsed = [];
    for (const item of table) {
      if (!Array.isArray(item) || item.length !== 3 || !item.every(isInt)) {
        throw new IllegalAction("bad_table", "a table is a list of [id, x, y] integers");
      }
      const [tile, x, y] = item;
      if (tile < 0 || tile >= TILE_COUNT || ids.has(tile)) {
        throw new IllegalAction("bad_table", `unknown or repeated tile ${tile}`);
      }
      if (!(x >= 0 && x < width && y >= 0 && y < height) || cells.has(`${x},${y}`)) {
        throw new IllegalAction("bad_table", `cell (${x}, ${y}) is off the board or taken twice`);
      }
      ids.add(tile);
      cells.add(`${x},${y}`);
      parsed.push([tile, x, y]);
    }
    return parsed.sort((a, b) => a[0] - b[0]);
  }

  /** Every table tile still there, nothing but table tiles and the seat's own; the added tiles, sorted. */
  function checkTiles(state, seat, table) {
    const newIds = new Set(table.map(([tile]) => tile));
    if (state.table.some(([tile]) => !newIds.has(tile))) {
      throw new IllegalAction("table_tile_missing", "a tile of the table is missing: table tiles never go back");
    }
    const onTable = new Set(state.table.map(([tile]) => tile));
    const hand = new Set(state.hands[seat]);
    const added = [...newIds].filter((tile) => !onTable.has(tile)).sort((a, b) => a - b);
    if (added.some((tile) => !hand.has(tile))) {
      throw new IllegalAction("not_your_tile", "a tile is neither on the table nor in this hand");
    }
    return added;
  }

  /** A draft from the seat to act, checked cheaply as the server does (its validity is not judged). */
  function checkDraft(state, seat, draft) {
    checkSeat(state, seat);
    if (state.phase !== "play") throw new IllegalAction("wrong_phase", "drafts are for turns of play");
    if (seat !== state.current) throw new IllegalAction("not_your_turn", "another seat acts now");
    if (draft === null || typeof draft !== "object" || Array.isArray(draft) || Object.keys(draft).join() !== "table") {
      throw new IllegalAction("bad_table", 'a draft is {"table": [[id, x, y], ...]}');
    }
    checkTiles(state, seat, parseTable(state, draft.table));
  }

  /** The state after `seat` sends `action`, and the events (those with `only` go to that seat alone). */
  async function apply(state, seat, action, rng) {
    checkSeat(state, seat);
    checkAction(action);
    const kind = action.type;
    if (kind !== "resign") checkTurn(state, seat, kind);
    const events = [];
    if (kind === "play") {
      const table = parseTable(state, action.table);
      const added = checkTiles(state, seat, table);
      if (!added.length) throw new IllegalAction("nothing_added", "a play adds at least one tile from the hand");
      const [width, height] = state.board;
      const judgement = judge(table, width, height);
      if (!judgement.valid) {
        throw new IllegalAction("invalid_table", "the table after the play is not valid", {problems: judgement.problems});
      }
      state = copy(state);
      play(state, seat, table, added, events);
    } else {
      state = copy(state);
      if (kind === "begin") {
        state.phase = "play";
        events.push({type: "begun", seat});
        startTurn(state, seat, events);
      } else if (kind === "draw") {
        draw(state, seat, events);
      } else if (kind === "pass") {
        pass(state, seat, events);
      } else {
        await resign(state, seat, rng, events);
      }
    }
    return {state, events};
  }

  function nextSeat(state, after) {
    const playing = inPlay(state);
    for (let step = 1; step <= state.seats; step += 1) {
      const seat = (after + step) % state.seats;
      if (playing.includes(seat)) return seat;
    }
    throw new Error("no seat in play");
  }

  function startTurn(state, seat, events) {
    state.current = seat;
    state.turn += 1;
    events.push({type: "turn", seat});
  }

  function play(state, seat, table, added, events) {
    state.table = table.map((item) => [...item]);
    const taken = new Set(added);
    state.hands[seat] = state.hands[seat].filter((tile) => !taken.has(tile));
    state.passes = 0;
    events.push({type: "played", seat, added});
    if (!state.hands[seat].length) {
      const place = state.finished.length + 1;
      state.finished.push(seat);
      state.places[String(seat)] = place;
      events.push({type: "out", seat, place});
      if (inPlay(state).length <= 1) {
        finish(state, "out", events);
        return;
      }
    }
    startTurn(state, nextSeat(state, seat), events);
  }

  function draw(state, seat, events) {
    if (!state.bag.length) throw new IllegalAction("bag_empty", "the bag is empty: pass instead");
    const tile = state.bag.shift();
    state.hands[seat] = [...state.hands[seat], tile].sort((a, b) => a - b);
    state.passes = 0;
    events.push({type: "drew", seat});
    events.push({type: "drawn", seat, tile, only: seat});
    startTurn(state, nextSeat(state, seat), events);
  }

  function pass(state, seat, events) {
    if (state.bag.length) throw new IllegalAction("bag_not_empty", "the bag still has tiles: draw instead");
    state.passes += 1;
    events.push({type: "passed", seat});
    if (state.passes >= inPlay(state).length) {
      block(state, events);
      return;
    }
    startTurn(state, nextSeat(state, seat), events);
  }

  /** Everyone in play passed with the bag empty: places by the points left in hand, fewest first. */
  function block(state, events) {
    const playing = inPlay(state);
    const weight = new Map(playing.map((seat) => [seat, handPoints(state.hands[seat])]));
    const base = state.finished.length + 1;
    const ordered = [...playing].sort((a, b) => weight.get(a) - weight.get(b) || a - b);
    ordered.forEach((seat, index) => {
      const before = ordered[index - 1];
      state.places[String(seat)] = index && weight.get(seat) === weight.get(before)
        ? state.places[String(before)] : base + index;
    });
    state.blocked = true;
    events.push({type: "blocked"});
    finish(state, "blocked", events);
  }

  /** Resigned seats take the last places; at three or four seats the hand goes back into the bag,
   * which stream `rebag:K` shuffles (the bag followed by the hand sorted by id). */
  async function resign(state, seat, rng, events) {
    const wasToAct = seat === state.current;
    state.places[String(seat)] = state.seats - state.resigned.length;
    state.resigned.push(seat);
    events.push({type: "resigned", seat});
    if (state.seats > 2) {
      state.rebags += 1;
      const returned = [...state.bag, ...[...state.hands[seat]].sort((a, b) => a - b)];
      state.bag = await rng.stream(`rebag:${state.rebags}`).shuffle(returned);
      state.hands[seat] = [];
      state.passes = 0;
      events.push({type: "rebagged", k: state.rebags});
    }
    if (inPlay(state).length <= 1) {
      finish(state, "resigned", events);
      return;
    }
    if (wasToAct) {
      const following = nextSeat(state, seat);
      if (state.phase === "begin") {
        state.chooser = following;
        state.current = following;
      } else {
        startTurn(state, following, events);
      }
    }
  }

  function finish(state, end, events) {
    for (const seat of inPlay(state)) {
      if (!(String(seat) in state.places)) state.places[String(seat)] = state.finished.length + 1;
    }
    state.phase = "over";
    state.current = null;
    state.end = end;
    events.push({type: "game_over", end});
  }

  const handPoints = (hand) => hand.reduce((total, tile) => total + points(tile), 0);

  /** null while playing; else every seat's place, points left in hand and whether it resigned. */
  function outcome(state) {
    if (state.phase !== "over") return null;
    const resigned = new Set(state.resigned);
    const ranking = [...Array(state.seats).keys()].map((seat) => ({
      seat, place: state.places[String(seat)], points: handPoints(state.hands[seat]), resigned: resigned.has(seat),
    }));
    return ranking.sort((a, b) => a.place - b.place || a.seat - b.seat);
  }

  root.WickwiseRules = root.WickwiseRules || {};
  root.WickwiseRules.tiles = {
    GAME,
    MIN_SEATS,
    MAX_SEATS,
    BOARD,
    HAND_SIZE,
    OUT_OF_TURN,
    TILE_COUNT,
    JOKERS,
    JOKER_POINTS,
    IllegalAction,
    isJoker,
    face,
    colour,
    number,
    points,
    judge,
    lines,
    structures,
    rollDice,
    setup,
    inPlay,
    toAct,
    legal,
    tableChoice,
    parseTable,
    checkDraft,
    apply,
    handPoints,
    outcome,
  };
})(typeof window !== "undefined" ? window : globalThis);
