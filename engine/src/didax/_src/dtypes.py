"""Didax's dtype system, mirroring ``jax._src.dtypes`` of JAX 0.10.2.

Holds the supported dtypes (numpy's plus ml_dtypes' bfloat16, float8/6/4, int1/2/4), x64
canonicalization, ``dtype()``/weak-type inspection, JAX's type promotion (``result_type``,
``promote_types``, on the lattice in ``_promotion``), ``issubdtype``/``isdtype``, fast
per-dtype predicates, jaxpr short names and the extended-dtype hooks for PRNG keys.
May import only the standard library, numpy, ml_dtypes, ``config`` and ``_promotion``.
"""

from __future__ import annotations

import abc
import functools
import warnings
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from didax._src import _promotion as _P
from didax._src._promotion import TypePromotionError as TypePromotionError  # re-export
from didax._src.config import ExplicitX64Mode, config

DType = np.dtype
DTypeLike = Any


class extended(np.generic):
    """Abstract scalar class of extended dtypes, for ``issubdtype(dt, extended)``."""


class prng_key(extended):
    """Abstract scalar class of PRNG key dtypes, for ``issubdtype(dt, prng_key)``."""


class ExtendedDType(abc.ABC):
    """Base class of extended (non-numpy) dtypes such as typed PRNG keys.

    Subclasses provide ``type`` (a subclass of ``extended``) and usually ``name`` and
    ``_rules``; instances must be hashable.
    """

    @property
    @abc.abstractmethod
    def type(self) -> type: ...

    _rules: Any = None


# --- dtype constants ------------------------------------------------------------------
bfloat16: type[np.generic] = ml_dtypes.bfloat16
float8_e3m4: type[np.generic] = ml_dtypes.float8_e3m4
float8_e4m3: type[np.generic] = ml_dtypes.float8_e4m3
float8_e8m0fnu: type[np.generic] = ml_dtypes.float8_e8m0fnu
float8_e4m3b11fnuz: type[np.generic] = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn: type[np.generic] = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz: type[np.generic] = ml_dtypes.float8_e4m3fnuz
float8_e5m2: type[np.generic] = ml_dtypes.float8_e5m2
float8_e5m2fnuz: type[np.generic] = ml_dtypes.float8_e5m2fnuz
float6_e2m3fn: type[np.generic] = ml_dtypes.float6_e2m3fn
float6_e3m2fn: type[np.generic] = ml_dtypes.float6_e3m2fn
float4_e2m1fn: type[np.generic] = ml_dtypes.float4_e2m1fn
int2: type[np.generic] = ml_dtypes.int2
uint2: type[np.generic] = ml_dtypes.uint2
int4: type[np.generic] = ml_dtypes.int4
uint4: type[np.generic] = ml_dtypes.uint4
int1: type[np.generic] | None = getattr(ml_dtypes, "int1", None)
uint1: type[np.generic] | None = getattr(ml_dtypes, "uint1", None)

# Trivial vector-space dtype of tangents of integer/bool primals.
float0: np.dtype = np.dtype([("float0", np.void, 0)])
string_dtype: np.dtype = np.dtypes.StringDType()

bool_ = np.bool_
int_: type = np.int64
uint: type = np.uint64
float_: type = np.float64
complex_: type = np.complex128

iinfo = ml_dtypes.iinfo
finfo = ml_dtypes.finfo
can_cast = np.can_cast

_CUSTOM_FLOAT_DTYPES = frozenset(_P.CUSTOM_FLOATS)
_CUSTOM_FLOAT_SCALARS = frozenset(d.type for d in _P.CUSTOM_FLOATS)
_NARROW_SIGNED_SCALARS = frozenset(d.type for d in _P.NARROW_SIGNED)
_NARROW_UNSIGNED_SCALARS = frozenset(d.type for d in _P.NARROW_UNSIGNED)
_INTN_DTYPES = frozenset(_P.NARROW_SIGNED + _P.NARROW_UNSIGNED)
_JAX_DTYPE_SET = frozenset([float0, string_dtype, *_P.ALL_JAX_TYPES])

