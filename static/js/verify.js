/* The Verify page: recheck a finished game in this browser, from its public record alone.
 *
 * The server is asked for one thing, the record (/games/<CODE>/<N>/record.json), or the visitor
 * pastes it. Everything else runs here: SHA-256 and HMAC with WebCrypto (fairness.js), the rules
 * with the game's port (e.g. candles/rules.js). docs/fairness.md lists the checks; games/replay.py
 * makes the same ones in Python.
 *
 * window.WickwiseVerify.verify(record) -> Promise<[{name, ok, title, lines}]> is the logic alone,
 * without the page, so that tests can call it.
 */
(function (root) {
  "use strict";

  const gettext = root.gettext || ((text) => text);
  const interpolate = root.interpolate || ((format, values, named) => (named
    ? format.replace(/%\(\w+\)s/g, (match) => String(values[match.slice(2, -2)]))
    : format.replace(/%s/g, () => String(values.shift()))));
  const ngettext = root.ngettext || ((singular, plural, count) => (count === 1 ? singular : plural));
  const fmt = (format, values) => interpolate(format, values, true);

  const RECORD_FORMAT = "wickwise-record/1";
  const OVER = ["finished", "ended"];

  class CheckFailed extends Error {
    constructor(name, title, lines) {
      super(title);
      this.check = { name, ok: false, title, lines };
    }
  }

  const pass = (name, title, lines = []) => ({ name, ok: true, title, lines });

  // --- how to name things ----------------------------------------------------------------------

  function seatName(record, seat) {
    const players = record.players || [];
    const player = players[seat] || {};
    const number = seat + 1;
    if (player.bot || !player.name) {
      // Numbered among the bots, as the room names them ("Bot 2" in the room is "Bot 2 (seat 3)" here).
      const bots = players.slice(0, seat + 1).filter((p) => p && (p.bot || !p.name)).length;
      return fmt(gettext("Bot %(n)s (seat %(seat)s)"), { n: bots, seat: number });
    }
    return fmt(gettext("%(name)s (seat %(seat)s)"), { name: player.name, seat: number });
  }

  // The site's own reasons in words; any other is shown as the record gives it.
  function endReasonWords(reason) {
    if (reason === "expired") return gettext("the room expired");
    if (reason === "admin") return gettext("an administrator ended it");
    return reason || gettext("no reason given");
  }

  function illegalReason(error, presenter) {
    const reasons = {
      game_over: gettext("the game was already over"),
      no_such_seat: gettext("there is no such seat"),
      bad_action: gettext("the move is not a valid action"),
      ...(presenter.illegalReasons ? presenter.illegalReasons() : {}),
    };
    return reasons[error.code] || error.message;
  }

  function canonical(value) {
    // JSON with sorted keys: two values are the same when their canonical texts are.
    if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
    if (value !== null && typeof value === "object") {
      return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
    }
    return JSON.stringify(value);
  }

  // --- what each game shows of its deal, its rounds and its ranking ------------------------------

  const genericPresenter = {
    deal: () => [gettext("The deal was rebuilt from the seed.")],
    stepDone: () => true,
    stepTitle: () => gettext("Move"),
    step: () => [],
    ranking: (record, ranking) => ranking.map((row) => fmt(gettext("Place %(place)s: %(player)s, score %(score)s"), {
      place: row.place, player: seatName(record, row.seat), score: row.score,
    })),
  };

  // Each game's present.js (static/<game>/present.js, loaded before this file) registers
  // WickwiseVerifyPresenters[game] = (helpers) => presenter, with deal, stepDone, stepTitle, step, ranking
  // and, optionally, illegalReasons (the engine's codes in words).
  const helpers = { gettext, ngettext, fmt, seatName };
  const PRESENTERS = {};
  for (const [game, make] of Object.entries(root.WickwiseVerifyPresenters || {})) {
    PRESENTERS[game] = make(helpers);
  }

  // --- the checks ------------------------------------------------------------------------------

  function checkFormat(record) {
    const title = gettext("The record");
    if (record === null || typeof record !== "object" || Array.isArray(record)) {
      throw new CheckFailed("format", title, [gettext("A record is a JSON object.")]);
    }
    if (record.format !== RECORD_FORMAT) {
      throw new CheckFailed("format", title, [fmt(gettext("Expected the format %(expected)s, found %(found)s."), {
        expected: RECORD_FORMAT, found: JSON.stringify(record.format),
      })]);
    }
    const rules = (root.WickwiseRules || {})[record.game];
    if (typeof record.game !== "string" || !rules || !Object.hasOwn(root.WickwiseRules, record.game)) {
      throw new CheckFailed("format", title, [fmt(gettext("This page cannot replay the game %(game)s."), {
        game: JSON.stringify(record.game),
      })]);
    }
    if (!Array.isArray(record.players)) { // empty until the game starts
      throw new CheckFailed("format", title, [gettext("The record's players must be a list.")]);
    }
    if (typeof record.room_code !== "string" || !Number.isInteger(record.number)) {
      throw new CheckFailed("format", title, [gettext("The record needs a room code and a game number.")]);
    }
    if (record.options === null || typeof record.options !== "object" || Array.isArray(record.options)) {
      throw new CheckFailed("format", title, [gettext("The record's options must be an object.")]);
    }
    const lines = [fmt(gettext("Game %(number)s in room %(code)s: %(game)s, %(seats)s seats."), {
      number: record.number, code: record.room_code, game: record.game, seats: record.players.length,
    })];
    return { rules, check: pass("format", title, lines) };
  }

  function checkOver(record) {
    const title = gettext("The game is over");
    if (!OVER.includes(record.status)) {
      throw new CheckFailed("over", title, [
        gettext("This game is not over yet: its seed is still secret. Come back when it has ended."),
      ]);
    }
    if (record.seed === null || record.seed === undefined || !Array.isArray(record.moves)) {
      throw new CheckFailed("over", title, [gettext("The record has no seed or no moves, although the game is over.")]);
    }
    return pass("over", title, [record.status === "ended"
      ? gettext("It ended early, and its seed is public.")
      : gettext("It finished, and its seed is public.")]);
  }

  function checkSeed(record) {
    const title = gettext("The seed");
    if (!root.WickwiseFairness.isValidSeed(record.seed)) {
      throw new CheckFailed("seed", title, [gettext("A seed is 64 lowercase hex characters (32 bytes).")]);
    }
    return pass("seed", title, [{ code: record.seed }]);
  }

  async function checkFingerprint(record) {
    const title = gettext("The fingerprint");
    const computed = await root.WickwiseFairness.fingerprint(record.seed);
    const lines = [
      { label: gettext("SHA-256 of the seed:"), code: computed },
      { label: gettext("Fingerprint published before the game:"), code: String(record.fingerprint) },
    ];
    if (computed !== record.fingerprint) {
      throw new CheckFailed("fingerprint", title, lines.concat([gettext("They differ: this seed is not the one that was promised.")]));
    }
    return pass("fingerprint", title, lines.concat([gettext("They are the same.")]));
  }

  function checkClientSeeds(record) {
    const title = gettext("The client seeds");
    const seeds = record.client_seeds;
    if (!Array.isArray(seeds) || seeds.length !== record.players.length) {
      throw new CheckFailed("client_seeds", title, [fmt(gettext("Expected one entry per seat (%(seats)s)."), {
        seats: record.players.length,
      })]);
    }
    const lines = [];
    seeds.forEach((seed, seat) => {
      if (seed === null) {
        lines.push(fmt(gettext("%(player)s: none"), { player: seatName(record, seat) }));
        return;
      }
      if (!root.WickwiseFairness.isValidClientSeed(seed)) {
        throw new CheckFailed("client_seeds", title, [fmt(gettext("%(player)s: %(seed)s is not a valid client seed."), {
          player: seatName(record, seat), seed: JSON.stringify(seed),
        })]);
      }
      if ((record.players[seat] || {}).bot) {
        throw new CheckFailed("client_seeds", title, [fmt(gettext("%(player)s is a bot, and bots give no client seed."), {
          player: seatName(record, seat),
        })]);
      }
      lines.push(fmt(gettext("%(player)s: %(seed)s"), { player: seatName(record, seat), seed }));
    });
    return pass("client_seeds", title, lines);
  }

  function mixOf(record) {
    return root.WickwiseFairness.mixString({
      game: record.game, roomCode: record.room_code, number: record.number, clientSeeds: record.client_seeds,
    });
  }

  async function rebuildDeal(record, rules, presenter) {
    const title = gettext("The deal");
    const rng = await root.WickwiseFairness.createRng(record.seed, mixOf(record));
    let state;
    try {
      state = await rules.setup(record.players.length, JSON.parse(JSON.stringify(record.options)), rng);
    } catch (error) {
      throw new CheckFailed("deal", title, [fmt(gettext("The rules refused this setup: %(error)s"), { error: error.message })]);
    }
    return { rng, state, check: pass("deal", title, presenter.deal(record, state)) };
  }

  function describeMove(record, move) {
    return fmt(gettext("Move #%(seq)s by %(player)s: %(action)s"), {
      seq: move && move.seq, player: move && Number.isInteger(move.seat) ? seatName(record, move.seat) : "?",
      action: JSON.stringify(move && move.action),
    });
  }

  /** An action the rules take from a seat that is not to act (tiles: resign); the rules judge the seat. */
  function outOfTurn(rules, action) {
    return Array.isArray(rules.OUT_OF_TURN) && action !== null && typeof action === "object"
      && rules.OUT_OF_TURN.includes(action.type);
  }

  /** One logged move: in sequence, by a seat that had to decide (or one the rules let act out of turn),
   * legal by the rules. */
  async function applyMove(record, rules, presenter, state, move, expectedSeq, rng) {
    const fail = (reason) => {
      throw new CheckFailed("move", describeMove(record, move), [reason]);
    };
    if (move === null || typeof move !== "object" || Array.isArray(move)) {
      fail(fmt(gettext("Move %(seq)s is not an object."), { seq: expectedSeq }));
    }
    if (move.seq !== expectedSeq) {
      fail(fmt(gettext("Expected move #%(expected)s here."), { expected: expectedSeq }));
    }
    if (!Number.isInteger(move.seat) || (!rules.toAct(state).includes(move.seat) && !outOfTurn(rules, move.action))) {
      fail(gettext("That seat was not to act at that moment."));
    }
    try {
      return await rules.apply(state, move.seat, move.action, rng);
    } catch (error) {
      if (error && error.name === "IllegalAction") {
        fail(fmt(gettext("Not allowed: %(reason)s."), { reason: illegalReason(error, presenter) }));
      }
      throw error;
    }
  }

  async function replayMoves(record, rules, presenter, state, rng, checks) {
    let stepEvents = [];
    let stepMoves = 0;
    for (let index = 0; index < record.moves.length; index += 1) {
      const move = record.moves[index];
      let applied;
      try {
        applied = await applyMove(record, rules, presenter, state, move, index + 1, rng);
      } catch (error) {
        if (error instanceof CheckFailed) {
          checks.push(error.check);
          checks.push({
            name: "result", ok: false, title: gettext("The result"),
            lines: [fmt(gettext("Not compared: the replay stopped at move #%(seq)s."), { seq: index + 1 })],
          });
        }
        throw error;
      }
      state = applied.state;
      stepEvents = stepEvents.concat(applied.events);
      stepMoves += 1;
      if (presenter.stepDone(stepEvents)) {
        const lines = presenter === genericPresenter ? [describeMove(record, move)] : presenter.step(record, state, stepEvents);
        checks.push(pass("step", presenter.stepTitle(state, true), lines));
        stepEvents = [];
        stepMoves = 0;
      }
    }
    if (stepMoves > 0 || (record.status === "ended" && presenter !== genericPresenter && rules.outcome(state) === null)) {
      checks.push(pass("step", presenter.stepTitle(state, false), presenter.step(record, state, stepEvents)));
    }
    return state;
  }

  function finalChecks(record, rules, presenter, state) {
    const title = gettext("The result");
    const outcome = rules.outcome(state);
    const moves = record.moves.length;
    if (record.status === "ended") {
      const reason = endReasonWords(record.end_reason);
      const early = pass("ended_early", gettext("Ended early"), [fmt(
        gettext("The game ended early (%(reason)s) after %(moves)s moves; everything up to there was replayed."),
        { reason, moves },
      )]);
      if (outcome !== null) {
        return [early, { name: "result", ok: false, title, lines: [gettext("The replay finished the game, but the record says it ended early.")] }];
      }
      if (record.result !== null && record.result !== undefined) {
        return [early, { name: "result", ok: false, title, lines: [gettext("A game that ended early has no result, but the record shows one.")] }];
      }
      return [early, pass("result", title, [gettext("No result, as for any game that ended early.")])];
    }
    if (outcome === null) {
      return [{ name: "result", ok: false, title, lines: [fmt(gettext("After all %(moves)s moves the replayed game is not over."), { moves })] }];
    }
    const replayed = presenter.ranking(record, outcome);
    if (canonical(outcome) !== canonical(record.result)) {
      const shown = Array.isArray(record.result) ? presenter.ranking(record, record.result) : [String(record.result)];
      return [{
        name: "result", ok: false, title,
        lines: [gettext("The replay ranks:"), ...replayed, gettext("The record says:"), ...shown],
      }];
    }
    return [pass("result", title, [...replayed, gettext("This is the published result.")])];
  }

  /** Every check, in order; it stops at the first one that the others depend on. */
  async function verify(record) {
    const checks = [];
    try {
      const { rules, check } = checkFormat(record);
      checks.push(check);
      const presenter = PRESENTERS[record.game] || genericPresenter;
      checks.push(checkOver(record));
      checks.push(checkSeed(record));
      checks.push(await checkFingerprint(record));
      checks.push(checkClientSeeds(record));
      checks.push(pass("mix", gettext("The mix string"), [{ code: mixOf(record) }]));
      const deal = await rebuildDeal(record, rules, presenter);
      checks.push(deal.check);
      const state = await replayMoves(record, rules, presenter, deal.state, deal.rng, checks);
      checks.push(...finalChecks(record, rules, presenter, state));
    } catch (error) {
      if (error instanceof CheckFailed) {
        if (!checks.includes(error.check)) checks.push(error.check);
      } else {
        checks.push({ name: "error", ok: false, title: gettext("The verifier stopped"), lines: [String(error && error.message)] });
      }
    }
    return checks;
  }

  // --- the page --------------------------------------------------------------------------------

  function normalizeCode(code) {
    return String(code || "").toUpperCase().replace(/[^A-Z0-9]/g, "");
  }

  function el(tag, attributes = {}, children = []) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (name === "text") node.textContent = value;
      else node.setAttribute(name, value);
    }
    for (const child of children) node.append(child);
    return node;
  }

  /** A line is a text, or {label, code} for a value to show as it is (a seed, a hash, the mix). */
  function renderLine(line) {
    if (typeof line === "string") return el("li", { text: line });
    const parts = line.label ? [line.label, " "] : [];
    return el("li", {}, [...parts, el("code", { text: line.code })]);
  }

  /** The record's players by seat; every bot carries a badge, an element no name can imitate. */
  function renderPlayers(record) {
    const players = Array.isArray(record.players) ? record.players : [];
    return players.map((player, seat) => {
      const badge = player && player.bot ? [" ", el("span", { class: "badge bot", text: gettext("Bot") })] : [];
      return el("li", {}, [seatName(record, seat), ...badge]);
    });
  }

  function renderCheck(check) {
    const mark = el("span", { class: "check-mark", "aria-hidden": "true", text: check.ok ? "✓" : "✗" });
    const status = el("span", { class: "visually-hidden", text: check.ok ? gettext("Passed:") : gettext("Failed:") });
    const title = el("strong", { class: "check-title", text: check.title });
    const item = el("li", { class: `check ${check.ok ? "check-pass" : "check-fail"}`, "data-check": check.name },
      [mark, " ", status, " ", title]);
    if (check.lines.length) {
      item.append(el("ul", { class: "check-lines" }, check.lines.map(renderLine)));
    }
    return item;
  }

  function setupPage(page) {
    const $ = (id) => document.getElementById(id);
    const statusBox = $("verify-status");
    const errorBox = $("verify-error");
    const results = $("verify-results");
    const list = $("verify-checks");
    const heading = $("verify-results-title");
    const buttons = page.querySelectorAll("button[type=submit]");

    function showError(message) {
      errorBox.textContent = message;
      errorBox.hidden = !message;
      if (message) errorBox.scrollIntoView({ block: "nearest" });
    }

    function busy(on) {
      buttons.forEach((button) => { button.disabled = on; });
      results.setAttribute("aria-busy", on ? "true" : "false");
      if (on) statusBox.textContent = gettext("Checking…");
    }

    async function run(record, { focus }) {
      list.replaceChildren();
      results.hidden = true;
      if (!root.WickwiseFairness.isAvailable()) {
        statusBox.textContent = "";
        showError(gettext("This browser cannot compute SHA-256 on this page: open it over https."));
        return;
      }
      busy(true);
      const checks = await verify(record);
      busy(false);
      list.replaceChildren(...checks.map(renderCheck));
      if ($("verify-players")) $("verify-players").replaceChildren(...renderPlayers(record));
      results.hidden = false;
      const failed = checks.filter((check) => !check.ok).length;
      page.dataset.result = failed ? "fail" : "pass";
      statusBox.textContent = failed
        ? fmt(ngettext("%(failed)s of %(total)s checks failed.", "%(failed)s of %(total)s checks failed.", failed),
          { failed, total: checks.length })
        : fmt(gettext("All %(total)s checks passed: this game was dealt from the seed behind its fingerprint and played exactly as recorded."),
          { total: checks.length });
      const notOver = checks.find((check) => check.name === "over" && !check.ok);
      if (notOver) showError(notOver.lines[0]);
      if (focus) heading.focus();
      else statusBox.scrollIntoView({ block: "start" }); // opened from a link: the verdict is what was asked for
    }

    async function fetchRecord(code, number) {
      const url = page.dataset.recordUrl.replace("/ROOMCODE/0/", `/${encodeURIComponent(code)}/${number}/`);
      let response;
      try {
        response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "omit" });
      } catch {
        throw new Error(gettext("Could not reach the site to fetch the record. Check your connection and try again."));
      }
      if (response.status === 404) {
        throw new Error(fmt(gettext("There is no game %(number)s in room %(code)s. Check the room code and the game number."), { code, number }));
      }
      if (!response.ok) {
        throw new Error(fmt(gettext("The site could not send the record (error %(status)s)."), { status: response.status }));
      }
      try {
        return await response.json();
      } catch {
        throw new Error(gettext("The site sent a record that is not valid JSON."));
      }
    }

    async function verifyFromSite({ focus }) {
      showError("");
      const code = normalizeCode($("verify-room").value);
      const number = Number.parseInt($("verify-number").value, 10);
      $("verify-room").setAttribute("aria-invalid", code ? "false" : "true");
      $("verify-number").setAttribute("aria-invalid", number >= 1 ? "false" : "true");
      if (!code || !(number >= 1)) {
        showError(gettext("Enter the room code and the game number (1 for the room's first game)."));
        return;
      }
      statusBox.textContent = gettext("Fetching the record…");
      let record;
      try {
        record = await fetchRecord(code, number);
      } catch (error) {
        statusBox.textContent = "";
        list.replaceChildren();
        results.hidden = true;
        showError(error.message);
        return;
      }
      $("verify-record").value = JSON.stringify(record, null, 1);
      await run(record, { focus });
    }

    $("verify-fetch").addEventListener("submit", (event) => {
      event.preventDefault();
      verifyFromSite({ focus: true });
    });

    $("verify-paste").addEventListener("submit", async (event) => {
      event.preventDefault();
      showError("");
      const text = $("verify-record").value.trim();
      if (!text) {
        showError(gettext("Paste a game's record (JSON) first."));
        return;
      }
      let record;
      try {
        record = JSON.parse(text);
      } catch (error) {
        list.replaceChildren();
        results.hidden = true;
        statusBox.textContent = "";
        showError(fmt(gettext("That is not valid JSON: %(error)s"), { error: error.message }));
        return;
      }
      await run(record, { focus: true });
    });

    // Arriving with ?room=CODE&n=N (from a room or an expired room's page): verify at once.
    if ($("verify-room").value && $("verify-number").value) {
      verifyFromSite({ focus: false });
    }
  }

  root.WickwiseVerify = { verify, canonical, normalizeCode };

  if (typeof document !== "undefined") {
    const start = () => {
      const page = document.getElementById("verify");
      if (page) setupPage(page);
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})(typeof window !== "undefined" ? window : globalThis);
