/* Client seeds and the fairness panel: the fingerprints of the game in play and the next one, this
   player's seed for the next game (made at random in the browser, or typed), and whose seeds the table
   has. "Play against bots" also starts its game from here, once the seed is in. */

import { $, gettext, make, say, show, storageGet, storageSet } from "./dom.js";
import { config, isHost, link, mySeatRow, phase, playerLabel, state } from "./state.js";

const CLIENT_SEED = /^[A-Za-z0-9_-]{1,64}$/;
const SEED_RESEND_MS = 5000;
const AUTOSTART_SEED_WAIT_MS = 2000; // "Play against bots" starts without the seed's receipt after this
const AUTOSTART_GIVE_UP_MS = 8000; // no game after sending start: show the lobby and its Start button
const BUTTON_PENDING_MS = 4000; // Start stays disabled this long waiting for an answer

let seedSent = null; // {number, value, at, confirmed}
// "Play against bots": this page starts the game itself once the client seed is in. "waiting" for the
// seed's receipt, "sent" the start, null when done or given up.
let autostart = config && config.autostart ? "waiting" : null;
let autostartTimer = null;

export function isAutostarting() {
  return Boolean(autostart);
}

function randomSeed() {
  const bytes = new Uint8Array(16); // 128 bits: 22 base64url characters
  window.crypto.getRandomValues(bytes);
  const binary = String.fromCharCode(...bytes);
  return window.btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function seedKey(number) {
  return `wickwise:seed:${config.code}:${number}`;
}

function seedFor(number) {
  let value = storageGet(seedKey(number));
  if (!value || !CLIENT_SEED.test(value)) {
    value = randomSeed();
    storageSet(seedKey(number), value);
  }
  return value;
}

function canContributeSeed() {
  const mine = mySeatRow();
  return Boolean(state.room && state.room.next_game && mine && !mine.bot);
}

export function maybeSendSeed() {
  if (!canContributeSeed()) return;
  const number = state.room.next_game.number;
  const value = seedFor(number);
  const same = seedSent && seedSent.number === number && seedSent.value === value;
  if (same && (mySeatRow().client_seed || Date.now() - seedSent.at < SEED_RESEND_MS)) {
    renderSeedStatus();
    return;
  }
  if (link.send({ type: "client_seed", value, ref: "seed" })) {
    seedSent = { number, value, at: Date.now(), confirmed: false };
  }
  renderSeedStatus();
}

/* The room tells only whether a seat has a client seed, not which: the first room message after sending
   one (the server broadcasts it when the seed is stored) confirms it. */
export function confirmSeed() {
  const mine = mySeatRow();
  if (
    seedSent &&
    !seedSent.confirmed &&
    mine &&
    mine.client_seed &&
    state.room.next_game &&
    state.room.next_game.number === seedSent.number
  ) {
    seedSent.confirmed = true;
  }
}

export function setSeedStatus(text, isError) {
  const status = $("seed-status");
  if (!status) return;
  if (status.textContent !== text) status.textContent = text; // unchanged words are not announced again
  status.classList.toggle("error", Boolean(isError));
}

function renderSeedStatus() {
  if (!canContributeSeed()) return;
  const number = state.room.next_game.number;
  const received =
    mySeatRow().client_seed &&
    seedSent &&
    seedSent.confirmed &&
    seedSent.number === number &&
    seedSent.value === seedFor(number);
  setSeedStatus(received ? gettext("Received by the table ✓") : gettext("Sending…"), false);
}

export function renderFairness() {
  const room = state.room;
  const game = state.game;
  const started = game && game.status !== "lobby";
  show("fair-current", Boolean(started));
  if (started) {
    $("fair-current-label").textContent = say(gettext("Fingerprint of game %(n)s:"), { n: game.number });
    $("fair-current-fingerprint").textContent = game.fingerprint;
    renderCurrentContributors(game);
  }
  const next = room && room.next_game;
  show("fair-next", Boolean(next));
  if (!next) return;
  $("fair-next-label").textContent = started
    ? say(gettext("Fingerprint of the next game (%(n)s):"), { n: next.number })
    : say(gettext("Fingerprint of game %(n)s:"), { n: next.number });
  $("fair-next-fingerprint").textContent = next.fingerprint;
  const input = $("client-seed");
  show("seed-form", canContributeSeed());
  if (canContributeSeed() && document.activeElement !== input) {
    const value = seedFor(next.number);
    if (input.value !== value) {
      input.value = value;
      input.removeAttribute("aria-invalid");
    }
  }
  renderContributors(room);
}

function seedMark(bot, hasSeed, noneYet) {
  if (bot) return make("span", "no", gettext("bots add none"));
  if (hasSeed) return make("span", "yes", gettext("client seed ✓"));
  return make("span", "no", noneYet ? gettext("no client seed yet") : gettext("no client seed"));
}

function renderContributors(room) {
  const list = $("contributors");
  if (!list) return;
  list.textContent = "";
  room.seats.forEach((seat, index) => {
    if (!seat.taken) return;
    const item = make("li");
    item.append(make("span", null, playerLabel(index)), seedMark(seat.bot, seat.client_seed, true));
    list.append(item);
  });
}

/* The client seeds the game in play was mixed with (public: they are part of its record). */
function renderCurrentContributors(game) {
  const list = $("current-contributors");
  if (!list) return;
  list.textContent = "";
  const seeds = game.client_seeds || [];
  (game.players || []).forEach((player, index) => {
    const item = make("li");
    item.append(make("span", null, playerLabel(index)), seedMark(player.bot, seeds[index], false));
    list.append(item);
  });
}

function saveTypedSeed() {
  const input = $("client-seed");
  if (!canContributeSeed() || !input) return;
  const value = input.value.trim();
  if (!CLIENT_SEED.test(value)) {
    input.setAttribute("aria-invalid", "true");
    setSeedStatus(gettext("A client seed is 1 to 64 letters, digits, - or _."), true);
    return;
  }
  input.removeAttribute("aria-invalid");
  storageSet(seedKey(state.room.next_game.number), value);
  maybeSendSeed();
}

export function bindSeedControls() {
  const form = $("seed-form");
  if (!form) return;
  const input = $("client-seed");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    saveTypedSeed();
  });
  input.addEventListener("change", saveTypedSeed);
  input.addEventListener("input", () => {
    if (CLIENT_SEED.test(input.value.trim())) input.removeAttribute("aria-invalid");
  });
  $("seed-new").addEventListener("click", () => {
    if (!canContributeSeed()) return;
    const value = randomSeed();
    input.value = value;
    storageSet(seedKey(state.room.next_game.number), value);
    maybeSendSeed();
  });
}

