"""HTTP routes: examples, share links, health, and the built frontend (with SPA fallback).

Imports: fastapi, anyio, shared_schemas, app.gallery, app.store.shares.
"""

from __future__ import annotations

from pathlib import Path

import anyio
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from app.gallery import get_example, load_examples
from app.store.shares import ShareStore, ShareTooLarge
from shared_schemas import (
    Example,
    ExampleSummary,
    Health,
    RunSettings,
    ShareCreated,
    SharedProgram,
    ShareRequest,
    ShareView,
)

api = APIRouter(prefix="/api")
root = APIRouter()

NOT_BUILT = """<!doctype html><html><head><meta charset="utf-8"><title>Didax Playground</title>
</head><body><h1>Didax Playground</h1><p>The frontend has not been built
(<code>make build-frontend</code>). The API is up: <a href="/docs">/docs</a>,
<a href="/api/examples">/api/examples</a>, websocket <code>/api/ws</code>.</p></body></html>"""


@api.get("/examples", response_model=list[ExampleSummary])
async def list_examples() -> list[ExampleSummary]:
    """The curated examples, in menu order."""
    return [
        ExampleSummary(id=e.id, title=e.title, description=e.description) for e in load_examples()
    ]


@api.get("/examples/{example_id}", response_model=Example)
async def read_example(example_id: str) -> Example:
    """One example with its code."""
    example = get_example(example_id)
    if example is None:
        raise HTTPException(404, f"no example {example_id!r}")
    return example


@api.post("/share", response_model=ShareCreated, status_code=201)
async def create_share(body: ShareRequest, request: Request) -> ShareCreated:
    """Store code + settings; the same content always yields the same id."""
    store: ShareStore = request.app.state.shares
    settings = request.app.state.settings
    if len(body.code.encode("utf-8")) > settings.max_code_bytes:
        raise HTTPException(413, f"code is larger than {settings.max_code_bytes} bytes")
    try:
        view = body.view.model_dump(exclude_none=True) if body.view else None
        share = await anyio.to_thread.run_sync(store.put, body.code, body.settings.model_dump(), view)
    except ShareTooLarge as exc:
        raise HTTPException(413, str(exc)) from None
    return ShareCreated(id=share.id, url=f"/s/{share.id}")


@api.get("/share/{share_id}", response_model=SharedProgram)
async def read_share(share_id: str, request: Request) -> SharedProgram:
    """A stored share (immutable)."""
    store: ShareStore = request.app.state.shares
    share = await anyio.to_thread.run_sync(store.get, share_id)
    if share is None:
        raise HTTPException(404, f"no share {share_id!r}")
    settings = RunSettings.model_validate(share.settings, strict=False)
    view = ShareView.model_validate(share.view, strict=False) if share.view else None
    return SharedProgram(
        id=share.id, code=share.code, settings=settings, created_at=share.created_at, view=view
    )


@root.get("/healthz", response_model=Health)
async def healthz(request: Request) -> Health:
    """Liveness plus the sandbox mode and pool state."""
    manager = request.app.state.manager
    stats = manager.stats()
    return Health(
        status="ok",
        sandbox=manager.sandbox_info(),
        pool_ready=stats["pool_ready"],
        kernels=stats["kernels"],
    )


def _static_file(dist: Path, path: str) -> Path | None:
    if not dist.is_dir():
        return None
    candidate = (dist / path).resolve()
    if path and candidate.is_file() and candidate.is_relative_to(dist.resolve()):
        return candidate
    index = dist / "index.html"
    return index if index.is_file() else None


@root.get("/{path:path}", include_in_schema=False)
async def frontend(path: str, request: Request) -> Response:
    """The built frontend: real files as they are, any other page path → index.html."""
    if path.startswith("api/") or path == "api":
        raise HTTPException(404, "not found")
    file = _static_file(request.app.state.settings.frontend_dist, path)
    if file is None:
        return HTMLResponse(NOT_BUILT)
    cache = "public, max-age=31536000, immutable" if "/assets/" in f"/{path}" else "no-cache"
    return FileResponse(file, headers={"Cache-Control": cache})
