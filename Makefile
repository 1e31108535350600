# Two commands on a fresh machine: `make run` and `make test`. Everything else is a step they take.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do command -v $$p >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test setup translations migrate lint screenshots bench clean

run: setup migrate
	$(PY) scripts/run.py

test: setup
	$(VENV)/bin/ruff check .
	$(PY) scripts/test.py

setup: $(STAMP) translations

$(STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed")'
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

screenshots: setup
	$(PY) scripts/test.py -m screenshots -p no:cacheprovider tests/browser/test_screenshots.py

bench: setup
	$(PY) bench/candles_bots.py --games 2000
	$(PY) scripts/test.py --version >/dev/null
	$(PY) bench/live_load.py --clients 200

clean:
	rm -rf $(VENV) var
