# Every target sets up .venv itself, so a fresh clone needs only python3 (>= 3.10).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# compiled kernels, one subfolder per version of the sources
export NUMBA_CACHE_DIR := $(CURDIR)/.numba_cache

.PHONY: run test bench mutants clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/balsim study --out runs --report reports/study.html

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/balsim bench ekonos
	$(BIN)/balsim bench karnaxis
	$(BIN)/balsim bench karmaggan

# every listed rule mutation (tests/mutants/<game>.toml) must make a rule test fail
mutants: $(STAMP)
	$(BIN)/python tests/mutants/run.py

clean:
	rm -rf $(VENV) .numba_cache runs