# Category of every array dtype: 'b' bool, 'i' signed, 'u' unsigned, 'f' real float,
# 'c' complex. Anything else (float0, strings, extended dtypes) has no category.
_KIND: dict[Any, str | None] = {
    **{d: "b" for d in [_P.BOOL]}, **{d: "i" for d in _P.SIGNED},
    **{d: "u" for d in _P.UNSIGNED}, **{d: "f" for d in _P.FLOATS},
    **{d: "c" for d in _P.COMPLEX},
}
_KIND_BY_DTYPE = dict(_KIND)  # frozen copy holding only true dtypes


def _kind(dt: Any) -> str | None:
    """Category letter of ``dt`` (cached; accepts anything ``np.dtype`` accepts)."""
    try:
        return _KIND[dt]
    except KeyError:
        pass
    except TypeError:  # unhashable
        return _KIND_BY_DTYPE.get(np.dtype(dt))
    if isinstance(dt, ExtendedDType):
        k = None
    else:
        k = _KIND_BY_DTYPE.get(np.dtype(dt))
    _KIND[dt] = k
    return k


def is_bool(dt: DTypeLike) -> bool:
    return _kind(dt) == "b"


def is_signed(dt: DTypeLike) -> bool:
    """Signed integer (int1 ... int64); floats are not included."""
    return _kind(dt) == "i"


def is_unsigned(dt: DTypeLike) -> bool:
    return _kind(dt) == "u"


def is_int(dt: DTypeLike) -> bool:
    """Signed or unsigned integer (bool excluded)."""
    k = _kind(dt)
    return k == "i" or k == "u"


def is_float(dt: DTypeLike) -> bool:
    """Real floating point, including bfloat16 and the float8/6/4 types."""
    return _kind(dt) == "f"


def is_complex(dt: DTypeLike) -> bool:
    return _kind(dt) == "c"


def is_inexact(dt: DTypeLike) -> bool:
    k = _kind(dt)
    return k == "f" or k == "c"


# --- defaults and canonicalization ----------------------------------------------------
_I32, _I64 = np.dtype("int32"), np.dtype("int64")
_U32, _U64 = np.dtype("uint32"), np.dtype("uint64")
_F32, _F64 = np.dtype("float32"), np.dtype("float64")
_C64, _C128 = np.dtype("complex64"), np.dtype("complex128")
_BOOL = _P.BOOL
# The unsigned integer type of each item size: a value's bits, for bit-exact host kernels.
UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_TO_32BIT = {_I64: _I32, _U64: _U32, _F64: _F32, _C128: _C64}


def default_int_dtype() -> DType:
    return _I64 if config.x64_enabled else _I32


def default_uint_dtype() -> DType:
    return _U64 if config.x64_enabled else _U32


def default_float_dtype() -> DType:
    return _F64 if config.x64_enabled else _F32


def default_complex_dtype() -> DType:
    return _C128 if config.x64_enabled else _C64


default_types: dict[str, Callable[[], DType]] = {
    "b": lambda: _BOOL, "i": default_int_dtype, "u": default_uint_dtype,
    "f": default_float_dtype, "c": default_complex_dtype,
}

# Canonical dtype per (x64 mode, input); the two dicts are the fast path.
_NP_DTYPE_TYPES = {type(d) for d in _P.ALL_JAX_TYPES}
_CANON: dict[bool, dict[Any, Any]] = {True: {}, False: {}}


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> DType:
    """The dtype ``dtype`` becomes under the current x64 mode (64-bit -> 32-bit if off)."""
    try:
        out = _CANON[config.x64_enabled][dtype]
    except (KeyError, TypeError):
        out = _canonicalize_slow(dtype)
    if not allow_extended_dtype and type(out) not in _NP_DTYPE_TYPES and isinstance(
            out, ExtendedDType):
        raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {dtype} "
                         "with allow_extended_dtype=False")
    return out


