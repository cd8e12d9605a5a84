"""Launching kernel processes: the Provisioner ABC and its two implementations.

Task tree (all on the event-loop thread; spawning from a short-lived thread would fire
bwrap's --die-with-parent early, ../shared/notes/sandbox.md pitfall 2):

    Provisioner.launch(slot)
      ├─ [full] create the slot's cgroup, then exec: sh (join cgroup) → setpriv (slot uid,
      │         no caps, no_new_privs) → bwrap (user/pid/net/ipc/uts/cgroup namespaces,
      │         read-only /usr + venv + engine, read-only /dev with a 16 MiB tmpfs /dev/shm,
      │         64 MiB tmpfs /tmp: every writable mount has a size cap) → python main.py;
      │         bwrap's options come from a memfd (`--args`), so the sandbox's /proc/1/cmdline
      │         (bwrap's reaper) shows no host path
      └─ [rlimits_only] exec python sandbox/main.py in a new session and a temp cwd
    KernelProcess.kill_tree()  SIGKILL the inner tree (cgroup members / process group /
                               descendants) at once: a run ends without waiting for cleanup
    KernelProcess.terminate()
      └─ kill_tree, then the bwrap monitor, then sweep and remove the cgroup (pitfall 6)

The launcher environment is minimal and holds no secrets (pitfall 1). The kernel itself applies
rlimits and seccomp after importing the engine (sandbox/lockdown.py).

Imports: the standard library, app.config, app.kernels.cgroups.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import fcntl
import json
import logging
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.config import Settings
from app.kernels.cgroups import KernelCgroup, detect, instances, sweep

log = logging.getLogger("didax.provisioner")
LAUNCH_ENV = {"PATH": "/usr/bin:/bin"}
KERNEL_ENV = {
    "PATH": "/usr/bin",
    "MALLOC_ARENA_MAX": "2",  # fewer glibc arenas: less address space under RLIMIT_AS
    "JAX_PLATFORMS": "cpu",
    "OPENBLAS_NUM_THREADS": "1",
    "TF_CPP_MIN_LOG_LEVEL": "2",
}
# Namespaces (no network), no nested user namespaces, die with the server, a new tty session
# (TIOCSTI, CVE-2017-5226), an unprivileged uid inside, and an empty environment.
BWRAP_ISOLATION = (
    "--unshare-net --unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try "
    "--disable-userns --die-with-parent --new-session --uid 1000 --gid 1000 --hostname sandbox "
    "--clearenv"
).split()
# After the binds: a fresh /proc, a minimal /dev made read-only after its size-capped /dev/shm
# (`--size` applies to the next tmpfs), a size-capped tmpfs /tmp whose /tmp/work is the cwd,
# and a read-only root.
BWRAP_PROC_DEV = "--proc /proc --dev /dev".split()
BWRAP_DEV_RO = ["--remount-ro", "/dev"]
BWRAP_TMP = "--tmpfs /tmp --dir /tmp/work --remount-ro / --chdir /tmp/work".split()
JOIN_CGROUPS = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 97; shift; '
    'n=$((n-1)); done; exec "$@"'
)


def descendants(pid: int) -> list[int]:
    """All descendants of `pid` (children first-level first), read from /proc."""
    out: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError):
                kids = [int(x) for x in (task / "children").read_text().split()]
                out.extend(kids)
                todo.extend(kids)
    return out


def _kill(pids: list[int] | set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


class KernelProcess:
    """A launched kernel: its process, pipes, cgroup and teardown."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        ctl: asyncio.StreamReader,
        ctl_transport: asyncio.BaseTransport,
        cgroup: KernelCgroup | None,
        workdir: str | None,
    ) -> None:
        self.proc = proc
        self.ctl = ctl
        self._ctl_transport = ctl_transport
        self.cgroup = cgroup
        self._workdir = workdir
        self.killed = False
        self.terminated = False

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    def oom_killed(self) -> bool:
        return self.cgroup is not None and self.cgroup.oom_killed()

    def kernel_pids(self) -> set[int]:
        """Every process of this kernel except the top one we spawned."""
        pids = set(descendants(self.pid))
        if self.cgroup is not None:
            pids |= self.cgroup.pids()
        pids.discard(self.pid)
        return pids

    def kill_tree(self) -> None:
        """SIGKILL every process of the kernel now (no waiting; `terminate` cleans up)."""
        self.killed = True
        _kill(self.kernel_pids())  # the inner tree first, so bwrap can reap and exit
        if self.cgroup is None:  # rlimits_only: the kernel leads its own process group
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)

    async def terminate(self) -> None:
        """Kill the whole tree and release everything; safe to call more than once."""
        if self.terminated:
            return
        self.terminated = True
        self.kill_tree()
        try:
            await asyncio.wait_for(self.proc.wait(), 2.0)
        except TimeoutError:
            _kill([self.pid])
            await self.proc.wait()
        await self._sweep()
        self._close_pipes()

    async def _sweep(self) -> None:
        if self.cgroup is not None:  # killed processes may take a moment to leave the group
            delay, waited = 0.01, 0.0
            while not self.cgroup.try_remove() and waited < 10.0:
                await asyncio.sleep(delay)
                waited += delay
                delay = min(delay * 1.5, 0.25)
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)  # never follows symlinks

    def _close_pipes(self) -> None:
        with contextlib.suppress(Exception):
            self._ctl_transport.close()
        if self.proc.stdin is not None:
            with contextlib.suppress(Exception):
                self.proc.stdin.close()


