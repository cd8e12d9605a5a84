"""Websocket messages, both directions, and their envelopes (protocol version 2).

Every frame is one JSON object: an envelope carrying `protocol_version`, the sender's message
`id`, the `parent_id` of the message it answers, and `msg`, a union discriminated on `type`.
Client-to-server and server-to-client unions are separate. PROTOCOL.md explains the exchange.

Imports: pydantic, `shared_schemas.base`, `shared_schemas.trace`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared_schemas.base import PROTOCOL_VERSION, WireModel
from shared_schemas.trace import TraceCard

MessageId = Annotated[str, Field(min_length=1, max_length=64)]

# ---------------------------------------------------------------- client -> server


class RunSettings(WireModel):
    """Per-run options chosen in the page."""

    enable_x64: bool = False
    timeout_s: float = Field(default=10.0, gt=0, le=600)
    compile: bool = True
    max_cards: int = Field(default=32, ge=0, le=256)
    loop_iterations: int = Field(default=64, ge=1, le=1024)


class Hello(WireModel):
    """First message of a connection; answered by `welcome`."""

    type: Literal["hello"]
    client: str = Field(max_length=200)


class RunRequest(WireModel):
    """Run a program. `code` is capped at `limits.max_code_bytes` UTF-8 bytes by the server."""

    type: Literal["run_request"]
    code: str
    settings: RunSettings = Field(default_factory=RunSettings)


class CancelRequest(WireModel):
    """Cancel the run started by the run_request whose envelope id is `run_id`."""

    type: Literal["cancel_request"]
    run_id: MessageId


class Ping(WireModel):
    """Liveness probe; answered by `pong`."""

    type: Literal["ping"]


ClientMessage = Annotated[Hello | RunRequest | CancelRequest | Ping, Field(discriminator="type")]


class ClientEnvelope(WireModel):
    """A client-to-server frame."""

    protocol_version: Literal[2]
    id: MessageId
    parent_id: MessageId | None = None
    msg: ClientMessage


# ---------------------------------------------------------------- server -> client

SandboxMode = Literal["full", "rlimits_only", "unavailable"]
RunState = Literal[
    "queued", "starting", "tracing", "compiling", "running", "done", "error", "cancelled", "timeout"
]
ErrorCode = Literal[
    "malformed_message",
    "message_too_large",
    "unknown_type",
    "invalid_message",
    "protocol_version",
    "code_too_large",
    "busy",
    "not_found",
    "sandbox_unavailable",
    "invalid_card",
    "too_many_connections",
    "internal",
]
RunErrorKind = Literal[
    "exception",
    "syntax",
    "timeout",
    "memory",
    "output_limit",
    "kernel_crashed",
    "cancelled",
    "queue_timeout",
    "internal",
]


class SandboxInfo(WireModel):
    """How user code is isolated; the page shows `rlimits_only` and `unavailable` visibly."""

    mode: SandboxMode
    description: str
    layers: list[str]


class Limits(WireModel):
    """Server limits the page should respect and may display."""

    max_code_bytes: int
    run_timeout_s: float
    max_output_bytes: int
    max_message_bytes: int
    max_cards: int


class EngineInfo(WireModel):
    """What the kernel's engine offers, as reported by the last kernel that became ready."""

    available: bool
    version: str | None
    viz: bool
    detail: str | None


class Welcome(WireModel):
    """Answer to `hello`."""

    type: Literal["welcome"]
    session_id: str
    server_version: str
    sandbox: SandboxInfo
    limits: Limits
    engine: EngineInfo | None
    examples_url: str


class Status(WireModel):
    """A run's state changed; `elapsed_ms` counts from the server receiving the run_request.

    While `queued`, `queue_position` is how many runs wait ahead of this one (0: next)."""

    type: Literal["status"]
    run_id: MessageId
    state: RunState
    detail: str | None
    elapsed_ms: float
    queue_position: int | None = Field(default=None, ge=0)


