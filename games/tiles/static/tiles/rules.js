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
  function judge(table, width = 24, height = 16) { // height: the same signature as Python's
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

  root.WickwiseRules = root.WickwiseRules || {};
  root.WickwiseRules.tiles = {
    GAME: "tiles",
    TILE_COUNT,
    JOKERS,
    JOKER_POINTS,
    isJoker,
    face,
    colour,
    number,
    points,
    judge,
    lines,
    structures,
  };
})(typeof window !== "undefined" ? window : globalThis);
