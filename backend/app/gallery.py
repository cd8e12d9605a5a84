"""The curated example programs shown in the page's examples menu.

Each example is a file `app/examples/NN-id.py` that starts with header comments:

    # title: Gradients with grad, jvp, vjp and linearize
    # description: One line for the menu.

The files are data: the server reads their text and never imports or runs them.

Imports: the standard library and shared_schemas.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from shared_schemas import Example

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
_NAME = re.compile(r"^(\d+)-([a-z0-9-]+)\.py$")
_HEADER = re.compile(r"^#\s*(title|description):\s*(.+?)\s*$")


def _parse(path: Path, example_id: str) -> Example:
    text = path.read_text(encoding="utf-8")
    meta: dict[str, str] = {}
    body_start = 0
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        match = _HEADER.match(line)
        if not match:
            body_start = i
            break
        meta[match.group(1)] = match.group(2)
    if "title" not in meta or "description" not in meta:
        raise ValueError(f"{path.name}: missing '# title:' or '# description:' header")
    code = "".join(lines[body_start:]).lstrip("\n")
    return Example(id=example_id, title=meta["title"], description=meta["description"], code=code)


@lru_cache(maxsize=1)
def load_examples(directory: Path = EXAMPLES_DIR) -> tuple[Example, ...]:
    """All examples, in file-name order."""
    found = []
    for path in sorted(directory.glob("*.py")):
        match = _NAME.match(path.name)
        if match:
            found.append(_parse(path, match.group(2)))
    return tuple(found)


def get_example(example_id: str) -> Example | None:
    return next((e for e in load_examples() if e.id == example_id), None)
