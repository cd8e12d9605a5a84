"""Shared fixtures: the example files and the generated schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared_schemas import ClientEnvelope, ServerEnvelope

ROOT = Path(__file__).resolve().parent.parent
VALID = sorted((ROOT / "examples" / "valid").glob("*.json"))
INVALID = sorted((ROOT / "examples" / "invalid").glob("*.json"))


def envelope_for(path: Path) -> type[ClientEnvelope] | type[ServerEnvelope]:
    """The envelope model a sample must be checked against, from its file name."""
    side = path.name.split(".", 1)[0]
    return {"client": ClientEnvelope, "server": ServerEnvelope}[side]


@pytest.fixture(scope="session")
def schema() -> dict:
    return json.loads((ROOT / "generated" / "protocol.schema.json").read_text())
