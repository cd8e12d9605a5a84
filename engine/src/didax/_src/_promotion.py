"""The type-promotion lattice behind ``didax.dtypes.result_type`` (JAX 0.10.2 semantics).

Holds the lattice nodes (every JAX array dtype plus the three weak Python types ``int``,
``float``, ``complex``), the "standard" lattice for x64 on/off, the "strict" lattice, and
``least_upper_bound``, which raises ``TypePromotionError`` with JAX's messages.
Imports only numpy and ml_dtypes; ``didax._src.dtypes`` builds on it.
"""

from __future__ import annotations

import functools
from typing import Any

import ml_dtypes
import numpy as np

JAXType = type | np.dtype

# Weak types are the Python scalar *classes*; they are compared by identity.
WEAK_TYPES: tuple[type, ...] = (int, float, complex)


def _dt(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name) if hasattr(ml_dtypes, name) else name)


def _optional(*names: str) -> list[np.dtype]:
    return [_dt(n) for n in names if hasattr(ml_dtypes, n)]


BOOL = np.dtype(bool)
# Sub-byte integers; int1/uint1 only exist in recent ml_dtypes releases.
NARROW_SIGNED: list[np.dtype] = _optional("int1") + [_dt("int2"), _dt("int4")]
NARROW_UNSIGNED: list[np.dtype] = _optional("uint1") + [_dt("uint2"), _dt("uint4")]
SIGNED: list[np.dtype] = NARROW_SIGNED + [_dt(f"int{b}") for b in (8, 16, 32, 64)]
UNSIGNED: list[np.dtype] = NARROW_UNSIGNED + [_dt(f"uint{b}") for b in (8, 16, 32, 64)]
FLOAT8: list[np.dtype] = [
    _dt(n) for n in ("float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz",
                     "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")]
FLOAT6: list[np.dtype] = [_dt("float6_e2m3fn"), _dt("float6_e3m2fn")]
FLOAT4: list[np.dtype] = [_dt("float4_e2m1fn")]
BFLOAT16 = _dt("bfloat16")
# "Custom" floats: the ml_dtypes floating types, which numpy's hierarchy does not know.
CUSTOM_FLOATS: list[np.dtype] = FLOAT4 + FLOAT6 + FLOAT8 + [BFLOAT16]
FLOATS: list[np.dtype] = CUSTOM_FLOATS + [_dt("float16"), _dt("float32"), _dt("float64")]
COMPLEX: list[np.dtype] = [_dt("complex64"), _dt("complex128")]
ALL_JAX_TYPES: list[np.dtype] = [BOOL, *UNSIGNED, *SIGNED, *FLOATS, *COMPLEX]


class TypePromotionError(ValueError):
    """Raised when JAX type promotion fails."""


def _standard_lattice(x64: bool) -> dict[JAXType, list[JAXType]]:
    """Immediate successors of every node on the standard (non-strict) lattice."""
    i_, f_, c_ = WEAK_TYPES
    u8, u16, u32, u64 = UNSIGNED[-4:]
    i8, i16, i32, i64 = SIGNED[-4:]
    f16, f32, f64 = FLOATS[-3:]
    c64, c128 = COMPLEX
    succ: dict[JAXType, list[JAXType]] = {n: [] for n in (*ALL_JAX_TYPES, *WEAK_TYPES)}
    succ[BOOL] = [i_]
    # A weak int sits below every integer type (the narrow ones are dead ends).
    succ[i_] = [u8, i8, *NARROW_SIGNED, *NARROW_UNSIGNED]
    succ[u8], succ[u16] = [u16, i16], [u32, i32]
    # Without x64, u32 x i32 must not form i64: u32 sits below i32 instead.
    succ[u32], succ[u64] = [u64, i64 if x64 else i32], [f_]
    succ[i8], succ[i16], succ[i32], succ[i64] = [i16], [i32], [i64], [f_]
    succ[f_] = [*CUSTOM_FLOATS, f16, c_]
    succ[BFLOAT16], succ[f16] = [f32], [f32]
    succ[f32], succ[f64] = [f64, c64], [c128]
    succ[c_], succ[c64] = [c64], [c128]
    return succ


