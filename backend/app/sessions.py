"""A websocket session: answers client messages, runs programs in the session's own kernel.

Task tree (per connection):

    Session.handle(envelope)            called by the websocket reader for each valid frame
      └─ _run_task (at most one)        acquire a kernel → execute → status + run_reply
           └─ acquire task              a pooled or freshly spawned kernel (may be queued)
    Outbox                              messages to send; the websocket writer drains it,
                                        merging consecutive stream chunks of one stream

The session's kernel is reused for its next run unless a limit, crash or cancel destroyed it
(or DIDAX_KERNEL_REUSE=run); it is released when the connection closes.

Imports: the standard library, shared_schemas, app.config, app.kernels.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections import deque
from typing import Any

from app.config import Settings
from app.kernels.kernel import Kernel, KernelStartError, RunOutcome
from app.kernels.manager import KernelManager, SandboxUnavailable
from shared_schemas import (
    ClientEnvelope,
    Display,
    ErrorMessage,
    Limits,
    Pong,
    RunReply,
    RunRequest,
    RunSettings,
    ServerEnvelope,
    Status,
    Stream,
    TraceCard,
    TraceCardMessage,
    Welcome,
    server_envelope,
)

log = logging.getLogger("didax.session")
SERVER_VERSION = "0.1.0"
MAX_STREAM_CHUNK = 64 * 1024


class Outbox:
    """Server messages waiting to be sent, in order."""

    def __init__(self) -> None:
        self._items: deque[ServerEnvelope] = deque()
        self._ready = asyncio.Event()

    def put(self, env: ServerEnvelope) -> None:
        self._items.append(env)
        self._ready.set()

    async def take(self) -> list[ServerEnvelope]:
        """Everything queued, with consecutive chunks of the same stream merged."""
        await self._ready.wait()
        self._ready.clear()
        batch: list[ServerEnvelope] = []
        while self._items:
            env = self._items.popleft()
            prev = batch[-1] if batch else None
            if (
                prev is not None
                and isinstance(env.msg, Stream)
                and isinstance(prev.msg, Stream)
                and prev.msg.run_id == env.msg.run_id
                and prev.msg.name == env.msg.name
                and len(prev.msg.text) + len(env.msg.text) <= MAX_STREAM_CHUNK
            ):
                prev.msg.text += env.msg.text
                continue
            batch.append(env)
        return batch


class _Sink:
    """RunSink for one run: turns kernel results into messages with parent_id = run id."""

    def __init__(self, session: Session, run_id: str, started: float) -> None:
        self.session, self.run_id, self.started = session, run_id, started

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.started) * 1000

    def status(self, state: str, detail: str | None = None) -> None:
        self.session.send(
            Status(
                type="status",
                run_id=self.run_id,
                state=state,  # type: ignore[arg-type]
                detail=detail,
                elapsed_ms=self.elapsed_ms(),
            ),
            self.run_id,
        )

    def stream(self, name: str, text: str) -> None:
        if text:
            self.session.send(
                Stream(
                    type="stream",
                    run_id=self.run_id,
                    name=name,  # type: ignore[arg-type]
                    text=text,
                ),
                self.run_id,
            )

    def display(self, image: Display) -> None:
        self.session.send(image, self.run_id)

    def card(self, card: TraceCard) -> None:
        self.session.send(
            TraceCardMessage(type="trace_card", run_id=self.run_id, card=card), self.run_id
        )

    def card_error(self, detail: str) -> None:
        self.session.error(
            "invalid_card", "a trace card could not be recorded", detail, self.run_id
        )


class Session:
    """One websocket connection's state."""

    def __init__(self, settings: Settings, manager: KernelManager, outbox: Outbox) -> None:
        self.settings, self.manager, self.outbox = settings, manager, outbox
        self.id = secrets.token_hex(8)
        self._ids = itertools.count(1)
        self.kernel: Kernel | None = None
        self._run_task: asyncio.Task[None] | None = None
        self._run_id: str | None = None
        self._cancel = asyncio.Event()
        self._idle: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ sending
    def send(self, msg: Any, parent_id: str | None) -> None:
        self.outbox.put(server_envelope(f"s-{next(self._ids)}", parent_id, msg))

    def error(self, code: str, message: str, detail: str | None, parent_id: str | None) -> None:
        self.send(
            ErrorMessage(type="error", code=code, message=message, detail=detail),  # type: ignore[arg-type]
            parent_id,
        )

    def welcome(self, parent_id: str | None) -> None:
        s = self.settings
        limits = Limits(
            max_code_bytes=s.max_code_bytes,
            run_timeout_s=s.run_timeout_s,
            max_output_bytes=s.max_output_bytes,
            max_message_bytes=s.max_message_bytes,
            max_cards=s.max_cards,
        )
        self.send(
            Welcome(
                type="welcome",
                session_id=self.id,
                server_version=SERVER_VERSION,
                sandbox=self.manager.sandbox_info(),
                limits=limits,
                engine=self.manager.engine_info,
                examples_url="/api/examples",
            ),
            parent_id,
        )

    # ------------------------------------------------------------------ dispatch
    async def handle(self, env: ClientEnvelope) -> None:
        msg = env.msg
        if msg.type == "hello":
            self.welcome(env.id)
        elif msg.type == "ping":
            self.send(Pong(type="pong"), env.id)
        elif msg.type == "run_request":
            self._start_run(env.id, msg)
        elif msg.type == "cancel_request":
            self._cancel_run(env.id, msg.run_id)

    def _start_run(self, run_id: str, req: RunRequest) -> None:
        size = len(req.code.encode("utf-8"))
        if size > self.settings.max_code_bytes:
            self.error(
                "code_too_large",
                f"code is {size} bytes; the limit is {self.settings.max_code_bytes}",
                None,
                run_id,
            )
        elif self._run_task is not None and not self._run_task.done():
            self.error("busy", f"run {self._run_id} is still in progress", None, run_id)
        elif self.manager.provisioner is None:
            self.error(
                "sandbox_unavailable", "this server does not run code", self.manager.reason, run_id
            )
        else:
            if self._idle is not None:
                self._idle.cancel()
            self._run_id = run_id
            self._cancel = asyncio.Event()
            self._run_task = asyncio.create_task(self._run(run_id, req))

    def _cancel_run(self, msg_id: str, run_id: str) -> None:
        if run_id != self._run_id or self._run_task is None or self._run_task.done():
            self.error("not_found", f"no active run {run_id}", None, msg_id)
            return
        self._cancel.set()
        if self.kernel is not None:
            self.kernel.cancel()

    # ------------------------------------------------------------------ runs
    def _clamped(self, settings: RunSettings) -> RunSettings:
        return settings.model_copy(
            update={
                "timeout_s": min(settings.timeout_s, self.settings.run_timeout_s),
                "max_cards": min(settings.max_cards, self.settings.max_cards),
            }
        )

    async def _run(self, run_id: str, req: RunRequest) -> None:
        sink = _Sink(self, run_id, time.monotonic())
        settings = self._clamped(req.settings)
        try:
            kernel = await self._kernel_for_run(sink)
            if kernel is None:
                outcome = RunOutcome(
                    "cancelled", _err("cancelled", "the run was cancelled"), 0, False
                )
            else:
                outcome = await kernel.execute(run_id, req.code, settings, sink, settings.timeout_s)
                await self._after_run(kernel, outcome)
        except (KernelStartError, SandboxUnavailable) as exc:
            outcome = RunOutcome("error", _err("kernel_crashed", f"no kernel: {exc}"), 0, False)
        except Exception as exc:  # the server must survive any bug in a run
            log.exception("run %s failed", run_id)
            outcome = RunOutcome("error", _err("internal", f"internal error: {exc}"), 0, False)
        self._finish(sink, outcome)

    async def _kernel_for_run(self, sink: _Sink) -> Kernel | None:
        """The session's kernel, or a new one; None if the run was cancelled meanwhile."""
        if self.kernel is not None and self.kernel.alive:
            return self.kernel
        if self.kernel is not None:
            await self.manager.release(self.kernel)
            self.kernel = None
        acquire = asyncio.create_task(self.manager.acquire(sink.status))
        cancelled = asyncio.create_task(self._cancel.wait())
        try:
            await asyncio.wait({acquire, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            acquire.add_done_callback(self._adopt_late_kernel)
            raise
        finally:
            cancelled.cancel()
        if not acquire.done():
            acquire.add_done_callback(self._adopt_late_kernel)
            return None
        self.kernel = acquire.result()
        return None if self._cancel.is_set() else self.kernel

    def _adopt_late_kernel(self, task: asyncio.Task[Kernel]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        kernel = task.result()
        if self.kernel is None and not self._closed:
            self.kernel = kernel
        else:
            asyncio.get_running_loop().create_task(self.manager.release(kernel))

    async def _after_run(self, kernel: Kernel, outcome: RunOutcome) -> None:
        if not outcome.kernel_usable or not kernel.alive or self.settings.kernel_reuse == "run":
            self.kernel = None
            await self.manager.release(kernel)
            return
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(self.settings.kernel_idle_s, self._release_idle, kernel)

    def _release_idle(self, kernel: Kernel) -> None:
        """An idle session gives its kernel (and slot) back; the next run gets a new one."""
        running = self._run_task is not None and not self._run_task.done()
        if self.kernel is kernel and not running:
            self.kernel = None
            asyncio.get_running_loop().create_task(self.manager.release(kernel))

    def _finish(self, sink: _Sink, outcome: RunOutcome) -> None:
        sink.status(outcome.state, outcome.error["message"][:200] if outcome.error else None)
        self.send(
            RunReply(
                type="run_reply",
                run_id=sink.run_id,
                ok=outcome.state == "done",
                duration_ms=sink.elapsed_ms(),
                n_cards=outcome.n_cards,
                error=outcome.error,
            ),
            sink.run_id,
        )

    _closed = False

    async def close(self) -> None:
        """Connection closed: stop the run and destroy the session's kernel."""
        self._closed = True
        if self._idle is not None:
            self._idle.cancel()
        if self._run_task is not None and not self._run_task.done():
            self._run_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._run_task
        if self.kernel is not None:
            kernel, self.kernel = self.kernel, None
            await self.manager.release(kernel)


def _err(kind: str, message: str) -> dict[str, Any]:
    return {"kind": kind, "exc_type": None, "message": message, "traceback": [], "user_line": None}
