/* The live room: one WebSocket, the lobby, the seats bar, the countdown, errors, the end of a game and
   the fairness panel. The game's own renderer (static/<game>/table.js) draws the table inside #table:

     window.WickwiseGames[slug] = { scoreLabel, lowerIsBetter, showsPlayers, announcesTurns,
                                    mount(container, ctx) -> { update, destroy } }
   and optionally scoreText(score) (a score in words, with its plural), scoreRule (who wins, in words)
   and turnBased (a seat decides several times in a row within one turn: only the first is "your turn").

   room.js calls update(view, events, game) on each snapshot (events = []) and each update; update may
   return a promise that settles when that update is drawn. showsPlayers: the table shows every player,
   so the room keeps only a compact bar (timer, pause, connection) during play. announcesTurns: the table
   says in words when a new decision starts, so the room only plays the sound and marks the title.
   The room never handles keys: the table may use any key page-wide (candles: 1 to 6).
   The protocol is in docs/protocol.md. */
(function () {
  "use strict";

  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (_, key) { return String(values[key]); });
  };

  var configElement = document.getElementById("room-config");
  if (!configElement) return;
  var config = JSON.parse(configElement.textContent);

  var PING_EVERY_MS = 15000;
  var SILENCE_LIMIT_MS = 40000;       // no message for this long: the socket is dead, open a new one
  var RETRY_BASE_MS = 500;
  var RETRY_CAP_MS = 10000;
  var RENDERER_WAIT_MS = 15000;
  var SEED_RESEND_MS = 5000;
  var SYNC_THROTTLE_MS = 1000;
  var PONG_RECHECK_MS = 1500;         // a pong ahead of us looks again after this before asking to sync
  var END_HOLD_MS = 10000;            // the longest the ranking waits for the table's last animations
  var BUTTON_PENDING_MS = 4000;       // Start / Play again stay disabled this long waiting for an answer
  var AUTOSTART_SEED_WAIT_MS = 2000;  // "Play against bots" starts without the seed's receipt after this
  var AUTOSTART_GIVE_UP_MS = 8000;    // no game after sending start: show the lobby and its Start button
  var MAX_ALERTS = 3;
  var CLIENT_SEED = /^[A-Za-z0-9_-]{1,64}$/;

  var state = {
    room: null,
    roomDigest: null,          // the fingerprint of the room as last received, to compare with pongs
    pongTimer: null,
    game: null,
    view: null,
    seq: 0,
    early: {},  // updates that arrived before the one they follow, by seq
    gapTimer: null,
    syncTimer: null,
    seat: config.seat,
    clockOffset: 0,            // server clock minus local clock, in seconds
    socket: null,
    everOpened: false,
    lost: false,
    gone: false,
    attempt: 0,
    retryAt: 0,
    retryTimer: null,
    lastMessageAt: 0,
    lastSyncAt: 0,
    renderer: null,
    rendererKey: null,
    rendererFailed: false,
    rendererWaitStarted: 0,
    seedSent: null,            // {number, value, at}
    lastTickSecond: null,
    warnedDeadline: null,
    startPendingUntil: 0,
    playAgainPendingUntil: 0,
    holdEnd: false,            // the game is over but the table is still animating its last moves
    rendererWaitTimer: null,
    turnShown: false,          // the player was told it is their turn (once the table drew it)
    // "Play against bots": this page starts the game itself once the client seed is in.
    // "waiting" for the seed's receipt, "sent" the start, null when done or given up.
    autostart: config.autostart ? "waiting" : null,
    autostartTimer: null,
  };

  // table.js is a plain script placed before this one: if its renderer is missing now, it failed to
  // load or to run (this replaces an onerror attribute, which a strict Content Security Policy forbids).
  var tableScript = document.querySelector("script[data-game-table]");
  var tableFailedToLoad = Boolean(tableScript && !tableScript.async && !tableScript.defer &&
    !(window.WickwiseGames && window.WickwiseGames[config.game]));

  var Sound = window.WickwiseSound || { play: function () {}, isMuted: function () { return true; } };

  function $(id) { return document.getElementById(id); }

  function show(id, visible) {
    var node = typeof id === "string" ? $(id) : id;
    if (node) node.hidden = !visible;
  }

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function fillUrl(template, number) { return template.replace("{n}", String(number)); }

  // --- storage that survives private browsing refusing it -----------------------------------------

  var memoryStore = {};
  function storageGet(key) {
    try { return window.localStorage.getItem(key); } catch (error) { return memoryStore[key] || null; }
  }
  function storageSet(key, value) {
    memoryStore[key] = value;
    try { window.localStorage.setItem(key, value); } catch (error) { /* kept in memory for this page */ }
  }

  // --- live regions and alerts --------------------------------------------------------------------

  function announce(text) {
    var region = $("room-announcer");
    if (!region || !text) return;
    region.appendChild(make("p", null, String(text)));
    while (region.childNodes.length > 4) region.removeChild(region.firstChild);
  }

  function showAlert(text, kind) {
    var box = $("room-alerts");
    if (!box) return;
    var last = box.lastElementChild;
    if (last && last.dataset.text === text) box.removeChild(last);  // the same words again: move them last
    var alert = make("div", "alert" + (kind ? " " + kind : ""));
    alert.dataset.text = text;
    alert.appendChild(make("p", null, text));
    var dismiss = make("button", "small");
    dismiss.type = "button";
    dismiss.setAttribute("aria-label", gettext("Dismiss this message"));
    dismiss.textContent = "×";
    dismiss.addEventListener("click", function () { dismissAlert(alert); });
    alert.appendChild(dismiss);
    box.appendChild(alert);
    while (box.children.length > MAX_ALERTS) box.removeChild(box.firstElementChild);
  }

  function dismissAlert(alert) {
    var next = alert.nextElementSibling || alert.previousElementSibling;
    alert.remove();
    var target = next ? next.querySelector("button") : $("main");
    if (target) target.focus();
  }

  // --- the clock: deadlines come in server time ---------------------------------------------------

  function setClock(serverTime) {
    if (typeof serverTime === "number") state.clockOffset = serverTime - Date.now() / 1000;
  }

  function serverNow() { return Date.now() / 1000 + state.clockOffset; }

  function isPaused(game) {
    return Boolean(game) && game.paused_remaining !== null && game.paused_remaining !== undefined;
  }

  function timeLeft() {
    var game = state.game;
    if (!game || game.status !== "playing") return null;
    if (isPaused(game)) return game.paused_remaining;
    if (!game.deadline) return null;
    return Math.max(0, game.deadline - serverNow());
  }

  // --- the connection -----------------------------------------------------------------------------

  function socketUrl() {
    return (window.location.protocol === "https:" ? "wss://" : "ws://") + window.location.host + config.socket;
  }

  function send(message) {
    var socket = state.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    try {
      socket.send(JSON.stringify(message));
      return true;
    } catch (error) {
      return false;
    }
  }

  function connect() {
    clearTimeout(state.retryTimer);
    if (state.gone) return;
    setConnection(state.lost ? "waiting" : "connecting");
    var socket;
    try {
      socket = new WebSocket(socketUrl());
    } catch (error) {
      scheduleReconnect();
      return;
    }
    state.socket = socket;
    state.lastMessageAt = Date.now();
    socket.onmessage = function (event) {
      if (socket !== state.socket) return;
      state.lastMessageAt = Date.now();
      var message;
      try { message = JSON.parse(event.data); } catch (error) { return; }
      try {
        handle(message);
      } catch (error) {
        if (window.console) console.error("room.js could not handle a message", message, error);
      }
    };
    socket.onclose = function (event) {
      if (socket !== state.socket) return;
      state.socket = null;
      if (event.code === 4404) {
        roomGone();
        return;
      }
      if (state.everOpened && !state.lost) {
        state.lost = true;
        announce(gettext("Connection lost. Reconnecting…"));
      }
      scheduleReconnect();
    };
    socket.onerror = function () { /* a close event follows */ };
  }

  // Exponential backoff with jitter so that a restarted server is not hit by every tab at once.
  function scheduleReconnect() {
    clearTimeout(state.retryTimer);
    var ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * Math.pow(2, state.attempt));
    var delay = ceiling / 2 + Math.random() * ceiling / 2;
    state.attempt += 1;
    state.retryAt = Date.now() + delay;
    state.retryTimer = setTimeout(connect, delay);
    setConnection("waiting");
  }

  function reconnectNow() {
    if (state.gone) return;
    if (state.socket && state.socket.readyState <= WebSocket.OPEN) return;
    state.attempt = 0;
    connect();
  }

  function dropSocket() {
    var socket = state.socket;
    state.socket = null;
    if (socket) {
      try { socket.close(); } catch (error) { /* already closing */ }
    }
  }

  function roomGone() {
    state.gone = true;
    clearTimeout(state.retryTimer);
    setConnection("gone");
    showAlert(gettext("This room no longer exists. Reload the page to see its finished games."));
  }

  function setConnection(kind) {
    var box = $("connection");
    if (!box) return;
    box.dataset.state = kind;
    document.body.classList.toggle("room-offline", kind !== "open");  // what is shown may be stale
    var text = {
      connecting: gettext("Connecting…"),
      open: gettext("Live"),
      gone: gettext("Room closed"),
    }[kind];
    if (kind === "waiting") {
      var seconds = Math.max(0, Math.ceil((state.retryAt - Date.now()) / 1000));
      text = navigator.onLine === false
        ? gettext("Offline: waiting for the network…")
        : seconds > 0
          ? interpolate(gettext("Reconnecting in %(seconds)s s…"), { seconds: seconds }, true)
          : gettext("Reconnecting…");
    }
    $("connection-text").textContent = text;
    setText($("status-connection-text"), text || "");
    var mirror = $("status-connection");
    if (mirror) mirror.dataset.state = kind;
    show("connection-retry", kind === "waiting");
    renderStatusBar();
  }

  function keepAlive() {
    var socket = state.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    if (Date.now() - state.lastMessageAt > SILENCE_LIMIT_MS) {
      dropSocket();
      state.lost = true;
      scheduleReconnect();
      return;
    }
    send({ type: "ping" });
  }

  // Asked for too soon after the last one, a sync is sent later rather than dropped.
  function requestSync() {
    var wait = state.lastSyncAt + SYNC_THROTTLE_MS - Date.now();
    if (wait > 0) {
      if (!state.syncTimer) {
        state.syncTimer = setTimeout(function () { state.syncTimer = null; requestSync(); }, wait);
      }
      return;
    }
    state.lastSyncAt = Date.now();
    send({ type: "sync" });
  }

  // Updates are sent after commit by whichever process made the move, so two of them can cross on the
  // way. One that arrives early waits a moment for the one before it; only a real gap asks for a sync.
  var REORDER_WAIT_MS = 600;

  function holdEarlyUpdate(message) {
    state.early[message.seq] = message;
    clearTimeout(state.gapTimer);
    state.gapTimer = setTimeout(function () {
      if (Object.keys(state.early).length) requestSync();
    }, REORDER_WAIT_MS);
  }

  function applyHeldUpdates() {
    var number = state.game && state.game.number;
    Object.keys(state.early).forEach(function (seq) {
      var held = state.early[seq];
      if (Number(seq) <= state.seq || !held.game || held.game.number !== number) delete state.early[seq];
    });
    var next = state.early[state.seq + 1];
    if (next) {
      delete state.early[state.seq + 1];
      onUpdate(next);
    } else if (!Object.keys(state.early).length) {
      clearTimeout(state.gapTimer);
    }
  }

  // --- messages from the server -------------------------------------------------------------------

  function handle(message) {
    switch (message.type) {
      case "snapshot": return onSnapshot(message);
      case "update": return onUpdate(message);
      case "room":
        state.roomDigest = message.room_digest;
        return onRoom(message.room);
      case "error": return onServerError(message);
      case "pong": return onPong(message.position);
      default: return null;  // anything newer
    }
  }

  // A pong says where the room and its game stand. An update lost on the way leaves no gap to notice until
  // the next one arrives, which may be never (the last move of a game; room news): this is when it is
  // noticed. A message sent before the pong may still be on its way, so look again before asking.
  function onPong(position) {
    if (!position || !isBehind(position)) return;
    clearTimeout(state.pongTimer);
    state.pongTimer = setTimeout(function () {
      if (isBehind(position)) requestSync();
    }, PONG_RECHECK_MS);
  }

  function isBehind(position) {
    var game = state.game;
    if (position.room_digest !== state.roomDigest) return true;
    if (!game) return false;
    var paused = game.paused_remaining !== null && game.paused_remaining !== undefined;
    return position.number > game.number || (position.number === game.number && (
      position.seq > state.seq ||
      (position.seq === state.seq && (position.status !== game.status || position.paused !== paused))));
  }

  function onSnapshot(message) {
    var wasLost = state.lost;
    state.everOpened = true;
    state.lost = false;
    state.attempt = 0;
    setConnection("open");
    if (wasLost) announce(gettext("Connected again."));
    var previousSeat = state.seat;
    state.seat = message.you ? message.you.seat : null;
    setClock(message.server_time);
    var previousRoom = state.room;
    var previousGame = previousSeat === state.seat ? state.game : null;
    state.room = message.room;
    state.roomDigest = message.room_digest;
    state.game = message.game;
    state.view = message.view;
    state.seq = message.seq || 0;
    state.holdEnd = false;
    if (message.game && message.game.status !== "lobby") endAutostart();
    noticeSeatChanges(previousRoom, state.room);
    renderAll();
    var settled = feedRenderer([]);
    noticeTurnWhenDrawn(settled, turnBegins(previousGame, message.game, []), true);
    maybeSendSeed();
    maybeAutostart();
    applyHeldUpdates();
  }

  function onUpdate(message) {
    var game = message.game;
    var current = state.game;
    if (!game) return;
    if (current && game.number < current.number) return;  // a late word about an older game
    var sameGame = Boolean(current) && game.number === current.number;
    var events = message.events || [];
    if (sameGame && message.seq > state.seq + 1) {
      holdEarlyUpdate(message);  // wait briefly for the one before it, else a snapshot replaces everything
      return;
    }
    if (sameGame && message.seq < state.seq) return;
    if (sameGame && message.seq === state.seq && current.status !== "lobby") {
      // Pause, resume and an early end keep the seq; anything else here is already in what we show.
      // (The start of a game also has the lobby's seq, 0: its "start" event is news.)
      events = events.filter(function (event) {
        return event.type === "paused" || event.type === "resumed" || event.type === "ended";
      });
    }
    var previousStatus = sameGame ? current.status : null;
    var begins = turnBegins(current, game, events);
    setClock(message.server_time);
    state.game = game;
    state.view = message.view;
    state.seq = message.seq;
    if (!sameGame) {
      state.startPendingUntil = 0;
      state.playAgainPendingUntil = 0;
      if (message.seq > 1) requestSync();
    }
    if (game.status !== "lobby") endAutostart();
    var becameOver = isOver(game) && previousStatus !== null && !isOver({ status: previousStatus });
    state.holdEnd = becameOver;
    renderAll();
    noticeEvents(events, game);  // "Game 2 has started" before the table's own words
    var settled = feedRenderer(events);
    if (becameOver) revealEndWhen(settled, game);
    noticeTurnWhenDrawn(settled, begins, false);
    applyHeldUpdates();
  }

  function isOver(game) { return game.status === "finished" || game.status === "ended"; }

  // A renderer may return a promise from update() that settles when that update is drawn, after its
  // animation: what the room says about it waits for that (at most END_HOLD_MS), so that neither the
  // ranking nor "your turn" spoils candles still in the air.
  function whenDrawn(settled, then) {
    if (settled && typeof settled.then === "function") {
      var timeout = new Promise(function (resolve) { setTimeout(resolve, END_HOLD_MS); });
      Promise.race([settled, timeout]).then(then, then);
    } else {
      then();
    }
  }

  function revealEndWhen(settled, game) {
    whenDrawn(settled, function () {
      if (!state.holdEnd || state.game !== game) return;
      state.holdEnd = false;
      renderAll();
      noticeGameOver(game);
      bringIntoView($("end-panel"));
    });
  }

  function onRoom(room) {
    if (!room) return;
    var previous = state.room;
    state.room = room;
    confirmSeed();
    noticeSeatChanges(previous, room);
    renderAll();
    maybeSendSeed();
    maybeAutostart();
  }

  function onServerError(message) {
    var text = message.message || gettext("Something went wrong.");
    if (message.ref === "seed") {
      if (message.code === "game_started") return;  // the host started first: nothing to fix
      setSeedStatus(text, true);
      return;
    }
    if (message.ref === "start") {
      state.startPendingUntil = 0;
      endAutostart();  // the lobby and its Start button come back with the message
    }
    if (message.ref === "play_again") state.playAgainPendingUntil = 0;
    showAlert(text, message.code === "stale_seq" ? "info" : "");
    renderLobby();
    renderEnd();
  }

  // --- players ------------------------------------------------------------------------------------

  function players() {
    var seats = (state.room && state.room.seats) || [];
    var started = (state.game && state.game.players) || [];
    var count = Math.max(seats.length, started.length);
    var list = [];
    for (var i = 0; i < count; i++) {
      var seat = seats[i] || {};
      var early = started[i] || {};
      list.push({
        name: seat.name || early.name || "",
        bot: Boolean(seat.bot !== undefined ? seat.bot : early.bot),
        stand_in: Boolean(seat.stand_in),
        connected: Boolean(seat.connected),
      });
    }
    return list;
  }

  function botNumber(list, index) {
    var number = 0;
    for (var i = 0; i <= index; i++) if (list[i] && list[i].bot) number += 1;
    return number;
  }

  function playerLabel(index) {
    var list = players();
    var player = list[index];
    if (!player) return interpolate(gettext("Seat %(n)s"), { n: index + 1 }, true);
    if (player.bot) return interpolate(gettext("Bot %(n)s"), { n: botNumber(list, index) }, true);
    var name = player.name || interpolate(gettext("Seat %(n)s"), { n: index + 1 }, true);
    if (player.stand_in) return interpolate(gettext("bot playing for %(name)s"), { name: name }, true);
    return name;
  }

  function mySeatRow() {
    if (state.seat === null || state.seat === undefined || !state.room) return null;
    return state.room.seats[state.seat] || null;
  }

  function isHost() {
    return state.room !== null && state.seat !== null && state.seat === state.room.host;
  }

  function isMyTurnIn(game) {
    return Boolean(game && game.status === "playing" && state.seat !== null && state.seat !== undefined &&
      (game.to_act || []).indexOf(state.seat) !== -1);
  }

  function isMyTurn() { return isMyTurnIn(state.game); }

  // Does `game` put a new decision to this player? Either they were not to act before, or they were and
  // a new decision came with a new deadline (a new round once they were the last to pick). A resume
  // also sets a new deadline, but for the same decision. In a turn-based game the same player deciding
  // again (throw, climb, throw...) is still the same turn.
  function turnBegins(previous, game, events) {
    if (!isMyTurnIn(game) || isPaused(game)) return false;
    if (!previous || previous.number !== game.number || !isMyTurnIn(previous)) return true;
    var impl = rendererImpl();
    if (impl && impl.turnBased) return false;
    var resumed = events.some(function (event) { return event.type === "resumed"; });
    return !resumed && !isPaused(previous) && game.deadline !== previous.deadline;
  }

  // --- what is happening, in words and sounds -----------------------------------------------------

  function noticeSeatChanges(before, after) {
    if (!before || !after || !after.seats) return;
    after.seats.forEach(function (seat, index) {
      var old = before.seats[index];
      if (!old) return;
      if (!old.taken && seat.taken && !seat.bot && index !== state.seat) {
        announce(interpolate(gettext("%(name)s took seat %(n)s."), { name: seat.name, n: index + 1 }, true));
      }
      if (!old.stand_in && seat.stand_in) {
        announce(interpolate(gettext("A bot plays for %(name)s until they are back."), { name: seat.name }, true));
      } else if (old.stand_in && !seat.stand_in && !seat.bot) {
        announce(interpolate(gettext("%(name)s is back."), { name: seat.name }, true));
      }
    });
  }

  function noticeEvents(events, game) {
    events.forEach(function (event) {
      if (event.type === "start") {
        announce(interpolate(gettext("Game %(n)s has started."), { n: game.number }, true));
      } else if (event.type === "paused") {
        announce(gettext("The game is paused."));
      } else if (event.type === "resumed") {
        announce(gettext("The game goes on."));
      }
    });
  }

  function noticeGameOver(game) {
    Sound.play("end");
    if (game.status === "ended") {
      announce(gettext("The game ended early. Its seed is now revealed."));
      return;
    }
    var winners = (game.result || []).filter(function (row) { return row.place === 1; });
    var mine = winners.some(function (row) { return row.seat === state.seat; });
    var names = winners.map(function (row) { return playerLabel(row.seat); }).join(", ");
    announce(mine && winners.length === 1
      ? gettext("Game over. You won!")
      : interpolate(gettext("Game over. First place: %(names)s."), { names: names }, true));
  }

  // "Your turn" (sound, words, title) once the table shows the decision, not when the update arrives:
  // a round's candles are still being placed then. By the time it is drawn the turn may be over.
  function noticeTurnWhenDrawn(settled, begins, fromSnapshot) {
    if (begins || !isMyTurn()) {
      state.turnShown = false;  // the decision marked in the title is over (a new one is shown when drawn)
      updateTitle();
    }
    whenDrawn(settled, function () {
      var mine = isMyTurn() && !isPaused(state.game);
      if (begins && mine) {
        Sound.play("turn");
        var impl = rendererImpl();
        // A table that announces turns does so for its updates; a snapshot brings no events to tell.
        if (!(impl && impl.announcesTurns) || fromSnapshot) announce(gettext("Your turn to decide."));
      }
      state.turnShown = isMyTurn();
      updateTitle();
    });
  }

  var baseTitle = document.title;
  function updateTitle() {
    var title = (state.turnShown && isMyTurn() ? "● " : "") + baseTitle;
    if (document.title !== title) document.title = title;
  }

  // --- rendering ----------------------------------------------------------------------------------

  function phase() {
    var game = state.game;
    if (!state.room) return "connecting";
    if (!game || game.status === "lobby") return "lobby";
    if (game.status === "playing") return "playing";
    return "over";
  }

  function renderAll() {
    var now = phase();
    var starting = (now === "lobby" || now === "connecting") && Boolean(state.autostart);
    show("stage-connecting", now === "connecting" || starting);
    setText($("stage-connecting-text"), starting ? gettext("Starting the game…") : gettext("Connecting to the room…"));
    show("lobby", now === "lobby" && !starting);
    show("end-panel", now === "over" && !state.holdEnd);
    show("table-area", now === "playing" || now === "over");
    renderJoin(now);
    renderLobby();
    renderSeatsBar();
    renderEnd();
    renderFairness();
    updateTimer();
  }

  function setText(node, text) {
    if (node && node.textContent !== text) node.textContent = text;
  }

  // A table that shows its players (showsPlayers) makes the seats bar a repeat: during play the room
  // then keeps a compact bar with the timer, the pause and a lost connection, sticky on small screens.
  function tableShowsPlayers() {
    var impl = rendererImpl();
    return Boolean(impl && impl.showsPlayers && !state.rendererFailed);
  }

  function renderStatusBar() {
    var bar = $("play-status");
    if (!bar) return;
    var now = phase();
    var compact = tableShowsPlayers();
    var offline = $("connection") && $("connection").dataset.state !== "open";
    bar.classList.toggle("compact", compact);
    show("seats-bar", !compact);
    show("status-connection", compact && offline);
    var visible = compact
      ? now === "playing" && (!$("timer").hidden || offline)
      : now === "playing" || now === "over";
    show(bar, visible);
  }

  function connectedDot(seat) {
    var wrap = make("span", "presence");
    var dot = make("span", "dot" + (seat.connected ? " on" : ""));
    dot.setAttribute("aria-hidden", "true");
    dot.title = seat.connected ? gettext("Connected") : gettext("Not connected");
    wrap.appendChild(dot);
    wrap.appendChild(make("span", "visually-hidden", seat.connected ? gettext("connected") : gettext("not connected")));
    return wrap;
  }

  function badge(kind, text) { return make("span", "badge " + kind, text); }

  function renderLobby() {
    var list = $("lobby-seats");
    var room = state.room;
    if (!list || !room || phase() !== "lobby") return;
    list.textContent = "";
    var empty = 0;
    room.seats.forEach(function (seat, index) {
      var item = make("li", "seat-item");
      if (index === state.seat) item.classList.add("mine");
      if (!seat.taken) item.classList.add("empty");
      item.appendChild(make("span", "seat-number", String(index + 1)));
      var name;
      if (!seat.taken) {
        empty += 1;
        name = gettext("Empty seat");
      } else {
        name = playerLabel(index);
      }
      var body = make("span", "seat-body");
      if (seat.taken && !seat.bot) body.appendChild(connectedDot(seat));
      body.appendChild(make("span", "seat-name", name));
      var badges = make("span", "seat-badges");
      if (index === room.host) badges.appendChild(badge("host", gettext("Host")));
      if (index === state.seat) badges.appendChild(badge("you", gettext("You")));
      if (seat.bot) badges.appendChild(badge("bot", gettext("Bot")));
      if (seat.taken && !seat.bot && seat.client_seed) {
        var seedBadge = badge("ok", gettext("seed ✓"));
        seedBadge.title = gettext("Client seed received");
        badges.appendChild(seedBadge);
      }
      body.appendChild(badges);
      item.appendChild(body);
      list.appendChild(item);
    });
    var host = isHost();
    var canStart = host && Boolean(room.next_game);
    var start = $("start-button");
    show(start, canStart);
    if (start) start.disabled = Date.now() < state.startPendingUntil;
    var hint = $("start-hint");
    if (hint) {
      hint.textContent = empty > 0
        ? interpolate(ngettext("%(n)s empty seat will get a bot when you start.",
          "%(n)s empty seats will get bots when you start.", empty), { n: empty }, true)
        : gettext("Every seat is taken. Start when everyone is ready.");
    }
    show(hint, canStart);
    show("lobby-waiting", !host);
  }

  function renderJoin(now) {
    var join = $("join-panel");
    var note = $("watching-note");
    var room = state.room;
    var seated = state.seat !== null && state.seat !== undefined;
    var freeSeat = Boolean(room) && room.seats.some(function (seat) { return !seat.taken; });
    var canJoin = !seated && now === "lobby" && freeSeat;
    show(join, canJoin);
    if (note) {
      note.textContent = now === "lobby"
        ? gettext("Every seat is taken. You are watching this room.")
        : gettext("You are watching this game.");
      show(note, !seated && !canJoin && now !== "connecting");
    }
  }

  function renderSeatsBar() {
    var bar = $("seats-bar");
    var game = state.game;
    var now = phase();
    if (!bar || !game || (now !== "playing" && now !== "over") || tableShowsPlayers()) return;
    bar.textContent = "";
    var toAct = game.to_act || [];
    var paused = game.paused_remaining !== null && game.paused_remaining !== undefined;
    players().forEach(function (player, index) {
      var chip = make("li", "seat-chip");
      if (index === state.seat) chip.classList.add("mine");
      var deciding = now === "playing" && toAct.indexOf(index) !== -1;
      if (deciding) chip.classList.add("to-act");
      // Bots and stand-ins carry the word in their label ("Bot 2", "bot playing for Ana").
      if (player.bot) chip.classList.add("bot");
      else chip.appendChild(connectedDot(player));
      if (player.stand_in && !player.bot) chip.classList.add("stand-in");
      chip.appendChild(make("span", "seat-name", playerLabel(index)));
      if (index === state.seat) chip.appendChild(badge("you", gettext("You")));
      if (now === "playing" && !paused) {
        chip.appendChild(make("span", "act-state", deciding ? gettext("deciding…") : gettext("done")));
      }
      bar.appendChild(chip);
    });
  }

  function updateTimer() {
    var timer = $("timer");
    var game = state.game;
    if (!timer) return;
    var left = phase() === "playing" && game ? timeLeft() : null;
    show(timer, left !== null);
    renderStatusBar();
    if (left === null) return;
    var paused = isPaused(game);
    var total = game.decision_seconds || left || 1;
    // A countdown posed by a reveal has the reveal's time on top: the clock holds at the full time
    // while the table tells it, then runs (rooms' countdown_seconds).
    left = Math.min(left, total);
    var seconds = Math.ceil(left);
    timer.classList.toggle("paused", paused);
    timer.classList.toggle("urgent", !paused && left <= 5);
    $("timer-fill").style.width = Math.max(0, Math.min(100, (left / total) * 100)) + "%";
    setText($("timer-text"), paused
      ? interpolate(gettext("Paused · %(seconds)s s left"), { seconds: seconds }, true)
      : interpolate(gettext("%(seconds)s s left"), { seconds: seconds }, true));
    if (paused || !isMyTurn() || !state.turnShown) return;
    if (seconds <= 5 && seconds > 0 && seconds !== state.lastTickSecond) Sound.play("tick");
    state.lastTickSecond = seconds;
    if (seconds === 10 && state.warnedDeadline !== game.deadline) {
      state.warnedDeadline = game.deadline;
      announce(gettext("10 seconds left to decide."));
    }
  }

  function ordinal(place) {
    switch (place) {
      case 1: return gettext("1st");
      case 2: return gettext("2nd");
      case 3: return gettext("3rd");
      default: return interpolate(gettext("%(n)sth"), { n: place }, true);
    }
  }

  function endReasonText(reason) {
    if (reason === "expired") return gettext("The room expired before the game was over.");
    if (reason === "admin") return gettext("An administrator ended it.");
    return gettext("It was stopped before the end.");
  }

  function scoreText(score) {
    var impl = rendererImpl();
    if (impl && typeof impl.scoreText === "function") return impl.scoreText(score);
    var label = impl && impl.scoreLabel ? impl.scoreLabel : gettext("points");
    return interpolate(gettext("%(score)s %(label)s"), { score: score, label: label }, true);
  }

  function renderEnd() {
    var game = state.game;
    if (phase() !== "over" || !game) return;
    var ended = game.status === "ended";
    $("end-title").textContent = ended
      ? interpolate(gettext("Game %(n)s ended early"), { n: game.number }, true)
      : interpolate(gettext("Game %(n)s is over"), { n: game.number }, true);
    var reason = $("end-reason");
    reason.textContent = ended ? endReasonText(game.end_reason) : "";
    show(reason, ended);
    var ranking = $("ranking");
    ranking.textContent = "";
    var rows = (game.result || []).slice().sort(function (a, b) { return a.place - b.place || a.seat - b.seat; });
    rows.forEach(function (row) {
      var item = make("li");
      if (row.place === 1) item.classList.add("first");
      if (row.seat === state.seat) item.classList.add("mine");
      item.appendChild(make("span", "rank-place", ordinal(row.place)));
      item.appendChild(make("span", "rank-name", playerLabel(row.seat)));
      item.appendChild(make("span", "rank-score", scoreText(row.score)));
      ranking.appendChild(item);
    });
    show(ranking, rows.length > 0);
    var impl = rendererImpl();
    var rule = $("score-rule");
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
    var canPlayAgain = isHost() && Boolean(state.room && state.room.next_game);
    show("play-again", canPlayAgain);
    $("play-again").disabled = Date.now() < state.playAgainPendingUntil;
    show("end-waiting", !isHost());
  }

  // --- fairness: fingerprints and the player's client seed ----------------------------------------

  function randomSeed() {
    var bytes = new Uint8Array(16);  // 128 bits: 22 base64url characters
    window.crypto.getRandomValues(bytes);
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return window.btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function seedKey(number) { return "wickwise:seed:" + config.code + ":" + number; }

  function seedFor(number) {
    var value = storageGet(seedKey(number));
    if (!value || !CLIENT_SEED.test(value)) {
      value = randomSeed();
      storageSet(seedKey(number), value);
    }
    return value;
  }

  function canContributeSeed() {
    var mine = mySeatRow();
    return Boolean(state.room && state.room.next_game && mine && !mine.bot);
  }

  function maybeSendSeed() {
    if (!canContributeSeed()) return;
    var number = state.room.next_game.number;
    var value = seedFor(number);
    var sent = state.seedSent;
    var same = sent && sent.number === number && sent.value === value;
    if (same && (mySeatRow().client_seed || Date.now() - sent.at < SEED_RESEND_MS)) {
      renderSeedStatus();
      return;
    }
    if (send({ type: "client_seed", value: value, ref: "seed" })) {
      state.seedSent = { number: number, value: value, at: Date.now(), confirmed: false };
    }
    renderSeedStatus();
  }

  // The room tells only whether a seat has a client seed, not which: the first room message after
  // sending one (the server broadcasts it when the seed is stored) confirms it.
  function confirmSeed() {
    var sent = state.seedSent;
    var mine = mySeatRow();
    if (sent && !sent.confirmed && mine && mine.client_seed && state.room.next_game &&
        state.room.next_game.number === sent.number) {
      sent.confirmed = true;
    }
  }

  function setSeedStatus(text, isError) {
    var status = $("seed-status");
    if (!status) return;
    if (status.textContent !== text) status.textContent = text;  // unchanged words are not announced again
    status.classList.toggle("error", Boolean(isError));
  }

  function renderSeedStatus() {
    if (!canContributeSeed()) return;
    var sent = state.seedSent;
    var number = state.room.next_game.number;
    var received = mySeatRow().client_seed && sent && sent.confirmed && sent.number === number &&
      sent.value === seedFor(number);
    setSeedStatus(received ? gettext("Received by the table ✓") : gettext("Sending…"), false);
  }

  function renderFairness() {
    var room = state.room;
    var game = state.game;
    var started = game && game.status !== "lobby";
    var current = $("fair-current");
    show(current, Boolean(started));
    if (started) {
      $("fair-current-label").textContent = interpolate(
        gettext("Fingerprint of game %(n)s:"), { n: game.number }, true);
      $("fair-current-fingerprint").textContent = game.fingerprint;
      renderCurrentContributors(game);
    }
    var next = room && room.next_game;
    show("fair-next", Boolean(next));
    if (!next) return;
    $("fair-next-label").textContent = started
      ? interpolate(gettext("Fingerprint of the next game (%(n)s):"), { n: next.number }, true)
      : interpolate(gettext("Fingerprint of game %(n)s:"), { n: next.number }, true);
    $("fair-next-fingerprint").textContent = next.fingerprint;
    var form = $("seed-form");
    var input = $("client-seed");
    show(form, canContributeSeed());
    if (canContributeSeed() && document.activeElement !== input) {
      var value = seedFor(next.number);
      if (input.value !== value) {
        input.value = value;
        input.removeAttribute("aria-invalid");
      }
    }
    renderContributors(room);
  }

  function renderContributors(room) {
    var list = $("contributors");
    if (!list) return;
    list.textContent = "";
    room.seats.forEach(function (seat, index) {
      if (!seat.taken) return;
      var item = make("li");
      item.appendChild(make("span", null, playerLabel(index)));
      var mark;
      if (seat.bot) mark = make("span", "no", gettext("bots add none"));
      else if (seat.client_seed) mark = make("span", "yes", gettext("client seed ✓"));
      else mark = make("span", "no", gettext("no client seed yet"));
      item.appendChild(mark);
      list.appendChild(item);
    });
  }

  // The client seeds the game in play was mixed with (public: they are part of its record).
  function renderCurrentContributors(game) {
    var list = $("current-contributors");
    if (!list) return;
    list.textContent = "";
    var seeds = game.client_seeds || [];
    (game.players || []).forEach(function (player, index) {
      var item = make("li");
      item.appendChild(make("span", null, playerLabel(index)));
      if (player.bot) item.appendChild(make("span", "no", gettext("bots add none")));
      else if (seeds[index]) item.appendChild(make("span", "yes", gettext("client seed ✓")));
      else item.appendChild(make("span", "no", gettext("no client seed")));
      list.appendChild(item);
    });
  }

  // --- "Play against bots": this page starts the game it was opened for --------------------------

  // The host's browser sends its client seed (maybeSendSeed), then starts once the room shows the
  // seed received for this seat, or after AUTOSTART_SEED_WAIT_MS without it: one click for the player,
  // and the deal still mixes in a seed from their browser.
  function maybeAutostart() {
    if (!state.autostart || !state.room) return;
    if (phase() !== "lobby" || !isHost() || !state.room.next_game) {
      endAutostart();
      return;
    }
    if (state.autostart !== "waiting") return;
    var sent = state.seedSent;
    if (sent && sent.confirmed && sent.number === state.room.next_game.number) {
      sendAutostart();
    } else if (!state.autostartTimer) {
      state.autostartTimer = setTimeout(sendAutostart, AUTOSTART_SEED_WAIT_MS);
    }
  }

  function sendAutostart() {
    clearTimeout(state.autostartTimer);
    state.autostartTimer = null;
    if (state.autostart !== "waiting" || phase() !== "lobby" || !isHost()) return;
    if (!send({ type: "start", ref: "start" })) return;  // not connected: the next snapshot tries again
    state.autostart = "sent";
    state.startPendingUntil = Date.now() + BUTTON_PENDING_MS;
    state.autostartTimer = setTimeout(function () {
      state.autostartTimer = null;
      if (state.autostart === "sent") endAutostart();
    }, AUTOSTART_GIVE_UP_MS);
  }

  // The game started, or starting failed (the lobby and its Start button are shown instead).
  function endAutostart() {
    if (!state.autostart) return;
    clearTimeout(state.autostartTimer);
    state.autostartTimer = null;
    state.autostart = null;
    renderAll();
  }

  function saveTypedSeed() {
    var input = $("client-seed");
    if (!canContributeSeed() || !input) return;
    var value = input.value.trim();
    if (!CLIENT_SEED.test(value)) {
      input.setAttribute("aria-invalid", "true");
      setSeedStatus(gettext("A client seed is 1 to 64 letters, digits, - or _."), true);
      return;
    }
    input.removeAttribute("aria-invalid");
    storageSet(seedKey(state.room.next_game.number), value);
    maybeSendSeed();
  }

  // --- the game's renderer ------------------------------------------------------------------------

  function rendererImpl() {
    var games = window.WickwiseGames;
    return (games && games[config.game]) || null;
  }

  function rendererContext() {
    return {
      seat: state.seat,
      settings: config.table || {},
      players: players,
      playerLabel: playerLabel,
      sendMove: function (action) {
        var sent = send({ type: "move", seq: state.seq, action: action, ref: "move" });
        if (!sent) showAlert(gettext("You are not connected right now, so that move was not sent. Reconnecting…"));
        return sent;
      },
      announce: announce,
      sound: { play: function (name) { Sound.play(name); } },
      timeLeft: timeLeft,
    };
  }

  function unmountRenderer() {
    if (!state.renderer) return;
    try {
      if (typeof state.renderer.destroy === "function") state.renderer.destroy();
    } catch (error) {
      if (window.console) console.error(error);
    }
    state.renderer = null;
    state.rendererKey = null;
    $("table").textContent = "";
  }

  function showTableLoading(visible, failed) {
    show("table-loading", visible);
    if (!visible) return;
    $("table-loading-text").textContent = failed
      ? gettext("The table could not be loaded. Please reload the page.")
      : gettext("Loading the table…");
    show("table-reload", Boolean(failed));
    var spinner = document.querySelector("#table-loading .spinner");
    if (spinner) spinner.hidden = Boolean(failed);
  }

  function feedRenderer(events) {
    var game = state.game;
    if (!game || game.status === "lobby" || !state.view) {
      unmountRenderer();
      showTableLoading(false);
      return;
    }
    if (state.rendererFailed) return;
    var impl = rendererImpl();
    if (!impl) {
      waitForRenderer();
      return;
    }
    showTableLoading(false);
    // A new game or a new seat gets a fresh table.
    var key = game.number + ":" + state.seat;
    if (state.renderer && state.rendererKey !== key) unmountRenderer();
    try {
      if (!state.renderer) {
        state.renderer = impl.mount($("table"), rendererContext());
        state.rendererKey = key;
      }
      return state.renderer.update(state.view, events, game);
    } catch (error) {
      if (window.console) console.error("the table renderer failed", error);
      if (!state.renderer) {
        state.rendererFailed = true;
        showTableLoading(true, true);
      }
    }
  }

  function waitForRenderer() {
    if (tableFailedToLoad) {
      state.rendererFailed = true;
      showTableLoading(true, true);
      return;
    }
    showTableLoading(true, false);
    if (!state.rendererWaitStarted) state.rendererWaitStarted = Date.now();
    if (Date.now() - state.rendererWaitStarted > RENDERER_WAIT_MS) {
      showTableLoading(true, true);
      return;
    }
    clearTimeout(state.rendererWaitTimer);
    state.rendererWaitTimer = setTimeout(function () { feedRenderer([]); }, 300);
  }

  // The end of a game appears above the table: on a small screen the player is looking further down.
  function bringIntoView(node) {
    if (!node || node.hidden) return;
    var box = node.getBoundingClientRect();
    if (box.top >= 0 && box.top < window.innerHeight / 2) return;
    var typing = document.activeElement && document.activeElement.closest &&
      document.activeElement.closest("input, textarea, select");
    if (typing) return;
    var reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    node.scrollIntoView({ behavior: reduced ? "auto" : "smooth", block: "start" });
  }

  // --- controls -----------------------------------------------------------------------------------

  function copyText(text, button) {
    function done(ok) {
      if (!button) return;
      var original = button.dataset.label || button.textContent;
      button.dataset.label = original;
      button.textContent = ok ? gettext("Copied!") : gettext("Copy failed");
      announce(ok ? gettext("Copied to the clipboard.") : gettext("Could not copy; select the text and copy it."));
      setTimeout(function () { button.textContent = original; }, 2000);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallbackCopy(text)); });
    } else {
      done(fallbackCopy(text));
    }
  }

  // Plain http (a LAN game) has no clipboard API: copy through a selected, hidden text field.
  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (error) { ok = false; }
    area.remove();
    return ok;
  }

  function renderSoundToggle() {
    var button = $("sound-toggle");
    if (!button) return;
    // The label says what a press does, so it needs no pressed state.
    button.textContent = Sound.isMuted() ? gettext("Turn sound on") : gettext("Mute sound");
    button.classList.toggle("muted", Sound.isMuted());
  }

  function bindControls() {
    document.querySelectorAll("[data-copy-target]").forEach(function (button) {
      button.addEventListener("click", function () {
        var input = $(button.dataset.copyTarget);
        if (input) copyText(input.value, button);
      });
    });
    document.querySelectorAll("[data-copy-text]").forEach(function (button) {
      button.addEventListener("click", function () { copyText(button.dataset.copyText, button); });
    });
    var share = $("share-link");
    if (share) share.addEventListener("focus", function () { share.select(); });

    var start = $("start-button");
    if (start) {
      start.addEventListener("click", function () {
        if (send({ type: "start", ref: "start" })) {
          state.startPendingUntil = Date.now() + BUTTON_PENDING_MS;
          start.disabled = true;
          setTimeout(renderLobby, BUTTON_PENDING_MS + 100);
        } else {
          showAlert(gettext("You are not connected right now. Try again in a moment."));
        }
      });
    }
    var again = $("play-again");
    if (again) {
      again.addEventListener("click", function () {
        if (send({ type: "play_again", ref: "play_again" })) {
          state.playAgainPendingUntil = Date.now() + BUTTON_PENDING_MS;
          again.disabled = true;
          setTimeout(renderEnd, BUTTON_PENDING_MS + 100);
        } else {
          showAlert(gettext("You are not connected right now. Try again in a moment."));
        }
      });
    }

    var form = $("seed-form");
    if (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        saveTypedSeed();
      });
      $("client-seed").addEventListener("change", saveTypedSeed);
      $("client-seed").addEventListener("input", function () {
        var input = $("client-seed");
        if (CLIENT_SEED.test(input.value.trim())) input.removeAttribute("aria-invalid");
      });
      $("seed-new").addEventListener("click", function () {
        if (!canContributeSeed()) return;
        var value = randomSeed();
        $("client-seed").value = value;
        storageSet(seedKey(state.room.next_game.number), value);
        maybeSendSeed();
      });
    }

    var sound = $("sound-toggle");
    if (sound && window.WickwiseSound) {
      sound.addEventListener("click", function () {
        window.WickwiseSound.toggle();
        if (!Sound.isMuted()) Sound.play("pick");
      });
      // The button's words follow the sound however it was switched (a table's M key, say).
      window.WickwiseSound.onChange(renderSoundToggle);
      renderSoundToggle();
    } else if (sound) {
      sound.hidden = true;
    }

    var retry = $("connection-retry");
    if (retry) retry.addEventListener("click", reconnectNow);
    var reload = $("table-reload");
    if (reload) reload.addEventListener("click", function () { window.location.reload(); });

    window.addEventListener("online", reconnectNow);
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") reconnectNow();
    });
  }

  function tick() {
    updateTimer();
    if ($("connection") && $("connection").dataset.state === "waiting") setConnection("waiting");
  }

  bindControls();
  renderAll();
  connect();
  setInterval(keepAlive, PING_EVERY_MS);
  setInterval(tick, 250);

  // For tests and the curious: a read-only look at what the client holds.
  window.WickwiseRoom = {
    state: function () {
      return { seat: state.seat, seq: state.seq, room: state.room, game: state.game, connected: Boolean(state.socket) };
    },
  };
})();
