"""WS /api/ws — the session protocol endpoint, kept thin: validate → dispatch → send.

Task tree (per connection):

    websocket_endpoint
      ├─ reader (this coroutine)   receive frame → parse_frame → Session.handle, or a typed
      │                            `error` reply; never closes the connection for bad input
      └─ _writer                   drains the session's Outbox to the socket, in order
    on disconnect: Session.close() destroys the session's kernel

Imports: starlette/fastapi, pydantic, shared_schemas, app.sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from shared_schemas.codegen import protocol_schema

from app.sessions import Outbox, Session
from shared_schemas import PROTOCOL_VERSION, ClientEnvelope

log = logging.getLogger("didax.ws")
router = APIRouter()
CLIENT_TYPES = frozenset(
    protocol_schema()["$defs"][name]["properties"]["type"]["const"]
    for name in ("Hello", "RunRequest", "CancelRequest", "Ping")
)


class FrameError(Exception):
    """A frame that cannot be dispatched; carries the typed error to send back."""

    def __init__(self, code: str, message: str, detail: str | None, parent_id: str | None):
        super().__init__(message)
        self.code, self.message, self.detail, self.parent_id = code, message, detail, parent_id


def _frame_id(obj: Any) -> str | None:
    fid = obj.get("id") if isinstance(obj, dict) else None
    return fid if isinstance(fid, str) and 0 < len(fid) <= 64 else None


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:8]:
        loc = ".".join(str(p) for p in err["loc"])
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def parse_frame(text: str, max_bytes: int) -> ClientEnvelope:
    """Validate one client frame; raises FrameError with the right error code."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise FrameError(
            "message_too_large", f"frame is {size} bytes; the limit is {max_bytes}", None, None
        )
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise FrameError("malformed_message", "frame is not valid JSON", str(exc), None) from None
    if not isinstance(obj, dict):
        raise FrameError("malformed_message", "frame is not a JSON object", None, None)
    fid = _frame_id(obj)
    if obj.get("protocol_version") != PROTOCOL_VERSION:
        raise FrameError(
            "protocol_version",
            f"protocol_version must be {PROTOCOL_VERSION}",
            f"got {obj.get('protocol_version')!r}",
            fid,
        )
    msg = obj.get("msg")
    mtype = msg.get("type") if isinstance(msg, dict) else None
    if isinstance(mtype, str) and mtype not in CLIENT_TYPES:
        raise FrameError(
            "unknown_type",
            f"unknown message type {mtype[:64]!r}",
            f"known: {', '.join(sorted(CLIENT_TYPES))}",
            fid,
        )
    try:
        return ClientEnvelope.model_validate(obj)
    except ValidationError as exc:
        raise FrameError(
            "invalid_message", "message does not match the protocol schema", _describe(exc), fid
        ) from None


async def _writer(ws: WebSocket, outbox: Outbox) -> None:
    while True:
        for env in await outbox.take():
            await ws.send_text(env.model_dump_json())


def _frame_text(message: dict[str, Any]) -> str:
    if message.get("text") is not None:
        return str(message["text"])
    data = message.get("bytes") or b""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FrameError(
            "malformed_message", "binary frame is not UTF-8 JSON", None, None
        ) from None


@router.websocket("/api/ws")
async def websocket_endpoint(ws: WebSocket) -> None:
    await ws.accept()
    app = ws.app
    settings, manager = app.state.settings, app.state.manager
    outbox = Outbox()
    session = Session(settings, manager, outbox)
    writer = asyncio.create_task(_writer(ws, outbox))
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            try:
                env = parse_frame(_frame_text(message), settings.max_message_bytes)
            except FrameError as err:
                session.error(err.code, err.message, err.detail, err.parent_id)
                continue
            await session.handle(env)
    except WebSocketDisconnect:
        pass
    finally:
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
        await session.close()
