"""A websocket session: answers client messages and runs programs, each in a fresh kernel.

Task tree (per connection):

    Session.handle(envelope)            called by the websocket reader for each valid frame
      └─ run task (one active)          acquire (queued: position in status) → execute →
           ├─ acquire task              final status + run_reply → release (destroy) the kernel
           └─ cancel wait               a cancel_request while queued takes the run out of
                                        the queue; while running it kills the kernel
    Outbox (app.outbox)                 bounded; the websocket writer drains it

A session never holds a kernel between runs: every run gets a fresh one from the warm pool and
the kernel is destroyed with its whole process tree when the run ends. Closing the connection
cancels a queued run before it can take a kernel, and destroys a running one.

Imports: the standard library, shared_schemas, app.config, app.logs, app.outbox, app.kernels.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from typing import Any

from app.config import Settings
from app.kernels.kernel import Kernel, KernelStartError, RunOutcome
from app.kernels.manager import KernelManager, QueueTimeout, SandboxUnavailable
from app.kernels.protocol import human_bytes
from app.logs import LogBudget
from app.outbox import Outbox
from shared_schemas import (
    CardUpdate,
    ClientEnvelope,
    Display,
    ErrorMessage,
    Limits,
    Pong,
    RunReply,
    RunRequest,
    RunSettings,
    Status,
    Stream,
    Welcome,
    server_envelope,
)

log = logging.getLogger("didax.session")
SERVER_VERSION = "0.1.0"
STREAM_PIECE_CHARS = 16 * 1024  # ≤ 64 KiB of UTF-8 per stream frame


class _Sink:
    """RunSink for one run: turns kernel results into messages with parent_id = run id."""

    def __init__(self, session: Session, run_id: str, started: float) -> None:
        self.session, self.run_id, self.started = session, run_id, started

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.started) * 1000

    def status(self, state: str, detail: str | None = None, position: int | None = None) -> None:
        msg = Status(
            type="status",
            run_id=self.run_id,
            state=state,  # type: ignore[arg-type]
            detail=detail,
            elapsed_ms=self.elapsed_ms(),
            queue_position=position,
        )
        self.session.send(msg, self.run_id)

    def queued(self, state: str, ahead: int) -> None:
        """The manager's queue report: waiting (with how many runs ahead) or starting."""
        if state == "starting":
            self.status("starting", "starting a fresh kernel")
        else:
            self.status("queued", f"waiting for a kernel, {ahead} ahead", ahead)

    def stream(self, name: str, text: str) -> None:
        for start in range(0, len(text), STREAM_PIECE_CHARS):
            piece = text[start : start + STREAM_PIECE_CHARS]
            msg = Stream(type="stream", run_id=self.run_id, name=name, text=piece)  # type: ignore[arg-type]
            self.session.send(msg, self.run_id)

    def display(self, image: Display) -> None:
        self.session.send(image, self.run_id)

    def next_id(self) -> str:
        return self.session.next_id()

    def card(self, frames: list[str]) -> None:
        """A validated card: its frame, or its trace_card_chunk frames (app.kernels.cards)."""
        self.session.outbox.put_frames(frames)

    def card_error(self, detail: str) -> None:
        self.session.error(
            "invalid_card", "a trace card could not be recorded", detail, self.run_id
        )

    def card_update(self, card_id: str, call_count: int) -> None:
        msg = CardUpdate(
            type="card_update", run_id=self.run_id, card_id=card_id, call_count=call_count
        )
        self.session.send(msg, self.run_id)

    async def wait_room(self) -> None:
        await self.session.outbox.wait_room()


