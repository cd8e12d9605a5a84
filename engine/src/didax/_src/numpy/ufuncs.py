"""Elementwise arithmetic, comparison, logical and bitwise functions of didax.numpy (NumPy
names, JAX semantics): type and rank promotion, weak types, integer-aware floor_divide/
remainder/power, XLA's integer division by zero, bool arithmetic as logic.
Transcendental and floating-point functions live in numpy.ufuncs_math.

May import core, dtypes, array, didax.lax and numpy.util.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.core import Tracer
from didax._src.lax import lax
from didax._src.numpy.util import (
    _jax_array_protocol,
    check_arraylike,
    const_like,
    dtype_of,
    ensure_arraylike,
    full_like,
    jit_like_jax,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes_numeric,
    promote_shapes,
    to_array,
    weak_const,
    where3,
    zero,
)


def _one(x):
    return const_like(x, 1)


def _binary(lax_fn, name, promote=promote_args):
    def f(x1, x2, /):
        x1, x2 = promote(name, x1, x2)
        return lax_fn(x1, x2)
    f.__name__ = f.__qualname__ = name
    return f


def _bool_as_logic(lax_fn, logic_fn, name):
    """add/multiply: on bools NumPy means or/and."""
    def f(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        fn = logic_fn if dtype_of(x1) == np.bool_ else lax_fn
        return fn(x1, x2)
    f.__name__ = f.__qualname__ = name
    return f


add = _bool_as_logic(lax.add, lax.bitwise_or, "add")
multiply = _bool_as_logic(lax.mul, lax.bitwise_and, "multiply")
subtract = _binary(lax.sub, "subtract")
maximum = _binary(lax.max, "maximum")
minimum = _binary(lax.min, "minimum")
arctan2 = _binary(lax.atan2, "arctan2", promote_args_inexact)
atan2 = arctan2
nextafter = _binary(lax.nextafter, "nextafter", promote_args_inexact)
bitwise_and = _binary(lax.bitwise_and, "bitwise_and")
bitwise_or = _binary(lax.bitwise_or, "bitwise_or")
bitwise_xor = _binary(lax.bitwise_xor, "bitwise_xor")
equal = _binary(lax.eq, "equal")
not_equal = _binary(lax.ne, "not_equal")


def _ordered(lax_fn, name):
    """Ordered comparisons; complex numbers compare lexicographically (real, then imag)."""
    def f(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        if dtypes.is_complex(dtype_of(x1)):
            re_eq = lax.eq(lax.real(x1), lax.real(x2))
            return lax.select(re_eq, lax_fn(lax.imag(x1), lax.imag(x2)),
                              lax_fn(lax.real(x1), lax.real(x2)))
        return lax_fn(x1, x2)
    f.__name__ = f.__qualname__ = name
    return f


less = _ordered(lax.lt, "less")
less_equal = _ordered(lax.le, "less_equal")
greater = _ordered(lax.gt, "greater")
greater_equal = _ordered(lax.ge, "greater_equal")


def _to_bool(x):
    return x if dtype_of(x) == np.bool_ else lax.ne(x, zero(x))


def _logical(lax_fn, name):
    def f(*args):
        args = promote_args(name, *args)
        return lax_fn(*[_to_bool(a) for a in args])
    f.__name__ = f.__qualname__ = name
    return f


logical_and = _logical(lax.bitwise_and, "logical_and")
logical_or = _logical(lax.bitwise_or, "logical_or")
logical_xor = _logical(lax.bitwise_xor, "logical_xor")


def logical_not(x, /):
    (x,) = promote_args("logical_not", x)
    return lax.bitwise_not(_to_bool(x))


def invert(x, /):
    (x,) = promote_args("invert", x)
    return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


def left_shift(x1, x2, /):
    x1, x2 = promote_args_numeric("left_shift", x1, x2)
    return lax.shift_left(x1, x2)


def right_shift(x1, x2, /):
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    if dtypes.is_unsigned(dtype_of(x1)):
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


@jit_like_jax("bitwise_count")
def bitwise_count(x, /):
    (x,) = promote_args_numeric("bitwise_count", x)
    return lax.convert_element_type(lax.population_count(absolute(x)), np.uint8)


def negative(x, /):
    (x,) = promote_args("negative", x)
    return lax.neg(x)


def positive(x, /):
    (x,) = promote_args("positive", x)
    return to_array(x)


def sign(x, /):
    (x,) = promote_args("sign", x)
    return lax.sign(x)


def absolute(x, /):
    x = ensure_arraylike("absolute", x)
    dt = dtype_of(x)
    if dt == np.bool_ or dtypes.is_unsigned(dt):
        return x
    return lax.abs(x)


abs = absolute  # noqa: A001


def fabs(x, /):
    (x,) = promote_args_inexact("fabs", x)
    if dtypes.is_complex(dtype_of(x)):
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(x)


def square(x, /):
    (x,) = promote_args_numeric("square", x)
    return lax.square(x)


def reciprocal(x, /):
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def true_divide(x1, x2, /):
    x1, x2 = promote_args_inexact("true_divide", x1, x2)
    return lax.div(x1, x2)


divide = true_divide


@jit_like_jax("floor_divide")
def floor_divide(x1, x2, /):
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    dt = dtype_of(x1)
    if dtypes.is_unsigned(dt):
        return lax.div(x1, x2)
    if dtypes.is_int(dt):
        q = lax.div(x1, x2)
        fix = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                              lax.ne(lax.rem(x1, x2), zero(x1)))
        return where3(fix, lax.sub(q, weak_const(q, 1)), q)
    if dtypes.is_complex(dt):
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


def _float_divmod(x1, x2):
    """(floor(x1 / x2), x1 mod x2) for floats, rounding the quotient as NumPy does."""
    mod = lax.rem(x1, x2)
    corrected = where3(lax.eq(x2, zero(x2)), x1, lax.sub(x1, mod))
    div = lax.div(corrected, x2)
    fix = lax.bitwise_and(lax.ne(mod, zero(mod)), lax.ne(lax.sign(x2), lax.sign(mod)))
    mod = lax.select(fix, lax.add(mod, x2), mod)
    div = lax.select(fix, lax.sub(div, weak_const(div, 1)), div)
    return lax.round(div), mod


def _nonzero_divisor(x2):
    """Integer divisors of 0 replaced by 1 (so x % 0 is 0, as JAX's remainder gives)."""
    return where3(lax.eq(x2, zero(x2)), full_like(x2, 1), x2)


@jit_like_jax("remainder")
def remainder(x1, x2, /):
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    if dtypes.is_int(dtype_of(x2)):
        x2 = _nonzero_divisor(x2)
    mod = lax.rem(x1, x2)
    z = core.typed_scalar(0, dtype_of(mod))
    fix = lax.bitwise_and(lax.ne(lax.lt(mod, z), lax.lt(x2, zero(x2))), lax.ne(mod, z))
    return lax.select(fix, lax.add(mod, x2), mod)


mod = remainder


@jit_like_jax("fmod")
def fmod(x1, x2, /):
    x1, x2 = ensure_arraylike("fmod", x1, x2)
    if dtypes.is_int(dtypes.result_type(x1, x2)):
        x2 = _nonzero_divisor(x2)
    return lax.rem(*promote_args_numeric("fmod", x1, x2))


def divmod(x1, x2, /):  # noqa: A001
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if dtypes.is_int(dtype_of(x1)):
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


# ----------------------------------------------------------------------------------------
# Powers
# ----------------------------------------------------------------------------------------


def _concrete_int(x):
    """x as a Python int when it is a concrete integer scalar, else None."""
    if isinstance(x, Tracer):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def power(x1, x2, /):
    check_arraylike("power", x1, x2)
    x1, x2 = _jax_array_protocol(x1), _jax_array_protocol(x2)
    k = _concrete_int(x2)
    if k is not None:
        (x1,) = promote_dtypes_numeric(x1)
        return _integer_pow(x1, k)
    return _power(x1, x2)


pow = power  # noqa: A001


def _integer_pow(x, k):
    if k == 1:
        return to_array(x)
    return lax.integer_pow(x, k)


def _power(x1, x2):
    x1, x2 = promote_shapes("power", x1, x2)
    p1, p2 = promote_dtypes_numeric(x1, x2)
    dt = dtype_of(p1)
    if dtypes.is_int(dt) or dt == np.bool_:
        return _pow_int_int(p1, p2)
    if dtypes.is_inexact(dtype_of(x1)) and dtypes.is_int(dtype_of(x2)):
        return lax.pow(x1, x2)
    return lax.pow(p1, p2)


def _pow_int_int(x1, x2):
    """Integer powers by binary exponentiation over the exponent's low 6 bits (anything
    larger overflows for |x1| > 1), as JAX computes them."""
    z, one = zero(x2), _one(x2)
    acc = where3(lax.bitwise_and(lax.eq(x1, z), lax.ne(x2, z)), z, one)
    for _ in range(6):
        acc = where3(lax.ne(lax.bitwise_and(x2, one), z), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


def float_power(x1, x2, /):
    return lax.pow(*promote_args_inexact("float_power", x1, x2))


# ----------------------------------------------------------------------------------------
# Extrema that ignore NaN, gcd/lcm
# ----------------------------------------------------------------------------------------


@jit_like_jax("fmax")
def fmax(x1, x2):
    x1, x2 = promote_args("fmax", x1, x2)
    keep = lax.bitwise_or(greater(x1, x2), lax.ne(x2, x2))
    return where3(keep, x1, x2)


@jit_like_jax("fmin")
def fmin(x1, x2):
    x1, x2 = promote_args("fmin", x1, x2)
    keep = lax.bitwise_or(less(x1, x2), lax.ne(x2, x2))
    return where3(keep, x1, x2)


def _check_integers(name, *args):
    for a in args:
        if not dtypes.is_int(dtype_of(a)):
            raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")


@jit_like_jax("gcd")
def gcd(x1, x2):
    x1, x2 = promote_args("gcd", x1, x2)
    _check_integers("gcd", x1, x2)
    a, b = lax.abs(x1), lax.abs(x2)
    bits = dtype_of(a).itemsize * 8
    # Euclid's algorithm unrolled to its worst case (consecutive Fibonacci numbers).
    for _ in range(3 * bits // 2 + 2):
        nz = lax.ne(b, zero(b))
        safe_b = where3(nz, b, full_like(b, 1))
        a, b = where3(nz, b, a), where3(nz, lax.rem(a, safe_b), b)
    return a


@jit_like_jax("lcm")
def lcm(x1, x2):
    x1, x2 = promote_args("lcm", x1, x2)
    _check_integers("lcm", x1, x2)
    a, b = lax.abs(x1), lax.abs(x2)
    d = gcd(a, b)
    zero_d = lax.eq(d, zero(d))
    safe_d = where3(zero_d, full_like(d, 1), d)
    return where3(zero_d, zero(d), lax.mul(a, floor_divide(b, safe_d)))
