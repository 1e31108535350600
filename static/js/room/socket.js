/* The room's one WebSocket: connecting and reconnecting, the ping that keeps presence fresh, and the seq
   protocol (docs/protocol.md): updates handed on in order, an early one held a moment for the one before
   it, a gap or a pong ahead of us answered by a sync. It knows no page: the room hands it callbacks, and
   a test hands it a fake WebSocket. */

import { classifyUpdate, HeldUpdates, isBehind, positionOf, retryDelay } from "./protocol.js";

export const PING_EVERY_MS = 15000;
// A ping answered by no message for this long: the socket is dead, open a new one. Counted from the ping, not
// from the last message: a hidden tab's timers may wake once a minute, and a quiet room says nothing between.
export const UNANSWERED_LIMIT_MS = 25000;
export const SYNC_THROTTLE_MS = 1000;
export const PONG_RECHECK_MS = 1500; // a pong ahead of us looks again after this before asking to sync
export const REORDER_WAIT_MS = 600; // an early update waits this long for the one before it
export const ROOM_GONE_CODE = 4404;

const OPEN = 1;

/*
 *   const socket = new RoomSocket({ url, handlers: { snapshot, update, room, error, status } });
 *   socket.start(); socket.send(message) -> bool; socket.requestSync(); socket.reconnectNow();
 *
 * handlers.elsewhere(message) hears that this socket's seat was taken on another device.
 * handlers.draft(message) hears the seat to act's unfinished decision (games with drafts: tiles).
 * handlers.snapshot(message) and handlers.update(message, kind) get the game's messages in order
 * (kind: "next", "same" or "new-game", see protocol.js); handlers.status(kind) hears "connecting",
 * "open", "waiting" (for retryAt) or "gone" (the room does not exist: no more attempts), and
 * handlers.lost() / handlers.back() when an open connection drops and when it is live again.
 * Options: WebSocketImpl (the socket class), random and now (for tests).
 */
export class RoomSocket {
  constructor({ url, handlers, WebSocketImpl, random, now }) {
    this.url = url;
    this.on = handlers;
    this.WebSocketImpl = WebSocketImpl || window.WebSocket;
    this.random = random || Math.random;
    this.now = now || Date.now;
    this.socket = null;
    this.shown = null; // {number, seq, status, paused} of the game last handed on
    this.roomDigest = null;
    this.held = new HeldUpdates();
    this.everOpened = false;
    this.lost = false;
    this.gone = false;
    this.attempt = 0;
    this.retryAt = 0;
    this.unansweredSince = null; // when the oldest ping no message has followed was sent
    this.lastSyncAt = 0;
    this.timers = {};
  }

  start() {
    this.connect();
    this.pingTimer = window.setInterval(() => this.keepAlive(), PING_EVERY_MS);
  }

  stop() {
    this.gone = true;
    window.clearInterval(this.pingTimer);
    Object.values(this.timers).forEach((timer) => window.clearTimeout(timer));
    this.drop();
  }

  get connected() {
    return Boolean(this.socket);
  }

  later(name, ms, fn) {
    window.clearTimeout(this.timers[name]);
    this.timers[name] = window.setTimeout(() => {
      delete this.timers[name];
      fn();
    }, ms);
  }

  cancel(name) {
    window.clearTimeout(this.timers[name]);
    delete this.timers[name];
  }

  status(kind) {
    if (this.on.status) this.on.status(kind);
  }

  // --- the connection -------------------------------------------------------------------------------

