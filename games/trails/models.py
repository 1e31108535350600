"""Proxies so that the trails game has its own admin pages for rooms, seats, games and moves."""

from django.utils.translation import gettext_lazy as _

from rooms.models import Game, Move, Room, Seat


class TrailsRoom(Room):
    class Meta:
        proxy = True
        verbose_name = _("trails room")
        verbose_name_plural = _("trails rooms")


class TrailsSeat(Seat):
    class Meta:
        proxy = True
        verbose_name = _("trails seat")
        verbose_name_plural = _("trails seats")


class TrailsGame(Game):
    class Meta:
        proxy = True
        verbose_name = _("trails game")
        verbose_name_plural = _("trails games")


class TrailsMove(Move):
    class Meta:
        proxy = True
        verbose_name = _("trails move")
        verbose_name_plural = _("trails moves")
