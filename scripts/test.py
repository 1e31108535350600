"""`make test`: a local Redis if none answers, then the whole pytest suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.localredis import started_redis  # noqa: E402


def main() -> int:
    with started_redis() as url:
        env = {**os.environ, "REDIS_URL": url}
        result = subprocess.run([sys.executable, "-m", "pytest", *sys.argv[1:]], cwd=ROOT, env=env)
    if result.returncode == 5:  # pytest collected nothing: that is a failure here, not a pass
        print("No tests were collected.", file=sys.stderr)
        return 1
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