  connect() {
    this.cancel("retry");
    if (this.gone) return;
    this.status(this.lost ? "waiting" : "connecting");
    let socket;
    try {
      socket = new this.WebSocketImpl(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.unansweredSince = null;
    socket.onmessage = (event) => {
      if (socket !== this.socket) return;
      this.unansweredSince = null;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      try {
        this.receive(message);
      } catch (error) {
        console.error("the room could not handle a message", message, error);
      }
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (event.code === ROOM_GONE_CODE) {
        this.gone = true;
        this.cancel("retry");
        this.status("gone");
        return;
      }
      if (this.everOpened && !this.lost) {
        this.lost = true;
        if (this.on.lost) this.on.lost();
      }
      this.scheduleReconnect();
    };
    socket.onerror = () => {}; // a close event follows
  }

  scheduleReconnect() {
    const delay = retryDelay(this.attempt, this.random());
    this.attempt += 1;
    this.retryAt = this.now() + delay;
    this.later("retry", delay, () => this.connect());
    this.status("waiting");
  }

  /* Connect again now, to `url` if given (the same room, another way in). */
  restart(url) {
    if (this.gone) return;
    if (url) this.url = url;
    this.drop();
    this.attempt = 0;
    this.connect();
  }

  /* The player asked, the network came back or the page is seen again: try at once, or, with a socket open
     as far as the page knows, look at it at once. */
  reconnectNow() {
    if (this.gone) return;
    if (this.socket && this.socket.readyState <= OPEN) {
      // Open, as far as the page knows: a ping unanswered too long (a tab hidden meanwhile) is found now,
      // and a ping answered says whether an update was missed.
      if (this.socket.readyState === OPEN) this.keepAlive();
      return;
    }
    this.attempt = 0;
    this.connect();
  }

  drop() {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    try {
      socket.close();
    } catch {
      // already closing
    }
  }

  send(message) {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return false;
    try {
      socket.send(JSON.stringify(message));
      return true;
    } catch {
      return false;
    }
  }

  keepAlive() {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return;
    if (this.unansweredSince !== null && this.now() - this.unansweredSince > UNANSWERED_LIMIT_MS) {
      this.drop();
      this.lost = true;
      if (this.on.lost) this.on.lost();
      this.scheduleReconnect();
      return;
    }
    if (this.unansweredSince === null) this.unansweredSince = this.now();
    this.send({ type: "ping" });
  }

  /* Asked for too soon after the last one, a sync is sent later rather than dropped. */
  requestSync() {
    const wait = this.lastSyncAt + SYNC_THROTTLE_MS - this.now();
    if (wait > 0) {
      if (!this.timers.sync) this.later("sync", wait, () => this.requestSync());
      return;
    }
    this.lastSyncAt = this.now();
    this.send({ type: "sync" });
  }

  // --- messages from the server ------------------------------------------------------------------------

  receive(message) {
    switch (message.type) {
      case "snapshot":
        return this.receiveSnapshot(message);
      case "update":
        return this.receiveUpdate(message);
      case "room":
        this.roomDigest = message.room_digest;
        return this.on.room && this.on.room(message);
      case "error":
        return this.on.error && this.on.error(message);
      case "pong":
        return this.receivePong(message.position);
      case "seat_elsewhere":
        return this.on.elsewhere && this.on.elsewhere(message);
      case "pass_device":
        return this.on.passDevice && this.on.passDevice(message);
      case "draft":
        return this.on.draft && this.on.draft(message);
      default:
        return null; // anything newer
    }
  }

  receiveSnapshot(message) {
    const wasLost = this.lost;
    this.everOpened = true;
    this.lost = false;
    this.attempt = 0;
    this.shown = positionOf(message.game, message.seq);
    this.roomDigest = message.room_digest;
    this.status("open");
    if (wasLost && this.on.back) this.on.back();
    this.on.snapshot(message);
    this.takeHeld();
  }

  receiveUpdate(message) {
    const kind = classifyUpdate(this.shown, message);
    if (kind === "ignore") return;
    if (kind === "early") {
      // Wait briefly for the one before it; else a snapshot replaces everything.
      this.held.hold(message);
      this.later("gap", REORDER_WAIT_MS, () => {
        if (this.held.size) this.requestSync();
      });
      return;
    }
    this.shown = positionOf(message.game, message.seq);
    this.on.update(message, kind);
    if (kind === "new-game" && message.seq > 1) this.requestSync(); // we came in late: see it whole
    this.takeHeld();
  }

  takeHeld() {
    const next = this.held.takeNext(this.shown);
    if (next) this.receiveUpdate(next);
    else if (!this.held.size) this.cancel("gap");
  }

  /* An update lost on the way leaves no gap to notice until the next one arrives, which may be never (the
     last move of a game; room news): a pong is when it is noticed. A message sent before the pong may
     still be on its way, so look again before asking. */
  receivePong(position) {
    if (!position || !isBehind(position, this.shown, this.roomDigest)) return;
    this.later("pong", PONG_RECHECK_MS, () => {
      if (isBehind(position, this.shown, this.roomDigest)) this.requestSync();
    });
  }
}
