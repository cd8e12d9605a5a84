"""One live kernel: wait for `ready`, execute its one run, enforce the wall clock and caps.

Task tree (per kernel, on the event loop):

    Kernel.start()
      ├─ ControlChannel.pump   control fd → bounded EventQueue (app.kernels.channel)
      ├─ _pump_raw(stdout)     raw fd 1 bytes → the run's sink (within the output allowance)
      └─ _pump_raw(stderr)     raw fd 2 bytes → the run's sink, or DEBUG (escaped, budgeted)
    Kernel.execute(run)        sends the request, consumes events until the channel ends, then
                               waits for the process to exit: the run ends when the server sees
                               the kernel finish (or kills it: deadline, cancel, flood), never on
                               an event (`run_done` only describes the outcome; the last wins)

A kernel serves exactly one run (the manager destroys it afterwards). Everything read from it
is hostile: the control channel is bounded at all times (channel.py), cards are validated
against TraceCard and framed (cards.py: large ones off the event loop and out of the server's
memory) before they reach a client, and output over the allowance is dropped, not fatal: the
run says it was truncated.

Imports: the standard library, pydantic, shared_schemas, app.logs, app.kernels.{channel,
protocol,provisioner}.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import signal
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError

from app.kernels.cards import CardFramer
from app.kernels.channel import ChannelLimits, ControlChannel, Ended, RawCard
from app.kernels.protocol import (
    KCardError,
    KCardUpdate,
    KDisplay,
    KOutputTruncated,
    KStatus,
    KStream,
    Ready,
    RunDone,
    encode_run,
    human_bytes,
)
from app.kernels.provisioner import KernelProcess
from app.logs import LogBudget, cut
from shared_schemas import MAX_DISPLAY_DATA, MAX_DISPLAYS_PER_RUN, Display, RunError, RunSettings

log = logging.getLogger("didax.kernel")
KERNEL_STATES = {"tracing", "compiling", "running"}


class KernelStartError(Exception):
    """The kernel died or stayed silent before announcing `ready`."""


class RunSink(Protocol):
    """Where a run's results go (the session turns them into websocket messages)."""

    def status(self, state: str, detail: str | None = None) -> None: ...
    def stream(self, name: str, text: str) -> None: ...
    def display(self, image: Display) -> None: ...
    def next_id(self) -> str: ...
    def card(self, frames: list[str]) -> None: ...
    def card_error(self, detail: str) -> None: ...
    def card_update(self, card_id: str, call_count: int) -> None: ...
    async def wait_room(self) -> None: ...


@dataclass(frozen=True)
class KernelLimits:
    """Per-kernel caps (from Settings)."""

    max_output: int
    max_card_bytes: int
    max_cards_bytes: int
    channel: ChannelLimits

    @classmethod
    def from_settings(cls, s: Any) -> KernelLimits:
        channel = ChannelLimits(
            line_bytes=s.ctl_line_bytes,
            event_bytes=s.max_card_bytes + (64 << 10),
            display_bytes=MAX_DISPLAY_DATA + (64 << 10),
            queue_bytes=s.ctl_queue_bytes,
            kernel_bytes=s.ctl_kernel_bytes,
        )
        return cls(s.max_output_bytes, s.max_card_bytes, s.max_cards_bytes, channel)

    def for_kernel(self) -> dict[str, int]:
        """The limits the kernel enforces on itself (the server enforces them again)."""
        return {
            "max_output_bytes": self.max_output,
            "max_card_bytes": self.max_card_bytes,
            "max_cards_bytes": self.max_cards_bytes,
        }


@dataclass
class RunOutcome:
    """How a run ended; `state` is the final status (done, error, timeout, cancelled)."""

    state: str
    error: dict[str, Any] | None
    n_cards: int
    output_truncated: bool = False


@dataclass
class _ActiveRun:
    run_id: str
    sink: RunSink
    max_cards: int
    output_bytes: int = 0
    truncated: bool = False
    n_cards: int = 0
    n_displays: int = 0
    state: str = "running"
    cancelled: bool = False
    reported: RunDone | None = None


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"kind": kind, "exc_type": None, "message": message, "traceback": [], "user_line": None}


def _clamped(error: dict[str, Any]) -> dict[str, Any]:
    """A RunError the kernel reported, cut to sizes that keep the run_reply frame small."""
    error["message"] = error["message"][:4000]
    error["exc_type"] = error["exc_type"] and error["exc_type"][:200]
    frames = error["traceback"][-60:]
    for frame in frames:
        frame["filename"], frame["name"] = frame["filename"][:300], frame["name"][:200]
        frame["line"] = frame["line"] and frame["line"][:400]
    error["traceback"] = frames
    return error


