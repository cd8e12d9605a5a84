#!/usr/bin/env bash
# Creates the project venv and installs the engine, the backend and the schemas (editable),
# with their test dependencies. Real JAX is installed as a test oracle only.
# Then creates the kernel venv (backend/.venv-kernel) from the system /usr/bin/python3: the
# sandboxed kernel runs as a per-slot uid that cannot reach a Python under /root (pyenv, mode
# 0700). It holds only runtime dependencies (the engine's, pyseccomp, matplotlib); the engine
# source is bind-mounted read-only into the sandbox, so it never goes stale.
set -euo pipefail
PYTHON="${1:-python3}"
VENV="${2:-.venv}"
KVENV="backend/.venv-kernel"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
args=(-e "engine[test]")
[ -f shared_schemas/pyproject.toml ] && args+=(-e "shared_schemas[test]")
[ -f backend/pyproject.toml ] && args+=(-e "backend[test]")
"$VENV/bin/python" -m pip install -q "${args[@]}"

if [ -f backend/pyproject.toml ]; then
  if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    [ -x "$KVENV/bin/python" ] || /usr/bin/python3 -m venv "$KVENV"
    # Only the engine's runtime dependencies: the engine itself is reached through the
    # read-only bind of engine/src (first on the kernel's sys.path), so it never goes stale
    # and nothing is built inside engine/.
    deps=$("$KVENV/bin/python" -c 'import tomllib, sys
print("\n".join(tomllib.load(open("engine/pyproject.toml", "rb"))["project"]["dependencies"]))')
    "$KVENV/bin/python" -m pip install -q --upgrade pip >/dev/null
    # shellcheck disable=SC2086
    # matplotlib: programs may plot (headless; the kernel picks its own backend). Its font
    # list is built once here into a cache each kernel copies to its tmpfs (sandbox/plots.py):
    # the sandbox's filesystem is read-only and a kernel lives for one session only.
    "$KVENV/bin/python" -m pip install -q $deps "pyseccomp==0.1.2" "matplotlib==3.11.2" ||
      echo "warning: kernel venv incomplete; kernels fall back to $VENV (rlimits only)" >&2
    mkdir -p "$KVENV/share/didax-mplconfig"
    MPLCONFIGDIR="$KVENV/share/didax-mplconfig" MPLBACKEND=Agg \
      "$KVENV/bin/python" -c 'import matplotlib.font_manager' ||
      echo "warning: matplotlib's font cache was not built; each kernel builds its own" >&2
    chmod -R a+rX "$KVENV" ./engine/src 2>/dev/null || true
    # The slot uids reach those two trees only if every directory above them can be
    # traversed; a clone inside `mktemp -d` (mode 0700) cannot. As root, grant traversal
    # (o+x: no listing, no reading) up the path, and say so.
    if [ "$(id -u)" = 0 ]; then
      dir=$(pwd -P)
      while [ "$dir" != "/" ]; do
        if [ -z "$(find "$dir" -maxdepth 0 -perm -o+x)" ]; then
          chmod o+x "$dir" && echo "sandbox: granted traversal (o+x) on $dir to the kernel uids"
        fi
        dir=$(dirname "$dir")
      done
    fi
  else
    echo "warning: /usr/bin/python3 with venv is missing (apt-get install python3-venv);" \
         "the full sandbox is unavailable, a loopback server runs kernels with rlimits only" >&2
  fi
fi
