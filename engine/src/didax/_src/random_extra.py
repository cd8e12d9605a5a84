"""More `didax.random` samplers built on the core ones, following JAX 0.10's constructions
(and jitted as JAX jits them): pareto, rademacher, maxwell, double_sided_maxwell,
weibull_min, rayleigh, wald, geometric, triangular, lognormal, poisson, binomial and
multinomial.

May import what `didax._src.random` may, and `didax._src.random`.
"""

from __future__ import annotations

import functools

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, reductions
from didax._src.lax.control_flow import scan, while_loop
from didax._src.numpy import lax_numpy, manipulation, ufuncs, ufuncs_math
from didax._src.numpy import util as np_util
from didax._src.random import (
    Shape,
    _asarray,
    _broadcast_shapes,
    _canonicalize_shape,
    _check_prng_key,
    _check_shape,
    _const,
    _float_dtype,
    _jit,
    _split,
    bernoulli,
    exponential,
    normal,
    split,
    uniform,
)


def _check_broadcast_shapes(name: str, shape, *args) -> tuple[int, ...]:
    """The sample shape: given (and checked against the parameters') or broadcast."""
    arg_shapes = [np.shape(a) for a in args]
    if shape is None:
        return _broadcast_shapes(*arg_shapes) if arg_shapes else ()
    shape = _canonicalize_shape(shape)
    _check_shape(name, shape, *arg_shapes)
    return shape


def _check_all_safe_to_cast(name: str, dtype, *args) -> None:
    for arg in args:
        if not dtypes.safe_to_cast(arg, dtype):
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type "
                f"{dtypes.dtype(arg, canonicalize=True)} to {dtype}")


def _sampler_args(name, key, shape, dtype, *params, kinds=np.floating, what="a float"):
    """The usual checks: a single key, a float dtype, the shape against the parameters."""
    key, _ = _check_prng_key(name, key)
    dtype = _float_dtype(name, dtype, kinds, what)
    shape = _check_broadcast_shapes(name, shape, *params)
    _check_all_safe_to_cast(name, dtype, *params)
    return key, shape, dtype


def _broadcast_to(x, shape):
    return np_util.broadcast_to(x, shape)


def pareto(key, b, shape: Shape | None = None, dtype=None):
    """Pareto samples with shape parameter b."""
    key, shape, dtype = _sampler_args("pareto", key, shape, dtype, b)
    return _pareto(key, b, shape, dtype)


