"""The rest of didax.numpy's core namespace: where/select/piecewise, clip, round,
nan_to_num, isclose/allclose/array_equal/array_equiv, astype and the shape/dtype queries,
meshgrid. Also re-exports the creation and manipulation functions under their historical
home (`lax_numpy.asarray`, `lax_numpy.reshape`, ...) for modules that import them here.

May import core, dtypes, array, didax.lax and the numpy implementation modules below the
public API (util, array_creation, manipulation, ufuncs, ufuncs_math, reductions).
"""

from __future__ import annotations

import builtins
import operator
import warnings

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import Tracer
from didax._src.lax import lax, shapes
from didax._src.numpy import ufuncs, ufuncs_math
from didax._src.numpy.array_creation import (  # noqa: F401 - re-exported
    arange,
    array,
    asarray,
    canon_dtype,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    identity,
    linspace,
    ones,
    ones_like,
    tri,
    zeros,
    zeros_like,
)
from didax._src.numpy.manipulation import (  # noqa: F401 - re-exported
    broadcast_arrays,
    broadcast_to,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    squeeze,
    stack,
    swapaxes,
    transpose,
)
from didax._src.numpy.util import (
    check_arraylike,
    const_like,
    convert,
    dtype_of,
    ensure_arraylike,
    is_arraylike,
    jit_like_jax,
    promote_args_inexact,
    to_array,
    where3,
)

newaxis = None


# ----------------------------------------------------------------------------------------
# Selection
# ----------------------------------------------------------------------------------------


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    if x is None and y is None:
        from didax._src.numpy.indexing import nonzero  # noqa: PLC0415

        return nonzero(condition, size=size, fill_value=fill_value)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term "
                         "where function.")
    return where3(condition, x, y)


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} "
                         f"vs {len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    out = default
    for c, v in reversed(list(zip(condlist, choicelist))):
        c = ensure_arraylike("select", c)
        if dtype_of(c) != np.bool_:
            raise TypeError("condlist arrays must be boolean, got "
                            f"{dtype_of(c)}")
        out = where3(c, v, out)
    return to_array(out)


def piecewise(x, condlist, funclist, *args, **kw):
    """funclist[k] where condlist[k] holds (the last true condition wins), else the
    default: funclist[-1] when there is one function more than conditions, else 0. A
    1-D condlist of scalar conditions picks one function for the whole range (as JAX)."""
    from didax._src.lax.select_convert import select_n  # noqa: PLC0415
    from didax._src.numpy.reductions import argmax, cumsum  # noqa: PLC0415

    x = ensure_arraylike("piecewise", x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = list(funclist[-1:]) + list(funclist[:-1])
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                         f"expected; got {nf}")
    cond = asarray(condlist, dtype=bool)
    which = argmax(cumsum(concatenate([zeros_like(cond[:1]), cond], 0), 0), 0)
    dt = dtype_of(x)
    values = [convert(to_array(_piece_value(f, x, args, kw)), dt) for f in funclist]
    values = [broadcast_to(v, np.shape(x)) for v in values]
    return to_array(select_n(broadcast_to(convert(which, np.int32), np.shape(x)),
                             *values))


def _piece_value(f, x, args, kw):
    return f(x, *args, **kw) if callable(f) else f


@jit_like_jax("clip")
def _clip(arr, lo, hi):
    if lo is not None:
        arr = ufuncs.maximum(lo, arr)
    if hi is not None:
        arr = ufuncs.minimum(hi, arr)
    return to_array(arr)


def clip(arr=None, /, min=None, max=None):  # noqa: A002
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    for t in (arr, min, max):
        if t is not None and dtypes.is_complex(dtypes.dtype(t)):
            raise ValueError(
                "Clip received a complex value either through the input or the min/max "
                "keywords. Complex values have no ordering and cannot be clipped. Please "
                "convert to a real value or array by taking the real or imaginary "
                "components via jax.numpy.real/imag respectively.")
    return _clip(arr, min, max)


