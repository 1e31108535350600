"""Recheck a game's public record: the seed behind the fingerprint, the deal, every move, the result.

Pure: no Django, no I/O. `verify_record` is what `manage.py verify_game` runs; static/js/verify.js
does the same checks in the browser. docs/fairness.md describes the record and the algorithm.
The details are English: they are read by operators and programs, not shown on the site.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import json
import re
from dataclasses import dataclass
from types import ModuleType

from games import fairness
from games.errors import IllegalAction

RECORD_FORMAT = "wickwise-record/1"
OVER = ("finished", "ended")
GAME_SLUG = re.compile(r"[a-z][a-z0-9_]{0,19}")


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


class ReplayError(Exception):
    """The record cannot be replayed; `check` is the name of the check that fails."""

    def __init__(self, check: str, detail: str):
        super().__init__(detail)
        self.check = check
        self.detail = detail


# --- reading the record -----------------------------------------------------------------------

def engine_for(game: object) -> ModuleType:
    """games.<slug>.engine, for a slug that looks like one (a record must not import anything else)."""
    if not isinstance(game, str) or not GAME_SLUG.fullmatch(game):
        raise ReplayError("format", f"unknown game {game!r}")
    try:
        return importlib.import_module(f"games.{game}.engine")
    except ImportError:
        raise ReplayError("format", f"unknown game {game!r}") from None


def _check_format(record: object) -> ModuleType:
    if not isinstance(record, dict):
        raise ReplayError("format", "a record is a JSON object")
    if record.get("format") != RECORD_FORMAT:
        raise ReplayError("format", f"expected format {RECORD_FORMAT!r}, found {record.get('format')!r}")
    engine = engine_for(record.get("game"))
    if not isinstance(record.get("players"), list):  # empty until the game starts
        raise ReplayError("format", "the record's players must be a list")
    if not isinstance(record.get("room_code"), str) or type(record.get("number")) is not int:
        raise ReplayError("format", "the record needs a room code and a game number")
    if not isinstance(record.get("options"), dict):
        raise ReplayError("format", "the record's options must be an object")
    return engine


def _check_over(record: dict) -> str:
    status = record.get("status")
    if status not in OVER:
        raise ReplayError("over", f"the game is {status!r}, not over: its seed stays secret until it ends")
    if record.get("seed") is None or record.get("moves") is None:
        raise ReplayError("over", "the record has no seed or no moves, although the game is over")
    return f"status {status}"


def _check_seed(record: dict) -> str:
    seed = record["seed"]
    if not isinstance(seed, str) or not fairness.SEED_PATTERN.fullmatch(seed):
        raise ReplayError("seed", "the seed must be 64 lowercase hex characters (32 bytes)")
    return seed


def _check_fingerprint(record: dict) -> str:
    computed = hashlib.sha256(bytes.fromhex(record["seed"])).hexdigest()
    if computed != record.get("fingerprint"):
        shown = record.get("fingerprint")
        raise ReplayError("fingerprint", f"SHA-256 of the seed is {computed}, the record shows {shown}")
    return f"SHA-256 of the seed is {computed}, as published"


def _check_client_seeds(record: dict) -> list[str | None]:
    seeds = record.get("client_seeds")
    players = record["players"]
    if not isinstance(seeds, list) or len(seeds) != len(players):
        raise ReplayError("client_seeds", f"expected one client seed entry per seat ({len(players)})")
    for index, (seed, player) in enumerate(zip(seeds, players)):
        if seed is None:
            continue
        if not isinstance(seed, str) or not fairness.is_valid_client_seed(seed):
            raise ReplayError("client_seeds", f"seat {index + 1}: {seed!r} is not a valid client seed")
        if isinstance(player, dict) and player.get("bot"):
            raise ReplayError("client_seeds", f"seat {index + 1} is a bot, and bots contribute no client seed")
    return seeds


def _mix(record: dict) -> str:
    return fairness.mix_string(
        game=record["game"], room_code=record["room_code"], number=record["number"],
        client_seeds=record["client_seeds"],
    )


def _describe_deal(engine: ModuleType, state: dict) -> str:
    """A short text of the deal: the engine's own words when it has them (`describe_deal(state)`), else
    cards in hands and on a table, who starts, or who deals first."""
    describe = getattr(engine, "describe_deal", None)
    if describe is not None:
        return describe(state)
    if "hands" in state and "shelves" in state:
        hands = "; ".join(f"seat {i + 1}: {hand}" for i, hand in enumerate(state["hands"]))
        shelves = "; ".join(f"{i + 1}: {shelf}" for i, shelf in enumerate(state["shelves"]))
        return f"hands {hands}; shelves {shelves}"
    if "dealer" in state:
        return f"seat {state['dealer'] + 1} deals first"
    if "first" in state:
        return f"seat {state['first'] + 1} starts"
    return "the deal was rebuilt from the seed"


def _describe_move(move: dict) -> str:
    action = json.dumps(move.get("action"))
    return f"#{move.get('seq')} seat {_seat_label(move.get('seat'))} by {move.get('by')}: {action}"


def _seat_label(seat: object) -> str:
    return str(seat + 1) if type(seat) is int else repr(seat)


# --- replaying --------------------------------------------------------------------------------

def _apply_move(engine: ModuleType, state: dict, move: object, expected_seq: int, rng) -> dict:
    """One logged move: in sequence, by a seat that had to decide, and legal for the engine."""
    if not isinstance(move, dict):
        raise ReplayError("move", f"move {expected_seq} is not an object")
    if move.get("seq") != expected_seq:
        raise ReplayError("move", f"expected move #{expected_seq}, found #{move.get('seq')}")
    seat = _json_number(move.get("seat"))
    action = _json_number(move.get("action"))
    if type(seat) is not int or (seat not in engine.to_act(state) and not _out_of_turn(engine, action)):
        raise ReplayError("move", f"{_describe_move(move)}: that seat was not to act")
    try:
        state, _events = engine.apply(state, seat, action, rng)
    except IllegalAction as error:
        raise ReplayError("move", f"{_describe_move(move)}: illegal ({error.code}: {error.message})") from None
    return state


def _out_of_turn(engine: ModuleType, action: object) -> bool:
    """An action the engine takes from a seat that is not to act (resign, say): the engine judges it."""
    allowed = getattr(engine, "OUT_OF_TURN", None)
    return bool(allowed) and isinstance(action, dict) and action.get("type") in allowed


def _json_number(value: object) -> object:
    """JSON does not tell 3.0 from 3, and the browser's verifier cannot: a whole float in a logged move is
    read as the integer it is, so both verifiers judge the same record the same way."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_json_number(item) for item in value]
    if isinstance(value, dict):
        return {key: _json_number(item) for key, item in value.items()}
    return value