def _canonicalize_slow(dtype: Any) -> Any:
    x64 = config.x64_enabled
    if isinstance(dtype, ExtendedDType) or (
            isinstance(dtype, type) and issubclass(dtype, extended)):
        out = dtype
    else:
        dt = np.dtype(dtype)  # numpy's TypeError, as JAX lets it through
        out = dt if x64 else _TO_32BIT.get(dt, dt)
    try:
        _CANON[x64][dtype] = out
    except TypeError:  # unhashable input: do not cache
        pass
    return out


def _maybe_canonicalize_explicit_dtype(dtype: DType, fun_name: str) -> DType:
    """Canonicalize an explicitly requested dtype, warning/raising per jax_explicit_x64_dtypes."""
    if config.x64_enabled:
        return dtype
    mode = config.jax_explicit_x64_dtypes
    if mode == ExplicitX64Mode.ALLOW:
        return dtype
    canonical = canonicalize_dtype(dtype)
    if canonical == dtype:
        return dtype
    where = f" requested in {fun_name}" if fun_name else ""
    if mode == ExplicitX64Mode.ERROR:
        raise ValueError(
            f"Explicitly requested dtype {dtype}{where} is not available. To enable more "
            "dtypes, set the jax_enable_x64 or allow_explicit_x64_dtypes configuration "
            "options.See https://github.com/jax-ml/jax#current-gotchas for more.")
    warnings.warn(
        f"Explicitly requested dtype {dtype}{where} is not available, and will be "
        f"truncated to dtype {canonical.name}. To enable more dtypes, set the "
        "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell environment "
        "variable. See https://github.com/jax-ml/jax#current-gotchas for more.",
        stacklevel=4)
    return canonical


# --- Python scalars and weak types ------------------------------------------------------
python_scalar_types: frozenset[type] = frozenset({bool, int, float, complex})
python_scalar_types_to_dtypes: dict[type, DType] = {
    bool: _BOOL, int: _I64, float: _F64, complex: _C128,
}
_WEAK_SCALAR_TYPES = {int, float, complex}  # bool is never weak
_registered_weak_types: set[type] = set()
_types_whose_dtype_should_not_be_canonicalized: tuple[type, ...] = ()


def register_weak_scalar_type(typ: type) -> None:
    """Register a scalar type whose instances are weakly typed."""
    _registered_weak_types.add(typ)


def register_type_whose_dtype_should_not_be_canonicalized(typ: type) -> None:
    """Register an array type (e.g. didax Array) whose ``.dtype`` ``dtype()`` trusts as is."""
    global _types_whose_dtype_should_not_be_canonicalized
    _types_whose_dtype_should_not_be_canonicalized += (typ,)


def is_python_scalar(x: Any) -> bool:
    """True for values of exactly bool, int, float or complex (not numpy scalars)."""
    return type(x) in python_scalar_types


def is_weakly_typed(x: Any) -> bool:
    """Python int/float/complex values are weak; otherwise ``x.weak_type``/``x.aval.weak_type``."""
    t = type(x)
    if t in _WEAK_SCALAR_TYPES or t in _registered_weak_types:
        return True
    if t is bool or isinstance(x, (np.ndarray, np.generic)):
        return False
    w = getattr(x, "weak_type", None)
    if w is not None:
        return bool(w)
    try:
        return bool(x.aval.weak_type)
    except AttributeError:
        return False


def is_weakly_typed_scalar(x: Any) -> bool:
    try:
        return bool(x.aval.weak_type) and np.ndim(x) == 0
    except AttributeError:
        return type(x) in python_scalar_types


def _invalid_value(x: Any, dt: Any) -> TypeError:
    return TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array type. "
                     "Only arrays of numeric types are supported by JAX.")


