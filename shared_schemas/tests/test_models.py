"""Model behaviour: discrimination, defaults, strictness and the envelope helper."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from shared_schemas import (
    PROTOCOL_VERSION,
    ClientEnvelope,
    ErrorMessage,
    RunReply,
    RunRequest,
    RunSettings,
    ServerEnvelope,
    Status,
    server_envelope,
)


def test_run_request_defaults():
    env = ClientEnvelope.model_validate_json(
        '{"protocol_version":2,"id":"a","msg":{"type":"run_request","code":"x=1"}}'
    )
    assert isinstance(env.msg, RunRequest)
    assert env.parent_id is None
    assert env.msg.settings == RunSettings(
        enable_x64=False, timeout_s=10.0, compile=True, max_cards=32
    )


def test_discriminator_selects_the_model():
    env = server_envelope(
        "s-1", "c-1", Status(type="status", run_id="c-1", state="done", detail=None, elapsed_ms=1.5)
    )
    parsed = ServerEnvelope.model_validate_json(env.model_dump_json())
    assert isinstance(parsed.msg, Status) and parsed.msg.state == "done"
    assert parsed.protocol_version == PROTOCOL_VERSION


def test_strict_no_coercion():
    with pytest.raises(ValidationError):
        RunSettings.model_validate_json('{"max_cards": "3"}')
    assert RunSettings.model_validate_json('{"timeout_s": 3}').timeout_s == 3.0


def test_round_trip_every_server_message_kind():
    msgs = [
        ErrorMessage(type="error", code="busy", message="a run is in progress", detail=None),
        RunReply(type="run_reply", run_id="c-1", ok=True, duration_ms=2.0, n_cards=0, error=None),
    ]
    for i, msg in enumerate(msgs):
        env = server_envelope(f"s-{i}", None, msg)
        text = env.model_dump_json()
        assert json.loads(text)["msg"]["type"] == msg.type
        assert ServerEnvelope.model_validate_json(text) == env


def test_unknown_type_is_rejected_with_a_union_tag_error():
    with pytest.raises(ValidationError) as info:
        ClientEnvelope.model_validate_json('{"protocol_version":2,"id":"a","msg":{"type":"nope"}}')
    assert info.value.errors()[0]["type"] == "union_tag_invalid"
