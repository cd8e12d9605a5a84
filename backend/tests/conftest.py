"""Fixtures: real server processes (module-scoped, so their kernels are reused)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from app.config import Settings  # noqa: E402
from app.kernels.provisioner import probe_full_sandbox  # noqa: E402
from helpers import ServerProcess  # noqa: E402

_FULL = probe_full_sandbox(Settings.from_env())


def full_sandbox_or_skip() -> None:
    """Skips where the full sandbox cannot exist (not root); as root (CI, `make run`'s
    setup) it must work, so a broken sandbox fails these tests instead of hiding."""
    if _FULL[0]:
        return
    if os.geteuid() == 0:
        pytest.fail(f"full sandbox unavailable although running as root: {_FULL[1]}")
    pytest.skip(f"full sandbox unavailable here (not root): {_FULL[1]}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The default server (full sandbox where possible, else rlimits_only)."""
    env = {"DIDAX_POOL_SIZE": "2", "DIDAX_QUEUE_TIMEOUT_S": "300"}
    proc = ServerProcess(tmp_path_factory.mktemp("srv"), env, pool_ready=1).start(timeout=300)
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def sandbox_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server that must use the full sandbox (skips where the machine can't)."""
    full_sandbox_or_skip()
    env = {
        "DIDAX_SANDBOX": "full",
        "DIDAX_TEST_SECRET": "hunter2-server-secret",
        "DIDAX_POOL_SIZE": "2",
        "DIDAX_RUN_TIMEOUT_S": "120",  # cases pass their own timeout_s
        "DIDAX_QUEUE_TIMEOUT_S": "300",  # a busy CI machine may start kernels slowly
    }
    proc = ServerProcess(tmp_path_factory.mktemp("sbx"), env, pool_ready=1).start(timeout=300)
    yield proc
    proc.stop()


def fake_kernel_server(
    tmp: Path, script: str, log_level: str = "info", **env: str
) -> ServerProcess:
    argv = json.dumps([sys.executable, str(Path(__file__).parent / "fake_kernels" / script)])
    env = {"DIDAX_KERNEL_ARGV": argv, "DIDAX_POOL_SIZE": "0", **env}
    return ServerProcess(tmp, env, log_level=log_level)
