"""`jax.scipy.signal`: N-d convolution and correlation (direct, through
`lax.conv_general_dilated`, or by FFT), their 2-D forms, and `detrend`.

The direct methods build the same convolution JAX builds (kernel flipped, padded per mode,
a batch and a feature dimension of 1), so values, gradients and jaxprs match.
May import core, dtypes, lax and numpy (the implementation modules).
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src.lax import convolution, dynamic_slicing
from didax._src.lax.reductions import Precision
from didax._src.numpy import array_creation as ac
from didax._src.numpy import fft as jfft
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import linalg_decomp as jld
from didax._src.numpy import manipulation as man
from didax._src.numpy import products, ufuncs_math
from didax._src.numpy.util import ensure_arraylike, promote_dtypes_inexact

_MODES = ("full", "same", "valid")


def _convolve_nd(in1, in2, mode: str, *, precision):
    """Direct convolution of equal-rank arrays (the larger one slides the smaller)."""
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    if np.ndim(in1) != np.ndim(in2):
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if np.size(in1) == 0 or np.size(in2) == 0:
        raise ValueError("zero-size arrays not supported in convolutions, got shapes "
                         f"{np.shape(in1)} and {np.shape(in2)}.")
    in1, in2 = promote_dtypes_inexact(in1, in2)
    s1, s2 = np.shape(in1), np.shape(in2)
    larger = all(a >= b for a, b in zip(s1, s2))
    smaller = all(a <= b for a, b in zip(s1, s2))
    if not (larger or smaller):
        raise ValueError("One input must be smaller than the other in every dimension.")
    requested = s2  # 'same' centres on in1 with in2's original extent
    if smaller:
        in1, in2 = in2, in1
    kernel = np.shape(in2)
    in2 = man.flip(in2)
    if mode == "valid":
        padding = [(0, 0)] * len(kernel)
    elif mode == "same":
        padding = [(k - 1 - (r - 1) // 2, k - r + (r - 1) // 2)
                   for k, r in zip(kernel, requested)]
    else:
        padding = [(k - 1, k - 1) for k in kernel]
    out = convolution.conv_general_dilated(in1[None, None], in2[None, None],
                                           (1,) * len(kernel), padding, precision=precision)
    return out[0, 0]


def convolve(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """N-d convolution of in1 with in2; method 'auto'/'direct' (a convolution) or 'fft'."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _convolve_nd(in1, in2, mode, precision=precision)
    raise ValueError(f"Got {method=}; expected 'auto', 'fft', or 'direct'.")


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0,
               precision=None):
    """2-D convolution (only zero fill at the boundary, as in JAX)."""
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError("convolve2d() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError("convolve2d() only supports 2-dimensional inputs.")
    return _convolve_nd(in1, in2, mode, precision=precision)


def correlate(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """N-d cross-correlation: convolution with the flipped conjugate of in2."""
    in2 = man.flip(ufuncs_math.conjugate(in2))
    return convolve(in1, in2, mode, precision=precision, method=method)


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0,
                precision=None):
    """2-D cross-correlation (only zero fill at the boundary, as in JAX)."""
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError("correlate2d() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError("correlate2d() only supports 2-dimensional inputs.")
    s1, s2 = np.shape(in1), np.shape(in2)
    swap = all(a <= b for a, b in zip(s1, s2))
    same_shape = s1 == s2
    conj = ufuncs_math.conjugate
    # correlate(a, b) = flip(convolve(flip(a), conj(b))); when b is the larger operand
    # the roles swap instead, which keeps JAX's choice of which one slides
    if mode == "same" or (mode == "valid" and not (swap and not same_shape)) or (
            mode == "full" and not swap):
        return man.flip(_convolve_nd(man.flip(in1), conj(in2), mode, precision=precision))
    out = _convolve_nd(man.flip(in2), conj(in1), mode, precision=precision)
    return out if mode == "valid" else conj(out)


def fftconvolve(in1, in2, mode: str = "full", axes=None):
    """N-d convolution through FFTs, along `axes` (default all); the other axes must have
    equal sizes and are mapped pairwise, as JAX maps them with vmap."""
    in1, in2 = ensure_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(in1, in2)
    if np.ndim(in1) != np.ndim(in2):
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in ("same", "full", "valid"):
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    ndim = np.ndim(in1)
    if axes is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(operator.index(a) for a in (axes if np.iterable(axes) else (axes,)))
        axes = tuple(a + ndim if a < 0 else a for a in axes)
        mapped = sorted(set(range(ndim)) - set(axes))
        if any(np.shape(in1)[i] != np.shape(in2)[i] for i in mapped):
            raise ValueError(f"mapped axes must have same shape; got in1.shape="
                             f"{np.shape(in1)} in2.shape={np.shape(in2)} axes={axes}")
    return _fftconvolve_axes(in1, in2, mode, tuple(sorted(set(axes))))


def _fftconvolve_axes(in1, in2, mode: str, axes: tuple[int, ...]):
    s1, s2 = np.shape(in1), np.shape(in2)
    a1, a2 = [s1[a] for a in axes], [s2[a] for a in axes]
    if mode == "valid":
        no_swap = all(a >= b for a, b in zip(a1, a2))
        swap = all(a <= b for a, b in zip(a1, a2))
        if not (no_swap or swap):
            raise ValueError("For 'valid' mode, One input must be at least as large as the "
                             "other in every dimension.")
        if swap:
            in1, in2, s1, s2, a1, a2 = in2, in1, s2, s1, a2, a1
    full = [a + b - 1 for a, b in zip(a1, a2)]
    if all(a == 1 or b == 1 for a, b in zip(a1, a2)):
        conv = in1 * in2
    elif jnp_core.iscomplexobj(in1):
        conv = jfft.ifftn(jfft.fftn(in1, full, axes) * jfft.fftn(in2, full, axes), full, axes)
    else:
        conv = jfft.irfftn(jfft.rfftn(in1, full, axes) * jfft.rfftn(in2, full, axes), full,
                           axes)
    out = {"full": full, "same": a1, "valid": [a - b + 1 for a, b in zip(a1, a2)]}[mode]
    start, sizes = [0] * len(s1), list(np.shape(conv))
    for ax, f, o in zip(axes, full, out):
        start[ax], sizes[ax] = (f - o) // 2, o
    return dynamic_slicing.dynamic_slice(conv, tuple(start), tuple(sizes))


def detrend(data, axis: int = -1, type: str = "linear", bp=0,  # noqa: A002
            overwrite_data=None):
    """Removes the mean ('constant') or a least-squares line per segment between
    breakpoints ('linear') along `axis`."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    (x,) = promote_dtypes_inexact(ac.asarray(data))
    if type == "constant":
        return x - x.mean(axis, keepdims=True)
    n = np.shape(x)[axis]
    bps = np.sort(np.unique(np.r_[0, bp, n]))
    if bps[0] < 0 or bps[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data "
                         "along given axis.")
    x = man.moveaxis(x, axis, 0)
    shape = np.shape(x)
    x = x.reshape(n, -1)
    for lo, hi in zip(bps[:-1], bps[1:]):
        m = hi - lo
        design = man.vstack([ac.ones(m, dtype=x.dtype),
                             ac.arange(1, m + 1, dtype=x.dtype) / m.astype(x.dtype)]).T
        coef, *_ = jld.lstsq(design, x[lo:hi])
        fit = products.matmul(design, coef, precision=Precision.HIGHEST)
        x = x.at[lo:hi].add(-fit)
    return man.moveaxis(x.reshape(shape), 0, axis)


def _spectral_unsupported(name: str):
    def fn(*args, **kwargs):
        raise NotImplementedError(
            f"jax.scipy.signal.{name} is not implemented in didax; compute the spectrum "
            "with jnp.fft.rfft over windowed segments (jnp.stack of slices) instead.")
    fn.__name__ = name
    return fn


stft = _spectral_unsupported("stft")
istft = _spectral_unsupported("istft")
csd = _spectral_unsupported("csd")
welch = _spectral_unsupported("welch")
