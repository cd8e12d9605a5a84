"""`fft[fft_type, fft_lengths]`: discrete Fourier transforms over the trailing axes
(FFT, IFFT, RFFT, IRFFT, as XLA's), declared once with every rule: a NumPy impl, the
linear JVP, JAX's transposes (RFFT's through a naive RFFT, IRFFT's as a scaled RFFT),
batching and the `stablehlo.fft` lowering.

May import core, dtypes, the interpreters, lax._define, lax.lax, lax.shapes,
lax.select_convert and lax.slicing.
"""

from __future__ import annotations

import enum
import math

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import ad, batching
from didax._src.interpreters.ad import Zero
from didax._src.lax import lax, shapes
from didax._src.lax._define import def_primitive
from didax._src.lax.select_convert import convert_element_type


class FftType(enum.IntEnum):
    """The kind of transform (printed as its number in jaxprs, as JAX's)."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def _complex_dtype(dt):
    return np.dtype(np.complex128) if np.dtype(dt) in (np.float64, np.complex128) \
        else np.dtype(np.complex64)


def _real_dtype(dt):
    return np.dtype(np.float64) if np.dtype(dt) in (np.float64, np.complex128) \
        else np.dtype(np.float32)


def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    k = len(fft_lengths)
    if len(x.shape) < k:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many input "
                         f"dimensions as fft_lengths {fft_lengths}.")
    if fft_type == FftType.RFFT:
        if dtypes.is_complex(x.dtype):
            raise ValueError("only real valued inputs supported for rfft")
        if tuple(x.shape[-k:]) != tuple(fft_lengths):
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                             f"fft_lengths {fft_lengths}")
        shape = (*x.shape[:-1], fft_lengths[-1] // 2 + 1)
        return ShapedArray(shape, _complex_dtype(x.dtype))
    if not dtypes.is_complex(x.dtype):
        raise ValueError(f"only complex valued inputs supported for {fft_type.name.lower()}")
    if fft_type == FftType.IRFFT:
        if tuple(x.shape[-k:-1]) != tuple(fft_lengths[:-1]) or \
                x.shape[-1] != fft_lengths[-1] // 2 + 1:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must follow "
                             f"fft_lengths {fft_lengths}")
        return ShapedArray((*x.shape[:-1], fft_lengths[-1]), _real_dtype(x.dtype))
    if tuple(x.shape[-k:]) != tuple(fft_lengths):
        raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                         f"fft_lengths {fft_lengths}")
    return ShapedArray(x.shape, x.dtype)


def _fft_impl(x, *, fft_type, fft_lengths):
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if fft_type == FftType.FFT:
        out = np.fft.fftn(x, axes=axes)
    elif fft_type == FftType.IFFT:
        out = np.fft.ifftn(x, axes=axes)
    elif fft_type == FftType.RFFT:
        out = np.fft.rfftn(x, s=fft_lengths, axes=axes)
    else:
        out = np.fft.irfftn(x, s=fft_lengths, axes=axes)
    return out


def _fft_transpose(t, x, *, fft_type, fft_lengths):
    if type(t) is Zero:
        return [Zero(x.aval)]
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(t, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(t, fft_lengths)]
    return [fft(t, fft_type, fft_lengths)]


def _naive_rfft(x, fft_lengths):
    y = fft(convert_element_type(x, _complex_dtype(x.dtype)), FftType.FFT, fft_lengths)
    n = fft_lengths[-1]
    return shapes.slice_in_dim(y, 0, n // 2 + 1, axis=len(np.shape(y)) - 1)


def _rfft_transpose(t, fft_lengths):
    # RFFT's transpose is not an IRFFT: transpose a naive RFFT (an FFT then a slice), as
    # JAX does.
    aval = ShapedArray((*np.shape(t)[:-len(fft_lengths)], *fft_lengths),
                       _real_dtype(core.get_aval(t).dtype))
    transposed, _ = ad.linear_transpose_fn(lambda x: [_naive_rfft(x, fft_lengths)], [aval])
    return transposed([t])[0]


def _irfft_transpose(t, fft_lengths):
    x = fft(t, FftType.RFFT, fft_lengths)
    n = np.shape(x)[-1]
    is_odd = fft_lengths[-1] % 2
    dt = core.get_aval(x).dtype
    mask = np.concatenate([np.ones(1), np.full(n - 2 + is_odd, 2.0),
                           np.ones(1 - is_odd)]).astype(dt)
    scale = np.array(1 / math.prod(fft_lengths), dt)
    out = lax.mul(lax.mul(scale, shapes.broadcast_in_dim(mask, np.shape(x),
                                                         (len(np.shape(x)) - 1,))), x)
    return lax.conj(out)


def _fft_batch(axis_data, vals, dims, *, fft_type, fft_lengths):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    return fft(x, fft_type, fft_lengths), 0


def _fft_lower(ctx, x, *, fft_type, fft_lengths):
    lengths = ", ".join(str(int(n)) for n in fft_lengths)
    attrs = (f"fft_type = #stablehlo<fft_type {FftType(fft_type).name}>, "
             f"fft_length = array<i64: {lengths}>")
    return ctx.fn.op1("stablehlo.fft", [x], ctx.avals_out[0], attrs)


def _fft_jvp(primals, tangents, **params):
    out = fft_p.bind(primals[0], **params)
    t = tangents[0]
    return out, (Zero.from_primal_value(out) if type(t) is Zero
                 else fft_p.bind(t, **params))


fft_p = def_primitive(
    "fft", abstract_eval=_fft_abstract_eval, impl=_fft_impl, jvp=_fft_jvp,
    transpose=_fft_transpose, batch=_fft_batch, lower=_fft_lower)


def fft(x, fft_type, fft_lengths):
    """`lax.fft`: the transform of the trailing len(fft_lengths) axes of x."""
    if isinstance(fft_type, str):
        fft_type = FftType[fft_type.upper()]
    fft_type = FftType(int(fft_type))
    fft_lengths = tuple(int(n) for n in fft_lengths)
    dt = core.get_aval(x).dtype
    if fft_type == FftType.RFFT:
        if dtypes.is_complex(dt):
            raise ValueError("only real valued inputs supported for rfft")
        if not dtypes.is_inexact(dt):
            x = convert_element_type(x, dtypes.to_inexact_dtype(dt))
    elif not dtypes.is_complex(dt):  # FFT, IFFT and IRFFT of real input: as complex (JAX)
        x = convert_element_type(x, _complex_dtype(dt))
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths)
