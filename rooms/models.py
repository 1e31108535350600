"""Rooms, seats, games and their move logs: everything about play that must last."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Room(models.Model):
    code = models.CharField(_("code"), max_length=6, unique=True)
    game = models.CharField(_("game"), max_length=20)
    seat_count = models.PositiveSmallIntegerField(_("seats"))
    options = models.JSONField(_("options"), default=dict)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_activity_at = models.DateTimeField(_("last activity"))
    games_played = models.PositiveIntegerField(_("games started"), default=0)
    # Every seat is held by one browser, passed from player to player: nobody joins by code, and that
    # browser's socket acts for whichever seat has the decision (rooms/consumers.py).
    same_device = models.BooleanField(_("played on one device"), default=False)

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        ordering = ["-last_activity_at"]

    def __str__(self) -> str:
        return f"{self.code} ({self.game})"

    @property
    def current_game(self) -> Game | None:
        return self.games.order_by("-number").first()


class Seat(models.Model):
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField(_("seat"))
    name = models.CharField(_("name"), max_length=40, blank=True)
    is_bot = models.BooleanField(_("bot"), default=False)
    bot_level = models.CharField(_("bot level"), max_length=20, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    # A keyed hash of the personal return code; the code itself is shown once to its player.
    return_code_hash = models.CharField(max_length=64, blank=True, db_index=True)
    # True while a bot plays for a human who has been away longer than the grace period.
    stand_in = models.BooleanField(_("bot playing for the player"), default=False)
    joined_at = models.DateTimeField(_("joined"), null=True, blank=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["room", "index"]
        constraints = [models.UniqueConstraint(fields=["room", "index"], name="unique_seat_index")]

    def __str__(self) -> str:
        return f"{self.room.code} #{self.index + 1} {self.name or '-'}"

    @property
    def is_taken(self) -> bool:
        return self.is_bot or bool(self.return_code_hash)


class Game(models.Model):
    """One game played in a room. Its public record outlives the room: room is nulled on expiry."""

    class Status(models.TextChoices):
        LOBBY = "lobby", _("waiting to start")
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        ENDED = "ended", _("ended early")

    room = models.ForeignKey(Room, null=True, blank=True, on_delete=models.SET_NULL, related_name="games")
    room_code = models.CharField(_("room code"), max_length=6)
    game = models.CharField(_("game"), max_length=20)
    number = models.PositiveIntegerField(_("number in room"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.LOBBY)
    options = models.JSONField(_("options"), default=dict)
    players = models.JSONField(_("players"), default=list)  # [{"name", "bot"}] as the game started
    seed = models.CharField(_("seed"), max_length=64)  # secret until the game is over
    fingerprint = models.CharField(_("fingerprint"), max_length=64)
    client_seeds = models.JSONField(_("client seeds"), default=dict)  # {"seat index": seed}
    state = models.JSONField(_("state"), null=True, blank=True)
    seq = models.PositiveIntegerField(_("seq"), default=0)
    # Raised by every write of the row (save() and the moves' own statements): a worker that keeps a game
    # in memory between moves writes it only where the version is still the one it read (rooms/services.py).
    version = models.PositiveIntegerField(default=0)
    # Not stored: the seats a bot plays (its own or a stand-in's), when a worker's memory of the game knows them
    # (a start read them under the room's lock, a remembered move with its write). A stand-in raises the
    # version, so no memory that knew them before it is written to again (rooms/services.py).
    seats_bots_play: frozenset[int] | None = None
    prompts = models.JSONField(default=dict)  # {"seat": seq at which its pending decision was posed}
    deadline_at = models.DateTimeField(_("decision deadline"), null=True, blank=True)
    deadline_seq = models.PositiveIntegerField(null=True, blank=True)
    paused_remaining = models.FloatField(_("paused with seconds left"), null=True, blank=True)
    # The live draft (rooms/drafts.py) while paused: Redis holds it in play, the database across a pause.
    paused_draft = models.JSONField(_("draft kept by the pause"), null=True, blank=True)
    # Each seat's time used and the game's total, paused time and untimed decisions left out (rooms/clocks.py).
    clocks = models.JSONField(_("clocks"), default=dict, blank=True)
    result = models.JSONField(_("result"), null=True, blank=True)
    end_reason = models.CharField(_("end reason"), max_length=20, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["room_code", "number"], name="unique_game_number")]

    def __str__(self) -> str:
        return f"{self.room_code}/{self.number} ({self.game})"

    def save(self, *args, **kwargs):
        self.version += 1
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = [*kwargs["update_fields"], "version"]
        super().save(*args, **kwargs)

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ENDED)

    @property
    def is_paused(self) -> bool:
        return self.paused_remaining is not None

    def client_seed_list(self) -> list[str | None]:
        seats = len(self.players) if self.players else (self.room.seat_count if self.room else 0)
        return [self.client_seeds.get(str(i)) for i in range(seats)]


class Move(models.Model):
    class By(models.TextChoices):
        PLAYER = "player", _("player")
        BOT = "bot", _("bot")
        STAND_IN = "stand_in", _("bot for an absent player")
        TABLE = "table", _("the table on timeout")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField(_("seq"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    action = models.JSONField(_("action"))
    by = models.CharField(_("made by"), max_length=10, choices=By.choices)
    created_at = models.DateTimeField(_("made at"), auto_now_add=True)

    class Meta:
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq")]

    def __str__(self) -> str:
        return f"{self.game} #{self.seq} seat {self.seat}"
