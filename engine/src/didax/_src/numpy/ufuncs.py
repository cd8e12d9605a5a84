"""Elementwise functions of didax.numpy (NumPy names, JAX semantics): arithmetic with type
and rank promotion, transcendental functions on inexact types, comparisons, logical and
bitwise ops, and the integer-aware floor_divide/remainder/power.

May import core, dtypes, array, didax.lax and numpy.util.
"""

from __future__ import annotations

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax
from didax._src.numpy.util import (
    check_arraylike,
    convert,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes_inexact,
    promote_shapes,
)


def _one_to_one(lax_fn, promote=promote_args, name=None):
    def f(x, /):
        (x,) = promote(name or lax_fn.__name__, x)
        return lax_fn(x)
    f.__name__ = name or lax_fn.__name__
    return f


def _binary(lax_fn, name, promote=promote_args):
    def f(x1, x2, /):
        x1, x2 = promote(name, x1, x2)
        return lax_fn(x1, x2)
    f.__name__ = name
    return f


def _bool_to_int(lax_fn, name):
    """Ops undefined on bool in lax but defined in NumPy (e.g. add on bools = or)."""
    def f(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        if core.get_aval(x1).dtype == np.bool_:
            return lax.bitwise_or(x1, x2) if name == "add" else lax.bitwise_and(x1, x2)
        return lax_fn(x1, x2)
    f.__name__ = name
    return f


add = _bool_to_int(lax.add, "add")
multiply = _bool_to_int(lax.mul, "multiply")
subtract = _binary(lax.sub, "subtract")
maximum = _binary(lax.max, "maximum")
minimum = _binary(lax.min, "minimum")
arctan2 = _binary(lax.atan2, "arctan2", promote_args_inexact)
nextafter = _binary(lax.nextafter, "nextafter", promote_args_inexact)
bitwise_and = _binary(lax.bitwise_and, "bitwise_and")
bitwise_or = _binary(lax.bitwise_or, "bitwise_or")
bitwise_xor = _binary(lax.bitwise_xor, "bitwise_xor")
equal = _binary(lax.eq, "equal")
not_equal = _binary(lax.ne, "not_equal")
less = _binary(lax.lt, "less")
less_equal = _binary(lax.le, "less_equal")
greater = _binary(lax.gt, "greater")
greater_equal = _binary(lax.ge, "greater_equal")


def _logical(lax_fn, name):
    def f(*args):
        check_arraylike(name, *args)
        args = [convert(a, np.bool_) if core.get_aval(a).dtype != np.bool_ else a
                for a in args]
        args = promote_shapes(name, *args)
        return lax_fn(*args)
    f.__name__ = name
    return f


logical_and = _logical(lax.bitwise_and, "logical_and")
logical_or = _logical(lax.bitwise_or, "logical_or")
logical_xor = _logical(lax.bitwise_xor, "logical_xor")
logical_not = _logical(lax.bitwise_not, "logical_not")


def invert(x, /):
    (x,) = promote_args("invert", x)
    return lax.bitwise_not(x)


bitwise_not = invert


def left_shift(x1, x2, /):
    x1, x2 = promote_args_numeric("left_shift", x1, x2)
    return lax.shift_left(x1, x2)


def right_shift(x1, x2, /):
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    if dtypes.is_unsigned(core.get_aval(x1).dtype):
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


def negative(x, /):
    (x,) = promote_args("negative", x)
    if core.get_aval(x).dtype == np.bool_:
        raise TypeError("The numpy boolean negative, the `-` operator, is not supported, use "
                        "the `~` operator or the logical_not function instead.")
    return lax.neg(x)


def positive(x, /):
    (x,) = promote_args("positive", x)
    return x


def sign(x, /):
    (x,) = promote_args("sign", x)
    dt = core.get_aval(x).dtype
    if dtypes.is_unsigned(dt):
        return lax.select(lax.eq(x, _zero(x)), x, lax.full_like(x, 1))
    if dt == np.bool_:
        return x
    return lax.sign(x)


def _zero(x):
    return np.zeros((), core.get_aval(x).dtype)


def absolute(x, /):
    (x,) = promote_args("absolute", x)
    dt = core.get_aval(x).dtype
    if dtypes.is_unsigned(dt) or dt == np.bool_:
        return x
    return lax.abs(x)


abs = absolute  # noqa: A001
fabs = _one_to_one(lax.abs, promote_args_inexact, "fabs")


def _inexact_unary(lax_fn, name):
    def f(x, /):
        (x,) = promote_args_inexact(name, x)
        return lax_fn(x)
    f.__name__ = name
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
atan2 = arctan2


def rsqrt(x, /):
    (x,) = promote_args_inexact("rsqrt", x)
    return lax.rsqrt(x)


def log2(x, /):
    (x,) = promote_args_inexact("log2", x)
    return lax.div(lax.log(x), lax.log(np.array(2, core.get_aval(x).dtype)))


def log10(x, /):
    (x,) = promote_args_inexact("log10", x)
    return lax.div(lax.log(x), lax.log(np.array(10, core.get_aval(x).dtype)))


def square(x, /):
    (x,) = promote_args_numeric("square", x)
    return lax.square(x)


def reciprocal(x, /):
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def floor(x, /):
    (x,) = promote_args("floor", x)
    if not dtypes.is_inexact(core.get_aval(x).dtype):
        return x
    return lax.floor(x)


def ceil(x, /):
    (x,) = promote_args("ceil", x)
    if not dtypes.is_inexact(core.get_aval(x).dtype):
        return x
    return lax.ceil(x)


def trunc(x, /):
    (x,) = promote_args("trunc", x)
    if not dtypes.is_inexact(core.get_aval(x).dtype):
        return x
    return lax.select(lax.lt(x, _zero(x)), lax.ceil(x), lax.floor(x))


fix = trunc


def rint(x, /):
    (x,) = promote_args_inexact("rint", x)
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def true_divide(x1, x2, /):
    x1, x2 = promote_args_inexact("true_divide", x1, x2)
    return lax.div(x1, x2)


divide = true_divide


def floor_divide(x1, x2, /):
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    dt = core.get_aval(x1).dtype
    if dtypes.is_int(dt):
        if dtypes.is_unsigned(dt):
            return lax.div(x1, x2)
        q = lax.div(x1, x2)
        select = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                                 lax.ne(lax.rem(x1, x2), _zero(x1)))
        return lax.select(select, lax.sub(q, np.ones((), dt)), q)
    if dtypes.is_complex(dt):
        raise TypeError("floor_divide does not support complex-valued inputs.")
    return lax.floor(lax.div(lax.sub(x1, _float_mod(x1, x2)), x2))


