"""The committed generated files match what the models produce now (fails when stale)."""

from __future__ import annotations

import runpy
import subprocess
import sys

from conftest import ROOT
from shared_schemas.codegen import protocol_schema, typescript

from shared_schemas import ServerEnvelope

GEN = ROOT / "scripts" / "generate.py"


def test_generated_files_are_not_stale():
    proc = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_check_detects_a_stale_file(tmp_path, monkeypatch):
    module = runpy.run_path(str(GEN))
    target = tmp_path / "generated" / "messages.gen.ts"
    target.parent.mkdir()
    target.write_text("// old\n")
    monkeypatch.setitem(module["main"].__globals__, "ROOT", tmp_path)
    assert module["main"](["--check"]) == 1
    assert target.read_text() == "// old\n"
    assert module["main"]([]) == 0
    assert module["main"](["--check"]) == 0


def test_generation_is_deterministic():
    assert typescript(protocol_schema()) == typescript(protocol_schema())


def test_typescript_has_discriminated_unions_and_every_definition():
    ts = typescript(protocol_schema())
    for name in protocol_schema()["$defs"]:
        assert f"export interface {name} {{" in ts
    assert "export type ServerMessage = Welcome | Status | Stream | TraceCardMessage" in ts
    assert "export type ClientMessage = Hello | RunRequest | CancelRequest | Ping;" in ts
    assert '  type: "run_request";' in ts
    assert "  parent_id: string | null;" in ts  # snake_case kept


def test_schema_discriminator_is_ajv_compatible():
    msg = protocol_schema()["$defs"]["ServerEnvelope"]["properties"]["msg"]
    assert msg["discriminator"] == {"propertyName": "type"}
    assert ServerEnvelope.__name__ in protocol_schema()["$defs"]
