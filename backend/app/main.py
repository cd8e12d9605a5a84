"""Server entry point: `python -m app.main --host H --port P` (run from backend/ or installed).

Task tree:

    uvicorn
      └─ lifespan: open the share store, choose the provisioner (full sandbox, rlimits_only on
         loopback, or none), start the KernelManager (warm pool) … on shutdown close both

The server never imports didax and never runs user code; kernels are separate processes.

Imports: fastapi, uvicorn, app.*.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

import uvicorn
from fastapi import FastAPI

from app.api import http, ws
from app.config import Settings
from app.kernels.manager import KernelManager
from app.kernels.provisioner import Provisioner, choose_provisioner
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
    app.include_router(http.api)
    app.include_router(ws.router)
    app.include_router(http.root)
    return app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Didax Playground server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings = replace(Settings.from_env(), host=args.host, port=args.port)
    uvicorn.run(
        create_app(settings),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=16 << 20,
        ws_ping_interval=20,
    )


if __name__ == "__main__":
    main()
