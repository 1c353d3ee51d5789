# Every target sets up .venv itself, so a fresh clone needs only python3 (>= 3.10).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# compiled kernels go where every later `balsim` command looks for them (NUMBA_CACHE_DIR, else
# ~/.cache/balsim/numba, one subfolder per version of the sources), so `make run` compiles them
# once for every command after it

# the report's browser test renders it in headless Chromium (Debian's package)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-fast bench decisions asks mutants tuned adapted learned learned-strength search-strength clean browser

# --no-compile: no byte-compiling of every installed module (half the install's CPU); Python
# compiles what it imports, on first import, and keeps it: where the environment says not to
# write bytecode, every process would import the scientific stack from source (about 4 s each)
unexport PYTHONDONTWRITEBYTECODE
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --no-compile -e .
	touch $(STAMP)

# the test tools only where tests run: `make run` installs a third less
$(TEST_STAMP): $(STAMP)
	$(BIN)/pip install --quiet --no-compile -e ".[test]"
	touch $(TEST_STAMP)

run: $(STAMP)
	$(BIN)/balsim study --out runs --report reports/study.html

# lint and format before the tests: a minute of tests is not spent on code that would not
# pass review. The engines compile meanwhile (`warm`, on two processes, which leave a core idle
# for a while): installing the test tools and linting take that core, not time of their own
test: $(STAMP) browser
	$(BIN)/python -m simulator.run.warm & warm=$$!; \
	{ $(MAKE) -s --no-print-directory $(TEST_STAMP) && $(BIN)/ruff check \
	  && $(BIN)/ruff format --check; } || { kill $$warm; exit 1; }; \
	wait $$warm
	$(BIN)/python -m pytest

# the inner loop: lint, then every test but the slow end-to-end ones (pytest -m slow), which
# `make test` (and CI) still runs; README "Start" gives both figures
test-fast: $(TEST_STAMP)
	$(BIN)/ruff check
	$(BIN)/python -m simulator.run.warm
	$(BIN)/python -m pytest -m "not slow"

browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (apt) for the report's browser test"; \
	  ( $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install \
	    -y -qq --no-install-recommends chromium ) >.chromium-install.log 2>&1 \
	  || { cat .chromium-install.log; exit 1; }; rm -f .chromium-install.log; }

# games/s per core of each engine with its scripted seats (and a run of them with its Parquet
# output), with a search seat (team) in the tuned field and with a learned seat (team) in the
# search's place, appended to bench/results/bench.csv and shown in docs/performance.md
BENCH := bench/results/bench.csv
bench: $(STAMP)
	$(BIN)/balsim bench ekonos --store --record $(BENCH)
	$(BIN)/balsim bench ekonos --record $(BENCH) \
	  --seats search,president_seeker_tuned,value_investor_tuned,market_builder_tuned
	$(BIN)/balsim bench karnaxis --store --record $(BENCH)
	$(BIN)/balsim bench karnaxis --record $(BENCH) \
	  --seats search,scholar_tuned,tycoon_tuned,speculator_tuned
	$(BIN)/balsim bench karmaggan --store --record $(BENCH)
	$(BIN)/balsim bench karmaggan --record $(BENCH) \
	  --seats search,rusher_tuned,search,hunter_tuned
	$(BIN)/balsim bench ekonos --record $(BENCH) \
	  --seats learned,president_seeker_tuned,value_investor_tuned,market_builder_tuned
	$(BIN)/balsim bench karnaxis --record $(BENCH) \
	  --seats learned,scholar_tuned,tycoon_tuned,speculator_tuned
	$(BIN)/balsim bench karmaggan --record $(BENCH) \
	  --seats learned,rusher_tuned,learned,hunter_tuned
	PY=$(BIN)/python bash bench/ekonos_refs.sh | tee bench/results/ekonos-refs.txt
	$(BIN)/python bench/render.py

# the error rates of the decisions on known truths: ask's (bench/results/decisions.csv and the
# table in docs/analysis.md "Decisions"; end to end on Pig's exact answers, known-answers.csv),
# the search's override of equal candidates and fit's crossing coverage
# (bench/results/search-override.csv, fit-coverage.csv); long: run it on idle cores
decisions: $(STAMP)
	$(BIN)/python bench/decisions.py
	$(BIN)/python bench/known_answers.py
	$(BIN)/python bench/search_override.py
	$(BIN)/python bench/fit_coverage.py

# the four questions at their defaults, then with --quick, one after the other: each field's
# decision and the wall and CPU seconds (bench/results/asks.csv and the table in docs/ladder.md)
asks: $(STAMP)
	$(BIN)/python bench/asks.py
	$(BIN)/python bench/asks.py --quick

# every listed rule mutation (tests/mutants/<game>.toml) must make a rule test fail on an
# assertion; `make mutants GAMES="karnaxis ekonos"` runs those games' lists only
mutants: $(TEST_STAMP)
	$(BIN)/python tests/mutants/run.py $(GAMES)

# the tuned knob sets of the default rules (README "Tuned knob sets"), one game at a time,
# each within about ten minutes on 2 cores: copy each file's tables into the game's rules.toml
tuned: $(STAMP)
	$(BIN)/balsim tune ekonos --all -p 4 --budget 60000 --out tuned/ekonos.toml --force
	$(BIN)/balsim tune karnaxis --all -p 4 --budget 60000 --out tuned/karnaxis.toml --force
	$(BIN)/balsim tune karmaggan --all -p 4 --budget 16000 --out tuned/karmaggan.toml --force

# the adapted fields of every variant the four questions and the default study play, each
# replicate, shipped in the package (docs/ladder.md): again after an engine version bump or a
# change to a rules.toml (records still matching are kept); about 16 CPU minutes from nothing
adapted: $(STAMP)
	$(BIN)/balsim adapt ekonos --ship
	$(BIN)/balsim adapt karnaxis --ship
	$(BIN)/balsim adapt karmaggan --ship

# the learned player of the printed rules at each player count the study plays and of every
# variant the four questions play, shipped in the package (docs/search.md "The learned player"):
# expert iteration on each game's default budget (Karmaggän, Ekonos: 3 iterations of 1,200
# games, the teacher's 48 playouts over 3 candidates; Karnaxis: 400 games of 12 playouts), a
# few minutes each on one core (those shipped or cached under the same key are kept); again
# after an engine version bump or a change to a rules.toml
learned: $(STAMP)
	$(BIN)/balsim learn karmaggan --ship
	$(BIN)/balsim learn ekonos --ship
	$(BIN)/balsim learn karnaxis --ship

# the learned player beside today's search on fresh seeds, at each player count the study plays
# (bench/results/learned-strength.csv and the table in docs/search.md); minutes on one core
learned-strength: $(STAMP)
	$(BIN)/python bench/learned_strength.py --games 4000

# the search reading the learned value beside today's search, each game at the budget chosen
# on seed 919 (bench/results/search-strength.csv and the table in docs/search.md); minutes
search-strength: $(STAMP)
	$(BIN)/python bench/search_strength.py --game ekonos --games 4000 --seed 929 --rollouts 16 --top-k 4
	$(BIN)/python bench/search_strength.py --game karmaggan --games 4000 --seed 929 --top-k 4
	$(BIN)/python bench/search_strength.py --game karnaxis --games 4000 --seed 929 --horizon 1 --rollouts 9 --top-k 3

clean:
	rm -rf $(VENV) runs