def _float_mod(x1, x2):
    r = lax.rem(x1, x2)
    fix_ = lax.bitwise_and(lax.ne(r, _zero(r)), lax.ne(lax.lt(r, _zero(r)),
                                                       lax.lt(x2, _zero(x2))))
    return lax.select(fix_, lax.add(r, x2), r)


def remainder(x1, x2, /):
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    dt = core.get_aval(x1).dtype
    if dtypes.is_unsigned(dt):
        return lax.rem(x1, x2)
    return _float_mod(x1, x2)


mod = remainder


def fmod(x1, x2, /):
    x1, x2 = promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, x2)


def divmod(x1, x2, /):  # noqa: A001
    return floor_divide(x1, x2), remainder(x1, x2)


def power(x1, x2, /):
    check_arraylike("power", x1, x2)
    if isinstance(x2, int) and not isinstance(x2, bool):
        (x1,) = promote_args_numeric("power", x1)
        return lax.integer_pow(x1, x2)
    x1, x2 = promote_args_numeric("power", x1, x2)
    dt = core.get_aval(x1).dtype
    if dtypes.is_int(dt):
        return _integer_power(x1, x2)
    return lax.pow(x1, x2)


def _integer_power(x1, x2):
    # Exponentiation by squaring with a fixed number of steps (the exponent is traced).
    dt = core.get_aval(x1).dtype
    bits = dt.itemsize * 8
    acc = lax.full_like(x1, 1)
    base = x1
    e = x2
    one = np.ones((), dt)
    for _ in range(bits):
        acc = lax.select(lax.eq(lax.bitwise_and(e, one), one), lax.mul(acc, base), acc)
        base = lax.mul(base, base)
        e = lax.shift_right_logical(e, one)
    return lax.select(lax.lt(x2, _zero(x2)), lax.full_like(acc, 0), acc)


pow = power  # noqa: A001