def dtype(x: Any, *, canonicalize: bool = False) -> DType:
    """The dtype of a value or dtype-like ``x``.

    Python scalars and scalar types map to bool/int64/float64/complex128. With
    ``canonicalize=True`` the result follows ``jax.dtypes.dtype`` exactly: canonicalized for
    the x64 mode (warning when a 64-bit type is named explicitly), except for registered
    array types, whose dtype is kept as is.
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    dt = python_scalar_types_to_dtypes.get(type(x))
    if dt is not None:  # a Python scalar value
        return canonicalize_dtype(dt) if canonicalize else dt
    if isinstance(x, type):
        dt = python_scalar_types_to_dtypes.get(x)
        if dt is not None:
            return canonicalize_dtype(dt) if canonicalize else dt
        if issubclass(x, np.generic):
            dt = np.dtype(x)
            return _maybe_canonicalize_explicit_dtype(dt, "dtype") if canonicalize else dt
    elif isinstance(x, _types_whose_dtype_should_not_be_canonicalized):
        return x.dtype
    if isinstance(x, (str, np.dtype)):
        dt = np.dtype(x)
        if dt not in _JAX_DTYPE_SET:
            raise _invalid_value(x, dt)
        return _maybe_canonicalize_explicit_dtype(dt, "dtype") if canonicalize else dt
    return _dtype_of_value(x, canonicalize)


def _dtype_of_value(x: Any, canonicalize: bool) -> Any:
    dt = getattr(x, "dtype", None)
    if not isinstance(dt, (np.dtype, ExtendedDType)):
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    if isinstance(dt, ExtendedDType):
        return dt
    if dt not in _JAX_DTYPE_SET:
        raise _invalid_value(x, dt)
    return canonicalize_dtype(dt) if canonicalize else dt


def scalar_type_of(x: Any) -> type:
    """The Python scalar type (bool/int/float/complex) matching the dtype of ``x``."""
    k = _kind(dtype(x, canonicalize=True))
    if k is None:
        raise TypeError(f"Invalid scalar value {x}")
    return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[k]


def scalar_type_to_dtype(typ: type, value: Any = None) -> DType:
    """Canonical dtype for a Python scalar type; OverflowError if an int does not fit."""
    dt = canonicalize_dtype(python_scalar_types_to_dtypes[typ])
    if typ is int and value is not None:
        info = np.iinfo(dt)
        if value < info.min or value > info.max:
            raise OverflowError(f"Python int {value} too large to convert to {dt}")
    return dt


def coerce_to_array(x: Any, dtype: DTypeLike | None = None) -> np.ndarray:
    """``np.asarray`` that gives Python scalars their JAX (canonical) dtype."""
    if dtype is None and type(x) in python_scalar_types:
        dtype = scalar_type_to_dtype(type(x), x)
    return np.asarray(x, dtype)


def check_valid_dtype(dtype: DType) -> None:
    if dtype not in _JAX_DTYPE_SET:
        raise TypeError(f"Dtype {dtype} is not a valid JAX array "
                        "type. Only arrays of numeric types are supported by JAX.")


def check_and_canonicalize_user_dtype(dtype: Any, fun_name: str | None = None) -> Any:
    """Validate a user-given ``dtype=`` argument and return its canonical form.

    Python scalar types give the default dtypes; 64-bit dtypes with x64 off warn (or raise,
    per ``jax_explicit_x64_dtypes``) and are truncated; extended dtypes pass through.
    """
    if dtype is None:
        raise ValueError("dtype must be specified.")
    if isinstance(dtype, _types_whose_dtype_should_not_be_canonicalized):
        raise ValueError("Passing an array as a dtype argument is no longer "
                         "supported; instead of dtype=arr use dtype=arr.dtype.")
    if isinstance(dtype, ExtendedDType):
        return dtype
    if isinstance(dtype, type):
        if issubclass(dtype, extended):
            return dtype
        if dtype in python_scalar_types:
            return default_types[python_scalar_types_to_dtypes[dtype].kind]()
    np_dtype = np.dtype(dtype)
    if np_dtype not in _JAX_DTYPE_SET:
        msg = f"JAX only supports number, bool, and string dtypes, got dtype {dtype}"
        raise TypeError(msg + (f" in {fun_name}" if fun_name else ""))
    return _maybe_canonicalize_explicit_dtype(np_dtype, fun_name or "")


# The brief's (and older JAX's) name for the same check.
check_user_dtype_supported = check_and_canonicalize_user_dtype


# --- issubdtype / isdtype ---------------------------------------------------------------
_ISSUBDTYPE_PASSTHROUGH = (type, np.dtype, ExtendedDType)
_FLOAT_PARENTS = (np.floating, np.inexact, np.number, np.generic)
_SIGNED_PARENTS = (np.signedinteger, np.integer, np.number, np.generic)
_UNSIGNED_PARENTS = (np.unsignedinteger, np.integer, np.number, np.generic)


def issubdtype(a: Any, b: Any) -> bool:
    """``np.issubdtype`` that also understands bfloat16/float8/intN and extended dtypes."""
    return _issubdtype_cached(
        a if isinstance(a, _ISSUBDTYPE_PASSTHROUGH) else np.dtype(a),
        b if isinstance(b, _ISSUBDTYPE_PASSTHROUGH) else np.dtype(b))


def _scalar_type(x: Any) -> type:
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    return np.dtype(x).type


@functools.lru_cache(maxsize=1024)
def _issubdtype_cached(a: Any, b: Any) -> bool:
    if isinstance(b, type) and issubclass(b, extended):
        return issubclass(a.type if isinstance(a, ExtendedDType) else _scalar_type(a), b)
    if isinstance(b, ExtendedDType):
        return isinstance(a, ExtendedDType) and a == b
    if isinstance(a, ExtendedDType):
        a = a.type
    a_sc, b_sc = _scalar_type(a), _scalar_type(b)
    # ml_dtypes' scalar types are outside numpy's abstract hierarchy: place them by hand.
    if a_sc in _CUSTOM_FLOAT_SCALARS:
        return b_sc is a_sc or b_sc in _FLOAT_PARENTS
    if a_sc in _NARROW_SIGNED_SCALARS:
        return b_sc is a_sc or b_sc in _SIGNED_PARENTS
    if a_sc in _NARROW_UNSIGNED_SCALARS:
        return b_sc is a_sc or b_sc in _UNSIGNED_PARENTS
    return bool(np.issubdtype(a_sc, b_sc))


_DTYPE_KINDS: dict[str, frozenset] = {
    "bool": frozenset([_BOOL]),
    "signed integer": frozenset(_P.SIGNED),
    "unsigned integer": frozenset(_P.UNSIGNED),
    "integral": frozenset(_P.SIGNED + _P.UNSIGNED),
    "real floating": frozenset(_P.FLOATS),
    "complex floating": frozenset(_P.COMPLEX),
    "numeric": frozenset(_P.SIGNED + _P.UNSIGNED + _P.FLOATS + _P.COMPLEX),
}


def isdtype(dtype: DTypeLike, kind: Any) -> bool:
    """``jnp.isdtype``: is ``dtype`` of ``kind`` (a kind name, a dtype, or a tuple of them)?"""
    the_dtype = np.dtype(dtype)
    options: set = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _DTYPE_KINDS:
            options.update(_DTYPE_KINDS[k])
            continue
        try:
            options.add(np.dtype(k))
        except TypeError as e:
            if isinstance(k, str):
                raise ValueError(
                    f"Unrecognized kind={k!r} expected one of {list(_DTYPE_KINDS)}, "
                    "or a compatible input for jnp.dtype()") from None
            raise TypeError(
                f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from e
    return the_dtype in options


# --- type promotion -----------------------------------------------------------------------
def _jax_type(dt: Any, weak: bool) -> Any:
    """Lattice node of a (dtype, weak) pair: weak non-bool types collapse to int/float/complex."""
    if not weak or dt == _BOOL:
        return dt
    k = _kind(dt)
    return {"i": int, "u": int, "f": float, "c": complex}.get(k, dt) if k else dt


def _dtype_and_weak(arg: Any) -> tuple[Any, bool]:
    t = type(arg)
    dt = python_scalar_types_to_dtypes.get(t)
    if dt is not None:  # Python scalar value: canonical default dtype; weak unless bool
        return canonicalize_dtype(dt), t is not bool
    if arg is int or arg is float or arg is complex:
        return dtype(arg, canonicalize=True), True
    aval = getattr(arg, "aval", None)  # Arrays and tracers: their type is canonical
    if aval is not None:
        dt = getattr(aval, "dtype", None)
        if isinstance(dt, np.dtype):
            return canonicalize_dtype(dt), aval.weak_type
    return dtype(arg, canonicalize=True), is_weakly_typed(arg)


# (pairs, strict, x64) -> (dtype or lattice node, is_node, weak). Failures are not cached.
_LATTICE_CACHE: dict[tuple, tuple[Any, bool, bool]] = {}


def lattice_result_type(*args: Any) -> tuple[Any, bool]:
    """(dtype, weak_type) of combining ``args`` on the promotion lattice (no None args)."""
    pairs = tuple(_dtype_and_weak(a) for a in args)
    key = (pairs, config.strict_promotion, config.x64_enabled)
    try:
        found = _LATTICE_CACHE.get(key)
    except TypeError:  # an unhashable (extended) dtype
        found, key = None, None
    if found is None:
        found = _lattice_join(pairs, key[1] if key else config.strict_promotion)
        if key is not None:
            if len(_LATTICE_CACHE) > 4096:
                _LATTICE_CACHE.clear()
            _LATTICE_CACHE[key] = found
    out, is_node, weak = found
    if is_node:  # may warn (or raise) for 64-bit results with x64 off, as JAX does
        out = dtype(out, canonicalize=True)
    return out, weak


def _lattice_join(pairs: tuple, strict: bool) -> tuple[Any, bool, bool]:
    first_dt, first_weak = pairs[0]
    if len(pairs) == 1:
        out, is_node, weak = first_dt, False, first_weak
    elif all(d == first_dt for d, _ in pairs) and not all(w for _, w in pairs):
        out, is_node, weak = first_dt, False, False  # also lets extended dtypes through
    elif all(w for _, w in pairs) and not strict:
        # All weak: join the strong counterparts, then mark the result weak.
        out = _P.least_upper_bound(strict, config.x64_enabled,
                                   *{_jax_type(d, False) for d, _ in pairs})
        is_node, weak = True, True
    else:
        out = _P.least_upper_bound(strict, config.x64_enabled,
                                   *{_jax_type(d, w) for d, w in pairs})
        is_node, weak = True, (out is int or out is float or out is complex)
    # A bool result is never weak.
    return out, is_node, bool(weak) and not (out is bool or out == _BOOL)


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """JAX's dtype promotion of values/dtypes ``args`` (``jax.dtypes.result_type``).

    Weak results take the default dtype of their kind. With ``return_weak_type_flag``
    returns ``(dtype, weak_type)``. Raises ``TypePromotionError`` when no promotion path
    exists (e.g. any mixed strong types under ``jax_numpy_dtype_promotion='strict'``).
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    out, weak = lattice_result_type(
        *(default_float_dtype() if a is None else a for a in args))
    if weak:
        out = default_types["f" if out in _CUSTOM_FLOAT_DTYPES else (_kind(out) or out.kind)]()
    return (out, weak) if return_weak_type_flag else out


