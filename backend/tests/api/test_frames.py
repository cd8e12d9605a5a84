"""Every bad websocket frame and HTTP body gets a typed answer and nothing is dropped: the
cases of issue 13 one by one, then a seeded generative fuzzer (strategies in the style of
hypothesis: JSON values, mutated envelopes, raw tokens JSON cannot carry, broken text) of more
than 10,000 frames over one connection, with no connection dropped and no traceback logged.
Runs against a server with a fast fake kernel, so valid run requests cost little."""

from __future__ import annotations

import json
import random

import httpx
import pytest
from conftest import fake_kernel_server
from helpers import client

DEEP = "[" * 2000 + "]" * 2000


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory):
    server = fake_kernel_server(
        tmp_path_factory.mktemp("frames"), "scripted.py", DIDAX_POOL_SIZE="2"
    )
    server.pool_ready = 1
    server.start()
    yield server
    server.stop()


def _frame(msg: str, pv: str = "2", fid: str = '"f1"') -> str:
    return f'{{"protocol_version": {pv}, "id": {fid}, "msg": {msg}}}'


CASES = [
    ("lone surrogate in the id", _frame('{"type": "ping"}', fid='"\\ud800"'), "malformed_message"),
    (
        "lone surrogate in code",
        _frame('{"type": "run_request", "code": "print(\\"\\udc80\\")"}'),
        "malformed_message",
    ),
    ("nested 2,000 deep", _frame(f'{{"type": "ping", "x": {DEEP}}}'), "malformed_message"),
    ("nested id", _frame('{"type": "ping"}', fid=DEEP), "malformed_message"),
    (
        "NaN in settings",
        _frame('{"type": "run_request", "code": "x", "settings": {"timeout_s": NaN}}'),
        "malformed_message",
    ),
    (
        "Infinity in settings",
        _frame('{"type": "run_request", "code": "x", "settings": {"timeout_s": Infinity}}'),
        "malformed_message",
    ),
    (
        "a float that overflows",
        _frame('{"type": "run_request", "code": "x", "settings": {"timeout_s": 1e999}}'),
        "invalid_message",
    ),
    ("protocol_version true", _frame('{"type": "ping"}', pv="true"), "protocol_version"),
    ("protocol_version 2.0", _frame('{"type": "ping"}', pv="2.0"), "protocol_version"),
    ("protocol_version '2'", _frame('{"type": "ping"}', pv='"2"'), "protocol_version"),
    ("protocol_version huge", _frame('{"type": "ping"}', pv="9" * 5000), "malformed_message"),
    ("an id that is a number", _frame('{"type": "ping"}', fid="5"), "invalid_message"),
    ("truncated JSON", _frame('{"type": "ping"}')[:-3], "malformed_message"),
]


@pytest.mark.parametrize(("name", "text", "code"), CASES, ids=[c[0] for c in CASES])
def test_bad_frame_gets_a_typed_error_and_the_connection_stays(fast_server, name, text, code):
    with client(fast_server) as c:
        c.conn.send(text)
        env = c.recv()
        assert env["msg"]["type"] == "error" and env["msg"]["code"] == code, (name, env)
        mid = c.send({"type": "ping"})
        env = c.recv()
        assert env["parent_id"] == mid and env["msg"]["type"] == "pong"


# ---------------------------------------------------------------- the fuzzer


