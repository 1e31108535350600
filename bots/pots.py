"""Pots bots: "cautious" and "strong", each deciding from one seat's view only.

`choose(view, level)` takes `engine.view(state, seat)`: every row and the discard pile are public,
so the deck's composition is known exactly (`engine.next_card_pool`); only its order is not. Both
bots are deterministic: the same view gives the same action. docs/games/pots.md has the details
and the benchmark.
"""

from __future__ import annotations

from games.pots import engine

LEVELS = ("cautious", "strong")

# Cautious: draws only while the spill chance is at most 1 in 5 and the hand is worth less than 20.
CAUTIOUS_MAX_SPILL = 0.2
CAUTIOUS_STOP_AT = 20

# Strong: how many draws ahead it looks when deciding to draw, and how the score race bends its
# appetite for risk (docs/games/pots.md, "Bots").
LOOKAHEAD = 2
RACE_SCALE = 100  # points behind the leader at which a spill starts to weigh half as much
NEAR_END = 150  # a total from which a player may end the game within a hand or two


def choose(view: dict, level: str) -> dict:
    """The action a bot of `level` plays from `view`."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    if view.get("finished") or view["current"] != view.get("seat"):
        raise ValueError("this seat has nothing to decide")
    if view["phase"] == "play":
        draws = cautious_draws(view) if level == "cautious" else strong_draws(view)
        return {"type": "draw" if draws else "stop"}
    target = engine.cautious_target_seen(view) if level == "cautious" else strong_target(view)
    return {"type": "target", "seat": target}


def cautious_draws(view: dict) -> bool:
    seat = view["seat"]
    return view["spill_chance"][seat] <= CAUTIOUS_MAX_SPILL and view["rows"][seat]["score"] < CAUTIOUS_STOP_AT


# --- a row as numbers, and its expected futures ----------------------------------------------------


class Row:
    """What matters for the rest of a hand: the numbers held, twin wick, honey, saucer."""

    __slots__ = ("numbers", "doubled", "honey", "saucer")

    def __init__(self, numbers: frozenset, doubled: bool, honey: int, saucer: bool):
        self.numbers, self.doubled, self.honey, self.saucer = numbers, doubled, honey, saucer

    @classmethod
    def of(cls, row: dict) -> Row:
        honey = sum(engine.honey_value(card) for card in row["extras"])
        return cls(frozenset(row["numbers"]), engine.TWIN_WICK in row["extras"], honey, row["saucer"])

    def score(self) -> int:
        return sum(self.numbers) * (2 if self.doubled else 1) + self.honey


class Pool:
    """The cards the next draws come from, as counts; taken and put back as a search goes down."""

    def __init__(self, counts):
        self.counts = {card: n for card, n in counts.items() if n > 0}
        self.size = sum(self.counts.values())

    def items(self):
        return [(card, n) for card, n in self.counts.items() if n > 0]

    def take(self, card) -> None:
        self.counts[card] -= 1
        self.size -= 1

    def put_back(self, card) -> None:
        self.counts[card] += 1
        self.size += 1


def after_card(row: Row, card) -> tuple[Row | None, int | None]:
    """(the row after `card`, None) while the hand goes on; (None, final score) when it ends it."""
    if type(card) is int:
        if card in row.numbers:
            if row.saucer:
                return Row(row.numbers, row.doubled, row.honey, False), None
            return None, 0
        numbers = row.numbers | {card}
        grown = Row(numbers, row.doubled, row.honey, row.saucer)
        if len(numbers) == engine.FULL_POT:
            return None, grown.score() + engine.FULL_POT_BONUS
        return grown, None
    if card in engine.HONEY:
        return Row(row.numbers, row.doubled, row.honey + engine.honey_value(card), row.saucer), None
    if card == engine.TWIN_WICK:
        return Row(row.numbers, True, row.honey, row.saucer), None
    if card == engine.SAUCER:
        return Row(row.numbers, row.doubled, row.honey, True), None
    return row, None  # snuffer and bellows: counted as neither good nor bad for the drawer


def play_value(row: Row, pool: Pool, depth: int) -> float:
    """Expected hand score if this row may draw up to `depth` more times, stopping when that is better."""
    stop = row.score()
    if depth == 0 or not pool.size:
        return stop
    return max(stop, draw_value(row, pool, depth))


def draw_value(row: Row, pool: Pool, depth: int, forced: bool = False) -> float:
    """Expected hand score after drawing now, then `depth` draws in all: forced ones, or (not forced)
    each one only when it is worth more than stopping."""
    if depth == 1:
        return last_draw_value(row, pool)
    total = 0.0
    for card, count in pool.items():
        after, final = after_card(row, card)
        if after is None:
            total += count * final
            continue
        pool.take(card)
        if not pool.size:
            total += count * after.score()
        elif forced:
            total += count * draw_value(after, pool, depth - 1, True)
        else:
            total += count * play_value(after, pool, depth - 1)
        pool.put_back(card)
    return total / pool.size


def last_draw_value(row: Row, pool: Pool) -> float:
    """draw_value for one draw, in plain arithmetic: the search's leaves, where most of its time goes."""
    numbers, factor = row.numbers, 2 if row.doubled else 1
    base = row.score()
    full = len(numbers) + 1 == engine.FULL_POT
    total = 0.0
    for card, count in pool.items():
        if type(card) is int:
            if card in numbers:
                total += count * base if row.saucer else 0
            else:
                total += count * (base + factor * card + (engine.FULL_POT_BONUS if full else 0))
        elif card in engine.HONEY:
            total += count * (base + engine.honey_value(card))
        elif card == engine.TWIN_WICK and not row.doubled:
            total += count * (base + sum(numbers))
        else:
            total += count * base
    return total / pool.size


