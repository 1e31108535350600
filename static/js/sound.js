/* Tiny table sounds synthesized with WebAudio: no audio files, nothing to download.
   window.WickwiseSound.play(name) with name in pick, place, tip, turn, tick, end.
   The muted state is kept in localStorage; browsers only allow sound after a tap or key press. */
(function () {
  "use strict";

  var STORAGE_KEY = "wickwise:muted";
  var context = null;
  var muted = readMuted();
  var listeners = [];

  function readMuted() {
    try {
      return window.localStorage.getItem(STORAGE_KEY) === "1";
    } catch {
      return false;
    }
  }

  function writeMuted(value) {
    try {
      window.localStorage.setItem(STORAGE_KEY, value ? "1" : "0");
    } catch {
      // Private browsing may refuse storage; the choice then lasts for this page only.
    }
  }

  function audio() {
    if (context) return context;
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    try {
      context = new Context();
    } catch {
      context = null;
    }
    return context;
  }

  // Browsers start audio suspended until the page gets a gesture.
  function unlock() {
    var ctx = audio();
    if (ctx && ctx.state === "suspended") ctx.resume().catch(function () {});
  }
  ["pointerdown", "keydown", "touchstart"].forEach(function (type) {
    window.addEventListener(type, unlock, { passive: true });
  });

  // One note: an oscillator through a short attack/decay envelope.
  function tone(ctx, options) {
    var start = ctx.currentTime + (options.delay || 0);
    var duration = options.duration || 0.12;
    var osc = ctx.createOscillator();
    var gain = ctx.createGain();
    osc.type = options.type || "sine";
    osc.frequency.setValueAtTime(options.from, start);
    if (options.to) osc.frequency.exponentialRampToValueAtTime(options.to, start + duration);
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(options.volume || 0.15, start + 0.012);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + duration);
    osc.connect(gain);
    gain.connect(ctx.destination);
    osc.start(start);
    osc.stop(start + duration + 0.02);
  }

  // A soft burst of filtered noise, for wax sliding off a shelf.
  function noise(ctx, options) {
    var duration = options.duration || 0.3;
    var length = Math.floor(ctx.sampleRate * duration);
    var buffer = ctx.createBuffer(1, length, ctx.sampleRate);
    var data = buffer.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length);
    var source = ctx.createBufferSource();
    var filter = ctx.createBiquadFilter();
    var gain = ctx.createGain();
    source.buffer = buffer;
    filter.type = "lowpass";
    filter.frequency.value = options.cutoff || 900;
    gain.gain.value = options.volume || 0.08;
    source.connect(filter);
    filter.connect(gain);
    gain.connect(ctx.destination);
    source.start(ctx.currentTime + (options.delay || 0));
  }

  var SOUNDS = {
    pick: function (ctx) { tone(ctx, { from: 880, to: 1320, duration: 0.07, volume: 0.08 }); },
    place: function (ctx) { tone(ctx, { from: 240, to: 150, duration: 0.13, type: "triangle", volume: 0.2 }); },
    tip: function (ctx) {
      tone(ctx, { from: 420, to: 110, duration: 0.38, type: "triangle", volume: 0.16 });
      noise(ctx, { duration: 0.35, cutoff: 700, volume: 0.07, delay: 0.05 });
    },
    turn: function (ctx) {
      tone(ctx, { from: 660, duration: 0.16, volume: 0.1 });
      tone(ctx, { from: 990, duration: 0.22, volume: 0.09, delay: 0.12 });
    },
    tick: function (ctx) { tone(ctx, { from: 1400, duration: 0.035, type: "square", volume: 0.03 }); },
    end: function (ctx) {
      [523.25, 659.25, 783.99, 1046.5].forEach(function (freq, i) {
        tone(ctx, { from: freq, duration: 0.3, volume: 0.09, delay: i * 0.11 });
      });
    },
  };

  function play(name) {
    if (muted || !SOUNDS[name]) return;
    var ctx = audio();
    if (!ctx || ctx.state === "closed") return;
    if (ctx.state === "suspended") ctx.resume().catch(function () {});
    try {
      SOUNDS[name](ctx);
    } catch {
      // A sound is never worth breaking the table for.
    }
  }

  function setMuted(value) {
    muted = Boolean(value);
    writeMuted(muted);
    listeners.forEach(function (listener) { listener(muted); });
  }

  window.WickwiseSound = {
    names: Object.keys(SOUNDS),
    play: play,
    isMuted: function () { return muted; },
    setMuted: setMuted,
    toggle: function () { setMuted(!muted); return muted; },
    onChange: function (listener) { listeners.push(listener); },
  };
})();