class Session:
    """One websocket connection's state."""

    def __init__(
        self, settings: Settings, manager: KernelManager, outbox: Outbox, client: str
    ) -> None:
        self.settings, self.manager, self.outbox = settings, manager, outbox
        self.client = client
        self.id = secrets.token_hex(8)
        self._ids = itertools.count(1)
        self.kernel: Kernel | None = None
        self._run_id: str | None = None  # the active run (None once its run_reply is queued)
        self._tasks: set[asyncio.Task[None]] = set()
        self._cancel = asyncio.Event()
        self._logs = LogBudget(rate_per_s=1.0, burst=5, cap=30)

    # ------------------------------------------------------------------ sending
    def next_id(self) -> str:
        return f"s-{next(self._ids)}"

    def send(self, msg: Any, parent_id: str | None) -> None:
        self.outbox.put(server_envelope(self.next_id(), parent_id, msg))

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
        elif self._run_id is not None:
            self.error("busy", f"run {self._run_id} is still in progress", None, run_id)
        elif self.manager.provisioner is None:
            self.error(
                "sandbox_unavailable", "this server does not run code", self.manager.reason, run_id
            )
        else:
            self._run_id = run_id
            self._cancel = asyncio.Event()
            task = asyncio.create_task(self._run(run_id, req))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _cancel_run(self, msg_id: str, run_id: str) -> None:
        if self._run_id is None or run_id != self._run_id:
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
        kernel: Kernel | None = None
        try:
            try:
                kernel = await self._acquire(sink)
                if kernel is None:
                    outcome = _outcome("cancelled", "cancelled", "the run was cancelled")
                else:
                    outcome = await self._execute(kernel, run_id, req.code, settings, sink)
            except QueueTimeout as exc:
                outcome = _outcome(
                    "error", "queue_timeout", f"{exc}; the server is busy, try again"
                )
            except (KernelStartError, SandboxUnavailable) as exc:
                outcome = _outcome("error", "kernel_crashed", f"no kernel: {exc}")
            except Exception:  # the server must survive any bug in a run
                log.exception("session %s: a run failed", self.id)
                outcome = _outcome("error", "internal", "internal error")
            self._finish(sink, outcome)
        finally:
            if kernel is not None:  # one run per kernel: destroyed with its whole tree
                await self.manager.release(kernel)

    async def _acquire(self, sink: _Sink) -> Kernel | None:
        """A fresh kernel for the run, or None if it was cancelled while waiting."""
        acquire = asyncio.create_task(self.manager.acquire(self.client, sink.queued))
        cancelled = asyncio.create_task(self._cancel.wait())
        try:
            await asyncio.wait({acquire, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            cancelled.cancel()
            if not acquire.done():
                acquire.cancel()  # out of the queue; a kernel handed over meanwhile is destroyed
                with contextlib.suppress(asyncio.CancelledError):
                    await acquire
        if acquire.cancelled():
            return None
        kernel = acquire.result()
        if self._cancel.is_set():
            await self.manager.release(kernel)
            return None
        return kernel

    async def _execute(
        self, kernel: Kernel, run_id: str, code: str, settings: RunSettings, sink: _Sink
    ) -> RunOutcome:
        self.kernel = kernel
        try:
            return await kernel.execute(run_id, code, settings, sink, settings.timeout_s)
        finally:
            self.kernel = None
            if kernel.flood and self._logs.allow():
                log.warning(
                    "session %s slot %s: kernel killed: %s", self.id, kernel.slot, kernel.flood
                )

    def _finish(self, sink: _Sink, outcome: RunOutcome) -> None:
        self._run_id = None
        detail = outcome.error["message"][:200] if outcome.error else None
        if outcome.output_truncated:
            note = f"output truncated at {human_bytes(self.settings.max_output_bytes)}"
            detail = f"{note}; {detail}" if detail else note
        sink.status(outcome.state, detail)
        self.send(
            RunReply(
                type="run_reply",
                run_id=sink.run_id,
                ok=outcome.state == "done",
                duration_ms=sink.elapsed_ms(),
                n_cards=outcome.n_cards,
                error=outcome.error,
                output_truncated=outcome.output_truncated,
            ),
            sink.run_id,
        )
        if self._logs.allow():
            log.info(
                "session %s: run %s in %.0f ms, %d cards%s",
                self.id,
                outcome.state,
                sink.elapsed_ms(),
                outcome.n_cards,
                ", output truncated" if outcome.output_truncated else "",
            )

    async def close(self) -> None:
        """Connection closed: a queued run leaves the queue, a running one loses its kernel."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _outcome(state: str, kind: str, message: str) -> RunOutcome:
    error = {"kind": kind, "exc_type": None, "message": message, "traceback": [], "user_line": None}
    return RunOutcome(state, error, 0)
