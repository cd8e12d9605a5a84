"""Gamma-family samplers of `didax.random`, after JAX 0.10: `random_gamma_p` draws one
Gamma(alpha) sample per alpha by Marsaglia and Tsang's rejection method (nested while loops
over fresh keys), vectorized over alphas with vmap; gamma, loggamma, beta, chisquare, f, t,
generalized_normal and ball are built on it.

Samples are differentiable in alpha by implicit reparametrization, as in JAX: d sample /
d alpha = -(dF/dalpha) / (dF/dx) for the Gamma CDF F, evaluated by the incomplete-gamma
series (small x) or continued fraction (large x), each with its alpha-derivative carried
along (`random_gamma_grad`, mapped over the samples with lax.map as JAX does on CPU).

May import what `didax._src.random` may, and `didax._src.random`/`random_extra`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import batching
from didax._src.interpreters.ad import Zero
from didax._src.lax import lax, reductions, shapes
from didax._src.lax._define import NONLINEAR, def_primitive
from didax._src.lax.control_flow import map as lax_map
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
    keys = _vmap(lambda k: _split(k, split_count), keys)
    keys = shapes.reshape(keys, (math.prod(np.shape(keys)),))
    alphas = shapes.reshape(a, (math.prod(a_shape),))
    samples = _vmap(functools.partial(_gamma_one, log_space=log_space), keys, alphas)
    return shapes.reshape(samples, a_shape)


def _vmap(fun, *args):
    """fun mapped over the leading axis of every argument (one output, batched at 0)."""
    axis = batching.AxisData(None, np.shape(args[0])[0])
    outs, _ = batching.batch_flat(lambda *xs: [fun(*xs)], axis, args, [0] * len(args), [0])
    return outs[0]


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
    jvp=lambda primals, tangents, *, log_space: _gamma_jvp(primals, tangents, log_space),
    transpose=NONLINEAR, batch=_gamma_batch, lower=_gamma_lower)


def _gamma_jvp(primals, tangents, log_space: bool):
    key, a = primals
    ans = random_gamma_p.bind(key, a, log_space=log_space)
    if type(tangents[1]) is Zero:
        return ans, Zero.from_primal_value(ans)
    return ans, tangents[1] * _gamma_grad(ans, a, log_space)


def _gamma_grad(sample, a, log_space: bool):
    """d sample / d alpha, elementwise (one lax.map step per sample)."""
    samples = shapes.reshape(sample, (math.prod(np.shape(sample)),))
    alphas = shapes.reshape(a, (math.prod(np.shape(a)),))
    if log_space:  # d log(s) = ds / s, with s = exp(log s) kept above zero
        samples = lax.exp(samples)
        tiny = lax.full_like(samples, dtypes.finfo(core.get_aval(samples).dtype).tiny)
        samples = lax.select(lax.eq(samples, _const(sample, 0)), tiny, samples)
        grad = lambda alpha, s: random_gamma_grad(alpha, s) / s  # noqa: E731
    else:
        grad = random_gamma_grad
    grads = lax_map(lambda args: grad(*args), (alphas, samples))
    return shapes.reshape(grads, np.shape(a))


def random_gamma_grad(a, x):
    """d x / d a for x ~ Gamma(a, 1), computed in float32 for half-precision inputs."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(x))
    a, x = (v if np.shape(v) == shape else
            shapes.broadcast_in_dim(v, shape, tuple(range(np.ndim(v)))) for v in (a, x))
    dtype = core.get_aval(a).dtype
    if dtypes.finfo(dtype).bits < 32:
        a, x = (lax.convert_element_type(v, np.float32) for v in (a, x))
        return lax.convert_element_type(_random_gamma_grad(a, x), dtype)
    return _random_gamma_grad(a, x)


def _random_gamma_grad(a, x):
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    domain_error = lax.bitwise_or(lax.lt(x, lax.full_like(x, 0)), lax.le(a, lax.full_like(a, 0)))
    use_igammac = lax.bitwise_and(lax.gt(x, lax.full_like(x, 1)), lax.gt(x, a))
    ax = a * lax.log(x) - x - lax.lgamma(a)
    finfo = dtypes.finfo(core.get_aval(a).dtype)
    underflow = lax.lt(ax, -lax.log(_const(ax, finfo.max)))
    ax = lax.exp(ax)
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(
        x_is_zero, domain_error), underflow), is_nan))
    output = lax.select(
        use_igammac,
        -_igammac_continued_fraction(ax, x, a, lax.bitwise_and(enabled, use_igammac)),
        _igamma_series(ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_igammac))))
    output = lax.select(x_is_zero, lax.full_like(output, 0), output)
    return lax.select(lax.bitwise_or(domain_error, is_nan), lax.full_like(a, float("nan")),
                      output)


def _any(pred):
    return reductions.reduce_or(pred, tuple(range(np.ndim(pred))))


