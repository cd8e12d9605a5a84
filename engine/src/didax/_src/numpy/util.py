"""Argument handling shared by didax.numpy: array-like checks, dtype promotion (JAX's
lattice with weak types), rank promotion for broadcasting, conversion of Python scalars
without staging an equation, axis canonicalization, and `jit_like_jax`, which stages
the jnp functions JAX wraps in `jit` as `jit` calls, as JAX shows them in jaxprs.

May import core, dtypes, config, array, interpreters (the tape), didax.lax and pjit.
"""

from __future__ import annotations

import functools
import inspect
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, debug_nans, dtypes, errors
from didax._src.array import Array
from didax._src.config import config
from didax._src.core import Tracer
from didax._src.interpreters.tape import ACTIVE as _TAPE_ACTIVE
from didax._src.interpreters.tape import TapeTrace
from didax._src.lax import lax, shapes
from didax._src.pjit import jit

_SCALAR_TYPES = (int, float, complex, bool)


# ----------------------------------------------------------------------------------------
# Array-likes
# ----------------------------------------------------------------------------------------


def is_arraylike(x) -> bool:
    """JAX's definition: arrays, tracers, NumPy arrays and scalars, Python scalars."""
    return isinstance(x, (Array, Tracer, np.ndarray, core.TypedScalar)) or \
        hasattr(x, "__jax_array__") or np.isscalar(x)


def check_arraylike(fun_name: str, *args: Any) -> None:
    for i, a in enumerate(args):
        if not is_arraylike(a):
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                            f"{type(a)} at position {i}.")


def check_arraylike_or_none(fun_name: str, *args: Any) -> None:
    for i, a in enumerate(args):
        if not (a is None or is_arraylike(a)):
            raise TypeError(f"{fun_name} requires ndarray, scalar, or None arguments, got "
                            f"{type(a)} at position {i}.")


def _jax_array_protocol(x):
    if type(x) is Array:  # (the common case, without a failing attribute look-up)
        return x
    m = getattr(x, "__jax_array__", None)
    return m() if m is not None else x


def to_array(x):
    """x as an Array or Tracer (Python scalars keep their weak type)."""
    if isinstance(x, (Array, Tracer)):
        return x
    x = _jax_array_protocol(x)
    if isinstance(x, (Array, Tracer)):
        return x
    aval = x.aval if isinstance(x, core.TypedScalar) else core.get_aval(x)
    if not aval.shape and core.trace_ctx.trace is not core.eval_trace:
        # A host scalar made while tracing stays a literal of the jaxpr (JAX builds it
        # as a converted NumPy constant, which its constant folding inlines).
        return lax.convert_element_type_p.bind(x, new_dtype=aval.dtype,
                                               weak_type=aval.weak_type, sharding=None)
    val = x.val if isinstance(x, core.TypedScalar) else x
    return Array(core.host_scalar(val, aval.dtype) if type(val) is int
                 else np.asarray(val, aval.dtype), aval)


def ensure_arraylike(fun_name: str, *args):
    """Checks args and converts each to an Array/Tracer; one arg gives one value."""
    if len(args) == 1 and (type(args[0]) is Array or isinstance(args[0], Tracer)):
        return args[0]
    check_arraylike(fun_name, *args)
    out = tuple(to_array(a) for a in args)
    return out[0] if len(out) == 1 else out


def _weak(x) -> bool:
    t = type(x)
    if t in (int, float, complex):
        return True
    return getattr(x, "weak_type", False) if isinstance(x, (Array, Tracer)) else False


def _host_convert(x, **params):
    """convert_element_type's own eager rule (XLA's saturating float -> int, complex ->
    bool by value), so host conversions agree with compiled ones."""
    from didax._src.lax.select_convert import _convert_impl  # noqa: PLC0415

    with np.errstate(all="ignore"):
        return _convert_impl(x, **params)


