"""HTTP routes: examples, share links, health, and the built frontend (with SPA fallback).

Any request body gets a 4xx answer when it is wrong, never a 500: bodies over
`max_body_bytes` are refused with 413 before they are read whole (`BodyLimit`), the share body
is parsed by pydantic-core's JSON parser (lone surrogates, NaN/Infinity and deep nesting are
invalid JSON there), and validation errors are reported without echoing the input.

Imports: fastapi, starlette, anyio, pydantic, shared_schemas, app.gallery, app.store.shares.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from fastapi import APIRouter, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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


SHARE_BODY = {
    "required": True,
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ShareRequest"}}},
}


@api.post(
    "/share",
    response_model=ShareCreated,
    status_code=201,
    openapi_extra={"requestBody": SHARE_BODY},
)
async def create_share(request: Request) -> ShareCreated:
    """Store code + settings (a `ShareRequest`); the same content always yields the same id."""
    store: ShareStore = request.app.state.shares
    settings = request.app.state.settings
    try:
        body = ShareRequest.model_validate_json(await request.body())
    except ValidationError as exc:
        return _invalid(exc.errors(include_url=False, include_input=False, include_context=False))  # type: ignore[return-value]
    if len(body.code.encode("utf-8")) > settings.max_code_bytes:
        raise HTTPException(413, f"code is larger than {settings.max_code_bytes} bytes")
    try:
        view = body.view.model_dump(exclude_none=True) if body.view else None
        share = await anyio.to_thread.run_sync(
            store.put, body.code, body.settings.model_dump(), view
        )
    except ShareTooLarge as exc:
        raise HTTPException(413, str(exc)) from None
    return ShareCreated(id=share.id, url=f"/s/{share.id}")


def _invalid(errors: list[Any]) -> JSONResponse:
    """422 with where and why, never the input (it may not even be encodable)."""
    detail = [
        {
            "loc": [str(p)[:80] for p in err["loc"]],
            "msg": str(err["msg"])[:200],
            "type": err["type"],
        }
        for err in errors[:20]
    ]
    return JSONResponse({"detail": detail}, status_code=422)


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """Handler for FastAPI's RequestValidationError (path and query parameters)."""
    assert isinstance(exc, RequestValidationError)
    return _invalid(list(exc.errors()))


def add_share_schema(openapi: dict[str, Any]) -> dict[str, Any]:
    """Put ShareRequest (and what it refers to) into the OpenAPI components."""
    schema = ShareRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    components = openapi.setdefault("components", {}).setdefault("schemas", {})
    for name, sub in schema.pop("$defs", {}).items():
        components.setdefault(name, sub)
    components["ShareRequest"] = schema
    return openapi


class BodyLimit:
    """ASGI middleware: an HTTP request body over `max_bytes` gets 413 (by Content-Length at
    once, else as soon as the streamed body crosses the limit)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"0")
        if not length.isdigit() or int(length) > self.max_bytes:
            await self._too_large(send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await self._too_large(send)

    async def _too_large(self, send: Send) -> None:
        response = JSONResponse(
            {"detail": f"request body over {self.max_bytes} bytes"}, status_code=413
        )
        await response({"type": "http"}, _no_receive, send)


class _TooLarge(Exception):
    pass


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


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
        running=stats["running"],
        queued=stats["queued"],
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