// --- "Play against bots": this page starts the game it was opened for -----------------------------------

/* The host's browser sends its client seed (maybeSendSeed), then starts once the room shows the seed
   received for this seat, or after AUTOSTART_SEED_WAIT_MS without it: one click for the player, and the
   deal still mixes in a seed from their browser. */
export function maybeAutostart() {
  if (!autostart || !state.room) return;
  if (phase() !== "lobby" || !isHost() || !state.room.next_game) {
    endAutostart();
    return;
  }
  if (autostart !== "waiting") return;
  if (seedSent && seedSent.confirmed && seedSent.number === state.room.next_game.number) {
    sendAutostart();
  } else if (!autostartTimer) {
    autostartTimer = window.setTimeout(sendAutostart, AUTOSTART_SEED_WAIT_MS);
  }
}

function sendAutostart() {
  window.clearTimeout(autostartTimer);
  autostartTimer = null;
  if (autostart !== "waiting" || phase() !== "lobby" || !isHost()) return;
  if (!link.send({ type: "start", ref: "start" })) return; // not connected: the next snapshot tries again
  autostart = "sent";
  state.startPendingUntil = Date.now() + BUTTON_PENDING_MS;
  autostartTimer = window.setTimeout(() => {
    autostartTimer = null;
    if (autostart === "sent") endAutostart();
  }, AUTOSTART_GIVE_UP_MS);
}

/* The game started, or starting failed (the lobby and its Start button are shown instead). */
export function endAutostart() {
  if (!autostart) return;
  window.clearTimeout(autostartTimer);
  autostartTimer = null;
  autostart = null;
  link.renderAll();
}
