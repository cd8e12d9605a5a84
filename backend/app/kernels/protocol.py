"""The server <-> kernel wire: newline-delimited JSON over pipes.

Server -> kernel (the kernel's stdin): one line `{"type": "run", "id", "code", "settings",
"limits"}`; a kernel serves that one run and exits.
Kernel -> server (a dedicated control fd): one event per line — `ready`, `status`, `stream`,
`output_truncated`, `display` (a figure), `trace_card`, `card_error`, `card_update`,
`run_done`, `log`; an event
longer than a line may be goes out as `part` lines whose `data` concatenate to its JSON. The
kernel runs hostile code that can write to the control fd too, so every line is size-capped
and schema-checked (app.kernels.channel) and trusted only for its own session; no event ends
a run (the server does, when the process exits). Raw fds 1 and 2 are plain bytes (native
output), read separately.

Imports: pydantic, shared_schemas (RunSettings, TraceCard).
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from shared_schemas import RunSettings, TraceCard


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


class KHeader(_Event):
    """What every event line is first read as: its type and run (the rest is ignored)."""

    type: str
    run_id: str | None = None


class KCard(_Event):
    """A trace card event, validated (off the event loop when large) by the run's consumer."""

    type: Literal["trace_card"]
    run_id: str
    card: TraceCard


class KOutputTruncated(_Event):
    type: Literal["output_truncated"]
    run_id: str


class KCardUpdate(_Event):
    type: Literal["card_update"]
    run_id: str
    card_id: str = Field(max_length=200)
    call_count: int = Field(ge=1)


class KPart(_Event):
    type: Literal["part"]
    data: str
    more: bool


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


SmallEvent = (
    Ready
    | KStatus
    | KStream
    | KOutputTruncated
    | KDisplay
    | KCardError
    | KCardUpdate
    | RunDone
    | KLog
)
_EVENT: TypeAdapter[SmallEvent] = TypeAdapter(
    Annotated[SmallEvent, Field(discriminator="type")]  # type: ignore[arg-type]
)


def human_bytes(n: int) -> str:
    """1048576 -> '1 MiB', 65536 -> '64 KiB'."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:g} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


class ChannelOverflow(Exception):
    """The kernel wrote a line longer than the cap, or more than its budget."""


def _problem(exc: ValidationError) -> str:
    """Where a line failed, never its content (that is the program's text)."""
    err = exc.errors(include_url=False, include_input=False, include_context=False)[0]
    return f"{'.'.join(map(str, err['loc']))[:80]}: {err['type']}"


def parse_header(line: bytes | str) -> KHeader:
    """Type and run of one control line; raises ValueError on anything malformed."""
    try:
        return KHeader.model_validate_json(line)
    except ValidationError as exc:
        raise ValueError(f"bad kernel event ({_problem(exc)})") from None


def parse_event(line: bytes | str) -> SmallEvent:
    """Parse one control event that is not a trace card; raises ValueError when malformed."""
    try:
        return _EVENT.validate_json(line)
    except ValidationError as exc:
        raise ValueError(f"bad kernel event ({_problem(exc)})") from None


def parse_card(data: bytes | str) -> KCard:
    """Validate a trace_card event; raises ValueError with a short reason (never the input)."""
    try:
        return KCard.model_validate_json(data)
    except ValidationError as exc:
        parts = []
        for err in exc.errors(include_url=False, include_input=False, include_context=False)[:5]:
            parts.append(f"{'.'.join(map(str, err['loc']))[:120]}: {err['msg'][:120]}")
        raise ValueError("; ".join(parts)) from None


def encode_run(run_id: str, code: str, settings: RunSettings, limits: dict[str, int]) -> bytes:
    """The request line for the kernel's stdin."""
    payload = {
        "type": "run",
        "id": run_id,
        "code": code,
        "settings": settings.model_dump(),
        "limits": limits,
    }
    return (json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8")


async def read_line(reader: asyncio.StreamReader, cap: int) -> bytes:
    """The next line (b"" at EOF); raises ChannelOverflow when a line exceeds `cap` bytes."""
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        return exc.partial  # EOF: a final unterminated line, or b""
    except asyncio.LimitOverrunError as exc:
        raise ChannelOverflow(f"a control line over {human_bytes(cap)}") from exc
