"""`didax.nn.initializers`: JAX's parameter initializers — each a function
`init(key, shape, dtype=None) -> Array` built by a factory (normal, uniform,
truncated_normal, constant, variance_scaling and its glorot/lecun/he presets, orthogonal
is not provided) or used directly (zeros, ones). Sampling goes through didax.random, so
draws are bit-identical to JAX's for the same key.

May import core, dtypes, numpy and random.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from didax._src import dtypes, random_extra
from didax._src import random as _random
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um


class Initializer(Protocol):
    def __call__(self, key, shape, dtype=None, out_sharding=None): ...


def _dtype(dtype):
    return dtypes.default_float_dtype() if dtype is None else dtype


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (operator.index(shape),)
    return tuple(operator.index(d) for d in shape)


def zeros(key, shape, dtype=None, out_sharding=None):
    return ac.zeros(shape, _dtype(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
    return ac.ones(shape, _dtype(dtype))


def constant(value, dtype=None) -> Initializer:
    def init(key, shape, dtype=dtype, out_sharding=None):
        return ac.full(shape, value, dtype=_dtype(dtype))
    return init


def uniform(scale=1e-2, dtype=None) -> Initializer:
    def init(key, shape, dtype=dtype, out_sharding=None):
        dt = _dtype(dtype)
        return uf.multiply(_random.uniform(key, shape, dt), ac.array(scale, dtype=dt))
    return init


def normal(stddev=1e-2, dtype=None) -> Initializer:
    def init(key, shape, dtype=dtype, out_sharding=None):
        dt = _dtype(dtype)
        return uf.multiply(_random.normal(key, shape, dt), ac.array(stddev, dtype=dt))
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0) -> Initializer:
    def init(key, shape, dtype=dtype, out_sharding=None):
        dt = _dtype(dtype)
        return uf.multiply(_random.truncated_normal(key, lower, upper, shape, dt),
                           ac.array(stddev, dtype=dt))
    return init


def _size(shape, axes):
    if isinstance(axes, int):
        return shape[axes]
    return math.prod(shape[i] for i in axes)


def _compute_fans(shape: Sequence[int], in_axis=-2, out_axis=-1, batch_axis=()):
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-"
                         "dimensional weights tensor with default in_axis. Must be at "
                         "least 2D or specify in_axis explicitly.")
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    receptive = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive, out_size * receptive


def _complex_uniform(key, shape, dtype):
    key_r, key_theta = _random.split(key)
    real = np.array(0, dtype).real.dtype
    cdt = dtypes.to_complex_dtype(real)
    r = lax_numpy.astype(um.sqrt(uf.multiply(2, _random.uniform(key_r, shape, real))), cdt)
    theta = uf.multiply(2 * np.pi, lax_numpy.astype(_random.uniform(key_theta, shape, real),
                                                    cdt))
    return uf.multiply(r, um.exp(uf.multiply(1j, theta)))


def _complex_truncated_normal(key, upper, shape, dtype):
    key_r, key_theta = _random.split(key)
    real = np.array(0, dtype).real.dtype
    cdt = dtypes.to_complex_dtype(real)
    scale = uf.subtract(1, um.exp(ac.array(-(upper ** 2), dtype=cdt)))
    t = uf.multiply(scale, lax_numpy.astype(_random.uniform(key_r, shape, real), cdt))
    r = um.sqrt(uf.negative(um.log(uf.subtract(1, t))))
    theta = uf.multiply(2 * np.pi, lax_numpy.astype(_random.uniform(key_theta, shape, real),
                                                    cdt))
    return uf.multiply(r, um.exp(uf.multiply(1j, theta)))


def _denominator(mode, fan_in, fan_out):
    if mode == "fan_in":
        return fan_in
    if mode == "fan_out":
        return fan_out
    if mode == "fan_avg":
        return (fan_in + fan_out) / 2
    if mode == "fan_geo_avg":
        return (fan_in * fan_out) ** 0.5
    raise ValueError(f"invalid mode for variance scaling initializer: {mode}")


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None) -> Initializer:
    def init(key, shape, dtype=dtype, out_sharding=None):
        shape, dt = _shape(shape), _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        variance = ac.array(scale / _denominator(mode, fan_in, fan_out), dtype=dt)
        real = dtypes.issubdtype(dt, np.floating)
        if distribution == "truncated_normal":
            if real:
                std = uf.true_divide(um.sqrt(variance), ac.array(.87962566103423978, dt))
                return uf.multiply(_random.truncated_normal(key, -2, 2, shape, dt), std)
            std = uf.true_divide(um.sqrt(variance), ac.array(.95311164380491208, dt))
            return uf.multiply(_complex_truncated_normal(key, 2, shape, dt), std)
        if distribution == "normal":
            return uf.multiply(_random.normal(key, shape, dt), um.sqrt(variance))
        if distribution == "uniform":
            if real:
                return uf.multiply(_random.uniform(key, shape, dt, -1),
                                   um.sqrt(uf.multiply(3, variance)))
            return uf.multiply(_complex_uniform(key, shape, dt), um.sqrt(variance))
        raise ValueError("invalid distribution for variance scaling initializer: "
                         f"{distribution}")
    return init


def _preset(scale, mode, distribution):
    def factory(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis,
                                dtype)
    return factory


glorot_uniform = xavier_uniform = _preset(1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _preset(1.0, "fan_avg", "truncated_normal")
lecun_uniform = _preset(1.0, "fan_in", "uniform")
lecun_normal = _preset(1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _preset(2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _preset(2.0, "fan_in", "truncated_normal")


def orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
    """A uniformly random orthogonal matrix (random.orthogonal), times scale, reshaped so
    that the axis column_axis holds the orthogonal columns."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError("orthogonal(out_sharding=...) is not supported")
        dtype = dtypes.default_float_dtype() if dtype is None else dtype
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return ac.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random_extra.orthogonal(key, n_rows, (), dtype, n_cols)
        q = lax_numpy.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        q = lax_numpy.moveaxis(q, -1, column_axis)
        return uf.multiply(ac.array(scale, dtype), q)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
    """Zeros except an orthogonal matrix at the kernel's spatial centre (3-D to 5-D
    convolution kernels, fan_in <= fan_out)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError("delta_orthogonal(out_sharding=...) is not supported")
        dtype = dtypes.default_float_dtype() if dtype is None else dtype
        shape = tuple(shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key,
                                                                              shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return ac.zeros(shape, dtype=dtype).at[centre + (Ellipsis,)].set(ortho)
    return init