def _igamma_series(ax, x, a, enabled):
    """The series for P(a, x), carrying d/da of its terms; returns d sample / d a."""
    eps = dtypes.finfo(core.get_aval(a).dtype).eps

    def body(vals):
        on, r, c, ans, x, dc_da, dans_da = vals
        r = r + _const(r, 1.0)
        dc_da = dc_da * (x / r) - (c * x) / (r * r)
        dans_da = dans_da + dc_da
        c = c * (x / r)
        ans = ans + c
        more = lax.bitwise_and(on, abs(dc_da / dans_da) > eps)
        new = (r, c, ans, x, dc_da, dans_da)
        return (more, *(lax.select(on, n, o) for n, o in zip(new, vals[1:])))

    init = (enabled, a, lax.full_like(a, 1), lax.full_like(a, 1), x, lax.full_like(a, 0),
            lax.full_like(a, 0))
    vals = while_loop(lambda vals: _any(vals[0]), body, init)
    ans, dans_da = vals[3], vals[6]
    dlogax_da = lax.log(x) - lax.digamma(a + _const(a, 1))
    return -(dans_da + ans * dlogax_da) * x / a


def _igammac_continued_fraction(ax, x, a, enabled):
    """The continued fraction for Q(a, x), carrying d/da of its convergents; returns
    -(d sample / d a)."""
    y = _const(a, 1) - a
    z = x + y + _const(x, 1)
    pkm1, qkm1 = x + _const(x, 1), z * x
    ans = pkm1 / qkm1
    dqkm1_da = -x
    dans_da = (lax.full_like(x, 0) - ans * dqkm1_da) / qkm1
    init = (enabled, ans, lax.full_like(x, 1), y, z, _const(x, 0), pkm1, qkm1,
            lax.full_like(x, 1), x, lax.full_like(x, 0), lax.full_like(x, 0),
            lax.full_like(x, 0), dqkm1_da, dans_da)
    vals = while_loop(
        lambda v: lax.bitwise_and(v[5] < _const(v[5], 2000), _any(v[0])), _cf_step, init)
    ans, dans_da = vals[1], vals[14]
    dlogax_da = lax.log(x) - lax.digamma(a)
    return lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da)) * x)


def _cf_step(vals):
    (on, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
     dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
    eps = dtypes.finfo(core.get_aval(ans).dtype).eps
    c, y, z = c + _const(c, 1), y + _const(y, 1), z + _const(z, 2)
    yc = y * c
    pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
    nonzero = lax.ne(qk, _const(qk, 0))
    r = pk / qk
    t = lax.select(nonzero, abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
    ans = lax.select(nonzero, r, ans)
    dpk_da = dpkm1_da * z - pkm1 - dpkm2_da * yc + pkm2 * c
    dqk_da = dqkm1_da * z - qkm1 - dqkm2_da * yc + qkm2 * c
    dans_da_new = lax.select(nonzero, lax.div(dpk_da - ans * dqk_da, qk), dans_da)
    grad_cond = lax.select(nonzero, abs(dans_da_new - dans_da), lax.full_like(dans_da, 1))
    rescale = lax.gt(abs(pk), lax.reciprocal(_const(pk, eps)))
    shifted = [pk, qk, pkm1, qkm1, dpk_da, dqk_da, dpkm1_da, dqkm1_da]
    pkm1, qkm1, pkm2, qkm2, dpkm1_da, dqkm1_da, dpkm2_da, dqkm2_da = (
        lax.select(rescale, lax.mul(v, _const(v, eps)), v) for v in shifted)
    more = lax.bitwise_and(on, grad_cond > _const(grad_cond, eps))
    new = (ans, t, y, z)
    keep = [lax.select(on, n, o) for n, o in zip(new, vals[1:5])]
    rest = (pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new)
    return (more, *keep, c, *(lax.select(on, n, o) for n, o in zip(rest, vals[6:])))


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


def dirichlet(key, alpha, shape: Shape | None = None, dtype=None):
    """Dirichlet(alpha) samples (over alpha's last axis): normalized gammas, via a softmax
    of log-gammas."""
    key, _ = _check_prng_key("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _dirichlet(key, alpha, shape, dtype)


@_jit(static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
    if not np.ndim(alpha) >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{np.ndim(alpha)}")
    if shape is None:
        shape = np.shape(alpha)[:-1]
    else:
        _check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    log_gamma_samples = loggamma(key, alpha, (*shape, *np.shape(alpha)[-1:]), dtype)
    return _softmax_last(log_gamma_samples)


def _softmax_last(x):
    """softmax over the last axis, staged as `jax.nn.softmax` stages it."""
    last = np.ndim(x) - 1
    kept = tuple(range(last))
    keep_shape = (*np.shape(x)[:-1], 1)
    top = reductions.reduce_max(x, (last,))
    top = lax.max(_const(top, -np.inf), top)
    top = lax.stop_gradient(shapes.broadcast_in_dim(top, keep_shape, kept))
    unnormalized = lax.exp(x - top)
    total = shapes.broadcast_in_dim(sum_last(unnormalized), keep_shape, kept)
    return unnormalized / total