class Stream(WireModel):
    """A chunk of the program's stdout or stderr, in order per stream."""

    type: Literal["stream"]
    run_id: MessageId
    name: Literal["stdout", "stderr"]
    text: str


class TraceCardMessage(WireModel):
    """A trace card recorded by the run, sent as soon as it is complete, in program order."""

    type: Literal["trace_card"]
    run_id: MessageId
    card: TraceCard


MAX_DISPLAYS_PER_RUN = 16
MAX_DISPLAY_DATA = 1 << 20


class Display(WireModel):
    """A figure the program showed (matplotlib's `plt.show()`, or a figure still open when the
    run ends), in program order with the run's `stream` chunks. `data` is base64 for
    `image/png` and the SVG text for `image/svg+xml` (shown as an image, never inlined);
    `width`/`height` are its size in CSS pixels, `alt` a text alternative (titles, axis
    labels). A run sends at most `MAX_DISPLAYS_PER_RUN`, each with `data` of at most
    `MAX_DISPLAY_DATA` characters."""

    type: Literal["display"]
    run_id: MessageId
    mime: Literal["image/png", "image/svg+xml"]
    data: str = Field(max_length=MAX_DISPLAY_DATA)
    width: int = Field(ge=1, le=10000)
    height: int = Field(ge=1, le=10000)
    alt: str = Field(max_length=300)


class TraceCardChunk(WireModel):
    """One piece of a `trace_card` frame too large for one websocket frame.

    The `data` of chunks 0..count-1 of one `transfer_id`, concatenated, is the JSON text of the
    whole `trace_card` envelope (whose `id` is `transfer_id`); the page reassembles it and then
    validates and handles it like any other frame. Chunks of one transfer arrive in order."""

    type: Literal["trace_card_chunk"]
    run_id: MessageId
    transfer_id: MessageId
    index: int = Field(ge=0)
    count: int = Field(ge=1)
    data: str


class CardUpdate(WireModel):
    """A card already sent was called again with the same argument types: its call count."""

    type: Literal["card_update"]
    run_id: MessageId
    card_id: str
    call_count: int = Field(ge=1)


class Frame(WireModel):
    """One traceback frame; `user` is true for frames of the user's code (file `<user>`)."""

    filename: str
    lineno: int
    name: str
    line: str | None
    user: bool


class RunError(WireModel):
    """Why a run failed. `traceback` lists frames innermost last."""

    kind: RunErrorKind
    exc_type: str | None
    message: str
    traceback: list[Frame]
    user_line: int | None


class RunReply(WireModel):
    """The last message of every accepted run. `output_truncated`: stdout+stderr went over
    `limits.max_output_bytes`; the first part was kept and the rest dropped."""

    type: Literal["run_reply"]
    run_id: MessageId
    ok: bool
    duration_ms: float
    n_cards: int
    error: RunError | None
    output_truncated: bool = False


class ErrorMessage(WireModel):
    """A request could not be processed; the connection stays usable."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    detail: str | None


class Pong(WireModel):
    """Answer to `ping`."""

    type: Literal["pong"]


ServerMessage = Annotated[
    Welcome
    | Status
    | Stream
    | TraceCardMessage
    | TraceCardChunk
    | CardUpdate
    | RunReply
    | ErrorMessage
    | Pong
    | Display,
    Field(discriminator="type"),
]


class ServerEnvelope(WireModel):
    """A server-to-client frame; `parent_id` is the id of the client message it answers."""

    protocol_version: Literal[2]
    id: MessageId
    parent_id: MessageId | None
    msg: ServerMessage


def server_envelope(id: str, parent_id: str | None, msg: WireModel) -> ServerEnvelope:
    """Wrap a server message in an envelope of the current protocol version."""
    return ServerEnvelope(protocol_version=PROTOCOL_VERSION, id=id, parent_id=parent_id, msg=msg)
