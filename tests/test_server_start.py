"""How daphne is started (scripts/run.py), by `make run` and by the benchmarks: a deep listen queue, a
handshake that may wait its turn, and the open-files limit raised, so that a thousand sockets connecting
at once (or reconnecting after a restart) are all answered."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

from daphne.cli import CommandLineInterface
from twisted.internet.endpoints import _parseServer

from bench import chaos, live_load
from scripts import run, screenshots

ROOT = Path(__file__).resolve().parent.parent


def daphne_arguments(command: list[str]):
    assert command[1:3] == ["-m", "config.serve"]
    return CommandLineInterface().parser.parse_args(command[3:])


def test_daphne_listens_with_a_deep_queue_and_waits_for_slow_handshakes():
    arguments = daphne_arguments(run.daphne_command("python", host="127.0.0.1", port=8000))
    assert arguments.socket_strings == ["tcp:port=8000:interface=127.0.0.1:backlog=4096"]
    assert arguments.host is None and arguments.port is None  # no second endpoint with the default queue
    kind, (port, _), options = _parseServer(arguments.socket_strings[0], None)
    assert (kind, port, options["backlog"], options["interface"]) == ("TCP", 8000, 4096, "127.0.0.1")
    assert arguments.websocket_connect_timeout == 30, "daphne's 5 s closed handshakes queued behind a thousand"
    assert arguments.websocket_max_message_size == 65536 and arguments.application == "config.asgi:application"


def test_an_ipv6_address_is_escaped_for_the_endpoint():
    arguments = daphne_arguments(run.daphne_command("python", host="[::1]", port=8000, extra=("-v", "0")))
    _, _, options = _parseServer(arguments.socket_strings[0], None)
    assert options["interface"] == "::1" and arguments.verbosity == 0


def test_the_benchmarks_start_daphne_as_make_run_does():
    source = inspect.getsource(live_load.Server.start_daphne)
    assert "daphne_command(" in source and "preexec_fn=raise_open_files_limit" in source
    assert "preexec_fn=raise_open_files_limit" in inspect.getsource(run.main)
    # The chaos run and the screenshots too: a daphne started by hand had its own message limit.
    assert "daphne_command(" in inspect.getsource(chaos.Site._daphne)
    assert "daphne_command(" in inspect.getsource(screenshots.Site.start)


def test_the_open_files_limit_is_raised_to_the_hard_limit():
    script = ("import resource; from scripts.run import raise_open_files_limit; "
              "hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]; "
              "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)); raise_open_files_limit(); "
              "soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]; "
              "print(soft == hard or (hard == resource.RLIM_INFINITY and soft >= 1 << 20))")
    output = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert output.stdout.strip() == "True"


def test_daphne_makes_full_collections_rarer_once_loaded():
    """The server's own modules are frozen out of collections, and a full collection comes after a hundred of
    the middle generation, not ten: each scans every open socket's objects while every socket waits."""
    script = "import gc, config.asgi; print(gc.get_threshold()[2], gc.get_freeze_count() > 0)"
    shown = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["100", "True"]
