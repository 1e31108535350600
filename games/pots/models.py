"""Proxies so that the pots game has its own admin pages for rooms, seats, games and moves."""

from django.utils.translation import gettext_lazy as _

from rooms.models import Game, Move, Room, Seat


class PotsRoom(Room):
    class Meta:
        proxy = True
        verbose_name = _("pots room")
        verbose_name_plural = _("pots rooms")


class PotsSeat(Seat):
    class Meta:
        proxy = True
        verbose_name = _("pots seat")
        verbose_name_plural = _("pots seats")


class PotsGame(Game):
    class Meta:
        proxy = True
        verbose_name = _("pots game")
        verbose_name_plural = _("pots games")


class PotsMove(Move):
    class Meta:
        proxy = True
        verbose_name = _("pots move")
        verbose_name_plural = _("pots moves")
