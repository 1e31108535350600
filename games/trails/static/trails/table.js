/*
 * Trails table: the game side of the room page (docs/games/trails.md, "The table in the browser").
 *
 * The room page owns the socket, the timer, the seats and the ranking; this file draws the map of
 * eleven trails, the players, the dice and the tray, and narrates each throw. The view is the truth:
 * an animation only retells the events of one update, and always ends by drawing that update's view.
 *
 *   window.WickwiseGames.trails.mount(container, ctx) -> { update(view, events, game), destroy() }
 */
(function () {
  "use strict";

  const {
    h, replaceDescs, withFocusKept, prefersReducedMotion, isTyping, TableBase, registerTable,
  } = window.WickwiseTableKit; // static/js/tablekit.js, loaded before this file

  const FIRST_TRAIL = 2;
  const LANTERNS = 3;
  const ALL_THROWS = 1296; // 6 ** 4 ordered throws of four dice
  const PAIRINGS = [[0, 1, 2, 3], [0, 2, 1, 3], [0, 3, 1, 2]];
  const CATCH_UP_QUEUE = 3; // more updates than this waiting: draw them without animation
  let mounted = 0;

  // --- the rules the table needs, as games/trails/engine.py has them ----------------------------

  const trailIndex = (trail) => trail - FIRST_TRAIL;
  const trailOf = (index) => index + FIRST_TRAIL;

  /* The ways two dice make a sum: [[1, 6], [2, 5], [3, 4]] for 7. */
  function dicePairsFor(sum) {
    const pairs = [];
    for (let low = 1; low <= 6; low++) {
      const high = sum - low;
      if (high >= low && high <= 6) pairs.push([low, high]);
    }
    return pairs;
  }

  /* The pairing of the dice that a tray card shows: the first of the three, in order, with these sums. */
  function pairingFor(dice, sums) {
    for (const order of PAIRINGS) {
      const first = [dice[order[0]], dice[order[1]]];
      const second = [dice[order[2]], dice[order[3]]];
      const a = first[0] + first[1];
      const b = second[0] + second[1];
      if (Math.min(a, b) === sums[0] && Math.max(a, b) === sums[1]) return a <= b ? [first, second] : [second, first];
    }
    return null;
  }

  // --- words ---------------------------------------------------------------------------------

  function say(format, values) {
    return interpolate(format, values, true);
  }

  function listOf(items) {
    const lang = document.documentElement.lang || undefined;
    if (window.Intl && Intl.ListFormat) return new Intl.ListFormat(lang, { type: "conjunction" }).format(items);
    return items.join(", ");
  }

  function percent(value) {
    const lang = document.documentElement.lang || undefined;
    if (value > 0 && value < 0.0005) {
      return say(gettext("under %(percent)s"), { percent: percentFormat(lang, 0.001) });
    }
    return percentFormat(lang, value);
  }

  function percentFormat(lang, value) {
    try {
      return new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 1 }).format(value);
    } catch {
      return Math.round(value * 1000) / 10 + "%";
    }
  }

  function number(value) {
    try {
      return new Intl.NumberFormat(document.documentElement.lang || undefined).format(value);
    } catch {
      return String(value);
    }
  }

  function diceText(dice) {
    return listOf(dice.map(String));
  }

  function climbWords(trails) {
    if (trails.length === 2 && trails[0] === trails[1]) {
      return say(gettext("trail %(trail)s two steps"), { trail: trails[0] });
    }
    if (trails.length === 2) return say(gettext("trails %(a)s and %(b)s"), { a: trails[0], b: trails[1] });
    return say(gettext("trail %(trail)s"), { trail: trails[0] });
  }

  function climbLabel(trails) {
    if (trails.length === 2 && trails[0] === trails[1]) {
      return say(gettext("Climb %(trail)s two steps"), { trail: trails[0] });
    }
    if (trails.length === 2) return say(gettext("Climb %(a)s and %(b)s"), { a: trails[0], b: trails[1] });
    return say(gettext("Climb %(trail)s"), { trail: trails[0] });
  }

  // --- small DOM helpers ---------------------------------------------------------------------

  /* A die with its pips (or blank); decorative: the element that holds it carries the words. */
  function dieGraphic(face, extra) {
    const die = h("span", { class: "tt-die" + (extra ? " " + extra : ""), "data-face": face || 0, "aria-hidden": "true" });
    for (let pip = 0; pip < (face || 0); pip++) die.append(h("i"));
    return die;
  }

  function setFace(die, face) {
    die.dataset.face = face;
    die.replaceChildren(...Array.from({ length: face }, () => h("i")));
  }

  function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  // --- the table -----------------------------------------------------------------------------

  class TrailsTable extends TableBase {
    constructor(container, ctx) {
      super(ctx, "trails table");
      this.uid = "tt" + (++mounted);
      this.view = null;
      this.game = null;
      this.pending = null; // {type, until}
      this.chosenCard = null; // a two-button card picked by its digit, waiting for A or O
      this.log = [];
      this.fresh = { lanterns: [], banners: [], bannerSeat: null, claimed: [] };
      this.build(container);
      this.bindEvents();
    }

    // --- building -----------------------------------------------------------------------------

    build(container) {
      const id = (name) => this.uid + "-" + name;
      this.turnEl = h("div", { class: "tt-turn" });
      this.playersEl = h("ul", { class: "tt-players tk-players", "aria-labelledby": id("players-title") });
      this.boardEl = h("ol", { class: "tt-board", "aria-labelledby": id("board-title") });
      this.bustEl = h("div", { class: "tt-bust", hidden: true, "aria-hidden": "true" });
      this.diceButton = h("button", {
        type: "button", class: "tt-dice", "aria-label": gettext("Throw the dice"), onclick: () => this.throwDice(),
      }, [0, 0, 0, 0].map((face) => dieGraphic(face)));
      this.throwNoteEl = h("p", { class: "tt-throw-note" });
      this.lanternsEl = h("div", {
        class: "tt-lanterns", tabindex: 0, role: "img", "data-tip": "", "data-key": "lanterns",
        "aria-describedby": id("lanterns-desc"),
      });
      this.signEl = h("div", {
        class: "tt-sign", tabindex: 0, role: "img", "data-tip": "", "data-key": "sign", "aria-describedby": id("sign-desc"),
      });
      this.trayEl = h("div", { class: "tt-tray", role: "group", "aria-label": gettext("Tray") });
      this.statusEl = h("p", { class: "tt-status" });
      this.throwButton = h("button", {
        type: "button", class: "tt-action tt-throw", "aria-keyshortcuts": "R", onclick: () => this.throwDice(),
      }, [h("span", { text: gettext("Throw") }), h("kbd", { class: "tt-keyhint", "aria-hidden": "true", text: "R" })]);
      this.campButton = h("button", {
        type: "button", class: "tt-action tt-camp", "aria-keyshortcuts": "C", onclick: () => this.makeCamp(),
      }, [h("span", { text: gettext("Make camp") }), h("kbd", { class: "tt-keyhint", "aria-hidden": "true", text: "C" })]);
      this.logList = h("ol", { class: "tt-log-list" });
      this.logEl = h("details", { class: "tt-log", hidden: true }, [
        h("summary", { text: gettext("What happened") }), this.logList,
      ]);
      this.fxEl = h("div", { class: "tt-fx tk-fx", "aria-hidden": "true" });
      this.tipEl = h("div", { class: "tt-tooltip ww-tip", id: id("tooltip"), role: "tooltip", hidden: true });
      this.lanternsDesc = h("span", { id: id("lanterns-desc") });
      this.signDesc = h("span", { id: id("sign-desc") });
      this.descsEl = h("div", { class: "tt-descs", hidden: true }, [this.lanternsDesc, this.signDesc]);
      this.stageEl = h("div", { class: "tt-area tt-area--stage" }, [
        h("div", { class: "tt-kit" }, [
          h("div", { class: "tt-dice-box" }, [this.diceButton, this.throwNoteEl]),
          h("div", { class: "tt-gauges" }, [this.lanternsEl, this.signEl]),
        ]),
        this.trayEl,
        h("div", { class: "tt-actions" }, [
          this.statusEl, h("div", { class: "tt-buttons" }, [this.throwButton, this.campButton]),
        ]),
      ]);
      this.root = h("section", { class: "trails-table tt-live ww-table tk-live", "aria-label": gettext("Trails table") }, [
        h("div", { class: "tt-layout tk-layout" }, [
          h("div", { class: "tt-bar tk-bar" }, [this.turnEl]),
          h("div", { class: "tt-area tt-area--players" }, [
            h("h3", { class: "tt-title tk-visually-hidden", id: id("players-title"), text: gettext("Players") }),
            this.playersEl,
          ]),
          h("div", { class: "tt-area tt-area--board" }, [
            h("h3", { class: "tt-title tk-visually-hidden", id: id("board-title"), text: gettext("The map") }),
            h("div", { class: "tt-map" }, [this.boardEl, this.bustEl]),
          ]),
          this.stageEl,
          h("div", { class: "tt-area tt-area--extra" }, [this.logEl]),
        ]),
        this.fxEl, this.tipEl, this.descsEl,
      ]);
      container.append(this.root);
    }

    /* Trails' pauses ride on later(), so destroy clears them; they are never cut short. */
    sleep(ms) {
      if (ms <= 0 || this.destroyed) return Promise.resolve();
      return new Promise((resolve) => this.later(ms, resolve));
    }

    // --- who is who (the rest in TableBase) -----------------------------------------------------------

    isMine(seat) {
      return this.seat !== null && seat === this.seat;
    }

    // --- the update queue (TableBase) -------------------------------------------------------------

    /* The plain draw, for when telling an update fails. */
    show(item) {
      this.accept(item);
      this.render();
    }

    accept(item) {
      const { view, game, events } = item;
      if (this.game && game && this.game.number !== game.number) this.resetForNewGame();
      this.view = view;
      this.game = game || this.game;
      if (this.pending) {
        const answered = events.some((e) => e.seat === this.seat && ["thrown", "climbed", "camped"].includes(e.type));
        if (answered || !events.length) this.pending = null; // an answer, or a snapshot: the server's word
      }
      if (view && view.phase !== "choose") this.chosenCard = null;
      this.previewChoice = null; // a new tray, or none: the old preview no longer applies
    }

    resetForNewGame() {
      this.pending = null;
      this.chosenCard = null;
      this.log = [];
    }

    /* One update, told: the dice roll, a fall, a climb or a camp; then the update's view. */
    async tell(item) {
      const before = this.view;
      const events = item.events;
      const animate = Boolean(before && item.view && !document.hidden && this.queue.length < CATCH_UP_QUEUE);
      const thrown = events.find((e) => e.type === "thrown");
      if (animate && thrown) {
        this.animating = true;
        this.renderControls();
        this.sound("pick");
        await this.rollDice(thrown.dice);
        if (thrown.busted) await this.showFall(thrown.seat);
        this.animating = false;
      } else if (thrown) {
        this.sound(thrown.busted ? "tip" : "pick"); // drawn at once (catching up): the sound still tells
      }
      this.fresh = this.freshMarks(before, item.view, events);
      this.accept(item);
      this.render();
      this.narrate(item, before);
      if (animate && this.fresh.claimed.length) this.stampLandmarks();
      // Marks are for this update's drawing only: a later redraw (a preview) must not replay them.
      this.fresh = { lanterns: [], banners: [], bannerSeat: null, claimed: [] };
    }

    freshMarks(before, after, events) {
      const fresh = { lanterns: [], banners: [], bannerSeat: null, claimed: [] };
      if (!after) return fresh;
      const climbed = events.find((e) => e.type === "climbed");
      if (climbed) {
        climbed.lanterns.forEach((step, index) => {
          if (step && (!before || before.lanterns[index] !== step)) fresh.lanterns.push(index);
        });
      }
      const camped = events.find((e) => e.type === "camped");
      if (camped) {
        fresh.bannerSeat = camped.seat; // the view that comes with a camp is already the next player's turn
        camped.banners.forEach((step, index) => {
          const old = before && before.banners[camped.seat] ? before.banners[camped.seat][index] : 0;
          if (step && step !== old) fresh.banners.push(index);
        });
        fresh.claimed = camped.claimed.map(trailIndex);
      }
      return fresh;
    }

    /* Milliseconds of a throw: the tumble and landing, and a fall. The server's pace (TABLE_PACE in
       games/trails/spec.py), which it waits out before a bot answers the throw; reduced motion, or a
       table mounted without the server's pace, is quicker. */
    pace() {
      const full = this.settings.pace;
      if (prefersReducedMotion() || !full) return { roll: 160, fall: 700, reduced: true };
      return { roll: Math.round(full.roll * 1000), fall: Math.round(full.fall * 1000), reduced: false };
    }

    /* The four dice tumble, then land on the throw. */
    async rollDice(dice) {
      const dies = Array.from(this.diceButton.querySelectorAll(".tt-die"));
      const pace = this.pace();
      this.diceButton.classList.remove("is-busted", "is-old");
      if (pace.reduced) {
        dies.forEach((die, i) => setFace(die, dice[i]));
        await this.sleep(pace.roll);
        return;
      }
      this.diceButton.classList.add("is-rolling");
      const landing = 240;
      const frame = Math.max(30, (pace.roll - landing) / 6);
      for (let turn = 0; turn < 6 && !this.destroyed; turn++) {
        dies.forEach((die) => setFace(die, 1 + Math.floor(Math.random() * 6)));
        await this.sleep(frame);
      }
      dies.forEach((die, i) => setFace(die, dice[i]));
      this.diceButton.classList.remove("is-rolling");
      dies.forEach((die, i) => this.play(die, [
        { transform: "translateY(-18%) rotate(" + (i % 2 ? 14 : -14) + "deg)" },
        { transform: "translateY(4%) rotate(0deg)", offset: 0.7 },
        { transform: "none" },
      ], { duration: landing - 20, easing: "ease-out" }));
      await this.sleep(landing);
    }

    /* Lost balance: the word over the map, the lanterns drop, and the map shakes a little. */
    async showFall(seat) {
      const reduced = this.pace().reduced;
      this.diceButton.classList.add("is-busted");
      this.sound("tip");
      this.bustEl.replaceChildren(
        h("strong", { text: gettext("Lost balance!") }),
        h("span", { text: this.isMine(seat) ? gettext("No pairing can climb.") : this.name(seat) }),
      );
      this.bustEl.hidden = false;
      const lanterns = Array.from(this.boardEl.querySelectorAll(".tt-lantern"));
      lanterns.forEach((lantern) => this.play(lantern, reduced
        ? [{ opacity: 1 }, { opacity: 0 }]
        : [{ transform: "none", opacity: 1 }, { transform: "translateY(2.5rem) rotate(40deg)", opacity: 0 }],
      { duration: reduced ? 300 : 650, easing: "cubic-bezier(.5, 0, .9, .5)", fill: "forwards" }));
      if (!reduced) {
        this.play(this.boardEl, [
          { transform: "translateX(0)" }, { transform: "translateX(-4px)" }, { transform: "translateX(4px)" },
          { transform: "translateX(-2px)" }, { transform: "translateX(0)" },
        ], { duration: 380 });
      }
      await this.sleep(this.pace().fall);
      this.bustEl.hidden = true;
    }

    stampLandmarks() {
      if (prefersReducedMotion()) return;
      this.fresh.claimed.forEach((index) => {
        const flag = this.boardEl.querySelector(`.tt-trail[data-trail="${trailOf(index)}"] .tt-summit`);
        if (flag) {
          this.play(flag, [{ transform: "scale(2.2)", opacity: 0 }, { transform: "scale(1)", opacity: 1 }],
            { duration: 420, easing: "cubic-bezier(.2, .8, .3, 1.2)" });
        }
      });
    }

    play(node, frames, options) {
      if (!node.animate) return Promise.resolve();
      const animation = node.animate(frames, options);
      this.animations.add(animation);
      return animation.finished.catch(() => null).then(() => this.animations.delete(animation));
    }

    /* On destroy: stop the animations where they are (TableBase's skip would finish them). */
    skip() {
      this.animations.forEach((animation) => {
        try {
          animation.cancel();
        } catch {
          // Already gone.
        }
      });
    }

    // --- words and sounds for each event ------------------------------------------------------------

    narrate(item, before) {
      const view = item.view;
      if (!view) return;
      const lines = [];
      const turns = [];
      let landmarks = 0;
      let won = false;
      item.events.forEach((event) => {
        const who = this.name(event.seat);
        const mine = this.isMine(event.seat);
        if (event.type === "thrown") {
          const values = { name: who, dice: diceText(event.dice) };
          if (event.busted) {
            lines.push(mine
              ? say(gettext("You throw %(dice)s and lose your balance: no pairing can climb."), values)
              : say(gettext("%(name)s throws %(dice)s and loses their balance."), values));
          } else {
            lines.push(mine ? say(gettext("You throw %(dice)s."), values) : say(gettext("%(name)s throws %(dice)s."), values));
          }
        } else if (event.type === "climbed") {
          this.sound("place");
          const values = { name: who, climb: climbWords(event.trails) };
          lines.push(mine ? say(gettext("You climb %(climb)s."), values) : say(gettext("%(name)s climbs %(climb)s."), values));
          event.topped.forEach((trail) => lines.push(say(gettext("A lantern reaches the summit of trail %(trail)s."), { trail })));
        } else if (event.type === "camped") {
          this.sound("place");
          lines.push(this.campWords(event, before));
          event.claimed.forEach((trail) => {
            landmarks += 1;
            lines.push(mine
              ? say(gettext("You raise a landmark on trail %(trail)s."), { trail })
              : say(gettext("%(name)s raises a landmark on trail %(trail)s."), { name: who, trail }));
          });
          (event.removed || []).forEach(([seat, trail]) => {
            lines.push(say(gettext("%(name)s's banner leaves trail %(trail)s."), { name: this.name(seat), trail }));
          });
        } else if (event.type === "won") {
          won = true;
          lines.push(mine ? gettext("You have three landmarks: you win!")
            : say(gettext("%(name)s has three landmarks and wins."), { name: who }));
        } else if (event.type === "turn") {
          if (!this.isMine(event.seat)) turns.push(say(gettext("%(name)s's turn."), { name: who }));
          else turns.push(this.canAct() ? gettext("Your turn: throw the dice.") : gettext("Your turn."));
        }
      });
      if (landmarks && !won) this.sound("end");
      if (lines.length) this.addLog(lines);
      if (lines.length || turns.length) this.ctx.announce(lines.concat(turns).join(" "));
    }

    campWords(event, before) {
      const view = this.view;
      const places = [];
      event.banners.forEach((step, index) => {
        const old = before && before.banners[event.seat] ? before.banners[event.seat][index] : 0;
        if (step && step !== old) {
          places.push(say(gettext("%(trail)s at step %(step)s of %(steps)s"), {
            trail: trailOf(index), step, steps: view.lengths[index],
          }));
        }
      });
      const values = { name: this.name(event.seat), places: listOf(places) };
      if (!places.length) {
        return this.isMine(event.seat) ? gettext("You make camp.") : say(gettext("%(name)s makes camp."), values);
      }
      return this.isMine(event.seat)
        ? say(gettext("You make camp: your banners are on %(places)s."), values)
        : say(gettext("%(name)s makes camp: banners on %(places)s."), values);
    }

    addLog(lines) {
      lines.forEach((line) => this.log.push(line));
      this.log = this.log.slice(-8);
      this.renderLog();
    }

    // --- what may be done now -----------------------------------------------------------------------

    isPlaying() {
      const game = this.game;
      if (!game) return true;
      return game.status === "playing" && (game.paused_remaining === null || game.paused_remaining === undefined);
    }

    canAct() {
      const view = this.view;
      return Boolean(view && this.seat !== null && !view.finished && view.current === this.seat &&
        !this.pending && !this.animating && this.isPlaying());
    }

    canThrow() {
      return this.canAct() && (this.view.phase === "throw" || this.view.phase === "decide");
    }

    canCamp() {
      return this.canAct() && this.view.phase === "decide";
    }

    canClimb() {
      return this.canAct() && this.view.phase === "choose";
    }

    send(action, words) {
      this.root.dataset.sent = String(Number(this.root.dataset.sent || 0) + 1); // for tests: moves sent
      this.chosenCard = null;
      this.sendLocked(action, { type: action.type });
      this.tips.hide();
      this.render();
      if (words) this.statusEl.textContent = words;
    }

    throwDice() {
      if (!this.canThrow()) return;
      this.send({ type: "throw" }, gettext("Throwing…"));
    }

    makeCamp() {
      if (!this.canCamp()) return;
      this.send({ type: "camp" }, gettext("Making camp…"));
    }

    climb(cardIndex, choiceIndex) {
      if (!this.canClimb()) return;
      const card = this.view.tray[cardIndex];
      if (!card || !card.choices[choiceIndex]) return;
      this.send({ type: "climb", trails: card.choices[choiceIndex].slice() }, gettext("Climbing…"));
    }

    // --- input ----------------------------------------------------------------------------------

    /* R throws, 1 to 3 pick a card, A and O a trail on a two-button card, C camps, M mutes: from
       anywhere on the page, unless a text field has the keyboard. */
    documentKey(event) {
      if (event.key === "Escape" && this.tips.isShown()) {
        this.tips.hide();
        return;
      }
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
      if (key === "m") {
        event.preventDefault();
        this.toggleSound();
      } else if (key === "r") {
        if (!this.canThrow()) return;
        event.preventDefault();
        this.throwDice();
      } else if (key === "c") {
        if (!this.canCamp()) return;
        event.preventDefault();
        this.makeCamp();
      } else if (/^[1-3]$/.test(key)) {
        if (!this.canClimb()) return;
        event.preventDefault();
        this.pickCard(Number(key) - 1);
      } else if (key === "a" || key === "o") {
        if (!this.canClimb()) return;
        const card = this.twoWayCard();
        if (card === null) return;
        event.preventDefault();
        this.climb(card, key === "a" ? 0 : 1);
      }
    }

    /* A digit plays a card that has one climb; a card with two waits for A or O. */
    pickCard(index) {
      const card = this.view.tray[index];
      if (!card || !card.choices.length) return;
      if (card.choices.length === 1) {
        this.climb(index, 0);
        return;
      }
      this.chosenCard = index;
      this.renderTray();
      const button = this.trayEl.querySelector(`.tt-card[data-card="${index}"] .tt-choice`);
      if (button) button.focus({ preventScroll: true });
      this.chosenWords = say(gettext("Card %(card)s: A climbs %(a)s, O climbs %(b)s."), {
        card: index + 1, a: card.choices[0].join(" + "), b: card.choices[1].join(" + "),
      });
      this.statusEl.textContent = this.chosenWords;
    }

    /* The card A and O speak about: the one picked by its digit, else the only two-button card. */
    twoWayCard() {
      const tray = this.view.tray || [];
      if (this.chosenCard !== null && tray[this.chosenCard] && tray[this.chosenCard].choices.length === 2) {
        return this.chosenCard;
      }
      const twoWay = tray.map((card, index) => (card.choices.length === 2 ? index : null)).filter((i) => i !== null);
      return twoWay.length === 1 ? twoWay[0] : null;
    }

    /* Left and right walk the trails' seals (one tab stop for the whole map). */
    rootKey(event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const seal = event.target.closest(".tt-seal");
      if (!seal) return;
      const seals = Array.from(this.boardEl.querySelectorAll(".tt-seal"));
      const at = seals.indexOf(seal);
      const moves = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
      let next = null;
      if (event.key in moves) next = Math.max(0, Math.min(seals.length - 1, at + moves[event.key]));
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = seals.length - 1;
      if (next === null) return;
      event.preventDefault();
      seals.forEach((other, index) => { other.tabIndex = index === next ? 0 : -1; });
      this.sealStop = next;
      seals[next].focus();
    }

    // --- drawing ------------------------------------------------------------------------------

    render() {
      const view = this.view;
      this.root.classList.toggle("is-spectator", this.seat === null);
      this.root.classList.toggle("is-finished", Boolean(view && view.finished));
      if (!view) {
        this.turnEl.replaceChildren(h("span", { class: "tt-turn-text", text: gettext("Waiting for the game") }));
        return;
      }
      this.root.style.setProperty("--tt-current", "var(--tt-seat-" + (view.current === null ? 0 : view.current) + ")");
      this.renderTurn();
      this.renderPlayers();
      this.renderBoard();
      this.renderKit();
      this.renderTray();
      this.renderControls();
      this.renderLog();
      this.tips.refresh();
    }

    renderTurn() {
      const view = this.view;
      const ended = this.game && this.game.status === "ended";
      let words;
      if (view.finished) {
        const winner = view.ranking && view.ranking[0];
        words = winner ? say(gettext("Game over: %(name)s wins"), { name: this.name(winner.seat) }) : gettext("Game over");
      } else if (ended) {
        words = gettext("Game ended");
      } else if (this.isMine(view.current)) {
        words = say(gettext("Turn %(turn)s · your turn"), { turn: view.turn });
      } else {
        words = say(gettext("Turn %(turn)s · %(name)s"), { turn: view.turn, name: this.name(view.current) });
      }
      const marker = h("span", { class: "tt-seat-mark", "data-seat": view.finished ? null : view.current, "aria-hidden": "true" });
      this.turnEl.replaceChildren(marker, h("span", { class: "tt-turn-text", text: words }));
    }

    renderPlayers() {
      const view = this.view;
      const items = [];
      for (let seat = 0; seat < view.seats; seat++) {
        const info = this.playerInfo(seat);
        const current = seat === view.current && !view.finished;
        const classes = ["tt-player", "tk-player"];
        if (seat === this.seat) classes.push("is-me");
        if (current) classes.push("is-current");
        if (info.connected === false && !info.bot) classes.push("is-away");
        const count = view.landmarks[seat];
        const flags = h("span", { class: "tt-player-landmarks", "aria-hidden": "true" });
        for (let i = 0; i < 3; i++) flags.append(h("i", { class: "tt-flag" + (i < count ? " is-raised" : "") }));
        items.push(h("li", { class: classes.join(" "), "data-seat": seat }, [
          h("span", { class: "tt-seat-mark", "data-seat": seat, "aria-hidden": "true" }),
          h("span", { class: "tt-player-name tk-player-name", text: this.name(seat) }),
          seat === this.seat ? h("span", { class: "tt-you tk-you", text: gettext("You") }) : null,
          this.botBadge(seat),
          current ? h("span", { class: "tk-visually-hidden", text: ", " + gettext("climbing now") }) : null,
          flags,
          h("span", { class: "tk-visually-hidden", text: ", " + say(ngettext(
            "%(count)s landmark", "%(count)s landmarks", count), { count }) }),
        ]));
      }
      this.playersEl.replaceChildren(...items);
    }

    /* Eleven columns: each trail's steps from the seal up to the summit, with every banner and the
       current player's lanterns. */
    renderBoard() {
      const view = this.view;
      const descs = [];
      const preview = this.previewSteps();
      const columns = view.lengths.map((length, index) => {
        const trail = trailOf(index);
        const owner = view.claimed[index];
        const lantern = view.lanterns[index];
        const topped = view.topped.includes(trail);
        const classes = ["tt-trail"];
        if (owner !== null && owner !== undefined) classes.push("is-claimed");
        if (topped) classes.push("is-topped");
        if (lantern) classes.push("has-lantern");
        if (preview.has(index)) classes.push("is-preview");
        if (this.fresh.claimed.includes(index)) classes.push("is-fresh");
        const steps = [];
        for (let step = 1; step <= length; step++) steps.push(this.stepNode(index, step, preview.get(index)));
        const descId = `${this.uid}-trail-${trail}`;
        descs.push(h("span", { id: descId, text: this.trailDescription(index) }));
        const stop = this.sealStop === undefined ? 5 : this.sealStop;
        return h("li", { class: classes.join(" "), "data-trail": trail, "data-claimed": owner === null ? null : owner }, [
          h("span", { class: "tt-summit", "aria-hidden": "true" }),
          h("ol", { class: "tt-steps", "aria-hidden": "true" }, steps.reverse()),
          h("span", {
            class: "tt-seal", role: "img", tabindex: index === stop ? 0 : -1, "data-tip": "", "data-key": "seal:" + trail,
            "aria-label": this.trailName(index), "aria-describedby": descId,
          }, h("span", { class: "tt-seal-number", text: String(trail) })),
        ]);
      });
      withFocusKept(this.boardEl, () => {
        this.boardEl.replaceChildren(...columns);
        replaceDescs(this.descsEl, "board", descs);
      });
    }

    stepNode(index, step, previewStep) {
      const view = this.view;
      const banners = [];
      for (let seat = 0; seat < view.seats; seat++) {
        if (view.banners[seat][index] === step) {
          const fresh = seat === this.fresh.bannerSeat && this.fresh.banners.includes(index);
          banners.push(h("i", { class: "tt-banner" + (fresh ? " is-fresh" : ""), "data-seat": seat }));
        }
      }
      const classes = ["tt-step"];
      const lanternHere = view.lanterns[index] === step;
      const bannerOfCurrent = view.current === null ? 0 : view.banners[view.current][index];
      if (view.lanterns[index] && step > bannerOfCurrent && step < view.lanterns[index]) classes.push("is-path");
      if (step === view.lengths[index]) classes.push("is-top");
      if (previewStep && step > (view.lanterns[index] || bannerOfCurrent) && step <= previewStep) classes.push("is-ghost");
      return h("li", { class: classes.join(" ") }, [
        banners.length ? h("span", { class: "tt-banners" }, banners) : null,
        lanternHere ? h("i", {
          class: "tt-lantern" + (this.fresh.lanterns.includes(index) ? " is-fresh" : ""), "data-seat": view.current,
        }) : null,
      ]);
    }

    /* While a tray card is pointed at or focused: the steps its climb would reach, by trail index. */
    previewSteps() {
      const result = new Map();
      const view = this.view;
      if (!this.previewChoice || view.phase !== "choose" || view.current === null) return result;
      this.previewChoice.forEach((trail) => {
        const index = trailIndex(trail);
        const from = result.get(index) || view.lanterns[index] || view.banners[view.current][index];
        result.set(index, Math.min(view.lengths[index], from + 1));
      });
      return result;
    }

    trailName(index) {
      const view = this.view;
      const trail = trailOf(index);
      const owner = view.claimed[index];
      if (owner !== null && owner !== undefined) {
        return say(gettext("Trail %(trail)s, landmark of %(name)s"), { trail, name: this.name(owner) });
      }
      const parts = [];
      for (let seat = 0; seat < view.seats; seat++) {
        const step = view.banners[seat][index];
        if (step) parts.push(say(gettext("%(name)s step %(step)s"), { name: this.name(seat), step }));
      }
      if (view.lanterns[index]) parts.push(say(gettext("lantern on step %(step)s"), { step: view.lanterns[index] }));
      const base = say(gettext("Trail %(trail)s, %(steps)s steps"), { trail, steps: view.lengths[index] });
      return parts.length ? base + ": " + parts.join(", ") : base;
    }

    trailDescription(index) {
      const view = this.view;
      const trail = trailOf(index);
      const pairs = dicePairsFor(trail).map(([a, b]) => a + "+" + b).join(", ");
      const words = [say(gettext(
        "Trail %(trail)s: a pair of dice adding up to %(trail)s climbs it (%(pairs)s). It has %(steps)s steps."), {
        trail, pairs, steps: view.lengths[index],
      })];
      const owner = view.claimed[index];
      if (owner !== null && owner !== undefined) {
        words.push(say(gettext("%(name)s raised a landmark on it: nobody climbs it any more."), { name: this.name(owner) }));
      } else if (view.topped.includes(trail)) {
        words.push(gettext("A lantern is on its summit: make camp to raise a landmark."));
      }
      return words.join(" ");
    }

    /* The dice, the lantern box and the risk sign. */
    renderKit() {
      const view = this.view;
      const dies = Array.from(this.diceButton.querySelectorAll(".tt-die"));
      const last = view.last_throw;
      const dice = view.dice || (last ? last.dice : null);
      if (!this.animating) dies.forEach((die, i) => setFace(die, dice ? dice[i] : 0));
      const old = !view.dice;
      this.diceButton.classList.toggle("is-old", old && Boolean(last));
      this.diceButton.classList.toggle("is-busted", Boolean(old && last && last.busted));
      this.diceButton.classList.toggle("is-ready", this.canThrow());
      this.diceButton.disabled = !this.canThrow();
      this.diceButton.setAttribute("aria-label", dice
        ? say(gettext("Throw the dice (last throw: %(dice)s)"), { dice: diceText(dice) }) : gettext("Throw the dice"));
      let note = "";
      if (old && last && last.busted) {
        note = this.isMine(last.seat) ? gettext("You lost your balance.")
          : say(gettext("%(name)s lost their balance."), { name: this.name(last.seat) });
      } else if (old && last && !view.finished) {
        note = this.isMine(last.seat) ? gettext("Your last throw")
          : say(gettext("%(name)s's last throw"), { name: this.name(last.seat) });
      }
      this.throwNoteEl.textContent = note;
      this.throwNoteEl.classList.toggle("is-busted", Boolean(old && last && last.busted));

      const left = view.finished ? 0 : view.lanterns_left;
      const lamps = h("span", { class: "tt-lamps", "aria-hidden": "true" });
      for (let i = 0; i < LANTERNS; i++) lamps.append(h("i", { class: "tt-lamp" + (i < left ? " is-left" : "") }));
      this.lanternsEl.replaceChildren(
        h("span", { class: "tt-gauge-label", text: gettext("Lanterns") }), lamps,
      );
      this.lanternsEl.setAttribute("aria-label", say(ngettext(
        "Lanterns: %(left)s of 3 left", "Lanterns: %(left)s of 3 left", left), { left }));
      this.lanternsDesc.textContent = gettext(
        "Lanterns: you have three per turn. A pairing moves a lantern up its trail, starting one step above your " +
        "banner. Make camp to move your banners up to them; lose your balance and they go.");

      const risk = view.risk;
      const showRisk = risk !== null && risk !== undefined && !view.finished;
      this.signEl.hidden = !showRisk;
      if (showRisk) {
        const throws = Math.round(risk * ALL_THROWS);
        this.signEl.classList.toggle("is-high", risk >= 0.3);
        this.signEl.replaceChildren(
          h("span", { class: "tt-gauge-label", text: gettext("Risk") }),
          h("span", { class: "tt-risk", text: percent(risk) }),
        );
        this.signEl.setAttribute("aria-label", say(gettext("Risk of the next throw: %(percent)s"), { percent: percent(risk) }));
        this.signDesc.textContent = say(gettext(
          "The exact chance that the next throw lets no lantern climb: %(throws)s of the %(all)s possible throws (%(percent)s)."
        ), { throws: number(throws), all: number(ALL_THROWS), percent: percent(risk) });
      }
    }

    /* One card per distinct pairing; a card with two possible trails has one button for each. */
    renderTray() {
      const view = this.view;
      const tray = view.phase === "choose" && view.dice ? view.tray : [];
      const interactive = this.canClimb();
      // Cards are dealt (animated) once per throw, not again on every redraw of the same tray.
      const signature = JSON.stringify([view.throws, tray]);
      this.trayEl.classList.toggle("is-dealt", signature !== this.traySignature);
      this.traySignature = signature;
      this.trayEl.hidden = !tray.length;
      const cards = tray.map((card, index) => this.cardNode(card, index, interactive));
      withFocusKept(this.trayEl, () => this.trayEl.replaceChildren(...cards),
        () => this.trayEl.querySelector(".tt-choice:not([aria-disabled])"));
    }

    cardNode(card, index, interactive) {
      const view = this.view;
      const pairs = pairingFor(view.dice, card.sums) || [[0, 0], [0, 0]];
      const climbable = new Set(card.choices.flat());
      const sums = card.sums.map((sum, i) => h("span", {
        class: "tt-pair" + (climbable.has(sum) ? "" : " is-blocked"), "aria-hidden": "true",
      }, [
        h("span", { class: "tt-pair-dice" }, pairs[i].map((face) => dieGraphic(face, "tt-die--mini"))),
        h("span", { class: "tt-pair-sum", text: String(sum) }),
      ]));
      const key = String(index + 1);
      const classes = ["tt-card"];
      if (!card.choices.length) classes.push("is-dead");
      if (card.choices.length === 2) classes.push("is-split");
      if (this.chosenCard === index) classes.push("is-chosen");
      const choiceButton = (choice, choiceIndex, hint) => h("button", {
        type: "button", class: "tt-choice", "data-card": index, "data-choice": choiceIndex,
        "data-key": `card:${index}:${choiceIndex}`, "aria-disabled": interactive ? null : "true",
        "data-trails": choice.join(" "),
        onclick: () => this.climb(index, choiceIndex),
        onpointerenter: () => this.setPreview(choice),
        onpointerleave: () => this.setPreview(null),
        onfocus: () => this.setPreview(choice),
        onblur: () => this.setPreview(null),
        "aria-label": climbLabel(choice), "aria-keyshortcuts": hint,
      }, [
        h("span", { class: "tt-choice-text", "aria-hidden": "true", text: climbLabel(choice) }),
        h("span", { class: "tt-choice-short", "aria-hidden": "true", text: choice.join(" + ") }),
        h("kbd", { class: "tt-keyhint", "aria-hidden": "true", text: hint }),
      ]);
      let buttons;
      if (!card.choices.length) {
        buttons = [h("button", {
          type: "button", class: "tt-choice", "aria-disabled": "true", "data-key": `card:${index}:none`,
        }, h("span", { class: "tt-choice-text", text: gettext("No climb") }))];
      } else if (card.choices.length === 1) {
        buttons = [choiceButton(card.choices[0], 0, key)];
      } else {
        buttons = [choiceButton(card.choices[0], 0, "A"), choiceButton(card.choices[1], 1, "O")];
      }
      return h("div", {
        class: classes.join(" "), role: "group", "data-card": index,
        "aria-label": say(gettext("Card %(card)s: %(a)s and %(b)s"), { card: key, a: card.sums[0], b: card.sums[1] }),
      }, [
        h("span", { class: "tt-card-key", "aria-hidden": "true", text: key }),
        h("span", { class: "tt-card-pairs" }, sums),
        h("span", { class: "tt-card-buttons" }, buttons),
      ]);
    }

    setPreview(choice) {
      if (same(choice, this.previewChoice)) return;
      this.previewChoice = choice ? choice.slice() : null;
      if (this.view) this.renderBoard();
    }

    renderControls() {
      const view = this.view;
      if (!view) return;
      const mine = this.seat !== null && view.current === this.seat && !view.finished;
      this.throwButton.hidden = !mine;
      this.campButton.hidden = !mine;
      this.throwButton.disabled = !this.canThrow();
      this.campButton.disabled = !this.canCamp();
      this.throwButton.classList.toggle("is-ready", this.canThrow());
      this.campButton.classList.toggle("is-ready", this.canCamp());
      this.diceButton.disabled = !this.canThrow();
      this.statusEl.textContent = this.statusText();
      // What this seat may do now, in no language: for styling and for tests.
      this.root.dataset.act = this.canAct() ? view.phase : "";
      this.root.dataset.phase = view.phase;
    }

    statusText() {
      const view = this.view;
      const game = this.game || {};
      if (view.finished) return "";
      if (game.status === "ended") return gettext("The game has ended.");
      if (game.paused_remaining !== null && game.paused_remaining !== undefined) return gettext("The game is paused.");
      if (this.animating) return "";
      if (this.pending) {
        const words = { throw: gettext("Throwing…"), camp: gettext("Making camp…"), climb: gettext("Climbing…") };
        return words[this.pending.type] || "";
      }
      if (view.current !== this.seat || this.seat === null) {
        return say(gettext("%(name)s is climbing."), { name: this.name(view.current) });
      }
      if (view.phase === "throw") return gettext("Your turn: throw the dice.");
      if (view.phase === "choose") {
        if (this.chosenCard !== null && this.chosenWords) return this.chosenWords;
        return view.tray.length > 1 ? gettext("Pick a card to climb.") : gettext("Play the card to climb.");
      }
      return gettext("Throw again, or make camp to keep your climb.");
    }

    renderLog() {
      this.logEl.hidden = !this.log.length;
      this.logList.replaceChildren(...this.log.map((line) => h("li", { text: line })));
    }
  }

  registerTable("trails", TrailsTable, {
    scoreLabel: gettext("landmarks"),
    // "1 landmark", "3 landmarks": for a room that asks the game to word a score (scoreLabel is one word).
    scoreText: (score) => interpolate(ngettext("%(score)s landmark", "%(score)s landmarks", score), { score }, true),
    lowerIsBetter: false,
    scoreRule: [
      gettext("The first to three landmarks wins; the others are ranked by landmarks, then by progress."),
      gettext("Progress: how far up each trail a player's banners stand, as a share of the trail, added up."),
    ].join(" "),
    // A player throws, climbs and throws again in one turn: the room chimes once, when the turn comes.
    turnBased: true,
    // The table shows every player, whose turn it is and their landmarks: the room keeps a compact bar.
    showsPlayers: true,
    // Each "turn" event is told in words ("Your turn: throw the dice."): the room only plays the sound.
    announcesTurns: true,
    // The arithmetic the table uses, for tests and for anyone curious in the console.
    rules: { dicePairsFor, pairingFor },
  });
})();
