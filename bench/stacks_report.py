"""What a stack sampler's file says (rooms/sampler.py, WICKWISE_SAMPLE_STACKS): each thread group's CPU, split by
what it was doing, and its costliest stacks.

    python bench/stacks_report.py FILE [--entry N] [--groups move,move-intake] [--top 20] [--within FUNCTION]

`--entry` picks one of the file's entries (default: each one); `--within` keeps only the stacks that pass
through a function of that name (bench/move_cost.py's thread runs the benchmark's own code too: `--within
play`)."""

from __future__ import annotations

import argparse
import collections
import json
import re
from pathlib import Path

# The innermost frame that matches names what a stack's CPU went to; the rules are tried in this order on
# every frame, from the innermost out. The first two look at the whole stack first.
WHOLE_STACK = (
    ("close_old_connections", re.compile(r" close_old_connections$")),
    ("logging", re.compile(r"^logging/__init__\.py:")),
)
INNERMOST = (
    ("Redis client (redis-py)", re.compile(r"^redis/")),
    ("database (Django ORM, sqlite3, psycopg)", re.compile(r"^django/db/|sqlite3|^psycopg")),
    ("JSON", re.compile(r"^json/")),
    ("translation", re.compile(r"^django/utils/translation/|^gettext\.py:")),
    ("thread hand-offs (pool, locks, queues)", re.compile(r"^concurrent/futures/|^threading\.py:|^queue\.py:")),
    ("engine (games/)", re.compile(r"^games/")),
    ("building updates (rooms/snapshots.py)", re.compile(r"^rooms/snapshots\.py:")),
    ("publishing (rooms/broadcast.py)", re.compile(r"^rooms/broadcast\.py:")),
    ("Redis glue (rooms/live.py)", re.compile(r"^rooms/live\.py:")),
    ("the queue (rooms/move_queue.py)", re.compile(r"^rooms/move_queue\.py:")),
    ("services (rooms/services.py)", re.compile(r"^rooms/services\.py:")),
    ("other project code", re.compile(r"^(rooms|games|config|accounts)/")),
    ("Django, other", re.compile(r"^django/")),
)


def category(frames: list[str]) -> str:
    for name, rule in WHOLE_STACK:
        if any(rule.search(frame) for frame in frames):
            return name
    for frame in frames:
        for name, rule in INNERMOST:
            if rule.search(frame):
                return name
    return "other: " + (frames[0].split(":")[0].rsplit("/", 1)[-1] if frames else "?")


def project_step(frames: list[str]) -> str:
    """The innermost frame of the project's own code (its file and function): which step of a move."""
    for frame in frames:
        if re.match(r"(rooms|games)/", frame):
            file_line, function = frame.split(" ", 1)
            return f"{file_line.split(':')[0]} {function}"
    return "(no project frame)"


def short(frames: list[str], keep: int = 6) -> str:
    """The innermost frame, then the project's frames outwards, up to `keep`."""
    shown = [frames[0]] + [frame for frame in frames[1:] if re.match(r"(rooms|games)/", frame)]
    return " < ".join(frame.split("/")[-1] for frame in shown[:keep])


def report(entry: dict, groups: list[str] | None, top: int, within: str | None, moves: int | None = None) -> None:
    seconds = entry["until"] - entry["since"]
    print(f"window {seconds:.1f} s, {entry['rounds']} rounds of looks ({entry['rounds'] / max(seconds, 1e-9):.0f}/s), "
          f"the sampler's own CPU {entry['sampler_cpu'] or 0:.3f} s")
    total = sum(group["cpu"] for group in entry["groups"].values())
    per = f", {total / moves * 1e3:.3f} ms a move over {moves} moves" if moves else ""
    print(f"threads' CPU {total:.3f} s{per}; by group:")
    for name, group in entry["groups"].items():
        if group["cpu"] > 0.001 * total:
            print(f"  {name:<16} {group['cpu']:8.3f} s  {100 * group['cpu'] / max(total, 1e-9):5.1f} %"
                  + (f"  {group['cpu'] / moves * 1e3:.3f} ms a move" if moves else ""))
    kernel = entry.get("kernel") or {}
    if kernel:
        print("from /proc, by group: user / system CPU s (system's share), context switches voluntary / "
              "involuntary" + (", a move" if moves else ""))
        for name, counts in sorted(kernel.items(), key=lambda item: -(item[1]["user"] + item[1]["system"])):
            used = counts["user"] + counts["system"]
            if used < 0.001 * total and name not in entry["groups"]:
                continue
            per = moves or 1
            share = 100 * counts["system"] / max(used, 1e-9)
            print(f"  {name:<16} {counts['user']:7.2f} / {counts['system']:6.2f} s ({share:3.0f} %)"
                  f"  {counts['voluntary_switches'] / per:8.2f} / {counts['involuntary_switches'] / per:6.2f}")
    stacks = entry["stacks"]
    if within:
        stacks = [stack for stack in stacks if any(frame.endswith(" " + within) for frame in stack["frames"])]
    for name in groups or [name for name, group in entry["groups"].items() if group["cpu"] > 0.02 * total]:
        mine = [stack for stack in stacks if stack["group"] == name]
        cpu = sum(stack["cpu"] for stack in mine)
        if not mine or cpu <= 0:
            continue
        running = [stack for stack in mine if not stack["waiting"]]
        looks = sum(stack["looks"] for stack in mine)
        looks_running = sum(stack["looks"] for stack in running)
        print(f"\n{name}: CPU {cpu:.3f} s, {looks} looks of which {looks_running} running "
              f"({100 * looks_running / max(looks, 1):.0f} %); CPU counted to a waiting stack "
              f"{100 * sum(stack['cpu'] for stack in mine if stack['waiting']) / cpu:.0f} %")
        for title, key in (("by what the CPU went to (innermost match)", lambda stack: category(stack["frames"])),
                           ("by the project's innermost function", lambda stack: project_step(stack["frames"]))):
            by_cpu, by_looks = collections.Counter(), collections.Counter()
            for stack in mine:
                by_cpu[key(stack)] += stack["cpu"]
            for stack in running:
                by_looks[key(stack)] += stack["looks"]
            print(f"  {title}: % of CPU | % of running looks")
            for label, used in by_cpu.most_common(top):
                if used < 0.005 * cpu and by_looks[label] < 0.005 * looks_running:
                    continue
                print(f"    {100 * used / cpu:5.1f} | {100 * by_looks[label] / max(looks_running, 1):5.1f}  {label}"
                      + (f"  ({used / moves * 1e6:.0f} µs a move)" if moves else ""))
        print("  costliest stacks (CPU %, looks, waiting?): innermost < project frames outwards")
        for stack in sorted(mine, key=lambda stack: -stack["cpu"])[:top]:
            print(f"    {100 * stack['cpu'] / cpu:5.1f} {stack['looks']:6d} {'W' if stack['waiting'] else 'R'}  "
                  f"{short(stack['frames'])}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--entry", type=int, help="which entry (0 the first, -1 the last); default each")
    parser.add_argument("--groups", help="thread groups, comma-separated (default: those over 2 %% of the CPU)")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--within", help="only stacks through a function of this name")
    parser.add_argument("--moves", type=int, help="moves in the window: CPU a move")
    args = parser.parse_args()
    entries = [json.loads(line) for line in args.file.read_text().splitlines() if line.strip()]
    chosen = entries if args.entry is None else [entries[args.entry]]
    for number, entry in enumerate(chosen):
        if len(chosen) > 1:
            print(f"\n=== entry {number} ===")
        report(entry, args.groups.split(",") if args.groups else None, args.top, args.within, args.moves)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
