"""Proxies so that the tiles game has its own admin pages for rooms, seats, games and moves."""

from django.utils.translation import gettext_lazy as _

from rooms.models import Game, Move, Room, Seat


class TilesRoom(Room):
    class Meta:
        proxy = True
        verbose_name = _("tiles room")
        verbose_name_plural = _("tiles rooms")


class TilesSeat(Seat):
    class Meta:
        proxy = True
        verbose_name = _("tiles seat")
        verbose_name_plural = _("tiles seats")


class TilesGame(Game):
    class Meta:
        proxy = True
        verbose_name = _("tiles game")
        verbose_name_plural = _("tiles games")


class TilesMove(Move):
    class Meta:
        proxy = True
        verbose_name = _("tiles move")
        verbose_name_plural = _("tiles moves")
