"""Transcendental and floating-point elementwise functions of didax.numpy: exp/log
families, trigonometric and hyperbolic functions, rounding (floor/ceil/trunc/rint),
real/imag/conj/angle, the is* predicates, logaddexp, hypot, copysign/signbit, sinc,
frexp/ldexp/modf/spacing, heaviside.

May import core, dtypes, array, didax.lax (incl. lax.bitcast) and numpy.util/ufuncs.
"""

from __future__ import annotations

import numpy as np

from didax._src import core, debug_nans, dtypes
from didax._src.custom_derivatives import custom_jvp
from didax._src.lax import lax
from didax._src.lax.bitcast import bitcast_convert_type
from didax._src.numpy.ufuncs import maximum, minimum
from didax._src.numpy.util import (
    const_like,
    dtype_of,
    ensure_arraylike,
    full_like,
    jit_like_jax,
    promote_args,
    promote_args_inexact,
    promote_dtypes_inexact,
    promote_shapes,
    to_array,
    weak_const,
    where3,
    zero,
)


def _const(x, val):
    """A scalar constant of x's dtype (a literal when staged)."""
    return const_like(x, val)


def _strong(x, val):
    """A non-weak scalar constant of x's dtype (JAX's `_constant_like`)."""
    return core.typed_scalar(val, dtype_of(x))


def _inexact_unary(lax_fn, name):
    def f(x, /):
        if debug_nans.ACTIVE[0] and core.trace_ctx.trace is core.eval_trace:  # JAX jits
            # these: checked as a jit is
            return debug_nans.eager_like_jit(lambda v: f_(v), (x,), {})
        return f_(x)

    def f_(x):
        (x,) = promote_args_inexact(name, x)
        return lax_fn(x)
    f.__name__ = f.__qualname__ = name
    return f


exp = _inexact_unary(lax.exp, "exp")
exp2 = _inexact_unary(lax.exp2, "exp2")
log = _inexact_unary(lax.log, "log")
log1p = _inexact_unary(lax.log1p, "log1p")
expm1 = _inexact_unary(lax.expm1, "expm1")
sqrt = _inexact_unary(lax.sqrt, "sqrt")
cbrt = _inexact_unary(lax.cbrt, "cbrt")
sin = _inexact_unary(lax.sin, "sin")
cos = _inexact_unary(lax.cos, "cos")
tan = _inexact_unary(lax.tan, "tan")
arcsin = _inexact_unary(lax.asin, "arcsin")
arccos = _inexact_unary(lax.acos, "arccos")
arctan = _inexact_unary(lax.atan, "arctan")
sinh = _inexact_unary(lax.sinh, "sinh")
cosh = _inexact_unary(lax.cosh, "cosh")
tanh = _inexact_unary(lax.tanh, "tanh")
arcsinh = _inexact_unary(lax.asinh, "arcsinh")
arccosh = _inexact_unary(lax.acosh, "arccosh")
arctanh = _inexact_unary(lax.atanh, "arctanh")
asin, acos, atan = arcsin, arccos, arctan
asinh, acosh, atanh = arcsinh, arccosh, arctanh


def log2(x, /):
    (x,) = promote_args_inexact("log2", x)
    if dtypes.is_complex(dtype_of(x)):
        r = lax.log(x)
        ln2 = lax.log(_strong(lax.real(r), 2))
        return lax.complex(lax.div(lax.real(r), ln2), lax.div(lax.imag(r), ln2))
    return lax.div(lax.log(x), lax.log(_strong(x, 2)))


def log10(x, /):
    (x,) = promote_args_inexact("log10", x)
    inv_ln10 = np.array(1 / np.log(10), dtypes.real_dtype(dtype_of(x)))
    if dtypes.is_complex(dtype_of(x)):
        r = lax.log(x)
        return lax.complex(lax.mul(lax.real(r), inv_ln10), lax.mul(lax.imag(r), inv_ln10))
    return lax.mul(lax.log(x), inv_ln10)


def deg2rad(x, /):
    (x,) = promote_args_inexact("deg2rad", x)
    return lax.mul(x, _const(x, np.pi / 180))


