"""The server <-> kernel line protocol: parsing, encoding and the line cap (unit)."""

from __future__ import annotations

import asyncio
import json

import pytest
from app.kernels.protocol import (
    ChannelOverflow,
    KStream,
    Ready,
    RunDone,
    encode_run,
    parse_event,
    read_line,
)

from shared_schemas import RunSettings


def test_parse_events():
    assert isinstance(parse_event(b'{"type":"ready","engine":{},"lockdown":{}}\n'), Ready)
    ev = parse_event(b'{"type":"stream","run_id":"r","name":"stdout","text":"x"}')
    assert isinstance(ev, KStream) and ev.text == "x"
    done = parse_event(b'{"type":"run_done","run_id":"r","ok":true,"extra":1}')
    assert isinstance(done, RunDone) and done.ok
    for bad in (b"nope", b'{"type":"rm -rf"}', b'{"type":"stream","run_id":"r","name":"x"}'):
        with pytest.raises(ValueError):
            parse_event(bad)


def test_encode_run_is_one_line():
    line = encode_run("r1", "print('a')\nprint('b')", RunSettings(), {"max_output_bytes": 5})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line)["settings"]["timeout_s"] == 10.0
    assert json.loads(line)["limits"] == {"max_output_bytes": 5}


async def test_read_line_caps_the_length():
    reader = asyncio.StreamReader(limit=16)
    reader.feed_data(b"short\n" + b"x" * 64)
    assert await read_line(reader, 16) == b"short\n"
    with pytest.raises(ChannelOverflow):
        await read_line(reader, 16)
    eof = asyncio.StreamReader()
    eof.feed_data(b"tail")
    eof.feed_eof()
    assert await read_line(eof, 16) == b"tail"
    assert await read_line(eof, 16) == b""
