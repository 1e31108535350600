/* The clock and what the room tells its players: the countdown (deadlines come in server time), the
   connection pill, the live region for screen readers, alerts, and the news of seats, turns and ends in
   words and sounds. */

import { $, gettext, make, say, setText, show, Sound } from "./dom.js";
import { isMyTurn, isPaused, phase, playerLabel, rendererImpl, state } from "./state.js";

const MAX_ALERTS = 3;
const END_HOLD_MS = 10000; // the longest the room waits for the table's last animations
const URGENT_SECONDS = 5;
const WARN_AT_SECONDS = 10;

// --- the clock --------------------------------------------------------------------------------------

let clockOffset = 0; // server clock minus local clock, in seconds

export function setClock(serverTime) {
  if (typeof serverTime === "number") clockOffset = serverTime - Date.now() / 1000;
}

function serverNow() {
  return Date.now() / 1000 + clockOffset;
}

export function timeLeft() {
  const game = state.game;
  if (!game || game.status !== "playing") return null;
  if (isPaused(game)) return game.paused_remaining;
  if (!game.deadline) return null;
  return Math.max(0, game.deadline - serverNow());
}

let lastTickSecond = null;
let warnedDeadline = null;

export function updateTimer() {
  const timer = $("timer");
  const game = state.game;
  if (!timer) return;
  let left = phase() === "playing" && game ? timeLeft() : null;
  show(timer, left !== null);
  renderStatusBar();
  if (left === null) return;
  const paused = isPaused(game);
  const total = game.decision_seconds || left || 1;
  // A countdown posed by a reveal has the reveal's time on top: the clock holds at the full time while
  // the table tells it, then runs (GameSpec.countdown_seconds).
  left = Math.min(left, total);
  const seconds = Math.ceil(left);
  timer.classList.toggle("paused", paused);
  timer.classList.toggle("urgent", !paused && left <= URGENT_SECONDS);
  $("timer-fill").style.width = `${Math.max(0, Math.min(100, (left / total) * 100))}%`;
  setText(
    $("timer-text"),
    paused
      ? say(gettext("Paused · %(seconds)s s left"), { seconds })
      : say(gettext("%(seconds)s s left"), { seconds }),
  );
  if (paused || !isMyTurn() || !state.turnShown) return;
  if (seconds <= URGENT_SECONDS && seconds > 0 && seconds !== lastTickSecond) Sound.play("tick");
  lastTickSecond = seconds;
  if (seconds === WARN_AT_SECONDS && warnedDeadline !== game.deadline) {
    warnedDeadline = game.deadline;
    announce(gettext("10 seconds left to decide."));
  }
}

/* A table that shows its players (showsPlayers) makes the seats bar a repeat: during play the room then
   keeps a compact bar with the timer, the pause and a lost connection, sticky on small screens. */
export function tableShowsPlayers() {
  const impl = rendererImpl();
  return Boolean(impl && impl.showsPlayers && !state.rendererFailed);
}

export function renderStatusBar() {
  const bar = $("play-status");
  if (!bar) return;
  const now = phase();
  const compact = tableShowsPlayers();
  const offline = $("connection") && $("connection").dataset.state !== "open";
  bar.classList.toggle("compact", compact);
  show("seats-bar", !compact);
  show("status-connection", compact && offline);
  const visible = compact ? now === "playing" && (!$("timer").hidden || offline) : now === "playing" || now === "over";
  show(bar, visible);
}

// --- the connection, in words -------------------------------------------------------------------------

/* kind: "connecting", "open", "waiting" (a new attempt at retryAt), "gone". */
export function setConnection(kind, retryAt) {
  const box = $("connection");
  if (!box) return;
  box.dataset.state = kind;
  document.body.classList.toggle("room-offline", kind !== "open"); // what is shown may be stale
  let text = { connecting: gettext("Connecting…"), open: gettext("Live"), gone: gettext("Room closed") }[kind];
  if (kind === "waiting") {
    const seconds = Math.max(0, Math.ceil(((retryAt || 0) - Date.now()) / 1000));
    if (navigator.onLine === false) text = gettext("Offline: waiting for the network…");
    else if (seconds > 0) text = say(gettext("Reconnecting in %(seconds)s s…"), { seconds });
    else text = gettext("Reconnecting…");
  }
  $("connection-text").textContent = text;
  setText($("status-connection-text"), text || "");
  const mirror = $("status-connection");
  if (mirror) mirror.dataset.state = kind;
  show("connection-retry", kind === "waiting");
  renderStatusBar();
}

// --- live region and alerts ---------------------------------------------------------------------------

