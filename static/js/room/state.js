/* What the room page holds, shared by its modules: the page's configuration (rooms/views.py) and the
   room, game and seat as the server last showed them, with the questions every module asks of them. */

import { gettext, say } from "./dom.js";

const configElement = document.getElementById("room-config");
export const config = configElement ? JSON.parse(configElement.textContent) : null;

export const state = {
  room: null,
  game: null,
  view: null,
  seq: 0,
  seat: config ? config.seat : null,
  // The socket's seat changed under this page (the seat was taken on another device): see main.js.
  displaced: false,
  rendererFailed: false, // the table could not be loaded: the room shows its own seats bar
  playedFor: null, // who made this seat's last decision while its player was away (the last snapshot's word)
  draft: null, // the live draft of the decision pending (games with drafts), as the room last relayed it
  holdEnd: false, // the game is over but the table is still animating its last moves
  turnShown: false, // the player was told it is their turn (once the table drew it)
  passTo: null, // same device: the seat the device is being passed to, whose hand is not sent yet (device.js)
  startPendingUntil: 0,
  playAgainPendingUntil: 0,
};

/* The game's table (static/<game>/table.js, registered through the table kit), or null. */
export function rendererImpl() {
  const games = window.WickwiseGames;
  return (games && config && games[config.game]) || null;
}

export function phase() {
  const game = state.game;
  if (!state.room) return "connecting";
  if (!game || game.status === "lobby") return "lobby";
  if (game.status === "playing") return "playing";
  return "over";
}

export function isOver(game) {
  return game.status === "finished" || game.status === "ended";
}

export function isPaused(game) {
  return Boolean(game) && game.paused_remaining !== null && game.paused_remaining !== undefined;
}

export function isSeated() {
  return state.seat !== null && state.seat !== undefined;
}

export function isHost() {
  return state.room !== null && isSeated() && state.seat === state.room.host;
}

export function mySeatRow() {
  if (!isSeated() || !state.room) return null;
  return state.room.seats[state.seat] || null;
}

export function isMyTurnIn(game) {
  return Boolean(game && game.status === "playing" && isSeated() && (game.to_act || []).includes(state.seat));
}

export function isMyTurn() {
  return isMyTurnIn(state.game);
}

/* Every seat as the room and the game show it: the room's seats are live (presence, stand-ins); a game
   seen before its room (a snapshot's race) still names its players. */
export function players() {
  const seats = (state.room && state.room.seats) || [];
  const started = (state.game && state.game.players) || [];
  const count = Math.max(seats.length, started.length);
  return Array.from({ length: count }, (_, index) => {
    const seat = seats[index] || {};
    const early = started[index] || {};
    return {
      name: seat.name || early.name || "",
      bot: Boolean(seat.bot !== undefined ? seat.bot : early.bot),
      stand_in: Boolean(seat.stand_in),
      connected: Boolean(seat.connected),
    };
  });
}

function botNumber(list, index) {
  return list.slice(0, index + 1).filter((player) => player && player.bot).length;
}

/* A seat's name: its player's, or "Bot 2" for the second bot. A stand-in keeps its player's name (whose
   seat it is); the bot that plays it is marked by botBadge, as every bot is. */
export function playerLabel(index) {
  const list = players();
  const player = list[index];
  if (!player) return say(gettext("Seat %(n)s"), { n: index + 1 });
  if (player.bot) return say(gettext("Bot %(n)s"), { n: botNumber(list, index) });
  return player.name || say(gettext("Seat %(n)s"), { n: index + 1 });
}

/* What main.js wires up once the page starts: sending on the room's socket (false when not connected),
   and drawing the whole page again. Modules call these without importing main.js. */
export const link = {
  send: () => false,
  renderAll: () => {},
};
