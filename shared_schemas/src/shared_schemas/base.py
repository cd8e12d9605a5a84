"""The base model every wire type derives from, and the protocol version.

Strict validation (no string-to-number coercion) and no unknown fields, so that pydantic and a
JSON Schema validator (ajv on the page) accept and reject the same messages.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

PROTOCOL_VERSION = 2


class WireModel(BaseModel):
    """Base of all protocol models: strict, closed, snake_case field names as on the wire."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=False)
