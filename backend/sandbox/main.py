"""Kernel entry point; runs inside the sandbox (or, locally, under rlimits only).

    python -I -B sandbox/main.py      (config in $SBX_CFG, control fd in $SBX_CTL_FD)

Order matters (../shared/notes/sandbox.md §4): import the engine and make the XLA client,
lock down (rlimits, seccomp with TSYNC), announce `ready`, and only then read the run request —
one JSON line on stdin. A kernel serves exactly one run: after `run_done` the process exits at
once (daemon threads die with it) and the server destroys what is left of its tree. Events go
out as JSON lines on the control fd: ready, status, stream, output_truncated, trace_card,
card_error, run_done (and `part`s of a long one). Raw fds 1 and 2 carry native output only.

Imports: the standard library and this package; didax only through `sandbox.engine`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # -I drops the script dir

from sandbox import lockdown  # noqa: E402
from sandbox.engine import Engine  # noqa: E402
from sandbox.runner import Channel, install_alias, run_request  # noqa: E402

MAX_REQUEST_BYTES = 1 << 20


def _serve(channel: Channel, engine: Engine) -> None:
    """Read the run request, run it, send its run_done and exit (no return after a run)."""
    stdin = os.fdopen(0, "rb")
    while True:
        line = stdin.readline(MAX_REQUEST_BYTES)
        if not line:
            return
        try:
            request = json.loads(line)
        except ValueError as exc:
            channel.send({"type": "log", "text": f"bad request line: {exc}"})
            continue
        if request.get("type") != "run":
            continue
        channel.send_final(run_request(request, channel, engine))


def main() -> int:
    started = time.monotonic()
    config = json.loads(os.environ.get("SBX_CFG") or "{}")
    channel = Channel(int(os.environ.get("SBX_CTL_FD", "3")))
    engine = Engine()
    engine.load(config.get("engine_path"))
    install_alias("didax")
    state = lockdown.lock_down(config)
    channel.send(
        {
            "type": "ready",
            "engine": engine.info,
            "lockdown": state,
            "startup_ms": (time.monotonic() - started) * 1000,
            "warm_ms": engine.warm_ms,
        }
    )
    _serve(channel, engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
