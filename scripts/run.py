"""`make run`: a local Redis if none answers, then daphne and the worker; Ctrl-C stops them all."""

from __future__ import annotations

import os
import resource
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

# Sockets that connect at once (a thousand players, or every page reconnecting after a restart) wait in the
# kernel's queue for daphne to accept them. Twisted's default queue holds 50: past it, connections are
# dropped and retried seconds later. The kernel caps it at net.core.somaxconn (docs/deploy.md).
LISTEN_BACKLOG = 4096
# From a socket's TCP connection to the room accepting it. daphne's default, 5 s, closed handshakes
# without an HTTP answer while a thousand sockets connected at once and each waited its turn to be checked.
HANDSHAKE_SECONDS = 30


def daphne_command(python: str, *, host: str, port: int | str, extra: tuple[str, ...] = ()) -> list[str]:
    """How daphne is started, by `make run` and by the benchmarks alike: through config/serve.py, which
    picks its event loop (WICKWISE_EVENT_LOOP) before daphne makes it, then runs daphne's own command line.
    `extra` goes before the application (--proxy-headers, -v 0)."""
    interface = host.strip("[]").replace(":", r"\:")  # an IPv6 address's colons, escaped for the endpoint
    return [python, "-m", "config.serve", "-e", f"tcp:port={port}:interface={interface}:backlog={LISTEN_BACKLOG}",
            "--websocket_connect_timeout", str(HANDSHAKE_SECONDS),
            "--websocket-max-message-size", "65536", "--websocket-max-frame-size", "65536",
            *extra, "config.asgi:application"]


def raise_open_files_limit() -> None:
    """Every socket is a file: raise this process's soft limit to the hard one (often 1,024 against a
    hard limit many times that). Meant for a child's preexec_fn as well."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1 << 20 if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def server_env(redis_url: str, environ=os.environ) -> dict[str, str]:
    """What daphne and the worker run with: DEBUG off unless DEBUG=true is set, because this is what people
    play on (no technical error pages, and no query log growing with every move)."""
    return {"DEBUG": "false", **environ, "REDIS_URL": redis_url}


def main() -> int:
    python = sys.executable
    with started_redis() as url:
        env = server_env(url)
        server = subprocess.Popen(daphne_command(python, host=HOST, port=PORT), cwd=ROOT, env=env,
                                  preexec_fn=raise_open_files_limit)
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
