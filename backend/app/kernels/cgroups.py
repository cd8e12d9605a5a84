"""Per-kernel cgroups (memory, pids, CPU) on cgroup v1 or v2, where the machine lets us write.

This machine has a hybrid layout with the controllers on v1 (../shared/notes/sandbox.md §2.3);
production hosts usually have v2 with delegation. `detect()` picks whichever is writable;
`KernelCgroup` creates one group per slot, reports its pids and OOM kills, kills everything in
it (v2: cgroup.kill) and removes it. All file operations are synchronous and tiny.

Imports: the standard library and app.config.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from app.config import CgroupLimits

ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpu")


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def _read_ints(path: Path) -> set[int]:
    try:
        return {int(x) for x in path.read_text().split()}
    except (OSError, ValueError):
        return set()


def detect(name: str) -> tuple[int | None, str]:
    """(version, detail): the cgroup version we can create groups in, or None and why."""
    if os.geteuid() != 0:
        return None, "not root"
    if all((ROOT / c).is_dir() for c in V1_CONTROLLERS):
        probe = [ROOT / c / name for c in V1_CONTROLLERS]
        for path in probe:
            with contextlib.suppress(OSError):
                path.mkdir(exist_ok=True)
        if all(p.is_dir() for p in probe):
            return 1, "cgroup v1 memory/pids/cpu"
        return None, "cgroup v1 hierarchies are not writable"
    controllers = ROOT / "cgroup.controllers"
    if controllers.exists():
        have = set(controllers.read_text().split())
        if not {"memory", "pids"} <= have:
            return None, f"cgroup v2 lacks memory/pids controllers ({sorted(have)})"
        parent = ROOT / name
        with contextlib.suppress(OSError):
            parent.mkdir(exist_ok=True)
        wanted = [c for c in ("memory", "pids", "cpu") if c in have]
        _write(ROOT / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted))
        if _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted)):
            return 2, "cgroup v2 " + "/".join(wanted)
        return None, "cannot enable cgroup v2 controllers (no delegation)"
    return None, "no cgroup hierarchy found"


class KernelCgroup:
    """The cgroup(s) of one kernel slot."""

    def __init__(self, version: int, name: str, leaf: str, limits: CgroupLimits) -> None:
        self.version = version
        if version == 1:
            self.dirs = [ROOT / c / name / leaf for c in V1_CONTROLLERS]
        else:
            self.dirs = [ROOT / name / leaf]
        self.limits = limits

    def create(self) -> None:
        """(Re)create the group(s) empty and write the limits."""
        self.destroy()
        for path in self.dirs:
            path.mkdir(exist_ok=True)
        mem, pids, cpu = self.limits.memory_bytes, self.limits.pids, self.limits.cpu_quota
        if self.version == 1:
            mdir, pdir, cdir = self.dirs
            _write(mdir / "memory.limit_in_bytes", str(mem))
            _write(mdir / "memory.memsw.limit_in_bytes", str(mem))  # absent without swap acct
            _write(pdir / "pids.max", str(pids))
            _write(cdir / "cpu.cfs_period_us", "100000")
            _write(cdir / "cpu.cfs_quota_us", str(int(cpu * 100000)))
        else:
            (d,) = self.dirs
            _write(d / "memory.max", str(mem))
            _write(d / "memory.swap.max", "0")
            _write(d / "pids.max", str(pids))
            _write(d / "cpu.max", f"{int(cpu * 100000)} 100000")

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def pids(self) -> set[int]:
        out: set[int] = set()
        for d in self.dirs:
            out |= _read_ints(d / "cgroup.procs")
        return out

    def oom_killed(self) -> bool:
        """True if the kernel's memory limit killed a process in this group."""
        path = self.dirs[0] / ("memory.oom_control" if self.version == 1 else "memory.events")
        try:
            for line in path.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
        except (OSError, ValueError):
            pass
        return False

    def kill_all(self, exclude: set[int] | None = None) -> None:
        if self.version == 2 and not exclude:
            _write(self.dirs[0] / "cgroup.kill", "1")
        for pid in self.pids() - (exclude or set()):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def try_remove(self) -> bool:
        """Kill what is left and rmdir the group(s); True once every directory is gone."""
        gone = True
        for path in self.dirs:
            if not path.exists():
                continue
            self.kill_all()
            try:
                path.rmdir()
            except OSError:
                gone = False
        return gone

    def destroy(self, wait_s: float = 2.0) -> bool:
        """Kill what is left, wait for the group to empty, rmdir it; True if it is gone."""
        deadline = time.monotonic() + wait_s
        for path in self.dirs:
            while path.exists():
                self.kill_all()
                try:
                    path.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        return False
                    time.sleep(0.02)
        return True


def _parents(name: str) -> list[Path]:
    return [ROOT / c / name for c in V1_CONTROLLERS] + [ROOT / name]


def instances(name: str) -> set[int]:
    """The instance numbers N that have a group "iN-..." under `name` (v1 and v2)."""
    found: set[int] = set()
    for parent in _parents(name):
        with contextlib.suppress(OSError):
            for group in parent.iterdir():
                head, sep, _ = group.name.partition("-")
                if sep and head[:1] == "i" and head[1:].isdigit() and group.is_dir():
                    found.add(int(head[1:]))
    return found


def sweep(name: str, prefix: str, wait_s: float = 2.0) -> list[str]:
    """Kill and remove every group under `name` whose leaf starts with `prefix` (v1 and v2).

    Used for groups this server instance owns exclusively (its instance lock is held): stale
    ones from a crashed predecessor at start-up, and anything left at shutdown."""
    left: list[str] = []
    for parent in _parents(name):
        if not parent.is_dir():
            continue
        for group in parent.iterdir():
            if not (group.is_dir() and group.name.startswith(prefix)):
                continue
            deadline = time.monotonic() + wait_s
            while group.exists():
                for pid in _read_ints(group / "cgroup.procs"):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
                try:
                    group.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        left.append(str(group))
                        break
                    time.sleep(0.02)
    return left