def rad2deg(x, /):
    (x,) = promote_args_inexact("rad2deg", x)
    return lax.mul(x, _const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


# ----------------------------------------------------------------------------------------
# Rounding
# ----------------------------------------------------------------------------------------


def _round_like(lax_fn, name):
    def f(x, /):
        x = ensure_arraylike(name, x)
        dt = dtype_of(x)
        if dt == np.bool_ or dtypes.is_int(dt):
            return x
        if dtypes.is_complex(dt):
            raise TypeError(f"{name} does not support complex-valued inputs")
        return lax_fn(x)
    f.__name__ = f.__qualname__ = name
    return f


floor = _round_like(lax.floor, "floor")
ceil = _round_like(lax.ceil, "ceil")


@jit_like_jax("trunc")
def trunc(x, /):
    x = ensure_arraylike("trunc", x)
    dt = dtype_of(x)
    if dt == np.bool_ or dtypes.is_int(dt):
        return x
    return where3(lax.lt(x, zero(x)), lax.ceil(x), lax.floor(x))


@jit_like_jax("rint")
def rint(x, /):
    x = ensure_arraylike("rint", x)
    dt = dtype_of(x)
    if dt == np.bool_ or dtypes.is_int(dt):
        return lax.convert_element_type(x, dtypes.default_float_dtype())
    if dtypes.is_complex(dt):
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


# ----------------------------------------------------------------------------------------
# Complex parts
# ----------------------------------------------------------------------------------------


def real(x, /):
    x = ensure_arraylike("real", x)
    return lax.real(x) if dtypes.is_complex(dtype_of(x)) else x


def imag(x, /):
    x = ensure_arraylike("imag", x)
    return lax.imag(x) if dtypes.is_complex(dtype_of(x)) else to_array(full_like(x, 0))


def conjugate(x, /):
    x = ensure_arraylike("conjugate", x)
    return lax.conj(x) if dtypes.is_complex(dtype_of(x)) else x


conj = conjugate


@jit_like_jax("angle", static_argnames=("deg",))
def angle(z, deg: bool = False):
    z = ensure_arraylike("angle", z)
    re, im = real(z), imag(z)
    if not dtypes.is_inexact(dtype_of(re)) or (dtypes.is_float(dtype_of(z)) and
                                                np.ndim(z) == 0):
        dt = dtypes.default_float_dtype()
        re, im = lax.convert_element_type(re, dt), lax.convert_element_type(im, dt)
    out = lax.atan2(im, re)
    return rad2deg(out) if deg else out


@jit_like_jax("iscomplex")
def iscomplex(x, /):
    i = imag(ensure_arraylike("iscomplex", x))
    return lax.ne(i, zero(i))


@jit_like_jax("isreal")
def isreal(x, /):
    i = imag(ensure_arraylike("isreal", x))
    return lax.eq(i, zero(i))


# ----------------------------------------------------------------------------------------
# Predicates
# ----------------------------------------------------------------------------------------


def isfinite(x, /):
    x = ensure_arraylike("isfinite", x)
    dt = dtype_of(x)
    if dtypes.is_float(dt):
        return lax.is_finite(x)
    if dtypes.is_complex(dt):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return full_like(x, True, np.bool_)


@jit_like_jax("isinf")
def isinf(x, /):
    x = ensure_arraylike("isinf", x)
    dt = dtype_of(x)
    if dtypes.is_float(dt):
        return lax.eq(lax.abs(x), _strong(x, np.inf))
    if dtypes.is_complex(dt):
        re, im = lax.real(x), lax.imag(x)
        return lax.bitwise_or(lax.eq(lax.abs(re), _strong(re, np.inf)),
                              lax.eq(lax.abs(im), _strong(im, np.inf)))
    return full_like(x, False, np.bool_)


def isnan(x, /):
    x = ensure_arraylike("isnan", x)
    return lax.ne(x, x)


def _isposneginf(x, val, name):
    x = ensure_arraylike(name, x)
    dt = dtype_of(x)
    if dtypes.is_float(dt):
        return lax.eq(x, _strong(x, val))
    if dtypes.is_complex(dt):
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    return full_like(x, False, np.bool_)


def isposinf(x, /, out=None):
    return _isposneginf(x, np.inf, "isposinf")


def isneginf(x, /, out=None):
    return _isposneginf(x, -np.inf, "isneginf")


_INT_OF_BITS = {16: np.int16, 32: np.int32, 64: np.int64}


@jit_like_jax("signbit")
def signbit(x, /):
    (x,) = promote_args("signbit", x)
    dt = dtype_of(x)
    if dtypes.is_int(dt):
        return lax.lt(x, _strong(x, 0))
    if dt == np.bool_:
        return full_like(x, False, np.bool_)
    if not dtypes.is_float(dt):
        raise ValueError(f"jax.numpy.signbit is not well defined for {dt}")
    info = dtypes.finfo(dt)
    if info.bits not in _INT_OF_BITS:
        raise NotImplementedError("jax.numpy.signbit only supports 16, 32, and 64-bit "
                                  "types.")
    idt = np.dtype(_INT_OF_BITS[info.bits])
    bits = bitcast_convert_type(x, idt)
    shifted = lax.shift_right_arithmetic(bits, core.typed_scalar(info.nexp + info.nmant, idt))
    return lax.convert_element_type(shifted, np.bool_)


@jit_like_jax("copysign")
def copysign(x1, x2, /):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if dtypes.is_complex(dtype_of(x1)):
        raise TypeError("copysign does not support complex-valued inputs")
    return where3(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


# ----------------------------------------------------------------------------------------
# Compound functions
# ----------------------------------------------------------------------------------------


def logaddexp(x1, x2, /):
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return _logaddexp(x1, x2)


def logaddexp2(x1, x2, /):
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    return _logaddexp2(x1, x2)


def _wrap_between(x, a):
    """x wrapped into (-a, a]."""
    two_a = _const(x, 2 * a)
    rem = lax.rem(lax.add(x, _const(x, a)), two_a)
    rem = lax.select(lax.lt(rem, zero(rem)), lax.add(rem, two_a), rem)
    return lax.sub(rem, _const(rem, a))


def _soft_max(x1, x2, exp_fn, scale):
    """log_b(b**x1 + b**x2) for base e (scale None) or 2 (scale 1/ln 2)."""
    amax = lax.max(x1, x2)

    def scaled(v):
        return v if scale is None else lax.mul(_const(v, scale), v)
    if dtypes.is_complex(dtype_of(x1)):
        delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _const(amax, 2)))
        out = lax.add(amax, scaled(lax.log1p(exp_fn(delta))))
        period = np.pi if scale is None else np.pi / np.log(2)
        return lax.complex(lax.real(out), _wrap_between(lax.imag(out), period))
    delta = lax.sub(x1, x2)
    soft = scaled(lax.log1p(exp_fn(lax.neg(lax.abs(delta)))))
    return lax.select(lax.ne(delta, delta), lax.add(x1, x2), lax.add(amax, soft))


