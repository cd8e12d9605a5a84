"""WS /api/ws — the session protocol endpoint, kept thin: admit → validate → dispatch → send.

Task tree (per connection):

    websocket_endpoint
      ├─ admission                 per-client and total connection limits (app.clients); a
      │                            refused connection gets `error` too_many_connections, close 1013
      ├─ reader (this coroutine)   waits for outbox room → receive frame → parse_frame →
      │                            Session.handle, or a typed `error` reply; never closes the
      │                            connection for bad input
      └─ _writer                   drains the session's Outbox to the socket, in order
    on disconnect: Session.close() takes a queued run out of the queue / destroys its kernel

Frames are parsed by pydantic-core's JSON parser, which rejects what the protocol cannot
carry (lone surrogates, NaN/Infinity, nesting deeper than 200) as `malformed_message`.

Imports: starlette/fastapi, pydantic, shared_schemas, app.clients, app.outbox, app.sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import pydantic_core
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from shared_schemas.codegen import protocol_schema

from app.clients import client_key
from app.outbox import Outbox
from app.sessions import Session
from shared_schemas import PROTOCOL_VERSION, ClientEnvelope, ErrorMessage, server_envelope

log = logging.getLogger("didax.ws")
router = APIRouter()
CLIENT_TYPES = frozenset(
    protocol_schema()["$defs"][name]["properties"]["type"]["const"]
    for name in ("Hello", "RunRequest", "CancelRequest", "Ping")
)
TRY_AGAIN_LATER = 1013


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
    for err in exc.errors(include_url=False, include_input=False, include_context=False)[:8]:
        loc = ".".join(str(p) for p in err["loc"])[:120]
        parts.append(f"{loc}: {err['msg'][:120]}")
    return "; ".join(parts)


def _short(value: Any) -> str:
    return f"{type(value).__name__} {repr(value)[:40]}"


def parse_frame(text: str, max_bytes: int) -> ClientEnvelope:
    """Validate one client frame; raises FrameError with the right error code."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise FrameError(
            "message_too_large", f"frame is {size} bytes; the limit is {max_bytes}", None, None
        )
    try:
        obj = pydantic_core.from_json(text, allow_inf_nan=False, cache_strings=False)
    except ValueError as exc:
        raise FrameError(
            "malformed_message", "frame is not valid JSON", str(exc)[:200], None
        ) from None
    if not isinstance(obj, dict):
        raise FrameError("malformed_message", "frame is not a JSON object", None, None)
    fid = _frame_id(obj)
    version = obj.get("protocol_version")
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise FrameError(
            "protocol_version",
            f"protocol_version must be the integer {PROTOCOL_VERSION}",
            f"got {_short(version)}",
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
        frames, size = await outbox.take()
        for frame in frames:
            await ws.send_text(frame)
        outbox.sent(size)


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


async def _room(outbox: Outbox, writer: asyncio.Task[None]) -> bool:
    """Wait until the outbox has room; False if the writer ended (the client is gone)."""
    if outbox.bytes <= outbox.high_water:
        return not writer.done()
    room = asyncio.create_task(outbox.wait_room())
    await asyncio.wait({room, writer}, return_when=asyncio.FIRST_COMPLETED)
    room.cancel()
    return not writer.done()


async def _refuse(ws: WebSocket, why: str) -> None:
    error = ErrorMessage(type="error", code="too_many_connections", message=why, detail=None)
    with contextlib.suppress(Exception):
        await ws.send_text(server_envelope("s-0", None, error).model_dump_json())
        await ws.close(code=TRY_AGAIN_LATER, reason="too many connections")


@router.websocket("/api/ws")
async def websocket_endpoint(ws: WebSocket) -> None:
    await ws.accept()
    state = ws.app.state
    client = client_key(ws.client.host if ws.client else None)
    refused = state.connections.admit(client)
    if refused is not None:
        await _refuse(ws, refused)
        return
    try:
        await _serve(ws, client)
    finally:
        state.connections.leave(client)


async def _serve(ws: WebSocket, client: str) -> None:
    settings, manager = ws.app.state.settings, ws.app.state.manager
    outbox = Outbox(settings.outbox_bytes)
    session = Session(settings, manager, outbox, client)
    writer = asyncio.create_task(_writer(ws, outbox))
    try:
        while await _room(outbox, writer):  # a client that does not read stops being read
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            try:
                env = parse_frame(_frame_text(message), settings.max_message_bytes)
            except FrameError as err:
                session.error(err.code, err.message, err.detail, err.parent_id)
                continue
            try:
                await session.handle(env)
            except Exception:  # a bug must not drop the connection
                log.exception("session %s: handling a message failed", session.id)
                session.error("internal", "the server could not handle this message", None, env.id)
    except WebSocketDisconnect:
        pass
    finally:
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
        await session.close()
