"""Operators and methods of arrays: installs `+ - * / // % ** @ divmod`, comparisons,
unary operators, indexing and the NumPy-style methods JAX arrays have (`.T`, `.mT`,
`.sum()`, `.reshape()`, `.astype()`, `.at[...]`, `.view()`, ...) on both didax.Array and
every Tracer, as JAX does, so traced values and concrete arrays behave alike.

May import core, array and the numpy implementation modules.
"""

from __future__ import annotations

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import Tracer
from didax._src.lax import lax
from didax._src.lax.bitcast import bitcast_convert_type
from didax._src.numpy import (
    array_creation,
    indexing,
    indexing_ops,
    lax_numpy,
    manipulation,
    products,
    reductions,
    sorting,
    ufuncs,
    ufuncs_math,
)
from didax._src.numpy.util import ensure_arraylike
from didax._src.state import types as state_types
from didax._src.state.types import AbstractRef


def _accepts(x) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic, int, float, complex, bool,
                          core.TypedScalar)) or hasattr(x, "__jax_array__")


def _defer(fn):
    """Binary operator that yields NotImplemented to foreign array types."""

    def op(self, other):
        if not _accepts(other):
            return NotImplemented
        return fn(self, other)
    return op


def _rdefer(fn):
    def op(self, other):
        if not _accepts(other):
            return NotImplemented
        return fn(other, self)
    return op


_BINARY = {
    "add": ufuncs.add, "sub": ufuncs.subtract, "mul": ufuncs.multiply,
    "truediv": ufuncs.true_divide, "floordiv": ufuncs.floor_divide, "mod": ufuncs.remainder,
    "pow": ufuncs.power, "matmul": products.matmul, "and": ufuncs.bitwise_and,
    "or": ufuncs.bitwise_or, "xor": ufuncs.bitwise_xor, "lshift": ufuncs.left_shift,
    "rshift": ufuncs.right_shift, "divmod": ufuncs.divmod,
}
_COMPARE = {"eq": ufuncs.equal, "ne": ufuncs.not_equal, "lt": ufuncs.less,
            "le": ufuncs.less_equal, "gt": ufuncs.greater, "ge": ufuncs.greater_equal}


def _round_op(self, ndigits=None):
    out = lax_numpy.round(self, ndigits or 0)
    return lax_numpy.astype(out, int) if ndigits is None else out


def _contains(self, other):
    """`other in arr`, as JAX: a 1-D array and a scalar query only (NumPy's broadcasting
    `in` is a common source of bugs)."""
    if other is None or isinstance(other, str):
        raise TypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
    query = ensure_arraylike("Array.__contains__", other)
    if self.ndim != 1:
        raise ValueError("Array.__contains__: search array must be one-dimensional,"
                         f" got arr.shape={self.shape}.")
    if query.ndim != 0:
        raise ValueError("Array.__contains__: query value must be a scalar,"
                         f" got query.shape={query.shape}")
    return reductions.any(ufuncs.equal(self, query))


def _install_operators(cls) -> None:
    for name, fn in _BINARY.items():
        setattr(cls, f"__{name}__", _defer(fn))
        setattr(cls, f"__r{name}__", _rdefer(fn))
    for name, fn in _COMPARE.items():
        setattr(cls, f"__{name}__", _defer(fn))
    cls.__neg__ = lambda self: ufuncs.negative(self)
    cls.__pos__ = lambda self: ufuncs.positive(self)
    cls.__abs__ = lambda self: ufuncs.absolute(self)
    cls.__invert__ = lambda self: ufuncs.invert(self)
    cls.__getitem__ = lambda self, idx: indexing.getitem(self, idx)
    cls.__round__ = _round_op
    cls.__contains__ = _contains


# ----------------------------------------------------------------------------------------
# Methods
# ----------------------------------------------------------------------------------------


def _reshape_method(self, *args, order="C", out_sharding=None, **kwargs):
    if "shape" in kwargs:
        shape = kwargs.pop("shape")
    elif len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        shape = args[0]
    else:
        shape = args
    if kwargs:
        raise TypeError(f"reshape() got unexpected keyword arguments {sorted(kwargs)}")
    return manipulation.reshape(self, shape, order=order)


