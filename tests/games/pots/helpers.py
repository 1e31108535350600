"""Scripted decks and states for the pots tests."""

from __future__ import annotations

from collections import Counter

from games.pots import engine


def deck_with(front) -> list:
    """A full 94-card deck: `front` on top, then every other card in canonical order."""
    return list(front) + rest_of_deck(list(front))


def rest_of_deck(taken) -> list:
    """The cards of the deck that `taken` leaves, in canonical order."""
    rest = Counter(engine.DECK)
    rest.subtract(taken)
    assert min(rest.values()) >= 0, "a scripted game must not use a card twice"
    left = []
    for card in engine.DECK:
        if rest[card] > 0:
            left.append(card)
            rest[card] -= 1
    return left


class ScriptedStream:
    def __init__(self, rng: ScriptedRng, label: str):
        self.rng, self.label = rng, label

    def uniform(self, n: int) -> int:
        assert self.label == "first"
        return self.rng.dealer % n

    def shuffle(self, items) -> list:
        items = list(items)
        if self.label == "deck":
            assert sorted(map(str, items)) == sorted(map(str, engine.DECK))
            return deck_with(self.rng.front)
        self.rng.reshuffled.append((self.label, items))
        return self.rng.reshuffle(items)


class ScriptedRng:
    """Stands in for fairness.Rng: the stream `first` gives `dealer`, the stream `deck` puts `front`
    on top of the deck, and a reshuffle returns `reshuffle(discard pile)` (the pile as it is by
    default). Every reshuffle's label and input are kept in `reshuffled`."""

    def __init__(self, dealer: int = 0, front=(), reshuffle=list):
        self.dealer, self.front, self.reshuffle = dealer, list(front), reshuffle
        self.labels: list[str] = []
        self.reshuffled: list[tuple[str, list]] = []

    def stream(self, label: str) -> ScriptedStream:
        self.labels.append(label)
        return ScriptedStream(self, label)


def new_game(seats: int, front=(), dealer: int = 0, reshuffle=list) -> tuple[dict, ScriptedRng]:
    rng = ScriptedRng(dealer, front, reshuffle)
    return engine.setup(seats, {}, rng), rng


def row(numbers=(), extras=(), saucer=False, status="in") -> dict:
    return {"numbers": list(numbers), "extras": list(extras), "saucer": saucer, "status": status}


def state_with(rows: list[dict], front=(), *, dealer: int = 0, turn: int | None = None, totals=None,
               discard=(), deck=None, hand: int = 1, hands=None, rng=None) -> dict:
    """A position in the play phase: these rows, the deck `front` on top of every card not shown
    (or exactly `deck`), then whatever the engine does next until a seat must decide."""
    seats = len(rows)
    state = {
        "game": "pots", "seats": seats, "hand": hand, "dealer": dealer,
        "turn": dealer if turn is None else turn, "phase": "play", "current": None, "pending": None,
        "rows": [dict(r, numbers=list(r["numbers"]), extras=list(r["extras"])) for r in rows],
        "bellows": None, "queue": [], "totals": list(totals or [0] * seats), "hands": list(hands or []),
        "deck": [], "discard": list(discard), "reshuffles": 0, "finished": False,
    }
    if deck is None:
        shown = list(engine.seen_cards(engine.view(state, None)).elements())
        deck = list(front) + rest_of_deck(shown + list(front))
    state["deck"] = list(deck)
    engine._settle(state, [], rng or ScriptedRng())
    return state


def play(state: dict, *moves, rng=None) -> tuple[dict, list[dict]]:
    """Applies each move as the seat to act: "draw", "stop" or a target seat number."""
    events: list[dict] = []
    for move in moves:
        seat = engine.to_act(state)[0]
        action = {"type": move} if isinstance(move, str) else {"type": "target", "seat": move}
        state, new = engine.apply(state, seat, action, rng or ScriptedRng())
        events += new
    return state, events


def kinds(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


def all_cards(state: dict) -> Counter:
    """Every card of the game, wherever it is: it must always be the 94 of the deck."""
    cards = engine.seen_cards(engine.view(state, None))
    cards.update(state["deck"])
    return cards
