"""One live kernel: wait for `ready`, execute runs, enforce the wall clock and output caps.

Task tree (per kernel, on the event loop):

    Kernel.start()
      ├─ _pump_ctl        control fd lines → parsed events → self._events (EOF → _Ended)
      ├─ _pump_raw(1)     raw stdout bytes → current run's sink (counted against the cap)
      └─ _pump_raw(2)     raw stderr bytes → current run's sink, or the server log
    Kernel.execute(run)   writes the request, consumes events until run_done, EOF (crash,
                          kill) or the deadline; any limit kills the whole process tree

Everything read from the kernel is hostile: lines are size-capped, events schema-checked, cards
validated against TraceCard before they reach a client, and a run budget caps control bytes.

Imports: the standard library, pydantic, shared_schemas, app.kernels.{protocol,provisioner}.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import signal
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ValidationError

from app.kernels.protocol import (
    ChannelOverflow,
    KCard,
    KCardError,
    KDisplay,
    KLog,
    KStatus,
    KStream,
    Ready,
    RunDone,
    encode_run,
    parse_event,
    read_line,
)
from app.kernels.provisioner import KernelProcess
from shared_schemas import MAX_DISPLAYS_PER_RUN, Display, RunError, RunSettings, TraceCard

log = logging.getLogger("didax.kernel")
KERNEL_STATES = {"tracing", "compiling", "running"}


class KernelStartError(Exception):
    """The kernel died or stayed silent before announcing `ready`."""


class RunSink(Protocol):
    """Where a run's results go (the session turns them into websocket messages)."""

    def status(self, state: str, detail: str | None = None) -> None: ...
    def stream(self, name: str, text: str) -> None: ...
    def display(self, image: Display) -> None: ...
    def card(self, card: TraceCard) -> None: ...
    def card_error(self, detail: str) -> None: ...


@dataclass
class RunOutcome:
    """How a run ended; `state` is the final status (done, error, timeout, cancelled)."""

    state: str
    error: dict[str, Any] | None
    n_cards: int
    kernel_usable: bool


@dataclass
class _Ended:
    reason: str


@dataclass
class _ActiveRun:
    run_id: str
    sink: RunSink
    max_cards: int
    output_bytes: int = 0
    ctl_bytes: int = 0
    n_cards: int = 0
    n_displays: int = 0
    limit: str | None = None
    cancelled: bool = False
    decoders: dict[str, Any] = field(default_factory=dict)


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"kind": kind, "exc_type": None, "message": message, "traceback": [], "user_line": None}


