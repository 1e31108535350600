"""`manage.py verify_game`: a game played through rooms.services verifies; clear errors otherwise."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games import replay
from games.candles import engine as candles
from rooms import services, snapshots
from rooms.models import Game, Move

pytestmark = pytest.mark.django_db


def play_moves(game: Game, *, limit: int | None = None) -> Game:
    """Play the table's choice for every seat, the host as a player and the others as bots."""
    played = 0
    while game.status == Game.Status.PLAYING and (limit is None or played < limit):
        for seat in candles.to_act(game.state):
            if limit is not None and played >= limit:
                break
            action = candles.table_choice(game.state, seat)
            by = Move.By.PLAYER if seat == 0 else Move.By.BOT
            game = services.submit_move(room_code=game.room_code, seat=seat, seq=game.seq, action=action, by=by)
            played += 1
    return game


def start_game(*, seats: int = 3, client_seed: str | None = "ana-Seed_1") -> Game:
    ticket = services.create_room(game="candles", seat_count=seats, options=None, host_name="Ana")
    if client_seed:
        services.set_client_seed(room_code=ticket.room_code, seats=[0], value=client_seed)
    return services.start_game(room_code=ticket.room_code, seat=0)


def play_finished_game(*, seats: int = 3, client_seed: str | None = "ana-Seed_1") -> Game:
    """A finished candles game in the database, made through the same services as live play."""
    game = play_moves(start_game(seats=seats, client_seed=client_seed))
    assert game.status == Game.Status.FINISHED
    return game


def verify(*args) -> str:
    out = StringIO()
    call_command("verify_game", *args, stdout=out)
    return out.getvalue()


def test_a_finished_game_verifies():
    game = play_finished_game(seats=4)
    output = verify(game.room_code)
    assert "✗" not in output
    for name in ("format", "over", "seed", "fingerprint", "client_seeds", "mix", "deal", "move", "result"):
        assert f"✓ {name}:" in output
    assert output.count("✓ move:") == 24
    assert "All 32 checks passed" in output
    assert f"Game {game.room_code}/1 (candles), finished" in output


def test_the_replay_is_the_live_state_byte_for_byte():
    game = play_finished_game(seats=5)
    game.refresh_from_db()
    record = snapshots.public_record(game)
    assert replay.state_bytes(replay.replay(record)) == replay.state_bytes(game.state)
    assert record["client_seeds"] == ["ana-Seed_1", None, None, None, None]
    assert {move["by"] for move in record["moves"]} == {"player", "bot"}


def test_the_latest_game_that_is_over_is_the_default():
    first = play_finished_game()
    second = services.start_game(room_code=first.room_code, seat=0)  # game 2 starts and is in play
    assert second.number == 2
    assert f"Game {first.room_code}/1 " in verify(first.room_code)
    with pytest.raises(CommandError, match="not over.*secret"):
        verify(first.room_code, "2")
    finished = play_moves(second)
    assert f"Game {finished.room_code}/2 " in verify(first.room_code)


def test_the_room_code_is_read_as_people_type_it():
    game = play_finished_game()
    code = game.room_code.lower()
    assert "All" in verify(f"{code[:3]}-{code[3:]}", "1")


def test_a_game_that_ended_early_verifies_what_was_played():
    game = play_moves(start_game(), limit=4)
    services.end_game(game_id=game.pk, reason="admin")
    output = verify(game.room_code, "1")
    assert "✓ ended_early:" in output and "after 4 moves" in output
    assert "✗" not in output


def test_an_unknown_room_code_is_a_clear_error():
    with pytest.raises(CommandError, match="no game with the room code ZZZZZZ"):
        verify("ZZZZZZ")


def test_an_unknown_game_number_is_a_clear_error():
    game = play_finished_game()
    with pytest.raises(CommandError, match="has no game 9"):
        verify(game.room_code, "9")


def test_a_game_in_play_keeps_its_seed_secret():
    game = play_moves(start_game(), limit=2)
    with pytest.raises(CommandError, match="not over.*secret"):
        verify(game.room_code, "1")
    with pytest.raises(CommandError, match="No game in room .* is over yet.*secret"):
        verify(game.room_code)


def test_a_room_in_the_lobby_has_nothing_to_verify():
    ticket = services.create_room(game="candles", seat_count=2, options=None, host_name="Ana")
    with pytest.raises(CommandError, match="is over yet"):
        verify(ticket.room_code)
    with pytest.raises(CommandError, match="not over"):
        verify(ticket.room_code, "1")


def test_a_saved_record_verifies_without_the_database(tmp_path):
    game = play_finished_game()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(snapshots.public_record(game)))
    Game.objects.all().delete()
    assert "All" in verify("--file", str(path))


def test_a_tampered_file_fails_and_says_where(tmp_path):
    record = snapshots.public_record(play_finished_game())
    record["result"][0]["score"] += 3
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = StringIO()
    with pytest.raises(CommandError, match="1 of .* checks failed"):
        call_command("verify_game", "--file", str(path), stdout=out)
    assert "✗ result:" in out.getvalue()
    assert "✓ fingerprint:" in out.getvalue()


def test_a_saved_record_of_a_game_in_play_fails_the_over_check(tmp_path):
    game = play_moves(start_game(), limit=1)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(snapshots.public_record(game)))
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_game", "--file", str(path), stdout=out)
    assert "✗ over:" in out.getvalue() and "secret" in out.getvalue()


@pytest.mark.parametrize("content", ["{not json", ""])
def test_a_file_that_is_not_json_is_a_clear_error(tmp_path, content):
    path = tmp_path / "record.json"
    path.write_text(content)
    with pytest.raises(CommandError, match="not valid JSON"):
        verify("--file", str(path))


def test_a_missing_file_and_missing_arguments_are_clear_errors(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        verify("--file", str(tmp_path / "nope.json"))
    with pytest.raises(CommandError, match="room code"):
        verify()
    with pytest.raises(CommandError, match="not both"):
        verify("ABCDEF", "--file", str(tmp_path / "nope.json"))
