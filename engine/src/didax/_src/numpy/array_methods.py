"""Operators and methods of arrays: installs `+ - * / // % ** @`, comparisons, unary
operators, indexing and NumPy-style methods (`.T`, `.sum()`, `.reshape()`, `.astype()`,
`.at[...]`, ...) on both didax.Array and every Tracer, as JAX does, so traced values and
concrete arrays behave alike.

May import core, array and the numpy implementation modules.
"""

from __future__ import annotations

import numpy as np

from didax._src import core
from didax._src.array import Array
from didax._src.core import Tracer
from didax._src.numpy import indexing, lax_numpy, reductions, ufuncs, ufuncs_math


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


def _accepts(x) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic, int, float, complex, bool,
                          core.TypedScalar))


_BINARY = {
    "add": ufuncs.add, "sub": ufuncs.subtract, "mul": ufuncs.multiply,
    "truediv": ufuncs.true_divide, "floordiv": ufuncs.floor_divide, "mod": ufuncs.remainder,
    "pow": ufuncs.power, "matmul": lax_numpy.matmul, "and": ufuncs.bitwise_and,
    "or": ufuncs.bitwise_or, "xor": ufuncs.bitwise_xor, "lshift": ufuncs.left_shift,
    "rshift": ufuncs.right_shift, "divmod": ufuncs.divmod,
}
_COMPARE = {"eq": ufuncs.equal, "ne": ufuncs.not_equal, "lt": ufuncs.less,
            "le": ufuncs.less_equal, "gt": ufuncs.greater, "ge": ufuncs.greater_equal}


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
    cls.__round__ = lambda self, ndigits=None: lax_numpy.round(self, ndigits or 0)


def _method(fn):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = fn.__name__
    return m


def _reshape_method(self, *args, order="C", **kwargs):
    if len(args) == 1 and not isinstance(args[0], int):
        shape = args[0]
    elif "shape" in kwargs:
        shape = kwargs.pop("shape")
    else:
        shape = args
    return lax_numpy.reshape(self, shape, order=order)


def _transpose_method(self, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return lax_numpy.transpose(self, axes or None)


_METHODS = {
    "sum": reductions.sum, "prod": reductions.prod, "max": reductions.max,
    "min": reductions.min, "mean": reductions.mean, "var": reductions.var,
    "std": reductions.std, "all": reductions.all, "any": reductions.any,
    "argmax": reductions.argmax, "argmin": reductions.argmin, "cumsum": reductions.cumsum,
    "cumprod": reductions.cumprod, "ptp": reductions.ptp, "ravel": lax_numpy.ravel,
    "flatten": lax_numpy.ravel, "squeeze": lax_numpy.squeeze, "swapaxes": lax_numpy.swapaxes,
    "astype": lax_numpy.astype, "clip": lax_numpy.clip, "round": lax_numpy.round,
    "dot": lax_numpy.dot, "trace": lax_numpy.trace, "diagonal": lax_numpy.diagonal,
    "sort": lax_numpy.sort, "argsort": lax_numpy.argsort, "repeat": lax_numpy.repeat,
    "conj": ufuncs_math.conjugate, "conjugate": ufuncs_math.conjugate,
}


def _install_methods(cls) -> None:
    for name, fn in _METHODS.items():
        setattr(cls, name, _method(fn))
    cls.reshape = _reshape_method
    cls.transpose = _transpose_method
    cls.T = property(lambda self: lax_numpy.transpose(self))
    cls.mT = property(lambda self: lax_numpy.matrix_transpose(self))
    cls.real = property(lambda self: ufuncs_math.real(self))
    cls.imag = property(lambda self: ufuncs_math.imag(self))
    cls.at = property(lambda self: indexing.IndexUpdateHelper(self))
    cls.nonzero = lambda self, *, size=None, fill_value=None: indexing.nonzero(
        self, size=size, fill_value=fill_value)
    cls.__matmul__ = _defer(lax_numpy.matmul)


for _cls in (Array, Tracer):
    _install_operators(_cls)
    _install_methods(_cls)
