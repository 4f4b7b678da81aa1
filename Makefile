# The two commands a newcomer needs: `make run` and `make test`. Both set everything up.
# The project requires Python 3.11 (pyproject's requires-python, the Space's python_version).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
export GRADIO_ANALYTICS_ENABLED := False
export HF_HUB_OFFLINE := 1

AXE := $(VENV)/axe/node_modules/axe-core/axe.min.js

.PHONY: catalogues run test test-kernels lint install dev clean browser cjk-font

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# requirements.txt names PyTorch's index of CPU wheels (a Space reads that file too). Where that index cannot be
# reached, pip would retry it for every package it resolves (minutes): install without it, torch then coming
# from pip's own configuration (its index, a wheel folder).
TORCH_INDEX := $(shell sed -n 's/^--extra-index-url //p' requirements.txt)
REACHABLE = $(BIN)/python scripts/reachable.py $(1)

$(STAMP): $(BIN)/python requirements.txt pyproject.toml
	@if [ -z "$(TORCH_INDEX)" ] || $(call REACHABLE,$(TORCH_INDEX)/torch/); then \
	  echo "pip install -r requirements.txt"; $(BIN)/pip install -q -r requirements.txt; \
	else \
	  echo "PyTorch's CPU wheel index ($(TORCH_INDEX)) cannot be reached: installing without it"; \
	  grep -v -- '^--extra-index-url' requirements.txt > $(VENV)/requirements-no-torch-index.txt; \
	  $(BIN)/pip install -q -r $(VENV)/requirements-no-torch-index.txt; \
	fi
	$(BIN)/pip install -q --no-deps -e .
	touch $@

# requirements-dev.txt also installs the example plugins (editable): the tests load them through their entry points.
$(DEV_STAMP): $(STAMP) requirements-dev.txt examples/alibi_plugin/pyproject.toml examples/linear_plugin/pyproject.toml
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

install: $(STAMP)
dev: $(DEV_STAMP)

run: $(STAMP) cjk-font
	GRADIO_SERVER_NAME=$${GRADIO_SERVER_NAME:-127.0.0.1} GRADIO_SERVER_PORT=$${GRADIO_SERVER_PORT:-7860} $(BIN)/python app.py

lint: $(DEV_STAMP)
	$(BIN)/ruff check .

# Debian packages, installed when we can (root + apt), else a one-line hint; never fatal.
# Chromium: the browser tests drive Debian's (never a downloaded one). fonts-wqy-microhei: CJK token labels.
APT_INSTALL = { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	{ apt-get install -y -qq $(1) >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq $(1) >/dev/null; }; }; }

browser:
	@command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || $(call APT_INSTALL,chromium) || \
	  echo "Chromium is missing: install it (apt-get install -y chromium) or the browser tests will fail"

# axe-core (WCAG rules the accessibility test runs in Chromium), from the npm registry into .venv/axe: the test injects
# this file into the page, nothing is fetched while it runs. npm comes with Debian's nodejs.
$(AXE):
	@command -v npm >/dev/null 2>&1 || $(call APT_INSTALL,npm) || true
	@if command -v npm >/dev/null 2>&1; then npm install --prefix $(VENV)/axe --no-audit --no-fund --loglevel=error axe-core@4; \
	else echo "npm is missing: install it (apt-get install -y npm) or the accessibility test will fail"; fi

cjk-font:
	@fc-list 2>/dev/null | grep -qi "wqy\|cjk" || $(call APT_INSTALL,fonts-wqy-microhei) || \
	  echo "No CJK font: Chinese tokens are labelled U+XXXX (apt-get install -y fonts-wqy-microhei)"

# In parallel, one worker per core (pytest-xdist): each worker launches its own app; a test module runs whole on
# one worker, so its module-scoped fixtures (its Chromium) are made once (docs/setup.md). Not loadgroup: with
# pytest 9.2 it silently stops grouping (pytest-xdist issue 1386); tests/test_markers.py checks the grouping.
XDIST := -n auto --dist loadfile
test: $(DEV_STAMP) $(AXE) browser cjk-font
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q $(XDIST)

# The tests that compare floats (marked `floats`), again under another of torch's CPU kernels (floats from two
# kernels are never bit-for-bit equal: a test that says so fails here first). KERNEL=avx2 for the other one a CPU
# may pick.
KERNEL ?= default
test-kernels: $(DEV_STAMP)
	ATEN_CPU_CAPABILITY=$(KERNEL) $(BIN)/python -m pytest -q $(XDIST) -m floats -p no:cacheprovider

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

# The translators' round trip (docs/translating.md): every msgid the code marks, into every catalogue in core/locales
# (new ones with an empty msgstr; gone ones dropped); tests/test_catalogues.py lists what is empty.
catalogues: $(STAMP)
	$(BIN)/pybabel -q extract --no-location --sort-output -k t -k t_n:1,2 -k tc:1c,2 -k mark -k static \
	  -o $(VENV)/attention_lab.pot core attention_plugins
	for po in core/locales/*.po; do lang=$$(basename $$po .po); \
	  $(BIN)/pybabel -q update --no-fuzzy-matching --ignore-obsolete -i $(VENV)/attention_lab.pot -o $$po -l $$(echo $$lang | tr - _); done
