"""Benchmark of the JavaScript tiles judge (games/tiles/static/tiles/rules.js) in Chromium, beside Python's.

    python bench/tiles_judge_js.py [--batches 400] [--per-batch 50]

The table will judge the draft on every drop while a player drags tiles, so a judgement must cost far
less than a frame (16 ms). Chromium's clock is coarse (about 0.1 ms outside an isolated page), so each
figure is the time of a batch of judgements divided by its size; it prints, per board, the median and p99
of those per-judgement times in microseconds, next to the median of the Python judge on the same board
(bench/tiles_validator.py's boards and timing).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project root, to run standalone

from bench.common import percentile
from bench.tiles_validator import boards, measure
from tests.browser.conftest import CHROMIUM_ARGS, chromium_path

ROOT = Path(__file__).resolve().parents[1]
TIMING = """([text, batches, perBatch]) => {
  const table = JSON.parse(text);
  const judge = window.WickwiseRules.tiles.judge;
  for (let i = 0; i < 200; i += 1) judge(table);  // let the JIT settle
  const times = [];
  for (let b = 0; b < batches; b += 1) {
    const start = performance.now();
    for (let i = 0; i < perBatch; i += 1) judge(table);
    times.push((performance.now() - start) * 1000 / perBatch);
  }
  return times;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=400)
    parser.add_argument("--per-batch", type=int, default=50)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    script = (ROOT / "games" / "tiles" / "static" / "tiles" / "rules.js").read_text()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_content("<!doctype html><title>judge</title>")
        page.add_script_tag(content=script)
        print("microseconds per judgement (a batch's time over its size)")
        print(f"{'board':<16} {'tiles':>5} | {'js median':>9} {'js p99':>8} | {'python median':>13}")
        for name, table in boards().items():
            cells = [list(cell) for cell in table]
            times = page.evaluate(TIMING, [json.dumps(cells), args.batches, args.per_batch])
            python_wall, _cpu = measure(table, 2000)
            print(f"{name:<16} {len(table):>5} | {statistics.median(times):>9.1f} {percentile(times, 0.99):>8.1f} | "
                  f"{statistics.median(python_wall):>13.1f}")
        browser.close()


if __name__ == "__main__":
    main()
