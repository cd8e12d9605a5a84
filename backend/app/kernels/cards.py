"""Trace cards from a kernel → validated websocket frames, within memory and frame bounds.

A card event is validated against TraceCard (the kernel is hostile), wrapped in its
`trace_card` envelope and, when that frame is over `max_frame_bytes`, cut into
`trace_card_chunk` frames (`card_frames`). Validating a card builds its pydantic model, about
15× the JSON in memory (a 13k-equation card: ~160 MB), and glibc keeps much of it after it is
freed. So where the work happens depends on the size:

    ≤ 256 KiB          on the event loop
    ≤ 1 MiB            in a worker thread (keeps the loop responsive)
    larger             in a worker process used for one card and then replaced, so the
                       server's own memory stays flat whatever size cards its kernels send

Imports: the standard library, pydantic (via protocol), shared_schemas, app.outbox,
app.kernels.protocol.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from app.kernels.protocol import parse_card
from app.outbox import split_frame
from shared_schemas import PROTOCOL_VERSION, TraceCardMessage, server_envelope

THREAD_BYTES = 256 * 1024
PROCESS_BYTES = 1 << 20


def card_frames(data: bytes, run_id: str, transfer_id: str, frame_bytes: int) -> list[str]:
    """Validate a trace_card event; its frame, or its chunk frames. ValueError: invalid."""
    event = parse_card(data)
    msg = TraceCardMessage(type="trace_card", run_id=run_id, card=event.card)
    text = server_envelope(transfer_id, run_id, msg).model_dump_json()
    del event, msg
    if len(text.encode("utf-8")) <= frame_bytes:
        return [text]

    def make(index: int, count: int, piece: str) -> str:
        chunk = {
            "type": "trace_card_chunk",
            "run_id": run_id,
            "transfer_id": transfer_id,
            "index": index,
            "count": count,
            "data": piece,
        }
        frame = {
            "protocol_version": PROTOCOL_VERSION,
            "id": f"{transfer_id}.{index}",
            "parent_id": run_id,
            "msg": chunk,
        }
        return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))

    return split_frame(text, frame_bytes, make)


class CardFramer:
    """Runs `card_frames` where its size says (see the module docstring)."""

    def __init__(self, frame_bytes: int) -> None:
        self.frame_bytes = frame_bytes
        self._pool: ProcessPoolExecutor | None = None

    async def frames(self, data: bytes, run_id: str, transfer_id: str) -> list[str]:
        args = (data, run_id, transfer_id, self.frame_bytes)
        if len(data) <= THREAD_BYTES:
            return card_frames(*args)
        if len(data) <= PROCESS_BYTES:
            return await asyncio.to_thread(card_frames, *args)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), card_frames, *args)
        except BrokenProcessPool:
            self.close()
            raise ValueError("the card could not be checked (its validator died)") from None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                max_tasks_per_child=1,
            )
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
