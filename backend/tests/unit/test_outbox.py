"""The session outbox and frame chunking (unit)."""

from __future__ import annotations

import asyncio
import json

from app.outbox import Outbox, split_frame

from shared_schemas import ServerEnvelope, Stream, server_envelope


def _make(index: int, count: int, data: str) -> str:
    msg = {
        "type": "trace_card_chunk",
        "run_id": "c-1",
        "transfer_id": "s-1",
        "index": index,
        "count": count,
        "data": data,
    }
    frame = {"protocol_version": 2, "id": f"s-1.{index}", "parent_id": "c-1", "msg": msg}
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def test_split_frame_bounds_every_frame_and_joins_back_exactly():
    text = json.dumps({"t": 'quote"back\\slash\nnew 😀 ünï ' * 3000}, ensure_ascii=False)
    frames = split_frame(text, 4096, _make)
    assert len(frames) > 10
    assert all(len(f.encode()) <= 4096 for f in frames)
    chunks = [ServerEnvelope.model_validate_json(f).msg for f in frames]
    assert [c.index for c in chunks] == list(range(len(frames)))
    assert {c.count for c in chunks} == {len(frames)}
    assert "".join(c.data for c in chunks) == text


def _stream(text: str) -> ServerEnvelope:
    return server_envelope(
        "s-1", "c-1", Stream(type="stream", run_id="c-1", name="stdout", text=text)
    )


async def test_outbox_merges_streams_and_makes_producers_wait_when_full():
    box = Outbox(high_water=1000)
    box.put(_stream("a"))
    box.put(_stream("b"))
    frames, size = await box.take()
    assert [json.loads(f)["msg"]["text"] for f in frames] == ["ab"]
    box.sent(size)
    box.put_frames(["x" * 1500])
    waiting = asyncio.create_task(box.wait_room())
    await asyncio.sleep(0.05)
    assert not waiting.done()  # over the high-water mark: producers wait
    frames, size = await box.take()
    assert not waiting.done()  # taken but not yet written
    box.sent(size)
    await asyncio.wait_for(waiting, 1)
    assert box.bytes == 0
