"""Template context every page gets."""

from __future__ import annotations

from games import registry


def site_games(request) -> dict:
    """The games on offer, for the navigation's "How to play" links (no database needed)."""
    return {"site_games": registry.all_games()}
