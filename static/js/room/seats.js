/* The lobby and the seats: who sits where, the host's Start button, the join form for a visitor, and the
   seats bar during play for a table that does not show its players. */

import { isSameDevice } from "./device.js";
import { $, gettext, make, ngettext, say, show } from "./dom.js";
import { tableShowsPlayers } from "./notices.js";
import { isHost, isSeated, phase, playerLabel, players, state } from "./state.js";

function connectedDot(seat) {
  const wrap = make("span", "presence");
  const dot = make("span", `dot${seat.connected ? " on" : ""}`);
  dot.setAttribute("aria-hidden", "true");
  dot.title = seat.connected ? gettext("Connected") : gettext("Not connected");
  wrap.append(dot, make("span", "visually-hidden", seat.connected ? gettext("connected") : gettext("not connected")));
  return wrap;
}

export function badge(kind, text) {
  return make("span", `badge ${kind}`, text);
}

/* Every bot, and every bot playing for an absent player, carries a badge: an element no name can make
   (the server also refuses names that read as a bot's). */
export function botBadge(index) {
  const player = players()[index];
  if (!player || (!player.bot && !player.stand_in)) return null;
  if (player.bot) return badge("bot", gettext("Bot"));
  const mark = badge("stand-in", gettext("bot playing"));
  mark.title = gettext("A bot plays this seat until its player is back.");
  return mark;
}

export function renderLobby() {
  const list = $("lobby-seats");
  const room = state.room;
  if (!list || !room || phase() !== "lobby") return;
  list.textContent = "";
  let empty = 0;
  room.seats.forEach((seat, index) => {
    const item = make("li", "seat-item");
    if (index === state.seat) item.classList.add("mine");
    if (!seat.taken) item.classList.add("empty");
    item.append(make("span", "seat-number", String(index + 1)));
    if (!seat.taken) empty += 1;
    const body = make("span", "seat-body");
    if (seat.taken && !seat.bot) body.append(connectedDot(seat));
    body.append(make("span", "seat-name", seat.taken ? playerLabel(index) : gettext("Empty seat")));
    const badges = make("span", "seat-badges");
    if (index === room.host) badges.append(badge("host", gettext("Host")));
    if (index === state.seat) badges.append(badge("you", gettext("You")));
    if (seat.taken && botBadge(index)) badges.append(botBadge(index));
    if (seat.taken && !seat.bot && seat.client_seed) {
      const seedBadge = badge("ok", gettext("seed ✓"));
      seedBadge.title = gettext("Client seed received");
      badges.append(seedBadge);
    }
    body.append(badges);
    item.append(body);
    list.append(item);
  });
  const host = isHost();
  const canStart = host && Boolean(room.next_game);
  const start = $("start-button");
  show(start, canStart);
  if (start) start.disabled = Date.now() < state.startPendingUntil;
  const hint = $("start-hint");
  if (hint) {
    hint.textContent =
      empty > 0
        ? say(
            ngettext(
              "%(n)s empty seat will get a bot when you start.",
              "%(n)s empty seats will get bots when you start.",
              empty,
            ),
            { n: empty },
          )
        : gettext("Every seat is taken. Start when everyone is ready.");
  }
  show(hint, canStart);
  show("lobby-waiting", !host);
}

export function renderJoin(now) {
  const join = $("join-panel");
  const note = $("watching-note");
  const room = state.room;
  const freeSeat = Boolean(room) && room.seats.some((seat) => !seat.taken);
  const canJoin = !isSeated() && now === "lobby" && freeSeat;
  show(join, canJoin);
  if (note) {
    note.textContent =
      now === "lobby" ? gettext("Every seat is taken. You are watching this room.") : gettext("You are watching this game.");
    // A same-device page is between its players, never watching: the pass screen says whose turn it is.
    show(note, !isSeated() && !canJoin && now !== "connecting" && !isSameDevice());
  }
}

export function renderSeatsBar() {
  const bar = $("seats-bar");
  const game = state.game;
  const now = phase();
  if (!bar || !game || (now !== "playing" && now !== "over") || tableShowsPlayers()) return;
  bar.textContent = "";
  const toAct = game.to_act || [];
  const paused = game.paused_remaining !== null && game.paused_remaining !== undefined;
  players().forEach((player, index) => {
    const chip = make("li", "seat-chip");
    if (index === state.seat) chip.classList.add("mine");
    const deciding = now === "playing" && toAct.includes(index);
    if (deciding) chip.classList.add("to-act");
    if (player.bot) chip.classList.add("bot");
    else chip.append(connectedDot(player));
    if (player.stand_in && !player.bot) chip.classList.add("stand-in");
    chip.append(make("span", "seat-name", playerLabel(index)));
    if (index === state.seat) chip.append(badge("you", gettext("You")));
    if (botBadge(index)) chip.append(botBadge(index));
    if (now === "playing" && !paused) {
      chip.append(make("span", "act-state", deciding ? gettext("deciding…") : gettext("done")));
    }
    bar.append(chip);
  });
}
