# pathpool — the two commands of the README, and a few more.
#   make run    set up .venv, build, run the built-in default scenario, print a summary, write results and a plot
#   make test   set up .venv, build, run every Rust and Python test
VENV     := .venv
PY       := $(VENV)/bin/python
SCENARIO ?= default
OUT      ?= results/$(SCENARIO)
export MATURIN_PEP517_ARGS := --release

.PHONY: run test install bench clean

$(VENV)/.installed: pyproject.toml crates/py/Cargo.toml crates/sim/Cargo.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

# Rebuild the extension whenever Rust sources change (cheap when nothing did).
install: $(VENV)/.installed
	$(PY) -m pip install -q --no-deps --no-build-isolation -e . 2>/dev/null || $(PY) -m pip install -q --no-deps -e .

run: install
	$(VENV)/bin/pathpool run $(SCENARIO) --out $(OUT) --force --plot

test: install
	cargo test --release --workspace --exclude pathpool-py
	$(PY) -m pytest -q

bench: install
	$(PY) bench/dumbbell.py

clean:
	rm -rf $(VENV) target results