class Strategies:
    """Seeded generators of JSON-ish text, composed like hypothesis strategies."""

    RAW = ["NaN", "Infinity", "-Infinity", "1e999", "-0", "9" * 400, "tru", "nul", "0x10", "+1"]
    ESCAPES = ["\\ud800", "\\udfff", "\\ud83d\\ude00", "\\u0000", "\\n", "\\\\", '\\"', "\\u2028"]

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def string(self) -> str:
        """A JSON string literal: any characters, escapes a Python str cannot encode, long."""
        r = self.r
        parts = []
        for _ in range(r.choice([0, 1, 3, 12])):
            kind = r.random()
            if kind < 0.3:
                parts.append(r.choice(self.ESCAPES))
            elif kind < 0.6:
                parts.append(
                    json.dumps(
                        chr(
                            r.choice(
                                [
                                    r.randrange(32, 127),
                                    r.randrange(0x80, 0xD7FF),
                                    r.randrange(0xE000, 0x10FFFF),
                                ]
                            )
                        )
                    )[1:-1]
                )
            else:
                parts.append(
                    r.choice(
                        ["run_request", "ping", "hello", "c-1", "x" * r.choice([1, 64, 65, 3000])]
                    )
                )
        return '"' + "".join(parts) + '"'

    def value(self, depth: int = 0) -> str:
        r = self.r
        roll = r.random()
        if depth > 3 or roll < 0.45:
            return r.choice(
                [
                    self.string(),
                    str(r.randint(-(2**70), 2**70)),
                    repr(r.uniform(-1e6, 1e6)),
                    "true",
                    "false",
                    "null",
                    r.choice(self.RAW),
                ]
            )
        if roll < 0.7:
            return "[" + ",".join(self.value(depth + 1) for _ in range(r.randrange(4))) + "]"
        if roll < 0.75:
            n = r.choice([50, 199, 201, 1000])
            return "[" * n + "]" * n
        keys = ["type", "code", "settings", "run_id", "client", "timeout_s", "max_cards", "x"]
        items = [
            f"{json.dumps(r.choice(keys))}:{self.value(depth + 1)}" for _ in range(r.randrange(4))
        ]
        return "{" + ",".join(items) + "}"

    def msg(self) -> str:
        r = self.r
        mtype = r.choice(["hello", "ping", "run_request", "cancel_request", "run_reply", "nope"])
        fields = {"type": json.dumps(mtype)}
        if mtype == "run_request" and r.random() < 0.5:
            fields["code"] = self.string()
        if mtype == "run_request" and r.random() < 0.5:
            settings = {
                k: self.value(2)
                for k in r.sample(
                    ["timeout_s", "max_cards", "enable_x64", "compile", "loop_iterations"],
                    r.randrange(3),
                )
            }
            fields["settings"] = "{" + ",".join(f'"{k}":{v}' for k, v in settings.items()) + "}"
        if mtype == "cancel_request":
            fields["run_id"] = self.string()
        for _ in range(r.choice([0, 0, 1])):
            fields[r.choice(["client", "extra", "type"])] = self.value(1)
        return "{" + ",".join(f'"{k}":{v}' for k, v in fields.items()) + "}"

    def frame(self) -> str | bytes:
        r = self.r
        roll = r.random()
        if roll < 0.04:
            return bytes(r.randrange(256) for _ in range(r.randrange(1, 40)))
        if roll < 0.1:
            return self.value()
        env = {
            "protocol_version": r.choice(
                ["2"] * 30 + ["1", "3", "true", "2.0", '"2"', "null", self.value(2)]
            ),
            "id": r.choice(['"f"', '"f"', self.string(), self.value(2)]),
            "msg": r.choice([self.msg()] * 5 + [self.value(1)]),
        }
        if r.random() < 0.2:
            env["parent_id"] = r.choice([self.string(), "null", self.value(2)])
        keys = list(env)
        if r.random() < 0.1:
            del env[r.choice(keys)]
        text = "{" + ",".join(f'"{k}":{v}' for k, v in env.items()) + "}"
        if r.random() < 0.05:
            cut = r.randrange(len(text))
            text = text[:cut] + r.choice(["", "\x00", "}", "\ufffd", "\\"]) + text[cut + 1 :]
        return text


def test_fuzzed_frames_get_answers_without_drops_or_tracebacks(fast_server):
    strategies = Strategies(seed=13)
    log_before = len(fast_server.log_text())
    sent = 0
    with client(fast_server) as c:
        for _batch in range(100):
            for _ in range(101):
                c.conn.send(strategies.frame())
                sent += 1
            mid = c.send({"type": "ping"})
            while True:  # every answer validates against ServerEnvelope (Client.recv)
                env = c.recv(timeout=60)
                assert not (env["msg"]["type"] == "error" and env["msg"]["code"] == "internal")
                if env["parent_id"] == mid and env["msg"]["type"] == "pong":
                    break
    assert sent >= 10_000
    log = fast_server.log_text()[log_before:]
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]
    assert log.count("connection open") == 1  # one connection, never dropped


# ---------------------------------------------------------------- HTTP bodies

SHARE_BODIES = [
    (b'{"code": "print(\\"\\ud800\\")"}', 422),
    (b'{"code": "x", "settings": {"timeout_s": NaN}}', 422),
    (b'{"code": "x", "settings": {"timeout_s": Infinity}}', 422),
    (b'{"code": "x", "settings": {"timeout_s": 1e999}}', 422),
    (b'{"code": ' + DEEP.encode() + b"}", 422),
    (b'{"code": "x", "settings": ' + DEEP.encode() + b"}", 422),
    (b"\xff\xfe\x00", 422),
    (b"", 422),
    (b"[]", 422),
    (b'{"code": "x"}' + b" " * (2 << 20), 413),
]


@pytest.mark.parametrize(("body", "status"), SHARE_BODIES, ids=range(len(SHARE_BODIES)))
def test_share_answers_4xx_to_bad_bodies(fast_server, body, status):
    headers = {"content-type": "application/json"}
    answer = httpx.post(fast_server.url + "/api/share", content=body, headers=headers)
    assert answer.status_code == status, answer.text[:300]
    answer.json()  # a JSON error body, whatever the input


def test_fuzzed_http_bodies_never_get_a_500(fast_server):
    strategies = Strategies(seed=7)
    with httpx.Client(base_url=fast_server.url) as http:
        for n in range(300):
            body = '{"code": ' + strategies.string() + ', "settings": ' + strategies.value(1) + "}"
            if n % 3 == 0:
                body = strategies.value()
            answer = http.post("/api/share", content=body.encode("utf-8", "surrogatepass"))
            assert answer.status_code < 500, (body[:200], answer.text[:200])
        for path in ("/api/share/%ED%A0%80", "/api/examples/%00", "/api/share/" + "x" * 5000):
            assert http.get(path).status_code < 500
    assert "Traceback" not in fast_server.log_text()
