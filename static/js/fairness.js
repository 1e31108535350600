/* Fairness v1 in the browser, with WebCrypto only (docs/fairness.md; games/fairness.py in Python).
 *
 * window.WickwiseFairness: fingerprint(seedHex), mixString({game, roomCode, number, clientSeeds}),
 * createRng(seedHex, mix) -> {mix, stream(label)}, and Stream with read(n), uniform(n), shuffle(items).
 * HMAC runs in WebCrypto, which is asynchronous, so every read returns a Promise. WebCrypto exists
 * only in a secure context (https, or http on localhost/127.0.0.1): isAvailable() says so.
 */
(function (root) {
  "use strict";

  const VERSION = "wickwise/v1";
  const SEED_PATTERN = /^[0-9a-f]{64}$/;
  const CLIENT_SEED_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
  const TWO_32 = 4294967296;
  const encoder = new TextEncoder();

  function subtle() {
    const crypto = root.crypto;
    if (!crypto || !crypto.subtle) {
      throw new Error("WebCrypto is not available here (it needs https or localhost).");
    }
    return crypto.subtle;
  }

  function isAvailable() {
    return Boolean(root.crypto && root.crypto.subtle);
  }

  function isValidSeed(seedHex) {
    return typeof seedHex === "string" && SEED_PATTERN.test(seedHex);
  }

  function isValidClientSeed(value) {
    // The pattern has no newline escape hatch: JS's $ without the m flag matches only at the very end.
    return typeof value === "string" && CLIENT_SEED_PATTERN.test(value);
  }

  function hexToBytes(hex) {
    if (typeof hex !== "string" || hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) {
      throw new Error("not a hex string");
    }
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i += 1) {
      bytes[i] = parseInt(hex.substr(i * 2, 2), 16);
    }
    return bytes;
  }

  function bytesToHex(bytes) {
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  /** SHA-256 of the seed's 32 bytes (not of its text), in lowercase hex. */
  async function fingerprint(seedHex) {
    const digest = await subtle().digest("SHA-256", hexToBytes(seedHex));
    return bytesToHex(new Uint8Array(digest));
  }

  /** wickwise/v1|GAME|ROOMCODE|N|S0,S1,...  (an empty Si for a bot or a seat without a client seed) */
  function mixString({ game, roomCode, number, clientSeeds }) {
    const seeds = clientSeeds.map((seed) => seed || "").join(",");
    return `${VERSION}|${game}|${roomCode}|${number}|${seeds}`;
  }

  function concat(a, b) {
    const out = new Uint8Array(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return out;
  }

  /** The bytes of HMAC-SHA256(seed, MIX|LABEL|k) for k = 0, 1, 2... read in order. */
  class Stream {
    constructor(key, prefix) {
      this._key = key;
      this._prefix = prefix;
      this._block = 0;
      this._buffer = new Uint8Array(0);
    }

    async read(count) {
      while (this._buffer.length < count) {
        const message = encoder.encode(this._prefix + String(this._block));
        const block = new Uint8Array(await subtle().sign("HMAC", this._key, message));
        this._buffer = concat(this._buffer, block);
        this._block += 1;
      }
      const out = this._buffer.slice(0, count);
      this._buffer = this._buffer.slice(count);
      return out;
    }

    /** The next 4 bytes as a big-endian unsigned 32-bit integer. */
    async word() {
      const bytes = await this.read(4);
      return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, false);
    }

    /** An integer in [0, n) without modulo bias: words at or above 2^32 - (2^32 mod n) are read again. */
    async uniform(n) {
      if (!Number.isInteger(n) || n < 1 || n > TWO_32) {
        throw new RangeError("n must be between 1 and 2**32");
      }
      const limit = TWO_32 - (TWO_32 % n);
      for (;;) {
        const x = await this.word();
        if (x < limit) {
          return x % n;
        }
      }
    }

    /** Fisher-Yates from the end: for i from len-1 down to 1, swap i and uniform(i+1). A new array. */
    async shuffle(items) {
      const out = Array.from(items);
      for (let i = out.length - 1; i > 0; i -= 1) {
        const j = await this.uniform(i + 1);
        const held = out[i];
        out[i] = out[j];
        out[j] = held;
      }
      return out;
    }
  }

  /** What engines receive: a fresh stream per label, all keyed by one game's seed and mix. */
  async function createRng(seedHex, mix) {
    if (!isValidSeed(seedHex)) {
      throw new Error("seed must be 64 lowercase hex characters");
    }
    const key = await subtle().importKey(
      "raw", hexToBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
    );
    return {
      mix,
      stream(label) {
        return new Stream(key, `${mix}|${label}|`);
      },
    };
  }

  root.WickwiseFairness = {
    VERSION,
    isAvailable,
    isValidSeed,
    isValidClientSeed,
    hexToBytes,
    bytesToHex,
    fingerprint,
    mixString,
    createRng,
    Stream,
  };
})(typeof window !== "undefined" ? window : globalThis);
