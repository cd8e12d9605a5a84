"""`jax.scipy.fft`: the type-2 discrete cosine transform and its inverse, along one axis
(`dct`, `idct`) or several (`dctn`, `idctn`), with SciPy's `norm=None`/"backward"/"ortho"
scalings. JAX implements only type 2; so does didax.

As in JAX (jax/_src/scipy/fft.py), a DCT-II of length N is one complex FFT of the
input reordered (even entries, then the odd ones reversed) times a quarter-wave twiddle
(two axes at a time for dctn, with one 2-D FFT); the inverse undoes each step. Complex inputs transform their real and imaginary parts.
May import core, dtypes, lax and numpy (the implementation modules).
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import dtypes
from didax._src.lax import lax, shapes
from didax._src.numpy import array_creation as ac
from didax._src.numpy import fft as jfft
from didax._src.numpy import indexing_ops as ix
from didax._src.numpy import manipulation as man
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.util import canonicalize_axis, ensure_arraylike, promote_dtypes_inexact


def _check(name: str, type: int, norm) -> None:
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")


def _along(x, axis: int, values):
    """A 1-D array of values shaped to broadcast along `axis` of x."""
    return shapes.expand_dims(values, [a for a in range(x.ndim) if a != axis])


def _resized(x, axis: int, n):
    """x zero-padded (or truncated) to length n along axis."""
    if n is None:
        return x
    pads = [(0, n - x.shape[axis] if a == axis else 0, 0) for a in range(x.ndim)]
    return shapes.pad(x, lax._const(x, 0), pads)


def _w4(n: int, k):
    """exp(-i pi k / (2n)), the DCT's quarter-wave twiddle factors."""
    kc = lax.convert_element_type(k, dtypes.to_complex_dtype(k.dtype))
    return um.exp(-0.5j * np.pi * kc / n)


def _ortho_scale(x, axis: int):
    """x / sqrt(f N) with f = 4 for the first coefficient and 2 for the others (computed
    in x's dtype, as JAX does)."""
    n = x.shape[axis]
    factor = shapes.concatenate([lax.full((1,), 4, x.dtype), lax.full((n - 1,), 2, x.dtype)], 0)
    return x / lax.sqrt(_along(x, axis, factor) * n)


def _interleave_order(n: int) -> np.ndarray:
    return np.concatenate([np.arange(0, n, 2), np.arange(1, n, 2)[::-1]])


def _interleave(x, axis: int):
    evens = shapes.slice_in_dim(x, None, None, 2, axis)
    odds = shapes.rev(shapes.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return shapes.concatenate([evens, odds], axis)


def _deinterleave(x, axis: int):
    inverse = np.argsort(_interleave_order(x.shape[axis])).astype(np.int32)
    return ix.take(x, ac.asarray(inverse), axis=axis)


def _split_complex(f, x, **kw):
    return lax.complex(f(lax.real(x), **kw), f(lax.imag(x), **kw))


def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The type-2 DCT of x along `axis` (zero-padded or truncated to length n first)."""
    x = ensure_arraylike("dct", x)
    _check("dct", type, norm)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return _split_complex(dct, x, type=type, n=n, axis=axis, norm=norm)
    axis = canonicalize_axis(axis, x.ndim)
    x = _resized(x, axis, n)
    size = x.shape[axis]
    spectrum = jfft.fft(_interleave(x, axis), axis=axis)
    k = _along(x, axis, ac.arange(size, dtype=lax.real(spectrum).dtype))
    out = 2 * lax.real(spectrum * _w4(size, k))
    return _ortho_scale(out, axis) if norm == "ortho" else out


def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of the type-2 DCT (a scaled type-3 DCT) along `axis`."""
    x = ensure_arraylike("idct", x)
    _check("idct", type, norm)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return _split_complex(idct, x, type=type, n=n, axis=axis, norm=norm)
    axis = canonicalize_axis(axis, x.ndim)
    x, = promote_dtypes_inexact(_resized(x, axis, n))
    size = x.shape[axis]
    if norm is None or norm == "backward":
        x = _ortho_scale(x, axis)
    x = _ortho_scale(x, axis)
    w = _w4(size, _along(x, axis, ac.arange(size, dtype=x.dtype)))
    x = lax.convert_element_type(x, w.dtype) / w
    x = x * 2 * size
    return _deinterleave(lax.real(jfft.ifft(x, axis=axis)), axis)


def _axes_and_sizes(x, s, axes):
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = range(x.ndim - len(s), x.ndim) if s is not None else range(x.ndim)
    axes = tuple(canonicalize_axis(a, x.ndim) for a in axes)
    return axes, (s if s is not None else [None] * len(axes))


def _dct2(x, axes, norm):
    """The DCT over two axes at once: one 2-D FFT of the doubly reordered input."""
    a1, a2 = axes
    n1, n2 = x.shape[a1], x.shape[a2]
    spectrum = jfft.fftn(_interleave(_interleave(x, a1), a2), axes=axes)
    k1 = _along(x, a1, ac.arange(n1, dtype=spectrum.dtype))
    k2 = _along(x, a2, ac.arange(n2, dtype=spectrum.dtype))
    mirrored = man.roll(man.flip(spectrum, axis=a2), shift=1, axis=a2)
    out = _w4(n1, k1) * (_w4(n2, k2) * spectrum + _w4(n2, -k2) * mirrored)
    out = 2 * lax.real(out)
    return _ortho_scale(_ortho_scale(out, a1), a2) if norm == "ortho" else out


def dctn(x, type: int = 2, s=None, axes=None, norm: str | None = None):
    """The type-2 DCT over several axes (all by default), each padded to s if given; two
    axes at a time, as JAX computes it."""
    x = ensure_arraylike("dctn", x)
    _check("dctn", type, norm)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return _split_complex(dctn, x, type=type, s=s, axes=axes, norm=norm)
    axes, sizes = _axes_and_sizes(x, s, axes)
    if len(axes) == 1:
        return dct(x, n=sizes[0], axis=axes[0], norm=norm)
    for axis, size in zip(axes, sizes):
        x = _resized(x, axis, size)
    if len(axes) == 2:
        return _dct2(x, axes, norm)
    for i in range(0, len(axes), 2):
        x = dctn(x, axes=axes[i:i + 2], norm=norm)
    return x


def idctn(x, type: int = 2, s=None, axes=None, norm: str | None = None):
    """The inverse of `dctn` over the same axes."""
    x = ensure_arraylike("idctn", x)
    _check("idctn", type, norm)
    axes, sizes = _axes_and_sizes(x, s, axes)
    for axis, size in zip(axes, sizes):
        x = idct(x, n=size, axis=axis, norm=norm)
    return x
