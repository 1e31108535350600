"""Compile locale/*/LC_MESSAGES/*.po into .mo with Babel, so no system gettext is needed."""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    count = 0
    for po_path in sorted(ROOT.glob("locale/*/LC_MESSAGES/*.po")):
        mo_path = po_path.with_suffix(".mo")
        if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
            continue
        with po_path.open("rb") as handle:
            catalog = read_po(handle, locale=po_path.parent.parent.name)
        with mo_path.open("wb") as handle:
            write_mo(handle, catalog)
        count += 1
    print(f"translations: {count} catalog(s) compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