# --- strong -----------------------------------------------------------------------------------------


def strong_draws(view: dict) -> bool:
    me = view["seat"]
    row = Row.of(view["rows"][me])
    score = row.score()
    race = race_decision(view, score)
    if race is not None:
        return race
    pool = Pool(engine.next_card_pool(view))
    drawing = draw_value(row, pool, LOOKAHEAD)
    # A spill costs the hand; how much that weighs depends on the race.
    return drawing - score > risk_margin(view, score)


def race_decision(view: dict, score: int) -> bool | None:
    """Draw (True) or stop (False) when the end of the game decides it; None to weigh the odds."""
    me, totals, rows = view["seat"], view["totals"], view["rows"]
    mine = totals[me] + score
    others = [s for s in range(view["seats"]) if s != me]
    banked = [totals[s] + rows[s]["score"] for s in others if rows[s]["status"] not in engine.IN_HAND]
    best_banked = max(banked, default=0)
    best_now = max(totals[s] + rows[s]["score"] for s in others)
    if best_banked >= engine.WINNING_TOTAL and mine < best_banked:
        return True  # the game ends with this hand and stopping now loses it
    if mine >= engine.WINNING_TOTAL and mine > best_now:
        return False  # stopping ends the game in the lead
    return None


def risk_margin(view: dict, score: int) -> float:
    """How much expected gain a draw must promise: more when ahead, less (even below 0) when behind."""
    me, totals = view["seat"], view["totals"]
    leader = max(totals[s] for s in range(view["seats"]) if s != me)
    behind = leader - totals[me]
    if leader < NEAR_END:
        return 0.0
    # Near the end, a player behind must gamble: the further behind, the more.
    return -score * min(1.0, max(0.0, behind) / RACE_SCALE)


def threat(view: dict, seat: int) -> float:
    """How much another seat's points hurt: more when it is ahead of us and near the end."""
    me, totals, rows = view["seat"], view["totals"], view["rows"]
    lead = (totals[seat] + rows[seat]["score"]) - (totals[me] + rows[me]["score"])
    near = max(0, totals[seat] - NEAR_END) / 25
    return 1.0 + max(0, lead) / 50 + near


def strong_target(view: dict) -> int:
    pending, me = view["pending"], view["seat"]
    order = engine.leftward(view["seats"], me)
    targets = sorted(pending["targets"], key=order.index)
    pool = Pool(engine.next_card_pool(view))
    rows = {t: Row.of(view["rows"][t]) for t in targets}
    if pending["card"] == engine.SAUCER:
        # To whoever threatens us least, then whoever holds the least to protect.
        return min(targets, key=lambda t: (threat(view, t), rows[t].score(), order.index(t)))

    def gain(t: int) -> float:
        """What this card at `t` is worth to us: its change to our hand, or minus its change to theirs."""
        row = rows[t]
        going_on = play_value(row, pool, 1)
        if pending["card"] == engine.SNUFFER:
            change = row.score() - going_on
        else:
            change = (draw_value(row, pool, engine.BELLOWS_DRAWS, forced=True) if pool.size else row.score()) - going_on
        return change if t == me else -change * threat(view, t)

    return max(targets, key=lambda t: (gain(t), -order.index(t)))
