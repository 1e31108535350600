"""What the benchmarks share: seeds that a run can repeat, and percentiles."""

from __future__ import annotations

import hashlib

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
