"""Server entry point: `python -m app.main --host H --port P` (run from backend/ or installed).

Task tree:

    uvicorn (logging through app.logs.SafeFormatter: one escaped line per record)
      ├─ BodyLimit middleware (413 over max_body_bytes), validation errors without echoes
      └─ lifespan: open the share store, choose the provisioner (full sandbox, rlimits_only on
         loopback, or none), start the KernelManager (warm pool, queue) and the connection
         limiter … on shutdown close both

The server never imports didax and never runs user code; kernels are separate processes.

Imports: fastapi, uvicorn, app.*.
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import logging.config
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

import uvicorn
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError

from app.api import http, ws
from app.clients import ConnectionLimiter
from app.config import Settings
from app.kernels.manager import KernelManager
from app.kernels.provisioner import Provisioner, choose_provisioner
from app.logs import uvicorn_log_config
from app.store.shares import ShareStore

log = logging.getLogger("didax.main")


def create_app(
    settings: Settings, provisioner: tuple[Provisioner | None, str] | None = None
) -> FastAPI:
    """The ASGI app. `provisioner` overrides the automatic choice (tests)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        prov, reason = provisioner or choose_provisioner(settings)
        if prov is None:
            log.warning("running code is disabled: %s", reason)
        else:
            log.info("sandbox mode %s: %s", prov.mode, prov.description)
        app.state.shares = ShareStore(settings.db_path, settings.max_share_bytes)
        app.state.manager = KernelManager(settings, prov, reason)
        await app.state.manager.start()
        try:
            yield
        finally:
            await app.state.manager.close()
            app.state.shares.close()

    app = FastAPI(
        title="Didax Playground",
        version="0.1.0",
        lifespan=lifespan,
        description="HTTP API of the playground; the websocket protocol at /api/ws "
        "is described by shared_schemas (PROTOCOL.md).",
    )
    app.state.settings = settings
    app.state.connections = ConnectionLimiter(settings.client_connections, settings.max_connections)
    app.add_middleware(http.BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_exception_handler(RequestValidationError, http.validation_error)
    app.include_router(http.api)
    app.include_router(ws.router)
    app.include_router(http.root)
    openapi = app.openapi
    app.openapi = lambda: app.openapi_schema or http.add_share_schema(openapi())  # type: ignore[method-assign]
    return app


def fixed_mmap_threshold(threshold: int = 128 * 1024) -> bool:
    """Make glibc serve every allocation over `threshold` with its own mmap, and give it back
    to the system when freed. By default glibc raises that threshold to the largest block
    freed so far (up to 32 MiB), after which big transient buffers (a card's frames, a kernel's
    long lines) come from the heap and the process keeps their memory. False off glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(-3, threshold))  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        return False


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Didax Playground server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    fixed_mmap_threshold()
    log_config = uvicorn_log_config(args.log_level)
    logging.config.dictConfig(log_config)
    settings = replace(Settings.from_env(), host=args.host, port=args.port)
    uvicorn.run(
        create_app(settings),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        log_config=log_config,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        ws_max_size=16 << 20,
        ws_ping_interval=20,
    )


if __name__ == "__main__":
    main()
