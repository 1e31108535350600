"""games/tiles/fairness_vectors.json: the dice, the deal, the bag and the shuffles after resignations.

The browser's port (tiles/rules.js) is checked against the same file in tests/browser/test_verify_tiles_js.py,
so both read the streams the same way (docs/fairness.md, "Tiles"): `dice:R` one uniform(6) + 1 per seat
still tied, in seat order; `bag` the 106 ids shuffled, seat i taking items 14 i .. 14 i + 13, the rest the
bag drawn from its front; `rebag:K` the K-th resignation's shuffle of the bag followed by the resigner's
hand sorted by id.

After a deliberate change: `python -m tests.games.tiles.test_fairness_vectors --write`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from games import fairness
from games.tiles import engine

PATH = Path(engine.__file__).resolve().parent / "fairness_vectors.json"
ABOUT = ("Tiles fairness vectors (docs/fairness.md, 'Tiles'). Tile t < 104: colour (t % 52) // 13 (black, blue, "
         "orange, red), number t % 13 + 1; 104 and 105 are the jokers. Round R of the dice reads stream 'dice:R', "
         "uniform(6) + 1 per seat still tied, in seat order (null: did not roll). Stream 'bag' shuffles 0..105: "
         "seat i takes items 14i..14i+13 (kept sorted), the rest is the bag, drawn from its front. The K-th "
         "resignation at three or four seats shuffles the bag followed by the resigner's hand sorted by id with "
         "stream 'rebag:K'; 'resignations' gives, after each, the bag and who must start the game.")
# (seats, client seeds, the fewest dice rounds wanted, seats resigning one after another, out of turn or not)
PLANS = [
    (2, [None, None], 1, []),
    (3, ["ana-1", None, "Bea_99"], 2, []),
    (4, [None, "rui", None, "x"], 3, ["other", "chooser"]),
    (4, ["p", "q", "r", "s"], 1, ["chooser", "other", "other"]),
]


def build_case(seats: int, client_seeds: list, rounds: int, resigners: list[str], index: int) -> dict:
    """The first seed (from a fixed sequence) whose dice take at least `rounds` rounds, and what it deals."""
    for attempt in range(10_000):
        seed = hashlib.sha256(f"tiles-vector-{index}-{attempt}".encode()).hexdigest()
        mix = fairness.mix_string(game="tiles", room_code=f"TIL00{index}", number=index + 1, client_seeds=client_seeds)
        state = engine.setup(seats, {}, fairness.Rng(seed, mix))
        if len(state["dice"]) >= rounds:
            break
    case = {"seed": seed, "mix": mix, "seats": seats, "dice": state["dice"], "chooser": state["chooser"],
            "hands": state["hands"], "bag": state["bag"], "resignations": []}
    for who in resigners:
        seat = state["chooser"] if who == "chooser" else next(
            s for s in engine.in_play(state) if s != state["chooser"])
        state, _events = engine.apply(state, seat, {"type": "resign"}, fairness.Rng(seed, mix))
        case["resignations"].append({"seat": seat, "k": state["rebags"], "bag": state["bag"],
                                     "chooser": state["chooser"]})
    return case


def build() -> dict:
    return {"about": ABOUT, "cases": [build_case(*plan, index) for index, plan in enumerate(PLANS)]}


def text(vectors: dict) -> str:
    """One line a case, as the other games' vector files."""
    cases = ",\n  ".join(json.dumps(case) for case in vectors["cases"])
    return f'{{\n "about": {json.dumps(vectors["about"])},\n "cases": [\n  {cases}\n ]\n}}\n'


VECTORS = json.loads(PATH.read_text()) if PATH.exists() else {"cases": []}


def test_the_file_is_what_the_engine_gives():
    assert build() == VECTORS


def test_the_cases_cover_ties_and_resignations():
    cases = VECTORS["cases"]
    assert {case["seats"] for case in cases} == {2, 3, 4}
    assert max(len(case["dice"]) for case in cases) >= 3
    assert sum(len(case["resignations"]) for case in cases) >= 4
    for case in cases:
        dealt = [tile for hand in case["hands"] for tile in hand]
        assert sorted(dealt + case["bag"]) == list(range(106)) and all(len(h) == 14 for h in case["hands"])


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["mix"])
def test_the_streams_read_as_documented(case):
    """The documented reading, written out with the fairness module alone (not the engine)."""
    rng = fairness.Rng(case["seed"], case["mix"])
    rolling, rounds = list(range(case["seats"])), []
    while len(rolling) > 1 or not rounds:
        stream = rng.stream(f"dice:{len(rounds) + 1}")
        values = [None] * case["seats"]
        for seat in rolling:
            values[seat] = stream.uniform(6) + 1
        rounds.append(values)
        top = max(values[seat] for seat in rolling)
        rolling = [seat for seat in rolling if values[seat] == top]
    assert rounds == case["dice"] and rolling == [case["chooser"]]
    tiles = rng.stream("bag").shuffle(list(range(106)))
    assert [sorted(tiles[14 * i:14 * i + 14]) for i in range(case["seats"])] == case["hands"]
    assert tiles[14 * case["seats"]:] == case["bag"]
    bag, hands = case["bag"], [list(hand) for hand in case["hands"]]
    for resignation in case["resignations"]:
        if case["seats"] > 2:
            bag = rng.stream(f"rebag:{resignation['k']}").shuffle(bag + sorted(hands[resignation["seat"]]))
            hands[resignation["seat"]] = []
        assert bag == resignation["bag"]


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        PATH.write_text(text(build()))
    else:
        print(text(build()), end="")
