"""Proxies so that the candles game has its own admin pages for rooms, seats, games and moves."""

from django.utils.translation import gettext_lazy as _

from rooms.models import Game, Move, Room, Seat


class CandlesRoom(Room):
    class Meta:
        proxy = True
        verbose_name = _("candles room")
        verbose_name_plural = _("candles rooms")


class CandlesSeat(Seat):
    class Meta:
        proxy = True
        verbose_name = _("candles seat")
        verbose_name_plural = _("candles seats")


class CandlesGame(Game):
    class Meta:
        proxy = True
        verbose_name = _("candles game")
        verbose_name_plural = _("candles games")


class CandlesMove(Move):
    class Meta:
        proxy = True
        verbose_name = _("candles move")
        verbose_name_plural = _("candles moves")
