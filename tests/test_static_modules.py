"""In production the room page's modules import each other by their hashed names (config/storage.py)."""

from __future__ import annotations

import re

from django.core.management import call_command
from django.test import override_settings


def test_collectstatic_hashes_the_room_modules_and_their_imports(tmp_path):
    storages = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                "staticfiles": {"BACKEND": "config.storage.StaticStorage"}}
    with override_settings(STORAGES=storages, STATIC_ROOT=tmp_path):
        call_command("collectstatic", "--noinput", verbosity=0)
    main = [path for path in (tmp_path / "js" / "room").glob("main.*.js") if not path.name.endswith(".gz")]
    assert len(main) == 1
    imports = re.findall(r'from "\./([\w.-]+)"', main[0].read_text())
    assert imports and all(re.fullmatch(r"[\w-]+\.[0-9a-f]{12}\.js", name) for name in imports), imports
    for name in imports:
        assert (tmp_path / "js" / "room" / name).exists()
