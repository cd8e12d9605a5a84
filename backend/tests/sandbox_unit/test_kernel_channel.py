"""The kernel's side of the control channel (unit): long events leave in parts that the
server's ControlChannel puts back together, and output stops at the allowance."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from app.kernels.channel import ChannelLimits, ControlChannel, Ended, RawCard
from app.kernels.protocol import KOutputTruncated, KStream
from sandbox.runner import PART_CHARS, Channel, CtlStream, OutputBudget

BACKEND = Path(__file__).resolve().parents[2]
LIMITS = ChannelLimits(
    line_bytes=1 << 20,
    event_bytes=16 << 20,
    display_bytes=2 << 20,
    queue_bytes=64 << 20,
    kernel_bytes=256 << 20,
)


async def _through_the_server(write) -> list:
    """Run `write(channel)` in a thread against a real pipe; what the server's side reads."""
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader(limit=LIMITS.line_bytes)
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0)
    )
    server = ControlChannel(reader, LIMITS, slot=0)
    pump = asyncio.create_task(server.pump())

    def kernel() -> None:
        write(Channel(write_fd))
        os.close(write_fd)

    await asyncio.to_thread(kernel)
    items = []
    while not items or not isinstance(items[-1], Ended):
        items.append(await asyncio.wait_for(server.queue.get(), 10))
    await pump
    return items


async def test_a_card_longer_than_a_line_arrives_whole():
    card = {"title": "make_jaxpr(f)", "text": "a = add b 1.0\n" * 200_000}  # ~2.8 MB of JSON
    event = {"type": "trace_card", "run_id": "r", "card": card}
    items = await _through_the_server(lambda ch: ch.send(event))
    assert isinstance(items[0], RawCard) and items[-1].flood is None
    assert len(items[0].data) > 2 * PART_CHARS


async def test_output_over_the_allowance_keeps_the_first_part_and_says_so():
    def write(ch: Channel) -> None:
        budget = OutputBudget(ch, "r", 100_000)
        out, err = CtlStream(ch, "r", "stdout", budget), CtlStream(ch, "r", "stderr", budget)
        out.write("é" * 40_000 + "\n")  # 80,002 bytes
        err.write("x" * 30_000 + "\n")  # only 19,998 of these fit
        out.write("dropped\n")
        for stream in (out, err):
            stream.flush()

    items = await _through_the_server(write)
    streams = [i for i in items if isinstance(i, KStream)]
    text = "".join(s.text for s in streams)
    assert len(text.encode()) == 100_000 and text.startswith("é" * 40_000 + "\n")
    assert "dropped" not in text
    assert sum(isinstance(i, KOutputTruncated) for i in items) == 1
    assert all(len(s.text) <= 32 * 1024 for s in streams)


def test_nothing_follows_the_final_event_and_the_process_ends():
    """A thread left behind keeps writing; after run_done the process is gone, mid-loop."""
    code = (
        "import os, sys, threading, time\n"
        "from sandbox.runner import Channel\n"
        "ch = Channel(1)\n"
        "def spam():\n"
        "    while True:\n"
        "        ch.send({'type': 'log', 'text': 'late'})\n"
        "threading.Thread(target=spam, daemon=True).start()\n"
        "time.sleep(0.2)\n"
        "ch.send_final({'type': 'run_done', 'run_id': 'r', 'ok': True})\n"
        "time.sleep(5)\n"
        "print('never')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=BACKEND, capture_output=True, timeout=60
    )
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0 and len(lines) > 10
    assert lines[-1] == '{"type":"run_done","run_id":"r","ok":true}'
    assert "never" not in done.stdout.decode()
