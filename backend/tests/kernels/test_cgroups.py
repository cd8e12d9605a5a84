"""Slot cgroups outlive no server: a server killed with SIGKILL cannot remove its instance's
groups (nor kill what is left in them), so the next server to start removes the groups of
every instance no live server holds, and leaves those of live servers alone."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from app.config import Settings
from app.kernels.cgroups import ROOT, KernelCgroup, detect
from app.kernels.provisioner import SandboxProvisioner, claim_instance
from conftest import full_sandbox_or_skip
from helpers import BACKEND

pytestmark = pytest.mark.sandbox

# A stand-in for a server that is then killed: it takes an instance, creates two slot
# groups, puts a process into one (an orphan once the server is gone), prints the instance
# and the orphan's pid, and waits to be killed.
KILLED_SERVER = textwrap.dedent(
    """
    import subprocess, sys, time
    from app.config import Settings
    from app.kernels.cgroups import KernelCgroup, detect
    from app.kernels.provisioner import claim_instance
    s = Settings.from_env()
    version, _ = detect(s.cgroup_name)
    index, _fd = claim_instance()
    groups = [KernelCgroup(version, s.cgroup_name, f"i{index}-slot-{n}", s.cgroup) for n in (0, 1)]
    for g in groups:
        g.create()
    orphan = subprocess.Popen(["sleep", "600"], start_new_session=True)
    for path in groups[0].procs_files():
        open(path, "w").write(str(orphan.pid))
    print(index, orphan.pid, flush=True)
    time.sleep(600)
    """
)


def _dirs(version: int, name: str, prefix: str) -> list[Path]:
    parents = (
        [ROOT / c / name for c in ("memory", "pids", "cpu")] if version == 1 else [ROOT / name]
    )
    return [g for p in parents if p.is_dir() for g in p.iterdir() if g.name.startswith(prefix)]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_groups_of_a_killed_server_are_removed_by_the_next_one():
    full_sandbox_or_skip()
    settings = Settings.from_env()
    version, why = detect(settings.cgroup_name)
    assert version, why
    # a live server's instance (held here) must be left alone
    held, held_fd = claim_instance()
    live = KernelCgroup(version, settings.cgroup_name, f"i{held}-slot-0", settings.cgroup)
    live.create()
    # an instance below the killed server's, free again when the next server starts, so that
    # one does not simply take over the killed server's instance and sweep it as its own
    spare, spare_fd = claim_instance()
    killed = subprocess.Popen(
        [sys.executable, "-c", KILLED_SERVER], cwd=BACKEND, stdout=subprocess.PIPE, text=True
    )
    prov = None
    try:
        assert killed.stdout is not None
        index, orphan = (int(x) for x in killed.stdout.readline().split())
        killed.kill()
        killed.wait(10)
        prefix = f"i{index}-"
        assert len(_dirs(version, settings.cgroup_name, prefix)) == 2 * (3 if version == 1 else 1)
        assert _alive(orphan)
        os.close(spare_fd)
        prov = SandboxProvisioner(settings, version)  # a server starting: sweeps at start-up
        assert prov.instance != index
        assert _dirs(version, settings.cgroup_name, prefix) == []
        deadline = time.monotonic() + 10
        while _alive(orphan) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(orphan), "the orphan left in a killed server's group still runs"
        assert all(d.is_dir() for d in live.dirs), "a live server's group was removed"
    finally:
        if killed.poll() is None:
            killed.kill()
        if prov is not None:
            prov.close()
        with contextlib.suppress(OSError):
            os.close(spare_fd)
        assert live.destroy()
        os.close(held_fd)
