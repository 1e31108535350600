"""What the benchmarks share: seeds that a run can repeat, percentiles, Django set up in one process, and a fresh
PostgreSQL database for a run."""

from __future__ import annotations

import hashlib
import os
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from games import fairness


def game_seed(base: str | None, label: str, number: int) -> str:
    """A fresh secret seed, or with --seed one derived from it, so that a run can be repeated."""
    if base is None:
        return fairness.new_seed()
    return hashlib.sha256(f"{base}|{label}|{number}".encode()).hexdigest()


def percentile(values: list[float], share: float) -> float:
    """The value at `share` (0 to 1) of the way through the sorted values, by nearest rank; nan for none."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def setup_django(name: str, *, redis_url: str | None = None, debug: bool = False) -> None:
    """Django in this process for a one-process benchmark: DATABASE_URL if set, else a fresh SQLite file
    var/bench/NAME.sqlite3, migrated; its own Redis prefix. `debug` False runs as the site's processes do
    (no query log)."""
    workdir = Path(__file__).resolve().parents[1] / "var" / "bench"
    workdir.mkdir(parents=True, exist_ok=True)
    database = workdir / f"{name}.sqlite3"
    database.unlink(missing_ok=True)
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{database}")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    if redis_url is not None:
        os.environ["REDIS_URL"] = redis_url
    os.environ["REDIS_PREFIX"] = f"wwbench{os.getpid()}:"
    if not debug:
        os.environ["DEBUG"] = "false"
        os.environ.setdefault("LOG_LEVEL", "WARNING")
        os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


@contextmanager
def fresh_postgres_database(base_url: str, suffix: str = ""):
    """A database of the run's own on base_url's server (wwbench_PID, then `suffix` when a run needs more
    than one), dropped at the end: fresh tables, as SQLite's fresh file, and nothing left behind on a server
    that is not the benchmark's."""
    import psycopg
    from psycopg import sql

    name = f"wwbench_{os.getpid()}{suffix}"
    with psycopg.connect(base_url, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit(urlsplit(base_url)._replace(path=f"/{name}")), name
    finally:
        with psycopg.connect(base_url, autocommit=True) as connection:
            connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
