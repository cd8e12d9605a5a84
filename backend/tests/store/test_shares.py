"""The SQLite share store: WAL, content-addressed ids, immutability, caps, durability."""

from __future__ import annotations

import httpx
import pytest
from app.store.shares import ShareStore, ShareTooLarge, canonical_json
from helpers import ServerProcess


def test_wal_and_content_addressing(tmp_path):
    store = ShareStore(tmp_path / "s.sqlite3", 10_000)
    assert store.journal_mode() == "wal"
    a = store.put("print(1)", {"enable_x64": False})
    again = store.put("print(1)", {"enable_x64": False})
    assert a.id == again.id and a.created_at == again.created_at  # immutable, not rewritten
    assert store.put("print(1)", {"enable_x64": True}).id != a.id
    assert store.count() == 2
    assert canonical_json("c", {"b": 1, "a": 2}) == '{"code":"c","settings":{"a":2,"b":1}}'
    assert store.get("nope") is None and store.get("../../x") is None
    store.close()


def test_size_cap(tmp_path):
    store = ShareStore(tmp_path / "s.sqlite3", 100)
    with pytest.raises(ShareTooLarge):
        store.put("x" * 200, {})
    assert store.count() == 0


def test_reopen_keeps_shares(tmp_path):
    path = tmp_path / "deep" / "dir" / "s.sqlite3"
    first = ShareStore(path, 10_000)
    share = first.put("print('kept')", {"compile": True})
    first.close()
    second = ShareStore(path, 10_000)
    got = second.get(share.id)
    assert got is not None and got.code == "print('kept')" and got.settings == {"compile": True}


def test_shares_survive_a_server_restart(tmp_path):
    server = ServerProcess(tmp_path, {"DIDAX_POOL_SIZE": "0"}).start()
    try:
        sid = httpx.post(server.url + "/api/share", json={"code": "print('durable')"}).json()["id"]
    finally:
        server.stop()
    assert (tmp_path / "shares.sqlite3").exists()
    server = ServerProcess(tmp_path, {"DIDAX_POOL_SIZE": "0"}).start()
    try:
        assert httpx.get(f"{server.url}/api/share/{sid}").json()["code"] == "print('durable')"
    finally:
        server.stop()


def test_view_is_part_of_the_content(tmp_path):
    store = ShareStore(tmp_path / "s.sqlite3", max_bytes=10_000)
    plain = store.put("print(1)", {})
    viewed = store.put("print(1)", {}, {"card": 2, "step": 5})
    assert viewed.id != plain.id and plain.view is None
    assert store.get(viewed.id).view == {"card": 2, "step": 5}
    assert store.put("print(1)", {}, {"card": 2, "step": 5}).id == viewed.id
    assert store.put("print(1)", {}, None).id == plain.id
