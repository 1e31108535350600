"""Ports on this machine for the processes the tests, the benchmarks and the screenshots start."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port no socket holds now (the system's choice): a process started next can listen on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int, *, timeout: float = 0.2) -> bool:
    """Whether something listens on `port` of this machine."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False
