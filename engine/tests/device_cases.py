"""Test cases that need several CPU devices run in a child process started with
XLA_FLAGS=--xla_force_host_platform_device_count=N (the device count is fixed when XLA
starts): the child runs every case and prints one JSON report; the pytest side turns each
entry into a test. Shared by the pmap and shard_map tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from collections.abc import Callable


def print_report(cases: list[tuple[str, str]], run_case: Callable[[str, str], None]) -> None:
    """The child's side: run each (kind, name) case, print REPORT{"kind/name": "ok" or the
    traceback}."""
    report = {}
    for kind, name in cases:
        try:
            run_case(kind, name)
            report[f"{kind}/{name}"] = "ok"
        except Exception:  # noqa: BLE001
            report[f"{kind}/{name}"] = traceback.format_exc()
    print("REPORT" + json.dumps(report))


def device_report(test_file: str, n_devices: int) -> dict[str, str]:
    """The pytest side: run `test_file --cases` on n_devices CPU devices; its report."""
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={n_devices}",
               JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, test_file, "--cases"], capture_output=True,
                          text=True, env=env, timeout=900)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT")]
    assert lines, f"case runner failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(lines[-1][len("REPORT"):])
