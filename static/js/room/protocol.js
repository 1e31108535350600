/* The room socket's protocol decisions, with no page and no socket (docs/protocol.md): where an update
   stands against the game shown, whether a pong says something was missed, how long to wait before
   connecting again. static/js/room/socket.js acts on them. */

/* What an update means for a client showing `shown` ({number, seq} of its game, or null):
     "ignore"    a late word about an older game, or a seq already drawn;
     "new-game"  another game (the next one, or the first the client sees);
     "early"     it skips a seq: the one before it may still be on its way (updates cross between processes);
     "same"      the seq shown: a pause, a resume or an early end (or a game's start from its lobby);
     "next"      the seq after the one shown. */
export function classifyUpdate(shown, update) {
  const game = update.game;
  if (!game) return "ignore";
  if (!shown) return "new-game";
  if (game.number < shown.number) return "ignore";
  if (game.number !== shown.number) return "new-game";
  if (update.seq > shown.seq + 1) return "early";
  if (update.seq < shown.seq) return "ignore";
  return update.seq === shown.seq ? "same" : "next";
}

/* Did the client miss a message that a pong's `position` shows? Its room fingerprint differs, or its game
   is behind: an older number, a lower seq, or the same seq with another status or pause. `shown` is
   {number, seq, status, paused} or null, `digest` the room fingerprint the client holds. */
export function isBehind(position, shown, digest) {
  if (position.room_digest !== digest) return true;
  if (!shown) return false;
  if (position.number !== shown.number) return position.number > shown.number;
  if (position.seq !== shown.seq) return position.seq > shown.seq;
  return position.status !== shown.status || position.paused !== shown.paused;
}

/* Where a game stands, as an update, a snapshot or a pong shows it. */
export function positionOf(game, seq) {
  if (!game) return null;
  const paused = game.paused_remaining !== null && game.paused_remaining !== undefined;
  return { number: game.number, seq: seq || 0, status: game.status, paused };
}

export const RETRY_BASE_MS = 500;
export const RETRY_CAP_MS = 10000;

/* Exponential backoff with jitter, so that a restarted server is not hit by every tab at once: the
   ceiling doubles with each attempt up to RETRY_CAP_MS, and the wait is between half of it and all of it.
   `random` is a number in [0, 1). */
export function retryDelay(attempt, random) {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
  return ceiling / 2 + (random * ceiling) / 2;
}

/* Updates that came before the one they follow, by seq, for one game at a time. */
export class HeldUpdates {
  constructor() {
    this.bySeq = new Map();
  }

  get size() {
    return this.bySeq.size;
  }

  hold(update) {
    this.bySeq.set(update.seq, update);
  }

  /* The held update that follows `shown`, if any; those it has overtaken (older seqs, other games) go. */
  takeNext(shown) {
    for (const [seq, held] of this.bySeq) {
      if (!shown || seq <= shown.seq || held.game.number !== shown.number) this.bySeq.delete(seq);
    }
    if (!shown) return null;
    const next = this.bySeq.get(shown.seq + 1) || null;
    if (next) this.bySeq.delete(shown.seq + 1);
    return next;
  }

  clear() {
    this.bySeq.clear();
  }
}
