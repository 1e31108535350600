"""Fairness v1 against its test vectors (games/fairness_vectors.json), which docs/fairness.md shows.

The vectors are built by `build_vectors()` below from games/fairness.py and the candles engine;
after a deliberate change to the algorithm, rewrite them with
`python -m tests.games.test_fairness --write` and update the doc. The in-browser verifier must
reproduce the same file (tests/browser/test_verify_js.py).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

from games import fairness
from games.candles import engine as candles

ROOT = Path(__file__).resolve().parents[2]
VECTORS_PATH = ROOT / "games" / "fairness_vectors.json"
DOC_PATH = ROOT / "docs" / "fairness.md"

UNIFORM_LABEL = "uniform"
UNIFORM_NS = (1, 2, 6, 52, 104, 1000, 2**31 + 1, 3 * 2**30, 2**32)
UNIFORM_COUNT = 8
STREAM_LABELS = ("deck", "dice")
REJECTION_N = 3 * 2**30

# The three seeds and what each mixes in: different rooms, numbers and client seeds.
SEEDS = [
    {
        "name": "two seats, no client seeds",
        "seed": bytes(range(32)).hex(),
        "mix_parts": {"game": "candles", "room_code": "K7P2QX", "number": 1, "client_seeds": [None, None]},
    },
    {
        "name": "four seats, two client seeds, a bot and an empty one",
        "seed": hashlib.sha256(b"wickwise vector 2").hexdigest(),
        "mix_parts": {"game": "candles", "room_code": "HN4RWM", "number": 3,
                      "client_seeds": ["alice-7f3k", None, "Bob_42", None]},
    },
    {
        "name": "three seats, a 64-character client seed, game 12",
        "seed": hashlib.sha256(b"wickwise vector 3").hexdigest(),
        "mix_parts": {"game": "candles", "room_code": "ZT9GEB", "number": 12,
                      "client_seeds": ["Zq9-_" + "x7" * 28 + "END", None, "p"]},
    },
]
SAMPLE_PLAYERS = [{"name": "Ana", "bot": False}, {"name": "", "bot": True}, {"name": "Rui", "bot": False}]


# --- building the vectors -----------------------------------------------------------------------

def _words_and_values(stream: fairness.Stream, n: int, count: int) -> tuple[list[int], list[int]]:
    """The 32-bit words uniform(n) reads, rejected ones included, and the values it returns."""
    words, values = [], []
    limit = 2**32 - (2**32 % n)
    while len(values) < count:
        word = int.from_bytes(stream.read(4), "big")
        words.append(word)
        if word < limit:
            values.append(word % n)
    return words, values


def _vector(spec: dict) -> dict:
    seed, parts = spec["seed"], spec["mix_parts"]
    mix = fairness.mix_string(**parts)
    rng = fairness.Rng(seed, mix)
    uniform = []
    for n in UNIFORM_NS:
        words, values = _words_and_values(rng.stream(UNIFORM_LABEL), n, UNIFORM_COUNT)
        uniform.append({"label": UNIFORM_LABEL, "n": n, "words": words, "values": values})
    deals = []
    for seats in (2, 4):
        state = candles.setup(seats, {"round_seconds": 30}, rng)
        deals.append({"seats": seats, "hands": state["hands"], "shelves": state["shelves"]})
    return {
        "name": spec["name"],
        "seed": seed,
        "mix_parts": parts,
        "mix": mix,
        "fingerprint": fairness.fingerprint(seed),
        "streams": [{"label": label, "first_64_bytes": rng.stream(label).read(64).hex()} for label in STREAM_LABELS],
        "uniform": uniform,
        "shuffle_deck": rng.stream("deck").shuffle(range(1, 105)),
        "candles_deals": deals,
    }


def _rejection_case() -> dict:
    """The first label `rejection:k` (seed 1) whose first two words uniform(3 * 2**30) rejects."""
    spec = SEEDS[0]
    rng = fairness.Rng(spec["seed"], fairness.mix_string(**spec["mix_parts"]))
    limit = 2**32 - (2**32 % REJECTION_N)
    for k in range(1000):  # pragma: no branch - one in 16 labels qualifies
        label = f"rejection:{k}"
        stream = rng.stream(label)
        words = [int.from_bytes(stream.read(4), "big") for _ in range(4)]
        if words[0] >= limit and words[1] >= limit and words[2] < limit:
            stream = rng.stream(label)
            return {
                "seed": spec["seed"],
                "mix": rng.mix,
                "label": label,
                "n": REJECTION_N,
                "limit": limit,
                "words": words,
                "rejected": [word >= limit for word in words],
                "values": [stream.uniform(REJECTION_N) for _ in range(2)],
            }
    raise AssertionError("no rejection case found")  # pragma: no cover


def _sample_record() -> tuple[dict, dict]:
    """A whole three-seat game. Its moves follow a fixed pattern (seat s plays the candle at position
    (round + s) mod hand size of its sorted hand) so that the file depends only on the rules."""
    spec = SEEDS[2]
    parts = spec["mix_parts"]
    rng = fairness.Rng(spec["seed"], fairness.mix_string(**parts))
    options = {"round_seconds": 30}
    state = candles.setup(len(SAMPLE_PLAYERS), options, rng)
    moves = []
    while candles.outcome(state) is None:
        for seat in candles.to_act(state):
            hand = state["hands"][seat]
            action = {"type": "play", "candle": hand[(state["round"] + seat) % len(hand)]}
            state, _events = candles.apply(state, seat, action, rng)
            by = "bot" if SAMPLE_PLAYERS[seat]["bot"] else "player"
            moves.append({"seq": len(moves) + 1, "seat": seat, "action": action, "by": by})
    record = {
        "format": "wickwise-record/1",
        "game": parts["game"],
        "room_code": parts["room_code"],
        "number": parts["number"],
        "status": "finished",
        "options": options,
        "players": SAMPLE_PLAYERS,
        "fingerprint": fairness.fingerprint(spec["seed"]),
        "seed": spec["seed"],
        "client_seeds": parts["client_seeds"],
        "moves": moves,
        "result": candles.outcome(state),
        "end_reason": "",
        "started_at": "2025-01-01T12:00:00+00:00",
        "ended_at": "2025-01-01T12:04:30+00:00",
    }
    return record, state


def build_vectors() -> dict:
    record, final_state = _sample_record()
    return {
        "about": "Wickwise fairness v1 test vectors; docs/fairness.md explains every field.",
        "version": fairness.VERSION,
        "vectors": [_vector(spec) for spec in SEEDS],
        "rejection": _rejection_case(),
        "sample_record": record,
        "sample_final_state": final_state,
    }


def to_json(value, indent: int = 0) -> str:
    """JSON with objects one key a line and flat lists on one line, so that people can read it."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        items = [f"{pad} {json.dumps(key)}: {to_json(item, indent + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(item, dict) for item in value):
        items = [f"{pad} {to_json(item, indent + 1)}" for item in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value)


def write_vectors() -> None:
    VECTORS_PATH.write_text(to_json(build_vectors()) + "\n")


def load_vectors() -> dict:
    return json.loads(VECTORS_PATH.read_text())


# --- the Python implementation reproduces every vector -------------------------------------------

VECTORS = load_vectors() if VECTORS_PATH.exists() else build_vectors()


def test_the_vectors_file_is_what_the_code_builds():
    assert build_vectors() == VECTORS


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_fingerprint_and_mix(vector):
    assert all(seed is None or fairness.is_valid_client_seed(seed) for seed in vector["mix_parts"]["client_seeds"])
    assert fairness.fingerprint(vector["seed"]) == vector["fingerprint"]
    assert hashlib.sha256(bytes.fromhex(vector["seed"])).hexdigest() == vector["fingerprint"]
    assert fairness.mix_string(**vector["mix_parts"]) == vector["mix"]


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_streams(vector):
    rng = fairness.Rng(vector["seed"], vector["mix"])
    for entry in vector["streams"]:
        assert rng.stream(entry["label"]).read(64).hex() == entry["first_64_bytes"]
        # Reading in small pieces gives the same bytes: the stream is one long byte string.
        stream = rng.stream(entry["label"])
        assert b"".join(stream.read(size) for size in (1, 7, 24, 32)).hex() == entry["first_64_bytes"]


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_uniform(vector):
    rng = fairness.Rng(vector["seed"], vector["mix"])
    for entry in vector["uniform"]:
        stream = rng.stream(entry["label"])
        assert [stream.uniform(entry["n"]) for _ in entry["values"]] == entry["values"]
        words = rng.stream(entry["label"])
        assert [int.from_bytes(words.read(4), "big") for _ in entry["words"]] == entry["words"]


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_shuffle_and_deals(vector):
    rng = fairness.Rng(vector["seed"], vector["mix"])
    deck = rng.stream("deck").shuffle(candles.DECK)
    assert deck == vector["shuffle_deck"]
    assert sorted(deck) == list(range(1, 105))
    for deal in vector["candles_deals"]:
        state = candles.setup(deal["seats"], {"round_seconds": 30}, rng)
        assert state["hands"] == deal["hands"]
        assert state["shelves"] == deal["shelves"]
        # As the doc says: six per seat in seat order, then one per shelf, from the shuffled deck.
        seats = deal["seats"]
        assert deal["hands"] == [sorted(deck[6 * s:6 * s + 6]) for s in range(seats)]
        assert deal["shelves"] == [[deck[6 * seats + i]] for i in range(4)]


def test_the_rejection_case_rejects_its_first_two_words():
    case = VECTORS["rejection"]
    assert case["n"] == 3 * 2**30 and case["limit"] == 3 * 2**30
    assert case["rejected"] == [True, True, False, case["words"][3] >= case["limit"]]
    stream = fairness.Rng(case["seed"], case["mix"]).stream(case["label"])
    first = stream.uniform(case["n"])
    assert first == case["words"][2] % case["n"] == case["values"][0]
    assert stream.uniform(case["n"]) == case["values"][1]


class ScriptedStream(fairness.Stream):
    """A stream that reads the given 32-bit words, to test rejection without searching for a seed."""

    def __init__(self, words: list[int]):
        super().__init__(b"", "")
        self._words = list(words)

    def read(self, count: int) -> bytes:
        assert count == 4
        return self._words.pop(0).to_bytes(4, "big")


def test_uniform_rejects_words_at_or_above_the_limit():
    n = 3 * 2**30  # 2**32 mod n = 2**30, so the limit is 3 * 2**30 and a quarter of all words are rejected
    stream = ScriptedStream([2**32 - 1, 3 * 2**30, 3 * 2**30 - 1, 5])
    assert stream.uniform(n) == 3 * 2**30 - 1
    assert stream.uniform(n) == 5
    assert ScriptedStream([7]).uniform(6) == 1
    assert ScriptedStream([2**32 - 1]).uniform(2**32) == 2**32 - 1  # no rejection at all for n = 2**32
    assert ScriptedStream([2**32 - 4, 2**32 - 5]).uniform(6) == (2**32 - 5) % 6  # 2**32 - 4 is the limit for 6


@pytest.mark.parametrize("n", [0, -1, 2**32 + 1])
def test_uniform_refuses_an_impossible_range(n):
    with pytest.raises(ValueError):
        fairness.Rng("00" * 32, "m").stream("x").uniform(n)


@pytest.mark.parametrize("value", ["a", "Z", "0", "-", "_", "alice-7f3k", "Bob_42", "x" * 64])
def test_valid_client_seeds(value):
    assert fairness.is_valid_client_seed(value)


@pytest.mark.parametrize("value", ["", "x" * 65, "a b", "a,b", "a|b", "é", "a\n", "\na", "a.b", "a+b", "a/b", "ａ"])
def test_invalid_client_seeds(value):
    assert not fairness.is_valid_client_seed(value)


@pytest.mark.parametrize("seed", ["00" * 31, "00" * 33, "AB" * 32, "zz" * 32, " " + "00" * 32])
def test_an_rng_needs_a_proper_seed(seed):
    with pytest.raises(ValueError):
        fairness.Rng(seed, "mix")


def test_the_fingerprint_hashes_the_seed_bytes_not_its_text():
    seed = VECTORS["vectors"][0]["seed"]
    assert fairness.fingerprint(seed) != hashlib.sha256(seed.encode()).hexdigest()


def test_a_new_seed_is_32_random_bytes_in_hex():
    seeds = {fairness.new_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert all(fairness.SEED_PATTERN.fullmatch(seed) for seed in seeds)


def test_labels_and_mixes_give_independent_streams():
    rng = fairness.Rng(VECTORS["vectors"][0]["seed"], "m")
    assert rng.stream("deck").read(32) != rng.stream("dice").read(32)
    assert rng.stream("deck").read(32) != fairness.Rng(VECTORS["vectors"][0]["seed"], "n").stream("deck").read(32)


# --- the doc: its by-hand snippet reproduces the vectors, and it shows them -------------------------

def _doc_snippet() -> str:
    text = DOC_PATH.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "docs/fairness.md must show the by-hand verifier as a python block"
    return blocks[0]


def test_the_docs_snippet_uses_only_the_standard_library_and_reproduces_the_vectors():
    snippet = _doc_snippet()
    imported = set(re.findall(r"^\s*(?:import|from)\s+(\w+)", snippet, flags=re.M))
    assert imported <= {"hashlib", "hmac", "json"}
    namespace: dict = {}
    exec(compile(snippet, "docs/fairness.md", "exec"), namespace)
    for vector in VECTORS["vectors"]:
        assert namespace["fingerprint"](vector["seed"]) == vector["fingerprint"]
        parts = vector["mix_parts"]
        assert namespace["mix_string"](parts["game"], parts["room_code"], parts["number"],
                                       parts["client_seeds"]) == vector["mix"]
        stream = namespace["Stream"](vector["seed"], vector["mix"], "deck")
        assert stream.read(64).hex() == vector["streams"][0]["first_64_bytes"]
        for entry in vector["uniform"]:
            stream = namespace["Stream"](vector["seed"], vector["mix"], entry["label"])
            assert [stream.uniform(entry["n"]) for _ in entry["values"]] == entry["values"]
        stream = namespace["Stream"](vector["seed"], vector["mix"], "deck")
        assert stream.shuffle(range(1, 105)) == vector["shuffle_deck"]
        for deal in vector["candles_deals"]:
            hands, shelves = namespace["candles_deal"](vector["seed"], vector["mix"], deal["seats"])
            assert (hands, shelves) == (deal["hands"], deal["shelves"])


def test_the_doc_shows_every_vector():
    text = DOC_PATH.read_text()
    for vector in VECTORS["vectors"]:
        for shown in (vector["seed"], vector["fingerprint"], vector["mix"], vector["streams"][0]["first_64_bytes"],
                      " ".join(map(str, vector["shuffle_deck"]))):
            assert shown in text, shown
    case = VECTORS["rejection"]
    assert case["label"] in text and f"{case['words'][0]:08x}" in text


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_vectors()
        print(f"wrote {VECTORS_PATH.relative_to(ROOT)}")
    else:
        print(json.dumps(build_vectors(), indent=1))
