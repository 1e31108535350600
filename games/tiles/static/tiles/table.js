/*
 * Tiles table: the board of 24 x 16 cells, the hand, and the game around them (docs/games/tiles.md).
 *
 * The room page owns the socket, the seats and the ranking; this file draws the board and the hand and
 * keeps the turn's draft: the table as the player is rearranging it. The view is the truth: a draft is
 * only what the player to act shows while they think, and the play decides.
 *
 *   window.WickwiseGames.tiles.mount(container, ctx) -> { update, destroy, draft, refused, showHandOf, hideHands }
 *
 * A page that hosts the room on one device calls showHandOf(seat) (whose hand is shown and played) and
 * hideHands(true) (every hand covered, between turns).
 */
(function () {
  "use strict";

  const { h, isTyping, TableBase, registerTable } = window.WickwiseTableKit; // static/js/tablekit.js
  const rules = () => window.WickwiseRules && window.WickwiseRules.tiles; // static/tiles/rules.js

  const DRAFT_GAP_MS = 250; // the server takes about 5 drafts a second: send the latest at most this often
  const DOUBLE_TAP_MS = 450;
  const DRAG_SLOP_PX = 6;
  const WARN_SECONDS = 30;
  const DICE_ROLL_MS = 900;
  const UPRIGHT_PHONE = "(orientation: portrait) and (max-width: 40rem)"; // the board is drawn turned

  // --- tiles in words ----------------------------------------------------------------------------------

  const say = (format, values) => interpolate(format, values, true);
  const isJoker = (tile) => tile >= 104;
  const colourOf = (tile) => Math.floor((tile % 52) / 13);
  const numberOf = (tile) => (tile % 13) + 1;
  const colourClass = (tile) => (isJoker(tile) ? "is-joker" : ["is-black", "is-blue", "is-orange", "is-red"][colourOf(tile)]);

  function colourName(colour) {
    return [gettext("black"), gettext("blue"), gettext("orange"), gettext("red")][colour];
  }

  function tileName(tile) {
    if (isJoker(tile)) return gettext("joker");
    return say(gettext("%(colour)s %(number)s"), { colour: colourName(colourOf(tile)), number: numberOf(tile) });
  }

  function reasonText(reason) {
    return {
      two_tiles: gettext("only two tiles"),
      lone: gettext("a lone tile"),
      not_set: gettext("not a run or a group"),
      joker_conflict: gettext("no tile fits the joker in both lines"),
    }[reason] || gettext("not valid");
  }

  function cellName(x, y) {
    return say(gettext("row %(row)s, column %(column)s"), { row: y + 1, column: x + 1 });
  }

  function problemText(problem) {
    const cells = problem.cells;
    const first = cells[0];
    const last = cells[cells.length - 1];
    let where;
    if (cells.length === 1) where = cellName(first[0], first[1]);
    else if (first[1] === last[1]) {
      where = say(gettext("row %(row)s, columns %(from)s to %(to)s"), { row: first[1] + 1, from: first[0] + 1, to: last[0] + 1 });
    } else {
      where = say(gettext("column %(column)s, rows %(from)s to %(to)s"), { column: first[0] + 1, from: first[1] + 1, to: last[1] + 1 });
    }
    return say(gettext("%(where)s: %(reason)s"), { where, reason: reasonText(problem.reason) });
  }

  function clockText(seconds) {
    const whole = Math.max(0, Math.floor(seconds));
    const hours = Math.floor(whole / 3600);
    const minutes = Math.floor((whole % 3600) / 60);
    const rest = String(whole % 60).padStart(2, "0");
    return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
  }

  const keyOf = (x, y) => `${x},${y}`;

  // --- the table -----------------------------------------------------------------------------------------

  class TilesTable extends TableBase {
    constructor(container, ctx) {
      super(ctx, "tiles table");
      this.view = null;
      this.game = null;
      this.handSeat = null; // set by a page hosting every seat on one device; else the socket's seat
      this.handsHidden = false;
      this.start = new Map(); // tile -> [x, y]: the table as the turn found it
      this.placed = new Map(); // tile -> [x, y]: the table as it stands in the draft (mine, or the one relayed)
      this.turnKey = null;
      this.selected = new Set();
      this.anchor = null; // the tile a group moves by
      this.cursor = [0, 0];
      this.lastTap = { tile: null, at: 0 };
      this.drag = null;
      this.problems = [];
      this.refusedProblems = null;
      this.confirmResign = false;
      this.lastDraftSent = 0;
      this.draftTimer = 0;
      this.warned = { key: null, thirty: false, zero: false };
      this.rolledFor = null;
      this.build(container);
      this.bindEvents(() => null);
      this.clockTimer = window.setInterval(() => this.tick(), 500);
      // A phone turned between portrait and landscape redraws the board the other way.
      this.upright = window.matchMedia(UPRIGHT_PHONE);
      this.onTurn = () => this.render();
      this.upright.addEventListener("change", this.onTurn);
    }

    destroy() {
      this.upright.removeEventListener("change", this.onTurn);
      window.clearInterval(this.clockTimer);
      window.clearTimeout(this.draftTimer);
      super.destroy();
    }

    get me() {
      return this.handSeat !== null ? this.handSeat : this.seat;
    }

    build(container) {
      this.tipEl = h("div", { class: "ww-tip", hidden: true, role: "tooltip" });
      this.playersEl = h("ul", { class: "tl-players tk-players", "aria-label": gettext("Players") });
      this.bagEl = h("p", { class: "tl-bag" });
      this.diceEl = h("div", { class: "tl-dice", hidden: true });
      // After "Start the game" the roll stays one click away: a player who arrives later can still see it.
      this.diceNoteEl = h("details", { class: "tl-dice-note", hidden: true });
      this.diceNoteKey = null;
      this.diceNoteGame = null;
      this.pauseEl = h("div", { class: "tl-paused", hidden: true, role: "status" });
      this.boardEl = h("div", {
        class: "tl-board", role: "grid", tabindex: "0", "aria-label": gettext("The table"),
        "aria-describedby": "tl-board-help",
      });
      this.boardHelp = h("p", {
        id: "tl-board-help", class: "tk-visually-hidden",
        text: gettext("Arrows move between cells, Enter selects a tile or places the selection, G selects the whole structure."),
      });
      this.problemsEl = h("ul", { class: "tl-problems", "aria-label": gettext("Lines to fix") });
      this.handEl = h("div", { class: "tl-hand", role: "listbox", "aria-label": gettext("Your hand") });
      this.buttonsEl = h("div", { class: "tl-buttons" });
      this.liveEl = h("p", { class: "tk-visually-hidden", "aria-live": "polite" });
      this.root = h("section", { class: "tiles-table ww-table tk-live", "aria-label": gettext("Tiles table") }, [
        h("div", { class: "tl-top" }, [this.playersEl, h("div", { class: "tl-aside" }, [this.bagEl, this.diceNoteEl])]),
        this.diceEl,
        this.pauseEl,
        h("div", { class: "tl-board-wrap" }, [this.boardEl]),
        this.boardHelp,
        this.problemsEl,
        h("div", { class: "tl-bottom" }, [this.handEl, this.buttonsEl]),
        this.liveEl,
        this.tipEl,
      ]);
      container.append(this.root);
      this.root.addEventListener("pointerdown", (event) => this.pointerDown(event));
      this.onMove = (event) => this.pointerMove(event);
      this.onUp = (event) => this.pointerUp(event);
      this.boardEl.addEventListener("keydown", (event) => this.boardKey(event));
    }

    // --- what the room tells the table ---------------------------------------------------------------

    shouldAnimate() {
      return false;
    }

    canAct() {
      return this.myTurn();
    }

    show(item) {
      this.view = item.view;
      this.game = item.game;
      this.tellEvents(item.events);
      // A new turn starts from the table as it is; a pause or a resume brings back the draft it kept.
      const key = `${item.game.number}:${item.view.phase}:${item.view.turn}:${item.view.current}`;
      const keptDraft = item.events.some((event) => event.type === "paused" || event.type === "resumed");
      this.start = new Map(item.view.table.map(([tile, x, y]) => [tile, [x, y]]));
      if (key !== this.turnKey || keptDraft || !item.events.length) {
        this.turnKey = key;
        const kept = this.ctx.draft ? this.ctx.draft() : null;
        this.placed = new Map(this.start);
        if (kept && kept.table && this.draftFits(kept)) this.placed = new Map(kept.table.map(([t, x, y]) => [t, [x, y]]));
        this.selected.clear();
        this.refusedProblems = null;
      }
      this.pending = null;
      this.render();
    }

    /* A draft relayed by the room: the player to act moving tiles. Mine comes back too; mine is already drawn. */
    draft(seat, draft) {
      if (!this.view || seat === this.me || !draft || !draft.table) return;
      if (!this.draftFits(draft)) return;
      this.placed = new Map(draft.table.map(([tile, x, y]) => [tile, [x, y]]));
      this.render();
    }

    draftFits(draft) {
      const [width, height] = this.view.board;
      return draft.table.every(([, x, y]) => x >= 0 && y >= 0 && x < width && y < height);
    }

    refused(message) {
      this.pending = null;
      const problems = message.details && message.details.problems;
      if (problems && problems.length) {
        this.refusedProblems = problems;
        this.ctx.announce(say(gettext("The play was refused: %(lines)s."), { lines: problems.map(problemText).join("; ") }));
      }
      this.render();
    }

    showHandOf(seat) {
      this.handSeat = seat === null || seat === undefined ? null : seat;
      this.selected.clear();
      if (this.view) this.render();
    }

    hideHands(hidden) {
      this.handsHidden = Boolean(hidden);
      if (this.view) this.render();
    }

    tellEvents(events) {
      events.forEach((event) => {
        const who = event.seat !== undefined && event.seat !== null ? this.name(event.seat) : "";
        if (event.type === "played") {
          this.ctx.announce(say(ngettext("%(player)s played %(count)s tile.", "%(player)s played %(count)s tiles.",
            event.added.length), { player: who, count: event.added.length }));
          if (event.seat !== this.me) this.sound("place");
        } else if (event.type === "drew") {
          this.ctx.announce(say(gettext("%(player)s drew a tile."), { player: who }));
        } else if (event.type === "drawn" && event.seat === this.me) {
          this.ctx.announce(say(gettext("You drew %(tile)s."), { tile: tileName(event.tile) }));
        } else if (event.type === "passed") {
          this.ctx.announce(say(gettext("%(player)s passed."), { player: who }));
        } else if (event.type === "out") {
          this.ctx.announce(say(gettext("%(player)s has no tiles left: place %(place)s."), { player: who, place: event.place }));
        } else if (event.type === "resigned") {
          this.ctx.announce(say(gettext("%(player)s resigned."), { player: who }));
        } else if (event.type === "begun") {
          this.ctx.announce(gettext("The game has started."));
        } else if (event.type === "turn" && event.seat === this.me) {
          this.ctx.announce(gettext("Your turn."));
        } else if (event.type === "resumed") {
          this.ctx.announce(gettext("The game goes on."));
        }
      });
    }

    // --- who may do what ------------------------------------------------------------------------------

    paused() {
      return Boolean(this.game) && this.game.paused_remaining !== null && this.game.paused_remaining !== undefined;
    }

    playing() {
      return Boolean(this.view) && this.game && this.game.status === "playing";
    }

    myTurn() {
      return this.playing() && !this.paused() && this.view.phase === "play" && this.view.current === this.me
        && this.me !== null && !this.handsHidden && Array.isArray(this.view.hand);
    }

    inPlay() {
      return this.playing() && this.me !== null && (this.view.in_play || []).includes(this.me);
    }

    hand() {
      return this.view && Array.isArray(this.view.hand) && !this.handsHidden ? this.view.hand : [];
    }

    /* My hand as it stands in the draft: the tiles not put on the table, in the order this browser keeps. */
    handTiles() {
      const hand = this.hand().filter((tile) => !this.placed.has(tile));
      const order = this.handOrder();
      const rank = new Map(order.map((tile, index) => [tile, index]));
      return hand.slice().sort((a, b) => (rank.has(a) ? rank.get(a) : 999 + a) - (rank.has(b) ? rank.get(b) : 999 + b));
    }

    storageKey() {
      return `wickwise.tiles.hand.${window.location.pathname}.${this.game ? this.game.number : 0}.${this.me}`;
    }

    handOrder() {
      try {
        return JSON.parse(window.localStorage.getItem(this.storageKey()) || "[]");
      } catch {
        return [];
      }
    }

    saveHandOrder(order) {
      try {
        window.localStorage.setItem(this.storageKey(), JSON.stringify(order));
      } catch {
        // A browser that keeps nothing still plays; the order just does not survive a reload.
      }
    }

    changed() {
      if (this.placed.size !== this.start.size) return true;
      for (const [tile, [x, y]] of this.placed) {
        const was = this.start.get(tile);
        if (!was || was[0] !== x || was[1] !== y) return true;
      }
      return false;
    }

    added() {
      return [...this.placed.keys()].filter((tile) => !this.start.has(tile));
    }

    tableList() {
      return [...this.placed].map(([tile, [x, y]]) => [tile, x, y]).sort((a, b) => a[0] - b[0]);
    }

    occupant() {
      const at = new Map();
      this.placed.forEach(([x, y], tile) => at.set(keyOf(x, y), tile));
      return at;
    }

    // --- changing the draft ---------------------------------------------------------------------------

    /* Moves the selected tiles so that the anchor lands on (x, y), the others keeping their places around
       it (hand tiles in a row after it). Nothing moves unless every cell is free and on the board. */
    moveSelectionTo(x, y) {
      if (!this.myTurn() || !this.selected.size) return false;
      const anchor = this.selected.has(this.anchor) ? this.anchor : [...this.selected][0];
      const from = this.placed.get(anchor);
      const targets = new Map();
      let spare = 1;
      [...this.selected].forEach((tile) => {
        const at = this.placed.get(tile);
        if (tile === anchor) targets.set(tile, [x, y]);
        else if (at && from) targets.set(tile, [x + at[0] - from[0], y + at[1] - from[1]]);
        else targets.set(tile, [x + spare++, y]);
      });
      const [width, height] = this.view.board;
      const at = this.occupant();
      const fits = [...targets.values()].every(([tx, ty]) => {
        if (tx < 0 || ty < 0 || tx >= width || ty >= height) return false;
        const there = at.get(keyOf(tx, ty));
        return there === undefined || this.selected.has(there);
      });
      if (!fits) {
        this.ctx.announce(gettext("Those tiles do not fit there."));
        return false;
      }
      targets.forEach((cell, tile) => this.placed.set(tile, cell));
      this.sound("place");
      this.afterChange(say(ngettext("%(count)s tile placed at %(cell)s.", "%(count)s tiles placed at %(cell)s.", targets.size),
        { count: targets.size, cell: cellName(x, y) }));
      return true;
    }

    backToHand(tile) {
      if (this.start.has(tile)) {
        this.ctx.announce(gettext("Tiles that were on the table stay on the table."));
        return false;
      }
      this.placed.delete(tile);
      this.afterChange(say(gettext("%(tile)s is back in your hand."), { tile: tileName(tile) }));
      return true;
    }

    afterChange(words) {
      this.selected.clear();
      this.refusedProblems = null;
      this.sendDraft();
      this.render();
      if (words) this.say(words);
    }

    undo() {
      this.placed = new Map(this.start);
      this.afterChange(gettext("The turn is undone."));
    }

    sendDraft() {
      window.clearTimeout(this.draftTimer);
      const wait = this.lastDraftSent + DRAFT_GAP_MS - Date.now();
      const send = () => {
        if (!this.myTurn()) return;
        this.lastDraftSent = Date.now();
        if (this.ctx.sendDraft) this.ctx.sendDraft({ table: this.tableList() });
      };
      if (wait <= 0) send();
      else this.draftTimer = this.later(wait, send);
    }

    sortHand(byNumber) {
      const tiles = this.handTiles();
      const weight = (tile) => {
        if (isJoker(tile)) return 10000 + tile;
        return byNumber ? numberOf(tile) * 100 + colourOf(tile) * 2 + Math.floor(tile / 52)
          : colourOf(tile) * 100 + numberOf(tile) * 2 + Math.floor(tile / 52);
      };
      this.saveHandOrder(tiles.sort((a, b) => weight(a) - weight(b)));
      this.render();
      this.say(byNumber ? gettext("Hand sorted by number.") : gettext("Hand sorted by colour."));
    }

    reorderHand(tile, before) {
      const order = this.handTiles().filter((t) => t !== tile);
      const index = before === null ? order.length : order.indexOf(before);
      order.splice(index < 0 ? order.length : index, 0, tile);
      this.saveHandOrder(order);
      this.render();
    }

    /* The tiles connected to `tile` through lines (rules.js structures of the draft). */
    structureOf(tile) {
      const found = rules().structures(this.tableList()).find((group) => group.includes(tile));
      return found || [tile];
    }

    selectStructure(tile) {
      const group = this.structureOf(tile);
      this.selected = new Set(group);
      this.anchor = tile;
      this.render();
      this.say(say(ngettext("%(count)s tile selected.", "%(count)s tiles selected.", group.length), { count: group.length }));
    }

    selectTile(tile) {
      if (this.selected.size === 1 && this.selected.has(tile)) this.selected.clear();
      else this.selected = new Set([tile]);
      this.anchor = tile;
      this.render();
      if (this.selected.size) this.say(say(gettext("%(tile)s selected."), { tile: tileName(tile) }));
    }

    // --- separating sets --------------------------------------------------------------------------------

    /* Each structure that reads as several sets lying side by side (its rows, or its columns, each a valid
       set of its own, every tile in exactly one of them) can be pulled apart: the ways to do it. */
    separable() {
      const judge = rules();
      const table = this.tableList();
      const found = [];
      judge.structures(table).forEach((group) => {
        if (group.length < 6) return;
        const members = table.filter(([tile]) => group.includes(tile));
        const before = found.length;
        for (const horizontal of [true, false]) {
          const lines = new Map();
          members.forEach((item) => {
            const key = horizontal ? item[2] : item[1];
            if (!lines.has(key)) lines.set(key, []);
            lines.get(key).push(item);
          });
          const parts = [...lines.values()];
          if (parts.length < 2) continue;
          const whole = parts.every((part) => {
            part.sort((a, b) => (horizontal ? a[1] - b[1] : a[2] - b[2]));
            const contiguous = part.every((item, i) => i === 0
              || (horizontal ? item[1] === part[i - 1][1] + 1 : item[2] === part[i - 1][2] + 1));
            return contiguous && part.length >= 3 && judge.judge(part, ...this.view.board).valid;
          });
          if (whole) {
            found.push({ parts, horizontal });
            break;
          }
        }
        if (found.length === before) {
          const split = this.splitLine(members, judge);
          if (split) found.push(split);
        }
      });
      return found;
    }

    /* A single line of six or more (a long run, say 1 to 7) that reads as two valid sets once cut: the cut
       nearest its middle. Pressing again cuts a part that is still long enough. */
    splitLine(members, judge) {
      const horizontal = members.every((item) => item[2] === members[0][2]);
      if (!horizontal && !members.every((item) => item[1] === members[0][1])) return null;
      const line = [...members].sort((a, b) => (horizontal ? a[1] - b[1] : a[2] - b[2]));
      const cuts = [];
      for (let cut = 3; cut <= line.length - 3; cut += 1) cuts.push(cut);
      cuts.sort((a, b) => Math.abs(line.length / 2 - a) - Math.abs(line.length / 2 - b) || a - b);
      for (const cut of cuts) {
        const parts = [line.slice(0, cut), line.slice(cut)];
        if (parts.every((part) => judge.judge(part, ...this.view.board).valid)) return { parts, horizontal };
      }
      return null;
    }

    separate() {
      const ways = this.separable();
      if (!ways.length || !this.myTurn()) return;
      const [width, height] = this.view.board;
      const next = new Map(this.placed);
      const taken = () => {
        const at = new Set();
        next.forEach(([x, y]) => at.add(keyOf(x, y)));
        return at;
      };
      let ok = true;
      ways.forEach(({ parts, horizontal }) => {
        parts.slice(1).forEach((part) => {
          part.forEach(([tile]) => next.delete(tile));
          const at = taken();
          const length = part.length;
          const spot = this.freeSpot(at, length, horizontal, width, height);
          if (!spot) {
            ok = false;
            part.forEach(([tile, x, y]) => next.set(tile, [x, y]));
            return;
          }
          part.forEach(([tile], i) => next.set(tile, horizontal ? [spot[0] + i, spot[1]] : [spot[0], spot[1] + i]));
        });
      });
      const table = [...next].map(([tile, [x, y]]) => [tile, x, y]);
      const separatedOk = ok && ways.every(({ parts }) => parts.every((part) => {
        const tiles = new Set(part.map(([tile]) => tile));
        return rules().judge(table, width, height).problems.every((problem) => problem.cells.every(([x, y]) => {
          const tile = [...next].find(([, cell]) => cell[0] === x && cell[1] === y);
          return !tile || !tiles.has(tile[0]);
        }));
      }));
      if (!separatedOk) {
        this.say(gettext("The sets could not be separated: there is no room for them all to stay valid."));
        return;
      }
      this.placed = next;
      this.afterChange(gettext("The sets were separated."));
    }

    /* A free line of `length` cells with an empty cell all around it. */
    freeSpot(at, length, horizontal, width, height) {
      const free = (x, y) => x < 0 || y < 0 || x >= width || y >= height || !at.has(keyOf(x, y));
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const cells = Array.from({ length }, (_, i) => (horizontal ? [x + i, y] : [x, y + i]));
          if (cells.some(([cx, cy]) => cx >= width || cy >= height)) continue;
          const around = [];
          cells.forEach(([cx, cy]) => around.push([cx, cy], [cx - 1, cy], [cx + 1, cy], [cx, cy - 1], [cx, cy + 1]));
          if (around.every(([cx, cy]) => free(cx, cy))) return [x, y];
        }
      }
      return null;
    }

    // --- moves ------------------------------------------------------------------------------------------

    play() {
      if (!this.myTurn() || this.pending) return;
      this.sendLocked({ type: "play", table: this.tableList() });
      this.render();
    }

    drawOrPass() {
      if (!this.myTurn() || this.pending || this.changed()) return;
      this.sendLocked({ type: this.view.bag ? "draw" : "pass" });
      this.render();
    }

    begin() {
      if (this.pending) return;
      this.sendLocked({ type: "begin" });
      this.render();
    }

    resign() {
      if (!this.confirmResign) {
        this.confirmResign = true;
        this.render();
        return;
      }
      this.confirmResign = false;
      this.ctx.sendMove({ type: "resign" });
      this.render();
    }

    // --- pointer: drag, select, double tap --------------------------------------------------------------

    tileAt(node) {
      const el = node && node.closest ? node.closest("[data-tile]") : null;
      return el && this.root.contains(el) ? Number(el.dataset.tile) : null;
    }

    cellAt(node) {
      const el = node && node.closest ? node.closest(".tl-cell") : null;
      return el && this.boardEl.contains(el) ? [Number(el.dataset.x), Number(el.dataset.y)] : null;
    }

    pointerDown(event) {
      if (event.button !== undefined && event.button !== 0) return;
      const tile = this.tileAt(event.target);
      const cell = this.cellAt(event.target);
      if (event.target.closest("button:not([data-tile])")) return;
      this.drag = { tile, cell, x: event.clientX, y: event.clientY, moved: false, ghost: null, pointerId: event.pointerId };
      document.addEventListener("pointermove", this.onMove);
      document.addEventListener("pointerup", this.onUp);
      document.addEventListener("pointercancel", this.onUp);
    }

    pointerMove(event) {
      const drag = this.drag;
      if (!drag || drag.tile === null) return;
      const fromTable = this.placed.has(drag.tile);
      // Out of turn a hand tile may still be dragged within the hand, to reorder it.
      if (!this.myTurn() && (fromTable || !this.hand().includes(drag.tile))) return;
      if (!drag.moved) {
        if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_SLOP_PX) return;
        if (fromTable && !this.hand().includes(drag.tile) && !this.start.has(drag.tile)) return;
        drag.moved = true;
        if (!this.selected.has(drag.tile)) this.selected = new Set([drag.tile]);
        this.anchor = drag.tile;
        drag.ghost = h("div", { class: "tl-ghost", "aria-hidden": "true" },
          [...this.selected].map((tile) => this.tileEl(tile, { ghost: true })));
        this.root.append(drag.ghost);
        this.root.classList.add("is-dragging");
      }
      event.preventDefault();
      drag.ghost.style.setProperty("--x", `${event.clientX}px`);
      drag.ghost.style.setProperty("--y", `${event.clientY}px`);
      const over = document.elementFromPoint(event.clientX, event.clientY);
      const cell = this.cellAt(over);
      this.boardEl.querySelectorAll(".is-over").forEach((el) => el.classList.remove("is-over"));
      if (cell) {
        const target = this.boardEl.querySelector(`[data-x="${cell[0]}"][data-y="${cell[1]}"]`);
        if (target) target.classList.add("is-over");
      }
    }

    pointerUp(event) {
      const drag = this.drag;
      this.drag = null;
      document.removeEventListener("pointermove", this.onMove);
      document.removeEventListener("pointerup", this.onUp);
      document.removeEventListener("pointercancel", this.onUp);
      if (!drag) return;
      if (drag.ghost) drag.ghost.remove();
      this.root.classList.remove("is-dragging");
      if (drag.moved) {
        if (event.type === "pointercancel") return this.render();
        const over = document.elementFromPoint(event.clientX, event.clientY);
        const cell = this.cellAt(over);
        if (cell) {
          if (!this.myTurn() || !this.moveSelectionTo(cell[0], cell[1])) {
            if (!this.myTurn()) this.selected.clear();
            this.render();
          }
          return;
        }
        if (over && over.closest && over.closest(".tl-hand")) {
          if (this.placed.has(drag.tile)) {
            if (this.selected.size === 1) this.backToHand(drag.tile);
            else this.render();
          } else {
            this.selected.clear();
            this.reorderHand(drag.tile, this.tileAt(over));
          }
          return;
        }
        this.render();
        return;
      }
      this.tap(drag.tile, drag.cell);
    }

    /* A click or a tap: select a tile (twice quickly on a table tile: its structure), or place the
       selection on an empty cell. */
    tap(tile, cell) {
      if (!this.myTurn()) return;
      const now = Date.now();
      if (tile !== null) {
        const double = this.lastTap.tile === tile && now - this.lastTap.at < DOUBLE_TAP_MS;
        this.lastTap = { tile, at: now };
        if (double && this.placed.has(tile)) this.selectStructure(tile);
        else if (this.selected.size && !this.selected.has(tile) && this.placed.has(tile) && cell) {
          this.selectTile(tile);
        } else this.selectTile(tile);
        return;
      }
      this.lastTap = { tile: null, at: now };
      if (cell && this.selected.size) {
        this.cursor = cell;
        this.moveSelectionTo(cell[0], cell[1]);
      }
    }

    // --- keyboard -----------------------------------------------------------------------------------

    documentKey(event) {
      if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "m" || event.key === "M") {
        this.toggleSound();
        event.preventDefault();
      }
    }

    boardKey(event) {
      const [width, height] = this.view ? this.view.board : [24, 16];
      const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      const portrait = this.root.classList.contains("is-turned");
      if (moves[event.key]) {
        let [dx, dy] = moves[event.key];
        if (portrait) [dx, dy] = [dy, -dx]; // the board is drawn turned: arrows follow what the eye sees
        this.cursor = [Math.min(width - 1, Math.max(0, this.cursor[0] + dx)), Math.min(height - 1, Math.max(0, this.cursor[1] + dy))];
        event.preventDefault();
        this.renderCursor();
        const tile = this.occupant().get(keyOf(...this.cursor));
        this.say(`${cellName(...this.cursor)}${tile === undefined ? "" : ": " + tileName(tile)}`);
        return;
      }
      const tile = this.occupant().get(keyOf(...this.cursor));
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        if (!this.myTurn()) return;
        if (tile !== undefined && !this.selected.has(tile)) this.selectTile(tile);
        else if (this.selected.size) this.moveSelectionTo(...this.cursor);
        else if (tile !== undefined) this.selectTile(tile);
      } else if (event.key === "g" || event.key === "G") {
        event.preventDefault();
        if (this.myTurn() && tile !== undefined) this.selectStructure(tile);
      } else if (event.key === "Escape") {
        this.selected.clear();
        this.render();
      }
    }

    handKey(event, tile) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        if (this.myTurn()) this.selectTile(tile);
      } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
        event.preventDefault();
        const tiles = this.handTiles();
        const index = tiles.indexOf(tile) + (event.key === "ArrowLeft" ? -1 : 1);
        const next = this.handEl.querySelector(`[data-tile="${tiles[index]}"]`);
        if (next) next.focus();
      }
    }

    // --- drawing --------------------------------------------------------------------------------------

    say(words) {
      this.liveEl.textContent = words;
    }

    tileEl(tile, { ghost = false, faces = null, onBoard = false } = {}) {
      const joker = isJoker(tile);
      const label = joker && faces && faces.length
        ? say(gettext("joker, as %(tiles)s"), { tiles: faces.map(tileName).join(", ") }) : tileName(tile);
      const selected = this.selected.has(tile);
      const props = {
        class: `tl-tile ${colourClass(tile)}${selected ? " is-selected" : ""}${onBoard && !this.start.has(tile) ? " is-new" : ""}`,
        "aria-label": label,
      };
      if (!ghost) {
        props["data-tile"] = tile;
        props["data-key"] = `tile-${tile}`;
      }
      const children = [h("span", { class: "tl-face", "aria-hidden": "true", text: joker ? "J" : String(numberOf(tile)) })];
      if (joker && faces && faces.length) {
        const shown = faces[0];
        children.push(h("span", { class: `tl-stands ${colourClass(shown)}`, "aria-hidden": "true",
          text: faces.length > 1 ? `${numberOf(shown)}+` : String(numberOf(shown)) }));
      }
      return h(ghost || onBoard ? "span" : "button", Object.assign(props, ghost || onBoard ? {} : { type: "button" }), children);
    }

    render() {
      if (!this.view || this.destroyed) return;
      const view = this.view;
      const [width, height] = view.board;
      const mine = this.myTurn();
      this.root.classList.toggle("is-my-turn", mine);
      this.root.classList.toggle("is-paused", this.paused());
      this.root.classList.toggle("is-over", view.phase === "over" || this.game.status !== "playing");
      this.root.style.setProperty("--cols", width);
      this.root.style.setProperty("--rows", height);
      this.root.classList.toggle("is-turned", this.upright.matches);
      this.renderPlayers();
      this.renderDice();
      this.renderDiceNote();
      this.renderPause();
      const judged = rules() ? rules().judge(this.tableList(), width, height) : { problems: [], jokers: {} };
      this.problems = this.refusedProblems || judged.problems;
      this.renderBoard(judged);
      this.renderProblems();
      this.renderHand();
      this.renderButtons();
    }

    renderPlayers() {
      const view = this.view;
      const clocks = this.game.clocks;
      const now = Date.now() / 1000;
      const nodes = view.counts.map((count, seat) => {
        let used = clocks ? clocks.used[seat] || 0 : 0;
        if (clocks && clocks.since && clocks.running.includes(seat)) used += Math.max(0, now - clocks.since);
        const place = view.places[String(seat)];
        const status = view.resigned.includes(seat) ? gettext("resigned")
          : place ? say(gettext("place %(place)s"), { place }) : "";
        return h("li", { class: `tl-player tk-player${view.current === seat && view.phase === "play" ? " is-current" : ""}${seat === this.me ? " is-me" : ""}` }, [
          h("span", { class: "tl-name tk-player-name", text: this.name(seat) }),
          this.botBadge(seat),
          h("span", { class: "tl-count", text: say(ngettext("%(count)s tile", "%(count)s tiles", count), { count }) }),
          h("span", { class: "tl-time", "data-seat-clock": seat, text: clockText(used) }),
          status ? h("span", { class: "tl-status", text: status }) : null,
        ]);
      });
      this.playersEl.replaceChildren(...nodes);
      let total = clocks ? clocks.total : 0;
      if (clocks && clocks.since) total += Math.max(0, now - clocks.since);
      this.bagEl.replaceChildren(
        h("span", { class: "tl-bag-count", text: say(ngettext("Bag: %(count)s tile", "Bag: %(count)s tiles", view.bag), { count: view.bag }) }),
        h("span", { class: "tl-total", text: say(gettext("Total time %(clock)s"), { clock: clockText(total) }) }),
      );
    }

    renderDice() {
      const view = this.view;
      const show = view.phase === "begin";
      this.diceEl.hidden = !show;
      if (!show) return;
      const last = view.dice[view.dice.length - 1] || [];
      const rollKey = `${this.game.number}`;
      const rolling = this.rolledFor !== rollKey;
      if (rolling) {
        this.rolledFor = rollKey;
        this.later(DICE_ROLL_MS, () => this.render());
      }
      const rows = last.map((value, seat) => (value === null ? null : h("li", { class: "tl-die-row" }, [
        h("span", { text: this.name(seat) }),
        h("span", { class: `tl-die${rolling ? " is-rolling" : ""}${seat === view.chooser ? " is-high" : ""}`,
          "aria-label": say(gettext("rolled %(value)s"), { value }), text: String(value) }),
      ])));
      const chooser = view.chooser;
      const mineToBegin = chooser === this.me && this.me !== null && !this.handsHidden && !this.paused();
      this.diceEl.replaceChildren(
        h("h3", { text: gettext("The dice") }),
        h("ul", { class: "tl-die-rows" }, rows),
        h("p", { text: view.dice.length > 1 ? gettext("A tie on the highest value: the tied players rolled again.") : null }),
        h("p", { text: say(gettext("%(player)s rolled highest and starts."), { player: this.name(chooser) }) }),
        mineToBegin ? h("button", { type: "button", class: "primary tl-begin", text: gettext("Start the game"), disabled: this.pending ? true : null,
          onclick: () => this.begin() }) : h("p", { class: "tl-wait", text: say(gettext("Waiting for %(player)s to start the game."), { player: this.name(chooser) }) }),
      );
    }

    renderDiceNote() {
      const view = this.view;
      const show = view.phase !== "begin" && Array.isArray(view.dice) && view.dice.length > 0;
      this.diceNoteEl.hidden = !show;
      if (!show) return;
      const rounds = view.dice.map((values) => values.map((value, seat) => (value === null ? null
        : say(gettext("%(player)s: %(value)s"), { player: this.name(seat), value }))).filter(Boolean));
      // A game that ended while the chosen player had not started says who was chosen, not who began.
      const summary = view.turn > 0 ? say(gettext("The dice: %(player)s began."), { player: this.name(view.chooser) })
        : gettext("The dice");
      // Rebuilt only when it changes: a render comes with every draft, and a focused summary must stay.
      const key = JSON.stringify([this.game.number, rounds, summary]);
      if (key === this.diceNoteKey) return;
      if (this.diceNoteGame !== this.game.number) this.diceNoteEl.open = false; // a new game's note starts folded
      this.diceNoteGame = this.game.number;
      this.diceNoteKey = key;
      this.diceNoteEl.replaceChildren(
        h("summary", { text: summary }),
        h("ul", { class: "tl-dice-rounds" }, rounds.map((rolls, index) => h("li", {}, [
          rounds.length > 1 ? h("span", { text: say(gettext("Round %(round)s:"), { round: index + 1 }) }) : null,
          ...rolls.map((text) => h("span", { class: "tl-dice-roll", text })),
        ]))),
        h("p", { text: view.dice.length > 1 ? gettext("A tie on the highest value: the tied players rolled again.") : null }),
      );
    }

    renderPause() {
      const paused = this.paused();
      this.pauseEl.hidden = !paused;
      if (!paused) return;
      this.pauseEl.replaceChildren(
        h("p", { text: gettext("The game is paused. The time left and the changes on the table are kept.") }),
        this.inPlay() ? h("button", { type: "button", class: "primary tl-resume", text: gettext("Resume"),
          onclick: () => this.ctx.sendPause(false) }) : null,
      );
    }

    renderBoard(judged) {
      const [width, height] = this.view.board;
      const at = this.occupant();
      const bad = new Map();
      this.problems.forEach((problem) => problem.cells.forEach(([x, y], i) => {
        if (!bad.has(keyOf(x, y))) bad.set(keyOf(x, y), i === 0 ? problem.reason : "");
        else if (i === 0 && !bad.get(keyOf(x, y))) bad.set(keyOf(x, y), problem.reason);
      }));
      const cells = [];
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const tile = at.get(keyOf(x, y));
          const key = keyOf(x, y);
          const reason = bad.get(key);
          const cursor = this.cursor[0] === x && this.cursor[1] === y;
          const faces = tile !== undefined && isJoker(tile) ? (judged.jokers[tile] || judged.jokers[String(tile)] || []) : null;
          cells.push(h("div", {
            class: `tl-cell${bad.has(key) ? " is-bad" : ""}${cursor ? " is-cursor" : ""}`,
            "data-x": x, "data-y": y, role: "gridcell", id: `tl-cell-${x}-${y}`,
            "aria-label": `${cellName(x, y)}${tile === undefined ? "" : ": " + tileName(tile)}`,
          }, [
            tile === undefined ? null : this.tileEl(tile, { faces, onBoard: true }),
            reason ? h("span", { class: "tl-why", text: reasonText(reason) }) : null,
          ]));
        }
      }
      if (this.root.classList.contains("is-turned")) {
        cells.forEach((cell) => {
          cell.style.setProperty("--col", cell.dataset.x);
          cell.style.setProperty("--row", cell.dataset.y);
        });
      }
      this.boardEl.replaceChildren(...cells);
      this.boardEl.setAttribute("aria-activedescendant", `tl-cell-${this.cursor[0]}-${this.cursor[1]}`);
    }

    renderCursor() {
      this.boardEl.querySelectorAll(".is-cursor").forEach((el) => el.classList.remove("is-cursor"));
      const cell = this.boardEl.querySelector(`[data-x="${this.cursor[0]}"][data-y="${this.cursor[1]}"]`);
      if (cell) {
        cell.classList.add("is-cursor");
        cell.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
      this.boardEl.setAttribute("aria-activedescendant", `tl-cell-${this.cursor[0]}-${this.cursor[1]}`);
    }

    renderProblems() {
      const show = this.problems.length && (this.myTurn() || this.refusedProblems);
      this.problemsEl.hidden = !show;
      this.problemsEl.replaceChildren(...(show ? this.problems.map((problem) => h("li", { text: problemText(problem) })) : []));
    }

    renderHand() {
      const focused = document.activeElement && this.handEl.contains(document.activeElement) ? this.tileAt(document.activeElement) : null;
      if (this.handsHidden || this.me === null || !Array.isArray(this.view.hand)) {
        this.handEl.hidden = this.me === null || !Array.isArray(this.view.hand);
        this.handEl.replaceChildren(h("p", { class: "tl-hidden-hand", text: gettext("The hand is hidden.") }));
        if (!this.handsHidden) this.handEl.replaceChildren();
        return;
      }
      this.handEl.hidden = false;
      const tiles = this.handTiles();
      const nodes = tiles.map((tile) => {
        const el = this.tileEl(tile);
        el.setAttribute("role", "option");
        el.setAttribute("aria-selected", this.selected.has(tile) ? "true" : "false");
        el.addEventListener("keydown", (event) => this.handKey(event, tile));
        return el;
      });
      if (!tiles.length) nodes.push(h("p", { class: "tl-empty", text: gettext("Your hand is empty.") }));
      this.handEl.replaceChildren(...nodes);
      if (focused !== null) {
        const again = this.handEl.querySelector(`[data-tile="${focused}"]`);
        if (again) again.focus({ preventScroll: true });
      }
    }

    renderButtons() {
      const view = this.view;
      const mine = this.myTurn();
      const changed = this.changed();
      const busy = Boolean(this.pending);
      const button = (cls, text, onclick, disabled, extra) => h("button", Object.assign({
        type: "button", class: cls, text, onclick, disabled: disabled ? true : null,
      }, extra || {}));
      const nodes = [];
      const handShown = this.me !== null && Array.isArray(view.hand) && !this.handsHidden;
      if (handShown && view.phase !== "over") {
        nodes.push(button("tl-sort-colour", gettext("Colours"), () => this.sortHand(false)));
        nodes.push(button("tl-sort-number", gettext("1 → 13"), () => this.sortHand(true)));
      }
      if (mine) {
        nodes.push(button("tl-undo", gettext("Undo"), () => this.undo(), !changed || busy));
        if (rules() && this.separable().length) nodes.push(button("tl-separate", gettext("Separate sets"), () => this.separate(), busy));
        nodes.push(button("tl-draw", view.bag ? gettext("Draw") : gettext("Pass"), () => this.drawOrPass(), changed || busy,
          changed ? { title: gettext("Undo your changes first.") } : null));
        nodes.push(button("primary tl-play", gettext("Play"), () => this.play(), !this.added().length || busy));
      }
      if (this.inPlay() && view.phase !== "over") {
        if (!this.paused()) nodes.push(button("tl-pause", gettext("Pause"), () => this.ctx.sendPause(true)));
        if (this.confirmResign) {
          nodes.push(h("span", { class: "tl-confirm", role: "group", "aria-label": gettext("Resign?") }, [
            h("span", { text: gettext("Resign the game?") }),
            button("danger tl-resign-yes", gettext("Yes, resign"), () => this.resign()),
            button("tl-resign-no", gettext("No"), () => {
              this.confirmResign = false;
              this.render();
            }),
          ]));
        } else if (!this.paused()) {
          nodes.push(button("tl-resign", gettext("Resign"), () => this.resign()));
        }
      }
      if (this.playing() && this.me !== null && !this.inPlay() && view.phase === "play") {
        nodes.push(h("p", { class: "tl-watching", text: gettext("You are watching the others play on.") }));
      }
      const active = document.activeElement;
      const activeClass = active && this.buttonsEl.contains(active) ? active.className.split(" ").find((c) => c.startsWith("tl-")) : null;
      this.buttonsEl.replaceChildren(...nodes);
      if (activeClass) {
        const again = this.buttonsEl.querySelector(`.${activeClass}`);
        if (again && !again.disabled) again.focus({ preventScroll: true });
      }
    }

    /* Twice a second: the clocks, and the turn's warnings at 30 seconds left and at 0. */
    tick() {
      if (!this.view || !this.game) return;
      if (this.playing() && !this.paused()) this.renderPlayersClocks();
      if (!this.myTurn() || !this.ctx.timeLeft) return;
      const left = this.ctx.timeLeft();
      if (left === null || left === undefined) return;
      const key = this.turnKey;
      if (this.warned.key !== key) this.warned = { key, thirty: left <= WARN_SECONDS, zero: false };
      if (!this.warned.thirty && left <= WARN_SECONDS) {
        this.warned.thirty = true;
        this.sound("tick");
        this.ctx.announce(gettext("30 seconds left."));
      }
      if (!this.warned.zero && left <= 0) {
        this.warned.zero = true;
        this.sound("end");
      }
    }

    renderPlayersClocks() {
      const clocks = this.game.clocks;
      if (!clocks || !clocks.since) return;
      const now = Date.now() / 1000;
      this.playersEl.querySelectorAll("[data-seat-clock]").forEach((el) => {
        const seat = Number(el.dataset.seatClock);
        let used = clocks.used[seat] || 0;
        if (clocks.running.includes(seat)) used += Math.max(0, now - clocks.since);
        el.textContent = clockText(used);
      });
      const total = this.bagEl.querySelector(".tl-total");
      if (total) total.textContent = say(gettext("Total time %(clock)s"), { clock: clockText(clocks.total + Math.max(0, now - clocks.since)) });
    }
  }

  registerTable("tiles", TilesTable, {
    // The room's ranking: a place each, who resigned, and the points left in hand (a joker 30).
    resultText(row) {
      if (row.resigned) return gettext("resigned");
      const points = row.points === undefined ? row.score : row.points;
      return say(ngettext("%(points)s point left in hand", "%(points)s points left in hand", points), { points });
    },
    scoreLabel: gettext("points left"),
    lowerIsBetter: true,
    scoreRule: gettext("The first to empty their hand wins; the others by the points left in hand."),
    turnBased: true,
    showsPlayers: true,
  });
})();