def convert(x, dtype, weak_type: bool = False):
    """x as dtype (and weak_type). Concrete Python/NumPy values convert without staging."""
    dtype = np.dtype(dtype)
    t = type(x)
    if t in _SCALAR_TYPES:
        if t is float and dtype.kind in "iu" and not np.isfinite(x):
            x = 0 if x != x else int(np.iinfo(dtype).max if x > 0 else np.iinfo(dtype).min)
        return core.typed_scalar(x, dtype, weak_type)
    if t is core.TypedScalar:
        return core.typed_scalar(x.val, dtype, weak_type)
    if t is np.ndarray or isinstance(x, np.generic):
        val = np.asarray(x, dtype)
        # NumPy arrays carry no weak type: keep it in an Array's aval
        return Array(val, core.ShapedArray(val.shape, dtype, True)) if weak_type else val
    aval = core.get_aval(x)
    if aval.dtype == dtype and aval.weak_type == weak_type:
        return x
    if t is Array and core.trace_ctx.trace is core.eval_trace:  # eagerly: on the host
        val = _host_convert(x._value, new_dtype=dtype, weak_type=weak_type, sharding=None)
        return Array(np.asarray(val, dtype), core.ShapedArray(aval.shape, dtype, weak_type))
    return lax.convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak_type,
                                           sharding=None)


def dtype_of(x) -> np.dtype:
    return core.get_aval(x).dtype


def const_like(x, val):
    """A scalar val of x's dtype (a literal when staged): weak when x is a weak scalar, as
    JAX's `lax._const` makes it, so constants do not strengthen weak results."""
    aval = core.get_aval(x)
    return core.typed_scalar(val, aval.dtype, aval.weak_type and not aval.shape)


def full(shape, val, dtype, weak_type: bool = False):
    """An Array (or staged broadcast) of shape filled with val."""
    shape = tuple(shape)
    if shape and not weak_type and type(val) in (bool, int, float):
        return shapes.full(shape, val, dtype)  # (its host fills are cached)
    fill = core.typed_scalar(val, dtype, weak_type) if not isinstance(val, (Array, Tracer)) \
        else convert(val, dtype, weak_type)
    return to_array(fill) if not shape else shapes.broadcast_in_dim(fill, shape, ())


def full_like(x, val, dtype=None, shape=None):
    """JAX's lax.full_like: x's shape and dtype, weakly typed when x is and no dtype is
    given."""
    aval = core.get_aval(x)
    weak = dtype is None and aval.weak_type
    dt = aval.dtype if dtype is None else dtypes.canonicalize_dtype(np.dtype(dtype))
    return full(aval.shape if shape is None else shape, val, dt, weak)


def weak_const(x, val):
    """val as a weakly typed scalar of x's dtype: what a Python literal in `x - 1` is."""
    return core.typed_scalar(val, dtype_of(x), True)


def zero(x):
    """A scalar 0 of x's dtype (a literal when staged)."""
    return const_like(x, 0)


def scalar(val, dtype):
    return core.typed_scalar(val, np.dtype(dtype))


# ----------------------------------------------------------------------------------------
# Promotion
# ----------------------------------------------------------------------------------------


def _promote(args, to_kind: Callable | None):
    args = [_jax_array_protocol(a) for a in args]
    if len(args) == 1 and to_kind is None:
        return [args[0]]
    dtype, weak = dtypes.lattice_result_type(*args)
    if to_kind is not None:
        dtype = to_kind(dtype)
    dtype = dtypes.canonicalize_dtype(dtype)
    return [convert(x, dtype, weak) for x in args]


def promote_dtypes(*args):
    """Converts args to their common dtype (JAX promotion; the result is weak only when
    every input is weak)."""
    return _promote(args, None)


def promote_dtypes_inexact(*args):
    return _promote(args, dtypes.to_inexact_dtype)


def promote_dtypes_numeric(*args):
    return _promote(args, dtypes.to_numeric_dtype)


def promote_dtypes_complex(*args):
    return _promote(args, dtypes.to_complex_dtype)


