"""Kernel lifecycle and capacity: slots, the warm pool, the wait queue, hand-out and teardown.

A kernel serves one run and is destroyed after it; a session holds no kernel between runs.
Capacity is shared fairly: runs wait in one FIFO queue, a client (address) holds at most
`client_kernels` kernels at once (its further runs wait without blocking anyone behind them),
a run that gets no kernel within `queue_timeout_s` ends with `queue_timeout`, and a run whose
client left is taken out of the queue before it can start a kernel.

Task tree:

    _dispatch()               after every change (start, acquire, ready, release, give-up):
      │                       pooled kernels → waiting runs (FIFO, per-client limit), then
      │                       spawns so that pool_size + (eligible waiting runs) kernels are
      │                       ready or starting, ≤ spawn_concurrency at once, within free slots
      └─ _spawn_one           launch → ready → pool → _dispatch; a failure fails the oldest
                              waiting run, or (none waiting) backs the pool refill off
    acquire(client, on_queue) → a pooled kernel at once, or a place in the queue (position
                                reported through `on_queue` whenever it changes)
    release(kernel)           → kill the whole tree, sweep its cgroup, free the slot, wake
    close()                   → fail the waiting runs, stop spawning, destroy every kernel

Spawns run on the event-loop thread (bwrap's --die-with-parent follows the spawning thread).

Imports: the standard library, shared_schemas, app.config, app.kernels.{kernel,provisioner}.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass

from app.config import Settings
from app.kernels.cards import CardFramer
from app.kernels.kernel import Kernel, KernelLimits, KernelStartError
from app.kernels.provisioner import Provisioner
from shared_schemas import EngineInfo, SandboxInfo

log = logging.getLogger("didax.manager")
QueueCallback = Callable[[str, int], None]  # (state "queued" | "starting", runs ahead)


class SandboxUnavailable(Exception):
    """Runs are refused: no acceptable provisioner for this server (or it is shutting down)."""


class QueueTimeout(Exception):
    """No kernel became free for a waiting run within the queue timeout."""


@dataclass(eq=False)
class _Waiter:
    client: str
    future: asyncio.Future[Kernel]
    on_queue: QueueCallback | None
    shown: tuple[str, int] | None = None


class KernelManager:
    """Owns every kernel process of the server."""

    def __init__(self, settings: Settings, provisioner: Provisioner | None, reason: str) -> None:
        self.settings = settings
        self.provisioner = provisioner
        self.reason = reason
        self.limits = KernelLimits.from_settings(settings)
        self.cards = CardFramer(settings.max_frame_bytes)
        self._free_slots: deque[int] = deque(range(settings.max_kernels))
        self._pool: deque[Kernel] = deque()
        self._kernels: set[Kernel] = set()
        self._waiters: deque[_Waiter] = deque()
        self._in_use: Counter[str] = Counter()
        self._spawning = 0
        self._spawn_tasks: set[asyncio.Task[None]] = set()
        self._teardowns: set[asyncio.Future[None]] = set()
        self._backoff, self._backoff_until = 0.5, 0.0
        self._closing = False
        self.engine_info: EngineInfo | None = None
        self.spawn_times: deque[float] = deque(maxlen=50)
        self.crashed_spawns = 0
        self.handed_out = 0

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
            "running": sum(self._in_use.values()),
            "queued": len(self._waiters),
            "spawning": self._spawning,
            "free_slots": len(self._free_slots),
            "handed_out": self.handed_out,
            "spawn_ready_s_median": times[len(times) // 2] if times else None,
            "failed_spawns": self.crashed_spawns,
        }

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        if self.provisioner is not None:
            self._dispatch()

    async def close(self) -> None:
        self._closing = True
        for waiter in list(self._waiters):
            if not waiter.future.done():
                waiter.future.set_exception(SandboxUnavailable("the server is shutting down"))
        self._waiters.clear()
        tasks = list(self._spawn_tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await asyncio.gather(*(k.close() for k in list(self._kernels)), return_exceptions=True)
        await asyncio.gather(*self._teardowns, return_exceptions=True)
        self._kernels.clear()
        self._pool.clear()
        self.cards.close()
        if self.provisioner is not None:
            self.provisioner.close()

    # ------------------------------------------------------------------ hand-out
    async def acquire(self, client: str, on_queue: QueueCallback | None = None) -> Kernel:
        """A ready kernel for one run of `client`; raises QueueTimeout, KernelStartError or
        SandboxUnavailable. Cancelling the caller takes its run out of the queue."""
        if self.provisioner is None or self._closing:
            raise SandboxUnavailable(self.reason)
        waiter = _Waiter(client, asyncio.get_running_loop().create_future(), on_queue)
        self._waiters.append(waiter)
        self._dispatch()
        try:
            async with asyncio.timeout(self.settings.queue_timeout_s):
                return await waiter.future
        except TimeoutError:
            self._abandon(waiter)
            raise QueueTimeout(
                f"no kernel became free within {self.settings.queue_timeout_s:g} s"
            ) from None
        except BaseException:
            self._abandon(waiter)
            raise

    def _abandon(self, waiter: _Waiter) -> None:
        """The waiting run gave up (timeout, cancel, its client left): out of the queue, and a
        kernel handed to it at that very moment is destroyed."""
        with contextlib.suppress(ValueError):
            self._waiters.remove(waiter)
        fut = waiter.future
        if not fut.done():
            fut.cancel()
        elif not fut.cancelled() and fut.exception() is None:
            asyncio.get_running_loop().create_task(self.release(fut.result()))
        self._dispatch()

    def _eligible(self, client: str) -> bool:
        return self._in_use[client] < self.settings.client_kernels

    def _dispatch(self) -> None:
        """Hand pooled kernels to waiting runs in FIFO order, skipping clients at their limit;
        start the spawns still wanted; then update queue positions."""
        for waiter in list(self._waiters):
            if not self._pool:
                break
            if waiter.future.done():
                self._waiters.remove(waiter)
            elif self._eligible(waiter.client):
                kernel = self._take_pooled()
                if kernel is None:
                    break
                self._waiters.remove(waiter)
                kernel.client = waiter.client
                self._in_use[waiter.client] += 1
                self.handed_out += 1
                waiter.future.set_result(kernel)
        while self._want_spawn():
            self._spawning += 1
            task = asyncio.create_task(self._spawn_one(self._free_slots.popleft()))
            self._spawn_tasks.add(task)
            task.add_done_callback(self._spawn_tasks.discard)
        self._report_positions()

    def _take_pooled(self) -> Kernel | None:
        while self._pool:
            kernel = self._pool.popleft()
            if kernel.alive:
                return kernel
            asyncio.get_running_loop().create_task(self.release(kernel))
        return None

    def _report_positions(self) -> None:
        eligible_seen = 0
        for ahead, waiter in enumerate(self._waiters):
            eligible = self._eligible(waiter.client)
            coming = eligible and eligible_seen < self._spawning
            eligible_seen += eligible
            shown = ("starting" if coming else "queued", ahead)
            if waiter.on_queue is not None and shown != waiter.shown:
                waiter.shown = shown
                waiter.on_queue(*shown)

    async def release(self, kernel: Kernel) -> None:
        """Destroy a kernel (whole process tree, cgroup) and free its slot. The teardown runs
        to the end even when the caller is cancelled (the connection went away)."""
        if kernel not in self._kernels:
            return
        self._kernels.discard(kernel)
        with contextlib.suppress(ValueError):
            self._pool.remove(kernel)
        if kernel.client is not None:
            self._in_use[kernel.client] -= 1
            if self._in_use[kernel.client] <= 0:
                del self._in_use[kernel.client]
        task = asyncio.ensure_future(self._teardown(kernel))
        self._teardowns.add(task)
        task.add_done_callback(self._teardowns.discard)
        await asyncio.shield(task)

    async def _teardown(self, kernel: Kernel) -> None:
        started = time.monotonic()
        try:
            await kernel.close()
        finally:
            log.debug("kernel slot %s released in %.3f s", kernel.slot, time.monotonic() - started)
            self._free_slots.append(kernel.slot)
            self._dispatch()

    # ------------------------------------------------------------------ supply
    def _want_spawn(self) -> bool:
        if self.provisioner is None or self._closing:
            return False
        if self._spawning >= self.settings.spawn_concurrency:
            return False
        if not self._free_slots:
            return False
        eligible = sum(1 for w in self._waiters if self._eligible(w.client))
        if eligible > self._spawning:
            return True  # waiting runs come first and never wait for the pool's back-off
        if time.monotonic() < self._backoff_until:
            return False
        return len(self._pool) + self._spawning < self.settings.pool_size + eligible

    async def _spawn_one(self, slot: int) -> None:
        try:
            kernel = await self._launch(slot)
        except KernelStartError as exc:
            self._spawning -= 1
            self._spawn_failed(exc)
            return
        except BaseException:
            self._spawning -= 1
            raise
        self._spawning -= 1
        self._backoff = 0.5
        self._pool.append(kernel)
        self._dispatch()

    def _spawn_failed(self, exc: KernelStartError) -> None:
        self.crashed_spawns += 1
        for waiter in list(self._waiters):
            if self._eligible(waiter.client) and not waiter.future.done():
                self._waiters.remove(waiter)
                waiter.future.set_exception(exc)
                break
        else:
            log.warning("pool spawn failed: %s (retry in %.1f s)", exc, self._backoff)
            self._backoff_until = time.monotonic() + self._backoff
            asyncio.get_running_loop().call_later(self._backoff, self._dispatch)
            self._backoff = min(self._backoff * 2, 30.0)
        self._dispatch()

    async def _launch(self, slot: int) -> Kernel:
        assert self.provisioner is not None
        try:
            proc = await self.provisioner.launch(slot)
        except Exception as exc:
            self._free_slots.append(slot)
            raise KernelStartError(f"could not launch a kernel: {exc}") from exc
        kernel = Kernel(proc, slot, self.limits, self.cards)
        self._kernels.add(kernel)
        kernel.start()
        try:
            ready = await kernel.wait_ready(self.settings.spawn_timeout_s)
        except BaseException:
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
        log.debug("kernel slot %s ready in %.2f s: %s", slot, kernel.ready_s, ready.lockdown)
        return kernel
