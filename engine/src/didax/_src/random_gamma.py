"""Gamma-family samplers of `didax.random`, after JAX 0.10: `random_gamma_p` draws one
Gamma(alpha) sample per alpha by Marsaglia and Tsang's rejection method (nested while loops
over fresh keys), vectorized over alphas with vmap; gamma, loggamma, beta, chisquare, f, t,
generalized_normal and ball are built on it.

The derivative of a sample with respect to alpha (JAX's implicit reparametrization through
`random_gamma_grad`) needs the incomplete-gamma derivative series, which didax.lax does not
have yet: random_gamma_p's JVP is a declared gap.

May import what `didax._src.random` may, and `didax._src.random`/`random_extra`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from didax._src import core, dtypes
from didax._src.api import vmap
from didax._src.core import ShapedArray
from didax._src.interpreters import batching
from didax._src.lax import lax, shapes
from didax._src.lax._define import NONLINEAR, def_primitive, unsupported
from didax._src.lax.control_flow import while_loop
from didax._src.prng import lower_physical
from didax._src.prng_keys import physical_aval
from didax._src.random import (
    Shape,
    _canonicalize_shape,
    _check_prng_key,
    _check_shape,
    _const,
    _float_dtype,
    _jit,
    _split,
    exponential,
    normal,
    uniform,
)
from didax._src.random_extra import (
    _broadcast_to,
    _check_all_safe_to_cast,
    _check_broadcast_shapes,
    _sampler_args,
    rademacher,
    sum_last,
)

# ----------------------------------------------------------------------------------------
# One sample: Marsaglia-Tsang
# ----------------------------------------------------------------------------------------


def _gamma_one(key, alpha, log_space: bool):
    """One Gamma(alpha) sample (alpha < 1 is boosted to alpha + 1 and corrected by a
    uniform power, in log space when asked, so tiny alphas do not underflow)."""
    one, zero = _const(alpha, 1), _const(alpha, 0)
    dtype = core.get_aval(alpha).dtype
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, _const(alpha, 1.0 / 3.0))
    c = lax.div(_const(alpha, 1.0 / 3.0), lax.sqrt(d))
    key, subkey = _split(key)
    init = (key, zero, one, _const(alpha, 2))
    _, _, v, _ = while_loop(functools.partial(_accept_not_yet, d),
                            functools.partial(_propose, c, dtype), init)
    if log_space:
        log_samples = lax.neg(exponential(subkey, (), dtype=dtype))
        log_boost = lax.select(boost_mask | (log_samples == 0), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
    samples = 1 - uniform(subkey, (), dtype=dtype)
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, v), boost)


def _accept_not_yet(d, state):
    """True while the proposal (x², v³, u) is rejected by the squeeze and the log test."""
    _, x, v, u = state
    one = _const(x, 1)
    squeeze = lax.ge(u, lax.sub(one, lax.mul(_const(x, 0.0331), lax.mul(x, x))))
    log_test = lax.ge(lax.log(u), lax.add(lax.mul(x, _const(x, 0.5)),
                                          lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))))
    return lax.bitwise_and(squeeze, log_test)


def _propose(c, dtype, state):
    key = state[0]
    key, x_key, u_key = _split(key, 3)
    zero = _const(c, 0)

    def next_normal(kxv):
        k, subkey = _split(kxv[0])
        x = normal(subkey, (), dtype=dtype)
        return k, x, lax.add(_const(c, 1), lax.mul(x, c))

    _, x, v = while_loop(lambda kxv: lax.le(kxv[2], zero), next_normal,
                         (x_key, zero, _const(c, -1)))
    u = uniform(u_key, (), dtype=dtype)
    return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u


# ----------------------------------------------------------------------------------------
# random_gamma_p
# ----------------------------------------------------------------------------------------


def _gamma_impl(key, a, *, log_space: bool):
    """Splits `key` into one key per element of `a` and vmaps _gamma_one over them."""
    a_shape = np.shape(a)
    split_count = math.prod(a_shape[np.ndim(key):])
    keys = shapes.reshape(key, (math.prod(np.shape(key)),))
    keys = vmap(lambda k: _split(k, split_count))(keys)
    keys = shapes.reshape(keys, (math.prod(np.shape(keys)),))
    alphas = shapes.reshape(a, (math.prod(a_shape),))
    samples = vmap(functools.partial(_gamma_one, log_space=log_space))(keys, alphas)
    return shapes.reshape(samples, a_shape)


def _gamma_batch(axis_data, vals, dims, *, log_space):
    size = axis_data.size
    k, a = (batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims))
    return random_gamma_p.bind(k, a, log_space=log_space), 0


def _gamma_lower(ctx, key, a, *, log_space):
    fun = functools.partial(_gamma_impl, log_space=log_space)
    return lower_physical(ctx, lambda k, x: fun(_rewrap(ctx.avals_in[0], k), x),
                          [physical_aval(v) for v in ctx.avals_in], [key, a], False)


def _rewrap(key_aval, data):
    from didax._src.prng_keys import random_wrap  # noqa: PLC0415

    return random_wrap(data, impl=key_aval.dtype._impl)


random_gamma_p = def_primitive(
    "random_gamma", abstract_eval=lambda key, a, *, log_space: ShapedArray(a.shape, a.dtype),
    impl=None, eager_impl=lambda key, a, *, log_space: _gamma_impl(key, a,
                                                                   log_space=log_space),
    jvp=unsupported("d(sample)/d(alpha) needs random_gamma_grad (incomplete-gamma "
                    "derivative series), not in didax.lax yet"),
    transpose=NONLINEAR, batch=_gamma_batch, lower=_gamma_lower)


# ----------------------------------------------------------------------------------------
# Samplers
# ----------------------------------------------------------------------------------------


def gamma(key, a, shape: Shape | None = None, dtype=None):
    """Gamma(a, 1) samples."""
    key, _ = _check_prng_key("gamma", key)
    dtype = _float_dtype("gamma", dtype)
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype)


def loggamma(key, a, shape: Shape | None = None, dtype=None):
    """log of Gamma(a, 1) samples, accurate for small a."""
    key, _ = _check_prng_key("loggamma", key)
    dtype = _float_dtype("gamma", dtype)
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype, log_space=True)


@_jit(static_argnames=("shape", "dtype", "log_space"))
def _gamma(key, a, shape, dtype, log_space=False):
    if shape is None:
        shape = np.shape(a)
    else:
        _check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if np.shape(a) != shape:
        a = _broadcast_to(a, shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


def beta(key, a, b, shape: Shape | None = None, dtype=None):
    """Beta(a, b) samples, as a ratio of gammas computed in log space."""
    key, _ = _check_prng_key("beta", key)
    dtype = _float_dtype("beta", dtype)
    _check_all_safe_to_cast("beta", dtype, a, b)
    shape = _check_broadcast_shapes("beta", shape, a, b)
    return _beta(key, a, b, shape, dtype)


@_jit(static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
    a, b = (_broadcast_to(lax.convert_element_type(v, dtype), shape) for v in (a, b))
    key_a, key_b = _split(key)
    log_gamma_a = loggamma(key_a, a, shape, dtype)
    log_gamma_b = loggamma(key_b, b, shape, dtype)
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a = lax.exp(log_gamma_a - log_max)
    gamma_b = lax.exp(log_gamma_b - log_max)
    return gamma_a / (gamma_a + gamma_b)


def chisquare(key, df, shape: Shape | None = None, dtype=None):
    """Chi-square samples with df degrees of freedom."""
    key, shape, dtype = _sampler_args("chisquare", key, shape, dtype, df)
    return _chisquare(key, df, shape, dtype)


@_jit(static_argnums=(2, 3))
def _chisquare(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    two = _const(df, 2)
    log_g = loggamma(key, lax.div(df, two), shape=shape, dtype=dtype)
    return lax.mul(lax.exp(log_g), two)


def f(key, dfnum, dfden, shape: Shape | None = None, dtype=None):
    """F-distribution samples: a ratio of scaled chi-squares."""
    key, shape, dtype = _sampler_args("f", key, shape, dtype, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype)


@_jit(static_argnums=(3, 4))
def _f(key, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = _split(key)
    chi2_dfn = chisquare(key_dfn, dfnum, shape, dtype)
    chi2_dfd = chisquare(key_dfd, dfden, shape, dtype)
    return lax.div(lax.div(chi2_dfn, dfnum), lax.div(chi2_dfd, dfden))


def t(key, df, shape: Shape | None = None, dtype=None):
    """Student's t samples with df degrees of freedom."""
    key, shape, dtype = _sampler_args("t", key, shape, dtype, df)
    return _t(key, df, shape, dtype)