def promote_shapes(fun_name: str, *args):
    """Rank promotion: non-scalar operands of lower rank get leading size-1 axes (scalars
    are left to lax's scalar broadcasting)."""
    if len(args) < 2:
        return list(args)
    shapes_ = [np.shape(a) for a in args]
    if all(len(s) == len(shapes_[0]) for s in shapes_[1:]):
        return list(args)
    nonscalar_ranks = {len(s) for s in shapes_ if s}
    if len(nonscalar_ranks) < 2:
        return list(args)
    mode = config.jax_numpy_rank_promotion
    if mode != "allow":
        _rank_promotion_warning_or_error(fun_name, shapes_, mode)
    rank = len(broadcast_shapes_checked(*shapes_))
    return [shapes.broadcast_to_rank(a, rank) if np.shape(a) else a for a in args]


def broadcast_shapes_checked(*shapes_) -> tuple[int, ...]:
    """NumPy broadcasting of shapes, with JAX's error for incompatible ones."""
    try:
        return tuple(np.broadcast_shapes(*shapes_))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes="
                         f"{[tuple(s) for s in shapes_]}") from None


def _rank_promotion_warning_or_error(fun_name, shapes_, mode):
    shapes_str = " ".join(map(str, shapes_))
    if mode == "warn":
        warnings.warn(f"Following NumPy automatic rank promotion for {fun_name} on shapes "
                      f"{shapes_str}. Set the jax_numpy_rank_promotion config option to "
                      "'allow' to disable this warning; for more information, see "
                      "https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
                      stacklevel=5)
    else:
        raise ValueError(f"Operands could not be broadcast together for {fun_name} on "
                         f"shapes {shapes_str} and with the config option "
                         "jax_numpy_rank_promotion='raise'. For more information, see "
                         "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


def _check_no_float0(fun_name, args):
    for a in args:
        if isinstance(a, (Array, Tracer)) and a.aval.dtype == dtypes.float0:
            raise TypeError(
                f"Called {fun_name} with a float0 array. float0s do not support any "
                "operations by design because they are not compatible with non-trivial "
                "vector spaces. No implicit dtype conversion is done. You can use "
                "np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular "
                "zeros array. \nIf you didn't expect to get a float0 you might have "
                "accidentally taken a gradient with respect to an integer argument.")


def promote_args(fun_name: str, *args):
    if len(args) == 2:  # the hot path of every eager binary operator
        pair = _promote_pair_fast(*args)
        if pair is not None:
            return pair
    check_arraylike(fun_name, *args)
    _check_no_float0(fun_name, args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


def _promote_pair_fast(x, y):
    """What promote_args gives for two arrays of one type (weak type included) and one
    rank, or an inexact array and a Python float or int — without the promotion lattice
    and the checks, which cost more than the operation itself on small arrays. None for
    anything else."""
    ax, ay = _fast_aval(x), _fast_aval(y)
    if ax is not None and ay is not None:
        if ax.dtype == ay.dtype and ax.weak_type == ay.weak_type and \
                len(ax.shape) == len(ay.shape):
            return [x, y]
        return None
    if ax is not None and type(y) in _WEAK_NUMBERS and ax.dtype.kind in "fc":
        return [x, convert(y, ax.dtype, ax.weak_type)]
    if ay is not None and type(x) in _WEAK_NUMBERS and ay.dtype.kind in "fc":
        return [convert(x, ay.dtype, ay.weak_type), y]
    return None


_WEAK_NUMBERS = (float, int)


def _fast_aval(x):
    """x's aval when x is an Array or tracer of a NumPy number type (not float0, keys,
    bfloat16 and the other extended or ml_dtypes types: the full path handles those)."""
    if type(x) is Array or isinstance(x, Tracer):
        aval = x.aval
        dt = getattr(aval, "dtype", None)
        if isinstance(dt, np.dtype) and dt.kind in "biufc":
            return aval
    return None


def promote_args_inexact(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    _check_no_float0(fun_name, args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    _check_no_float0(fun_name, args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def promote_args_complex(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    _check_no_float0(fun_name, args)
    return promote_shapes(fun_name, *promote_dtypes_complex(*args))


# ----------------------------------------------------------------------------------------
# Broadcasting and axes
# ----------------------------------------------------------------------------------------


def broadcast_to(x, shape: Sequence[int]):
    """x broadcast to shape with one broadcast_in_dim (NumPy's rules, JAX's errors)."""
    shape = tuple(operator.index(d) for d in shape)
    xs = np.shape(x)
    if xs == shape:
        return to_array(x)
    nd = len(shape)
    if len(xs) > nd:
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={xs} "
                         f"shape={shape}")
    pad = nd - len(xs)
    for a, b in zip(xs, shape[pad:]):
        if a != b and a != 1:
            raise ValueError(f"Incompatible shapes for broadcasting: {xs} and requested "
                             f"shape {shape}")
    squeezed = [i for i, (a, b) in enumerate(zip(xs, shape[pad:])) if a == 1 and b != 1]
    if squeezed:
        x = shapes.squeeze(x, squeezed)
        dims = tuple(i + pad for i in range(len(xs)) if i not in squeezed)
    else:
        dims = tuple(range(pad, nd))
    return shapes.broadcast_in_dim(x, shape, dims)


def broadcast_arrays(*args):
    """Broadcasts all args to their common shape (unchanged when already equal)."""
    shps = [np.shape(a) for a in args]
    if not shps or all(s == shps[0] for s in shps):
        return [to_array(a) for a in args]
    shape = broadcast_shapes_checked(*shps)
    return [broadcast_to(a, shape) for a in args]


def canonicalize_axis(axis, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def canonicalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """axis (None, an int or a sequence) as a tuple of non-negative ints; duplicates
    raise."""
    if type(axis) is tuple or type(axis) is int or axis is None:
        return _canonical_axes(axis, ndim)
    return _canonicalize_axes(axis, ndim)


@functools.lru_cache(maxsize=1024)
def _canonical_axes(axis, ndim):
    return _canonicalize_axes(axis, ndim)


def _canonicalize_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(a, ndim) for a in axis)
    else:
        axes = (canonicalize_axis(axis, ndim),)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return axes


def concrete_int(x, what: str) -> int:
    """x as a Python int, raising ConcretizationTypeError for traced values."""
    return operator.index(core.concrete_or_error(operator.index, x, what))


# ----------------------------------------------------------------------------------------
# Staging as a jit call (JAX wraps many jnp functions in jit)
# ----------------------------------------------------------------------------------------

def _staging() -> bool:
    """True when some trace in the current chain stages equations (make_jaxpr, jit)."""
    t = core.trace_ctx.trace
    if t is core.eval_trace or type(t) is TapeTrace:  # (a tape sits on the eval trace)
        return False
    while t is not None:
        if getattr(t, "is_staging", False) or type(t).__name__ == "DynamicJaxprTrace":
            return True
        t = getattr(t, "parent_trace", None)
    return False


def _plain_eager() -> bool:
    """True for plain eager code (no tape, no transformation above the eval trace), where
    JAX also calls these functions through jit: one cached XLA program gives JAX's values,
    including XLA's rewrites (`x / 5` as `x * 0.2`, constants folded), and one dispatch.
    Not while a tape records or pulls back (tape.ACTIVE), even on the eval trace (a custom
    JVP rule computing its primal output): eager grad evaluates on the host op by op."""
    return (core.trace_ctx.trace is core.eval_trace and not _TAPE_ACTIVE[0]
            and not config.jax_disable_jit)


_NOT_JITTABLE = (errors.ConcretizationTypeError, errors.TracerIntegerConversionError,
                 errors.TracerArrayConversionError, errors.NonConcreteBooleanIndexError)


def _eager_call(fun, name, sig, static_argnames, cache, args, kwargs):
    """Plain eager call of a jit_like_jax function: one jitted closure per set of static
    values (so the dynamic arguments take jit's fast path), compiled once per signature.
    Unhashable static values, or a body that needs concrete values JAX's jit would not
    have, run op by op instead (remembered per static key)."""
    bound = sig.bind(*args, **kwargs)
    static = tuple((k, v) for k, v in bound.arguments.items() if k in static_argnames)
    dyn_names = tuple(k for k in bound.arguments if k not in static_argnames)
    key = (static, dyn_names)
    try:
        jitted = cache.get(key)
    except TypeError:                      # an unhashable static value
        return fun(*args, **kwargs)
    if jitted is False:
        return fun(*args, **kwargs)
    if jitted is None:
        fixed = dict(static)

        def closed(*dyn):
            vals = {**dict(zip(dyn_names, dyn)), **fixed}
            b = inspect.BoundArguments(sig, {k: vals[k] for k in sig.parameters if k in vals})
            return fun(*b.args, **b.kwargs)
        closed.__name__ = name or fun.__name__
        jitted = cache[key] = jit(closed)
    try:
        return jitted(*(bound.arguments[k] for k in dyn_names))
    except _NOT_JITTABLE:
        cache[key] = False
        return fun(*args, **kwargs)


def jit_like_jax(name: str | None = None, static_argnames: Sequence[str] = (),
                 inline: bool = False, eager_compiled: bool = False) -> Callable:
    """Marks a jnp function that JAX wraps in `jit`: when equations are being staged, the
    call is staged as a `jit[name=...]` equation (the same
    primitives JAX shows); plain eager code calls it through that jit as JAX does; under a
    tape (eager grad) or another eager transformation it runs op by op, except with
    `eager_compiled` (where op-by-op rounding would differ from XLA's fused ops, as in
    `linspace`), which then calls the jit too."""
    def deco(fun):
        sig = inspect.signature(fun)
        cache: dict = {}

        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            if debug_nans.ACTIVE[0] and not _staging():  # checked as JAX checks a jit
                return debug_nans.eager_like_jit(fun, args, kwargs)
            if inline:
                return fun(*args, **kwargs)
            if not _staging():
                if _plain_eager():
                    return _eager_call(fun, name, sig, static_argnames, cache, args, kwargs)
                if not eager_compiled:
                    return fun(*args, **kwargs)
            jitted = cache.get("f")
            if jitted is None:
                fun.__name__ = name or fun.__name__
                jitted = cache["f"] = jit(fun, static_argnames=tuple(static_argnames))
            bound = sig.bind(*args, **kwargs)
            return jitted(*bound.args, **bound.kwargs)
        wrapper._jax_jit_name = name or fun.__name__
        return wrapper
    return deco


def _select_ready(condition, x, y) -> bool:
    """Already what lax.select takes: a bool condition, x and y of one type, one
    non-empty shape (the common case, which needs no promotion or broadcasting)."""
    for v in (condition, x, y):
        if type(v) is not Array and not isinstance(v, Tracer):
            return False
    c, a, b = condition.aval, x.aval, y.aval
    return (c.dtype == np.bool_ and a.dtype == b.dtype and a.weak_type == b.weak_type
            and c.shape == a.shape == b.shape and 0 not in a.shape)


@jit_like_jax("_where")
def where3(condition, x, y):
    """jnp.where(condition, x, y): condition as bool, x and y promoted, all broadcast."""
    if _select_ready(condition, x, y):
        return lax.select(condition, x, y)
    condition, x, y = ensure_arraylike("where", condition, x, y)
    if dtype_of(condition) != np.bool_:
        condition = lax.ne(condition, zero(condition))
    x, y = promote_dtypes(x, y)
    if np.ndim(condition) == 0:
        x, y = broadcast_arrays(x, y)
    else:
        condition, x, y = broadcast_arrays(condition, x, y)
    if 0 in np.shape(x):
        return to_array(x)
    return lax.select(condition, x, y)
