"""`didax.nn`: JAX's neural-network activation functions and helpers — relu (custom_jvp:
gradient 0 at 0) and relu6, sigmoid, softplus, soft_sign, silu/swish, mish, gelu (tanh
approximation or exact), elu, celu, selu, leaky_relu, hard_tanh/hard_sigmoid/hard_silu,
log_sigmoid, sparse_plus/sparse_sigmoid, squareplus, glu, log1mexp, softmax and
log_softmax, logsumexp/logmeanexp, standardize, one_hot — each staged as a `jit` call
where JAX jits it, so jaxprs show the same equations.

May import core, dtypes, lax, numpy, custom_derivatives and scipy.special.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.custom_derivatives import custom_jvp
from didax._src.lax import lax, shapes
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.manipulation import split
from didax._src.numpy.statistics import _logsumexp_impl
from didax._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    check_arraylike_or_none,
    ensure_arraylike,
    full_like,
    jit_like_jax,
    promote_args_inexact,
    where3,
)

_jit = jit_like_jax


@_jit("identity")
def identity(x):
    return ensure_arraylike("identity", x)


def _relu_impl(x):
    return uf.maximum(x, 0)


_relu_impl.__name__ = "relu"
relu = custom_jvp(_jit("relu")(_relu_impl))
relu.defjvps(lambda g, ans, x: lax.select(lax.gt(x, full_like(x, 0)), g, full_like(g, 0)))
relu.__name__ = "relu"


def _relu6_impl(x):
    return uf.minimum(uf.maximum(x, 0), 6.0)


_relu6_impl.__name__ = "relu6"
relu6 = custom_jvp(_jit("relu6")(_relu6_impl))
relu6.defjvps(lambda g, ans, x: lax.select(
    uf.logical_and(uf.greater(x, 0), uf.less(x, 6)), g, full_like(g, 0)))
relu6.__name__ = "relu6"


@_jit("squareplus")
def squareplus(x, b=4):
    x, b = ensure_arraylike("squareplus", x, b)
    return uf.true_divide(uf.add(x, um.sqrt(uf.add(uf.square(x), b))), 2)


@_jit("softplus")
def softplus(x):
    return um.logaddexp(x, 0)


@_jit("sparse_plus")
def sparse_plus(x):
    x = ensure_arraylike("sparse_plus", x)
    quad = uf.true_divide(uf.power(uf.add(x, 1.0), 2), 4)
    return jnp_core.where(uf.less_equal(x, -1.0), 0.0,
                          jnp_core.where(uf.greater_equal(x, 1.0), x, quad))


@_jit("soft_sign")
def soft_sign(x):
    x = ensure_arraylike("soft_sign", x)
    return uf.true_divide(x, uf.add(uf.absolute(x), 1))


def sigmoid(x):
    return lax.logistic(x)


@_jit("sparse_sigmoid")
def sparse_sigmoid(x):
    return uf.multiply(0.5, jnp_core.clip(uf.add(x, 1.0), 0.0, 2.0))


@_jit("silu")
def silu(x):
    x = ensure_arraylike("silu", x)
    return uf.multiply(x, sigmoid(x))


swish = silu


@_jit("mish")
def mish(x):
    x = ensure_arraylike("mish", x)
    return uf.multiply(x, um.tanh(softplus(x)))


@_jit("log_sigmoid")
def log_sigmoid(x):
    x = ensure_arraylike("log_sigmoid", x)
    return uf.negative(softplus(uf.negative(x)))


@_jit("elu")
def elu(x, alpha=1.0):
    x = ensure_arraylike("elu", x)
    inner = jnp_core.where(uf.greater(x, 0), 0.0, x)
    return jnp_core.where(uf.greater(x, 0), x, uf.multiply(alpha, um.expm1(inner)))


@_jit("leaky_relu")
def leaky_relu(x, negative_slope=1e-2):
    x = ensure_arraylike("leaky_relu", x)
    return jnp_core.where(uf.greater_equal(x, 0), x, uf.multiply(negative_slope, x))


@_jit("hard_tanh")
def hard_tanh(x):
    x = ensure_arraylike("hard_tanh", x)
    return jnp_core.where(uf.greater(x, 1), 1, jnp_core.where(uf.less(x, -1), -1, x))


@_jit("celu")
def celu(x, alpha=1.0):
    return uf.add(uf.maximum(x, 0.0),
                  uf.multiply(alpha, um.expm1(uf.true_divide(uf.minimum(x, 0.0), alpha))))


@_jit("selu")
def selu(x):
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return uf.multiply(scale, elu(x, alpha))


def gelu(x, approximate: bool = True):
    """x * Phi(x): the tanh approximation (default) or the exact form via erfc."""
    from didax._src.lax.special import erfc  # noqa: PLC0415

    (x,) = promote_args_inexact("gelu", x)
    dt = x.dtype
    if approximate:
        c = np.array(np.sqrt(2 / np.pi), dt)
        inner = uf.multiply(c, uf.add(x, uf.multiply(0.044715, uf.power(x, 3))))
        cdf = uf.multiply(0.5, uf.add(1.0, um.tanh(inner)))
        return uf.multiply(x, cdf)
    half = np.array(np.sqrt(0.5), dt)
    out = uf.multiply(uf.multiply(0.5, x), erfc(uf.multiply(uf.negative(x), half)))
    return jnp_core.array(out, dtype=dt)


@_jit("glu", static_argnames=("axis",))
def glu(x, axis=-1):
    x = ensure_arraylike("glu", x)
    if np.shape(x)[axis] % 2:
        raise AssertionError("axis size must be divisible by 2")
    x1, x2 = split(x, 2, axis)
    return uf.multiply(x1, sigmoid(x2))


def _log1mexp_impl(x):
    x = ensure_arraylike("log1mexp", x)
    c = um.log(2.0)
    return jnp_core.where(uf.less(x, c), um.log(uf.negative(um.expm1(uf.negative(x)))),
                          um.log1p(uf.negative(um.exp(uf.negative(x)))))


_log1mexp_impl.__name__ = "log1mexp"
log1mexp = custom_jvp(_jit("log1mexp")(_log1mexp_impl))
log1mexp.defjvps(lambda g, ans, x: uf.true_divide(g, um.expm1(x)))
log1mexp.__name__ = "log1mexp"


def hard_sigmoid(x):
    return _hard_sigmoid(x)


@_jit("hard_sigmoid")
def _hard_sigmoid(x):
    return uf.true_divide(relu6(uf.add(x, 3.0)), 6.0)


@_jit("hard_silu")
def hard_silu(x):
    x = ensure_arraylike("hard_silu", x)
    return uf.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


# ----------------------------------------------------------------------------------------
# Normalizations
# ----------------------------------------------------------------------------------------


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    return _logsumexp_impl(a, axis, b, keepdims, return_sign, where)


@_jit("logmeanexp", static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims=False):
    lse = _logsumexp_impl(x, axis, keepdims=keepdims, where=where)
    count = red._count(ensure_arraylike("logmeanexp", x), axis, keepdims, where,
                       lse.dtype) if where is None else red.sum(
        where, axis, dtype=lse.dtype, keepdims=keepdims)
    return uf.subtract(lse, um.log(count))


@_jit("log_softmax", static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    x = ensure_arraylike("log_softmax", x)
    x_max = red.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else where3(where, x, -np.inf)
    shifted = uf.subtract(x_safe, lax.stop_gradient(x_max))
    lse = um.log(red.sum(um.exp(shifted), axis, where=where, keepdims=True))
    result = uf.subtract(shifted, lse)
    return result if where is None else where3(where, result, -np.inf)


def softmax(x, axis=-1, where=None):
    """exp(x) / sum(exp(x)) along axis, the maximum factored out (held constant for
    differentiation, as JAX's default softmax does)."""
    x_max = red.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else where3(where, x, -np.inf)
    unnormalized = um.exp(uf.subtract(x_safe, lax.stop_gradient(x_max)))
    result = uf.true_divide(unnormalized, red.sum(unnormalized, axis, where=where,
                                                  keepdims=True))
    return result if where is None else where3(where, result, 0)


@_jit("standardize", static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    check_arraylike("standardize", x)
    check_arraylike_or_none("standardize", mean, variance, where)
    if mean is None:
        mean = red.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = red.mean(uf.square(uf.subtract(x, mean)), axis, keepdims=True,
                                where=where)
        elif algorithm == "fast":
            variance = uf.subtract(red.mean(uf.square(x), axis, keepdims=True, where=where),
                                   uf.square(mean))
            variance = jnp_core.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or "
                             "'stable'.")
    return uf.multiply(uf.subtract(x, mean), lax.rsqrt(uf.add(variance, epsilon)))


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    num_classes = core.concrete_or_error(operator.index, num_classes, "The error arose in "
                                         "jax.nn.one_hot argument `num_classes`.")
    x = jnp_core.asarray(x)
    dtype = dtypes.default_float_dtype() if dtype is None else \
        dtypes.check_and_canonicalize_user_dtype(dtype, "one_hot")
    return _one_hot(x, num_classes, dtype=dtype, axis=operator.index(axis))


@_jit("_one_hot", static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes, *, dtype, axis):
    out_axis = canonicalize_axis(axis, x.ndim + 1)
    lhs = shapes.expand_dims(x, (out_axis,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = shapes.broadcasted_iota(x.dtype, tuple(rhs_shape), out_axis)
    return jnp_core.astype(uf.equal(lhs, rhs), dtype)


def tanh(x):
    return um.tanh(x)
