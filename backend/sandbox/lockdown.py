"""Lock the kernel down after the engine is imported and before any user code is read.

Applies rlimits (CPU budget, address-space backstop, file size, open files, processes, core)
and a seccomp deny-list loaded with TSYNC so XLA's already-running threads are filtered too
(../shared/notes/sandbox.md §2.4, pitfall 3). `report()` reads back what is in force, which the
kernel sends to the server in its `ready` event.

Imports: the standard library and, when present, `pyseccomp`.
"""

from __future__ import annotations

import errno
import os
import resource
import termios
from pathlib import Path
from typing import Any

CLONE_THREAD = 0x00010000

# Denied with EPERM: new processes and programs, networking, cross-process access, namespaces
# and mounts, and other kernel attack surface. clone without CLONE_THREAD is handled apart.
DENY_EPERM = (
    "fork vfork execve execveat socket socketpair ptrace process_vm_readv process_vm_writev "
    "kcmp pidfd_getfd pidfd_open unshare setns mount umount2 pivot_root chroot move_mount "
    "open_tree fsopen fsconfig fsmount fspick mount_setattr bpf perf_event_open userfaultfd "
    "add_key request_key keyctl io_uring_setup io_uring_enter io_uring_register init_module "
    "finit_module delete_module kexec_load kexec_file_load reboot swapon swapoff syslog acct "
    "quotactl name_to_handle_at open_by_handle_at iopl ioperm personality set_mempolicy mbind "
    "migrate_pages move_pages setuid setgid setreuid setregid setresuid setresgid setgroups"
).split()

RLIMITS = {
    "cpu_s": resource.RLIMIT_CPU,
    "as_bytes": resource.RLIMIT_AS,
    "fsize_bytes": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "nproc": resource.RLIMIT_NPROC,
    "core_bytes": resource.RLIMIT_CORE,
}


def apply_rlimits(limits: dict[str, int]) -> dict[str, int]:
    """Set soft and hard limits (hard CPU = soft + 1 s so SIGXCPU comes before SIGKILL)."""
    applied: dict[str, int] = {}
    for key, value in limits.items():
        which = RLIMITS.get(key)
        if which is None or value is None:
            continue
        _, hard = resource.getrlimit(which)
        soft = int(value)
        new_hard = soft + 1 if key == "cpu_s" else soft
        if hard != resource.RLIM_INFINITY:
            soft, new_hard = min(soft, hard), min(new_hard, hard)
        resource.setrlimit(which, (soft, new_hard))
        applied[key] = soft
    return applied


def _seccomp_filter(seccomp: Any) -> Any:
    filt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    eperm = seccomp.ERRNO(errno.EPERM)
    for name in DENY_EPERM:
        try:
            filt.add_rule(eperm, name)
        except (OSError, ValueError, RuntimeError):
            pass  # not a syscall on this architecture
    # clone(2) for a new process (no CLONE_THREAD) is denied; threads still work.
    filt.add_rule(eperm, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    # clone3 passes flags in memory, which seccomp cannot inspect: ENOSYS makes glibc fall back.
    filt.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for request in (termios.TIOCSTI, getattr(termios, "TIOCLINUX", 0x541C)):
        filt.add_rule(eperm, "ioctl", seccomp.Arg(1, seccomp.EQ, request))
    filt.set_attr(seccomp.Attr.CTL_NNP, 1)
    filt.set_attr(seccomp.Attr.CTL_TSYNC, 1)
    return filt


def apply_seccomp() -> str:
    """Load the filter on every thread; returns 'filter' or why it is not in force."""
    try:
        import pyseccomp as seccomp
    except ImportError as exc:
        return f"unavailable: {exc}"
    _seccomp_filter(seccomp).load()
    return "filter"


def _status_fields(path: Path, names: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(":")
            if key in names:
                out[key] = value.strip()
    except OSError:
        pass
    return out


def report() -> dict[str, Any]:
    """What is in force now: seccomp mode of every thread, NoNewPrivs, CapEff, uid, limits."""
    modes = set()
    for task in Path("/proc/self/task").iterdir():
        modes.add(_status_fields(task / "status", ("Seccomp",)).get("Seccomp", "?"))
    own = _status_fields(Path("/proc/self/status"), ("NoNewPrivs", "CapEff", "Threads"))
    return {
        "seccomp_modes": sorted(modes),
        "no_new_privs": own.get("NoNewPrivs"),
        "cap_eff": own.get("CapEff"),
        "threads": own.get("Threads"),
        "uid": os.getuid(),
        "pid": os.getpid(),
    }


def lock_down(config: dict[str, Any]) -> dict[str, Any]:
    """Apply rlimits, then seccomp if configured; return the report."""
    applied = apply_rlimits(config.get("rlimits", {}))
    seccomp_state = apply_seccomp() if config.get("seccomp", True) else "disabled"
    return {"rlimits": applied, "seccomp": seccomp_state, **report()}
