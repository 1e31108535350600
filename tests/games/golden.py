"""Recorded whole games that the engine tests replay, one JSON file a game. The files are written one key
a line, one move a line and one entry a line of an object, so that a regeneration's diff is small."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path


def transcript_json(transcript: dict) -> str:
    lines = []
    for key, value in transcript.items():
        if key == "moves":
            text = "[\n" + ",\n".join(f"  {json.dumps(move)}" for move in value) + "\n ]"
        elif isinstance(value, dict):
            text = "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()) + "\n }"
        else:
            text = json.dumps(value)
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


class GoldenGames:
    """The recorded games of one engine: `record(spec)` plays a game of GAMES again and returns its
    transcript; the files hold what it returned when they were written."""

    def __init__(self, directory: Path, games: list[dict], record: Callable[[dict], dict]):
        self.directory = directory
        self.games = games
        self.record = record

    def path(self, name: str) -> Path:
        return self.directory / f"{name}.json"

    def load(self, name: str) -> dict:
        return json.loads(self.path(name).read_text())

    def write_all(self) -> None:
        self.directory.mkdir(exist_ok=True)
        for spec in self.games:
            transcript = self.record(spec)
            text = transcript_json(transcript)
            assert json.loads(text) == transcript
            self.path(spec["name"]).write_text(text)

    def main(self, module: str) -> None:
        """`python -m MODULE --write`: record the games again."""
        if sys.argv[1:] != ["--write"]:
            sys.exit(f"usage: python -m {module} --write")
        self.write_all()
        print(f"wrote {len(self.games)} transcripts to {self.directory}")
