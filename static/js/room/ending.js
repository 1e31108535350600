/* The end of a game: the ranking, the revealed seed, the links to verify it, and Play again. */

import { $, gettext, make, say, show } from "./dom.js";
import { botBadge } from "./seats.js";
import { config, isHost, phase, playerLabel, rendererImpl, state } from "./state.js";

function ordinal(place) {
  switch (place) {
    case 1:
      return gettext("1st");
    case 2:
      return gettext("2nd");
    case 3:
      return gettext("3rd");
    default:
      return say(gettext("%(n)sth"), { n: place });
  }
}

function endReasonText(reason) {
  if (reason === "expired") return gettext("The room expired before the game was over.");
  if (reason === "admin") return gettext("An administrator ended it.");
  return gettext("It was stopped before the end.");
}

/* A ranking row's words beside the name: the game's own (resultText(row), tiles: who resigned, the points
   left in hand) or its score and label. */
function scoreText(score, row) {
  const impl = rendererImpl();
  if (impl && typeof impl.resultText === "function") return impl.resultText(row);
  if (impl && typeof impl.scoreText === "function") return impl.scoreText(score);
  const label = impl && impl.scoreLabel ? impl.scoreLabel : gettext("points");
  return say(gettext("%(score)s %(label)s"), { score, label });
}

function fillUrl(template, number) {
  return template.replace("{n}", String(number));
}

export function renderEnd() {
  const game = state.game;
  if (phase() !== "over" || !game) return;
  const ended = game.status === "ended";
  $("end-title").textContent = ended
    ? say(gettext("Game %(n)s ended early"), { n: game.number })
    : say(gettext("Game %(n)s is over"), { n: game.number });
  const reason = $("end-reason");
  reason.textContent = ended ? endReasonText(game.end_reason) : "";
  show(reason, ended);
  const ranking = $("ranking");
  ranking.textContent = "";
  const rows = (game.result || []).slice().sort((a, b) => a.place - b.place || a.seat - b.seat);
  for (const row of rows) {
    const item = make("li");
    if (row.place === 1) item.classList.add("first");
    if (row.seat === state.seat) item.classList.add("mine");
    const name = make("span", "rank-name", playerLabel(row.seat));
    const mark = botBadge(row.seat);
    if (mark) name.append(" ", mark);
    item.append(make("span", "rank-place", ordinal(row.place)), name, make("span", "rank-score", scoreText(row.score, row)));
    ranking.append(item);
  }
  show(ranking, rows.length > 0);
  // The star after a name (site.css) marks the player's own place: said once, under the ranking.
  const legend = $("ranking-legend");
  if (legend) {
    legend.textContent = gettext("★ marks your place.");
    show(legend, rows.some((row) => row.seat === state.seat));
  }
  const impl = rendererImpl();
  const rule = $("score-rule");
  if (impl && impl.scoreRule) {
    rule.textContent = impl.scoreRule;
  } else if (impl && typeof impl.lowerIsBetter === "boolean") {
    rule.textContent = impl.lowerIsBetter ? gettext("The lowest score wins.") : gettext("The highest score wins.");
  }
  show(rule, rows.length > 0 && Boolean(impl));
  $("end-seed").textContent = game.seed || gettext("Not revealed yet.");
  $("end-fingerprint").textContent = game.fingerprint || "";
  $("verify-link").href = fillUrl(config.verifyUrl, game.number);
  $("record-link").href = fillUrl(config.recordUrl, game.number);
  show("play-again", isHost() && Boolean(state.room && state.room.next_game));
  $("play-again").disabled = Date.now() < state.playAgainPendingUntil;
  show("end-waiting", !isHost());
}