@jit_like_jax("round", static_argnames=("decimals",))
def _round(a, decimals=0):
    dt = dtype_of(a)
    if dtypes.is_int(dt) or dt == np.bool_:
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a
    if decimals > np.log10(float(dtypes.finfo(dt).max)):
        return a
    if dtypes.is_complex(dt):
        return lax.complex(_round_float(lax.real(a), decimals),
                           _round_float(lax.imag(a), decimals))
    return _round_float(a, decimals)


def _round_float(x, decimals):
    even = lax.RoundingMethod.TO_NEAREST_EVEN
    if decimals == 0:
        return lax.round(x, even)
    dt = dtype_of(x)
    if dt == np.float16:
        x = lax.convert_element_type(x, np.float32)
    factor = const_like(x, 10 ** decimals)
    out = lax.div(lax.round(lax.mul(x, factor), even), factor)
    return lax.convert_element_type(out, dt) if dt == np.float16 else out


def round(a, decimals=0, out=None):  # noqa: A001
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    a = ensure_arraylike("round", a)
    decimals = core.concrete_or_error(operator.index, decimals,
                                      "'decimals' argument of jnp.round")
    return _round(a, decimals)


around = round


@jit_like_jax("nan_to_num", static_argnames=("copy", "nan", "posinf", "neginf"))
def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    dt = dtype_of(x)
    if not dtypes.is_inexact(dt):
        return x
    if dtypes.is_complex(dt):
        return lax.complex(_nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf),
                           _nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf))
    info = dtypes.finfo(dtypes.real_dtype(dt))
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = where3(ufuncs_math.isnan(x), convert(nan, dt), x)
    out = where3(ufuncs_math.isposinf(out), convert(posinf, dt), out)
    return where3(ufuncs_math.isneginf(out), convert(neginf, dt), out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = ensure_arraylike("nan_to_num", x)
    return _nan_to_num(x, copy, nan, posinf, neginf)


# ----------------------------------------------------------------------------------------
# Comparisons of whole arrays
# ----------------------------------------------------------------------------------------


@jit_like_jax("isclose", static_argnames=("equal_nan",))
def _isclose(a, b, rtol, atol, equal_nan):
    a, b = promote_args_inexact("isclose", a, b)
    dt = dtype_of(a)
    rdt = dtypes.real_dtype(dt)
    rtol, atol = convert(rtol, rdt), convert(atol, rdt)
    both_nan = lax.bitwise_and(ufuncs_math.isnan(a), ufuncs_math.isnan(b))
    finite = ufuncs_math.isfinite(b)
    diff = ufuncs.absolute(lax.sub(a, b))
    tol = lax.add(atol, lax.mul(rtol, ufuncs.absolute(b)))
    close = lax.bitwise_and(lax.le(diff, tol), finite)
    out = lax.bitwise_or(close, lax.eq(a, b))
    if equal_nan:
        out = lax.bitwise_or(out, both_nan)
    return out


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = ensure_arraylike("isclose", a, b)
    return _isclose(a, b, rtol, atol, bool(equal_nan))


@jit_like_jax("allclose", static_argnames=("equal_nan",))
def _allclose(a, b, rtol, atol, equal_nan):
    from didax._src.numpy.reductions import all as _all  # noqa: PLC0415

    return _all(isclose(a, b, rtol, atol, equal_nan))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = ensure_arraylike("allclose", a, b)
    return _allclose(a, b, rtol, atol, bool(equal_nan))


def array_equal(a1, a2, equal_nan=False):
    from didax._src.numpy.reductions import all as _all  # noqa: PLC0415

    if not (is_arraylike(a1) and is_arraylike(a2)):
        a1, a2 = asarray(a1), asarray(a2)
    a1, a2 = ensure_arraylike("array_equal", a1, a2)
    if np.shape(a1) != np.shape(a2):
        return to_array(False)
    eq = ufuncs.equal(a1, a2)
    if equal_nan:
        eq = lax.bitwise_or(eq, lax.bitwise_and(ufuncs_math.isnan(a1),
                                                ufuncs_math.isnan(a2)))
    return _all(eq)


def array_equiv(a1, a2):
    from didax._src.numpy.reductions import all as _all  # noqa: PLC0415

    a1, a2 = ensure_arraylike("array_equiv", a1, a2)
    return _all(ufuncs.equal(a1, a2))


# ----------------------------------------------------------------------------------------
# dtypes and shapes
# ----------------------------------------------------------------------------------------


def astype(x, dtype, /, *, copy=False, device=None):
    x = ensure_arraylike("astype", x)
    if dtype is None:
        dtype = dtypes.default_float_dtype()
    dtype = canon_dtype(dtype, "astype")
    if dtypes.is_complex(dtype_of(x)) and dtype == np.bool_:
        return lax.ne(x, core.typed_scalar(0j, dtype_of(x)))  # the imaginary part counts
    if dtypes.is_complex(dtype_of(x)) and not dtypes.is_complex(dtype):
        warnings.warn("Casting from complex to real dtype will discard imaginary part.",
                      np.exceptions.ComplexWarning, stacklevel=2)
        x = lax.real(x)
    return to_array(lax.convert_element_type(x, dtype))


def _arraylike_warn(name, a):
    if not is_arraylike(a) and not hasattr(a, "shape"):
        warnings.warn(f"{name} requires ndarray or scalar arguments, got {type(a)} at "
                      "position 0. In a future JAX release this will be an error.",
                      DeprecationWarning, stacklevel=3)


def shape(a):
    _arraylike_warn("shape", a)
    return np.shape(a)


def ndim(a):
    _arraylike_warn("ndim", a)
    return np.ndim(a)


def size(a, axis=None):
    _arraylike_warn("size", a)
    if axis is None:
        return int(np.size(a))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    shp = np.shape(a)
    return int(np.prod([shp[operator.index(ax)] for ax in axes], dtype=np.int64))


def iscomplexobj(x):
    if x is None:
        return False
    try:
        return dtypes.is_complex(dtypes.dtype(x))
    except (TypeError, ValueError):
        return False


def isrealobj(x):
    return not iscomplexobj(x)


def isscalar(element):
    if hasattr(element, "__jax_array__"):
        element = element.__jax_array__()
    if isinstance(element, (Array, Tracer, np.ndarray)):
        return np.ndim(element) == 0
    return dtypes.is_python_scalar(element) or np.isscalar(element)


def iterable(y):
    try:
        iter(y)
    except TypeError:
        return False
    return True


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    args = [ensure_arraylike("meshgrid", x) for x in xi]
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if builtins.any(np.ndim(a) != 1 for a in args):
        raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[np.shape(a) for a in args]}")
    shp = tuple(np.shape(a)[0] for a in args)
    n = len(args)
    if sparse:
        outs = [shapes.broadcast_in_dim(a, tuple(s if i == j else 1 for j, s in
                                                 enumerate(shp)), (i,))
                for i, a in enumerate(args)]
    else:
        outs = [shapes.broadcast_in_dim(a, shp, (i,)) for i, a in enumerate(args)]
    if indexing == "xy" and n >= 2:
        outs = [swapaxes(o, 0, 1) for o in outs]
    return outs


def sort_complex(a):
    from didax._src.numpy.sorting import sort  # noqa: PLC0415

    a = ensure_arraylike("sort_complex", a)
    out = sort(a, axis=-1)
    return convert(out, dtypes.to_complex_dtype(dtype_of(out)))


def get_printoptions():
    """NumPy's print options (didax arrays print through NumPy)."""
    return np.get_printoptions()


def printoptions(*args, **kwargs):
    """NumPy's printoptions context manager (didax arrays print through NumPy)."""
    return np.printoptions(*args, **kwargs)


def set_printoptions(*args, **kwargs):
    return np.set_printoptions(*args, **kwargs)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    text = np.array_repr(np.asarray(arr), max_line_width, precision, suppress_small)
    return type(arr).__name__ + text[len("array"):] if text.startswith("array") else text
