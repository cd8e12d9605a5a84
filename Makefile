# Didax Playground — one Makefile for set-up, run, test and bench.
#   make run    installs everything (Python venv, npm packages, system packages where
#               possible), builds the frontend and serves http://localhost:8000
#   make test   installs everything and runs every test suite (engine, backend,
#               frontend unit tests, conformance corpus, end-to-end in Chromium)
#   make bench  runs the benchmarks (didax beside JAX, PyTorch and NumPy)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
SHARED ?= ../shared
HOST ?= 127.0.0.1
PORT ?= 8000
export TF_CPP_MIN_LOG_LEVEL := 2
export JAX_PLATFORMS := cpu

.PHONY: run test bench setup setup-python setup-system setup-frontend build-frontend \
        lint test-engine test-backend test-frontend test-conformance test-e2e clean

setup: setup-system setup-python setup-frontend

# System packages: chromium for the end-to-end tests, bubblewrap for the kernel sandbox.
setup-system:
	@bash scripts/setup_system.sh

$(VENV)/.stamp: engine/pyproject.toml $(wildcard backend/pyproject.toml) $(wildcard shared_schemas/pyproject.toml) scripts/setup_python.sh
	@bash scripts/setup_python.sh "$(PYTHON)" "$(VENV)"
	@touch $@

setup-python: $(VENV)/.stamp

setup-frontend:
	@if [ -f frontend/package.json ]; then cd frontend && (npm ci --no-audit --no-fund || npm install --no-audit --no-fund); fi
	@if [ -f e2e/package.json ]; then cd e2e && (npm ci --no-audit --no-fund || npm install --no-audit --no-fund); fi

build-frontend: setup-frontend
	@if [ -f frontend/package.json ]; then cd frontend && npm run build; fi

run: setup build-frontend
	$(PY) -m app.main --host $(HOST) --port $(PORT)

lint: setup-python
	$(VENV)/bin/ruff check engine backend shared_schemas bench scripts

test-engine: setup-python
	cd engine && ../$(PY) -m pytest -q -n 2 tests

test-backend: setup-python
	@if [ -d backend/tests ]; then cd backend && ../$(PY) -m pytest -q tests; fi
	@if [ -d shared_schemas/tests ]; then cd shared_schemas && ../$(PY) -m pytest -q tests; fi

test-conformance: setup-python
	$(PY) scripts/check_conformance.py --shared $(SHARED)

test-frontend: setup-frontend
	@if [ -f frontend/package.json ]; then cd frontend && npm run check && npm test; fi

test-e2e: setup build-frontend
	@if [ -f e2e/package.json ]; then cd e2e && npx playwright test; fi

test: setup lint test-engine test-backend test-conformance test-frontend test-e2e

bench: setup build-frontend
	@$(PY) -c "import torch" 2>/dev/null || $(PIP) install -q torch==2.13.0 || echo "PyTorch unavailable: benchmarking without it"
	$(PY) bench/run.py --shared $(SHARED)

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist e2e/node_modules
