"""Share links: immutable, content-addressed snapshots of code + settings in SQLite (WAL).

The id is a short base32 prefix of SHA-256 over the canonical JSON of `{"code", "settings"}`
(plus `"view"`, where the link opens, when one is given)
(sorted keys, no spaces, UTF-8), so sharing the same program twice yields the same link. Rows
are never updated or deleted. A prefix collision with different content (astronomically rare)
lengthens the id. Calls are synchronous and short; the HTTP layer runs them in a thread.

Imports: the standard library only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ID_LEN = 10
SCHEMA = """
CREATE TABLE IF NOT EXISTS shares (
    id TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at REAL NOT NULL
) WITHOUT ROWID;
"""


class ShareTooLarge(ValueError):
    """The canonical payload exceeds the configured cap."""


@dataclass(frozen=True)
class Share:
    """A stored share."""

    id: str
    code: str
    settings: dict[str, Any]
    created_at: float
    view: dict[str, Any] | None = None


def canonical_json(code: str, settings: dict[str, Any], view: dict[str, Any] | None = None) -> str:
    """The exact text that is hashed and stored (`view` only when given: older ids unchanged)."""
    payload: dict[str, Any] = {"code": code, "settings": settings}
    if view:
        payload["view"] = view
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest_of(text: str) -> str:
    raw = hashlib.sha256(text.encode("utf-8")).digest()
    return base64.b32encode(raw).decode("ascii").rstrip("=").lower()


class ShareStore:
    """A thread-safe SQLite store; one connection guarded by a lock."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def journal_mode(self) -> str:
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def put(self, code: str, settings: dict[str, Any], view: dict[str, Any] | None = None) -> Share:
        """Store (or find) the share of this content; raises ShareTooLarge over the cap."""
        text = canonical_json(code, settings, view)
        if len(text.encode("utf-8")) > self.max_bytes:
            raise ShareTooLarge(f"share is larger than {self.max_bytes} bytes")
        digest = digest_of(text)
        with self._lock:
            for length in range(ID_LEN, len(digest) + 1):
                sid = digest[:length]
                row = self._db.execute("SELECT digest FROM shares WHERE id=?", (sid,)).fetchone()
                if row is None:
                    now = time.time()
                    self._db.execute(
                        "INSERT INTO shares(id, digest, payload, created_at) VALUES (?,?,?,?)",
                        (sid, digest, text, now),
                    )
                    return Share(sid, code, settings, now, view or None)
                if row[0] == digest:
                    return self._get_locked(sid)  # type: ignore[return-value]
        raise RuntimeError("no free share id")  # unreachable: the full digest is unique

    def get(self, sid: str) -> Share | None:
        if not sid.isalnum() or len(sid) > 64:
            return None
        with self._lock:
            return self._get_locked(sid)

    def _get_locked(self, sid: str) -> Share | None:
        row = self._db.execute(
            "SELECT payload, created_at FROM shares WHERE id=?", (sid,)
        ).fetchone()
        if row is None:
            return None
        payload = json.loads(row[0])
        return Share(sid, payload["code"], payload["settings"], row[1], payload.get("view"))

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM shares").fetchone()[0])