def _replace_inf(x):
    re = lax.real(x) if dtypes.is_complex(dtype_of(x)) else x
    return lax.select(lax.eq(re, _const(re, np.inf)), full_like(x, 0), x)


@custom_jvp
def _logaddexp(x1, x2):
    return _soft_max(x1, x2, lax.exp, None)


@_logaddexp.defjvp
def _logaddexp_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = _logaddexp(x1, x2)
    w1 = lax.exp(lax.sub(_replace_inf(x1), _replace_inf(out)))
    w2 = lax.exp(lax.sub(_replace_inf(x2), _replace_inf(out)))
    return out, lax.add(lax.mul(t1, w1), lax.mul(t2, w2))


@custom_jvp
def _logaddexp2(x1, x2):
    return _soft_max(x1, x2, lax.exp2, 1 / np.log(2))


@_logaddexp2.defjvp
def _logaddexp2_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = _logaddexp2(x1, x2)
    w1 = lax.exp2(lax.sub(_replace_inf(x1), _replace_inf(out)))
    w2 = lax.exp2(lax.sub(_replace_inf(x2), _replace_inf(out)))
    return out, lax.add(lax.mul(t1, w1), lax.mul(t2, w2))


_logaddexp.__name__ = "logaddexp"
_logaddexp2.__name__ = "logaddexp2"


