/*
 * What every game table shares (docs/architecture.md, "One platform, several games"): a small DOM
 * builder, the hidden descriptions that aria-describedby points at, keeping the keyboard in place
 * across a redraw, the tooltips (mouse hover, keyboard focus, long press on touch), TableBase, the
 * lifecycle every table extends (its events, timers, who is who, the update queue, the lock on a move
 * waiting for its answer, destroy), and registerTable, which mounts a table for the room page.
 * Its styles are in tablekit.css beside this file.
 *
 * The room page loads this file before the game's table.js:
 *   window.WickwiseTableKit = { h, replaceDescs, withFocusKept, rectWithin, describedText,
 *                               prefersReducedMotion, isTyping, Tooltips, TableBase, registerTable }
 */
(function () {
  "use strict";

  const LONG_PRESS_MS = 450;
  const HOVER_DELAY_MS = 180;
  const POINTER_LEAVE_MS = 140; // time to move from an element onto its tooltip
  const PRESS_SLOP_PX = 10; // a finger that moves further is scrolling, not pressing
  const CONTEXT_MENU_AFTER_TOUCH_MS = 1200;
  const HURRY_SECONDS = 5; // the table turns urgent when this little of the player's time is left
  const HURRY_CHECK_MS = 500;
  // What the server tells a table through the room page (ctx.settings, from rooms/views.py); these
  // stand in for a table mounted without a room, as in tests.
  const DEFAULT_SETTINGS = { moveAnswerSeconds: 5 };

  // --- small DOM helpers ---------------------------------------------------------------------

  /* h("button", {class, text, onclick, "aria-label": ...}, children): null, undefined and false
     props and children are left out, so that optional parts can be written inline. */
  function h(tag, props, children) {
    const node = document.createElement(tag);
    Object.entries(props || {}).forEach(([key, value]) => {
      if (value === null || value === undefined || value === false) return;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      // Through the CSSOM: a style attribute would be refused by the pages' Content-Security-Policy.
      else if (key === "style") node.style.cssText = String(value);
      else node.setAttribute(key, value === true ? "" : String(value));
    });
    [].concat(children || []).forEach((child) => {
      if (child !== null && child !== undefined && child !== false) node.append(child);
    });
    return node;
  }

  /* The descriptions live in one hidden holder, a group per section, so that a section redraws its own
     without touching the others'. */
  function replaceDescs(holder, group, nodes) {
    let box = holder.querySelector(`[data-group="${group}"]`);
    if (!box) {
      box = h("div", { "data-group": group });
      holder.append(box);
    }
    box.replaceChildren(...nodes);
  }

  /* Rebuilding a section keeps the keyboard where it was: same data-key, else `fallback()`. */
  function withFocusKept(section, rebuild, fallback) {
    const active = document.activeElement;
    const inside = active && section.contains(active);
    const key = inside && active.dataset ? active.dataset.key : null;
    rebuild();
    if (!inside) return;
    const again = (key && section.querySelector(`[data-key="${key}"]`)) || (fallback && fallback());
    if (again) again.focus({ preventScroll: true });
  }

  /* A node's box in the coordinates of `origin` (the table's root, where effects and tooltips sit). */
  function rectWithin(node, origin) {
    const box = node.getBoundingClientRect();
    const base = origin.getBoundingClientRect();
    return { x: box.left - base.left, y: box.top - base.top, width: box.width, height: box.height };
  }

  /* The words a screen reader hears for `target` (its aria-describedby), or null when there are none. */
  function describedText(target) {
    const desc = document.getElementById(target.getAttribute("aria-describedby"));
    return desc && desc.textContent ? desc.textContent : null;
  }

  function prefersReducedMotion() {
    return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }

  function isTyping(target) {
    return Boolean(target && target.closest && target.closest("input, textarea, select, [contenteditable]"));
  }

  // --- tooltips -------------------------------------------------------------------------------

  /*
   * One tooltip element for a whole table. Any element inside `root` with a data-tip attribute and a
   * data-key has one: shown after a short hover, on keyboard focus (not on a click's focus) and on a
   * long press; `content(target)` gives its words (null: no tooltip). The element carries the class
   * ww-tip (static/css/site.css) and sits inside `root`, which must be positioned.
   *
   *   const tips = new Tooltips(root, tipEl, (target) => describedText(target));
   *   tips.refresh() after a redraw; tips.hide(); tips.isShown(); tips.destroy()
   */
  class Tooltips {
    constructor(root, tipEl, content, options) {
      const settings = options || {};
      this.root = root;
      this.tipEl = tipEl;
      this.content = content;
      this.longPressMs = settings.longPressMs || LONG_PRESS_MS;
      this.hoverDelayMs = settings.hoverDelayMs || HOVER_DELAY_MS;
      this.anchorKey = null;
      this.showTimer = 0;
      this.hideTimer = 0;
      this.press = null;
      this.lastTouch = 0;
      this.destroyed = false;
      this.bindEvents();
    }

    bindEvents() {
      const root = this.root;
      this.onDocumentTouch = (event) => {
        if (!root.contains(event.target)) this.hide(); // a tap elsewhere on the page closes it
      };
      document.addEventListener("touchstart", this.onDocumentTouch, { passive: true });
      root.addEventListener("pointerover", (event) => this.pointerOver(event));
      root.addEventListener("pointerout", (event) => this.pointerOut(event));
      root.addEventListener("focusin", (event) => this.focusIn(event));
      root.addEventListener("focusout", () => this.scheduleHide(0));
      root.addEventListener("touchstart", (event) => this.touchStart(event), { passive: true });
      root.addEventListener("touchmove", (event) => this.touchMove(event), { passive: true });
      root.addEventListener("touchend", (event) => this.touchEnd(event));
      root.addEventListener("touchcancel", () => this.cancelPress());
      root.addEventListener("contextmenu", (event) => this.contextMenu(event));
    }

    destroy() {
      this.destroyed = true;
      document.removeEventListener("touchstart", this.onDocumentTouch);
      window.clearTimeout(this.showTimer);
      window.clearTimeout(this.hideTimer);
      this.cancelPress();
    }

    targetOf(node) {
      return node && node.closest ? node.closest("[data-tip]") : null;
    }

    isShown() {
      return !this.tipEl.hidden;
    }

    pointerOver(event) {
      if (event.pointerType === "touch") return;
      const target = this.targetOf(event.target);
      if (!target) return;
      window.clearTimeout(this.hideTimer);
      window.clearTimeout(this.showTimer);
      if (this.anchorKey === target.dataset.key && this.isShown()) return;
      this.showTimer = window.setTimeout(() => this.show(target), this.hoverDelayMs);
    }

    pointerOut(event) {
      if (event.pointerType === "touch") return;
      const target = this.targetOf(event.target);
      const into = event.relatedTarget;
      if (target && into && (target.contains(into) || this.tipEl.contains(into))) return;
      window.clearTimeout(this.showTimer);
      if (this.tipEl.contains(event.target) && into && this.tipEl.contains(into)) return;
      this.scheduleHide(POINTER_LEAVE_MS);
    }

    /* Focus from the keyboard shows the tooltip; focus from a click or a tap does not. */
    focusIn(event) {
      const target = this.targetOf(event.target);
      if (!target) return;
      let keyboard = true;
      try {
        keyboard = target.matches(":focus-visible");
      } catch {
        keyboard = true;
      }
      if (keyboard) this.show(target);
    }

    touchStart(event) {
      this.lastTouch = Date.now();
      const target = this.targetOf(event.target);
      this.cancelPress();
      if (!target) {
        if (!this.tipEl.contains(event.target)) this.hide();
        return;
      }
      if (this.anchorKey && this.anchorKey !== target.dataset.key) this.hide();
      const touch = event.touches[0];
      this.press = {
        x: touch.clientX, y: touch.clientY, shown: false,
        timer: window.setTimeout(() => {
          this.press.shown = true;
          this.show(target);
          if (navigator.vibrate) navigator.vibrate(8);
        }, this.longPressMs),
      };
    }

    touchMove(event) {
      const press = this.press;
      if (!press || press.shown) return;
      const touch = event.touches[0];
      if (Math.abs(touch.clientX - press.x) > PRESS_SLOP_PX || Math.abs(touch.clientY - press.y) > PRESS_SLOP_PX) {
        this.cancelPress();
      }
    }

    touchEnd(event) {
      const press = this.press;
      this.lastTouch = Date.now();
      if (press && press.shown && event.cancelable) event.preventDefault(); // a long press is not a tap
      this.cancelPress();
    }

    cancelPress() {
      if (this.press) window.clearTimeout(this.press.timer);
      this.press = null;
    }

    contextMenu(event) {
      // A long press on a phone opens the context menu; the tooltip is what the finger asked for.
      if (Date.now() - this.lastTouch < CONTEXT_MENU_AFTER_TOUCH_MS && event.target.closest("[data-tip]")) {
        event.preventDefault();
      }
    }

    show(target) {
      if (this.destroyed || !target.isConnected) return;
      const text = this.content(target);
      if (text === null || text === undefined || text === "") return;
      window.clearTimeout(this.hideTimer);
      this.tipEl.textContent = text;
      this.tipEl.hidden = false;
      this.anchorKey = target.dataset.key;
      this.place(target);
    }

    /* Centred on its element, above it when there is room in the window, else below; never past the
       table's sides. The arrow points at the element's centre. */
    place(target) {
      const anchor = rectWithin(target, this.root);
      const width = this.root.clientWidth;
      const tip = this.tipEl;
      tip.style.maxWidth = Math.min(320, width - 16) + "px";
      const tipWidth = tip.offsetWidth;
      const tipHeight = tip.offsetHeight;
      const left = Math.max(8, Math.min(width - tipWidth - 8, anchor.x + anchor.width / 2 - tipWidth / 2));
      const above = target.getBoundingClientRect().top - tipHeight - 10 >= 0;
      tip.dataset.side = above ? "above" : "below";
      tip.style.left = left + "px";
      tip.style.top = (above ? anchor.y - tipHeight - 8 : anchor.y + anchor.height + 8) + "px";
      tip.style.setProperty("--ww-tip-arrow-x", anchor.x + anchor.width / 2 - left + "px");
    }

    scheduleHide(ms) {
      window.clearTimeout(this.hideTimer);
      this.hideTimer = window.setTimeout(() => this.hide(), ms);
    }

    hide() {
      window.clearTimeout(this.showTimer);
      this.tipEl.hidden = true;
      this.anchorKey = null;
    }

    /* After a redraw the tooltip follows its element (same key), or goes away with it. */
    refresh() {
      if (!this.isShown() || !this.anchorKey) return;
      const target = this.root.querySelector(`[data-key="${this.anchorKey}"]`);
      if (target) this.show(target);
      else this.hide();
    }
  }

  // --- the table's lifecycle --------------------------------------------------------------------

  /*
   * What every game table does between mount and destroy: its timers, who is who, and the update queue
   * that draws one update at a time (animated or at once) and settles its promise when drawn.
   *
   * A table extends it and supplies shouldAnimate(item), animate(item) and show(item) (or its own
   * tell(item)), canAct() for the hurry warning, render() for when a move's lock lapses, and
   * documentKey(event) (plus click(event) and rootKey(event) if it takes them); it sets this.root and
   * this.tipEl while it builds, then calls bindEvents(). `label` names the table in console errors.
   */
  class TableBase {
    constructor(ctx, label) {
      this.ctx = ctx;
      this.label = label;
      this.settings = Object.assign({}, DEFAULT_SETTINGS, ctx.settings || {});
      this.pending = null; // a move sent and not yet answered: {until, ...what the table keeps of it}
      this.playedFor = null;
      this.queue = [];
      this.busy = false;
      this.animating = false;
      this.skipping = false;
      this.destroyed = false;
      this.wakers = new Set(); // resolvers of pending sleeps, so skip() can end them early
      this.animations = new Set();
      this.timers = new Set();
    }

    /* Keys page-wide, clicks and keys on the table, the tooltips (by default each element's description)
       and the hurry check. */
    bindEvents(tipContent) {
      this.onDocumentKey = (event) => this.documentKey(event);
      document.addEventListener("keydown", this.onDocumentKey);
      if (this.click) this.root.addEventListener("click", (event) => this.click(event));
      if (this.rootKey) this.root.addEventListener("keydown", (event) => this.rootKey(event));
      this.tips = new Tooltips(this.root, this.tipEl, tipContent || describedText);
      this.hurryTimer = window.setInterval(() => this.checkHurry(), HURRY_CHECK_MS);
    }

    destroy() {
      this.destroyed = true;
      this.skip();
      document.removeEventListener("keydown", this.onDocumentKey);
      window.clearInterval(this.hurryTimer);
      this.timers.forEach((timer) => window.clearTimeout(timer));
      this.tips.destroy();
      this.root.remove();
    }

    /* A timeout that is cleared on destroy and never fires into a removed table. */
    later(ms, fn) {
      const timer = window.setTimeout(() => {
        this.timers.delete(timer);
        if (!this.destroyed) fn();
      }, ms);
      this.timers.add(timer);
      return timer;
    }

    sound(name) {
      try {
        if (this.ctx.sound) this.ctx.sound.play(name);
      } catch {
        // Sound is a nicety; a failing audio context must never stop the table.
      }
    }

    /* M: the room's own sound button, so that its label follows; without it, the sound module. */
    toggleSound() {
      const button = document.getElementById("sound-toggle");
      const sound = window.WickwiseSound;
      if (button && !button.hidden) button.click();
      else if (sound) sound.toggle();
      else return;
      if (sound) this.ctx.announce(sound.isMuted() ? window.gettext("Sound off.") : window.gettext("Sound on."));
    }

    /* A pause inside an animation that skip() can cut short. */
    sleep(ms) {
      if (this.skipping || ms <= 0) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = () => {
          window.clearTimeout(timer);
          this.wakers.delete(wake);
          resolve();
        };
        const timer = window.setTimeout(wake, ms);
        this.wakers.add(wake);
      });
    }

    /* Jump every running animation and pause to its end. */
    skip() {
      this.skipping = true;
      this.animations.forEach((animation) => {
        try {
          animation.finish();
        } catch {
          animation.cancel();
        }
      });
      Array.from(this.wakers).forEach((wake) => wake());
    }

    // a move waiting for its answer

    /* Sends a move and locks the table's controls (this.pending, which the table clears when an update
       or a snapshot answers it) for as long as the server lets a move wait for its answer: past that the
       server has refused it (move_unanswered), so the controls come back. */
    sendLocked(action, keep) {
      const waitMs = this.settings.moveAnswerSeconds * 1000;
      this.pending = Object.assign({}, keep, { until: Date.now() + waitMs });
      const sent = this.ctx.sendMove(action);
      this.later(waitMs + 50, () => {
        if (this.pending && this.pending.until <= Date.now()) {
          this.pending = null;
          if (!this.animating) this.render();
        }
      });
      return sent;
    }

    // who is who

    get seat() {
      return this.ctx.seat === null || this.ctx.seat === undefined ? null : this.ctx.seat;
    }

    name(seat) {
      try {
        return this.ctx.playerLabel(seat);
      } catch {
        return window.interpolate(window.gettext("Seat %(seat)s"), { seat: seat + 1 }, true);
      }
    }

    playerInfo(seat) {
      const players = (this.ctx.players && this.ctx.players()) || [];
      return players[seat] || {};
    }

    /* A bot's mark beside its name, or the mark of a bot playing for an absent player beside theirs: an
       element, which no name can make (the server also refuses names that read as a bot's). */
    botBadge(seat) {
      const player = this.playerInfo(seat);
      if (!player.bot && !player.stand_in) return null;
      const standIn = !player.bot;
      return h("span", {
        class: "tk-bot" + (standIn ? " is-stand-in" : ""),
        title: standIn ? window.gettext("A bot plays this seat until its player is back.") : null,
      }, [
        h("span", { "aria-hidden": "true", text: standIn ? window.gettext("bot playing") : window.gettext("bot") }),
        h("span", { class: "tk-visually-hidden", text: standIn ? window.gettext(", a bot plays for them") : window.gettext(", a bot") }),
      ]);
    }

    // who decided for this seat

    /* this.playedFor: who made this seat's last decision when its player did not ("stand_in": a bot while
       they were away; "table": the table when time ran out), or null. An update says so with a
       played_for event; a snapshot (no events) with the room's word (ctx.playedFor); the player's own
       answered move clears it. */
    notePlayedFor(events) {
      const forMe = events.find((event) => event.type === "played_for" && event.seat === this.seat);
      if (forMe) {
        this.playedFor = forMe.by;
        this.ctx.announce(forMe.by === "table"
          ? window.gettext("Time ran out: the table decided for you.")
          : window.gettext("A bot decided for you while you were away."));
      } else if (!events.length) {
        this.playedFor = this.ctx.playedFor ? this.ctx.playedFor() : null;
      } else if (this.pending) {
        this.playedFor = null;
      }
    }

    // the update queue

    /* Returns a promise that settles once this update is drawn, after its animation if any. */
    update(view, events, game) {
      if (this.destroyed) return Promise.resolve();
      this.notePlayedFor(events || []);
      return new Promise((resolve) => {
        this.queue.push({ view, events: events || [], game, done: resolve });
        if (!this.busy) this.drain();
      });
    }

    async drain() {
      this.busy = true;
      while (this.queue.length && !this.destroyed) {
        const item = this.queue.shift();
        try {
          const telling = this.tell(item);
          if (telling) await telling; // only an animation is waited for: a plain draw settles at once
        } catch (error) {
          // A broken animation must not lose the update: draw it plainly.
          if (window.console) console.error(this.label + ":", error);
          this.animating = false;
          this.show(item);
        }
        item.done();
      }
      this.busy = false;
      this.queue.splice(0).forEach((item) => item.done()); // destroyed: nothing more to wait for
    }

    /* One update, drawn: animated when the table says so (a promise), else at once (null). */
    tell(item) {
      if (this.shouldAnimate(item)) return this.animate(item);
      this.show(item);
      return null;
    }

    checkHurry() {
      let hurry = false;
      if (this.canAct() && this.ctx.timeLeft) {
        const left = this.ctx.timeLeft();
        hurry = left !== null && left !== undefined && left <= HURRY_SECONDS;
      }
      this.root.classList.toggle("is-hurry", hurry);
    }
  }

  // --- mounting -----------------------------------------------------------------------------------

  /* Makes a table class the renderer of its game for the room page (static/js/room/table-host.js):
     `about` holds what the room asks of the game (scoreLabel, lowerIsBetter, showsPlayers, ...). */
  function registerTable(slug, TableClass, about) {
    window.WickwiseGames = window.WickwiseGames || {};
    window.WickwiseGames[slug] = Object.assign({}, about, {
      mount(container, ctx) {
        const table = new TableClass(container, ctx);
        const mounted = {
          update: (view, events, game) => table.update(view, events, game),
          destroy: () => table.destroy(),
        };
        // Optional parts a table may have: drafts relayed by the room, and which hand it shows.
        ["draft", "refused", "showHandOf", "hideHands"].forEach((part) => {
          if (typeof table[part] === "function") mounted[part] = (...args) => table[part](...args);
        });
        return mounted;
      },
    });
    return window.WickwiseGames[slug];
  }

  window.WickwiseTableKit = {
    h, replaceDescs, withFocusKept, rectWithin, describedText, prefersReducedMotion, isTyping, Tooltips, TableBase,
    registerTable,
  };
})();
