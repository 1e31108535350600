/* The live room page (templates/rooms/room.html), loaded as a module: it wires the socket to the lobby,
   the table, the clock, the end of a game and the fairness panel, each in its own module:

     socket.js     the WebSocket, its seq and resync protocol (protocol.js: the decisions, with no page)
     seats.js      the lobby, the join form and the seats bar
     notices.js    the clock, the connection pill, alerts and news in words and sounds
     seeds.js      client seeds, the fairness panel, and "Play against bots" starting its game
     table-host.js the game's table: mounting and feeding it
     device.js     a game on one device: "Pass the device to NAME" between players
     ending.js     the ranking, the seed revealed, Play again
     state.js      what the page holds, shared by all; dom.js small helpers

   The protocol is in docs/protocol.md. */

import { bindPassScreen, isSameDevice, onSeatSnapshot, passDevice, renderPassScreen } from "./device.js";
import { $, gettext, make, setText, show, Sound } from "./dom.js";
import { renderEnd } from "./ending.js";
import {
  announce,
  noticeEvents,
  noticeGameOver,
  noticeSeatChanges,
  noticeTurnWhenDrawn,
  setClock,
  setConnection,
  showAlert,
  updateTimer,
  whenDrawn,
} from "./notices.js";
import { renderJoin, renderLobby, renderSeatsBar } from "./seats.js";
import {
  bindSeedControls,
  confirmSeed,
  endAutostart,
  isAutostarting,
  maybeAutostart,
  maybeSendSeed,
  renderFairness,
  setSeedStatus,
} from "./seeds.js";
import { RoomSocket } from "./socket.js";
import { config, isMyTurnIn, isOver, isPaused, link, phase, rendererImpl, state } from "./state.js";
import { bringIntoView, feedDraft, feedRefusal, feedTable } from "./table-host.js";

const BUTTON_PENDING_MS = 4000; // Start / Play again stay disabled this long waiting for an answer
const TICK_MS = 250;

let socket = null;

// --- messages from the server, in order (socket.js) -------------------------------------------------------

function onSnapshot(message) {
  const previousSeat = state.seat;
  state.seat = message.you ? message.you.seat : null;
  setClock(message.server_time);
  const previousRoom = state.room;
  const previousGame = previousSeat === state.seat ? state.game : null;
  state.room = message.room;
  state.game = message.game;
  state.view = message.view;
  state.seq = message.seq || 0;
  state.playedFor = message.played_for || null;
  state.draft = draftOf(message.draft);
  state.holdEnd = false;
  if (message.game && message.game.status !== "lobby") endAutostart();
  if (isSameDevice()) onSeatSnapshot();
  noticeSeatChanges(previousRoom, state.room);
  renderAll();
  const settled = feedTable([]);
  noticeTurnWhenDrawn(settled, turnBegins(previousGame, message.game, []), true);
  maybeSendSeed();
  maybeAutostart();
}

/* kind: "next", "same" (the seq shown: a pause, a resume, an early end, a game's start) or "new-game". */
function onUpdate(message, kind) {
  const game = message.game;
  const current = state.game;
  const sameGame = kind !== "new-game";
  let events = message.events || [];
  if (kind === "same" && current.status !== "lobby") {
    // Anything but a pause, a resume or an early end is already in what we show. (The start of a game
    // also has the lobby's seq, 0: its "start" event is news.)
    events = events.filter((event) => ["paused", "resumed", "ended"].includes(event.type));
  }
  const previousStatus = sameGame ? current.status : null;
  const begins = turnBegins(current, game, events);
  setClock(message.server_time);
  state.game = game;
  state.view = message.view;
  state.seq = message.seq;
  // A new decision clears the draft; a pause or a resume hands back the one it kept.
  const kept = events.find((event) => event.type === "paused" || event.type === "resumed");
  if (kept) state.draft = draftOf(kept.draft);
  else if (kind !== "same") state.draft = null;
  if (!sameGame) {
    state.startPendingUntil = 0;
    state.playAgainPendingUntil = 0;
  }
  if (game.status !== "lobby") endAutostart();
  const becameOver = isOver(game) && previousStatus !== null && !isOver({ status: previousStatus });
  state.holdEnd = becameOver;
  renderAll();
  noticeEvents(events, game); // "Game 2 has started" before the table's own words
  const settled = feedTable(events);
  if (becameOver) revealEndWhen(settled, game);
  noticeTurnWhenDrawn(settled, begins, false);
}