class Provisioner(abc.ABC):
    """How kernels are started; `mode`, `description` and `layers` go into `welcome`."""

    mode: str = ""
    description: str = ""
    layers: list[str] = []

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def kernel_config(self, engine_path: str | None) -> dict[str, Any]:
        s = self.settings
        return {
            "engine_path": engine_path,
            "seccomp": True,
            "rlimits": {
                "cpu_s": s.kernel_cpu_budget_s,
                "as_bytes": s.kernel_as_bytes,
                "fsize_bytes": 16 << 20,
                "nofile": 256,
                "nproc": 128,
                "core_bytes": 0,
            },
        }

    def close(self) -> None:  # noqa: B027 - optional hook, deliberately empty by default
        """Release what the provisioner holds (nothing by default)."""

    @abc.abstractmethod
    async def launch(self, slot: int) -> KernelProcess:
        """Start a kernel for `slot`; it announces `ready` on the returned control stream."""

    async def _spawn(
        self,
        build: Callable[[int], tuple[list[str], dict[str, str], list[int]]],
        cgroup: KernelCgroup | None,
        workdir: str | None,
    ) -> KernelProcess:
        """Create the control pipe, then exec `build(write_fd)` = (argv, env, more fds to
        pass) in a new session; the parent's copies of the passed fds are closed."""
        loop = asyncio.get_running_loop()
        read_fd, write_fd = os.pipe()
        extra: list[int] = []
        try:
            argv, env, extra = build(write_fd)
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(write_fd, *extra),
                env=env,
                cwd=workdir or "/",  # no host path in the launcher's PWD (sh exports it)
                start_new_session=True,
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            for fd in (write_fd, *extra):
                os.close(fd)
        reader = asyncio.StreamReader(limit=self.settings.ctl_line_bytes)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0)
        )
        return KernelProcess(proc, reader, transport, cgroup, workdir)


class RlimitsProvisioner(Provisioner):
    """Local, loopback-only mode: the kernel applies rlimits (and seccomp where available)."""

    mode = "rlimits_only"
    description = (
        "local loopback server without the full sandbox: the kernel runs as the "
        "server's user with resource limits and a seccomp filter, but no namespaces"
    )
    layers = ["rlimits", "seccomp"]

    def argv(self) -> list[str]:
        if self.settings.kernel_argv:
            return list(self.settings.kernel_argv)
        main = str(self.settings.sandbox_dir / "main.py")
        return [self.settings.kernel_python, "-I", "-B", main]

    async def launch(self, slot: int) -> KernelProcess:
        workdir = tempfile.mkdtemp(prefix=f"didax-kernel-{slot}-")
        env = {
            **LAUNCH_ENV,
            **KERNEL_ENV,
            "PATH": LAUNCH_ENV["PATH"],
            "HOME": workdir,
            "SBX_CFG": json.dumps(self.kernel_config(str(self.settings.engine_src))),
        }
        argv = self.argv()
        return await self._spawn(
            lambda fd: (argv, {**env, "SBX_CTL_FD": str(fd)}, []), None, workdir
        )


INSTANCE_DIR = Path("/run/didax")
MAX_INSTANCES = 32


