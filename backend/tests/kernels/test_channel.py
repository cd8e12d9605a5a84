"""The control channel as hostile input (unit, no processes): every bound holds whether or not
a run consumes the events, and crossing one is reported as a flood."""

from __future__ import annotations

import asyncio
import json

import pytest
from app.kernels.channel import ChannelLimits, ControlChannel, Ended, EventQueue, RawCard
from app.kernels.protocol import KDisplay, KStream, RunDone

LIMITS = ChannelLimits(
    line_bytes=4096,
    event_bytes=64 << 10,
    display_bytes=32 << 10,
    queue_bytes=8192,
    kernel_bytes=1 << 20,
)


def _channel(limits: ChannelLimits = LIMITS) -> tuple[asyncio.StreamReader, ControlChannel]:
    reader = asyncio.StreamReader(limit=limits.line_bytes)
    return reader, ControlChannel(reader, limits, slot=0)


def _line(event: dict) -> bytes:
    return (json.dumps(event, separators=(",", ":")) + "\n").encode()


def _stream(text: str, rid: str = "r") -> bytes:
    return _line({"type": "stream", "run_id": rid, "name": "stdout", "text": text})


async def _drain(channel: ControlChannel) -> list:
    items = []
    while not items or not isinstance(items[-1], Ended):
        items.append(await asyncio.wait_for(channel.queue.get(), 5))
    return items


async def test_events_parse_and_forged_or_malformed_lines_are_dropped():
    reader, channel = _channel()
    task = asyncio.create_task(channel.pump())
    reader.feed_data(_stream("hi"))
    reader.feed_data(b"not json\n")
    reader.feed_data(_line({"type": "format_disk"}))
    reader.feed_data(_line({"type": "log", "text": "never queued"}))
    reader.feed_data(_line({"type": "run_done", "run_id": "r", "ok": True}))
    reader.feed_eof()
    items = await _drain(channel)
    await task
    assert [type(i) for i in items] == [KStream, RunDone, Ended]
    assert items[-1].flood is None and channel.bad_lines == 2


async def test_a_line_over_the_cap_is_a_flood():
    reader, channel = _channel()
    task = asyncio.create_task(channel.pump())
    reader.feed_data(b"z" * 10_000)
    items = await _drain(channel)
    await task
    assert "a control line over 4 KiB" in items[-1].flood


async def test_the_lifetime_budget_counts_even_when_nobody_consumes():
    limits = ChannelLimits(4096, 64 << 10, 32 << 10, queue_bytes=1 << 30, kernel_bytes=50_000)
    reader, channel = _channel(limits)
    task = asyncio.create_task(channel.pump())
    for _ in range(100):
        reader.feed_data(_stream("x" * 1000))
    await asyncio.wait_for(task, 5)  # ends by itself: no consumer needed
    assert channel.total_bytes > 50_000
    items = await _drain(channel)
    assert "over 48.8 KiB on the control channel" in items[-1].flood


async def test_a_full_queue_stops_the_reader_instead_of_growing():
    reader, channel = _channel()
    task = asyncio.create_task(channel.pump())
    for _ in range(200):
        reader.feed_data(_stream("y" * 1000))
    await asyncio.sleep(0.2)
    # the queue holds at most its bound plus one event; the rest waits in the pipe
    assert channel.queue.bytes <= LIMITS.queue_bytes + 1100
    assert len(channel.queue) < 20
    got = 0
    while got < 200:
        item = await asyncio.wait_for(channel.queue.get(), 5)
        got += isinstance(item, KStream)
    reader.feed_eof()
    await asyncio.wait_for(task, 5)


async def test_parts_make_one_card_event_within_its_limit():
    reader, channel = _channel()
    task = asyncio.create_task(channel.pump())
    card = json.dumps({"type": "trace_card", "run_id": "r", "card": {"pad": "c" * 20_000}})
    for start in range(0, len(card), 3000):
        more = start + 3000 < len(card)
        reader.feed_data(_line({"type": "part", "data": card[start : start + 3000], "more": more}))
    reader.feed_eof()
    items = await _drain(channel)
    await task
    assert isinstance(items[0], RawCard) and items[0].data == card.encode()
    assert items[-1].flood is None


async def test_a_figure_longer_than_a_line_arrives_in_parts():
    reader, channel = _channel()
    task = asyncio.create_task(channel.pump())
    figure = {"type": "display", "run_id": "r", "mime": "image/png", "data": "iVBO" * 5000}
    text = json.dumps({**figure, "width": 10, "height": 10, "alt": ""})
    for start in range(0, len(text), 3000):
        more = start + 3000 < len(text)
        reader.feed_data(_line({"type": "part", "data": text[start : start + 3000], "more": more}))
    reader.feed_eof()
    items = await _drain(channel)
    await task
    assert isinstance(items[0], KDisplay) and len(items[0].data) == 20_000
    assert items[-1].flood is None


@pytest.mark.parametrize(
    ("event", "limit"),
    [
        ({"type": "trace_card", "run_id": "r", "card": "c" * 80_000}, "64 KiB"),
        ({"type": "stream", "run_id": "r", "name": "stdout", "text": "s" * 6000}, "4 KiB"),
        ({"type": "display", "run_id": "r", "data": "d" * 40_000}, "32 KiB"),
    ],
)
async def test_parts_beyond_the_event_limit_are_a_flood(event, limit):
    reader, channel = _channel()
    task = asyncio.create_task(channel.pump())
    text = json.dumps(event, separators=(",", ":"))
    for start in range(0, len(text), 1000):
        reader.feed_data(_line({"type": "part", "data": text[start : start + 1000], "more": True}))
    items = await _drain(channel)
    await task
    assert items[-1].flood == f"an event over {limit}"


async def test_event_queue_bounds_bytes():
    queue = EventQueue(100)
    await queue.put("a", 60)
    await queue.put("b", 60)  # allowed: the queue was under its bound
    blocked = asyncio.create_task(queue.put("c", 10))
    await asyncio.sleep(0.05)
    assert not blocked.done() and queue.bytes == 120
    assert await queue.get() == "a"
    await asyncio.wait_for(blocked, 1)
    assert [await queue.get(), await queue.get()] == ["b", "c"]