@_jit(static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    e = exponential(key, shape, dtype)
    return lax.exp(e / b)


def rademacher(key, shape: Shape = (), dtype=None):
    """-1 or +1 with equal probability (integers by default)."""
    key, _ = _check_prng_key("rademacher", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    return _rademacher(key, _canonicalize_shape(shape), dtype)


@_jit(static_argnums=(1, 2))
def _rademacher(key, shape, dtype):
    samples = lax.convert_element_type(bernoulli(key, 0.5, shape), dtype)
    return lax.convert_element_type(2 * samples - 1, dtype)


def maxwell(key, shape: Shape = (), dtype=None):
    """Maxwell samples: the norm of a standard normal 3-vector."""
    key, _ = _check_prng_key("maxwell", key)
    dtype = _float_dtype("maxwell", dtype)
    return _maxwell(key, _canonicalize_shape(shape), dtype)


@_jit(static_argnums=(1, 2))
def _maxwell(key, shape, dtype):
    return _norm_last(normal(key, (*shape, 3), dtype))


@_jit()
def norm(x):
    """The 2-norm over the last axis of a real array, jitted as `jnp.linalg.norm` is (so
    XLA sees, and rounds, the same computation)."""
    return lax.sqrt(sum_last(x * x))


def sum_last(x):
    """Sum over the last axis; half precision sums in float32, as `jnp.sum` does."""
    dtype = core.get_aval(x).dtype
    if dtypes.finfo(dtype).bits < 32:
        summed = reductions.reduce_sum(lax.convert_element_type(x, np.float32), (x.ndim - 1,))
        return lax.convert_element_type(summed, dtype)
    return reductions.reduce_sum(x, (x.ndim - 1,))


_norm_last = norm


def double_sided_maxwell(key, loc, scale, shape: Shape = (), dtype=None):
    """Maxwell samples with a random sign, scaled by `scale` and shifted by `loc`."""
    key, _ = _check_prng_key("double_sided_maxwell", key)
    dtype = _float_dtype("double_sided_maxwell", dtype)
    return _double_sided_maxwell(key, loc, scale, _canonicalize_shape(shape), dtype)


@_jit(static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shape = _broadcast_shapes(np.shape(loc), np.shape(scale))
    shape = (*(shape or params_shape), *params_shape)
    maxwell_key, sign_key = _split(key)
    magnitude = maxwell(maxwell_key, shape=shape, dtype=dtype)
    sign = rademacher(sign_key, shape=shape, dtype=dtype)
    return sign * magnitude * scale + loc


def weibull_min(key, scale, concentration, shape: Shape = (), dtype=None):
    """Weibull samples by inverting the CDF."""
    key, _ = _check_prng_key("weibull_min", key)
    dtype = _float_dtype("weibull_min", dtype)
    return _weibull_min(key, scale, concentration, _canonicalize_shape(shape), dtype)


def _power(x, y):
    return ufuncs.power(x, y)


@_jit(static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    u = uniform(key, shape, dtype, minval=0, maxval=1)
    return _power(-lax.log1p(-u), 1.0 / concentration) * scale


def rayleigh(key, scale, shape: Shape | None = None, dtype=None):
    """Rayleigh samples with the given scale."""
    key, shape, dtype = _sampler_args("rayleigh", key, shape, dtype, scale)
    return _rayleigh(key, scale, shape, dtype)


@_jit(static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = uniform(key, shape, dtype)
    scale = _broadcast_to(lax.convert_element_type(scale, dtype), shape)
    root = lax.sqrt(lax.mul(lax.log(u), _const(scale, -2)))
    return lax.mul(scale, root)


def wald(key, mean, shape: Shape | None = None, dtype=None):
    """Wald (inverse Gaussian) samples with the given mean."""
    key, shape, dtype = _sampler_args("wald", key, shape, dtype, mean)
    return _wald(key, mean, shape, dtype)


@_jit(static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
    k1, k2 = _split(key, 2)
    mean = _broadcast_to(lax.convert_element_type(mean, dtype), shape)
    v = normal(k1, shape, dtype)
    z = uniform(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def geometric(key, p, shape: Shape | None = None, dtype=None):
    """Geometric samples: trials up to and including the first success."""
    key, _ = _check_prng_key("geometric", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    return _geometric(key, p, _check_broadcast_shapes("geometric", shape, p), dtype)


@_jit(static_argnums=(2, 3))
def _geometric(key, p, shape, dtype):
    np_util.check_arraylike("geometric", p)
    (p,) = np_util.promote_dtypes_inexact(p)
    u = uniform(key, shape, core.get_aval(p).dtype)
    u = lax.select(lax.eq(u, _const(u, 0)), lax.full_like(u, 1), u)  # avoid log(0)
    log_one_minus_p = _broadcast_to(lax.log1p(lax.neg(p)), shape)
    g = lax.floor(lax.div(lax.log(u), log_one_minus_p)) + 1
    return lax.convert_element_type(g, dtype)


def triangular(key, left, mode, right, shape: Shape | None = None, dtype=None):
    """Triangular samples on [left, right] with the given mode."""
    key, shape, dtype = _sampler_args("triangular", key, shape, dtype, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


@_jit(static_argnums=(4, 5), inline=True)
def _triangular(key, left, mode, right, shape, dtype):
    left, right, mode = (_broadcast_to(lax.convert_element_type(v, dtype), shape)
                         for v in (left, right, mode))
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


def lognormal(key, sigma=np.float32(1), shape: Shape | None = None, dtype=None):
    """exp(sigma * standard normal)."""
    key, shape, dtype = _sampler_args("lognormal", key, shape, dtype, sigma,
                                      kinds=np.inexact, what="a float or complex")
    return _lognormal(key, sigma, shape, dtype)


@_jit(static_argnums=(2, 3), inline=True)
def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(_asarray(sigma), dtype)
    return lax.exp(normal(key, shape, dtype) * sigma)


def poisson(key, lam, shape: Shape | None = None, dtype=None):
    """Poisson(lam) counts: Knuth's product of uniforms for lam < 10, transformed rejection
    (PTRS) above."""
    key, _ = _check_prng_key("poisson", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    shape = np.shape(lam) if shape is None else _canonicalize_shape(shape)
    lam = lax.convert_element_type(_broadcast_to(lam, shape), np.float32)
    return _poisson(key, lam, shape, dtype)


@_jit(static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
    use_knuth = lax.ne(lam, lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = dtype.type(dtypes.iinfo(dtype).max)  # never reached in practice
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, lax.full_like(result, 0), result)


@_jit(static_argnums=(2, 3, 4))
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    """Count uniforms until their product drops below exp(-lam)."""
    def body(carry):
        i, k, rng, log_prod = carry
        rng, subkey = _split(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = uniform(subkey, shape, np.float32)
        return i + 1, k, rng, log_prod + lax.log(u)

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        return _any(log_prod > -lam) & (i < max_iters)

    k_init = lax.full_like(lam, 0, dtype, shape)
    log_rate_init = lax.full_like(lam, 0, np.float32, shape)
    k = while_loop(cond, body, (0, k_init, key, log_rate_init))[1]
    return lax.convert_element_type(k - 1, dtype)


@_jit(static_argnums=(2, 3, 4))
def _poisson_rejection(key, lam, shape, dtype, max_iters):
    """Hörmann's transformed rejection with squeeze (PTRS)."""
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = _split(key, 3)
        u = uniform(subkey_0, shape, core.get_aval(lam).dtype) - 0.5
        v = uniform(subkey_1, shape, core.get_aval(lam).dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond(carry):
        i, _, accepted, _ = carry
        return _any(~accepted) & (i < max_iters)

    k_init = lax.full_like(lam, -1, core.get_aval(lam).dtype, shape)
    accepted = lax.full_like(lam, False, np.dtype("bool"), shape)
    k = while_loop(cond, body, (0, k_init, accepted, key))[1]
    return lax.convert_element_type(k, dtype)


def _any(pred):
    return reductions.reduce_or(pred, tuple(range(np.ndim(pred))))


def binomial(key, n, p, shape: Shape | None = None, dtype=None):
    """Binomial(n, p) counts (as floats): inversion by geometric gaps when n·min(p, 1-p)
    <= 10, the BTRS rejection sampler otherwise."""
    key, _ = _check_prng_key("binomial", key)
    np_util.check_arraylike("binomial", n, p)
    dtype = _float_dtype("binomial", dtype)
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _binomial(key, n, p, shape, dtype)


@_jit(static_argnums=(3, 4), inline=True)
def _binomial(key, count, prob, shape, dtype):
    if shape is None:
        shape = _broadcast_shapes(np.shape(count), np.shape(prob))
    else:
        _check_shape("binomial", shape, np.shape(count), np.shape(prob))
    (prob,) = np_util.promote_dtypes_inexact(prob)
    count = _broadcast_to(lax.convert_element_type(count, core.get_aval(prob).dtype), shape)
    prob = _broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = lax.ne(count, count) | (count < 0.0)
    count_inf = _isinf(count)
    q_is_nan, q_l_0 = lax.ne(q, q), q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = lax.floor(count)
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(dtypes.finfo(dtype).max)
    samples = lax.select(use_inversion,
                         _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, lax.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & ~invalid, lax.full_like(samples, np.inf, dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      lax.convert_element_type(count, dtype) - samples)


def _isinf(x):
    return ufuncs_math.isinf(x)


@_jit(static_argnums=(3, 4, 5), inline=True)
def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    """Sum geometric gaps between successes until they pass `count`."""
    log1minusprob = lax.log1p(-prob)
    prob_dtype = core.get_aval(prob).dtype

    def body(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = split(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = uniform(subkey, shape, prob_dtype)
        geom = lax.ceil(lax.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, key

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        return _any(geom_sum <= count) & (i < max_iters)

    init = (0, lax.full_like(prob, 0, prob_dtype, shape),
            lax.full_like(prob, 0, prob_dtype, shape), key)
    k = while_loop(cond, body, init)[1]
    return lax.convert_element_type(k - 1, dtype)


def _stirling_approx_tail(k):
    """log(k!) minus its Stirling approximation: a table below 10, a series above."""
    table = _asarray(np.array([
        0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
        0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
        0.00925546218271273, 0.00833056343336287], core.get_aval(k).dtype))
    use_table = k <= 9
    k = lax.clamp(_const(k, 0.0), k, _const(k, 9.0))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = lax.floor(k)
    return lax.select(use_table, table[lax.convert_element_type(k, np.int32)], approx)


@_jit(static_argnums=(3, 4, 5), inline=True)
def _btrs(key, count, prob, shape, dtype, max_iters):
    """Hörmann's BTRS: transformed rejection with a Stirling-bounded acceptance test."""
    stddev = lax.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = lax.floor((count + 1) * prob)
    consts = (a, b, c, v_r, r, alpha, m)

    def cond(carry):
        return _any(~carry[2]) & (carry[0] < max_iters)

    init = (0, lax.full_like(prob, -1, core.get_aval(prob).dtype, shape),
            lax.full(shape, False, np.bool_), key)
    body = functools.partial(_btrs_step, count, prob, shape, consts)
    return lax.convert_element_type(while_loop(cond, body, init)[1], dtype)


def _btrs_step(count, prob, shape, consts, carry):
    a, b, c, v_r, r, alpha, m = consts
    i, k_out, accepted, key = carry
    key, subkey_0, subkey_1 = split(key, 3)
    u = uniform(subkey_0, shape, core.get_aval(prob).dtype)
    v = uniform(subkey_1, shape, core.get_aval(prob).dtype)
    u = u - 0.5
    us = 0.5 - abs(u)
    accept1 = (us >= 0.07) & (v <= v_r)
    k = lax.floor((2 * a / us + b) * u + c)
    reject = (k < 0) | (k > count)
    v = lax.log(v * alpha / (a / (us * us) + b))
    ub = ((m + 0.5) * lax.log((m + 1) / (r * (count - m + 1)))
          + (count + 1) * lax.log((count - m + 1) / (count - k + 1))
          + (k + 0.5) * lax.log(r * (count - k + 1) / (k + 1))
          + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
          - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
    accept = accept1 | (~reject & (v <= ub))
    return i + 1, lax.select(accept, k, k_out), accepted | accept, key


def multinomial(key, n, p, *, shape: Shape | None = None, dtype=None, unroll=1):
    """Multinomial(n, p) counts over p's last axis, by a scan of conditional binomials."""
    key, _ = _check_prng_key("multinomial", key)
    np_util.check_arraylike("multinomial", n, p)
    n, p = np_util.promote_dtypes_inexact(n, p)
    if shape is None:
        shape = np.shape(p)
    n, p = _broadcast_to(n, shape[:-1]), _broadcast_to(p, shape)

    def step(remainder, ratio_key):
        ratio, k = ratio_key
        count = binomial(k, remainder, lax_numpy.clip(ratio, 0, 1),
                         dtype=core.get_aval(remainder).dtype)
        return remainder - count, count

    p = manipulation.moveaxis(p, -1, 0)
    remaining = reductions.cumsum(p, 0, reverse=True)
    ratios = p / lax_numpy.where(remaining == 0, 1, remaining)
    keys = split(key, ratios.shape[0])
    _, counts = scan(step, n, (ratios, keys), unroll=unroll)
    return lax_numpy.astype(manipulation.moveaxis(counts, 0, -1), dtype)


# ----------------------------------------------------------------------------------------
# multivariate_normal, orthogonal (over jnp.linalg's factorizations, as JAX's)
# ----------------------------------------------------------------------------------------


def multivariate_normal(key, mean, cov, shape: Shape | None = None, dtype=None,
                        method: str = "cholesky"):
    """mean + factor @ standard normal, factor from cov by cholesky, eigh or svd."""
    key, _ = _check_prng_key("multivariate_normal", key)
    mean, cov = np_util.promote_dtypes_inexact(_asarray(mean), _asarray(cov))
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, "
                         f"got {dtype}")
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


@_jit(static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    from didax._src.numpy import linalg as jla  # noqa: PLC0415
    from didax._src.numpy.einsum import einsum  # noqa: PLC0415

    if not np.ndim(mean) >= 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{np.ndim(mean)}")
    if not np.ndim(cov) >= 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{np.ndim(cov)}")
    n = mean.shape[-1]
    if np.shape(cov)[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {np.shape(cov)}.")
    if shape is None:
        shape = _broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        _check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = jla.svd(cov)
        factor = u * ufuncs_math.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jla.eigh(cov)
        factor = v * ufuncs_math.sqrt(w[..., None, :])
    else:
        factor = jla.cholesky(cov)
    samples = normal(key, (*shape, *mean.shape[-1:]), dtype)
    return mean + einsum("...ij,...j->...i", factor, samples)


def orthogonal(key, n: int, shape: Shape = (), dtype=None, m: int | None = None):
    """A uniformly random (n, m) matrix with orthonormal columns (or rows), Haar-distributed:
    the Q of a Gaussian matrix's QR, column signs fixed by R's diagonal."""
    key, _ = _check_prng_key("orthogonal", key)
    shape = _canonicalize_shape(shape)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    _check_shape("orthogonal", shape)
    n = core.concrete_or_error(int, n, "The error occurred in jax.random.orthogonal()")
    m = n if m is None else core.concrete_or_error(
        int, m, "The error occurred in jax.random.orthogonal()")
    return _orthogonal(key, n, m, shape, dtype)


@_jit(static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, m, shape, dtype):
    from didax._src.numpy import linalg as jla  # noqa: PLC0415

    z = normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = jla.qr(z)
    d = jla.diagonal(r)
    x = q * manipulation.expand_dims(ufuncs.sign(d), -2)
    return manipulation.matrix_transpose(x) if n < m else x
