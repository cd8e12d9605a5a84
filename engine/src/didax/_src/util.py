"""Small helpers shared by every layer of didax: strict map/zip, list splitting and
partitioning, tuple surgery, and caches keyed by weak references.

May import only the standard library (this is the bottom layer).
"""

from __future__ import annotations

import functools
import itertools as it
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_builtin_map, _builtin_zip = map, zip


def safe_zip(*args: Sequence[Any]) -> list[tuple[Any, ...]]:
    """zip that raises when the sequences differ in length."""
    n = len(args[0])
    for a in args[1:]:
        if len(a) != n:
            raise ValueError(f"length mismatch: {list(_builtin_map(len, args))}")
    return list(_builtin_zip(*args))


def safe_map(f: Callable[..., T], *args: Sequence[Any]) -> list[T]:
    """map that raises when the sequences differ in length."""
    n = len(args[0])
    for a in args[1:]:
        if len(a) != n:
            raise ValueError(f"length mismatch: {list(_builtin_map(len, args))}")
    return list(_builtin_map(f, *args))


def split_list(xs: Sequence[T], ns: Sequence[int]) -> list[list[T]]:
    """Splits xs into consecutive chunks of sizes ns plus the remainder."""
    xs = list(xs)
    out = []
    for n in ns:
        out.append(xs[:n])
        xs = xs[n:]
    out.append(xs)
    return out


def split_half(xs: Sequence[T]) -> tuple[list[T], list[T]]:
    n = len(xs) // 2
    return list(xs[:n]), list(xs[n:])


def partition_list(bs: Sequence[bool], xs: Sequence[T]) -> tuple[list[T], list[T]]:
    """Returns (xs where not b, xs where b)."""
    lists: tuple[list[T], list[T]] = ([], [])
    for b, x in _builtin_zip(bs, xs):
        lists[bool(b)].append(x)
    return lists


def merge_lists(bs: Sequence[bool], l0: Sequence[T], l1: Sequence[T]) -> list[T]:
    """Inverse of partition_list."""
    i0, i1 = iter(l0), iter(l1)
    out = [next(i1) if b else next(i0) for b in bs]
    sentinel = object()
    assert next(i0, sentinel) is sentinel and next(i1, sentinel) is sentinel
    return out


def tuple_insert(t: tuple, idx: int, val: Any) -> tuple:
    return t[:idx] + (val,) + t[idx:]


def tuple_delete(t: tuple, idx: int) -> tuple:
    return t[:idx] + t[idx + 1 :]


def tuple_replace(t: tuple, idx: int, val: Any) -> tuple:
    return t[:idx] + (val,) + t[idx + 1 :]


def canonicalize_axis(axis: int, ndim: int) -> int:
    """Maps a possibly negative axis into [0, ndim), raising like NumPy/JAX."""
    import operator

    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def prod(xs: Iterable[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def unzip2(pairs: Iterable[tuple[Any, Any]]) -> tuple[tuple, tuple]:
    a, b = [], []
    for x, y in pairs:
        a.append(x)
        b.append(y)
    return tuple(a), tuple(b)


def concatenate(xss: Iterable[Iterable[T]]) -> list[T]:
    return list(it.chain.from_iterable(xss))


def weakref_cache(fn: Callable) -> Callable:
    """Caches fn(obj, *args) per live obj (held weakly), keyed by the hashable args."""
    tables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(fn)
    def wrapper(obj, *args):
        try:
            table = tables[obj]
        except KeyError:
            table = tables[obj] = {}
        except TypeError:
            return fn(obj, *args)
        try:
            return table[args]
        except KeyError:
            out = table[args] = fn(obj, *args)
            return out

    wrapper.cache_clear = tables.clear  # type: ignore[attr-defined]
    return wrapper


class HashableFunction:
    """A callable with an explicit hash key (for caches keyed on closures)."""

    __slots__ = ("f", "key")

    def __init__(self, f: Callable, key: Any):
        self.f, self.key = f, key

    def __call__(self, *args, **kwargs):
        return self.f(*args, **kwargs)

    def __eq__(self, other):
        return isinstance(other, HashableFunction) and self.key == other.key

    def __hash__(self):
        return hash(self.key)


def fun_name(f: Any) -> str:
    """A function's printable name, as JAX derives it (partials unwrapped)."""
    while isinstance(f, functools.partial):
        f = f.func
    name = getattr(f, "__name__", None)
    if name is None:
        name = type(f).__name__
    return name
