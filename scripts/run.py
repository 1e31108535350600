"""`make run`: a local Redis if none answers, then daphne and the worker; Ctrl-C stops them all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.localredis import started_redis  # noqa: E402

HOST = os.environ.get("HOST", "127.0.0.1")
PORT = os.environ.get("PORT", "8000")


def server_env(redis_url: str, environ=os.environ) -> dict[str, str]:
    """What daphne and the worker run with: DEBUG off unless DEBUG=true is set, because this is what people
    play on (no technical error pages, and no query log growing with every move)."""
    return {"DEBUG": "false", **environ, "REDIS_URL": redis_url}


def main() -> int:
    python = sys.executable
    with started_redis() as url:
        env = server_env(url)
        server = subprocess.Popen(
            [python, "-m", "daphne", "-b", HOST, "-p", PORT, "--websocket-max-message-size", "65536",
             "--websocket-max-frame-size", "65536", "config.asgi:application"], cwd=ROOT, env=env)
        worker = subprocess.Popen([python, "manage.py", "worker"], cwd=ROOT, env=env)
        children = [server, worker]
        print(f"\n  Wickwise is running: open http://{HOST}:{PORT}/  (Ctrl-C stops it)\n", flush=True)
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        while not stopping and all(child.poll() is None for child in children):
            time.sleep(0.2)
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        print("Wickwise stopped.", flush=True)
        return 0 if stopping else 1


if __name__ == "__main__":
    sys.exit(main())
