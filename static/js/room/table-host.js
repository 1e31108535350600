/* Hosting the game's table (static/<game>/table.js, built on static/js/tablekit.js) inside #table: mounting
   it for each game and seat, feeding it every snapshot and update, and saying so when it failed to load.

   A table is window.WickwiseGames[slug] = { scoreLabel, lowerIsBetter, showsPlayers, announcesTurns,
   mount(container, ctx) -> { update, destroy } }, and optionally scoreText(score), scoreRule and
   turnBased (docs/architecture.md). update(view, events, game) is called on each snapshot (events = [])
   and each update; it may return a promise that settles when that update is drawn. The room never
   handles keys: the table may use any key page-wide (candles: 1 to 6). */

import { $, gettext, show, Sound } from "./dom.js";
import { announce, showAlert, timeLeft } from "./notices.js";
import { config, link, playerLabel, players, rendererImpl, state } from "./state.js";

const RENDERER_WAIT_MS = 15000;
const RENDERER_RETRY_MS = 300;

// table.js is a plain script placed before the modules: if its renderer is missing now, it failed to load
// or to run (this replaces an onerror attribute, which a strict Content Security Policy forbids).
const tableScript = document.querySelector("script[data-game-table]");
const tableFailedToLoad = Boolean(tableScript && !tableScript.async && !tableScript.defer && !rendererImpl());

let renderer = null;
let rendererKey = null;
let rendererWaitStarted = 0;
let rendererWaitTimer = null;

function rendererContext() {
  return {
    seat: state.seat,
    // What the server and the table must agree on (the move's answer time, a game's pace).
    settings: config.table || {},
    players,
    playerLabel,
    playedFor: () => state.playedFor,
    sendMove(action) {
      const sent = link.send({ type: "move", seq: state.seq, action, ref: "move" });
      if (!sent) showAlert(gettext("You are not connected right now, so that move was not sent. Reconnecting…"));
      return sent;
    },
    // Games with drafts and pauses (tiles): the live draft, sharing one's own, pausing and resuming.
    draft: () => state.draft,
    sendDraft(draft) {
      return link.send({ type: "draft", seq: state.seq, draft });
    },
    sendPause(paused) {
      const sent = link.send({ type: paused ? "pause" : "resume", ref: paused ? "pause" : "resume" });
      if (!sent) showAlert(gettext("You are not connected right now. Try again in a moment."));
      return sent;
    },
    announce,
    sound: { play: (name) => Sound.play(name) },
    timeLeft,
  };
}

function unmount() {
  if (!renderer) return;
  try {
    if (typeof renderer.destroy === "function") renderer.destroy();
  } catch (error) {
    console.error(error);
  }
  renderer = null;
  rendererKey = null;
  $("table").textContent = "";
}

function showTableLoading(visible, failed) {
  show("table-loading", visible);
  if (!visible) return;
  $("table-loading-text").textContent = failed
    ? gettext("The table could not be loaded. Please reload the page.")
    : gettext("Loading the table…");
  show("table-reload", Boolean(failed));
  const spinner = document.querySelector("#table-loading .spinner");
  if (spinner) spinner.hidden = Boolean(failed);
}

/* The seat's hand a table shows, and whether every hand is hidden, as the page hosting the room sets them
   (a game on one device shows the hand of the seat to act and hides all between turns). A table that
   has no hands ignores them. */
const handControl = { seat: null, hidden: false };

export function showHandOf(seat) {
  handControl.seat = seat;
  if (renderer && renderer.showHandOf) renderer.showHandOf(seat);
}

export function hideHands(hidden) {
  handControl.hidden = Boolean(hidden);
  if (renderer && renderer.hideHands) renderer.hideHands(handControl.hidden);
}

/* A draft relayed by the room (the seat to act's unfinished decision) for the table to show. */
export function feedDraft(seat, draft) {
  if (renderer && renderer.draft) renderer.draft(seat, draft);
}

/* A move the server refused (its code and details, e.g. the lines a tiles play got wrong), for the table. */
export function feedRefusal(message) {
  if (renderer && renderer.refused) renderer.refused(message);
}

/* Hands the table what the room now holds; returns what its update() returned (a promise, perhaps). */
export function feedTable(events) {
  const game = state.game;
  // Same device, between players: no table, so no hand is in the page while the device changes hands.
  if (!game || game.status === "lobby" || !state.view || state.passTo !== null) {
    unmount();
    showTableLoading(false);
    return null;
  }
  if (state.rendererFailed) return null;
  const impl = rendererImpl();
  if (!impl) {
    waitForTable();
    return null;
  }
  showTableLoading(false);
  // A new game or a new seat gets a fresh table.
  const key = `${game.number}:${state.seat}`;
  if (renderer && rendererKey !== key) unmount();
  try {
    if (!renderer) {
      renderer = impl.mount($("table"), rendererContext());
      rendererKey = key;
      if (handControl.seat !== null && renderer.showHandOf) renderer.showHandOf(handControl.seat);
      if (handControl.hidden && renderer.hideHands) renderer.hideHands(true);
      if (game.status === "playing") window.requestAnimationFrame(bringTableIntoView);
    }
    return renderer.update(state.view, events, game);
  } catch (error) {
    console.error("the table renderer failed", error);
    if (!renderer) {
      state.rendererFailed = true;
      showTableLoading(true, true);
    }
    return null;
  }
}

function waitForTable() {
  if (tableFailedToLoad) {
    state.rendererFailed = true;
    showTableLoading(true, true);
    return;
  }
  showTableLoading(true, false);
  if (!rendererWaitStarted) rendererWaitStarted = Date.now();
  if (Date.now() - rendererWaitStarted > RENDERER_WAIT_MS) {
    showTableLoading(true, true);
    return;
  }
  window.clearTimeout(rendererWaitTimer);
  rendererWaitTimer = window.setTimeout(() => feedTable([]), RENDERER_RETRY_MS);
}

/* A phone shows the room's header above the table: when a game starts there, the table moves up to just
   below the sticky status bar, so the whole table (on candles: the shelves, the hand and Play) is on
   one screen. A page the player has already scrolled, or is typing in, stays where it is. */
function bringTableIntoView() {
  const area = $("table-area");
  if (!area || area.hidden || !window.matchMedia("(max-width: 48rem)").matches) return;
  const active = document.activeElement;
  if (window.scrollY > 0 || (active && active.closest && active.closest("input, textarea, select"))) return;
  area.scrollIntoView({ block: "start", behavior: "auto" }); // its scroll-margin-top leaves the bar room
}

/* The end of a game appears above the table: on a small screen the player is looking further down. */
export function bringIntoView(node) {
  if (!node || node.hidden) return;
  const box = node.getBoundingClientRect();
  if (box.top >= 0 && box.top < window.innerHeight / 2) return;
  const active = document.activeElement;
  if (active && active.closest && active.closest("input, textarea, select")) return;
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  node.scrollIntoView({ behavior: reduced ? "auto" : "smooth", block: "start" });
}