def _setup(engine: ModuleType, record: dict) -> tuple[dict, fairness.Rng]:
    rng = fairness.Rng(record["seed"], _mix(record))
    try:
        state = engine.setup(len(record["players"]), copy.deepcopy(record["options"]), rng)
    except (ValueError, KeyError, TypeError) as error:
        raise ReplayError("deal", f"the engine refused the setup: {error}") from None
    return state, rng


def replay(record: dict) -> dict:
    """The state after the whole move log, as the live game had it; raises ReplayError if it cannot."""
    engine = _check_format(record)
    _check_over(record)
    _check_seed(record)
    _check_client_seeds(record)
    state, rng = _setup(engine, record)
    moves = record["moves"]
    if not isinstance(moves, list):
        raise ReplayError("format", "moves must be a list")
    for expected_seq, move in enumerate(moves, start=1):
        state = _apply_move(engine, state, move, expected_seq, rng)
    return state


# --- the checks -------------------------------------------------------------------------------

def verify_record(record: dict) -> list[Check]:
    """Every check a verifier makes, in order. It stops at the first check the others depend on."""
    checks: list[Check] = []

    def run(name: str, step) -> object:
        try:
            value = step()
        except ReplayError as error:
            checks.append(Check(error.check, False, error.detail))
            raise
        return value

    try:
        engine = run("format", lambda: _check_format(record))
        checks.append(Check("format", True, f"{RECORD_FORMAT}, game {record['game']}, {len(record['players'])} seats"))
        checks.append(Check("over", True, run("over", lambda: _check_over(record))))
        seed = run("seed", lambda: _check_seed(record))
        checks.append(Check("seed", True, f"{seed} (32 bytes)"))
        checks.append(Check("fingerprint", True, run("fingerprint", lambda: _check_fingerprint(record))))
        seeds = run("client_seeds", lambda: _check_client_seeds(record))
        given = sum(s is not None for s in seeds)
        checks.append(Check("client_seeds", True, f"{given} of {len(seeds)} seats gave a client seed"))
        checks.append(Check("mix", True, _mix(record)))
        state, rng = run("deal", lambda: _setup(engine, record))
        checks.append(Check("deal", True, _describe_deal(engine, state)))
        state = _replay_moves(engine, state, rng, record, checks)
    except ReplayError:
        return checks
    checks.extend(_final_checks(engine, state, record))
    return checks


def _replay_moves(engine: ModuleType, state: dict, rng, record: dict, checks: list[Check]) -> dict:
    moves = record["moves"]
    if not isinstance(moves, list):
        checks.append(Check("moves", False, "moves must be a list"))
        raise ReplayError("moves", "moves must be a list")
    for expected_seq, move in enumerate(moves, start=1):
        try:
            state = _apply_move(engine, state, move, expected_seq, rng)
        except ReplayError as error:
            checks.append(Check(error.check, False, error.detail))
            checks.append(Check("result", False, f"not compared: the replay stopped at move #{expected_seq}"))
            raise
        checks.append(Check("move", True, _describe_move(move)))
    return state


def _final_checks(engine: ModuleType, state: dict, record: dict) -> list[Check]:
    outcome = engine.outcome(state)
    moves = len(record["moves"])
    if record["status"] == "ended":
        early = Check("ended_early", True, f"the game ended early ({record.get('end_reason') or 'no reason given'}) "
                                           f"after {moves} moves; everything up to there was replayed")
        if outcome is not None:
            return [early, Check("result", False, "the replay finished the game, but the record says it ended early")]
        if record.get("result") is not None:
            shown = record["result"]
            return [early, Check("result", False, f"a game ended early has no result; the record shows {shown}")]
        return [early, Check("result", True, "no result, as for any game that ended early")]
    if outcome is None:
        return [Check("result", False, f"after all {moves} moves the replayed game is not over")]
    if outcome != record.get("result"):
        return [Check("result", False, f"the replay ranks {outcome}, the record shows {record.get('result')}")]
    return [Check("result", True, f"after {moves} moves: {_describe_ranking(outcome)}")]


def _describe_ranking(ranking: list[dict]) -> str:
    return ", ".join(f"place {r['place']}: seat {r['seat'] + 1} ({_score(r)})" for r in ranking)


def _score(row: dict) -> object:
    # Games name the figure they rank by: a score, or the points left in hand.
    return row["score"] if "score" in row else row.get("points")


def all_ok(checks: list[Check]) -> bool:
    return bool(checks) and all(check.ok for check in checks)


def state_bytes(state: dict) -> str:
    """The canonical text of a state: replay and live play must give the same, byte for byte."""
    return json.dumps(state, sort_keys=True)
