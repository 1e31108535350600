"""Admin for rooms, seats, games and move logs. Nothing about a live game's seed, state or moves leaves here
until the game is over: not on a page, and not through a lookup in the URL either.

Each game app registers proxies of these models with `register_game_admin`, so its rooms, seats,
games and moves have pages of their own.
"""

import json

from django.contrib import admin, messages
from django.db import transaction
from django.db.models.constants import LOOKUP_SEP
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from rooms import broadcast, services
from rooms.models import Game, Move, Room, Seat


class SafeLookups:
    """Only the list's own filters may narrow a list through the URL.

    Django lets any lookup on a model's own fields through the URL (`?seed__startswith=ab`): a list that
    answers differently for a right and a wrong prefix gives a live game's seed away in 256 requests, and
    lookups on the state (which holds the deck) or on moves would do the same. Every other lookup is refused
    (400), whatever its value.
    """

    list_filter: tuple = ()

    def lookup_allowed(self, lookup, value, request=None):
        field, _sep, rest = lookup.partition(LOOKUP_SEP)
        return field in self.list_filter and rest in ("", "exact", "isnull")


def shown_action(move: Move) -> str:
    """A move's action once its game is over; before that it may be a pick nobody has seen yet."""
    if move.game.is_over:
        return json.dumps(move.action)
    return _("hidden until the game ends")


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("index", "name", "is_bot", "bot_level", "user", "stand_in", "joined_at")
    readonly_fields = fields
    can_delete = False


class RoomAdmin(SafeLookups, admin.ModelAdmin):
    list_display = ("code", "game", "seat_count", "games_played", "last_activity_at", "created_at")
    list_filter = ("game",)
    search_fields = ("code",)
    readonly_fields = ("code", "game", "seat_count", "options", "created_at", "last_activity_at", "games_played")
    inlines = [SeatInline]
    game_slug = None

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        return qs.filter(game=self.game_slug) if self.game_slug else qs


class SeatAdmin(SafeLookups, admin.ModelAdmin):
    list_display = ("__str__", "name", "is_bot", "user", "stand_in", "joined_at")
    list_filter = ("is_bot", "stand_in")
    search_fields = ("room__code", "name", "user__username")
    readonly_fields = ("room", "index", "return_code_hash", "joined_at")
    exclude = ()
    game_slug = None

    def get_queryset(self, request):
        qs = super().get_queryset(request).select_related("room", "user")
        return qs.filter(room__game=self.game_slug) if self.game_slug else qs

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        # The room's pages show the change at once, not at their next ping.
        code = obj.room.code
        transaction.on_commit(lambda: broadcast.room_changed(code), robust=True)  # saved even if Redis is down


@admin.display(description=_("action"))
def move_action(move: Move) -> str:
    return shown_action(move)


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    fields = ("seq", "seat", move_action, "by", "created_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.action(description=_("End the selected games (their seeds are revealed)"))
def end_games(modeladmin, request, queryset):
    for game in queryset:
        services.end_game(game_id=game.pk, reason="admin")
    count = queryset.count()
    messages.success(request, ngettext("Ended %(count)d game.", "Ended %(count)d games.", count) % {"count": count})


class GameAdmin(SafeLookups, admin.ModelAdmin):
    list_display = ("__str__", "game", "status", "seq", "started_at", "ended_at")
    list_filter = ("game", "status")
    search_fields = ("room_code",)
    actions = [end_games]
    inlines = [MoveInline]
    game_slug = None
    public_fields = (
        "room_code", "game", "number", "status", "options", "players", "fingerprint", "client_seeds",
        "seq", "deadline_at", "paused_remaining", "result", "end_reason", "created_at", "started_at", "ended_at",
    )

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        return qs.filter(game=self.game_slug) if self.game_slug else qs

    def get_fields(self, request, obj=None):
        # The seed and the live state (which holds the deck order) only once the game is over.
        if obj is not None and obj.is_over:
            return (*self.public_fields, "seed", "state")
        return self.public_fields

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    def has_add_permission(self, request):
        return False


class MoveAdmin(SafeLookups, admin.ModelAdmin):
    list_display = ("__str__", "seat", "by", move_action, "created_at")
    list_filter = ("by",)
    search_fields = ("game__room_code",)
    fields = ("game", "seq", "seat", move_action, "by", "created_at")
    readonly_fields = fields
    game_slug = None

    def get_queryset(self, request):
        qs = super().get_queryset(request).select_related("game")
        return qs.filter(game__game=self.game_slug) if self.game_slug else qs

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


admin.site.register(Room, RoomAdmin)
admin.site.register(Seat, SeatAdmin)
admin.site.register(Game, GameAdmin)
admin.site.register(Move, MoveAdmin)


def register_game_admin(slug: str, *, room, seat, game, move) -> None:
    """Register one game's proxy models with admin classes filtered to that game."""
    for proxy, base in ((room, RoomAdmin), (seat, SeatAdmin), (game, GameAdmin), (move, MoveAdmin)):
        admin.site.register(proxy, type(f"{proxy.__name__}Admin", (base,), {"game_slug": slug}))
