"""Settings for every environment; configuration comes from environment variables (see README)."""

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def default_bot_processes(cores: int | None = None) -> int:
    """Processes in each of the worker's bot pools unless WICKWISE_BOT_PROCESSES says: half the cores this
    process may use (usable_cores), at least one and at most eight. One process makes some 40 candles
    decisions a second whatever the machine; half the cores leaves the other half to daphne, the worker and
    the database, and the bots think below their priority (BOT_NICENESS). Two processes on two cores, more
    than that, halved a player's median move beside 500 bots but raised its p99 (docs/benchmarks.md, "the
    bots' processes below the players'")."""
    if cores is None:
        cores = usable_cores()
    return min(8, max(1, cores // 2))


def usable_cores() -> int:
    """The cores this process may run on (its affinity), or fewer if its cgroup's CPU quota (a container's
    --cpus, a pod's limit) allows less."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))  # a quota of 1.5 cores: 2
    except (OSError, ValueError):  # no cgroup v2 here, or no quota to read
        pass
    return cores


DEBUG = env_bool("DEBUG", True)
# The development default is only used when no SECRET_KEY is given; production.py refuses it.
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-change-me-0123456789-abcdefghijklmnop")
ALLOWED_HOSTS = [
    host.strip() for host in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if host.strip()
]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "accounts",
    "rooms",
    "games",
    "games.candles",
    "games.trails",
    "games.pots",
    "games.tiles",
]
WICKWISE_GAMES = ["candles", "trails", "pots", "tiles"]

MIDDLEWARE = [
    "rooms.middleware.CloseRequestConnectionsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "rooms.middleware.RedisBusyMiddleware",
    "rooms.middleware.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "rooms.context_processors.site_games",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'var' / 'wickwise.sqlite3'}"),
        # Sockets call the database from a thread pool: keep connections instead of reopening per call.
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One writer at a time: wait for the lock instead of failing, and a file-backed test database so
    # that a live server in another process sees what the tests write.
    # WAL lets readers run beside the writer; synchronous=NORMAL is safe against a process crash and
    # spares a disk flush per move. FULL flushes the log at every commit, as PostgreSQL does, so that a
    # power cut loses nothing either. The worker copies the log back in a thread of its own (rooms/checkpoints.py).
    SQLITE_SYNCHRONOUS = os.environ.get("SQLITE_SYNCHRONOUS", "normal").strip().upper()
    if SQLITE_SYNCHRONOUS not in {"NORMAL", "FULL"}:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(f"SQLITE_SYNCHRONOUS must be normal or full, not {SQLITE_SYNCHRONOUS.lower()!r}")
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={SQLITE_SYNCHRONOUS};",
    })
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "var" / "test.sqlite3")}
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django turns psycopg's prepared statements off unless given a threshold. Only rooms.services' cursor for
    # the statements of every move binds on the server and asks for them; Django's cursors bind in the client,
    # which never prepares. The threshold still makes psycopg count every query on the connection, and once
    # it holds prepared statements, any ROLLBACK it sees (a refused move's, ROLLBACK TO SAVEPOINT too), ALTER
    # or DROP makes it drop them all (DEALLOCATE ALL, a round trip more). Acceptable: each is prepared again
    # once, at its next run, and these are rare next to moves.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 5)
    # Django's backend, with a health check that makes no round trip while the server has said nothing.
    DATABASES["default"]["ENGINE"] = "config.postgresql"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("pt-br", "Português (Brasil)"), ("pt-pt", "Português (Portugal)")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise looks here; collectstatic fills it in production
WHITENOISE_USE_FINDERS = True  # serve app static files without collectstatic in development and tests
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
# Keys of this site in Redis start with this prefix, so tests and several sites can share a server.
REDIS_PREFIX = os.environ.get("REDIS_PREFIX", "ww:")

# Redis pub/sub: a room's update is published once and each process hands it to its own sockets; the
# list-based layer pushed a copy per socket and polled for each, a third of a move's cost on the server
# at 200 sockets (docs/benchmarks.md). Delivery is at most once: a client resyncs on a gap in seq, and
# every pong says where the room and its game stand, so a lost message is caught at the next ping.
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {
            # Pub/sub reads wait with their own short timeout, so a finite one is safe here, and needed: a
            # process publishes through one connection under one lock, and a publish stuck on a dead
            # connection would hold every send and every new socket of the process.
            "hosts": [{"address": REDIS_URL, "socket_timeout": 5, "socket_connect_timeout": 5}],
            "prefix": REDIS_PREFIX + "asgi",
        },
    }
}

SESSION_COOKIE_AGE = 60 * 60 * 24 * 365
# A staff account's session is a key to the admin: it ends after this, not after a year (accounts/apps.py).
STAFF_SESSION_SECONDS = 60 * 60 * 12
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

# Every per-address limit is multiplied by this: a load test runs all its clients from one address.
PER_ADDRESS_SCALE = int(os.environ.get("WICKWISE_PER_ADDRESS_SCALE", "1"))

# The game platform's tunables; tests and benchmarks shorten them.
WICKWISE = {
    "GRACE_SECONDS": float(os.environ.get("WICKWISE_GRACE_SECONDS", "20")),
    # A bot decides once the table has shown the move before (GameSpec.showing_seconds), this long after.
    "BOT_DELAY_SECONDS": float(os.environ.get("WICKWISE_BOT_DELAY_SECONDS", "0.25")),
    "BOT_WAITS_FOR_TABLE": os.environ.get("WICKWISE_BOT_WAITS_FOR_TABLE", "true").lower() == "true",
    "ROOM_LIFETIME_DAYS": 30,
    # A socket unrenewed this long is away (renewed by its page's pings, and by daphne while it is open).
    "PRESENCE_TTL_SECONDS": float(os.environ.get("WICKWISE_PRESENCE_TTL_SECONDS", "45")),
    "WORKER_POLL_SECONDS": 0.05,
    "WS_MAX_MESSAGE_BYTES": 4096,
    # A frame over this closes the socket (4413). Daphne's own limit is set above it (64 KiB) so that the
    # close is the consumer's, with a close frame: daphne drops a connection without one.
    "WS_CLOSE_OVER_BYTES": 8192,
    "WS_RATE_PER_SECOND": 10,
    "WS_RATE_BURST": 30,
    # A socket's move the worker has not answered by then is refused, and the worker drops it unplayed.
    "MOVE_ANSWER_SECONDS": float(os.environ.get("WICKWISE_MOVE_ANSWER_SECONDS", "5")),
    # Sockets on one seat (tabs, devices), and per client address; frames per address, across its sockets.
    "WS_MAX_SOCKETS_PER_SEAT": 5,
    "WS_MAX_SOCKETS_PER_ADDRESS": 30 * PER_ADDRESS_SCALE,
    "WS_ADDRESS_RATE_PER_SECOND": 30 * PER_ADDRESS_SCALE,
    "WS_ADDRESS_RATE_BURST": 90 * PER_ADDRESS_SCALE,
    # HTTP requests per client address: kind -> (requests, window in seconds); see rooms/throttle.py.
    "THROTTLES": {
        "create": (20 * PER_ADDRESS_SCALE, 60),
        "join": (30 * PER_ADDRESS_SCALE, 60),
        "lookup": (120 * PER_ADDRESS_SCALE, 60),
        "return": (10 * PER_ADDRESS_SCALE, 60),
    },
    # Seconds a searching bot may take for one decision, by game (the others decide at once).
    "BOT_TIME_LIMITS": {"tiles": float(os.environ.get("WICKWISE_TILES_AI_SECONDS", "2"))},
    # Those searches run in this many worker processes of their own (the GIL would stall timers otherwise).
    "BOT_PROCESSES": int(os.environ.get("WICKWISE_BOT_PROCESSES") or default_bot_processes()),
    # How far below the worker's priority those processes run (Unix niceness, 0 to 19; 0: the same): the
    # scheduler favours what a player's move wakes over a bot that is thinking (rooms/bot_runner.py).
    "BOT_NICENESS": min(19, max(0, int(os.environ.get("WICKWISE_BOT_NICENESS") or "10"))),
    # Games whose bots decide at once but at length: in as many processes again, beside the searches' (the GIL
    # would stall the players' moves otherwise: rooms/bot_runner.py).
    "BOT_DECISIONS_IN_PROCESSES": tuple(
        game for game in os.environ.get("WICKWISE_BOT_DECISIONS_IN_PROCESSES", "candles").split(",") if game),
    # A bot that offers steps (bots/<game>.py's steps) shows its play as drafts this far apart.
    "BOT_STEP_SECONDS": float(os.environ.get("WICKWISE_BOT_STEP_SECONDS", "0.3")),
    # The module that plays each game, when not bots.<game> ("game=module,..."): tests put slow bots here.
    "BOT_MODULES": dict(item.split("=", 1) for item in os.environ.get("WICKWISE_BOT_MODULES", "").split(",")
                        if item),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        # The benchmark keeps the move queue's counts logged at stop while the rest logs warnings only.
        "wickwise.moves": {"level": os.environ.get("WICKWISE_MOVES_LOG_LEVEL", "NOTSET")},
    },
}
