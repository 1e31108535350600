"""Admin for rooms, seats, games and move logs. A game's seed stays hidden until the game is over.

Each game app registers proxies of these models with `register_game_admin`, so its rooms, seats,
games and moves have pages of their own.
"""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from rooms import services
from rooms.models import Game, Move, Room, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("index", "name", "is_bot", "bot_level", "user", "stand_in", "joined_at")
    readonly_fields = fields
    can_delete = False


class RoomAdmin(admin.ModelAdmin):
    list_display = ("code", "game", "seat_count", "games_played", "last_activity_at", "created_at")
    list_filter = ("game",)
    search_fields = ("code",)
    readonly_fields = ("code", "game", "seat_count", "options", "created_at", "last_activity_at", "games_played")
    inlines = [SeatInline]
    game_slug = None

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        return qs.filter(game=self.game_slug) if self.game_slug else qs


class SeatAdmin(admin.ModelAdmin):
    list_display = ("__str__", "name", "is_bot", "user", "stand_in", "joined_at")
    list_filter = ("is_bot", "stand_in")
    search_fields = ("room__code", "name", "user__username")
    readonly_fields = ("room", "index", "return_code_hash", "joined_at")
    exclude = ()
    game_slug = None

    def get_queryset(self, request):
        qs = super().get_queryset(request).select_related("room", "user")
        return qs.filter(room__game=self.game_slug) if self.game_slug else qs


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    fields = ("seq", "seat", "action", "by", "created_at")
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


class GameAdmin(admin.ModelAdmin):
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


class MoveAdmin(admin.ModelAdmin):
    list_display = ("__str__", "seat", "by", "action", "created_at")
    list_filter = ("by",)
    search_fields = ("game__room_code",)
    readonly_fields = ("game", "seq", "seat", "action", "by", "created_at")
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
