#!/usr/bin/env bash
# Creates the project venv and installs the engine, the backend and the schemas (editable),
# with their test dependencies. Real JAX is installed as a test oracle only.
set -euo pipefail
PYTHON="${1:-python3}"
VENV="${2:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
args=(-e "engine[test]")
[ -f shared_schemas/pyproject.toml ] && args+=(-e "shared_schemas[test]")
[ -f backend/pyproject.toml ] && args+=(-e "backend[test]")
"$VENV/bin/python" -m pip install -q "${args[@]}"
