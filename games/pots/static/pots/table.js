/*
 * Pots table: the game side of the room page (docs/games/pots.md, "The table in the browser").
 *
 * The room page owns the socket, the timer, the seats and the ranking; this file draws every player's
 * row, the deck and the discard pile, the Draw and Stop buttons and the choice of a target, and tells
 * each card as it comes. The view is the truth: an animation only retells the events of one update on a
 * copy of the previous view, and always ends by drawing that update's view.
 *
 *   window.WickwiseGames.pots.mount(container, ctx) -> { update(view, events, game), destroy() }
 */
(function () {
  "use strict";

  const {
    h, replaceDescs, rectWithin, prefersReducedMotion, isTyping, TableBase, registerTable,
  } = window.WickwiseTableKit; // static/js/tablekit.js, loaded before this file

  const FULL_POT_BONUS = 15;
  const HONEY = ["+2", "+4", "+6", "+8", "+10"];
  let mounted = 0;

  // --- the rules, as games/pots/engine.py has them ------------------------------------------------

  function kindOf(card) {
    if (typeof card === "number") return "number";
    if (HONEY.includes(card)) return "honey";
    if (card === "x2") return "twin";
    return card; // snuffer, bellows, saucer
  }

  function honeyValue(card) {
    return HONEY.includes(card) ? Number(card.slice(1)) : 0;
  }

  /* (numbers) x 2 with the twin wick, then honey, then 15 for a full pot; 0 once spilled. */
  function handScore(row) {
    if (row.status === "spilled") return 0;
    const sum = row.numbers.reduce((total, n) => total + n, 0) * (row.extras.includes("x2") ? 2 : 1);
    const honey = row.extras.reduce((total, card) => total + honeyValue(card), 0);
    return sum + honey + (row.status === "full" ? FULL_POT_BONUS : 0);
  }

  function copy(value) {
    return JSON.parse(JSON.stringify(value));
  }

  /* What the table draws: the parts of a view that an animation changes event by event. */
  function modelOf(view) {
    const model = {
      hand: view.hand,
      dealer: view.dealer,
      rows: view.rows.map((row) => ({ numbers: row.numbers.slice(), extras: row.extras.slice(), saucer: row.saucer,
        status: row.status, repeat: null, action: null })),
      totals: view.totals.slice(),
      hands: copy(view.hands),
      deck: view.deck_count,
      discard: view.discard.slice(),
      bellows: view.bellows ? { seat: view.bellows.seat, left: view.bellows.left } : null,
    };
    if (view.pending) model.rows[view.pending.by].action = view.pending.card; // the card being decided
    return model;
  }

  /* One event on the model, as the engine does it (enough to draw every step of a story). */
  function step(model, event) {
    const row = model.rows[event.seat];
    switch (event.type) {
      case "hand":
        model.rows.forEach((old) => {
          model.discard.push(...old.numbers, ...old.extras);
          if (old.saucer) model.discard.push("saucer");
        });
        model.rows = model.rows.map(() => ({ numbers: [], extras: [], saucer: false, status: "waiting", repeat: null, action: null }));
        model.hand = event.hand;
        model.dealer = event.dealer;
        model.bellows = null;
        break;
      case "card": {
        model.deck = Math.max(0, model.deck - 1);
        if (row.status === "waiting") row.status = "in";
        if (event.how === "bellows" && model.bellows) model.bellows.left = Math.max(0, model.bellows.left - 1);
        model.rows.forEach((other) => { other.action = null; });
        const kind = kindOf(event.card);
        if (kind === "number") {
          if (row.numbers.includes(event.card)) row.repeat = event.card;
          else row.numbers.push(event.card);
        } else if (kind === "honey" || kind === "twin") {
          row.extras.push(event.card);
        } else if (kind === "saucer" && !row.saucer) {
          row.saucer = true;
        } else {
          row.action = event.card; // shown by the row until it is resolved
        }
        break;
      }
      case "spilled":
        row.numbers.push(event.card);
        row.repeat = null;
        row.status = "spilled";
        if (model.bellows && model.bellows.seat === event.seat) model.bellows = null;
        break;
      case "saved":
        row.repeat = null;
        row.saucer = false;
        model.discard.push(event.card, "saucer");
        break;
      case "full":
        row.status = "full";
        break;
      case "stopped":
        row.status = "stopped";
        break;
      case "snuffed":
        row.status = "snuffed";
        model.rows[event.by].action = null;
        model.discard.push("snuffer");
        break;
      case "bellows":
        model.rows[event.by].action = null;
        model.discard.push("bellows");
        model.bellows = { seat: event.seat, left: 3 };
        break;
      case "saucer_given":
        model.rows[event.from].action = null;
        model.rows[event.to].saucer = true;
        break;
      case "discarded":
        row.action = null;
        model.discard.push(event.card);
        break;
      case "reshuffled":
        model.deck = event.count;
        model.discard = [];
        break;
      case "hand_over":
        model.totals = event.totals.slice();
        model.hands.push(event.scores.slice());
        model.bellows = null;
        model.rows.forEach((r) => { r.action = null; });
        break;
      default:
        break;
    }
    if (model.bellows && model.bellows.left === 0 && event.type !== "card") model.bellows = null;
    return model;
  }

  // --- words ---------------------------------------------------------------------------------

  function say(format, values) {
    return interpolate(format, values, true);
  }

  function listOf(names) {
    if (window.Intl && Intl.ListFormat) {
      return new Intl.ListFormat(document.documentElement.lang || undefined, { type: "conjunction" }).format(names);
    }
    return names.join(", ");
  }

  function percent(chance) {
    if (chance === null || chance === undefined) return "";
    const value = chance * 100;
    // Never show 0 % for a real risk, nor 100 % for a draw that may still pass.
    let shown = Math.round(value);
    if (shown === 0 && value > 0) return "<1%";
    if (shown === 100 && value < 100) shown = 99;
    if (window.Intl && Intl.NumberFormat) {
      return new Intl.NumberFormat(document.documentElement.lang || undefined, { style: "percent" }).format(shown / 100);
    }
    return shown + "%";
  }

  function cardName(card) {
    switch (kindOf(card)) {
      case "number": return say(gettext("number %(n)s"), { n: card });
      case "honey": return say(gettext("honey %(card)s"), { card });
      case "twin": return gettext("the twin wick");
      case "snuffer": return gettext("a snuffer");
      case "bellows": return gettext("a bellows");
      default: return gettext("a saucer");
    }
  }

  function cardMeaning(card) {
    switch (kindOf(card)) {
      case "number":
        return say(gettext("Number %(n)s: worth %(n)s points in the row. A second %(n)s in the same row spills the pot."), { n: card });
      case "honey":
        return say(gettext("Honey %(card)s: adds %(value)s points to the hand. It never spills."), { card, value: honeyValue(card) });
      case "twin":
        return gettext("Twin wick: doubles the sum of the numbers in the row, not the honey.");
      case "snuffer":
        return gettext("Snuffer: whoever draws it picks a player still in the hand, themselves included; that player stops at once and keeps their points.");
      case "bellows":
        return gettext("Bellows: whoever draws it picks a player still in the hand, themselves included; that player draws three cards, fewer if they spill or fill the pot.");
      default:
        return gettext("Saucer: catches one repeated number; the saucer and the repeat are discarded and the player stays in. Only one can be held.");
    }
  }

  function statusWord(status) {
    return {
      waiting: gettext("waiting"), in: gettext("in"), stopped: gettext("stopped"), snuffed: gettext("snuffed"),
      spilled: gettext("spilled"), full: gettext("full pot"),
    }[status] || status;
  }

  function statusMeaning(status) {
    return {
      waiting: gettext("Not dealt a card yet this hand."),
      in: gettext("Still in the hand: draws or stops on their turn."),
      stopped: gettext("Stopped: keeps this hand's points."),
      snuffed: gettext("Snuffed: stopped by a snuffer, keeps this hand's points."),
      spilled: gettext("Spilled: a repeated number, 0 points this hand."),
      full: gettext("Full pot: seven different numbers, 15 more points."),
    }[status] || "";
  }

  // --- small DOM helpers ---------------------------------------------------------------------

  /* A card picture, as the "How to play" page draws it. Decorative: its holder carries the words. */
  function cardGraphic(card, size) {
    const kind = kindOf(card);
    const props = { class: "pt-card pt-card--" + size, "data-kind": kind, "aria-hidden": "true" };
    if (kind === "number") props.style = "--pt-fill: " + (card / 12).toFixed(3);
    const face = kind === "number" || kind === "honey" ? String(card) : kind === "twin" ? "×2" : null;
    return h("span", props, [
      kind === "number" ? null : h("span", { class: "pt-icon" }),
      face === null ? null : h("span", { class: "pt-face", text: face }),
    ]);
  }

  // --- the table -----------------------------------------------------------------------------

  class PotsTable extends TableBase {
    constructor(container, ctx) {
      super(ctx, "pots table");
      this.uid = "pt" + (++mounted);
      this.view = null;
      this.game = null;
      this.model = null;
      this.pending = null; // {until}: a move was sent, waiting for its answer
      this.fresh = null; // [seat, index] of the card that just landed
      this.build(container);
      this.bindEvents();
    }

    // --- building -----------------------------------------------------------------------------

    build(container) {
      const id = (name) => this.uid + "-" + name;
      this.handEl = h("div", { class: "pt-hand-info" });
      this.deckEl = h("div", { class: "pt-pile pt-pile--deck", role: "img", "data-tip": "", "data-key": "deck", tabindex: 0,
        "aria-describedby": id("deck-desc") });
      this.discardEl = h("div", { class: "pt-pile pt-pile--discard", role: "img", "data-tip": "", "data-key": "discard", tabindex: 0,
        "aria-describedby": id("discard-desc") });
      this.skipButton = h("button", {
        type: "button", class: "pt-skip tk-pill", hidden: true, text: gettext("Skip"), onclick: () => this.skip(),
      });
      this.promptEl = h("p", { class: "pt-prompt", id: id("prompt") });
      this.chanceEl = h("p", { class: "pt-chance", hidden: true });
      this.drawButton = h("button", {
        type: "button", class: "pt-draw", "aria-keyshortcuts": "D", onclick: () => this.send({ type: "draw" }),
      }, [h("span", { text: gettext("Draw") }), h("kbd", { class: "pt-keyhint", "aria-hidden": "true", text: pgettext("dealer chip", "D") })]);
      this.stopButton = h("button", {
        type: "button", class: "pt-stop", "aria-keyshortcuts": "S", onclick: () => this.send({ type: "stop" }),
      }, [h("span", { text: gettext("Stop") }), h("kbd", { class: "pt-keyhint", "aria-hidden": "true", text: "S" })]);
      this.actionsEl = h("div", { class: "pt-actions", role: "group", "aria-labelledby": id("prompt") }, [
        h("div", { class: "pt-prompt-line" }, [this.promptEl, this.skipButton]),
        this.chanceEl, h("div", { class: "pt-buttons" }, [this.drawButton, this.stopButton]),
      ]);
      this.rowsEl = h("ul", { class: "pt-rows", "aria-labelledby": id("rows-title") });
      this.scoresBody = h("div", { class: "pt-scores-body" });
      this.scoresEl = h("details", { class: "pt-scores" }, [
        h("summary", { text: gettext("Scores by hand") }), this.scoresBody,
      ]);
      this.keysEl = h("p", { class: "pt-keys", text: gettext("Keys: D draws, S stops, arrows and Enter choose a player, M turns the sound off or on.") });
      this.fxEl = h("div", { class: "pt-fx tk-fx", "aria-hidden": "true" });
      this.tipEl = h("div", { class: "pt-tooltip ww-tip", id: id("tooltip"), role: "tooltip", hidden: true });
      this.descsEl = h("div", { class: "pt-descs", hidden: true }, [
        h("span", { id: id("deck-desc") }), h("span", { id: id("discard-desc") }),
      ]);
      this.root = h("section", { class: "pots-table pt-live ww-table tk-live", "aria-label": gettext("Pots table") }, [
        h("div", { class: "pt-layout tk-layout" }, [
          h("div", { class: "pt-bar tk-bar" }, [this.handEl, h("div", { class: "pt-piles" }, [this.deckEl, this.discardEl])]),
          this.actionsEl,
          h("div", { class: "pt-area--rows" }, [
            h("h3", { class: "tk-visually-hidden", id: id("rows-title"), text: gettext("Players") }), this.rowsEl,
          ]),
          h("div", { class: "pt-area--extra" }, [
            this.scoresEl,
            h("p", { class: "pt-legend", text: gettext("In each row: this hand's score, then Σ and the total of the hands before.") }),
            this.keysEl,
          ]),
        ]),
        this.fxEl, this.tipEl, this.descsEl,
      ]);
      container.append(this.root);
    }

    // --- the update queue (TableBase) -------------------------------------------------------------

    shouldAnimate(item) {
      if (!item.view || !this.view || document.hidden) return false;
      if (this.game && item.game && this.game.number !== item.game.number) return false;
      return item.events.some((e) => e.type !== "game_over");
    }

    /* Draw an update at once: its words, no story. */
    show(item) {
      const hidden = Boolean(this.view) && item.events.length > 0;
      this.accept(item);
      this.model = modelOf(this.view);
      this.render();
      // Untold (a hidden tab): the words still go to the live region, without each card.
      if (hidden) item.events.forEach((event) => this.narrate(event, null, true));
      this.afterUpdate(item);
    }

    accept(item) {
      const { view, game, events } = item;
      if (this.game && game && this.game.number !== game.number) this.pending = null;
      if (this.pending && (events.length || !this.myDecision(view))) this.pending = null;
      if (this.pending && !events.length) this.pending = null; // a snapshot: the server's word
      this.view = view;
      this.game = game || this.game;
    }

    myDecision(view) {
      return Boolean(view && this.seat !== null && !view.finished && view.current === this.seat);
    }

    /* Once an update is drawn: say whose decision it is when it is ours (the room plays the sound). */
    afterUpdate(item) {
      const view = this.view;
      if (!view || view.finished) return;
      const mine = this.canAct();
      const key = [view.hand, view.phase, view.current, view.rows.map((r) => r.numbers.length + r.extras.length).join()].join(":");
      // A snapshot tells no story: the room says "Your turn to decide." for it.
      if (mine && key !== this.lastPromptKey && item.events.length) {
        this.ctx.announce(this.promptText());
      }
      this.lastPromptKey = mine ? key : null;
    }

    // --- the story of an update, card by card ------------------------------------------------------

    /* Milliseconds: one card (its flight included), one flight, a word (stop, spill...), the end of a hand.
       The server's pace (TABLE_PACE in games/pots/spec.py), which it waits out before a bot decides;
       reduced motion, or a table mounted without the server's pace, is quicker. Many cards at once (a
       deal) go quicker, so a deal at 8 seats takes about 2 s. */
    pace(count) {
      const full = this.settings.pace;
      if (prefersReducedMotion() || !full) return { card: 160, fly: 0, word: 200, hand: 700, reduced: true };
      const quick = count > full.quickOver;
      const ms = (seconds) => Math.round(seconds * 1000);
      return {
        card: ms(quick ? full.quickCard : full.card), fly: ms(quick ? full.quickFly : full.fly), word: ms(full.word),
        hand: ms(full.hand), reduced: false,
      };
    }

    async animate(item) {
      const before = this.model || modelOf(this.view);
      const work = copy(before);
      this.accept(item);
      const events = item.events;
      const pace = this.pace(events.filter((e) => e.type === "card").length);
      this.animating = true;
      this.storyWords = null;
      this.skipping = false;
      this.skipButton.hidden = false;
      this.model = work;
      this.render();
      for (const event of events) {
        if (this.destroyed) return;
        if (this.skipping) {
          step(work, event);
          this.narrate(event, work, true);
          continue;
        }
        await this.tellEvent(event, work, pace);
      }
      if (this.destroyed) return;
      this.animating = false;
      this.skipButton.hidden = true;
      this.fresh = null;
      this.fxEl.replaceChildren();
      this.model = modelOf(this.view);
      this.render();
      this.afterUpdate(item);
    }

    async tellEvent(event, work, pace) {
      if (event.type === "hand") {
        // The last hand's final rows stay a moment; the first deal starts at once.
        const shown = work.rows.some((row) => row.numbers.length || row.extras.length || row.saucer || row.repeat !== null);
        if (shown) await this.sleep(pace.hand);
        step(work, event);
        this.fresh = null;
        this.render();
        this.narrate(event, work, false);
        return;
      }
      step(work, event);
      if (event.type === "card") {
        const row = work.rows[event.seat];
        const kind = kindOf(event.card);
        let index = null;
        if (row.repeat !== null) index = "repeat";
        else if (kind === "number") index = row.numbers.length - 1;
        else if (kind === "honey" || kind === "twin") index = "x" + (row.extras.length - 1);
        else if (row.action) index = "action";
        else index = "saucer";
        this.fresh = [event.seat, index];
        this.render();
        this.sound("place");
        this.narrate(event, work, false);
        await this.flyFromDeck(event.seat, index, pace);
        await this.sleep(Math.max(0, pace.card - pace.fly));
        return;
      }
      this.render();
      this.narrate(event, work, false);
      const row = this.rowsEl.querySelector(`.pt-row[data-seat="${event.seat}"]`);
      if (event.type === "spilled" && row) row.classList.add("is-spilling");
      if (event.type === "full" && row) row.classList.add("is-filling");
      const quiet = ["reshuffled", "game_over", "discarded", "saucer_given"].includes(event.type);
      if (event.type === "hand_over") await this.sleep(pace.word);
      else if (!quiet) await this.sleep(pace.word);
    }

    /* The words and sound of one event; quietly (after Skip) only the words that matter. */
    narrate(event, _work, quiet) {
      const name = (seat) => this.name(seat);
      const values = { name: name(event.seat), card: event.card !== undefined ? cardName(event.card) : "" };
      let words = null;
      let sound = null;
      switch (event.type) {
        case "hand":
          words = say(gettext("Hand %(hand)s. %(name)s deals."), { hand: event.hand, name: name(event.dealer) });
          break;
        case "card":
          if (quiet) break;
          words = event.how === "deal" ? say(gettext("%(name)s is dealt %(card)s."), values)
            : event.how === "bellows" ? say(gettext("%(name)s draws %(card)s (bellows)."), values)
              : say(gettext("%(name)s draws %(card)s."), values);
          break;
        case "spilled":
          words = say(gettext("%(name)s spills with a second %(number)s: 0 points this hand."), { name: values.name, number: event.card });
          sound = "tip";
          break;
        case "saved":
          words = say(gettext("%(name)s's saucer catches the second %(number)s."), { name: values.name, number: event.card });
          sound = "pick";
          break;
        case "stopped":
          words = say(gettext("%(name)s stops with %(score)s points."), { name: values.name, score: event.score });
          sound = "pick";
          break;
        case "snuffed":
          words = event.by === event.seat
            ? say(gettext("%(name)s snuffs their own pot: stops with %(score)s points."), { name: values.name, score: event.score })
            : say(gettext("%(by)s snuffs %(name)s: stops with %(score)s points."), { by: name(event.by), name: values.name, score: event.score });
          sound = "tip";
          break;
        case "bellows":
          words = event.by === event.seat
            ? say(gettext("%(name)s works the bellows on themselves: three draws."), { name: values.name })
            : say(gettext("%(by)s works the bellows on %(name)s: three draws."), { by: name(event.by), name: values.name });
          sound = "pick";
          break;
        case "saucer_given":
          words = say(gettext("%(from)s gives a saucer to %(to)s."), { from: name(event.from), to: name(event.to) });
          break;
        case "discarded":
          words = say(gettext("%(name)s's %(card)s is discarded."), values);
          break;
        case "full":
          words = say(gettext("%(name)s fills the pot: seven different numbers, 15 more points!"), values);
          sound = "end";
          break;
        case "reshuffled":
          words = say(ngettext("The discard pile is shuffled into a new deck of %(count)s card.",
            "The discard pile is shuffled into a new deck of %(count)s cards.", event.count), { count: event.count });
          sound = "tip";
          break;
        case "hand_over": {
          const scores = event.scores.map((score, seat) => say(gettext("%(name)s %(score)s"), { name: name(seat), score }));
          const totals = event.totals.map((total, seat) => say(gettext("%(name)s %(score)s"), { name: name(seat), score: total }));
          words = say(gettext("Hand %(hand)s is over. Scores: %(scores)s. Totals: %(totals)s."), {
            hand: event.hand, scores: listOf(scores), totals: listOf(totals),
          });
          break;
        }
        default:
          break;
      }
      if (words) this.ctx.announce(words);
      if (sound && !quiet) this.sound(sound);
      // The prompt retells the story too, short, so a glance at it says who got what.
      if (words && !quiet && this.animating) {
        this.storyWords = event.type === "hand_over" ? say(gettext("Hand %(hand)s is over."), { hand: event.hand }) : words;
        this.promptEl.textContent = this.storyWords;
      }
    }

    cardNode(seat, index) {
      const row = this.rowsEl.querySelector(`.pt-row[data-seat="${seat}"]`);
      return row && row.querySelector(`[data-slot="${index}"]`);
    }

    rectOf(node) {
      return rectWithin(node, this.root);
    }

    /* The card that just landed flies in from the deck, turning face up on the way. */
    async flyFromDeck(seat, index, pace) {
      const target = this.cardNode(seat, index);
      if (!target || this.skipping || pace.reduced || !target.animate) return;
      const from = this.rectOf(this.deckEl.querySelector(".pt-deck-back") || this.deckEl);
      const to = this.rectOf(target);
      const dx = from.x + from.width / 2 - (to.x + to.width / 2);
      const dy = from.y + from.height / 2 - (to.y + to.height / 2);
      const scale = Math.max(0.5, Math.min(2, from.width / Math.max(1, to.width)));
      await this.play(target, [
        // Edge-on at the deck, turning face up on the way (never showing a mirrored face).
        { transform: `translate(${dx}px, ${dy}px) scale(${scale}) rotateY(88deg)`, filter: "brightness(0.45)" },
        { transform: `translate(${dx * 0.45}px, ${dy * 0.45 - 16}px) scale(${(1 + scale) / 2}) rotateY(50deg)`,
          filter: "brightness(0.75)", offset: 0.45 },
        { transform: "translate(0, 0) scale(1) rotateY(0deg)", filter: "brightness(1)" },
      ], { duration: pace.fly, easing: "ease-out" });
    }

    play(node, frames, options) {
      if (!node.animate) return Promise.resolve();
      const animation = node.animate(frames, options);
      this.animations.add(animation);
      return animation.finished.catch(() => null).then(() => this.animations.delete(animation));
    }

    // --- drawing ------------------------------------------------------------------------------

    render() {
      const view = this.view;
      this.root.classList.toggle("is-spectator", this.seat === null);
      this.root.classList.toggle("is-finished", Boolean(view && view.finished));
      this.root.classList.toggle("is-telling", this.animating);
      if (!view || !this.model) {
        this.handEl.replaceChildren(h("span", { class: "pt-hand-number", text: gettext("Waiting for the game") }));
        this.rowsEl.replaceChildren();
        return;
      }
      const model = this.model;
      this.root.dataset.hand = model.hand;
      this.root.dataset.phase = this.animating ? "telling" : view.phase;
      this.root.dataset.current = !this.animating && view.current !== null && view.current !== undefined ? view.current : "";
      this.root.dataset.mine = this.canAct() ? view.phase : "";
      this.renderBar(model);
      this.renderActions();
      this.renderRows(model);
      this.renderScores(model);
      this.tips.refresh();
    }

    renderBar(model) {
      const view = this.view;
      const ended = this.game && this.game.status === "ended";
      let words;
      if (view.finished && !this.animating) words = gettext("Game over");
      else if (ended) words = gettext("Game ended");
      else words = say(gettext("Hand %(hand)s"), { hand: model.hand });
      this.handEl.replaceChildren(
        h("span", { class: "pt-hand-number", text: words }),
        h("span", { class: "pt-dealer" }, [h("i", { class: "pt-dealer-chip", "aria-hidden": "true", text: pgettext("dealer chip", "D") }),
          say(gettext("Dealer: %(name)s"), { name: this.name(model.dealer) })]),
      );
      const deckWords = say(ngettext("%(count)s card in the deck", "%(count)s cards in the deck", model.deck), { count: model.deck });
      this.deckEl.setAttribute("aria-label", deckWords);
      this.deckEl.replaceChildren(
        h("span", { class: "pt-deck-back" + (model.deck ? "" : " is-empty"), "aria-hidden": "true" }),
        h("span", { class: "pt-pile-words", "aria-hidden": "true" }, [
          h("span", { class: "pt-pile-count", text: String(model.deck) }),
          h("span", { class: "pt-pile-caption", text: gettext("Deck") }),
        ]),
      );
      document.getElementById(this.uid + "-deck-desc").textContent = gettext(
        "The deck: cards are drawn from the top. Its order is secret; everything else is face up. When it runs out, the discard pile is shuffled into a new deck.");
      const top = model.discard[model.discard.length - 1];
      const discardWords = say(ngettext("%(count)s card in the discard pile", "%(count)s cards in the discard pile",
        model.discard.length), { count: model.discard.length });
      this.discardEl.setAttribute("aria-label", top === undefined ? discardWords
        : say(gettext("%(pile)s, %(card)s on top"), { pile: discardWords, card: cardName(top) }));
      this.discardEl.replaceChildren(
        top === undefined ? h("span", { class: "pt-card pt-card--pile is-empty", "aria-hidden": "true" }) : cardGraphic(top, "pile"),
        h("span", { class: "pt-pile-words", "aria-hidden": "true" }, [
          h("span", { class: "pt-pile-count", text: String(model.discard.length) }),
          h("span", { class: "pt-pile-caption", text: gettext("Discards") }),
        ]),
      );
      document.getElementById(this.uid + "-discard-desc").textContent = this.discardText(model.discard);
    }

    discardText(discard) {
      if (!discard.length) return gettext("The discard pile is empty.");
      const counts = {};
      discard.forEach((card) => { counts[card] = (counts[card] || 0) + 1; });
      const numbers = Object.keys(counts).filter((key) => /^\d+$/.test(key)).map(Number).sort((a, b) => a - b)
        .map((n) => (counts[n] > 1 ? `${n}×${counts[n]}` : String(n)));
      const others = Object.keys(counts).filter((key) => !/^\d+$/.test(key))
        .map((card) => (counts[card] > 1 ? `${cardName(card)} ×${counts[card]}` : cardName(card)));
      return say(gettext("The discard pile: %(cards)s. These cards come back when the deck runs out."), {
        cards: numbers.concat(others).join(", "),
      });
    }

    /* Draw, Stop, the prompt and the spill chance of this seat's next draw. */
    renderActions() {
      const view = this.view;
      const mine = this.seat !== null && !view.finished;
      this.actionsEl.hidden = this.seat === null || view.finished;
      if (!mine) return;
      const canPlay = this.canAct() && view.phase === "play";
      this.drawButton.disabled = !canPlay;
      this.stopButton.disabled = !canPlay;
      this.drawButton.parentElement.hidden = this.canAct() && view.phase !== "play";
      this.promptEl.textContent = this.statusText();
      const chance = view.spill_chance ? view.spill_chance[this.seat] : null;
      const row = view.rows[this.seat];
      const showChance = chance !== null && chance !== undefined && !this.animating && row && row.status === "in";
      this.chanceEl.hidden = !showChance;
      if (showChance) {
        const level = chance >= 0.3 ? "high" : chance >= 0.15 ? "some" : "low";
        this.chanceEl.dataset.level = level;
        this.chanceEl.replaceChildren(
          h("span", { class: "pt-chance-label", text: gettext("Spill chance of your next draw") }),
          h("span", { class: "pt-meter", "aria-hidden": "true" }, h("span", { class: "pt-meter-fill", style: `width: ${Math.round(chance * 100)}%` })),
          h("strong", { class: "pt-chance-value", text: percent(chance) }),
        );
        this.chanceEl.title = row.saucer ? gettext("Your saucer would catch a repeat.") : "";
      }
      this.root.classList.toggle("has-turn", this.canAct());
    }

    statusText() {
      const view = this.view;
      const game = this.game || {};
      if (view.finished) return "";
      if (game.status === "ended") return gettext("The game has ended.");
      if (game.paused_remaining !== null && game.paused_remaining !== undefined) return gettext("The game is paused.");
      if (this.animating) return this.storyWords || gettext("Cards are being dealt…");
      if (this.pending) return gettext("Sending…");
      if (this.canAct()) return this.promptText();
      const row = view.rows[this.seat];
      const current = view.current;
      if (current === null || current === undefined) return "";
      const who = this.name(current);
      if (view.phase === "target" || view.phase === "give") {
        return say(gettext("%(name)s is choosing a player for %(card)s."), { name: who, card: cardName(view.pending.card) });
      }
      if (row && row.status !== "in") {
        return say(gettext("You are out of this hand (%(status)s). %(name)s decides."), { status: statusWord(row.status), name: who });
      }
      return say(gettext("%(name)s decides."), { name: who });
    }

    promptText() {
      const view = this.view;
      if (view.phase === "target" && view.pending.card === "snuffer") return gettext("Snuffer: choose who stops now.");
      if (view.phase === "target") return gettext("Bellows: choose who draws three cards.");
      if (view.phase === "give") return gettext("A second saucer: choose who gets it.");
      return gettext("Your turn: draw a card or stop.");
    }

    renderRows(model) {
      const view = this.view;
      const targets = this.canAct() && (view.phase === "target" || view.phase === "give") ? view.pending.targets : [];
      const descs = [];
      const items = [];
      for (let seat = 0; seat < view.seats; seat++) items.push(this.rowNode(seat, model, targets, descs));
      const active = document.activeElement;
      const focusKey = active && this.rowsEl.contains(active) && active.dataset ? active.dataset.key : null;
      this.rowsEl.replaceChildren(...items);
      replaceDescs(this.descsEl, "rows", descs);
      const again = focusKey && this.rowsEl.querySelector(`[data-key="${focusKey}"]`);
      if (again) again.focus({ preventScroll: true });
      else if (focusKey && targets.length) {
        const first = this.rowsEl.querySelector(".pt-pick");
        if (first) first.focus({ preventScroll: true });
      }
      this.root.dataset.targets = targets.join(",");
    }

    rowNode(seat, model, targets, descs) {
      const view = this.view;
      const row = model.rows[seat];
      const info = this.playerInfo(seat);
      const telling = this.animating;
      const current = !telling && !view.finished && view.current === seat;
      const score = handScore(row);
      const classes = ["pt-row", "is-" + row.status];
      if (seat === this.seat) classes.push("is-me");
      if (current) classes.push("is-current");
      if (targets.includes(seat)) classes.push("is-target");
      else if (!telling && view.pending && view.pending.by !== this.seat && (view.pending.targets || []).includes(seat)) {
        classes.push("is-aimed");
      }
      if (telling && this.fresh && this.fresh[0] === seat) classes.push("is-drawing");
      if (info.connected === false && !info.bot) classes.push("is-away");
      if (model.bellows && model.bellows.seat === seat) classes.push("has-bellows");
      const chance = !telling && view.spill_chance ? view.spill_chance[seat] : null;
      const cards = [];
      row.numbers.forEach((card, index) => cards.push(this.cardSlot(seat, index, card, descs,
        row.status === "spilled" && index === row.numbers.length - 1 ? "is-repeat" : "")));
      if (row.repeat !== null) cards.push(this.cardSlot(seat, "repeat", row.repeat, descs, "is-repeat"));
      const extras = row.extras.map((card, index) => this.cardSlot(seat, "x" + index, card, descs, ""));
      if (row.saucer) extras.push(this.cardSlot(seat, "saucer", "saucer", descs, ""));
      if (row.action) extras.push(this.cardSlot(seat, "action", row.action, descs, "is-action"));
      const statusId = `${this.uid}-status-${seat}`;
      descs.push(h("span", { id: statusId, text: statusMeaning(row.status) }));
      const hasChance = chance !== null && chance !== undefined;
      const label = [this.name(seat), statusWord(row.status), say(gettext("hand %(score)s"), { score }),
        say(gettext("total %(total)s"), { total: model.totals[seat] })];
      if (row.saucer) label.push(gettext("has a saucer"));
      if (hasChance) label.push(say(gettext("spill chance %(chance)s"), { chance: percent(chance) }));
      const bellows = model.bellows && model.bellows.seat === seat ? model.bellows : null;
      const children = [
        h("div", { class: "pt-row-head" }, [
          seat === model.dealer ? h("i", { class: "pt-dealer-chip", title: gettext("Dealer"), "aria-hidden": "true", text: pgettext("dealer chip", "D") }) : null,
          h("span", { class: "pt-player-name tk-player-name", text: this.name(seat) }),
          seat === this.seat ? h("span", { class: "pt-you tk-you", text: gettext("You") }) : null,
          this.botBadge(seat),
          h("span", {
            class: "pt-status", tabindex: -1, "data-tip": "", "data-key": `status:${seat}`, "aria-describedby": statusId,
            text: statusWord(row.status),
          }),
          bellows ? h("span", { class: "pt-bellows-badge", text: say(ngettext("bellows: %(left)s draw left",
            "bellows: %(left)s draws left", bellows.left), { left: bellows.left }) }) : null,
          hasChance ? h("span", { class: "pt-row-chance", "aria-hidden": "true", title: gettext("Spill chance of the next draw") },
            [h("i", { class: "pt-drop" }), percent(chance)]) : null,
          h("span", { class: "pt-score", "aria-hidden": "true" }, [
            h("span", { class: "pt-score-hand", title: gettext("This hand"), text: String(score) }),
            h("span", { class: "pt-score-total", title: gettext("Total"), text: "Σ " + model.totals[seat] }),
          ]),
        ]),
        h("div", { class: "pt-row-cards" }, [
          h("span", { class: "pt-numbers" }, cards.length ? cards : h("span", { class: "pt-empty", "aria-hidden": "true" })),
          extras.length ? h("span", { class: "pt-extras" }, extras) : null,
        ]),
      ];
      if (targets.includes(seat)) {
        children.push(h("button", {
          type: "button", class: "pt-pick", "data-seat": seat, "data-key": `pick:${seat}`,
          tabindex: targets[0] === seat ? 0 : -1, "aria-label": this.targetLabel(seat),
        }, h("span", { class: "pt-pick-label", "aria-hidden": "true", text: this.targetVerb() })));
      }
      return h("li", { class: classes.join(" "), "data-seat": seat, "data-status": row.status, "aria-label": label.join(", ") }, children);
    }

    targetVerb() {
      const card = this.view.pending && this.view.pending.card;
      if (card === "snuffer") return gettext("Snuff");
      if (card === "bellows") return gettext("Bellows");
      return gettext("Give");
    }

    targetLabel(seat) {
      const card = this.view.pending && this.view.pending.card;
      const values = { name: this.name(seat) };
      if (seat === this.seat) {
        if (card === "snuffer") return gettext("Snuff yourself: stop now with your points");
        if (card === "bellows") return gettext("Bellows on yourself: draw three cards");
      }
      if (card === "snuffer") return say(gettext("Snuff %(name)s: they stop now"), values);
      if (card === "bellows") return say(gettext("Bellows on %(name)s: they draw three cards"), values);
      return say(gettext("Give the saucer to %(name)s"), values);
    }

    cardSlot(seat, index, card, descs, extra) {
      const descId = `${this.uid}-card-${seat}-${index}`;
      descs.push(h("span", { id: descId, text: cardMeaning(card) }));
      const fresh = this.fresh && this.fresh[0] === seat && this.fresh[1] === index;
      return h("span", {
        class: "pt-slot" + (extra ? " " + extra : "") + (fresh ? " is-fresh" : ""), role: "img", tabindex: -1,
        "data-tip": "", "data-key": `card:${seat}:${index}`, "data-slot": index, "data-card": card,
        "aria-label": cardName(card), "aria-describedby": descId,
      }, cardGraphic(card, "row"));
    }

    /* Every finished hand's scores: a table of hands by players, with the totals. */
    renderScores(model) {
      const view = this.view;
      const hands = model.hands;
      const seats = view.seats;
      const head = h("tr", {}, [h("th", { scope: "col", text: gettext("Hand") })].concat(
        Array.from({ length: seats }, (_, seat) => h("th", {
          scope: "col", class: seat === this.seat ? "is-me" : null, title: this.name(seat),
        }, h("span", { class: "pt-scores-name", text: this.name(seat) })))));
      const body = hands.map((scores, index) => h("tr", {}, [h("th", { scope: "row", text: String(index + 1) })].concat(
        scores.map((score, seat) => h("td", { class: seat === this.seat ? "is-me" : null, text: String(score) })))));
      const best = Math.max(...model.totals);
      const foot = h("tr", { class: "pt-scores-total" }, [h("th", { scope: "row", text: gettext("Total") })].concat(
        model.totals.map((total, seat) => h("td", {
          class: [seat === this.seat ? "is-me" : "", total === best && hands.length ? "is-best" : ""].join(" ").trim() || null,
          text: String(total),
        }))));
      const table = hands.length
        ? h("div", { class: "pt-scores-scroll", tabindex: 0, role: "region", "aria-label": gettext("Scores by hand") },
          h("table", { class: "pt-scores-table" }, [h("thead", {}, head), h("tbody", {}, body), h("tfoot", {}, foot)]))
        : h("p", { class: "pt-none", text: gettext("No hand has finished yet. The first to 200 ends the game after that hand.") });
      this.scoresBody.replaceChildren(table);
      if (view.finished && !this.animating && !this.scoresEl.dataset.openedAtEnd) {
        this.scoresEl.open = true;
        this.scoresEl.dataset.openedAtEnd = "1";
      }
      if (!view.finished) delete this.scoresEl.dataset.openedAtEnd;
    }

    // --- playing ------------------------------------------------------------------------------

    isPlaying() {
      const game = this.game;
      if (!game) return true;
      return game.status === "playing" && (game.paused_remaining === null || game.paused_remaining === undefined);
    }

    canAct() {
      return Boolean(this.myDecision(this.view) && !this.pending && !this.animating && this.isPlaying());
    }

    send(action) {
      if (!this.canAct()) return;
      const view = this.view;
      if (action.type === "target" && !(view.pending && view.pending.targets.includes(action.seat))) return;
      if (action.type !== "target" && view.phase !== "play") return;
      this.sound("pick");
      this.sendLocked(action);
      if (action.type === "stop") this.ctx.announce(gettext("You stop."));
      this.tips.hide();
      this.render();
    }

    // --- input ----------------------------------------------------------------------------------

    click(event) {
      const pick = event.target.closest(".pt-pick");
      if (pick) this.send({ type: "target", seat: Number(pick.dataset.seat) });
    }

    /* D draws, S stops, M mutes; arrows and Enter choose a player; from anywhere on the page. */
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
        return;
      }
      if (!this.canAct()) return;
      const phase = this.view.phase;
      if (phase === "play" && (key === "d" || key === "s")) {
        event.preventDefault();
        this.send({ type: key === "d" ? "draw" : "stop" });
        return;
      }
      if (phase === "play") return;
      const arrows = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
      const picks = Array.from(this.rowsEl.querySelectorAll(".pt-pick"));
      if (!picks.length) return;
      const at = picks.indexOf(document.activeElement);
      if (key in arrows || key === "Home" || key === "End") {
        event.preventDefault();
        let next = at < 0 ? 0 : (at + (arrows[key] || 0) + picks.length) % picks.length;
        if (key === "Home") next = 0;
        if (key === "End") next = picks.length - 1;
        picks.forEach((pick, index) => { pick.tabIndex = index === next ? 0 : -1; });
        picks[next].focus();
        this.sound("pick");
      } else if (key === "Enter" && at >= 0) {
        event.preventDefault();
        this.send({ type: "target", seat: Number(picks[at].dataset.seat) });
      }
    }

    rootKey(event) {
      // Within a row, left and right walk its cards so that each one's tooltip can be read.
      const slot = event.target.closest(".pt-slot, .pt-status");
      if (!slot || event.ctrlKey || event.metaKey || event.altKey) return;
      const row = slot.closest(".pt-row");
      const items = Array.from(row.querySelectorAll(".pt-status, .pt-slot"));
      const at = items.indexOf(slot);
      const moves = { ArrowLeft: -1, ArrowRight: 1 };
      if (event.key in moves) {
        event.preventDefault();
        const next = items[Math.max(0, Math.min(items.length - 1, at + moves[event.key]))];
        next.focus();
      }
    }
  }

  registerTable("pots", PotsTable, {
    scoreLabel: gettext("points"),
    lowerIsBetter: false,
    scoreRule: gettext("The highest total wins."),
    // A player draws once a turn, but may also choose a target in it: the room chimes once a turn.
    turnBased: true,
    // Every row, status and total is on the table: a room page may hide its own list during play.
    showsPlayers: true,
    // Once an update's cards are told, the table says "Your turn: draw a card or stop." (afterUpdate):
    // the room page then only plays the "turn" sound and marks the title.
    announcesTurns: true,
    // The rules' arithmetic, for tests and for anyone curious in the console.
    rules: { kindOf, handScore, modelOf, step },
  });
})();
