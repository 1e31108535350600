"""Compile every catalog (locale/ and each game app's locale/) into .mo with Babel, so no system gettext is needed."""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent


def catalogs() -> list[Path]:
    """The project's catalogs, then each game's own (Django finds an installed app's locale/ by itself)."""
    return sorted(ROOT.glob("locale/*/LC_MESSAGES/*.po")) + sorted(ROOT.glob("games/*/locale/*/LC_MESSAGES/*.po"))


def main() -> int:
    count = 0
    for po_path in catalogs():
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