@jit_like_jax("hypot")
def hypot(x1, x2, /):
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if dtypes.is_complex(dtype_of(x1)):
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please "
                         "convert to real values first, such as by using abs(x)")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    any_inf = lax.bitwise_or(isposinf(x1), isposinf(x2))
    big, small = maximum(x1, x2), minimum(x1, x2)
    is0 = lax.eq(big, zero(big))
    ratio = lax.div(small, where3(lax.eq(big, zero(big)), full_like(big, 1), big))
    out = where3(is0, big, lax.mul(big, lax.sqrt(lax.add(weak_const(big, 1),
                                                         lax.square(ratio)))))
    return where3(any_inf, _const(out, np.inf), out)


@jit_like_jax("heaviside")
def heaviside(x1, x2, /):
    x1, x2 = ensure_arraylike("heaviside", x1, x2)
    x1, x2 = promote_dtypes_inexact(x1, x2)
    z = zero(x1)
    return where3(lax.lt(x1, z), z, where3(lax.gt(x1, z), _const(x1, 1),
                                           where3(lax.ne(x1, x1), x1, x2)))


@jit_like_jax("sinc")
def sinc(x, /):
    x = ensure_arraylike("sinc", x)
    (x,) = promote_dtypes_inexact(x)
    is0 = lax.eq(x, zero(x))
    pix = lax.mul(_const(x, np.pi), x)
    safe = where3(is0, _const(x, 1), pix)
    return where3(is0, _sinc_maclaurin(0, pix), lax.div(lax.sin(safe), safe))


