# Two commands matter: `make run` (the main job) and `make test` (everything CI checks).
# Both create .venv and install what they need on a fresh machine with Python 3.11.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test lint typecheck pytest bench install dev clean help messages screenshots

help:
	@echo "make run    - install and start warroom"
	@echo "make test   - install dev tools; run ruff, mypy --strict and the whole test suite"
	@echo "make bench  - the performance suite (prints a table)"
	@echo "make screenshots - refresh docs/screenshots/ with the browser tests"
	@echo "make messages    - refresh the .pot templates and update the pl/zh catalogs"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	@touch $@

$(VENV)/.dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	@touch $(VENV)/.installed $@

install: $(VENV)/.installed
dev: $(VENV)/.dev

run: install
	@echo "Starting warroom: open http://$(HOST):$(PORT)/ in a browser (phone or laptop)."
	@echo "Use HOST=0.0.0.0 to let phones on your network connect. Ctrl+C stops it."
	$(BIN)/warroom serve --host $(HOST) --port $(PORT)

lint: dev
	$(BIN)/ruff check src tests benchmarks

typecheck: dev
	$(BIN)/mypy src benchmarks

# the suite runs on every core (pytest-xdist); TEST_WORKERS=0 runs it in this one process
TEST_WORKERS ?= auto
PYTEST  := $(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal

pytest: dev
	$(PYTEST)

test: dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy src benchmarks
	$(PYTEST)

bench: dev
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/web_load.py

# refresh docs/screenshots/ (the browser tests write them; elsewhere to a temporary folder)
screenshots: dev
	WARROOM_SCREENSHOTS=$(CURDIR)/docs/screenshots $(BIN)/pytest -m browser \
	  tests/web/test_browser.py tests/battle/test_browser_battle.py \
	  tests/battle/test_browser_armies.py tests/web/test_phone_resolve.py \
	  tests/battle/test_browser_share.py

# the message templates, one per catalog domain (src/warroom/i18n/pot/DOMAIN.pot: what
# pybabel extract finds with babel.cfg and the keywords in pyproject.toml, plus what each
# domain's catalogs hold), then every catalog brought in line with its template
messages: dev
	$(BIN)/python -m warroom.i18n.templates .
	for pot in src/warroom/i18n/pot/*.pot; do \
	  for lang in pl zh; do \
	    $(BIN)/pybabel -q update -i $$pot -d src/warroom/i18n -D $$(basename $$pot .pot) \
	      -l $$lang --init-missing --no-fuzzy-matching --ignore-obsolete -w 100 || exit 1; \
	  done; \
	done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
