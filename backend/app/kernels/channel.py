"""The kernel's control channel, read as hostile input with every resource bounded at all times.

Task tree (one per kernel, from spawn to teardown, whether or not a run is active):

    ControlChannel.pump()   line (≤ ctl_line_bytes) → `part`s reassembled (a trace card ≤
                            max_card_bytes, a display ≤ its 1 MiB of data, any other event ≤
                            a line) → header → EventQueue (≤ ctl_queue_bytes; when full
                            the pump stops reading, so the pipe fills and the kernel blocks)
                            … EOF or overflow → `Ended` (always the last item)

Bounds: the StreamReader buffers at most ~2 lines, the queue `ctl_queue_bytes` plus one event,
a reassembly one event; every byte the kernel writes in its life counts against
`ctl_kernel_bytes` (its output allowance, card budget and figures with room for escaping). Crossing any
of these is a flood: the pump stops and reports it, and the kernel's owner kills the kernel.
`log` events and malformed lines never reach the queue; they go to DEBUG, escaped and under a
LogBudget.

Imports: the standard library, app.logs, app.kernels.protocol.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from dataclasses import dataclass
from typing import Any

from app.kernels.protocol import (
    ChannelOverflow,
    KLog,
    KPart,
    human_bytes,
    parse_event,
    parse_header,
    read_line,
)
from app.logs import LogBudget, cut

log = logging.getLogger("didax.kernel")
PART_START = re.compile(rb'\{\s*"type"\s*:\s*"part"')
DISPLAY_START = re.compile(rb'\{\s*"type"\s*:\s*"display"')
CARD_START = re.compile(rb'\{\s*"type"\s*:\s*"trace_card"')


@dataclass(frozen=True)
class ChannelLimits:
    line_bytes: int
    event_bytes: int
    display_bytes: int
    queue_bytes: int
    kernel_bytes: int


@dataclass
class Ended:
    """The channel is closed: EOF (`flood` None) or a bound was crossed (`flood` says which)."""

    flood: str | None = None


@dataclass
class RawCard:
    """A trace_card event as the kernel sent it; validated by the run's consumer."""

    run_id: str
    data: bytes


class EventQueue:
    """FIFO bounded in bytes: `put` waits while the queue holds `max_bytes` or more."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: deque[tuple[Any, int]] = deque()
        self._nonempty = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()

    def __len__(self) -> int:
        return len(self._items)

    async def put(self, item: Any, size: int) -> None:
        while self.bytes >= self.max_bytes:
            self._room.clear()
            await self._room.wait()
        self.put_nowait(item, size)

    def put_nowait(self, item: Any, size: int = 0) -> None:
        self._items.append((item, size))
        self.bytes += size
        self._nonempty.set()

    async def get(self) -> Any:
        while not self._items:
            self._nonempty.clear()
            await self._nonempty.wait()
        item, size = self._items.popleft()
        self.bytes -= size
        if self.bytes < self.max_bytes:
            self._room.set()
        return item


class ControlChannel:
    """Reads one kernel's control fd into an EventQueue, within its limits."""

    def __init__(self, reader: asyncio.StreamReader, limits: ChannelLimits, slot: int) -> None:
        self.reader, self.limits, self.slot = reader, limits, slot
        self.queue = EventQueue(limits.queue_bytes)
        self.total_bytes = 0
        self.bad_lines = 0
        self._parts: list[bytes] = []
        self._parts_bytes = 0
        self._logs = LogBudget()

    async def pump(self) -> None:
        """Read until EOF or a flood; the last item queued is always an `Ended`."""
        flood = None
        try:
            while line := await read_line(self.reader, self.limits.line_bytes):
                self.total_bytes += len(line)
                if self.total_bytes > self.limits.kernel_bytes:
                    raise ChannelOverflow(
                        f"over {human_bytes(self.limits.kernel_bytes)} on the control channel"
                    )
                event = self._assemble(line)
                if event is not None:
                    await self._dispatch(event)
        except ChannelOverflow as exc:
            flood = str(exc)
        except (ConnectionError, OSError) as exc:
            flood = None
            log.debug("slot %s: control channel closed: %s", self.slot, exc)
        finally:
            self.queue.put_nowait(Ended(flood))
            self._debug_summary()

    def _assemble(self, line: bytes) -> bytes | None:
        """The line, or (for `part` lines) the whole event once its last part arrived."""
        if not self._parts and PART_START.match(line) is None:
            return line
        try:
            part = KPart.model_validate_json(line)
        except ValueError:
            self._bad("a line inside a multi-part event is not a part")
            self._parts, self._parts_bytes = [], 0
            return None
        data = part.data.encode("utf-8")
        self._parts_bytes += len(data)
        limit = self._event_limit(self._parts[0] if self._parts else data)
        if self._parts_bytes > limit:
            raise ChannelOverflow(f"an event over {human_bytes(limit)}")
        self._parts.append(data)
        if part.more:
            return None
        whole, self._parts, self._parts_bytes = b"".join(self._parts), [], 0
        return whole

    def _event_limit(self, start: bytes) -> int:
        """How long an event starting with `start` may be once its parts are joined."""
        if CARD_START.match(start):
            return self.limits.event_bytes
        if DISPLAY_START.match(start):
            return self.limits.display_bytes
        return self.limits.line_bytes

    async def _dispatch(self, line: bytes) -> None:
        try:
            header = parse_header(line)
            if header.type == "trace_card" and header.run_id is not None:
                await self.queue.put(RawCard(header.run_id, line), len(line))
                return
            event = parse_event(line)
        except ValueError as exc:
            self._bad(str(exc))
            return
        if isinstance(event, KLog):
            if self._logs.allow():
                log.debug("slot %s kernel log: %s", self.slot, cut(event.text))
            return
        await self.queue.put(event, len(line))

    def _bad(self, why: str) -> None:
        self.bad_lines += 1
        if self._logs.allow():
            log.debug("slot %s: %s", self.slot, cut(why))

    def _debug_summary(self) -> None:
        if self._logs.suppressed:
            log.debug(
                "slot %s: %d kernel log lines suppressed (%d malformed lines, %d bytes)",
                self.slot,
                self._logs.suppressed,
                self.bad_lines,
                self.total_bytes,
            )