@_jit(static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split(key)
    n = normal(key_n, shape, dtype)
    half_df = lax.div(df, _const(n, 2))
    g = gamma(key_g, half_df, shape, dtype)
    return n * lax.sqrt(half_df / g)


def generalized_normal(key, p: float, shape: Shape = (), dtype=None):
    """Samples with density proportional to exp(-|x|^p)."""
    shape = _canonicalize_shape(shape)
    key, _ = _check_prng_key("generalized_normal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    _check_shape("generalized_normal", shape)
    return _generalized_normal(key, p, shape, dtype)


@_jit(static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
    k1, k2 = _split(key)
    g = gamma(k1, 1 / p, shape, dtype)
    r = rademacher(k2, shape, dtype)
    return r * g ** (1 / p)


def ball(key, d: int, p: float = 2, shape: Shape = (), dtype=None):
    """Uniform samples from the unit p-norm ball in d dimensions."""
    shape = _canonicalize_shape(shape)
    key, _ = _check_prng_key("ball", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    _check_shape("ball", shape)
    d = core.concrete_or_error(int, d, "The error occurred in jax.random.ball()")
    return _ball(key, p, d, shape, dtype)


@_jit(static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
    k1, k2 = _split(key)
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = exponential(k2, shape, dtype)
    total = sum_last(lax.abs(g) ** p) + e
    return g / shapes.expand_dims(total ** (1 / p), (len(shape),))
