"""`manage.py verify_game CODE [N]` or `--file record.json`: recheck a game from its public record.

The same checks as the Verify page (docs/fairness.md), run by games/replay.py. Exits with status 1 if
any check fails, or if the game is not over (its seed is secret until then).
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import replay
from rooms import codes, snapshots
from rooms.models import Game

PASS, FAIL = "✓", "✗"


class Command(BaseCommand):
    help = "Verify a finished game: its seed, fingerprint, deal, every move and the result."

    def add_arguments(self, parser):
        parser.add_argument("code", nargs="?", help="the room code")
        parser.add_argument("number", nargs="?", type=int, help="the game's number in the room (default: the "
                                                                  "latest game that is over)")
        parser.add_argument("--file", help="verify a saved record (JSON) instead of a game in the database")

    def handle(self, *args, code=None, number=None, file=None, **options):
        if file and code:
            raise CommandError(_("Give either a room code or --file, not both."))
        if file:
            record = self._record_from_file(Path(file))
        elif code:
            record = snapshots.public_record(self._game(code, number))
        else:
            raise CommandError(_("Give a room code (and optionally a game number), or --file PATH."))
        self._report(record, replay.verify_record(record))

    # --- finding the record ---------------------------------------------------------------------

    def _record_from_file(self, path: Path) -> dict:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise CommandError(_("Cannot read %(path)s: %(error)s") % {"path": path, "error": error}) from None
        except ValueError as error:
            raise CommandError(_("%(path)s is not valid JSON: %(error)s") % {"path": path, "error": error}) from None

    def _game(self, code: str, number: int | None) -> Game:
        room_code = codes.normalize(code)
        games = Game.objects.filter(room_code=room_code)
        if not games.exists():
            raise CommandError(_("There is no game with the room code %(code)s.") % {"code": room_code})
        if number is None:
            game = games.filter(status__in=[Game.Status.FINISHED, Game.Status.ENDED]).order_by("-number").first()
            if game is None:
                raise CommandError(_(
                    "No game in room %(code)s is over yet. A game's seed stays secret until the game is over, "
                    "so it can only be verified then."
                ) % {"code": room_code})
            return game
        game = games.filter(number=number).first()
        if game is None:
            raise CommandError(_("Room %(code)s has no game %(number)d.") % {"code": room_code, "number": number})
        if not game.is_over:
            raise CommandError(_(
                "Game %(number)d in room %(code)s is not over (%(status)s). Its seed stays secret until the game "
                "is over, so it can only be verified then."
            ) % {"number": number, "code": room_code, "status": game.get_status_display()})
        return game

    # --- printing -------------------------------------------------------------------------------

    def _report(self, record: object, checks: list[replay.Check]) -> None:
        if isinstance(record, dict):
            self.stdout.write(_("Game %(code)s/%(number)s (%(game)s), %(status)s") % {
                "code": record.get("room_code"), "number": record.get("number"),
                "game": record.get("game"), "status": record.get("status"),
            })
        for check in checks:
            line = f"{PASS if check.ok else FAIL} {check.name}: {check.detail}"
            self.stdout.write(self.style.SUCCESS(line) if check.ok else self.style.ERROR(line))
        failures = sum(not check.ok for check in checks)
        if failures or not checks:
            raise CommandError(ngettext(
                "%(failed)d of %(total)d checks failed: this record does not verify.",
                "%(failed)d of %(total)d checks failed: this record does not verify.",
                failures,
            ) % {"failed": failures, "total": len(checks)})
        self.stdout.write(self.style.SUCCESS(_(
            "All %(total)d checks passed: the game was dealt from the seed behind its fingerprint and played "
            "exactly as recorded."
        ) % {"total": len(checks)}))
