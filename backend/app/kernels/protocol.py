"""The server <-> kernel wire: newline-delimited JSON over pipes.

Server -> kernel (the kernel's stdin): `{"type": "run", "id", "code", "settings"}` per line.
Kernel -> server (a dedicated control fd): one event per line — `ready`, `status`, `stream`,
`display` (a figure), `trace_card`, `card_error`, `run_done`, `log`. The kernel runs hostile code that can write to
the control fd too, so every line is size-capped and schema-checked here and is trusted only
for its own session. Raw fds 1 and 2 are plain bytes (native output), read separately.

Imports: pydantic, shared_schemas (RunSettings).
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from shared_schemas import RunSettings


class _Event(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Ready(_Event):
    type: Literal["ready"]
    engine: dict[str, Any] = Field(default_factory=dict)
    lockdown: dict[str, Any] = Field(default_factory=dict)
    startup_ms: float | None = None
    warm_ms: float | None = None


class KStatus(_Event):
    type: Literal["status"]
    run_id: str
    state: str


class KStream(_Event):
    type: Literal["stream"]
    run_id: str
    name: Literal["stdout", "stderr"]
    text: str


class KCard(_Event):
    type: Literal["trace_card"]
    run_id: str
    card: dict[str, Any]


class KCardError(_Event):
    type: Literal["card_error"]
    run_id: str
    detail: str


class RunDone(_Event):
    type: Literal["run_done"]
    run_id: str
    ok: bool
    error: dict[str, Any] | None = None
    n_cards: int = 0
    duration_ms: float = 0.0


class KDisplay(_Event):
    type: Literal["display"]
    run_id: str
    mime: str
    data: str
    width: int
    height: int
    alt: str = ""


class KLog(_Event):
    type: Literal["log"]
    text: str


KernelEvent = Annotated[
    Ready | KStatus | KStream | KDisplay | KCard | KCardError | RunDone | KLog,
    Field(discriminator="type"),
]
_EVENT = TypeAdapter(KernelEvent)


class ChannelOverflow(Exception):
    """The kernel wrote a line longer than the cap, or more than the per-run budget."""


def parse_event(
    line: bytes,
) -> Ready | KStatus | KStream | KDisplay | KCard | KCardError | RunDone | KLog:
    """Parse one control line; raises ValueError on anything malformed."""
    try:
        return _EVENT.validate_json(line)
    except ValidationError as exc:
        raise ValueError(f"bad kernel event: {exc.errors()[:1]}") from exc


def encode_run(run_id: str, code: str, settings: RunSettings) -> bytes:
    """One request line for the kernel's stdin."""
    payload = {"type": "run", "id": run_id, "code": code, "settings": settings.model_dump()}
    return (json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8")


async def read_line(reader: asyncio.StreamReader, cap: int) -> bytes:
    """The next line (b"" at EOF); raises ChannelOverflow when a line exceeds `cap` bytes."""
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        return exc.partial  # EOF: a final unterminated line, or b""
    except asyncio.LimitOverrunError as exc:
        raise ChannelOverflow(f"control line over {cap} bytes") from exc