def promote_types(a: DTypeLike, b: DTypeLike) -> DType:
    """``jnp.promote_types``: join of two dtypes; the classes int/float/complex are weak.

    Like JAX, the result is not canonicalized (``promote_types(int, int)`` is int64).
    """
    a_node = a if (a is int or a is float or a is complex) else np.dtype(a)
    b_node = b if (b is int or b is float or b is complex) else np.dtype(b)
    return np.dtype(_P.least_upper_bound(config.strict_promotion, config.x64_enabled,
                                         a_node, b_node))


def safe_to_cast(input_dtype_or_value: Any, output_dtype_or_value: Any) -> bool:
    """Whether casting input to output loses nothing under the promotion rules."""
    input_dtype = dtype(input_dtype_or_value, canonicalize=True)
    output_dtype = dtype(output_dtype_or_value, canonicalize=True)
    if input_dtype == output_dtype:
        return True
    return result_type(input_dtype_or_value, output_dtype) == output_dtype


# --- conversions between kinds --------------------------------------------------------------
_TO_INEXACT: dict[np.dtype, np.dtype] = {
    np.dtype(k): np.dtype(v) for k, v in [
        ("bool", "float32"), (uint4, "float32"), (int4, "float32"),
        ("uint8", "float32"), ("int8", "float32"), ("uint16", "float32"),
        ("int16", "float32"), ("uint32", "float32"), ("int32", "float32"),
        ("uint64", "float64"), ("int64", "float64")]
}


