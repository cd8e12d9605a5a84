"""Bodies of the HTTP API (examples, share links, health); the server's OpenAPI uses them too.

Imports: pydantic, `shared_schemas.base`, `shared_schemas.messages`.
"""

from __future__ import annotations

from pydantic import Field

from shared_schemas.base import WireModel
from shared_schemas.messages import RunSettings, SandboxInfo


class ExampleSummary(WireModel):
    """One entry of GET /api/examples."""

    id: str
    title: str
    description: str


class Example(ExampleSummary):
    """GET /api/examples/{id}: the example's program."""

    code: str


class ShareView(WireModel):
    """Where a shared link opens: the trace card (0-based), the player step (-1 = before the
    first) and the stage tab (its name, e.g. `hlo`). Absent fields keep the page's default."""

    card: int | None = Field(default=None, ge=0)
    step: int | None = Field(default=None, ge=-1)
    stage: str | None = Field(default=None, max_length=40)


class ShareRequest(WireModel):
    """POST /api/share body; `view` (optional) is part of the shared content."""

    code: str
    settings: RunSettings = Field(default_factory=RunSettings)
    view: ShareView | None = None


class ShareCreated(WireModel):
    """POST /api/share answer; the same content always gets the same id."""

    id: str
    url: str


class SharedProgram(WireModel):
    """GET /api/share/{id}."""

    id: str
    code: str
    settings: RunSettings
    created_at: float
    view: ShareView | None = None


class Health(WireModel):
    """GET /healthz."""

    status: str
    sandbox: SandboxInfo
    pool_ready: int
    kernels: int
    running: int = 0
    queued: int = 0
