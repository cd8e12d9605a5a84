"""What a session sends: an outbox bounded in bytes, and large frames cut into chunks.

The websocket writer drains the Outbox in order, merging consecutive chunks of one stream.
While the outbox holds more than its high-water mark (a client that reads slowly or not at
all), producers wait in `wait_room()`: the run's event consumer stops, the kernel's control
channel fills and the kernel blocks, and the reader stops reading the client's frames. So a
session's memory is bounded whatever its client or its kernel do.

A `trace_card` frame longer than `max_frame_bytes` goes out as `trace_card_chunk` frames, each
within the limit, whose `data` concatenate to the whole frame's JSON text (`split_frame`).

Imports: the standard library, shared_schemas.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable

from shared_schemas import Display, ServerEnvelope, Stream

MAX_STREAM_CHUNK = 64 * 1024
SMALL_MESSAGE_BYTES = 512  # what a status, error or reply is counted as before it is serialised


def _json_len(text: str) -> int:
    """UTF-8 size of `text` as a JSON string body (quotes excluded)."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) - 2


def split_frame(text: str, frame_bytes: int, make: Callable[[int, int, str], str]) -> list[str]:
    """Cut `text` into pieces so that every `make(index, count, piece)` is ≤ frame_bytes
    UTF-8 bytes; returns those frames. Pieces end on code points (never inside a character)."""
    overhead = len(make(10**6, 10**6, "").encode("utf-8"))
    budget = frame_bytes - overhead
    if budget < 64:
        raise ValueError(f"frame limit {frame_bytes} leaves no room for data")
    pieces: list[str] = []
    start = 0
    while start < len(text):
        n = budget
        while True:
            size = _json_len(text[start : start + n])
            if size <= budget:
                break
            n = max(1, min(n - 1, int(n * budget / size * 0.98)))
        pieces.append(text[start : start + n])
        start += n
    return [make(i, len(pieces), piece) for i, piece in enumerate(pieces)]


class Outbox:
    """Server frames waiting to be sent, in order, bounded by `high_water` bytes."""

    def __init__(self, high_water: int) -> None:
        self.high_water = high_water
        self.bytes = 0
        self._items: deque[tuple[ServerEnvelope | str, int]] = deque()
        self._ready = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()

    def put(self, env: ServerEnvelope) -> None:
        msg = env.msg
        if isinstance(msg, Stream):
            size = len(msg.text)
        elif isinstance(msg, Display):
            size = len(msg.data)
        else:
            size = SMALL_MESSAGE_BYTES
        self._push(env, size)

    def put_frames(self, frames: list[str]) -> None:
        """Frames already serialised (a card, or its chunks)."""
        for frame in frames:
            self._push(frame, len(frame))

    def _push(self, item: ServerEnvelope | str, size: int) -> None:
        self._items.append((item, size))
        self.bytes += size
        if self.bytes > self.high_water:
            self._room.clear()
        self._ready.set()

    async def wait_room(self) -> None:
        """Wait while the outbox holds more than its high-water mark."""
        while self.bytes > self.high_water:
            await self._room.wait()

    async def take(self) -> tuple[list[str], int]:
        """Everything queued as frame texts (consecutive chunks of one stream merged), and
        the bytes to hand back with `sent()` once they are written."""
        await self._ready.wait()
        self._ready.clear()
        batch: list[ServerEnvelope | str] = []
        taken = 0
        while self._items:
            item, size = self._items.popleft()
            taken += size
            prev = batch[-1] if batch else None
            if _mergeable(prev, item):
                prev.msg.text += item.msg.text  # type: ignore[union-attr]
                continue
            batch.append(item)
        return [i if isinstance(i, str) else i.model_dump_json() for i in batch], taken

    def sent(self, size: int) -> None:
        self.bytes -= size
        if self.bytes <= self.high_water:
            self._room.set()


def _mergeable(prev: ServerEnvelope | str | None, env: ServerEnvelope | str) -> bool:
    if not isinstance(prev, ServerEnvelope) or not isinstance(env, ServerEnvelope):
        return False
    a, b = prev.msg, env.msg
    return (
        isinstance(a, Stream)
        and isinstance(b, Stream)
        and a.run_id == b.run_id
        and a.name == b.name
        and len(a.text) + len(b.text) <= MAX_STREAM_CHUNK
    )
