"""SQLITE_SYNCHRONOUS: SQLite's flush at each commit, chosen by the operator (README, "Configuration")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# PRAGMA synchronous reads 1 for NORMAL and 2 for FULL, on a connection Django opened with its init command.
PROBE = ("import django; django.setup(); from django.db import connection; "
         "cursor = connection.cursor(); cursor.execute('PRAGMA synchronous'); print(cursor.fetchone()[0])")


def _probe(tmp_path: Path, value: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'probe.sqlite3'}"}
    env.pop("SQLITE_SYNCHRONOUS", None)
    if value is not None:
        env["SQLITE_SYNCHRONOUS"] = value
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize(("value", "level"), [(None, "1"), ("normal", "1"), ("full", "2"), (" FULL ", "2")])
def test_sqlite_flushes_at_each_commit_only_when_asked(tmp_path, value, level):
    result = _probe(tmp_path, value)
    assert result.stdout.strip() == level, result.stderr


@pytest.mark.parametrize("value", ["off", "extra", ""])
def test_any_other_value_is_refused_with_a_clear_error(tmp_path, value):
    result = _probe(tmp_path, value)
    assert result.returncode != 0
    assert "SQLITE_SYNCHRONOUS must be normal or full" in result.stderr
