"""`jnp.ufunc`: a callable with NumPy's ufunc methods — outer, reduce, accumulate,
reduceat and at — either specialized (add.reduce is sum, add.at a scatter-add) or built
generically from the element function; `frompyfunc` makes one from a Python function. The
public didax.numpy wraps add, subtract, multiply, maximum, minimum, the logical and bitwise
binary functions, logaddexp/logaddexp2 and negative in it, as JAX does.

May import core, dtypes, array, didax.lax and the numpy implementation modules below.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import core
from didax._src.lax import shapes
from didax._src.numpy.array_creation import asarray
from didax._src.numpy.manipulation import concatenate, ravel, reshape, stack
from didax._src.numpy.util import canonicalize_axis, dtype_of, ensure_arraylike


class ufunc:  # noqa: N801 - NumPy's name
    """A universal function: element function plus reduce/accumulate/outer/at."""

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None,
                 call=None, reduce=None, accumulate=None, at=None, reduceat=None):
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self._func, self.nin, self.nout = func, operator.index(nin), operator.index(nout)
        self.nargs = nargs if nargs is not None else self.nin
        self.identity = identity
        self._call, self._reduce, self._accumulate = call, reduce, accumulate
        self._at, self._reduceat = at, reduceat

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __hash__(self):
        return hash((self._func, self.__name__, self.identity, self.nin, self.nout))

    def __eq__(self, other):
        return isinstance(other, ufunc) and (self._func, self.__name__, self.identity,
                                             self.nin, self.nout) == (
            other._func, other.__name__, other.identity, other.nin, other.nout)

    def __call__(self, *args, out=None, where=None):
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        return (self._call or self._func)(*args)

    def outer(self, A, B, /):
        if self.nin != 2:
            raise ValueError("outer only supported for binary ufuncs")
        A, B = ensure_arraylike(f"{self.__name__}.outer", A, B)
        a = reshape(A, (*np.shape(A), *(1,) * np.ndim(B)))
        return self(a, B)

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        if self.nin != 2:
            raise ValueError("reduce only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError("reduce only supported for functions returning a single value")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if self._reduce is not None:
            return self._reduce(a, axis=axis, dtype=dtype, keepdims=keepdims,
                                initial=initial, where=where)
        if where is not None:
            raise NotImplementedError(f"where argument of {self.__name__}.reduce()")
        return self._reduce_generic(ensure_arraylike(f"{self.__name__}.reduce", a), axis,
                                    dtype, keepdims, initial)

    def _reduce_generic(self, a, axis, dtype, keepdims, initial):
        if dtype is not None:
            a = asarray(a, dtype)
        if axis is None:
            a, axis, keep_shape = ravel(a), 0, (1,) * np.ndim(a)
        else:
            axis = canonicalize_axis(axis, np.ndim(a))
            keep_shape = tuple(1 if i == axis else d for i, d in enumerate(np.shape(a)))
        n = np.shape(a)[axis]
        if initial is None:
            if n == 0 and self.identity is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                                 "which has no identity")
            initial = self.identity
        acc = None if initial is None else asarray(initial, dtype_of(a))
        for i in range(n):
            v = shapes.index_in_dim(a, i, axis, keepdims=False)
            acc = v if acc is None else self(acc, v)
        if np.ndim(acc) == 0 and np.ndim(a) > 1 and n == 0:
            acc = shapes.broadcast_in_dim(acc, np.shape(a)[:axis] + np.shape(a)[axis + 1:],
                                          ())
        return reshape(acc, keep_shape) if keepdims else acc

    def accumulate(self, a, axis=0, dtype=None, out=None):
        if self.nin != 2:
            raise ValueError("accumulate only supported for binary ufuncs")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        if self._accumulate is not None:
            return self._accumulate(a, axis=axis, dtype=dtype)
        a = ensure_arraylike(f"{self.__name__}.accumulate", a)
        if dtype is not None:
            a = asarray(a, dtype)
        axis = canonicalize_axis(axis, np.ndim(a))
        n = np.shape(a)[axis]
        outs, acc = [], None
        for i in range(n):
            v = shapes.index_in_dim(a, i, axis, keepdims=False)
            acc = v if acc is None else self(acc, v)
            outs.append(acc)
        return stack(outs, axis) if outs else a

    def at(self, a, indices, b=None, /, *, inplace=True):
        if inplace:
            raise NotImplementedError("jax.numpy.ufunc.at does not support inplace=True")
        if self._at is not None:
            return self._at(a, indices, b)
        a = ensure_arraylike(f"{self.__name__}.at", a)
        cur = a[indices]
        new = self(cur) if b is None else self(cur, b)
        return a.at[indices].set(new)

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        if self.nin != 2:
            raise ValueError("reduceat only supported for binary ufuncs")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        a = ensure_arraylike(f"{self.__name__}.reduceat", a)
        idx = core.concrete_or_error(np.asarray, indices,
                                     f"indices argument of {self.__name__}.reduceat()")
        axis = canonicalize_axis(axis, np.ndim(a))
        n = np.shape(a)[axis]
        parts = []
        for k, start in enumerate(idx.tolist()):
            stop = idx[k + 1] if k + 1 < len(idx) else n
            if stop > start:
                seg = shapes.slice_in_dim(a, start, int(stop), axis=axis)
                parts.append(self.reduce(seg, axis=axis, dtype=dtype, keepdims=True))
            else:
                parts.append(shapes.slice_in_dim(a, start, start + 1, axis=axis))
        return concatenate(parts, axis) if parts else a


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A ufunc from a Python function of array scalars (applied elementwise by
    broadcasting, as JAX's frompyfunc)."""
    from didax._src.numpy.vectorize import vectorize  # noqa: PLC0415

    return ufunc(vectorize(func), nin, nout, name=getattr(func, "__name__", "<lambda>"),
                 identity=identity)