def to_numeric_dtype(dtype: DTypeLike) -> DType:
    """bool -> int32; every other dtype unchanged."""
    dt = np.dtype(dtype)
    return _I32 if dt == _BOOL else dt


def to_inexact_dtype(dtype: DTypeLike) -> DType:
    """bool and integers up to 32 bits -> float32, 64-bit integers -> float64."""
    dt = np.dtype(dtype)
    return _TO_INEXACT.get(dt, dt)


def to_floating_dtype(dtype: DTypeLike) -> DType:
    """Like ``to_inexact_dtype`` but complex maps to its real counterpart."""
    dt = to_inexact_dtype(dtype)
    return finfo(dt).dtype


def to_complex_dtype(dtype: DTypeLike) -> DType:
    ft = to_inexact_dtype(dtype)
    return _C128 if ft in (_F64, _C128) else _C64


def real_dtype(dtype: DTypeLike) -> DType:
    """complex64 -> float32, complex128 -> float64; other dtypes unchanged."""
    dt = np.dtype(dtype)
    return {_C64: _F32, _C128: _F64}.get(dt, dt)


def itemsize_bits(dtype: DTypeLike) -> int:
    """Bits per element (sub-byte types report their logical width; bool is 8)."""
    if dtype is None:
        raise ValueError("dtype cannot be None.")
    if dtype == _BOOL:
        return 8
    if issubdtype(dtype, np.integer):
        return iinfo(dtype).bits
    if issubdtype(dtype, np.floating):
        return finfo(dtype).bits
    if issubdtype(dtype, np.complexfloating):
        return 2 * finfo(dtype).bits
    raise ValueError(f"unexpected input: {dtype=}")


_NO_INF_SCALARS = frozenset(
    [float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2fnuz])


def supports_inf(dtype: DTypeLike) -> bool:
    """Whether the dtype can represent infinity."""
    if np.dtype(dtype).type in _NO_INF_SCALARS:
        return False
    return issubdtype(dtype, np.inexact)


# --- names ------------------------------------------------------------------------------
_SHORT_NAMES: dict[Any, str] = {float0: "float0"}


def short_dtype_name(dtype: Any) -> str:
    """Name used in jaxprs: f32, bf16, i8, u4, c64, f8_e4m3fn, bool, float0, ..."""
    try:
        return _SHORT_NAMES[dtype]
    except KeyError:
        pass
    if isinstance(dtype, ExtendedDType):
        name = str(dtype)
    else:
        name = np.dtype(dtype).name
        for long, short in (("float", "f"), ("uint", "u"), ("int", "i"), ("complex", "c")):
            name = name.replace(long, short)
    _SHORT_NAMES[dtype] = name
    return name