class Kernel:
    """A started kernel process and its one run."""

    def __init__(
        self, proc: KernelProcess, slot: int, limits: KernelLimits, cards: CardFramer
    ) -> None:
        self.proc, self.slot, self.limits, self.cards = proc, slot, limits, cards
        self.channel = ControlChannel(proc.ctl, limits.channel, slot)
        self.ready: Ready | None = None
        self.spawned_at = time.monotonic()
        self.ready_s: float | None = None
        self.client: str | None = None  # set by the manager when it hands the kernel out
        self.used = False
        self.flood: str | None = None
        self._run: _ActiveRun | None = None
        self._stderr_tail: deque[str] = deque(maxlen=20)
        self._tasks: list[asyncio.Task[None]] = []
        self._raw_tasks: list[asyncio.Task[None]] = []
        self._logs = LogBudget()

    @property
    def alive(self) -> bool:
        proc = self.proc
        return self.flood is None and not proc.killed and proc.returncode is None

    def start(self) -> None:
        self._raw_tasks = [
            asyncio.create_task(self._pump_raw("stdout", self.proc.proc.stdout)),
            asyncio.create_task(self._pump_raw("stderr", self.proc.proc.stderr)),
        ]
        self._tasks = [asyncio.create_task(self.channel.pump()), *self._raw_tasks]

    async def wait_ready(self, timeout_s: float) -> Ready:
        """Wait for the `ready` event; kills the kernel and raises on failure."""
        try:
            async with asyncio.timeout(timeout_s):
                while True:
                    event = await self.channel.queue.get()
                    if isinstance(event, Ready):
                        self.ready = event
                        self.ready_s = time.monotonic() - self.spawned_at
                        return event
                    if isinstance(event, Ended):
                        raise KernelStartError(await self._exit_detail(event.flood or "eof"))
        except TimeoutError:
            await self.kill()
            raise KernelStartError(f"no ready event within {timeout_s:.0f} s") from None
        except KernelStartError:
            await self.kill()
            raise

    # ------------------------------------------------------------------ the run
    async def execute(
        self, run_id: str, code: str, settings: RunSettings, sink: RunSink, timeout_s: float
    ) -> RunOutcome:
        """Run one program; returns when the kernel has exited or was stopped."""
        if self.used:
            raise RuntimeError("a kernel serves one run only")
        self.used = True
        self._run = run = _ActiveRun(run_id, sink, settings.max_cards)
        try:
            async with asyncio.timeout(timeout_s):
                await self._send_request(run_id, code, settings)
                await self._consume(run)
                if self.flood is None and not run.cancelled:
                    await self.proc.proc.wait()  # the boundary: the kernel finished
                    await self._drain_raw()
        except TimeoutError:
            await self.kill()
            msg = f"the run exceeded its {timeout_s:g} s wall-clock limit; the kernel was stopped"
            return RunOutcome("timeout", _error("timeout", msg), run.n_cards, run.truncated)
        finally:
            self._run = None
        return await self._outcome(run)

    async def _send_request(self, run_id: str, code: str, settings: RunSettings) -> None:
        stdin = self.proc.proc.stdin
        assert stdin is not None
        stdin.write(encode_run(run_id, code, settings, self.limits.for_kernel()))
        with contextlib.suppress(ConnectionError):
            await stdin.drain()
        stdin.close()  # one run: nothing more will come

    async def _consume(self, run: _ActiveRun) -> None:
        """Handle events until the channel ends (EOF, or a flood: then kill the kernel)."""
        while True:
            await run.sink.wait_room()
            item = await self.channel.queue.get()
            if isinstance(item, Ended):
                if item.flood is not None:
                    self.flood = item.flood
                    await self.kill()
                return
            if not run.cancelled:
                await self._handle(run, item)

    async def _handle(self, run: _ActiveRun, item: Any) -> None:
        if isinstance(item, RawCard):
            if item.run_id == run.run_id:
                await self._card(run, item)
            return
        if getattr(item, "run_id", None) != run.run_id:
            return  # `ready`, or an event naming another run: forged, ignored
        if isinstance(item, KStream):  # in order with cards and statuses (same queue)
            self._output(run, item.name, item.text)
        elif isinstance(item, KOutputTruncated):
            self._truncated(run)
        elif isinstance(item, KDisplay):
            self._display(run, item)
        elif isinstance(item, KStatus) and item.state in KERNEL_STATES:
            run.state = item.state
            run.sink.status(item.state)
        elif isinstance(item, KCardError):
            run.sink.card_error(item.detail[:2000])
        elif isinstance(item, KCardUpdate):
            run.sink.card_update(item.card_id, item.call_count)
        elif isinstance(item, RunDone):
            run.reported = item

    async def _card(self, run: _ActiveRun, raw: RawCard) -> None:
        if run.n_cards >= run.max_cards:
            return
        try:
            frames = await self.cards.frames(raw.data, run.run_id, run.sink.next_id())
        except ValueError as exc:
            run.sink.card_error(f"card {run.n_cards} does not match the TraceCard schema: {exc}")
            return
        run.n_cards += 1
        run.sink.card(frames)

    def _display(self, run: _ActiveRun, event: KDisplay) -> None:
        """Forward a figure, within the per-run count (the kernel already keeps to it)."""
        if run.n_displays >= MAX_DISPLAYS_PER_RUN:
            return
        try:
            image = Display.model_validate(event.model_dump())
        except ValidationError:
            run.sink.card_error("a figure did not match the display schema; it was dropped")
            return
        run.n_displays += 1
        run.sink.display(image)

    def _output(self, run: _ActiveRun, name: str, text: str) -> None:
        if run.truncated or not text:
            return
        data = text.encode("utf-8", "replace")
        room = self.limits.max_output - run.output_bytes
        if len(data) <= room:
            run.output_bytes += len(data)
            run.sink.stream(name, text)
            return
        kept = data[:room].decode("utf-8", "ignore")
        if kept:
            run.sink.stream(name, kept)
        run.output_bytes = self.limits.max_output
        self._truncated(run)

    def _truncated(self, run: _ActiveRun) -> None:
        if not run.truncated:
            run.truncated = True
            run.sink.status(run.state, self.truncation_note())

    def truncation_note(self) -> str:
        return f"output truncated at {human_bytes(self.limits.max_output)}"

    # ------------------------------------------------------------------ raw fds
    async def _pump_raw(self, name: str, reader: asyncio.StreamReader | None) -> None:
        if reader is None:
            return
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while chunk := await reader.read(1 << 16):
            text = decoder.decode(chunk)
            run = self._run
            if run is not None and not run.cancelled:
                await run.sink.wait_room()
                self._output(run, name, text)
            elif name == "stderr":
                for line in text.splitlines():
                    self._stderr_tail.append(line[:500])
                    if self._logs.allow():
                        log.debug("slot %s kernel stderr: %s", self.slot, cut(line))

    async def _drain_raw(self) -> None:
        """After the exit: the rest of fds 1 and 2 (they reach EOF with the process)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._raw_tasks), 2.0)

    # ------------------------------------------------------------------ outcome
    async def _outcome(self, run: _ActiveRun) -> RunOutcome:
        n, truncated = run.n_cards, run.truncated
        if self.flood is not None:
            msg = f"the kernel flooded its control channel ({self.flood}); it was stopped"
            return RunOutcome("error", _error("output_limit", msg), n, truncated)
        if run.cancelled:
            return RunOutcome(
                "cancelled", _error("cancelled", "the run was cancelled"), n, truncated
            )
        rc = self.proc.returncode
        if rc == 0 and run.reported is not None:
            return self._reported_outcome(run, run.reported)
        if rc == 0:
            msg = "the kernel exited without reporting a result"
            return RunOutcome("error", _error("kernel_crashed", msg), n, truncated)
        detail = await self._exit_detail("eof")
        if "SIGXCPU" in detail:
            msg = "the kernel used up its CPU-time budget (RLIMIT_CPU); it was stopped"
            return RunOutcome("timeout", _error("timeout", msg), n, truncated)
        if self.proc.oom_killed():
            return RunOutcome("error", _error("memory", f"out of memory: {detail}"), n, truncated)
        return RunOutcome("error", _error("kernel_crashed", detail), n, truncated)

    def _reported_outcome(self, run: _ActiveRun, event: RunDone) -> RunOutcome:
        if event.ok:
            return RunOutcome("done", None, run.n_cards, run.truncated)
        try:
            error = _clamped(RunError.model_validate(event.error).model_dump())
        except ValidationError:
            error = _error("internal", "the kernel reported an error in an unexpected shape")
        state = "cancelled" if error["kind"] == "cancelled" else "error"
        return RunOutcome(state, error, run.n_cards, run.truncated)

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

    # ------------------------------------------------------------------ teardown
    def cancel(self) -> None:
        """Cancel the run: the whole kernel is killed."""
        if self._run is not None:
            self._run.cancelled = True
        asyncio.get_running_loop().create_task(self.kill())

    async def kill(self) -> None:
        """Stop the kernel now; the teardown (reaping, cgroup removal) is `close`'s."""
        self.proc.kill_tree()

    async def close(self) -> None:
        """Kill the process tree, clean up after it and stop the pump tasks."""
        await self.proc.terminate()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