def _strict_lattice() -> dict[JAXType, list[JAXType]]:
    """Strict mode: only weak types promote, and only to their own category."""
    i_, f_, c_ = WEAK_TYPES
    succ: dict[JAXType, list[JAXType]] = {n: [] for n in ALL_JAX_TYPES}
    succ[i_] = [f_, *UNSIGNED, *SIGNED]
    succ[f_] = [c_, *FLOATS]
    succ[c_] = list(COMPLEX)
    return succ


def _upper_bounds(succ: dict[JAXType, list[JAXType]]) -> dict[JAXType, frozenset]:
    """Reflexive-transitive closure of the successor relation (node -> all nodes >= it)."""
    closure: dict[JAXType, frozenset] = {}

    def visit(node: JAXType, path: tuple) -> frozenset:
        if any(node is p for p in path):  # identity: float == np.dtype('float64')
            raise ValueError(f"cycle detected in type promotion lattice for node {node}")
        if node not in closure:
            above = {node}
            for nxt in succ[node]:
                above |= visit(nxt, path + (node,))
            closure[node] = frozenset(above)
        return closure[node]

    for node in succ:
        visit(node, ())
    return closure


_UPPER_BOUNDS: dict[tuple[bool, bool], dict[JAXType, frozenset]] = {
    (False, True): _upper_bounds(_standard_lattice(x64=True)),
    (False, False): _upper_bounds(_standard_lattice(x64=False)),
}
_UPPER_BOUNDS[(True, True)] = _UPPER_BOUNDS[(True, False)] = _upper_bounds(_strict_lattice())


def upper_bounds(strict: bool, x64: bool) -> dict[JAXType, frozenset]:
    """The map node -> set of nodes above it, for the given mode (read-only)."""
    return _UPPER_BOUNDS[(strict, x64)]


@functools.lru_cache(maxsize=1024)
def least_upper_bound(strict: bool, x64: bool, *nodes: JAXType) -> JAXType:
    """Join of ``nodes`` (dtypes and/or weak Python types) on the selected lattice."""
    ub = _UPPER_BOUNDS[(strict, x64)]
    bounds = []
    for n in nodes:
        b = ub.get(n)
        if b is None:
            raise ValueError(f"dtype={n!r} is not a valid dtype for JAX type promotion.")
        bounds.append(b)
    common = frozenset.intersection(*bounds)
    # Among common upper bounds, the least one has the most nodes above it; it is the
    # answer only if every common bound is above it.
    best = max(common, key=lambda c: len(ub[c]), default=None)
    if best is not None and common <= ub[best]:
        return best
    if best is None:
        raise TypePromotionError(_no_path_message(strict, nodes))
    raise TypePromotionError(
        f"Internal Type Promotion error: {nodes} do not have a unique least upper bound "
        f"on the specified lattice; options are {set(common)}. This is an unexpected "
        "error in JAX's internal logic; please report it to the JAX maintainers.")


def _no_path_message(strict: bool, nodes: tuple[Any, ...]) -> str:
    head = (f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit "
            "dtype promotion path")
    if strict:
        return (f"{head} when jax_numpy_dtype_promotion=strict. Try explicitly casting "
                "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard.")
    for group, what in ((FLOAT8, "8-bit floats"), (FLOAT6, "6-bit floats"),
                        (FLOAT4, "4-bit floats")):
        if any(n in group for n in nodes):
            return (f"{head}. To avoid unintended promotion, {what} do not support implicit "
                    "promotion. If you'd like your inputs to be promoted to another type, you "
                    "can do so explicitly using e.g. x.astype('float32')")
    if any(n in NARROW_SIGNED or n in NARROW_UNSIGNED for n in nodes):
        return (f"{head}. To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do "
                "not support implicit promotion. If you'd like your inputs to be promoted to "
                "another type, you can do so explicitly using e.g. x.astype('int32')")
    return f"{head}. Try explicitly casting inputs to the desired output type."