def _transpose_method(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return manipulation.transpose(self, axes or None)


def _view(self, dtype=None, type=None):  # noqa: A002
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "view")
    old = self.dtype
    if old == dtype:
        return self
    if old == np.bool_ or dtype == np.bool_:
        x = self
        if old == np.bool_:
            x = lax.convert_element_type(x, np.uint8)
        out = _view(x, np.uint8 if dtype == np.bool_ else dtype)
        return lax.ne(out, np.uint8(0)) if dtype == np.bool_ else out
    if np.ndim(self) == 0:
        raise ValueError("view() of a 0-d array is only supported when the itemsize is "
                         "unchanged.")
    ratio = old.itemsize / dtype.itemsize
    last = np.shape(self)[-1]
    if ratio == 1:
        return bitcast_convert_type(self, dtype)
    if ratio > 1:
        out = bitcast_convert_type(self, dtype)
        return manipulation.reshape(out, (*np.shape(self)[:-1], int(last * ratio)))
    k = int(round(1 / ratio))
    if last % k:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                         "the total size in bytes of the last axis of the array.")
    x = manipulation.reshape(self, (*np.shape(self)[:-1], last // k, k))
    return bitcast_convert_type(x, dtype)


def _item(self, *args):
    if isinstance(self, Tracer):
        return np.asarray(core.concrete_or_error(None, self, "The item() method was called "
                                                 "on a traced array")).item(*args)
    return self._value.item(*args)


def _flat(self):
    raise NotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                              "arr.flatten() instead.")


def _flatten(self, order="C"):
    return manipulation.ravel(self, order)


def _copy(self):
    return array_creation.array(self, copy=True)


def _clip(self, min=None, max=None):  # noqa: A002
    return lax_numpy.clip(self, min, max)


def _searchsorted(self, v, side="left", sorter=None, *, method="scan"):
    return sorting.searchsorted(self, v, side, sorter, method=method)


def _tobytes(self, order="C"):
    return np.asarray(self).tobytes(order)


_METHODS = {
    "all": reductions.all, "any": reductions.any, "argmax": reductions.argmax,
    "argmin": reductions.argmin, "argpartition": sorting.argpartition,
    "argsort": sorting.argsort, "astype": lax_numpy.astype, "choose": indexing_ops.choose,
    "compress": lambda self, condition, axis=None, **kw: indexing_ops.compress(
        condition, self, axis, **kw),
    "conj": ufuncs_math.conjugate, "conjugate": ufuncs_math.conjugate,
    "cumprod": reductions.cumprod, "cumsum": reductions.cumsum,
    "diagonal": products.diagonal, "dot": products.dot, "max": reductions.max,
    "mean": reductions.mean, "min": reductions.min, "prod": reductions.prod,
    "ptp": reductions.ptp, "ravel": manipulation.ravel, "repeat": manipulation.repeat,
    "round": lax_numpy.round, "sort": sorting.sort, "squeeze": manipulation.squeeze,
    "std": reductions.std, "sum": reductions.sum, "swapaxes": manipulation.swapaxes,
    "take": indexing_ops.take, "trace": products.trace, "var": reductions.var,
    "flatten": _flatten, "copy": _copy, "clip": _clip, "searchsorted": _searchsorted,
    "view": _view, "item": _item, "tobytes": _tobytes,
}


def _method(fn):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = getattr(fn, "__name__", "method")
    return m


def _install_methods(cls) -> None:
    for name, fn in _METHODS.items():
        if name == "item" and cls is Array:
            continue
        setattr(cls, name, _method(fn))
    cls.reshape = _reshape_method
    cls.transpose = _transpose_method
    cls.T = property(lambda self: manipulation.transpose(self))
    cls.mT = property(lambda self: manipulation.matrix_transpose(self))
    cls.real = property(lambda self: ufuncs_math.real(self))
    cls.imag = property(lambda self: ufuncs_math.imag(self))
    cls.flat = property(_flat)
    cls.at = property(lambda self: indexing.IndexUpdateHelper(self))
    cls.nonzero = lambda self, *, size=None, fill_value=None: indexing.nonzero(
        self, size=size, fill_value=fill_value)
    cls.__setitem__ = _setitem


def _setitem(self, idx, value):
    raise TypeError("JAX arrays are immutable and do not support in-place item assignment. "
                    "Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] "
                    "method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray"
                    ".at.html")


for _cls in (Array, Tracer):
    _install_operators(_cls)
    _install_methods(_cls)


def _tracer_getitem(self, idx):
    if type(self.aval) is AbstractRef:  # a ref being traced: ref[idx] reads it
        return state_types.ops["get"](self, idx)
    return indexing.getitem(self, idx)


def _tracer_setitem(self, idx, value):
    if type(self.aval) is AbstractRef:  # ref[idx] = value writes it
        state_types.ops["swap"](self, idx, value, "ref_set")
        return None
    return _setitem(self, idx, value)


Tracer.__getitem__ = _tracer_getitem
Tracer.__setitem__ = _tracer_setitem