def _sinc_maclaurin_impl(k, x):
    """The k-th derivative of sin(x)/x at 0, shaped like x (its JVP gives order k+1, so
    sinc is differentiable to every order at 0, as in JAX)."""
    base = lax.mul(x, zero(x))
    if k % 2:
        return base
    return lax.add(base, _const(x, (-1) ** (k // 2) / (k + 1)))


_sinc_maclaurin = custom_jvp(_sinc_maclaurin_impl, nondiff_argnums=(0,))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), lax.mul(_sinc_maclaurin(k + 1, x), t)


@jit_like_jax("modf")
def modf(x, /, out=None):
    x = ensure_arraylike("modf", x)
    (x,) = promote_dtypes_inexact(x)
    whole = where3(lax.ge(x, zero(x)), lax.floor(x), lax.ceil(x))
    return lax.sub(x, whole), whole


def _exponent(x):
    """frexp's exponent of finite nonzero x, read from the bits (subnormals included)."""
    dt = dtype_of(x)
    info = dtypes.finfo(dt)
    idt = np.dtype(_INT_OF_BITS[info.bits])
    tiny = lax.lt(lax.abs(x), _const(x, float(info.smallest_normal)))
    scale_bits = info.nmant + 1
    xs = where3(tiny, lax.mul(x, _const(x, 2.0 ** scale_bits)), x)
    bits = bitcast_convert_type(xs, idt)
    mask = core.typed_scalar((1 << info.nexp) - 1, idt)
    biased = lax.bitwise_and(lax.shift_right_arithmetic(bits, core.typed_scalar(info.nmant,
                                                                                idt)), mask)
    e = lax.sub(biased, core.typed_scalar(-info.minexp, idt))
    e = where3(tiny, lax.sub(e, core.typed_scalar(scale_bits, idt)), e)
    return lax.convert_element_type(e, np.int32)


def _times_pow2(x, e):
    """x * 2**e for int32 e, in two steps so no intermediate power overflows."""
    dt = dtype_of(x)
    half = lax.div(e, np.int32(2))
    p1 = lax.exp2(lax.convert_element_type(half, dt))
    p2 = lax.exp2(lax.convert_element_type(lax.sub(e, half), dt))
    return lax.mul(lax.mul(x, p1), p2)


@jit_like_jax("frexp")
def frexp(x, /):
    """(mantissa in [0.5, 1), exponent) with x = m * 2**e. The mantissa is x * 2**-e, so
    its derivative is 2**-e as in JAX."""
    x = ensure_arraylike("frexp", x)
    (x,) = promote_dtypes_inexact(x)
    if dtypes.is_complex(dtype_of(x)):
        raise TypeError("frexp does not support complex-valued inputs")
    special = lax.bitwise_or(lax.bitwise_or(isinf(x), isnan(x)), lax.eq(x, zero(x)))
    e = where3(special, np.int32(0), _exponent(x))
    m = where3(special, x, _times_pow2(x, lax.neg(e)))
    return m, e


@jit_like_jax("ldexp")
def ldexp(x1, x2, /):
    x1, x2 = ensure_arraylike("ldexp", x1, x2)
    if dtypes.is_complex(dtype_of(x1)) or dtypes.is_inexact(dtype_of(x2)):
        raise ValueError(f"ldexp not supported for input types {(dtype_of(x1), dtype_of(x2))}")
    (x1,) = promote_args_inexact("ldexp", x1)
    x1, x2 = promote_shapes("ldexp", x1, lax.convert_element_type(x2, np.int32))
    m, e = frexp(x1)
    out = _times_pow2(m, lax.add(e, x2))
    return where3(lax.bitwise_or(isinf(x1), lax.eq(x1, zero(x1))), x1, out)


def spacing(x, /):
    (x,) = promote_args_inexact("spacing", x)
    dt = dtype_of(x)
    if dtypes.is_complex(dt):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = _const(x, np.inf)
    if dt == np.float16:
        return lax.sub(lax.nextafter(x, full_like(x, np.inf)), x)
    out = lax.sub(lax.nextafter(x, copysign(inf, x)), x)
    tiny = float(dtypes.finfo(dt).smallest_subnormal)
    return where3(lax.eq(out, zero(out)), copysign(_strong(x, tiny), x), out)


@jit_like_jax("i0")
def i0(x):
    """The modified Bessel function of the first kind, order 0: its power series for
    |x| <= 30 and its asymptotic expansion beyond (both differentiate to i1)."""
    x = ensure_arraylike("i0", x)
    (x,) = promote_dtypes_inexact(x)
    if dtypes.is_complex(dtype_of(x)):
        raise ValueError("i0 does not support complex-valued inputs")
    ax = lax.abs(x)
    cut = _const(ax, 30.0)
    small = lax.le(ax, cut)
    return lax.select(small, _i0_series(lax.min(ax, cut)),
                      _i0_asymptotic(lax.max(ax, cut)))


def _i0_series(ax):
    """sum_k (x^2/4)^k / (k!)^2; 60 terms reach float64 precision for |x| <= 30."""
    # Nested (Horner) form 1 + q/1 (1 + q/4 (1 + q/9 (...))): every partial value stays
    # within the total, so XLA's reassociation of constant factors cannot overflow (the
    # plain running product does: q^k times 1/(k!)^2 gives inf * 0 under jit).
    q = lax.mul(lax.square(ax), _const(ax, 0.25))
    one = full_like(ax, 1)
    total = one
    for k in range(59, 0, -1):
        total = lax.add(one, lax.mul(total, lax.div(q, _const(q, float(k * k)))))
    return total


def _i0_asymptotic(ax):
    """exp(x) / sqrt(2 pi x) * sum_k prod_j (2j-1)^2 / (8 j x), for x >= 30."""
    inv = lax.div(_const(ax, 1.0), lax.mul(ax, _const(ax, 8.0)))
    term = full_like(ax, 1)
    total = term
    for k in range(1, 14):
        term = lax.mul(term, lax.mul(inv, _const(ax, float((2 * k - 1) ** 2) / k)))
        total = lax.add(total, term)
    norm = lax.rsqrt(lax.mul(ax, _const(ax, 2 * np.pi)))
    return lax.mul(lax.mul(lax.exp(ax), norm), total)
