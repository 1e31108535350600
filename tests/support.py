"""Small pieces that the shared fixtures and the room tests both need."""

from __future__ import annotations

import os
import re


def flush_suite_redis() -> None:
    """Delete every key of this test run in Redis (its own prefix), as if Redis had restarted empty."""
    from django.conf import settings

    from rooms import live

    client = live.client()
    keys = list(client.scan_iter(match=settings.REDIS_PREFIX + "*", count=1000))
    if keys:
        client.delete(*keys)


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for daphne or a worker started by a test: the test database, this run's Redis."""
    from django.conf import settings
    from django.db import connection

    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "WICKWISE_TEST_DB_NAME": str(connection.settings_dict["NAME"]),
        "REDIS_URL": settings.REDIS_URL,
        "REDIS_PREFIX": settings.REDIS_PREFIX,
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def text_of(response) -> str:
    """A page's words without tags, whitespace folded, as a reader sees them."""
    html = response.content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    return re.sub(r" ([.,;:!?])", r"\1", text)