class Kernel:
    """A started kernel process and the run currently executing in it (at most one)."""

    def __init__(
        self,
        proc: KernelProcess,
        slot: int,
        max_output: int,
        ctl_run_bytes: int,
        ctl_line_bytes: int,
    ) -> None:
        self.proc, self.slot = proc, slot
        self.max_output, self.ctl_run_bytes = max_output, ctl_run_bytes
        self.ctl_line_bytes = ctl_line_bytes
        self.ready: Ready | None = None
        self.spawned_at = time.monotonic()
        self.ready_s: float | None = None
        self._events: asyncio.Queue[Any] = asyncio.Queue()
        self._run: _ActiveRun | None = None
        self._stderr_tail: deque[str] = deque(maxlen=20)
        self._tasks: list[asyncio.Task[None]] = []
        self.ended: str | None = None
        self.runs = 0

    @property
    def alive(self) -> bool:
        return self.ended is None and not self.proc.terminated

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._pump_ctl()),
            asyncio.create_task(self._pump_raw("stdout", self.proc.proc.stdout)),
            asyncio.create_task(self._pump_raw("stderr", self.proc.proc.stderr)),
        ]

    async def wait_ready(self, timeout_s: float) -> Ready:
        """Wait for the `ready` event; kills the kernel and raises on failure."""
        try:
            async with asyncio.timeout(timeout_s):
                while True:
                    event = await self._events.get()
                    if isinstance(event, Ready):
                        self.ready = event
                        self.ready_s = time.monotonic() - self.spawned_at
                        return event
                    if isinstance(event, _Ended):
                        raise KernelStartError(await self._exit_detail(event.reason))
        except TimeoutError:
            await self.kill()
            raise KernelStartError(f"no ready event within {timeout_s:.0f} s") from None
        except KernelStartError:
            await self.kill()
            raise

    async def _pump_ctl(self) -> None:
        reason = "eof"
        try:
            while True:
                line = await read_line(self.proc.ctl, self.ctl_line_bytes)
                if not line:
                    break
                if self._run is not None:
                    self._run.ctl_bytes += len(line)
                    if self._run.ctl_bytes > self.ctl_run_bytes:
                        raise ChannelOverflow(f"over {self.ctl_run_bytes} control bytes in a run")
                self._dispatch_line(line)
        except ChannelOverflow as exc:
            reason = f"control channel flood: {exc}"
            if self._run is not None:
                self._run.limit = "output_limit"
            await self.kill()
        finally:
            self.ended = self.ended or reason
            self._events.put_nowait(_Ended(reason))

    def _dispatch_line(self, line: bytes) -> None:
        try:
            event = parse_event(line)
        except ValueError as exc:
            log.warning("slot %s: %s", self.slot, exc)
            return
        if isinstance(event, KLog):
            log.info("slot %s kernel: %s", self.slot, event.text[:500])
        else:
            self._events.put_nowait(event)

    async def _pump_raw(self, name: str, reader: asyncio.StreamReader | None) -> None:
        if reader is None:
            return
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while chunk := await reader.read(65536):
            text = decoder.decode(chunk)
            if self._run is not None:
                self._output(name, text, self._run.run_id)
            elif name == "stderr":
                for line in text.splitlines():
                    self._stderr_tail.append(line[:500])
                    log.info("slot %s kernel stderr: %s", self.slot, line[:500])

    def _output(self, name: str, text: str, run_id: str) -> None:
        run = self._run
        if run is None or run_id != run.run_id or run.limit:
            return
        size = len(text.encode("utf-8", "replace"))
        if run.output_bytes + size > self.max_output:
            room = self.max_output - run.output_bytes
            if room > 0:
                run.sink.stream(
                    name, text.encode("utf-8", "replace")[:room].decode("utf-8", "ignore")
                )
            run.output_bytes = self.max_output
            run.limit = "output_limit"
            asyncio.get_running_loop().create_task(self.kill())
            return
        run.output_bytes += size
        run.sink.stream(name, text)

    async def execute(
        self, run_id: str, code: str, settings: RunSettings, sink: RunSink, timeout_s: float
    ) -> RunOutcome:
        """Run one program; returns when it is done, failed, timed out or was cancelled."""
        self.runs += 1
        self._run = run = _ActiveRun(run_id, sink, settings.max_cards)
        try:
            async with asyncio.timeout(timeout_s):
                stdin = self.proc.proc.stdin
                assert stdin is not None
                stdin.write(encode_run(run_id, code, settings))
                with contextlib.suppress(ConnectionError):
                    await stdin.drain()
                while True:
                    outcome = await self._next_outcome(run)
                    if outcome is not None:
                        return outcome
        except TimeoutError:
            await self.kill()
            msg = f"the run exceeded its {timeout_s:g} s wall-clock limit; the kernel was stopped"
            return RunOutcome("timeout", _error("timeout", msg), run.n_cards, False)
        finally:
            self._run = None

    async def _next_outcome(self, run: _ActiveRun) -> RunOutcome | None:
        event = await self._events.get()
        if isinstance(event, _Ended):
            return await self._ended_outcome(run, event)
        if run.cancelled:
            return None
        if isinstance(event, KStream):  # in order with cards and statuses (same queue)
            self._output(event.name, event.text, event.run_id)
        elif isinstance(event, KStatus) and event.run_id == run.run_id:
            if event.state in KERNEL_STATES:
                run.sink.status(event.state)
        elif isinstance(event, KDisplay) and event.run_id == run.run_id:
            self._display(run, event)
        elif isinstance(event, KCard) and event.run_id == run.run_id:
            self._card(run, event.card)
        elif isinstance(event, KCardError) and event.run_id == run.run_id:
            run.sink.card_error(event.detail[:2000])
        elif isinstance(event, RunDone) and event.run_id == run.run_id:
            return self._done_outcome(run, event)
        return None

    def _display(self, run: _ActiveRun, event: KDisplay) -> None:
        """Forward a figure, within the per-run count (the kernel already keeps to it)."""
        if run.n_displays >= MAX_DISPLAYS_PER_RUN:
            return
        try:
            image = Display.model_validate(event.model_dump())
        except ValidationError:
            log.warning("slot %s: dropped a display event that fails the schema", self.slot)
            return
        run.n_displays += 1
        run.sink.display(image)

    def _card(self, run: _ActiveRun, card: dict[str, Any]) -> None:
        if run.n_cards >= run.max_cards:
            return
        try:
            validated = TraceCard.model_validate(card)
        except ValidationError as exc:
            errors = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5]
            )
            run.sink.card_error(f"card {run.n_cards} does not match the TraceCard schema: {errors}")
            return
        run.n_cards += 1
        run.sink.card(validated)

    def _done_outcome(self, run: _ActiveRun, event: RunDone) -> RunOutcome:
        if event.ok:
            return RunOutcome("done", None, run.n_cards, True)
        try:
            error = RunError.model_validate(event.error).model_dump()
        except ValidationError:
            error = _error("internal", "the kernel reported an error in an unexpected shape")
        state = "cancelled" if error["kind"] == "cancelled" else "error"
        return RunOutcome(state, error, run.n_cards, True)

    async def _ended_outcome(self, run: _ActiveRun, event: _Ended) -> RunOutcome:
        if run.cancelled:
            return RunOutcome(
                "cancelled", _error("cancelled", "the run was cancelled"), run.n_cards, False
            )
        if run.limit == "output_limit":
            msg = (
                (f"the program's output exceeded {self.max_output} bytes; the kernel was stopped")
                if "flood" not in event.reason
                else ("the kernel flooded its control channel; it was stopped")
            )
            return RunOutcome("error", _error("output_limit", msg), run.n_cards, False)
        detail = await self._exit_detail(event.reason)
        if "SIGXCPU" in detail:
            msg = "the kernel used up its CPU-time budget (RLIMIT_CPU); it was stopped"
            return RunOutcome("timeout", _error("timeout", msg), run.n_cards, False)
        if self.proc.oom_killed():
            return RunOutcome(
                "error", _error("memory", f"out of memory: {detail}"), run.n_cards, False
            )
        return RunOutcome("error", _error("kernel_crashed", detail), run.n_cards, False)

    async def _exit_detail(self, reason: str) -> str:
        proc = self.proc.proc
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 2.0)
        rc = proc.returncode
        if rc is None:
            return f"the kernel stopped responding ({reason})"
        if rc < 0 or rc > 128:
            num = -rc if rc < 0 else rc - 128
            with contextlib.suppress(ValueError):
                return f"the kernel was killed by {signal.Signals(num).name}"
        tail = " | ".join(list(self._stderr_tail)[-3:])
        return f"the kernel exited with status {rc}" + (f": {tail}" if tail else "")

    def cancel(self) -> None:
        """Cancel the active run: the whole kernel is killed (the next run gets a fresh one)."""
        if self._run is not None:
            self._run.cancelled = True
        asyncio.get_running_loop().create_task(self.kill())

    async def kill(self) -> None:
        self.ended = self.ended or "killed"
        await self.proc.terminate()

    async def close(self) -> None:
        """Kill the process and stop the pump tasks."""
        await self.kill()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
