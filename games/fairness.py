"""Fairness v1: the seed, its fingerprint and the streams every deal and roll reads.

Pure: no Django, no I/O beyond `secrets` for a new seed. docs/fairness.md is the specification;
the in-browser verifier (static/js/fairness.js) implements the same steps with WebCrypto.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

VERSION = "wickwise/v1"
CLIENT_SEED_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
SEED_PATTERN = re.compile(r"[0-9a-f]{64}")


def new_seed() -> str:
    """32 random bytes as 64 lowercase hex characters."""
    return secrets.token_bytes(32).hex()


def fingerprint(seed_hex: str) -> str:
    """SHA-256 of the seed's 32 bytes (not of its hex text), in hex."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def is_valid_client_seed(value: str) -> bool:
    return bool(CLIENT_SEED_PATTERN.fullmatch(value))


def mix_string(*, game: str, room_code: str, number: int, client_seeds: list[str | None]) -> str:
    seeds = ",".join(seed or "" for seed in client_seeds)
    return f"{VERSION}|{game}|{room_code}|{number}|{seeds}"


class Stream:
    """The bytes of HMAC-SHA256(seed, MIX|LABEL|k) for k = 0, 1, 2... read in order."""

    def __init__(self, key: bytes, prefix: str):
        self._key = key
        self._prefix = prefix
        self._block = 0
        self._buffer = b""

    def read(self, count: int) -> bytes:
        while len(self._buffer) < count:
            message = f"{self._prefix}{self._block}".encode()
            self._buffer += hmac.new(self._key, message, hashlib.sha256).digest()
            self._block += 1
        out, self._buffer = self._buffer[:count], self._buffer[count:]
        return out

    def uniform(self, n: int) -> int:
        """An integer in [0, n) without modulo bias (rejection sampling on 32-bit words)."""
        if not 1 <= n <= 2**32:
            raise ValueError("n must be between 1 and 2**32")
        limit = 2**32 - (2**32 % n)
        while True:
            x = int.from_bytes(self.read(4), "big")
            if x < limit:
                return x % n

    def shuffle(self, items: list) -> list:
        """Fisher-Yates from the end: for i from len-1 down to 1, swap i and uniform(i+1)."""
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = self.uniform(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


class Rng:
    """What engines receive: a fresh stream per label, all keyed by one game's seed and mix."""

    def __init__(self, seed_hex: str, mix: str):
        if not SEED_PATTERN.fullmatch(seed_hex):
            raise ValueError("seed must be 64 lowercase hex characters")
        self._key = bytes.fromhex(seed_hex)
        self.mix = mix

    def stream(self, label: str) -> Stream:
        return Stream(self._key, f"{self.mix}|{label}|")