def _lock_instance(index: int) -> int | None:
    """The fd holding instance `index`'s lock, or None when a live server holds it."""
    INSTANCE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(INSTANCE_DIR / f"instance-{index}.lock", flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def claim_instance() -> tuple[int, int]:
    """(index, lock fd): a sandbox instance number no other live server on this host holds.

    Each server process gets its own block of slot uids and its own cgroup names, so two
    servers (tests, e2e, bench) never kill or share each other's kernels. The flock is held
    until the fd is closed (at the latest when the process exits)."""
    for index in range(MAX_INSTANCES):
        fd = _lock_instance(index)
        if fd is not None:
            return index, fd
    raise RuntimeError(f"all {MAX_INSTANCES} sandbox instances are in use")


def sweep_abandoned(cgroup_name: str) -> list[str]:
    """Remove the cgroups of every instance no live server holds: a server that was killed
    (SIGKILL, the OOM killer) could not remove its own. Each such instance's lock is held
    while its groups are swept, so a server starting meanwhile takes another instance; the
    instances of live servers (this one included) are left alone. Returns what is left."""
    left: list[str] = []
    for index in sorted(instances(cgroup_name)):
        fd = _lock_instance(index)
        if fd is None:
            continue
        try:
            left += sweep(cgroup_name, f"i{index}-")
        finally:
            os.close(fd)
    return left


class SandboxProvisioner(Provisioner):
    """The full sandbox: cgroup + setpriv slot uid + bubblewrap namespaces + rlimits + seccomp."""

    mode = "full"

    def __init__(
        self, settings: Settings, cgroup_version: int | None = None, cgroup_detail: str = ""
    ) -> None:
        super().__init__(settings)
        self.instance, self._lock_fd = claim_instance()
        self.set_cgroups(cgroup_version, cgroup_detail)
        # groups of killed servers: this instance's predecessor and every unheld instance
        sweep(settings.cgroup_name, self.cgroup_prefix)
        sweep_abandoned(settings.cgroup_name)

    @property
    def cgroup_prefix(self) -> str:
        return f"i{self.instance}-"

    def release_instance(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._lock_fd)

    def close(self) -> None:
        """Remove this instance's cgroups (its kernels are gone), free the instance, then
        remove what unheld instances left (this one's too, if its processes were slow)."""
        sweep(self.settings.cgroup_name, self.cgroup_prefix)
        self.release_instance()
        left = sweep_abandoned(self.settings.cgroup_name)
        if left:
            log.warning("cgroups left behind: %s", left)

    def slot_uid(self, slot: int) -> int:
        """Slot uids: one block of max_kernels + 1 per instance (the last one for the probe)."""
        block = self.settings.max_kernels + 1
        return self.settings.slot_uid_base + self.instance * block + slot

    def set_cgroups(self, cgroup_version: int | None, cgroup_detail: str) -> None:
        self.cgroup_version = cgroup_version
        layers = ["bwrap", "uid"]
        if cgroup_version:
            layers.append(f"cgroup_v{cgroup_version}")
        self.layers = [*layers, "rlimits", "seccomp"]
        self.description = (
            "bubblewrap namespaces (no network, private /tmp, read-only system), a per-slot uid "
            f"without capabilities, {cgroup_detail if cgroup_version else 'no cgroup limits'}, "
            "rlimits and a seccomp filter on every thread"
        )

    def _binds(self) -> list[str]:
        s = self.settings
        venv = Path(s.kernel_python).parent.parent
        args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
        for name in ("lib", "lib64", "bin", "sbin"):
            if Path(f"/usr/{name}").exists():
                args += ["--symlink", f"usr/{name}", f"/{name}"]
        args += [
            "--ro-bind",
            str(venv),
            "/opt/venv",
            "--ro-bind",
            str(s.sandbox_dir),
            "/opt/sbx/sandbox",
        ]
        if s.engine_src.is_dir():
            args += ["--ro-bind", str(s.engine_src), "/opt/engine"]
        return args

    def bwrap_options(self, ctl_fd_env: str = "5") -> list[str]:
        """Everything bwrap is told except the command (it reads these from a memfd)."""
        s = self.settings
        engine = "/opt/engine" if s.engine_src.is_dir() else None
        setenv = {
            **KERNEL_ENV,
            "HOME": "/tmp",
            "SBX_CFG": json.dumps(self.kernel_config(engine)),
            "SBX_CTL_FD": ctl_fd_env,
        }
        options = list(BWRAP_ISOLATION)
        for key, value in setenv.items():
            options += ["--setenv", key, value]
        options += self._binds()
        options += [*BWRAP_PROC_DEV, "--size", str(s.shm_bytes), "--tmpfs", "/dev/shm"]
        options += [*BWRAP_DEV_RO, "--size", str(s.tmpfs_bytes), *BWRAP_TMP]
        return options

    def bwrap_argv(self, inner: list[str], ctl_fd_env: str = "5") -> tuple[list[str], int]:
        """(argv, fd): `bwrap --args fd -- inner…` and the memfd holding the options, which
        the caller passes to the child and then closes."""
        fd = os.memfd_create("didax-bwrap-args", 0)
        os.write(fd, b"".join(o.encode() + b"\0" for o in self.bwrap_options(ctl_fd_env)))
        os.lseek(fd, 0, os.SEEK_SET)
        return ["bwrap", "--args", str(fd), "--", *inner], fd

    def setpriv_argv(self, slot: int) -> list[str]:
        uid = str(self.slot_uid(slot))
        return [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]

    async def launch(self, slot: int) -> KernelProcess:
        s = self.settings
        cgroup = None
        if self.cgroup_version:
            leaf = f"{self.cgroup_prefix}slot-{slot}"
            cgroup = KernelCgroup(self.cgroup_version, s.cgroup_name, leaf, s.cgroup)
            cgroup.create()
        try:
            return await self._spawn(self._launcher(slot, cgroup), cgroup, None)
        except BaseException:
            if cgroup is not None:  # no kernel will remove it (else the shutdown sweep will)
                cgroup.try_remove()
            raise

    def _launcher(
        self, slot: int, cgroup: KernelCgroup | None
    ) -> Callable[[int], tuple[list[str], dict[str, str], list[int]]]:
        """build(ctl write fd) -> (argv, env, fds to pass) of a sandboxed kernel in `slot`."""
        procs = cgroup.procs_files() if cgroup else []
        inner = ["/opt/venv/bin/python", "-I", "-B", "/opt/sbx/sandbox/main.py"]

        def build(fd: int) -> tuple[list[str], dict[str, str], list[int]]:
            bwrap, args_fd = self.bwrap_argv(inner, str(fd))
            argv = [
                "sh",
                "-c",
                JOIN_CGROUPS,
                "didax-launch",
                str(len(procs)),
                *procs,
                *self.setpriv_argv(slot),
                *bwrap,
            ]
            return argv, dict(LAUNCH_ENV), [args_fd]

        return build


def probe_full_sandbox(
    settings: Settings, prov: SandboxProvisioner | None = None
) -> tuple[bool, str]:
    """Can this machine run the full sandbox? Tries a real bwrap launch as a slot uid."""
    if os.geteuid() != 0:
        return False, "the server is not root (per-slot uids and cgroups need it)"
    missing = [tool for tool in ("bwrap", "setpriv", "sh") if shutil.which(tool) is None]
    if missing:
        return False, f"missing tools: {', '.join(missing)} (scripts/setup_system.sh)"
    if not Path(settings.kernel_python).exists():
        return False, f"kernel python {settings.kernel_python} does not exist"
    own = prov is None
    prov = prov or SandboxProvisioner(settings)
    try:
        return _probe_launch(prov)
    finally:
        if own:
            prov.release_instance()


def _probe_launch(prov: SandboxProvisioner) -> tuple[bool, str]:
    check = "import numpy, pyseccomp, sys; print('sandbox-ok', sys.prefix)"
    inner = ["/opt/venv/bin/python", "-I", "-B", "-c", check]
    bwrap, args_fd = prov.bwrap_argv(inner)
    argv = prov.setpriv_argv(prov.settings.max_kernels) + bwrap
    try:
        done = subprocess.run(
            argv, env=LAUNCH_ENV, capture_output=True, text=True, timeout=60, pass_fds=(args_fd,)
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"probe launch failed: {exc}"
    finally:
        os.close(args_fd)
    if done.returncode != 0 or "sandbox-ok /opt/venv" not in done.stdout:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return False, f"probe exited {done.returncode}: {tail[0][:300]}"
    return True, "ok"


def choose_provisioner(settings: Settings) -> tuple[Provisioner | None, str]:
    """The provisioner for these settings, or None (runs refused) and the reason."""
    if settings.sandbox == "rlimits" or settings.kernel_argv:
        if not settings.loopback_only:
            return None, "rlimits-only kernels are allowed on a loopback server only"
        return RlimitsProvisioner(settings), "DIDAX_SANDBOX=rlimits"
    full: SandboxProvisioner | None = None
    why = "the server is not root (per-slot uids and cgroups need it)"
    if os.geteuid() == 0:
        try:
            full = SandboxProvisioner(settings)
        except (OSError, RuntimeError) as exc:
            why = f"no sandbox instance: {exc}"
    if full is not None:
        ok, why = probe_full_sandbox(settings, full)
        if ok:
            full.set_cgroups(*detect(settings.cgroup_name))
            return full, "full sandbox"
        full.release_instance()
    if settings.sandbox == "full" or not settings.loopback_only:
        return None, f"the full sandbox is unavailable: {why}"
    prov = RlimitsProvisioner(settings)
    prov.description = f"{prov.description} (full sandbox unavailable: {why})"
    return prov, why
