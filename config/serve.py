"""daphne on a chosen event loop: `python -m config.serve <daphne's arguments>`.

daphne makes its event loop when `daphne.server` is first imported (`asyncio.new_event_loop()`, then
Twisted's asyncio reactor on top of it), so the loop policy has to be set before daphne is imported at
all. This module sets it, then runs daphne's own command line with the arguments it was given.

WICKWISE_EVENT_LOOP picks the loop: `uvloop` (the default) is libuv's; `asyncio` is the standard
library's selector loop, the one daphne makes by itself. docs/benchmarks.md ("daphne on uvloop") has
the runs that compared them on the same code.

It also sets daphne's first garbage-collection threshold (YOUNG_COLLECTION_AFTER): here, so that only daphne's
process has it, not every process that imports config.asgi (the tests' own, for one).
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys

EVENT_LOOP_VARIABLE = "WICKWISE_EVENT_LOOP"
EVENT_LOOPS = ("asyncio", "uvloop")
DEFAULT_EVENT_LOOP = "uvloop"

# Every socket's message frees the objects of its previous wait as it makes new ones, so Python's count (objects
# made less those freed) reached its 700 only now and then, by which time the young generation held every
# waiting socket's objects: each young or middle collection scanned tens of thousands at 1,000 sockets, 10 to
# 25 ms while every socket waited, several times every 10 s of play, to free almost nothing. After 50,000 they
# come while sockets connect or close (each of Twisted's requests, a page's or a handshake's, leaves some 60
# objects of cyclic garbage), and seldom in play; that garbage waits for at most 50,000 objects
# (docs/benchmarks.md, "daphne's young collections after 50,000").
YOUNG_COLLECTION_AFTER = 50_000


def chosen_event_loop(environ=os.environ) -> str:
    """The loop named by WICKWISE_EVENT_LOOP (unset or empty: the default). A name that is neither stops
    the server before it starts rather than run on a loop nobody asked for."""
    name = environ.get(EVENT_LOOP_VARIABLE, "").strip().lower() or DEFAULT_EVENT_LOOP
    if name not in EVENT_LOOPS:
        raise SystemExit(f"{EVENT_LOOP_VARIABLE}={name!r}: expected one of {', '.join(EVENT_LOOPS)}")
    return name


def use_event_loop(name: str) -> None:
    """Make every loop asyncio creates from here on a `name` loop. Must run before daphne is imported."""
    if "daphne.server" in sys.modules:
        raise RuntimeError("daphne has already made its event loop; choose the loop before importing it")
    if name == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    else:
        asyncio.set_event_loop_policy(None)  # the standard library's own policy


def collect_young_after(objects: int = YOUNG_COLLECTION_AFTER) -> None:
    """Python's first threshold set to `objects`; the others (config.asgi sets the last) left as they are."""
    gc.set_threshold(objects, *gc.get_threshold()[1:])


def main() -> None:
    collect_young_after()
    use_event_loop(chosen_event_loop())
    from daphne.cli import CommandLineInterface

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
