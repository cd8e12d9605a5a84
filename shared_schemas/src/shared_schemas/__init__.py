"""The Didax Playground websocket protocol (version 2): pydantic v2 models, both directions.

`ClientEnvelope` / `ServerEnvelope` wrap every frame; `TraceCard` is the engine's recording.
The JSON Schema and TypeScript in `generated/` are made from these by `scripts/generate.py`.
"""

from shared_schemas.base import PROTOCOL_VERSION, WireModel
from shared_schemas.http import (
    Example,
    ExampleSummary,
    Health,
    ShareCreated,
    SharedProgram,
    ShareRequest,
    ShareView,
)
from shared_schemas.messages import (
    MAX_DISPLAY_DATA,
    MAX_DISPLAYS_PER_RUN,
    CancelRequest,
    CardUpdate,
    ClientEnvelope,
    ClientMessage,
    Display,
    EngineInfo,
    ErrorCode,
    ErrorMessage,
    Frame,
    Hello,
    Limits,
    Ping,
    Pong,
    RunError,
    RunErrorKind,
    RunReply,
    RunRequest,
    RunSettings,
    RunState,
    SandboxInfo,
    SandboxMode,
    ServerEnvelope,
    ServerMessage,
    Status,
    Stream,
    TraceCardChunk,
    TraceCardMessage,
    Welcome,
    server_envelope,
)
from shared_schemas.trace import (
    Aval,
    Contribution,
    Cost,
    EqnData,
    GroupData,
    Heatmap,
    JaxprData,
    LiteralData,
    LoopIteration,
    LoopRecord,
    Notice,
    RowLink,
    SourceLoc,
    Span,
    Stage,
    Step,
    SubJaxpr,
    TraceCard,
    ValueSummary,
    VarData,
)

__all__ = [name for name in dir() if not name.startswith("_")]