export function announce(text) {
  const region = $("room-announcer");
  if (!region || !text) return;
  region.append(make("p", null, String(text)));
  while (region.childNodes.length > 4) region.firstChild.remove();
}

export function showAlert(text, kind) {
  const box = $("room-alerts");
  if (!box) return;
  const last = box.lastElementChild;
  if (last && last.dataset.text === text) last.remove(); // the same words again: move them last
  const alert = make("div", `alert${kind ? ` ${kind}` : ""}`);
  alert.dataset.text = text;
  alert.append(make("p", null, text));
  const dismiss = make("button", "small", "×");
  dismiss.type = "button";
  dismiss.setAttribute("aria-label", gettext("Dismiss this message"));
  dismiss.addEventListener("click", () => dismissAlert(alert));
  alert.append(dismiss);
  box.append(alert);
  while (box.children.length > MAX_ALERTS) box.firstElementChild.remove();
}

function dismissAlert(alert) {
  const next = alert.nextElementSibling || alert.previousElementSibling;
  alert.remove();
  const target = next ? next.querySelector("button") : $("main");
  if (target) target.focus();
}

// --- news -----------------------------------------------------------------------------------------------

export function noticeSeatChanges(before, after) {
  if (!before || !after || !after.seats) return;
  if (before.host !== after.host) noticeNewHost(after.host);
  after.seats.forEach((seat, index) => {
    const old = before.seats[index];
    if (!old) return;
    if (!old.taken && seat.taken && !seat.bot && index !== state.seat) {
      announce(say(gettext("%(name)s took seat %(n)s."), { name: seat.name, n: index + 1 }));
    }
    if (!old.stand_in && seat.stand_in) {
      announce(say(gettext("A bot plays for %(name)s until they are back."), { name: seat.name }));
    } else if (old.stand_in && !seat.stand_in && !seat.bot) {
      announce(say(gettext("%(name)s is back."), { name: seat.name }));
    }
  });
}

/* The host was away past the grace period: the role passed to a player who is here. Shown to everyone,
   as the lobby's and the end's buttons and waiting words change with it. */
function noticeNewHost(host) {
  const text =
    host === state.seat
      ? gettext("The host is away, so you are the host now: you start the games.")
      : say(gettext("The host is away, so %(name)s is the host now."), { name: playerLabel(host) });
  announce(text);
  showAlert(text, "info");
}

export function noticeEvents(events, game) {
  for (const event of events) {
    if (event.type === "start") announce(say(gettext("Game %(n)s has started."), { n: game.number }));
    else if (event.type === "paused") announce(gettext("The game is paused."));
    else if (event.type === "resumed") announce(gettext("The game goes on."));
  }
}

export function noticeGameOver(game) {
  Sound.play("end");
  if (game.status === "ended") {
    announce(gettext("The game ended early. Its seed is now revealed."));
    return;
  }
  const winners = (game.result || []).filter((row) => row.place === 1);
  const mine = winners.some((row) => row.seat === state.seat);
  const names = winners.map((row) => playerLabel(row.seat)).join(", ");
  announce(
    mine && winners.length === 1
      ? gettext("Game over. You won!")
      : say(gettext("Game over. First place: %(names)s."), { names }),
  );
}

/* A table's update() may return a promise that settles when that update is drawn, after its animation:
   what the room says about it waits for that (at most END_HOLD_MS), so that neither the ranking nor
   "your turn" spoils candles still in the air. */
export function whenDrawn(settled, then) {
  if (settled && typeof settled.then === "function") {
    const timeout = new Promise((resolve) => window.setTimeout(resolve, END_HOLD_MS));
    Promise.race([settled, timeout]).then(then, then);
  } else {
    then();
  }
}

/* "Your turn" (sound, words, title) once the table shows the decision, not when the update arrives: a
   round's candles are still being placed then. By the time it is drawn the turn may be over. */
export function noticeTurnWhenDrawn(settled, begins, fromSnapshot) {
  if (begins || !isMyTurn()) {
    state.turnShown = false; // the decision marked in the title is over (a new one is shown when drawn)
    updateTitle();
  }
  whenDrawn(settled, () => {
    const mine = isMyTurn() && !isPaused(state.game);
    if (begins && mine) {
      Sound.play("turn");
      const impl = rendererImpl();
      // A table that announces turns does so for its updates; a snapshot brings no events to tell.
      if (!(impl && impl.announcesTurns) || fromSnapshot) announce(gettext("Your turn to decide."));
    }
    state.turnShown = isMyTurn();
    updateTitle();
  });
}

const baseTitle = document.title;

function updateTitle() {
  const title = (state.turnShown && isMyTurn() ? "● " : "") + baseTitle;
  if (document.title !== title) document.title = title;
}
