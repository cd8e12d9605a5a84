"""Server settings, read from the environment (DIDAX_*) with defaults for a local run.

| variable | default |
|---|---|
| DIDAX_DB_PATH | ./data/shares.sqlite3 |
| DIDAX_FRONTEND_DIST | <repo>/frontend/dist |
| DIDAX_SANDBOX | auto (full where the machine allows, else rlimits_only on loopback) |
| DIDAX_POOL_SIZE / DIDAX_MAX_KERNELS | 8 / 16 (warm kernels kept ready / all kernels at once) |
| DIDAX_SPAWN_CONCURRENCY | 2 (kernels starting at once) |
| DIDAX_RUN_TIMEOUT_S, DIDAX_MAX_OUTPUT_BYTES, DIDAX_MAX_CODE_BYTES | 10, 1 MiB, 64 KiB |
| DIDAX_KERNEL_PYTHON, DIDAX_ENGINE_SRC | backend/.venv-kernel/bin/python, <repo>/engine/src |
| DIDAX_SPAWN_TIMEOUT_S | 60 |
| DIDAX_QUEUE_TIMEOUT_S | 30 (a queued run that gets no kernel by then ends with `queue_timeout`) |
| DIDAX_MAX_CONNECTIONS, DIDAX_CLIENT_CONNECTIONS | 512, 8 (per client address; IPv6: per /64) |
| DIDAX_CLIENT_KERNELS | 2 (kernels one client address holds at once; its other runs queue) |
| DIDAX_FORWARDED_ALLOW_IPS | 127.0.0.1 (proxies whose X-Forwarded-For names the client) |
| DIDAX_KERNEL_ARGV | test hook: JSON argv of a fake kernel (forces rlimits mode, loopback only) |

Every kernel serves one run and is destroyed after it; a session holds no kernel between runs.
A warm kernel holds ~185 MB RSS: the default pool of 8 costs ~1.5 GB while idle, and lets half
of a burst of 16 simultaneous runs start at once while the rest wait for spawns.

Imports: the standard library only.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

BACKEND_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = BACKEND_DIR.parent
SandboxSetting = Literal["auto", "full", "rlimits"]


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def _env_float(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


def _default_kernel_python() -> str:
    kvenv = BACKEND_DIR / ".venv-kernel" / "bin" / "python"
    return str(kvenv) if kvenv.exists() else sys.executable


@dataclass(frozen=True)
class CgroupLimits:
    """Per-kernel cgroup limits (../shared/notes/sandbox.md §4.2)."""

    memory_bytes: int = 1 << 30
    pids: int = 64
    cpu_quota: float = 1.0


@dataclass(frozen=True)
class Settings:
    """Everything the server needs; build with `Settings.from_env()` or directly in tests."""

    host: str = "127.0.0.1"
    port: int = 8000
    db_path: Path = Path("data/shares.sqlite3")
    frontend_dist: Path = REPO_DIR / "frontend" / "dist"
    sandbox: SandboxSetting = "auto"
    pool_size: int = 8
    max_kernels: int = 16
    spawn_concurrency: int = 2
    run_timeout_s: float = 10.0
    max_output_bytes: int = 1 << 20
    max_code_bytes: int = 64 * 1024
    max_message_bytes: int = 256 * 1024
    max_body_bytes: int = 1 << 20
    max_frame_bytes: int = 256 * 1024
    outbox_bytes: int = 1 << 20
    max_cards: int = 64
    max_share_bytes: int = 80 * 1024
    # Kernel -> server control channel: a line, an event reassembled from parts, a card, all
    # cards of a run, events queued unread, and everything a kernel may send in its life.
    ctl_line_bytes: int = 1 << 20
    max_card_bytes: int = 16 << 20
    max_cards_bytes: int = 48 << 20
    ctl_queue_bytes: int = 2 << 20
    spawn_timeout_s: float = 60.0
    queue_timeout_s: float = 30.0
    max_connections: int = 512
    client_connections: int = 8
    client_kernels: int = 2
    forwarded_allow_ips: str = "127.0.0.1"
    kernel_python: str = field(default_factory=_default_kernel_python)
    kernel_argv: tuple[str, ...] = ()
    engine_src: Path = REPO_DIR / "engine" / "src"
    sandbox_dir: Path = BACKEND_DIR / "sandbox"
    slot_uid_base: int = 60100
    cgroup: CgroupLimits = CgroupLimits()
    cgroup_name: str = "didax"
    kernel_cpu_budget_s: int = 600
    kernel_as_bytes: int = 4 << 30
    tmpfs_bytes: int = 64 << 20
    shm_bytes: int = 16 << 20

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Defaults, then DIDAX_* environment variables, then explicit overrides."""
        base = cls(
            db_path=Path(_env("DIDAX_DB_PATH", "data/shares.sqlite3")),
            frontend_dist=Path(_env("DIDAX_FRONTEND_DIST", str(REPO_DIR / "frontend" / "dist"))),
            sandbox=_env("DIDAX_SANDBOX", "auto"),  # type: ignore[arg-type]
            pool_size=_env_int("DIDAX_POOL_SIZE", 8),
            max_kernels=_env_int("DIDAX_MAX_KERNELS", 16),
            spawn_concurrency=_env_int("DIDAX_SPAWN_CONCURRENCY", 2),
            run_timeout_s=_env_float("DIDAX_RUN_TIMEOUT_S", 10.0),
            max_output_bytes=_env_int("DIDAX_MAX_OUTPUT_BYTES", 1 << 20),
            max_code_bytes=_env_int("DIDAX_MAX_CODE_BYTES", 64 * 1024),
            kernel_python=_env("DIDAX_KERNEL_PYTHON", _default_kernel_python()),
            engine_src=Path(_env("DIDAX_ENGINE_SRC", str(REPO_DIR / "engine" / "src"))),
            spawn_timeout_s=_env_float("DIDAX_SPAWN_TIMEOUT_S", 60.0),
            queue_timeout_s=_env_float("DIDAX_QUEUE_TIMEOUT_S", 30.0),
            max_connections=_env_int("DIDAX_MAX_CONNECTIONS", 512),
            client_connections=_env_int("DIDAX_CLIENT_CONNECTIONS", 8),
            client_kernels=_env_int("DIDAX_CLIENT_KERNELS", 2),
            forwarded_allow_ips=_env("DIDAX_FORWARDED_ALLOW_IPS", "127.0.0.1"),
            # Test hook: run this argv instead of the real kernel (rlimits mode, loopback only).
            kernel_argv=tuple(json.loads(_env("DIDAX_KERNEL_ARGV", "[]"))),
        )
        if base.sandbox not in ("auto", "full", "rlimits"):
            raise ValueError(f"DIDAX_SANDBOX must be auto, full or rlimits, not {base.sandbox!r}")
        return replace(base, **overrides)  # type: ignore[arg-type]

    @property
    def ctl_kernel_bytes(self) -> int:
        """All a kernel may write to its control channel in its life: its output allowance, card
        budget and figures, with room for JSON escaping and the small events; more is a flood."""
        displays = 16 << 20  # at most 16 figures of at most 1 MiB (shared_schemas.Display)
        return 2 * (self.max_output_bytes + self.max_cards_bytes + displays) + (4 << 20)

    @property
    def loopback_only(self) -> bool:
        """True when the server listens on a loopback address only."""
        import ipaddress

        if self.host in ("localhost", "ip6-localhost"):
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False
