"""Kernel lifecycle: slots (one uid/cgroup each), a warm pool of ready kernels, hand-out and
teardown. A kernel serves one session only and is never returned to the pool.

Task tree:

    KernelManager.start()
      └─ _refill_loop     keeps `pool_size` ready kernels, one spawn at a time, with back-off
    KernelManager.acquire()      → a pooled ready kernel, or a fresh spawn (status "starting");
                                   waits for a free slot when all are busy (status "queued")
    KernelManager.release(k)     → kill the whole tree, sweep its cgroup, free the slot, refill
    KernelManager.close()        → stop refilling, release every kernel

Spawns run on the event-loop thread (bwrap's --die-with-parent follows the spawning thread).

Imports: the standard library, shared_schemas, app.config, app.kernels.{kernel,provisioner}.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable

from app.config import Settings
from app.kernels.kernel import Kernel, KernelStartError
from app.kernels.provisioner import Provisioner
from shared_schemas import EngineInfo, SandboxInfo

log = logging.getLogger("didax.manager")
StatusCallback = Callable[[str, str | None], None]


class SandboxUnavailable(Exception):
    """Runs are refused: no acceptable provisioner for this server."""


class KernelManager:
    """Owns every kernel process of the server."""

    def __init__(self, settings: Settings, provisioner: Provisioner | None, reason: str) -> None:
        self.settings = settings
        self.provisioner = provisioner
        self.reason = reason
        self._free_slots: deque[int] = deque(range(settings.max_kernels))
        self._slot_freed = asyncio.Condition()
        self._pool: deque[Kernel] = deque()
        self._kernels: set[Kernel] = set()
        self._wake = asyncio.Event()
        self._refill_task: asyncio.Task[None] | None = None
        self._closing = False
        self.engine_info: EngineInfo | None = None
        self.spawn_times: deque[float] = deque(maxlen=50)
        self.crashed_spawns = 0

    # ------------------------------------------------------------------ info
    def sandbox_info(self) -> SandboxInfo:
        if self.provisioner is None:
            return SandboxInfo(
                mode="unavailable",
                layers=[],
                description=f"running code is disabled: {self.reason}",
            )
        p = self.provisioner
        return SandboxInfo(mode=p.mode, description=p.description, layers=list(p.layers))  # type: ignore[arg-type]

    def stats(self) -> dict[str, object]:
        times = sorted(self.spawn_times)
        return {
            "pool_ready": len(self._pool),
            "kernels": len(self._kernels),
            "free_slots": len(self._free_slots),
            "spawn_ready_s_median": times[len(times) // 2] if times else None,
            "failed_spawns": self.crashed_spawns,
        }

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        if self.provisioner is not None and self.settings.pool_size > 0:
            self._refill_task = asyncio.create_task(self._refill_loop())
            self._wake.set()

    async def close(self) -> None:
        self._closing = True
        if self._refill_task is not None:
            self._refill_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refill_task
        await asyncio.gather(*(k.close() for k in list(self._kernels)), return_exceptions=True)
        self._kernels.clear()
        self._pool.clear()
        if self.provisioner is not None:
            self.provisioner.close()

    async def _refill_loop(self) -> None:
        backoff = 0.5
        while not self._closing:
            await self._wake.wait()
            self._wake.clear()
            while len(self._pool) < self.settings.pool_size and self._free_slots:
                try:
                    kernel = await self._spawn()
                except KernelStartError as exc:
                    log.warning("pool spawn failed: %s (retry in %.1f s)", exc, backoff)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, 30.0)
                    continue
                backoff = 0.5
                self._pool.append(kernel)

    # ------------------------------------------------------------------ slots and spawning
    async def _take_slot(self, on_status: StatusCallback | None) -> int:
        async with self._slot_freed:
            if not self._free_slots and on_status is not None:
                on_status("queued", "waiting for a free kernel slot")
            await self._slot_freed.wait_for(lambda: bool(self._free_slots))
            return self._free_slots.popleft()

    async def _give_slot(self, slot: int) -> None:
        async with self._slot_freed:
            self._free_slots.append(slot)
            self._slot_freed.notify()

    async def _spawn(self, on_status: StatusCallback | None = None) -> Kernel:
        if self.provisioner is None:
            raise SandboxUnavailable(self.reason)
        slot = await self._take_slot(on_status)
        try:
            proc = await self.provisioner.launch(slot)
        except Exception as exc:
            await self._give_slot(slot)
            self.crashed_spawns += 1
            raise KernelStartError(f"could not launch a kernel: {exc}") from exc
        s = self.settings
        kernel = Kernel(proc, slot, s.max_output_bytes, s.ctl_run_bytes, s.ctl_line_bytes)
        self._kernels.add(kernel)
        kernel.start()
        try:
            ready = await kernel.wait_ready(s.spawn_timeout_s)
        except KernelStartError:
            self.crashed_spawns += 1
            await self.release(kernel)
            raise
        self.spawn_times.append(kernel.ready_s or 0.0)
        self.engine_info = EngineInfo.model_validate(
            {
                "available": bool(ready.engine.get("available")),
                "version": ready.engine.get("version"),
                "viz": bool(ready.engine.get("viz")),
                "detail": ready.engine.get("detail"),
            },
            strict=False,
        )
        log.info("kernel slot %s ready in %.2f s: %s", slot, kernel.ready_s, ready.lockdown)
        return kernel

    async def acquire(self, on_status: StatusCallback | None = None) -> Kernel:
        """A ready kernel for one session: from the warm pool, else freshly spawned."""
        while self._pool:
            kernel = self._pool.popleft()
            self._wake.set()
            if kernel.alive:
                return kernel
            await self.release(kernel)
        if on_status is not None:
            on_status("starting", "starting a fresh kernel")
        self._wake.set()
        return await self._spawn(on_status)

    async def release(self, kernel: Kernel) -> None:
        """Destroy a kernel (whole process tree, cgroup) and free its slot."""
        if kernel not in self._kernels:
            return
        self._kernels.discard(kernel)
        with contextlib.suppress(ValueError):
            self._pool.remove(kernel)
        started = time.monotonic()
        await kernel.close()
        log.debug("kernel slot %s released in %.3f s", kernel.slot, time.monotonic() - started)
        await self._give_slot(kernel.slot)
        self._wake.set()
