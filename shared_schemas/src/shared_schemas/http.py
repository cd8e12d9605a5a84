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


class ShareRequest(WireModel):
    """POST /api/share body."""

    code: str
    settings: RunSettings = Field(default_factory=RunSettings)


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


class Health(WireModel):
    """GET /healthz."""

    status: str
    sandbox: SandboxInfo
    pool_ready: int
    kernels: int
