import functools

from django.contrib.staticfiles import finders
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import registry


@require_GET
def verify(request):
    return render(request, "games/verify.html", {
        "room": request.GET.get("room", "")[:12], "number": request.GET.get("n", "")[:6],
        "games": [spec for spec in registry.all_games() if _has_browser_rules(spec.slug)],
    })


@functools.cache
def _has_browser_rules(slug: str) -> bool:
    """The Verify page replays the games whose rules are ported to JavaScript (static/<slug>/rules.js)."""
    return finders.find(f"{slug}/rules.js") is not None


@require_GET
def how_to_play(request, game: str):
    try:
        spec = registry.get(game)
    except KeyError:
        raise Http404(_("There is no such game.")) from None
    return render(request, f"{spec.slug}/how_to_play.html", {"spec": spec, "games": registry.all_games()})
