"""A Wadler–Lindig ("strictly pretty") document printer, used to print jaxprs exactly as
JAX lays them out: a group prints flat when its own contents fit the remaining width,
otherwise its breaks become newlines at the current nesting.

Documents can carry a `source_map` marker; formatting then also reports the character span
of every marked sub-document (the playground links jaxpr text to equations with it).
May import only the standard library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Doc:
    __slots__ = ()

    def format(self, width: int = 80, spans: list | None = None) -> str:
        return _format(self, width, spans)

    def __str__(self) -> str:
        return self.format()

    def __add__(self, other: Doc) -> Doc:
        return concat([self, other])


class _Nil(Doc):
    __slots__ = ()


class _Text(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class _Concat(Doc):
    __slots__ = ("children",)

    def __init__(self, children: list[Doc]):
        self.children = children


class _Break(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class _Group(Doc):
    __slots__ = ("child",)

    def __init__(self, child: Doc):
        self.child = child


class _Nest(Doc):
    __slots__ = ("n", "child")

    def __init__(self, n: int, child: Doc):
        self.n, self.child = n, child


class _SourceMap(Doc):
    __slots__ = ("child", "source")

    def __init__(self, child: Doc, source: Any):
        self.child, self.source = child, source


class _End:
    """Agenda marker closing a source-mapped region."""

    __slots__ = ("source", "start")

    def __init__(self, source: Any, start: int):
        self.source, self.start = source, start


_FLAT, _BREAK = 0, 1
_nil = _Nil()


def _fits(doc: Doc, width: int) -> bool:
    """Whether `doc` printed flat fits in `width` columns (only this group counts)."""
    agenda = [doc]
    while width >= 0 and agenda:
        d = agenda.pop()
        t = type(d)
        if t is _Text or t is _Break:
            width -= len(d.text)
        elif t is _Concat:
            agenda.extend(reversed(d.children))
        elif t is _Nest or t is _Group or t is _SourceMap:
            agenda.append(d.child)
    return width >= 0


def _format(doc: Doc, width: int, spans: list | None) -> str:
    out: list[str] = []
    pos = 0  # characters emitted so far
    k = 0  # current column
    agenda: list[Any] = [(0, _BREAK, doc)]
    while agenda:
        item = agenda.pop()
        if type(item) is _End:
            if spans is not None:
                spans.append((item.start, pos, item.source))
            continue
        i, m, d = item
        t = type(d)
        if t is _Text:
            out.append(d.text)
            pos += len(d.text)
            k += len(d.text)
        elif t is _Concat:
            agenda.extend((i, m, c) for c in reversed(d.children))
        elif t is _Break:
            if m == _BREAK:
                s = "\n" + " " * i
                k = i
            else:
                s = d.text
                k += len(s)
            out.append(s)
            pos += len(s)
        elif t is _Nest:
            agenda.append((i + d.n, m, d.child))
        elif t is _Group:
            mode = _FLAT if _fits(d.child, width - k) else _BREAK
            agenda.append((i, mode, d.child))
        elif t is _SourceMap:
            agenda.append(_End(d.source, pos))
            agenda.append((i, m, d.child))
    return "".join(out)


def nil() -> Doc:
    return _nil


def text(s: str) -> Doc:
    return _Text(s)


def concat(docs: Sequence[Doc]) -> Doc:
    docs = [d for d in docs if d is not _nil]
    if len(docs) == 1:
        return docs[0]
    return _Concat(docs)


def brk(s: str = " ") -> Doc:
    return _Break(s)


def group(doc: Doc) -> Doc:
    return _Group(doc)


def nest(n: int, doc: Doc) -> Doc:
    return _Nest(n, doc)


def source_map(doc: Doc, source: Any) -> Doc:
    return _SourceMap(doc, source)


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
    docs = list(docs)
    if not docs:
        return _nil
    xs = [docs[0]]
    for d in docs[1:]:
        xs.append(sep)
        xs.append(d)
    return concat(xs)
