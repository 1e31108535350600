/*
 * Candles table: the game side of the room page (docs/games/candles.md, "The table in the browser").
 *
 * The room page owns the socket, the timer, the seats and the ranking; this file draws the shelves,
 * the players, the hand, and narrates each round. The view is the truth: an animation only retells
 * the events of one update, and always ends by drawing that update's view.
 *
 *   window.WickwiseGames.candles.mount(container, ctx) -> { update(view, events, game), destroy() }
 */
(function () {
  "use strict";

  const {
    h, replaceDescs, withFocusKept, rectWithin, prefersReducedMotion, isTyping, TableBase, registerTable,
  } = window.WickwiseTableKit; // static/js/tablekit.js, loaded before this file

  const SHELF_CAPACITY = 5;
  let mounted = 0;

  // --- the rules, as games/candles/engine.py has them -------------------------------------------

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

  /* The shelf whose last candle is the closest below `candle`, or null when it is lower than all. */
  function targetShelf(shelves, candle) {
    let best = null;
    shelves.forEach((shelf, index) => {
      const end = shelf[shelf.length - 1];
      if (end < candle && (best === null || end > shelves[best][shelves[best].length - 1])) best = index;
    });
    return best;
  }

  /* The shelf with the least wax; the first (top) one on a tie. */
  function leastWaxShelf(shelves) {
    let best = 0;
    shelves.forEach((shelf, index) => {
      if (shelfWax(shelf) < shelfWax(shelves[best])) best = index;
    });
    return best;
  }

  /* Where a candle would go if it were placed on these shelves now. */
  function predictPlacement(shelves, candle) {
    const shelf = targetShelf(shelves, candle);
    if (shelf === null) {
      const least = leastWaxShelf(shelves);
      return { shelf: least, how: "low", taken: shelves[least].slice() };
    }
    if (shelves[shelf].length >= SHELF_CAPACITY) return { shelf, how: "tip", taken: shelves[shelf].slice() };
    return { shelf, how: "add", taken: [] };
  }

  /* The table as it was before this update's placements: undo them from the last to the first.
     Returns null if the events do not fit the view (then we draw the view without a story). */
  function rewind(view, places) {
    const shelves = view.shelves.map((shelf) => shelf.slice());
    const wax = view.wax.slice();
    const collected = view.collected.map((taken) => taken.slice());
    for (let i = places.length - 1; i >= 0; i--) {
      const place = places[i];
      const shelf = shelves[place.shelf];
      if (!shelf || shelf[shelf.length - 1] !== place.candle) return null;
      if (place.how === "add") shelf.pop();
      else shelves[place.shelf] = place.taken.slice();
      wax[place.seat] -= place.wax;
      collected[place.seat].splice(collected[place.seat].length - place.taken.length, place.taken.length);
    }
    if (shelves.some((shelf) => shelf.length === 0)) return null;
    return { shelves, wax, collected };
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

  function waxMeaning(candle) {
    const wax = waxOf(candle);
    if (candle === 55) return say(gettext("multiple of 5 and of 11: %(wax)s wax"), { wax });
    if (candle % 11 === 0) return say(gettext("multiple of 11: %(wax)s wax"), { wax });
    if (candle % 10 === 0) return say(gettext("multiple of 10: %(wax)s wax"), { wax });
    if (candle % 5 === 0) return say(gettext("multiple of 5: %(wax)s wax"), { wax });
    return gettext("plain candle: 1 wax");
  }

  function candleName(candle) {
    return say(gettext("Candle %(candle)s, %(wax)s wax"), { candle, wax: waxOf(candle) });
  }

  function candleMeaning(candle) {
    return say(gettext("Candle %(candle)s: %(meaning)s."), { candle, meaning: waxMeaning(candle) });
  }

  function freeText(shelf) {
    const free = SHELF_CAPACITY - shelf.length;
    if (free <= 0) return gettext("It is full: the next candle placed on it tips it.");
    return say(ngettext(
      "%(free)s more candle fits before it tips.", "%(free)s more candles fit before it tips.", free), { free });
  }

  function shelfName(index, shelf) {
    return say(ngettext(
      "Shelf %(shelf)s: %(count)s candle, %(wax)s wax", "Shelf %(shelf)s: %(count)s candles, %(wax)s wax",
      shelf.length), { shelf: index + 1, count: shelf.length, wax: shelfWax(shelf) });
  }

  function shelfDescription(index, shelf) {
    return say(gettext("Shelf %(shelf)s ends with %(end)s and holds %(wax)s wax. %(free)s"), {
      shelf: index + 1, end: shelf[shelf.length - 1], wax: shelfWax(shelf), free: freeText(shelf),
    });
  }

  /* What would happen to a hand candle now, in a short phrase and in a sentence. */
  function outlook(shelves, candle) {
    const where = predictPlacement(shelves, candle);
    const values = {
      candle, shelf: where.shelf + 1, end: shelves[where.shelf][shelves[where.shelf].length - 1],
      count: where.taken.length, wax: shelfWax(where.taken),
      left: SHELF_CAPACITY - shelves[where.shelf].length - 1,
    };
    if (where.how === "low") {
      return { where, short: say(gettext("%(candle)s is too low: it would take shelf %(shelf)s, %(wax)s wax."), values),
        long: say(gettext(
          "Placed now, it is lower than every shelf: you take shelf %(shelf)s, the one with the least wax (%(wax)s wax), and it starts that shelf again."
        ), values) };
    }
    if (where.how === "tip") {
      return { where, short: say(gettext("%(candle)s would tip shelf %(shelf)s: %(wax)s wax."), values),
        long: say(gettext(
          "Placed now, it goes after %(end)s on shelf %(shelf)s, which is full: it tips, and you collect its %(count)s candles, %(wax)s wax."
        ), values) };
    }
    return { where, short: say(gettext("%(candle)s would go on shelf %(shelf)s."), values),
      long: say(ngettext(
        "Placed now, it goes after %(end)s on shelf %(shelf)s and fits; %(left)s more fits after it.",
        "Placed now, it goes after %(end)s on shelf %(shelf)s and fits; %(left)s more fit after it.",
        values.left), values) };
  }

  function placementText(name, place) {
    const values = { name, candle: place.candle, shelf: place.shelf + 1, wax: place.wax };
    if (place.how === "tip") return say(gettext("%(name)s's %(candle)s tips shelf %(shelf)s: %(wax)s wax"), values);
    if (place.how === "low") {
      return say(gettext("%(name)s's %(candle)s is too low and takes shelf %(shelf)s: %(wax)s wax"), values);
    }
    return say(gettext("%(name)s's %(candle)s goes on shelf %(shelf)s"), values);
  }

  // --- small DOM helpers ---------------------------------------------------------------------

  /* A candle picture: flame, body with its number, and one wax mark per drop. Decorative: the
     element that holds it carries the words. */
  function candleGraphic(candle, size) {
    const wax = waxOf(candle);
    const drops = h("span", { class: "ct-drops" });
    for (let i = 0; i < wax; i++) drops.append(h("i", { class: "ct-drop" }));
    return h("span", { class: "ct-candle ct-candle--" + size, "data-wax": wax, "aria-hidden": "true" }, [
      h("span", { class: "ct-flame" }),
      h("span", { class: "ct-body" }, [h("span", { class: "ct-num", text: String(candle) }), drops]),
    ]);
  }

  function sortedNumbers(list) {
    return list.slice().sort((a, b) => a - b);
  }

  // --- the table -----------------------------------------------------------------------------

  class CandlesTable extends TableBase {
    constructor(container, ctx) {
      super(ctx, "candles table");
      this.uid = "ct" + (++mounted);
      this.view = null;
      this.game = null;
      this.selected = null;
      this.pending = null; // {candle, until}
      this.lastDigit = null;
      this.lastPickSound = 0;
      this.handSignature = "";
      this.build(container);
      this.bindEvents();
    }

    // --- building -----------------------------------------------------------------------------

    build(container) {
      const id = (name) => this.uid + "-" + name;
      this.roundEl = h("div", { class: "ct-round" });
      this.skipButton = h("button", {
        type: "button", class: "ct-skip tk-pill", hidden: true, text: gettext("Skip"), onclick: () => this.skip(),
      });
      this.playersEl = h("ul", { class: "ct-players tk-players", "aria-labelledby": id("players-title") });
      this.shelvesEl = h("ol", { class: "ct-shelves", "aria-labelledby": id("shelves-title") });
      this.handEl = h("div", { class: "ct-hand" });
      this.revealEl = h("div", { class: "ct-reveal", hidden: true });
      this.logList = h("ol", { class: "ct-log-list" });
      this.logEl = h("details", { class: "ct-log", hidden: true }, [
        h("summary", { text: gettext("Last round") }), this.logList,
      ]);
      this.collectedBody = h("div", { class: "ct-collected-body" });
      this.collectedEl = h("details", { class: "ct-collected" }, [
        h("summary", { text: gettext("Collected wax") }), this.collectedBody,
      ]);
      this.fxEl = h("div", { class: "ct-fx tk-fx", "aria-hidden": "true" });
      this.tipEl = h("div", { class: "ct-tooltip ww-tip", id: id("tooltip"), role: "tooltip", hidden: true });
      this.descsEl = h("div", { class: "ct-descs", hidden: true });
      this.stageEl = h("div", { class: "ct-area ct-area--stage" }, [this.handEl, this.revealEl]);
      this.root = h("section", { class: "candles-table ct-live ww-table tk-live", "aria-label": gettext("Candles table") }, [
        h("div", { class: "ct-layout tk-layout" }, [
          h("div", { class: "ct-bar tk-bar" }, [this.roundEl, this.skipButton]),
          h("div", { class: "ct-area ct-area--players" }, [
            h("h3", { class: "ct-title tk-visually-hidden", id: id("players-title"), text: gettext("Players") }), this.playersEl,
          ]),
          h("div", { class: "ct-area ct-area--shelves" }, [
            h("h3", { class: "ct-title tk-visually-hidden", id: id("shelves-title"), text: gettext("Shelves") }),
            this.shelvesEl,
          ]),
          this.stageEl,
          h("div", { class: "ct-area ct-area--extra" }, [this.logEl, this.collectedEl]),
        ]),
        this.fxEl, this.tipEl, this.descsEl,
      ]);
      container.append(this.root);
    }

    // --- the update queue (TableBase) -------------------------------------------------------------

    shouldAnimate(item) {
      if (!item.view || document.hidden) return false;
      return item.events.some((e) => e.type === "reveal") && item.events.some((e) => e.type === "place");
    }

    /* Draw an update at once, with its sounds and words but no animation. */
    show(item) {
      const before = this.view;
      this.accept(item);
      this.render();
      this.narrateQuietly(item, before);
      if (this.roundEnded(item)) this.afterRound(item);
    }

    accept(item) {
      const { view, game, events } = item;
      if (this.game && game && this.game.number !== game.number) this.resetForNewGame();
      this.view = view;
      this.game = game || this.game;
      if (this.pending) {
        const answered = events.some((e) => e.type === "picked" && e.seat === this.seat);
        const refused = !events.length && view && view.my_pick === null; // a snapshot: the server's word
        if (answered || refused || (view && view.my_pick !== null && view.my_pick !== undefined)) this.pending = null;
      }
      const hand = (view && view.hand) || [];
      if (this.selected !== null && !hand.includes(this.selected)) this.selected = null;
    }

    resetForNewGame() {
      this.selected = null;
      this.pending = null;
      this.handSignature = "";
      this.collectedEl.open = false;
    }

    roundEnded(item) {
      return item.events.some((e) => e.type === "round" || e.type === "end" || e.type === "start");
    }

    narrateQuietly(item, before) {
      const picks = item.events.filter((e) => e.type === "picked" && e.seat !== this.seat);
      if (picks.length) this.pickSound();
      const view = item.view;
      if (!view || !picks.length || this.seat === null || view.my_pick !== null) return;
      const waiting = view.picked.filter((picked, seat) => !picked && seat !== this.seat).length;
      const wasWaiting = before && before.picked && before.picked.some((p, s) => !p && s !== this.seat);
      if (waiting === 0 && wasWaiting && view.hand && view.hand.length) {
        this.ctx.announce(gettext("Everyone else has picked."));
      }
    }

    /* A new round (or the end), in words. The room page plays the "turn" and "end" sounds and
       names the winners; the table says what only it knows. */
    afterRound(item) {
      const view = item.view;
      if (!view) return;
      if (item.events.some((e) => e.type === "end") || view.finished) {
        const totals = view.wax.map((wax, seat) => say(gettext("%(name)s %(wax)s"), { name: this.name(seat), wax }));
        this.ctx.announce(say(gettext("Wax collected: %(totals)s."), { totals: listOf(totals) }));
        return;
      }
      if (this.seat !== null && this.canPick()) {
        this.ctx.announce(say(gettext("Round %(round)s of %(rounds)s: pick a candle."), view));
      }
    }

    // --- the reveal, told candle by candle -------------------------------------------------------

    /* Milliseconds: the pause on the shown picks, each placement (its flight included), one flight,
       the slide of a collected shelf and the delay between its candles, and the pause before the final
       view. The full-motion pace comes from the server (REVEAL_PACE in games/candles/spec.py), which adds
       that reveal to the next round's countdown; reduced motion is quicker, and so is a table mounted
       without the server's pace. */
    pace(players) {
      const full = this.settings.revealPace;
      if (prefersReducedMotion() || !full) {
        return { reveal: 350, step: 260, fly: 120, tip: 150, tipStagger: 0, settle: 150, reduced: true };
      }
      const ms = (seconds) => Math.round(seconds * 1000);
      return {
        reveal: ms(full.reveal), step: ms(players > full.crowd ? full.crowdStep : full.step), fly: ms(full.fly),
        tip: ms(full.tip), tipStagger: ms(full.tipStagger), settle: ms(full.settle), reduced: false,
      };
    }

    async animate(item) {
      const places = item.events.filter((e) => e.type === "place");
      const reveal = item.events.find((e) => e.type === "reveal");
      const start = rewind(item.view, places);
      if (!start) {
        this.show(item);
        return;
      }
      const work = start;
      const pace = this.pace(places.length);
      this.accept(item);
      this.animating = true;
      this.skipping = false;
      this.skipButton.hidden = false;
      this.revealRound = reveal.round;
      if (item.events.some((e) => e.type === "picked" && e.seat !== this.seat)) this.pickSound();
      this.render(work);
      this.showReveal(reveal.picks);
      this.ctx.announce(this.revealWords(reveal));
      await this.sleep(pace.reveal);
      for (const place of places) {
        if (this.destroyed) return;
        if (this.skipping) break;
        await this.animatePlacement(place, work, pace);
        await this.sleep(Math.max(0, pace.step - pace.fly));
      }
      await this.sleep(pace.settle);
      if (this.destroyed) return;
      this.animating = false;
      this.skipButton.hidden = true;
      this.fxEl.replaceChildren();
      this.revealEl.hidden = true;
      this.render();
      this.afterRound(item);
    }

    revealWords(reveal) {
      const order = reveal.picks.map((candle, seat) => ({ candle, seat })).sort((a, b) => a.candle - b.candle);
      const shown = order.map(({ candle, seat }) => say(gettext("%(name)s %(candle)s"), { name: this.name(seat), candle }));
      return say(gettext("Candles shown: %(picks)s."), { picks: listOf(shown) });
    }

    showReveal(picks) {
      const order = picks.map((candle, seat) => ({ candle, seat })).sort((a, b) => a.candle - b.candle);
      const list = h("ol", { class: "ct-picks" }, order.map(({ candle, seat }) => h("li", {
        class: "ct-pick" + (seat === this.seat ? " is-mine" : ""), "data-seat": seat,
      }, [
        candleGraphic(candle, "mini"),
        h("span", { class: "ct-pick-name", text: this.name(seat) }),
        h("span", { class: "tk-visually-hidden", text: ": " + candleName(candle) }),
      ])));
      this.revealEl.replaceChildren(h("h3", { class: "ct-title", text: gettext("Candles shown") }), list);
      this.revealEl.hidden = false;
      this.handEl.hidden = true;
      this.stageEl.hidden = false;
    }

    async animatePlacement(place, work, pace) {
      const pickItem = this.revealEl.querySelector(`.ct-pick[data-seat="${place.seat}"]`);
      const pickCandle = pickItem && pickItem.querySelector(".ct-candle");
      const row = this.shelvesEl.children[place.shelf];
      if (!pickItem || !row) return;
      pickItem.classList.add("is-active");
      const slots = row.querySelectorAll(".ct-slot");
      if (place.how === "add") {
        const slot = slots[work.shelves[place.shelf].length];
        await this.fly(pickCandle, this.rectOf(slot), pace);
        work.shelves[place.shelf].push(place.candle);
        this.renderShelvesFrom(work.shelves, { fresh: [place.shelf, work.shelves[place.shelf].length - 1] });
        this.sound("place");
      } else {
        const edge = place.how === "tip" ? slots[SHELF_CAPACITY - 1] : slots[0];
        const landing = this.rectOf(edge);
        landing.x += (place.how === "tip" ? 0.55 : -0.55) * landing.width;
        row.classList.add(place.how === "tip" ? "is-tipping" : "is-taken");
        const flying = await this.fly(pickCandle, landing, pace, true);
        this.sound("tip");
        await this.collect(row, place.seat, pace);
        if (flying) flying.remove();
        work.shelves[place.shelf] = [place.candle];
        work.wax[place.seat] += place.wax;
        work.collected[place.seat].push(...place.taken);
        this.renderShelvesFrom(work.shelves, { fresh: [place.shelf, 0] });
        this.renderPlayers(work.wax);
        this.showGain(place.seat, place.wax);
      }
      pickItem.classList.remove("is-active");
      pickItem.classList.add("is-placed");
      this.ctx.announce(placementText(this.name(place.seat), place));
    }

    rectOf(node) {
      return rectWithin(node, this.root);
    }

    /* Move a copy of `node` to `to` (root coordinates); keep it there if asked. */
    async fly(node, to, pace, keep) {
      if (!node || this.skipping) return null;
      const from = this.rectOf(node);
      const scale = Math.min(2, Math.max(0.4, to.width / Math.max(1, from.width)));
      const clone = node.cloneNode(true);
      clone.classList.add("ct-flying");
      Object.assign(clone.style, {
        left: from.x + "px", top: from.y + "px", width: from.width + "px", height: from.height + "px",
      });
      this.fxEl.append(clone);
      node.style.visibility = "hidden";
      // Centre on centre; the transform scales about the centre, then moves.
      const dx = to.x + to.width / 2 - (from.x + from.width / 2);
      const dy = to.y + to.height / 2 - (from.y + from.height / 2);
      const end = `translate(${dx}px, ${dy}px) scale(${scale})`;
      const frames = pace.reduced
        ? [{ opacity: 0, transform: end }, { opacity: 1, transform: end }]
        : [{ transform: "translate(0, 0) scale(1)" },
          { transform: `translate(${dx * 0.5}px, ${dy * 0.5 - 18}px) scale(${(1 + scale) / 2})`, offset: 0.5 },
          { transform: end }];
      await this.play(clone, frames, { duration: pace.fly, easing: "ease-in-out", fill: "forwards" });
      if (!keep) clone.remove();
      return keep ? clone : null;
    }

    /* The shelf's candles slide off to the player who collects them. */
    async collect(row, seat, pace) {
      const chip = this.playersEl.querySelector(`.ct-player[data-seat="${seat}"]`);
      const candles = Array.from(row.querySelectorAll(".ct-slot .ct-candle"));
      if (!chip || !candles.length || this.skipping) return;
      const target = this.rectOf(chip);
      const flights = candles.map((candle, index) => {
        const from = this.rectOf(candle);
        const clone = candle.cloneNode(true);
        clone.classList.add("ct-flying");
        Object.assign(clone.style, {
          left: from.x + "px", top: from.y + "px", width: from.width + "px", height: from.height + "px",
        });
        this.fxEl.append(clone);
        candle.style.visibility = "hidden";
        const dx = target.x + target.width / 2 - (from.x + from.width / 2);
        const dy = target.y + target.height / 2 - (from.y + from.height / 2);
        const frames = pace.reduced
          ? [{ opacity: 1 }, { opacity: 0 }]
          : [{ transform: "translate(0, 0) scale(1)", opacity: 1 },
            { transform: `translate(${dx}px, ${dy}px) scale(0.3)`, opacity: 0.15 }];
        return this.play(clone, frames, {
          duration: pace.tip, delay: index * pace.tipStagger,
          easing: "cubic-bezier(.5, 0, .75, .4)", fill: "forwards",
        }).then(() => clone.remove());
      });
      await Promise.all(flights);
    }

    showGain(seat, wax) {
      const chip = this.playersEl.querySelector(`.ct-player[data-seat="${seat}"]`);
      if (!chip) return;
      chip.classList.add("is-gaining");
      chip.append(h("span", { class: "ct-gain", "aria-hidden": "true", text: "+" + wax }));
    }

    play(node, frames, options) {
      if (!node.animate) return Promise.resolve();
      const animation = node.animate(frames, options);
      this.animations.add(animation);
      return animation.finished.catch(() => null).then(() => this.animations.delete(animation));
    }

    // --- drawing ------------------------------------------------------------------------------

    /* Draw everything from this.view; `work` replaces the shelves, wax and collected candles while a
       reveal is being told. */
    render(work) {
      const view = this.view;
      this.root.classList.toggle("is-spectator", this.seat === null);
      this.root.classList.toggle("is-finished", Boolean(view && view.finished));
      this.root.classList.toggle("is-revealing", this.animating);
      if (!view) {
        this.roundEl.replaceChildren(h("span", { class: "ct-round-text", text: gettext("Waiting for the game") }));
        this.playersEl.replaceChildren();
        this.shelvesEl.replaceChildren();
        this.handEl.replaceChildren();
        return;
      }
      const shelves = work ? work.shelves : view.shelves;
      this.renderRound();
      this.renderPlayers(work ? work.wax : view.wax);
      this.renderHand();
      this.renderShelvesFrom(shelves, { preview: !work });
      this.renderLog();
      this.renderCollected(work ? work.collected : view.collected, work ? work.wax : view.wax);
      if (!this.animating) {
        this.revealEl.hidden = true;
        this.handEl.hidden = this.seat === null || view.finished;
      }
      this.stageEl.hidden = this.handEl.hidden && this.revealEl.hidden;
      this.tips.refresh();
    }

    renderRound() {
      const view = this.view;
      const ended = this.game && this.game.status === "ended";
      // While a reveal is told, the table still shows the round being revealed.
      const round = this.animating && this.revealRound ? this.revealRound : view.round;
      const finished = view.finished && !this.animating;
      const pips = h("span", { class: "ct-pips", "aria-hidden": "true" });
      for (let pip = 1; pip <= view.rounds; pip++) {
        const done = finished || pip < round;
        pips.append(h("i", { class: "ct-pip" + (done ? " is-done" : pip === round ? " is-now" : "") }));
      }
      let words;
      if (finished) words = gettext("Game over");
      else if (ended) words = gettext("Game ended");
      else words = say(gettext("Round %(round)s of %(rounds)s"), { round, rounds: view.rounds });
      this.roundEl.replaceChildren(pips, h("span", { class: "ct-round-text", text: words }));
    }

    renderPlayers(wax) {
      const view = this.view;
      const live = !view.finished && !this.animating && this.isPlaying();
      const items = [];
      for (let seat = 0; seat < view.seats; seat++) {
        const info = this.playerInfo(seat);
        const picked = Boolean(view.picked[seat]);
        const classes = ["ct-player", "tk-player"];
        if (seat === this.seat) classes.push("is-me");
        if (live) classes.push(picked ? "is-picked" : "is-choosing");
        if (info.connected === false && !info.bot) classes.push("is-away");
        const stateWords = picked ? gettext("picked") : gettext("choosing");
        items.push(h("li", { class: classes.join(" "), "data-seat": seat, title: live ? stateWords : null }, [
          h("i", { class: "ct-state-icon", "aria-hidden": "true" }),
          h("span", { class: "ct-player-name tk-player-name", text: this.name(seat) }),
          seat === this.seat ? h("span", { class: "ct-you tk-you", text: gettext("You") }) : null,
          this.botBadge(seat),
          live ? h("span", { class: "tk-visually-hidden", text: ", " + stateWords }) : null,
          h("span", { class: "ct-player-wax" }, [
            h("i", { class: "ct-drop", "aria-hidden": "true" }),
            h("span", { "aria-hidden": "true", text: String(wax[seat]) }),
            h("span", { class: "tk-visually-hidden", text: ", " + say(gettext("%(wax)s wax"), { wax: wax[seat] }) }),
          ]),
        ]));
      }
      this.playersEl.replaceChildren(...items);
    }

    /* The four shelves: candles, free slots, the wax on each; with the selected candle's preview. */
    renderShelvesFrom(shelves, options) {
      const preview = options && options.preview && this.canPick() && this.selected !== null
        ? predictPlacement(shelves, this.selected) : null;
      const fresh = options && options.fresh;
      const descs = [];
      const rows = shelves.map((shelf, index) => {
        const descId = `${this.uid}-shelf-${index}`;
        descs.push(h("span", { id: descId, text: shelfDescription(index, shelf) }));
        const slots = [];
        for (let slot = 0; slot < SHELF_CAPACITY; slot++) {
          slots.push(this.slotNode(index, shelf, slot, preview, fresh, descs));
        }
        const full = shelf.length >= SHELF_CAPACITY;
        const classes = ["ct-shelf"];
        if (full) classes.push("is-full");
        if (preview && preview.shelf === index) classes.push("is-target", "is-target-" + preview.how);
        return h("li", { class: classes.join(" ") }, [
          h("div", {
            class: "ct-shelf-inner", tabindex: 0, role: "group", "data-tip": "", "data-key": "shelf:" + index,
            "aria-label": shelfName(index, shelf), "aria-describedby": descId,
          }, [
            h("span", { class: "ct-shelf-head", "aria-hidden": "true" }, [
              h("span", { class: "ct-shelf-number", text: String(index + 1) }),
              h("span", { class: "ct-shelf-wax" }, [h("i", { class: "ct-drop" }), String(shelfWax(shelf))]),
            ]),
            h("span", { class: "ct-slots" }, slots),
            h("span", { class: "ct-cap", "aria-hidden": "true", title: full ? gettext("full: the next candle tips it") : null }),
          ]),
        ]);
      });
      withFocusKept(this.shelvesEl, () => {
        this.shelvesEl.replaceChildren(...rows);
        replaceDescs(this.descsEl, "shelves", descs);
      });
    }

    slotNode(index, shelf, slot, preview, fresh, descs) {
      const candle = shelf[slot];
      if (candle === undefined) {
        const ghost = preview && preview.how === "add" && preview.shelf === index && slot === shelf.length;
        return h("span", { class: "ct-slot is-free" + (ghost ? " is-ghost" : "") },
          ghost ? candleGraphic(this.selected, "mini") : null);
      }
      const descId = `${this.uid}-shelf-${index}-${slot}`;
      descs.push(h("span", { id: descId, text: candleMeaning(candle) }));
      const isFresh = fresh && fresh[0] === index && fresh[1] === slot;
      return h("span", {
        class: "ct-slot" + (isFresh ? " is-fresh" : ""), role: "img", tabindex: -1, "data-tip": "",
        "data-key": `shelf:${index}:${slot}`, "aria-label": candleName(candle), "aria-describedby": descId,
      }, candleGraphic(candle, "mini"));
    }

    /* The hand, rebuilt only when it changes so that the selection can glide. */
    renderHand() {
      const view = this.view;
      if (this.seat === null || !view.hand) {
        this.handEl.replaceChildren();
        this.handSignature = "";
        return;
      }
      const cards = this.handCards();
      const signature = JSON.stringify([cards, view.my_pick, this.pending && this.pending.candle, this.canPick(),
        JSON.stringify(view.shelves)]);
      if (signature !== this.handSignature) {
        this.handSignature = signature;
        this.buildHand(cards);
      }
      this.applySelection();
    }

    handCards() {
      const view = this.view;
      const picked = this.pending ? this.pending.candle : view.my_pick;
      const cards = view.hand.slice();
      if (picked !== null && picked !== undefined && !cards.includes(picked)) cards.push(picked);
      return sortedNumbers(cards);
    }

    buildHand(cards) {
      const view = this.view;
      const picked = this.pending ? this.pending.candle : view.my_pick;
      const interactive = this.canPick();
      const descs = [];
      const buttons = cards.map((candle, index) => {
        const descId = `${this.uid}-hand-${candle}`;
        const isPicked = candle === picked;
        const words = [candleMeaning(candle)];
        if (interactive) words.push(outlook(view.shelves, candle).long);
        descs.push(h("span", { id: descId, text: words.join(" ") }));
        const label = isPicked ? say(gettext("%(candle)s, picked"), { candle: candleName(candle) }) : candleName(candle);
        return h("button", {
          type: "button", class: "ct-card" + (isPicked ? " is-picked" : ""), role: "radio",
          "aria-checked": "false", "aria-label": label, "aria-describedby": descId, "aria-disabled": !interactive ? "true" : null,
          tabindex: -1, "data-candle": candle, "data-tip": "", "data-key": "hand:" + candle,
        }, [
          candleGraphic(candle, "card"),
          index < 6 ? h("span", { class: "ct-keyhint", "aria-hidden": "true", text: String(index + 1) }) : null,
          isPicked ? h("span", { class: "ct-picked-flag", "aria-hidden": "true", text: gettext("picked") }) : null,
        ]);
      });
      this.cardsEl = h("div", {
        class: "ct-cards", role: "radiogroup", "aria-label": gettext("Your candles"),
        "aria-disabled": interactive ? null : "true",
      }, buttons);
      this.playButton = h("button", { type: "button", class: "ct-play", onclick: () => this.playSelected() });
      this.statusEl = h("p", { class: "ct-status" });
      const heading = h("h3", { class: "ct-title", text: gettext("Your candles") });
      withFocusKept(this.handEl, () => {
        this.handEl.replaceChildren(heading, this.cardsEl, h("div", { class: "ct-actions" }, [this.statusEl, this.playButton]));
        replaceDescs(this.descsEl, "hand", descs);
      }, () => this.cardsEl.querySelector(".ct-card"));
    }

    /* Selection, roving tab stop, the Play button and the status line, without rebuilding. */
    applySelection() {
      if (!this.cardsEl) return;
      const view = this.view;
      const interactive = this.canPick();
      const cards = Array.from(this.cardsEl.querySelectorAll(".ct-card"));
      const picked = this.pending ? this.pending.candle : view.my_pick;
      const current = interactive ? this.selected : picked;
      const tabStop = cards.find((card) => Number(card.dataset.candle) === current) || cards[0];
      cards.forEach((card) => {
        const candle = Number(card.dataset.candle);
        const on = candle === current && current !== null && current !== undefined;
        card.setAttribute("aria-checked", on ? "true" : "false");
        card.classList.toggle("is-selected", on && interactive);
        card.tabIndex = card === tabStop ? 0 : -1;
      });
      this.playButton.disabled = !interactive || this.selected === null;
      this.playButton.hidden = !interactive;
      this.playButton.textContent = interactive && this.selected !== null
        ? say(gettext("Play %(candle)s"), { candle: this.selected }) : gettext("Play");
      this.statusEl.textContent = this.statusText();
      this.root.classList.toggle("has-selection", interactive && this.selected !== null);
    }

    statusText() {
      const view = this.view;
      const game = this.game || {};
      if (view.finished) return "";
      if (game.status === "ended") return gettext("The game has ended.");
      if (game.paused_remaining !== null && game.paused_remaining !== undefined) return gettext("The game is paused.");
      if (this.pending) return say(gettext("Playing %(candle)s…"), { candle: this.pending.candle });
      if (view.my_pick !== null && view.my_pick !== undefined) {
        const waiting = [];
        view.picked.forEach((picked, seat) => {
          if (!picked) waiting.push(this.name(seat));
        });
        const values = { candle: view.my_pick, names: listOf(waiting) };
        if (this.playedFor === "stand_in") {
          if (!waiting.length) return say(gettext("The bot played %(candle)s for you."), values);
          return say(gettext("The bot played %(candle)s for you. Waiting for %(names)s."), values);
        }
        if (this.playedFor === "table") {
          if (!waiting.length) return say(gettext("Time ran out: the table played %(candle)s for you."), values);
          return say(gettext("Time ran out: the table played %(candle)s for you. Waiting for %(names)s."), values);
        }
        if (!waiting.length) return say(gettext("You picked %(candle)s."), values);
        return say(gettext("You picked %(candle)s. Waiting for %(names)s."), values);
      }
      if (!this.canPick()) return "";
      if (this.selected === null) return gettext("Pick a candle, then Play.");
      return outlook(view.shelves, this.selected).short;
    }

    renderLog() {
      const last = this.view.last_round || [];
      this.logEl.hidden = !last.length || this.animating;
      this.logList.replaceChildren(...last.map((place) => h("li", {
        class: "ct-log-item is-" + place.how, text: placementText(this.name(place.seat), place),
      })));
    }

    renderCollected(collected, wax) {
      const view = this.view;
      const order = view.finished && view.ranking ? view.ranking.map((r) => r.seat) : collected.map((_, seat) => seat);
      const rows = order.map((seat) => h("div", { class: "ct-collected-row" }, [
        h("div", { class: "ct-collected-who" }, [
          h("span", { class: "ct-player-name tk-player-name", text: this.name(seat) }),
          h("span", { class: "ct-player-wax" }, [
            h("i", { class: "ct-drop", "aria-hidden": "true" }),
            h("span", { text: say(gettext("%(wax)s wax"), { wax: wax[seat] }) }),
          ]),
        ]),
        collected[seat].length
          ? h("ul", { class: "ct-collected-candles", "aria-label": say(gettext("Candles collected by %(name)s"), { name: this.name(seat) }) },
            sortedNumbers(collected[seat]).map((candle) => h("li", { "aria-label": candleName(candle), role: "img" },
              candleGraphic(candle, "tiny"))))
          : h("p", { class: "ct-none", text: view.finished ? gettext("No wax.") : gettext("No wax yet.") }),
      ]));
      this.collectedBody.replaceChildren(...rows);
      if (view.finished && !this.animating && !this.collectedEl.dataset.openedAtEnd) {
        this.collectedEl.open = true;
        this.collectedEl.dataset.openedAtEnd = "1";
      }
      if (!view.finished) delete this.collectedEl.dataset.openedAtEnd;
    }

    // --- playing ------------------------------------------------------------------------------

    isPlaying() {
      const game = this.game;
      if (!game) return true;
      return game.status === "playing" && (game.paused_remaining === null || game.paused_remaining === undefined);
    }

    canPick() {
      const view = this.view;
      return Boolean(view && this.seat !== null && view.hand && view.hand.length && !view.finished &&
        (view.my_pick === null || view.my_pick === undefined) && !this.pending && !this.animating && this.isPlaying());
    }

    select(candle, focus) {
      if (!this.canPick() || !this.view.hand.includes(candle)) return;
      this.selected = candle;
      this.applySelection();
      this.renderShelvesFrom(this.view.shelves, { preview: true });
      this.tips.refresh();
      if (focus) {
        const card = this.cardsEl.querySelector(`.ct-card[data-candle="${candle}"]`);
        if (card) card.focus({ preventScroll: false });
      }
    }

    playSelected() {
      if (!this.canPick() || this.selected === null) return;
      const candle = this.selected;
      this.sound("pick");
      this.lastPickSound = Date.now();
      this.sendLocked({ type: "play", candle }, { candle });
      this.ctx.announce(say(gettext("You picked %(candle)s."), { candle }));
      this.lastDigit = null;
      this.tips.hide();
      this.render();
    }

    pickSound() {
      // Bots often pick together; one soft sound for a burst is enough.
      if (Date.now() - this.lastPickSound < 200) return;
      this.lastPickSound = Date.now();
      this.sound("pick");
    }

    /* The hurry warning (TableBase.checkHurry) is for a player who has a pick to make. */
    canAct() {
      return this.canPick();
    }

    // --- input ----------------------------------------------------------------------------------

    click(event) {
      const card = event.target.closest(".ct-card");
      if (card && this.cardsEl && this.cardsEl.contains(card)) {
        this.select(Number(card.dataset.candle), false);
      }
    }

    /* Keys 1 to 6 pick the hand's first to sixth candle from anywhere on the page; the same key
       again plays it. */
    documentKey(event) {
      if (event.key === "Escape" && this.tips.isShown()) {
        this.tips.hide();
        return;
      }
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (!/^[1-6]$/.test(event.key) || !this.canPick()) return;
      const candle = this.handCards()[Number(event.key) - 1];
      if (candle === undefined) return;
      event.preventDefault();
      if (this.selected === candle && this.lastDigit === event.key) {
        this.playSelected();
        return;
      }
      this.lastDigit = event.key;
      this.select(candle, true);
    }

    rootKey(event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const card = event.target.closest(".ct-card");
      if (card) {
        this.handKey(event, card);
        return;
      }
      const shelf = event.target.closest(".ct-shelf-inner");
      if (shelf) this.shelfKey(event, shelf);
    }

    handKey(event, card) {
      const cards = Array.from(this.cardsEl.querySelectorAll(".ct-card"));
      const index = cards.indexOf(card);
      const moves = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
      let next = null;
      if (event.key in moves) next = (index + moves[event.key] + cards.length) % cards.length;
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = cards.length - 1;
      if (next !== null) {
        event.preventDefault();
        const candle = Number(cards[next].dataset.candle);
        if (this.canPick()) this.select(candle, true);
        else cards[next].focus();
        this.lastDigit = null;
        return;
      }
      if (event.key === "Enter") {
        event.preventDefault();
        const candle = Number(card.dataset.candle);
        if (this.selected !== candle) this.select(candle, false);
        this.playSelected();
      }
    }

    /* Up and down go from shelf to shelf; left and right walk the candles on one shelf. */
    shelfKey(event, shelf) {
      const shelves = Array.from(this.shelvesEl.querySelectorAll(".ct-shelf-inner"));
      const candles = Array.from(shelf.querySelectorAll(".ct-slot[data-key]"));
      const onCandle = event.target.closest(".ct-slot");
      const at = onCandle ? candles.indexOf(onCandle) : -1;
      let target = null;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        const row = shelves.indexOf(shelf) + (event.key === "ArrowDown" ? 1 : -1);
        target = shelves[row] || null;
      } else if (event.key === "ArrowRight") {
        target = candles[Math.min(candles.length - 1, at + 1)];
      } else if (event.key === "ArrowLeft") {
        target = at <= 0 ? shelf : candles[at - 1];
      } else if (event.key === "Escape" && onCandle) {
        target = shelf;
      }
      if (target) {
        event.preventDefault();
        target.focus();
      }
    }
  }

  registerTable("candles", CandlesTable, {
    scoreLabel: gettext("wax"),
    lowerIsBetter: true,
    // The table shows every player, who has picked and their wax: a room page may hide its own list.
    showsPlayers: true,
    // At each round's start, once its story is told, the table says "Round 2 of 6: pick a candle."
    // (afterRound): the room page then only plays the "turn" sound and marks the title.
    announcesTurns: true,
    // The rules' arithmetic, for tests and for anyone curious in the console.
    rules: { waxOf, shelfWax, targetShelf, leastWaxShelf, predictPlacement, rewind },
  });
})();