def _at(method):
    def at(a, indices, b):
        return getattr(ensure_arraylike("at", a).at[indices], method)(b)
    return at


def _jax_ufuncs() -> dict[str, ufunc]:
    """The jnp functions that are ufunc objects in JAX, with their specialized methods."""
    from didax._src.numpy import reductions as red  # noqa: PLC0415
    from didax._src.numpy import ufuncs as uf  # noqa: PLC0415
    from didax._src.numpy import ufuncs_math as um  # noqa: PLC0415

    def cum(fn):
        return lambda a, axis=0, dtype=None: fn(a, axis=axis, dtype=dtype)
    spec = {
        "add": (uf.add, 0, red.sum, cum(red.cumsum), _at("add")),
        "multiply": (uf.multiply, 1, red.prod, cum(red.cumprod), _at("multiply")),
        "subtract": (uf.subtract, None, None, None, _at("subtract")),
        "maximum": (uf.maximum, None, _no_dtype(red.max), None, _at("max")),
        "minimum": (uf.minimum, None, _no_dtype(red.min), None, _at("min")),
        "logical_and": (uf.logical_and, True, red.reduce_logical_and, None, None),
        "logical_or": (uf.logical_or, False, red.reduce_logical_or, None, None),
        "logical_xor": (uf.logical_xor, False, red.reduce_logical_xor, None, None),
        "bitwise_and": (uf.bitwise_and, -1, red.reduce_bitwise_and, None, None),
        "bitwise_or": (uf.bitwise_or, 0, red.reduce_bitwise_or, None, None),
        "bitwise_xor": (uf.bitwise_xor, 0, red.reduce_bitwise_xor, None, None),
        "logaddexp": (um.logaddexp, -np.inf, _logsumexp_reduce, None, None),
        "logaddexp2": (um.logaddexp2, -np.inf, None, None, None),
    }
    out = {name: ufunc(fn, 2, 1, name=name, identity=ident, reduce=r, accumulate=acc,
                       at=at) for name, (fn, ident, r, acc, at) in spec.items()}
    out["negative"] = ufunc(uf.negative, 1, 1, name="negative")
    return out


def _no_dtype(fn):
    def reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        if dtype is not None:
            a = asarray(a, dtype)
        return fn(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return reduce


def _logsumexp_reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    from didax._src.numpy import ufuncs_math as um  # noqa: PLC0415
    from didax._src.numpy.statistics import _logsumexp_impl  # noqa: PLC0415

    out = _logsumexp_impl(a, axis, keepdims=keepdims, where=where)
    return out if initial is None else um.logaddexp(initial, out)
