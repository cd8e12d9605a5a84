"""`jnp.fft`: NumPy's FFT API over the `fft` primitive — the transformed axes moved last,
inputs cropped or zero-padded to the requested lengths, and the "backward"/"ortho"/"forward"
normalizations; plus fftfreq/rfftfreq and fftshift/ifftshift.

May import core, dtypes, lax (incl. lax.fft) and the numpy implementation modules below
the public API.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import dtypes
from didax._src.lax import lax
from didax._src.lax.fft import FftType
from didax._src.lax.fft import fft as lax_fft
from didax._src.numpy import ufuncs_math
from didax._src.numpy.array_creation import asarray
from didax._src.numpy.manipulation import moveaxis, roll
from didax._src.numpy.pad import pad
from didax._src.numpy.util import ensure_arraylike, jit_like_jax, to_array


def _fft_core(name, fft_type, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{name}"
    arr = ensure_arraylike(full_name, a)
    if s is not None:
        s = tuple(map(operator.index, s))
        if any(n < 0 for n in s):
            raise ValueError("Shape should be non-negative.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    nd = np.ndim(arr)
    if axes is None:
        axes = range(nd) if s is None else range(nd - len(s), nd)
    axes = tuple(axes)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if len(axes) > 3:
        raise ValueError(f"{full_name} only supports 1D, 2D, and 3D FFTs. Got axes "
                         f"{orig_axes} with input rank {nd}.")
    if orig_axes is not None:
        axes = tuple(range(nd - len(axes), nd))
        arr = moveaxis(arr, orig_axes, axes)
    if s is not None:
        in_s = list(np.shape(arr))
        for axis, n in zip(axes, s):
            in_s[axis] = n
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(n) for n in in_s)]
        arr = pad(arr, [(0, n - m) for n, m in zip(in_s, np.shape(arr))])
    elif fft_type == FftType.IRFFT:
        s = [np.shape(arr)[axis] for axis in axes[:-1]]
        if axes:
            s += [max(0, 2 * (np.shape(arr)[axes[-1]] - 1))]
    else:
        s = [np.shape(arr)[axis] for axis in axes]
    out = _fft(arr, fft_type, tuple(s))
    out = _normalize(out, s, name, norm)
    if orig_axes is not None:
        out = moveaxis(out, axes, orig_axes)
    return out


@jit_like_jax("fft", static_argnames=("fft_type", "fft_lengths"))
def _fft(arr, fft_type, fft_lengths):
    return lax_fft(arr, fft_type, fft_lengths)


def _normalize(out, s, name, norm):
    if norm is None or norm == "backward":
        return out
    size = float(np.prod(s, dtype=np.float64))
    inverse = name.startswith("i")
    if norm == "ortho":
        factor = np.sqrt(size) if inverse else 1 / np.sqrt(size)
    elif norm == "forward":
        factor = size if inverse else 1 / size
    else:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or '
                         '"forward".')
    return lax.mul(out, np.array(factor, dtypes.dtype(out)))


def _one_axis(name, fft_type, a, n, axis, norm):
    if isinstance(axis, (list, tuple)):
        raise ValueError(f"jax.numpy.fft.{name} does not support multiple axes. Please use "
                         f"jax.numpy.fft.{name}n. Got axis = {list(axis)}.")
    return _fft_core(name, fft_type, a, None if n is None else [n], [axis], norm)


def fft(a, n=None, axis=-1, norm=None):
    return _one_axis("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    return _one_axis("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    return _one_axis("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    return _one_axis("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    a = ensure_arraylike("jax.numpy.fft.hfft", a)
    nn = (np.shape(a)[axis] - 1) * 2 if n is None else n
    out = _one_axis("hfft", FftType.IRFFT, ufuncs_math.conj(a), n, axis, norm)
    return out * nn


def ihfft(a, n=None, axis=-1, norm=None):
    a = ensure_arraylike("jax.numpy.fft.ihfft", a)
    nn = np.shape(a)[axis] if n is None else n
    out = _one_axis("ihfft", FftType.RFFT, a, n, axis, norm)
    return ufuncs_math.conj(out) * (1 / nn)


def fftn(a, s=None, axes=None, norm=None):
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _two_axes(name, fft_type, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes = {axes}.")
    return _fft_core(name, fft_type, a, s, axes, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return _two_axes("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return _two_axes("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return _two_axes("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return _two_axes("irfft2", FftType.IRFFT, a, s, axes, norm)


def _freq_dtype(name, n, d, dtype):
    for arg, val in (("n", n), ("d", d)):
        if isinstance(val, (list, tuple)):
            what = "an int" if arg == "n" else "a single value"
            raise ValueError(f"The {arg} argument of jax.numpy.fft.{name} only takes {what}. "
                             f"Got {arg} = {list(val)}.")
    return dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point FFT with sample spacing d."""
    del device
    dtype = _freq_dtype("fftfreq", n, d, dtype)
    k = to_array(np.fft.fftfreq(n, 1.0 / n).astype(dtype))
    return k / asarray(d * n, dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point real FFT with sample spacing d."""
    del device
    dtype = _freq_dtype("rfftfreq", n, d, dtype)
    k = to_array(np.arange(0, n // 2 + 1).astype(dtype))
    return k / asarray(d * n, dtype)


def fftshift(x, axes=None):
    x = ensure_arraylike("fftshift", x)
    axes = tuple(range(np.ndim(x))) if axes is None else axes
    if isinstance(axes, int):
        shift = np.shape(x)[axes] // 2
    else:
        shift = tuple(np.shape(x)[ax] // 2 for ax in axes)
    return roll(x, shift, axes)


def ifftshift(x, axes=None):
    x = ensure_arraylike("ifftshift", x)
    axes = tuple(range(np.ndim(x))) if axes is None else axes
    if isinstance(axes, int):
        shift = -(np.shape(x)[axes] // 2)
    else:
        shift = tuple(-(np.shape(x)[ax] // 2) for ax in axes)
    return roll(x, shift, axes)
