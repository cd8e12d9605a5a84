"""Every valid sample validates and every invalid one fails, with pydantic and with the
generated JSON Schema (the same check the page runs with ajv)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import INVALID, VALID, envelope_for
from pydantic import ValidationError


def _validator(schema: dict, path: Path) -> jsonschema.Draft202012Validator:
    name = envelope_for(path).__name__
    sub = {"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]}
    return jsonschema.Draft202012Validator(sub)


def test_there_are_samples_for_every_message_type():
    types = {json.loads(p.read_text())["msg"]["type"] for p in VALID}
    assert types == {
        "hello",
        "run_request",
        "cancel_request",
        "ping",
        "welcome",
        "status",
        "stream",
        "display",
        "trace_card",
        "trace_card_chunk",
        "card_update",
        "run_reply",
        "error",
        "pong",
    }
    assert len(INVALID) >= 10


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_sample_validates_and_round_trips(path: Path, schema: dict):
    text = path.read_text()
    model = envelope_for(path).model_validate_json(text)
    again = type(model).model_validate_json(model.model_dump_json())
    assert again == model
    dumped = model.model_dump(mode="json")
    original = json.loads(text)
    if ".minimal" not in path.name:  # minimal samples rely on defaults the dump fills in
        assert dumped == original
    _validator(schema, path).validate(original)
    _validator(schema, path).validate(dumped)


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_sample_fails(path: Path, schema: dict):
    text = path.read_text()
    with pytest.raises(ValidationError):
        envelope_for(path).model_validate_json(text)
    errors = list(_validator(schema, path).iter_errors(json.loads(text)))
    assert errors, f"{path.name} passed the JSON Schema"
