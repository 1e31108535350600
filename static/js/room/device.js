/* A game played on one device (a same-device room, config.sameDevice): the server sends "pass_device" before
   the update that hands the decision to another player, and no hand until that player taps. Meanwhile this
   screen covers the table, which is taken down, so no hand is in the page while the device changes hands. */

import { $, gettext, setText, show } from "./dom.js";
import { announce } from "./notices.js";
import { config, link, state } from "./state.js";

export function isSameDevice() {
  return Boolean(config && config.sameDevice);
}

function nameOf(seat) {
  const row = state.room && state.room.seats[seat];
  return (row && row.name) || gettext("the next player");
}

/* The device goes to `seat`: this page acts for nobody until its player takes it. */
export function passDevice(message) {
  state.seat = null;
  state.passTo = message.seat;
  renderPassScreen();
  const button = $("pass-device-take");
  if (button) button.focus({ preventScroll: false }); // Enter or Space takes the turn, as a tap does
  announce(gettext("Pass the device to %(name)s.").replace("%(name)s", nameOf(message.seat)));
}

/* The player tapped: the server binds this page to their seat and sends their snapshot (its hand). */
function takeTurn() {
  if (state.passTo === null) return;
  if (!link.send({ type: "take_turn" })) return;
  const button = $("pass-device-take");
  if (button) button.disabled = true;
}

/* A snapshot for a seat ends the passing. */
export function onSeatSnapshot() {
  if (state.seat === null || state.seat === undefined) return;
  state.passTo = null;
  renderPassScreen();
}

export function renderPassScreen() {
  const passing = isSameDevice() && state.passTo !== null && state.passTo !== undefined;
  show("pass-device", passing);
  if (!passing) return;
  const name = nameOf(state.passTo);
  setText($("pass-device-title"), gettext("Pass the device to %(name)s").replace("%(name)s", name));
  const button = $("pass-device-take");
  setText(button, gettext("I am %(name)s: show my hand").replace("%(name)s", name));
  button.disabled = false;
}

export function bindPassScreen() {
  const button = $("pass-device-take");
  if (button) button.addEventListener("click", takeTurn);
}
