# Two commands on a fresh machine: `make run` and `make test`. Everything else is a step they take.
# The first interpreter that actually runs and is 3.11 or newer (version managers leave shims that do not).
PYTHON ?= $(shell for p in python3 python3.11 python3.12 python3.13; do $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test setup translations migrate lint screenshots bench clean

run: setup migrate
	$(PY) scripts/run.py

test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/biome lint --error-on-warnings
	$(PY) scripts/test.py

setup: $(STAMP) translations

$(STAMP): requirements.txt
	@test -n "$(PYTHON)" || { echo "Python 3.11 or newer is needed (python3 on PATH)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

translations: $(STAMP)
	$(PY) scripts/compile_translations.py

migrate: setup
	@mkdir -p var
	$(PY) manage.py migrate --noinput

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/biome lint --error-on-warnings

screenshots: setup
	$(PY) scripts/screenshots.py

bench: setup
	$(PY) bench/candles_bots.py --games 2000
	$(PY) bench/trails_bots.py --games 2000 --workers 2
	$(PY) bench/pots_bots.py --games 2000 --workers 2
	$(PY) bench/tiles_bots.py --games 1000 --workers 2 --seed tiles
	$(PY) bench/tiles_validator.py
	$(PY) bench/drafts.py
	$(PY) bench/move_cost.py
	$(PY) bench/wal_checkpoints.py
	$(PY) bench/tiles_judge_js.py
	$(PY) bench/live_load.py --clients 200

clean:
	rm -rf $(VENV) var
