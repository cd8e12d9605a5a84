"""HTTP routes against a real server: examples, shares, health, OpenAPI, frontend serving."""

from __future__ import annotations

import httpx
import pytest
from app.gallery import load_examples


@pytest.fixture(scope="module")
def dist(server):
    root = server.tmp / "dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>didax</title><div id=app></div>")
    (root / "assets" / "app.js").write_text("console.log('hi')")
    return root


def test_examples_list_and_get(server):
    listed = httpx.get(server.url + "/api/examples").json()
    assert len(listed) >= 12
    assert [e["id"] for e in listed] == [e.id for e in load_examples()]
    for entry in listed:
        assert set(entry) == {"id", "title", "description"} and entry["title"]
        full = httpx.get(f"{server.url}/api/examples/{entry['id']}").json()
        assert full["code"].strip() and "import jax" in full["code"]
        assert not full["code"].startswith("# title")
    assert httpx.get(server.url + "/api/examples/nope").status_code == 404


def test_share_round_trip_and_content_addressing(server):
    body = {"code": "print('shared')\n", "settings": {"enable_x64": True}}
    first = httpx.post(server.url + "/api/share", json=body)
    assert first.status_code == 201
    sid = first.json()["id"]
    assert first.json()["url"].endswith(sid) and len(sid) >= 10
    assert httpx.post(server.url + "/api/share", json=body).json()["id"] == sid
    other = httpx.post(server.url + "/api/share", json={"code": "print('shared')\n"}).json()
    assert other["id"] != sid  # settings are part of the content
    got = httpx.get(f"{server.url}/api/share/{sid}").json()
    assert got["code"] == body["code"] and got["settings"]["enable_x64"] is True
    assert got["settings"]["timeout_s"] == 10.0
    assert httpx.get(server.url + "/api/share/doesnotexist").status_code == 404
    assert httpx.get(server.url + "/api/share/..%2f..%2fetc").status_code == 404


def test_share_carries_a_view_state(server):
    body = {"code": "print(1)\n", "view": {"card": 1, "step": 7, "stage": "hlo"}}
    made = httpx.post(server.url + "/api/share", json=body)
    assert made.status_code == 201
    plain = httpx.post(server.url + "/api/share", json={"code": "print(1)\n"}).json()
    assert plain["id"] != made.json()["id"]  # where it opens is part of the content
    got = httpx.get(f"{server.url}/api/share/{made.json()['id']}").json()
    assert got["view"] == {"card": 1, "step": 7, "stage": "hlo"}
    assert httpx.get(f"{server.url}/api/share/{plain['id']}").json()["view"] is None
    bad = {"code": "x", "view": {"card": -1}}
    assert httpx.post(server.url + "/api/share", json=bad).status_code == 422


def test_share_rejects_bad_input(server):
    too_big = httpx.post(server.url + "/api/share", json={"code": "x" * (65 * 1024)})
    assert too_big.status_code == 413
    assert httpx.post(server.url + "/api/share", json={"code": 5}).status_code == 422
    assert httpx.post(server.url + "/api/share", content=b"{").status_code == 422


def test_healthz_and_openapi(server):
    health = httpx.get(server.url + "/healthz").json()
    assert health["status"] == "ok" and health["sandbox"]["mode"] in ("full", "rlimits_only")
    spec = httpx.get(server.url + "/openapi.json").json()
    for path in (
        "/api/examples",
        "/api/examples/{example_id}",
        "/api/share",
        "/api/share/{share_id}",
        "/healthz",
    ):
        assert path in spec["paths"], path


def test_frontend_files_and_spa_fallback(server, dist):
    index = httpx.get(server.url + "/")
    assert index.status_code == 200 and "<div id=app>" in index.text
    asset = httpx.get(server.url + "/assets/app.js")
    assert asset.text == "console.log('hi')" and "immutable" in asset.headers["cache-control"]
    deep = httpx.get(server.url + "/s/abc123")  # a client-side route
    assert deep.status_code == 200 and "<div id=app>" in deep.text
    embed = httpx.get(server.url + "/embed/abc123")  # the embed view, same SPA
    assert embed.status_code == 200 and "<div id=app>" in embed.text
    traversal = httpx.get(server.url + "/..%2f..%2fetc%2fpasswd")
    assert "root:" not in traversal.text
    assert httpx.get(server.url + "/api/nothing").status_code == 404