def float_power(x1, x2, /):
    x1, x2 = promote_args_inexact("float_power", x1, x2)
    return lax.pow(x1, x2)


def logaddexp(x1, x2, /):
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    return lax.select(lax.ne(delta, delta), lax.add(x1, x2),
                      lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))


def logaddexp2(x1, x2, /):
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    ln2 = np.array(np.log(2), core.get_aval(x1).dtype)
    return lax.div(logaddexp(lax.mul(x1, ln2), lax.mul(x2, ln2)), ln2)


def hypot(x1, x2, /):
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    return lax.sqrt(lax.add(lax.square(x1), lax.square(x2)))


def copysign(x1, x2, /):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    return lax.select(lax.bitwise_xor(signbit(x1), signbit(x2)), lax.neg(x1), x1)


def signbit(x, /):
    (x,) = promote_args("signbit", x)
    dt = core.get_aval(x).dtype
    if dtypes.is_int(dt):
        return lax.lt(x, _zero(x))
    if dt == np.bool_:
        return lax.full_like(x, False, np.bool_)
    itemsize = dt.itemsize
    int_dt = np.dtype(f"i{itemsize}")
    from didax._src.lax.bitcast import bitcast_convert_type  # noqa: PLC0415

    return lax.lt(bitcast_convert_type(x, int_dt), np.zeros((), int_dt))


def isfinite(x, /):
    (x,) = promote_args("isfinite", x)
    dt = core.get_aval(x).dtype
    if dtypes.is_float(dt):
        return lax.is_finite(x)
    if dtypes.is_complex(dt):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.full_like(x, True, np.bool_)


def isinf(x, /):
    (x,) = promote_args("isinf", x)
    dt = core.get_aval(x).dtype
    if dtypes.is_float(dt):
        return lax.eq(lax.abs(x), np.array(np.inf, dt))
    if dtypes.is_complex(dt):
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return lax.full_like(x, False, np.bool_)


def isnan(x, /):
    (x,) = promote_args("isnan", x)
    dt = core.get_aval(x).dtype
    if dtypes.is_inexact(dt):
        return lax.ne(x, x)
    return lax.full_like(x, False, np.bool_)


def isposinf(x, /):
    return lax.eq(x, np.array(np.inf, core.get_aval(x).dtype))


def isneginf(x, /):
    return lax.eq(x, np.array(-np.inf, core.get_aval(x).dtype))


def real(x, /):
    (x,) = promote_args("real", x)
    return lax.real(x) if dtypes.is_complex(core.get_aval(x).dtype) else x


def imag(x, /):
    (x,) = promote_args("imag", x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        return lax.imag(x)
    return lax.full_like(x, 0)


def conjugate(x, /):
    (x,) = promote_args("conjugate", x)
    return lax.conj(x) if dtypes.is_complex(core.get_aval(x).dtype) else x


conj = conjugate


def angle(z, deg: bool = False):
    (z,) = promote_dtypes_inexact(z)
    out = lax.atan2(imag(z), real(z)) if dtypes.is_complex(core.get_aval(z).dtype) else \
        lax.atan2(lax.full_like(z, 0), z)
    if deg:
        out = lax.mul(out, np.array(180 / np.pi, core.get_aval(out).dtype))
    return out


def deg2rad(x, /):
    (x,) = promote_args_inexact("deg2rad", x)
    return lax.mul(x, np.array(np.pi / 180, core.get_aval(x).dtype))


def rad2deg(x, /):
    (x,) = promote_args_inexact("rad2deg", x)
    return lax.mul(x, np.array(180 / np.pi, core.get_aval(x).dtype))


radians, degrees = deg2rad, rad2deg


def heaviside(x1, x2, /):
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero = _zero(x1)
    return lax.select(lax.lt(x1, zero), lax.full_like(x1, 0),
                      lax.select(lax.gt(x1, zero), lax.full_like(x1, 1), x2))


def sinc(x, /):
    (x,) = promote_args_inexact("sinc", x)
    dt = core.get_aval(x).dtype
    pix = lax.mul(x, np.array(np.pi, dt))
    safe = lax.select(lax.eq(x, _zero(x)), lax.full_like(x, 1), pix)
    return lax.select(lax.eq(x, _zero(x)), lax.full_like(x, 1), lax.div(lax.sin(safe), safe))
