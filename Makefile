# RoundTable Gym — the README's commands. `make demo` and `make test` bootstrap .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PYTEST_WORKERS ?= 2
SOAK_WORKERS ?= $(shell nproc 2>/dev/null || echo 1)

.PHONY: all demo test test-fast test-wheel test-rllib bench soak fuzz mutants lint golden docs clean

all: test

# torch is bounded below 2.14 in pyproject.toml, which takes the CPU wheel on this kind of
# machine instead of a multi-GB CUDA build.
$(STAMP): pyproject.toml
	@echo "make: installing RoundTable Gym and its dependencies (PyTorch CPU, Stable-Baselines3, FastAPI, …) into $(VENV); this takes about 2-3 minutes the first time, once"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[train,bench,dev,interop,serve]"
	touch $(STAMP)

# Train Paladin with the demo config (a few CPU minutes), evaluate it, print the results table
# and the path of the learning curve.
demo: $(STAMP)
	$(BIN)/roundtable demo --config configs/paladin_demo.yaml

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -q -m "not wheel"

# The installed layout: build the wheel, install it into a fresh venv outside the checkout and
# run it from a folder of decoy training.py / envs/ / ui.py files (tests/test_wheel.py).
test-wheel: $(STAMP)
	$(BIN)/python -m pytest -p no:xdist -q -m wheel tests/test_wheel.py

test-fast: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -q -m "not slow and not wheel"

# The RLlib backend in its own venv: Ray pins gymnasium==1.2.2, older than the main venv's.
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed-stamp

$(RLLIB_STAMP): pyproject.toml
	$(PYTHON) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install --quiet -e ".[train,dev,rllib]"
	touch $(RLLIB_STAMP)

test-rllib: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/python -m pytest -p no:xdist -q -m rllib

bench: $(STAMP)
	$(BIN)/roundtable bench

# Not in CI: 100,000 random games per game (every table size, raw_env() and env()) with every
# invariant checked; about 70 CPU minutes in all. SOAK_ARGS="--games 2000" shrinks it.
soak: $(STAMP)
	$(BIN)/python -m tests.soak --workers $(SOAK_WORKERS) $(SOAK_ARGS)

# Not in CI: mutation testing (mutmut) of the modules that carry the project's promises, each
# against the test files that cover it (scripts/mutants.py; hours of CPU for all of them).
# MUTANTS="envs/core/belief.py players/checkpoint.py" picks modules; docs/testing.md has the
# scores. mutmut is in the `mutants` extra, installed here only, so `make test` never waits on it.
MUTANTS_STAMP := $(VENV)/.mutants-stamp
$(MUTANTS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[mutants]"
	touch $(MUTANTS_STAMP)

mutants: $(MUTANTS_STAMP)
	nice -n 5 $(BIN)/python scripts/mutants.py $(MUTANTS)

# Not in CI: the fuzz suite (tests/fuzz/, tests/test_bombardment.py) with fresh random
# examples, FUZZ_SCALE times its CI example counts, in rounds until FUZZ_MINUTES have passed;
# the summary lists every finding (docs/testing.md, "Fuzzing").
FUZZ_MINUTES ?= 30
FUZZ_SCALE ?= 20
fuzz: $(STAMP)
	$(BIN)/python scripts/fuzz.py --minutes $(FUZZ_MINUTES) --scale $(FUZZ_SCALE)

lint: $(STAMP)
	$(BIN)/ruff check .

golden: $(STAMP)
	$(BIN)/python scripts/regen_golden.py

docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py

clean:
	rm -rf $(VENV) $(RLLIB_VENV) .pytest_cache .ruff_cache