/* A kept draft as snapshots and pause events carry it ({seat, seq, draft}): the decision itself. */
function draftOf(kept) {
  return kept && kept.draft ? kept.draft : null;
}

/* The seat to act's unfinished decision, relayed to the whole room: the table shows it as it stands. */
function onDraft(message) {
  if (message.seq !== state.seq) return;
  state.draft = message.draft || null;
  feedDraft(message.seat, state.draft);
}

function revealEndWhen(settled, game) {
  whenDrawn(settled, () => {
    if (!state.holdEnd || state.game !== game) return;
    state.holdEnd = false;
    renderAll();
    noticeGameOver(game);
    bringIntoView($("end-panel"));
  });
}

function onRoom(message) {
  const room = message.room;
  if (!room) return;
  const previous = state.room;
  state.room = room;
  confirmSeed();
  noticeSeatChanges(previous, room);
  renderAll();
  maybeSendSeed();
  maybeAutostart();
}

function onServerError(message) {
  const text = message.message || gettext("Something went wrong.");
  if (message.ref === "seed") {
    if (message.code === "game_started") return; // the host started first: nothing to fix
    setSeedStatus(text, true);
    return;
  }
  if (message.ref === "start") {
    state.startPendingUntil = 0;
    endAutostart(); // the lobby and its Start button come back with the message
  }
  if (message.ref === "play_again") state.playAgainPendingUntil = 0;
  if (message.ref === "move") feedRefusal(message);
  showAlert(text, message.code === "stale_seq" || message.code === "future_seq" ? "info" : "");
  renderLobby();
  renderEnd();
}

/* Does `game` put a new decision to this player? Either they were not to act before, or they were and a
   new decision came with a new deadline (a new round once they were the last to pick). A resume also sets
   a new deadline, but for the same decision. In a turn-based game the same player deciding again (throw,
   climb, throw...) is still the same turn. */
function turnBegins(previous, game, events) {
  if (!isMyTurnIn(game) || isPaused(game)) return false;
  if (!previous || previous.number !== game.number || !isMyTurnIn(previous)) return true;
  const impl = rendererImpl();
  if (impl && impl.turnBased) return false;
  const resumed = events.some((event) => event.type === "resumed");
  return !resumed && !isPaused(previous) && game.deadline !== previous.deadline;
}

// --- drawing the page ---------------------------------------------------------------------------------------

function renderAll() {
  const now = phase();
  const starting = (now === "lobby" || now === "connecting") && isAutostarting();
  show("stage-connecting", now === "connecting" || starting);
  setText($("stage-connecting-text"), starting ? gettext("Starting the game…") : gettext("Connecting to the room…"));
  show("lobby", now === "lobby" && !starting);
  show("end-panel", now === "over" && !state.holdEnd);
  const passing = isSameDevice() && state.passTo !== null;
  show("table-area", (now === "playing" || now === "over") && !passing);
  renderPassScreen();
  renderJoin(now);
  renderLobby();
  renderSeatsBar();
  renderEnd();
  renderFairness();
  updateTimer();
}

/* The seat was taken on another device (its return code, a log-in): that device plays it, this page
   watches. Its reconnections stay spectators (?watch=1) until the player takes the seat back here. */
function onSeatElsewhere(message) {
  state.displaced = true;
  socket.url = socketUrl();
  const box = $("room-alerts");
  if (!box || $("seat-elsewhere")) return;
  const note = make("div", "alert info");
  note.id = "seat-elsewhere";
  const takeBack = make("button", "small primary", gettext("Take my seat back"));
  takeBack.type = "button";
  takeBack.addEventListener("click", () => {
    state.displaced = false;
    note.remove();
    socket.restart(socketUrl());
  });
  note.append(make("p", null, message.message || gettext("Your seat is now played on another device.")), takeBack);
  box.append(note);
  announce(message.message);
}

function renderConnection(kind) {
  setConnection(kind, socket ? socket.retryAt : 0);
  if (kind === "gone") showAlert(gettext("This room no longer exists. Reload the page to see its finished games."));
}

// --- controls -------------------------------------------------------------------------------------------------

