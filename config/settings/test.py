"""Settings for the test suite: real Redis and database, short timers, fast password hashing."""

import os

from .base import *  # noqa: F401,F403
from .base import BASE_DIR, CHANNEL_LAYERS, DATABASES, WICKWISE

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Keys of each test run stay apart from a running site's and from other runs'.
REDIS_PREFIX = os.environ.get("REDIS_PREFIX", f"wwtest{os.getpid()}:")
CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = REDIS_PREFIX + "asgi"
WICKWISE.update({
    "GRACE_SECONDS": float(os.environ.get("WICKWISE_GRACE_SECONDS", "1.0")),
    "BOT_DELAY_SECONDS": float(os.environ.get("WICKWISE_BOT_DELAY_SECONDS", "0")),
    "BOT_WAITS_FOR_TABLE": os.environ.get("WICKWISE_BOT_WAITS_FOR_TABLE", "false").lower() == "true",
    "WORKER_POLL_SECONDS": 0.02,
    "BOT_STEP_SECONDS": float(os.environ.get("WICKWISE_BOT_STEP_SECONDS", "0.02")),
    # Searches in the calling process, so that a test can patch the bot; worker tests ask for processes.
    "BOT_PROCESSES": int(os.environ.get("WICKWISE_BOT_PROCESSES", "0")),
})
# A live server started by the tests in another process uses the test database by name.
if os.environ.get("WICKWISE_TEST_DB_NAME"):
    DATABASES["default"]["NAME"] = os.environ["WICKWISE_TEST_DB_NAME"]
elif "TEST" in DATABASES["default"]:
    # A file of its own per test run, so that two runs on one machine never share a SQLite file.
    DATABASES["default"]["TEST"]["NAME"] = str(BASE_DIR / "var" / f"test-{os.getpid()}.sqlite3")
ALLOWED_HOSTS = ["*"]
# Connections kept by the thread pools would keep PostgreSQL from dropping the test database.
DATABASES["default"]["CONN_MAX_AGE"] = 0
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
