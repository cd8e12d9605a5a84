"""Write (or, with --check, verify) the generated protocol files.

    python shared_schemas/scripts/generate.py          # rewrite generated/*
    python shared_schemas/scripts/generate.py --check  # exit 1 if they are stale

Outputs: generated/protocol.schema.json and generated/messages.gen.ts, both derived from the
pydantic models in src/shared_schemas by `shared_schemas.codegen`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shared_schemas.codegen import protocol_schema, schema_text, typescript

ROOT = Path(__file__).resolve().parent.parent
OUTPUTS = {
    "protocol.schema.json": lambda schema: schema_text(schema),
    "messages.gen.ts": lambda schema: typescript(schema),
}


def expected_files() -> dict[Path, str]:
    """Path -> the text it should hold."""
    schema = protocol_schema()
    return {ROOT / "generated" / name: make(schema) for name, make in OUTPUTS.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if generated files are stale")
    args = parser.parse_args(argv)
    stale = []
    for path, text in expected_files().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if args.check and stale:
        names = ", ".join(str(p.relative_to(ROOT)) for p in stale)
        print(f"stale generated files: {names}; run scripts/generate.py", file=sys.stderr)
        return 1
    for path in stale:
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