function copyText(text, button) {
  const done = (ok) => {
    if (!button) return;
    const original = button.dataset.label || button.textContent;
    button.dataset.label = original;
    button.textContent = ok ? gettext("Copied!") : gettext("Copy failed");
    announce(ok ? gettext("Copied to the clipboard.") : gettext("Could not copy; select the text and copy it."));
    window.setTimeout(() => {
      button.textContent = original;
    }, 2000);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(
      () => done(true),
      () => done(fallbackCopy(text)),
    );
  } else {
    done(fallbackCopy(text));
  }
}

/* Plain http (a LAN game) has no clipboard API: copy through a selected, hidden text field. */
function fallbackCopy(text) {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

function renderSoundToggle() {
  const button = $("sound-toggle");
  if (!button) return;
  // The label says what a press does, so it needs no pressed state.
  button.textContent = Sound.isMuted() ? gettext("Turn sound on") : gettext("Mute sound");
  button.classList.toggle("muted", Sound.isMuted());
}

/* Start and Play again: sent once, the button waits for the answer (the new game, or an error). */
function bindRequestButton(id, type, pendingKey, redraw) {
  const button = $(id);
  if (!button) return;
  button.addEventListener("click", () => {
    if (!link.send({ type, ref: type })) {
      showAlert(gettext("You are not connected right now. Try again in a moment."));
      return;
    }
    state[pendingKey] = Date.now() + BUTTON_PENDING_MS;
    button.disabled = true;
    window.setTimeout(redraw, BUTTON_PENDING_MS + 100);
  });
}

function bindControls() {
  for (const button of document.querySelectorAll("[data-copy-target]")) {
    button.addEventListener("click", () => {
      const input = $(button.dataset.copyTarget);
      if (input) copyText(input.value, button);
    });
  }
  for (const button of document.querySelectorAll("[data-copy-text]")) {
    button.addEventListener("click", () => copyText(button.dataset.copyText, button));
  }
  const share = $("share-link");
  if (share) share.addEventListener("focus", () => share.select());
  bindRequestButton("start-button", "start", "startPendingUntil", renderLobby);
  bindRequestButton("play-again", "play_again", "playAgainPendingUntil", renderEnd);
  bindSeedControls();
  bindPassScreen();

  const sound = $("sound-toggle");
  if (sound && window.WickwiseSound) {
    sound.addEventListener("click", () => {
      window.WickwiseSound.toggle();
      if (!Sound.isMuted()) Sound.play("pick");
    });
    // The button's words follow the sound however it was switched (a table's M key, say).
    window.WickwiseSound.onChange(renderSoundToggle);
    renderSoundToggle();
  } else if (sound) {
    sound.hidden = true;
  }

  const retry = $("connection-retry");
  if (retry) retry.addEventListener("click", () => socket.reconnectNow());
  const reload = $("table-reload");
  if (reload) reload.addEventListener("click", () => window.location.reload());
  window.addEventListener("online", () => socket.reconnectNow());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") socket.reconnectNow();
  });
}

function tick() {
  updateTimer();
  if ($("connection") && $("connection").dataset.state === "waiting") renderConnection("waiting");
}

function socketUrl() {
  const base = (window.location.protocol === "https:" ? "wss://" : "ws://") + window.location.host + config.socket;
  return state.displaced ? `${base}?watch=1` : base;
}

function start() {
  socket = new RoomSocket({
    url: socketUrl(),
    handlers: {
      snapshot: onSnapshot,
      update: onUpdate,
      room: onRoom,
      error: onServerError,
      status: renderConnection,
      elsewhere: onSeatElsewhere,
      passDevice: (message) => {
        passDevice(message);
        renderAll();
        feedTable([]); // takes the table down before the update that follows is drawn
      },
      draft: onDraft,
      lost: () => announce(gettext("Connection lost. Reconnecting…")),
      back: () => announce(gettext("Connected again.")),
    },
  });
  link.send = (message) => socket.send(message);
  link.renderAll = renderAll;
  bindControls();
  renderAll();
  socket.start();
  window.setInterval(tick, TICK_MS);

  // For tests and the curious: a read-only look at what the client holds.
  window.WickwiseRoom = {
    state: () => ({
      seat: state.seat,
      passTo: state.passTo,
      seq: state.seq,
      room: state.room,
      game: state.game,
      connected: socket.connected,
    }),
  };
}

if (config) start();
