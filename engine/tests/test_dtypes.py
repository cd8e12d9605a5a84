"""didax._src.dtypes compared with JAX 0.10.2 (the installed oracle) for every dtype.

Each test computes the same thing with didax and with JAX and compares results,
exception types/messages and emitted warnings, under x64 off and on.
"""

import itertools
import warnings

import didax.dtypes as public_dtypes
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from didax._src import dtypes as ddt
from didax._src.config import config as dconfig
from jax._src import dtypes as jdt
from jax._src.lax import lax as jlax

# --- helpers -----------------------------------------------------------------------------

ALL_NAMES = [
    "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
    "int1", "uint1", "int2", "uint2", "int4", "uint4",
    "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float6_e2m3fn", "float6_e3m2fn",
    "float4_e2m1fn",
]
ALL_DTYPES = [np.dtype(getattr(ml_dtypes, n, n)) for n in ALL_NAMES]
CORE_DTYPES = ALL_DTYPES[:15]
WEAK = [int, float, complex]
CORE_NODES = CORE_DTYPES + WEAK
ALL_NODES = ALL_DTYPES + WEAK
X64_MODES = [False, True]


def outcome(fn, *args, **kwargs):
    """('ok', value) or ('err', exception type name, message), plus warning messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = ("ok", fn(*args, **kwargs))
        except Exception as e:  # noqa: BLE001 - comparing failures is the point
            res = ("err", type(e).__name__, str(e))
    return res, [str(w.message) for w in caught]


def same(a, b):
    """Compare two outcome() results, treating dtype results by equality and type."""
    (ra, wa), (rb, wb) = a, b
    assert wa == wb
    assert ra[0] == rb[0], (ra, rb)
    if ra[0] == "err":
        assert ra[1:] == rb[1:]
    else:
        assert _norm(ra[1]) == _norm(rb[1])


def _norm(v):
    if isinstance(v, tuple):
        return tuple(_norm(x) for x in v)
    if isinstance(v, np.dtype):
        return ("dtype", v.str, v.name, str(v))
    return v


@pytest.fixture(autouse=True)
def _restore_configs():
    names = ["jax_enable_x64", "jax_numpy_dtype_promotion", "jax_explicit_x64_dtypes"]
    saved_jax = {n: jax.config._read(n) for n in names}
    saved_didax = {n: dconfig._read(n) for n in names}
    yield
    for n in names:
        jax.config.update(n, saved_jax[n])
        dconfig.update(n, saved_didax[n])


def set_both(name, value):
    jax.config.update(name, value)
    dconfig.update(name, value)


class FakeArray:
    """Stand-in for a didax Array: a dtype and a weak_type flag."""

    def __init__(self, dtype, weak_type):
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type

    def __repr__(self):
        return f"FakeArray({self.dtype}, weak={self.weak_type})"


ddt.register_type_whose_dtype_should_not_be_canonicalized(FakeArray)


# --- the promotion lattice ---------------------------------------------------------------

@pytest.mark.parametrize("x64", X64_MODES)
@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_promote_types_all_pairs(x64, mode):
    set_both("jax_enable_x64", x64)
    set_both("jax_numpy_dtype_promotion", mode)
    n = 0
    for a, b in itertools.product(ALL_NODES, repeat=2):
        same(outcome(ddt.promote_types, a, b), outcome(jnp.promote_types, a, b))
        n += 1
    assert n == len(ALL_NODES) ** 2 == 35 ** 2


@pytest.mark.parametrize("x64", X64_MODES)
@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_result_type_all_pairs_with_weak_flag(x64, mode):
    set_both("jax_enable_x64", x64)
    set_both("jax_numpy_dtype_promotion", mode)
    for a, b in itertools.product(ALL_NODES, repeat=2):
        same(outcome(ddt.result_type, a, b, return_weak_type_flag=True),
             outcome(jdt.result_type, a, b, return_weak_type_flag=True))
        same(outcome(ddt.result_type, a, b), outcome(jdt.result_type, a, b))


@pytest.mark.parametrize("x64", X64_MODES)
def test_core_table_values(x64):
    """Spot values of the 18x18 table, so a shared misunderstanding would show."""
    set_both("jax_enable_x64", x64)
    r = ddt.result_type
    assert r(np.uint32, np.int32) == (np.int64 if x64 else np.int32)
    assert r(np.uint8, np.int8) == np.int16
    if x64:
        assert r(np.int64, np.uint64) == np.float64
    else:  # inputs are canonicalized first (with a warning): i32 x u32 -> i32
        with pytest.warns(UserWarning, match="Explicitly requested dtype u?int64"):
            assert r(np.int64, np.uint64) == np.int32
    assert r(ml_dtypes.bfloat16, np.float16) == np.float32
    assert r(np.int8, float, return_weak_type_flag=True) == (
        np.dtype(np.float64 if x64 else np.float32), True)
    assert r(np.uint8, int) == np.uint8
    assert r(np.float16, 2.0) == np.float16
    assert r(True, True, return_weak_type_flag=True) == (np.dtype(bool), False)
    assert r(int, return_weak_type_flag=True) == (np.dtype(np.int64 if x64 else np.int32), True)
    assert ddt.promote_types(int, int) == np.int64  # JAX does not canonicalize here
    assert ddt.promote_types("float16", float) == np.float16


@pytest.mark.parametrize("x64", X64_MODES)
@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_result_type_all_triples(x64, mode):
    set_both("jax_enable_x64", x64)
    set_both("jax_numpy_dtype_promotion", mode)
    count = 0
    for args in itertools.product(CORE_NODES, repeat=3):
        same(outcome(ddt.result_type, *args, return_weak_type_flag=True),
             outcome(jdt.result_type, *args, return_weak_type_flag=True))
        count += 1
    assert count == 18 ** 3


def _jax_weak_array(dt):
    with jax.enable_x64(True):
        x = jlax._convert_element_type(np.zeros((), dt), np.dtype(dt), weak_type=True)
    assert x.weak_type and x.dtype == dt
    return x


WEAK_ARRAY_DTYPES = [d for d in CORE_DTYPES if d != np.dtype(bool)]


@pytest.mark.parametrize("x64", X64_MODES)
def test_result_type_weak_arrays(x64):
    """Weakly typed arrays (incl. 64-bit ones made under x64) against every core node."""
    jax_arrays = {d: _jax_weak_array(d) for d in WEAK_ARRAY_DTYPES}
    set_both("jax_enable_x64", x64)
    for d in WEAK_ARRAY_DTYPES:
        ja, da = jax_arrays[d], FakeArray(d, True)
        for other in CORE_NODES:  # strong dtypes and weak Python types
            same(outcome(ddt.result_type, da, other, return_weak_type_flag=True),
                 outcome(jdt.result_type, ja, other, return_weak_type_flag=True))
        for other in WEAK_ARRAY_DTYPES:  # two weak arrays
            same(outcome(ddt.result_type, da, FakeArray(other, True),
                         return_weak_type_flag=True),
                 outcome(jdt.result_type, ja, jax_arrays[other],
                         return_weak_type_flag=True))
        same(outcome(ddt.result_type, FakeArray(d, True), return_weak_type_flag=True),
             outcome(jdt.result_type, jax_arrays[d], return_weak_type_flag=True))


@pytest.mark.parametrize("x64", X64_MODES)
def test_result_type_values_and_special_cases(x64):
    set_both("jax_enable_x64", x64)
    cases = [
        (), (None,), (None, 1), (3,), (3.0,), (1j,), (True,), (True, 1), (True, True),
        (np.float32(1), 2), (np.array([1, 2]),), (np.array(1.0), 1j), (np.int16(3), 2.5),
        (jdt.float0,), (jdt.float0, jdt.float0), (jdt.float0, np.float32), ("float64",),
        (np.float64, 1), ("bfloat16", 1.0), (ml_dtypes.bfloat16, 2), ("int4", 3),
        (np.dtype("float8_e4m3fn"), np.float32), ("S3",), ([1, 2],), ("foo",),
        (np.array([1], np.uint64), np.int64), (bool, int), (bool,), (float, complex, int),
    ]
    for args in cases:
        same(outcome(ddt.result_type, *args, return_weak_type_flag=True),
             outcome(jdt.result_type, *args, return_weak_type_flag=True))


def test_strict_mode_message_and_error_type():
    dconfig.update("jax_numpy_dtype_promotion", "strict")
    with pytest.raises(ddt.TypePromotionError) as info:
        ddt.promote_types("float32", "int32")
    assert str(info.value) == (
        "Input dtypes ('float32', 'int32') have no available implicit dtype promotion path "
        "when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
        "output type, or set jax_numpy_dtype_promotion=standard.")
    assert issubclass(ddt.TypePromotionError, ValueError)
    assert ddt.result_type(np.float32, 1.0) == np.float32  # weak scalars still promote
    assert ddt.result_type(2, 1.0, return_weak_type_flag=True) == (np.dtype("float32"), True)


# --- dtype(), canonicalization, user dtypes ------------------------------------------------

DTYPE_INPUTS = [
    int, float, complex, bool, 3, 3.0, 1j, True, 2 ** 70, np.float64, np.int64, np.uint64,
    np.complex128, np.float32, np.int8, "float64", "int64", "float32", "bfloat16", "int4",
    np.dtype("float64"), np.dtype("complex128"), np.dtype("uint16"), ml_dtypes.bfloat16,
    ml_dtypes.float8_e5m2, np.float32(1), np.float64(2.0), np.int64(3), np.array([1.0]),
    np.array(1, np.int64), np.array([1], np.uint64), np.array([1j]), np.array(True),
    [1, 2], (1.0,), "S3", "U5", object, np.dtype("O"), None, "foo", jdt.float0,
    np.dtype(np.dtypes.StringDType()), np.str_, np.array(["a"]),
]


@pytest.mark.parametrize("x64", X64_MODES)
def test_dtype_canonicalize_matches_jax(x64):
    set_both("jax_enable_x64", x64)
    for x in DTYPE_INPUTS:
        same(outcome(ddt.dtype, x, canonicalize=True), outcome(jdt.dtype, x))


@pytest.mark.parametrize("x64", X64_MODES)
def test_dtype_without_canonicalization(x64):
    dconfig.update("jax_enable_x64", x64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ddt.dtype(3) == np.int64 and ddt.dtype(int) == np.int64
        assert ddt.dtype(3.0) == np.float64 and ddt.dtype(float) == np.float64
        assert ddt.dtype(1j) == np.complex128 and ddt.dtype(complex) == np.complex128
        assert ddt.dtype(True) == np.bool_ and ddt.dtype(bool) == np.bool_
        assert ddt.dtype(np.float64) == np.float64 and ddt.dtype("int64") == np.int64
        assert ddt.dtype(np.array([1], np.uint64)) == np.uint64
        assert ddt.dtype("bfloat16") == ml_dtypes.bfloat16
        assert ddt.dtype(FakeArray("float64", False)) == np.float64
    for bad, exc in [(None, ValueError), ("S3", TypeError), ([1, 2], TypeError),
                     (object, TypeError), ("foo", TypeError)]:
        with pytest.raises(exc):
            ddt.dtype(bad)


def test_dtype_keeps_registered_array_dtype():
    dconfig.update("jax_enable_x64", False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ddt.dtype(FakeArray("float64", False), canonicalize=True) == np.float64


CANON_INPUTS = ALL_DTYPES + [int, float, complex, bool, np.float64, np.int64, "float64",
                             "uint64", "complex128", "bfloat16", None, jdt.float0,
                             "float0", "foo", np.dtype("O"), "S2"]


@pytest.mark.parametrize("x64", X64_MODES)
def test_canonicalize_dtype_matches_jax(x64):
    set_both("jax_enable_x64", x64)
    for x in CANON_INPUTS:
        for allow in (False, True):
            same(outcome(ddt.canonicalize_dtype, x, allow),
                 outcome(jdt.canonicalize_dtype, x, allow))
    for x in CANON_INPUTS:  # second round: served from the cache
        same(outcome(ddt.canonicalize_dtype, x), outcome(jdt.canonicalize_dtype, x))


def test_canonicalize_dtype_follows_x64_changes():
    dconfig.update("jax_enable_x64", False)
    assert ddt.canonicalize_dtype(np.float64) == np.float32
    dconfig.update("jax_enable_x64", True)
    assert ddt.canonicalize_dtype(np.float64) == np.float64
    dconfig.update("jax_enable_x64", False)
    assert ddt.canonicalize_dtype("int64") == np.int32
    assert ddt.canonicalize_dtype(np.dtype("uint64")) == np.uint32
    assert ddt.canonicalize_dtype(np.complex128) == np.complex64


USER_DTYPES = ALL_DTYPES + [np.float64, "float64", "complex128", np.int64, np.uint64, int,
                            float, complex, bool, "S3", np.dtype("O"), None, "bfloat16",
                            jdt.float0, "float0", np.dtype(np.dtypes.StringDType())]


@pytest.mark.parametrize("x64", X64_MODES)
@pytest.mark.parametrize("explicit", ["warn", "error", "allow"])
def test_check_and_canonicalize_user_dtype(x64, explicit):
    set_both("jax_enable_x64", x64)
    set_both("jax_explicit_x64_dtypes", explicit)
    for dt in USER_DTYPES:
        for fun_name in (None, "array", "zeros"):
            same(outcome(ddt.check_and_canonicalize_user_dtype, dt, fun_name),
                 outcome(jdt.check_and_canonicalize_user_dtype, dt, fun_name))


def test_check_user_dtype_supported_warning_text():
    dconfig.update("jax_enable_x64", False)
    with pytest.warns(UserWarning) as rec:
        out = ddt.check_user_dtype_supported("float64", "array")
    assert out == np.float32
    assert str(rec[0].message) == (
        "Explicitly requested dtype float64 requested in array is not available, and will "
        "be truncated to dtype float32. To enable more dtypes, set the jax_enable_x64 "
        "configuration option or the JAX_ENABLE_X64 shell environment variable. See "
        "https://github.com/jax-ml/jax#current-gotchas for more.")
    with pytest.raises(ValueError, match="no longer"):
        ddt.check_user_dtype_supported(FakeArray("float32", False))


# --- weak types ---------------------------------------------------------------------------

def test_is_weakly_typed_and_python_scalars():
    for x in [1, 2.0, 3j]:
        assert ddt.is_weakly_typed(x) and jdt.is_weakly_typed(x)
        assert ddt.is_python_scalar(x)
    for x in [True, np.float32(1), np.array(1.0), np.float64(1.0), "a", None]:
        assert not ddt.is_weakly_typed(x) and not jdt.is_weakly_typed(x)
    assert ddt.is_python_scalar(True) and not ddt.is_python_scalar(np.float64(1.0))
    assert ddt.is_weakly_typed(jnp.asarray(1.0)) == jnp.asarray(1.0).weak_type is True
    assert ddt.is_weakly_typed(FakeArray("float32", True))
    assert not ddt.is_weakly_typed(FakeArray("float32", False))

    class WithAval:
        class aval:  # noqa: N801
            weak_type = True
    assert ddt.is_weakly_typed(WithAval())


# --- issubdtype / isdtype / predicates ------------------------------------------------------

ABSTRACT = [np.generic, np.number, np.inexact, np.floating, np.complexfloating, np.integer,
            np.signedinteger, np.unsignedinteger, np.bool_, np.character, np.flexible]


def test_issubdtype_matches_jax():
    lhs = ALL_DTYPES + [d.type for d in ALL_DTYPES] + ["float32", None, float, int, complex,
                                                       bool, jdt.float0] + ABSTRACT
    rhs = ABSTRACT + ALL_DTYPES + [d.type for d in ALL_DTYPES] + [float, int, None, "int4"]
    n = 0
    for a, b in itertools.product(lhs, rhs):
        same(outcome(ddt.issubdtype, a, b), outcome(jdt.issubdtype, a, b))
        n += 1
    assert n > 5000


class _TestKeyScalar(ddt.prng_key):
    pass


class _TestKeyDType(ddt.ExtendedDType):
    type = _TestKeyScalar
    name = "key<test>"

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, _TestKeyDType)

    def __hash__(self):
        return hash(_TestKeyDType)


class _OtherExtDType(ddt.ExtendedDType):
    type = ddt.extended


def test_issubdtype_extended_like_jax():
    dkey, jkey = _TestKeyDType(), jax.random.key(0).dtype
    pairs = [(ddt.extended, jdt.extended), (ddt.prng_key, jdt.prng_key),
             (np.floating, np.floating), (np.generic, np.generic), (np.float32, np.float32)]
    for db, jb in pairs:
        assert ddt.issubdtype(dkey, db) == jdt.issubdtype(jkey, jb)
        assert ddt.issubdtype(np.float32, db) == jdt.issubdtype(np.float32, jb)
    assert ddt.issubdtype(dkey, dkey) and jdt.issubdtype(jkey, jkey)
    assert not ddt.issubdtype(dkey, _OtherExtDType())
    assert ddt.issubdtype(_OtherExtDType(), ddt.extended)
    assert not ddt.issubdtype(_OtherExtDType(), ddt.prng_key)
    assert ddt.dtype(FakeArray("float32", False)) == np.float32
    assert ddt.canonicalize_dtype(dkey, allow_extended_dtype=True) is dkey
    with pytest.raises(ValueError, match="extended dtype key<test>"):
        ddt.canonicalize_dtype(dkey)
    for pred in (ddt.is_float, ddt.is_int, ddt.is_bool, ddt.is_complex, ddt.is_inexact):
        assert not pred(dkey)
    assert ddt.short_dtype_name(dkey) == "key<test>"
    assert ddt.check_and_canonicalize_user_dtype(dkey) is dkey


def test_result_type_same_extended_dtype_passes_through():
    key = _TestKeyDType()

    class KeyArray:
        dtype = key
    assert ddt.result_type(KeyArray(), KeyArray()) is key
    assert ddt.result_type(KeyArray()) is key


KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", np.float32, ("bool", "real floating"), "bogus",
         3, (np.int8, "numeric")]


def test_isdtype_matches_jax():
    for dt in ALL_DTYPES + [jdt.float0]:
        for kind in KINDS:
            same(outcome(ddt.isdtype, dt, kind), outcome(jnp.isdtype, dt, kind))


def test_predicates_agree_with_jax_issubdtype():
    for dt in ALL_DTYPES + [jdt.float0, np.dtype("O")]:
        sub = lambda t, dt=dt: jdt.issubdtype(dt, t)  # noqa: E731
        assert ddt.is_float(dt) == sub(np.floating)
        assert ddt.is_complex(dt) == sub(np.complexfloating)
        assert ddt.is_int(dt) == sub(np.integer)
        assert ddt.is_signed(dt) == sub(np.signedinteger)
        assert ddt.is_unsigned(dt) == sub(np.unsignedinteger)
        assert ddt.is_bool(dt) == sub(np.bool_)
        assert ddt.is_inexact(dt) == sub(np.inexact)
        # Non-dtype spellings go through the same cache.
        assert ddt.is_float(dt.name if dt.names is None else dt) == ddt.is_float(dt)
    assert ddt.is_float(np.float32) and ddt.is_int(int) and ddt.is_float(float)


# --- defaults, conversions, names, info --------------------------------------------------------

@pytest.mark.parametrize("x64", X64_MODES)
def test_default_dtypes(x64):
    set_both("jax_enable_x64", x64)
    for name in ("default_float_dtype", "default_int_dtype", "default_uint_dtype",
                 "default_complex_dtype"):
        assert getattr(ddt, name)() == getattr(jdt, name)()


def test_kind_conversions_match_jax():
    for dt in ALL_DTYPES:
        for name in ("to_inexact_dtype", "to_complex_dtype", "to_numeric_dtype",
                     "to_floating_dtype"):
            same(outcome(getattr(ddt, name), dt), outcome(getattr(jdt, name), dt))
    with jax.enable_x64(True):
        for dt in ALL_DTYPES[:15]:
            assert ddt.real_dtype(dt) == jnp.real(jnp.zeros((), dt)).dtype


def test_scalar_helpers_match_jax():
    for dt in ALL_DTYPES + [jdt.float0]:
        same(outcome(ddt.itemsize_bits, dt), outcome(jdt.itemsize_bits, dt))
        same(outcome(ddt.supports_inf, dt), outcome(jdt.supports_inf, dt))
        same(outcome(ddt.scalar_type_of, dt), outcome(jdt.scalar_type_of, dt))
    for x in [1, 1.5, 1j, True, np.float32(1), np.array([1], np.uint8)]:
        same(outcome(ddt.scalar_type_of, x), outcome(jdt.scalar_type_of, x))
    for typ, value in [(int, 1 << 40), (int, 3), (float, 1e300), (complex, None), (bool, None)]:
        same(outcome(ddt.scalar_type_to_dtype, typ, value),
             outcome(jdt.scalar_type_to_dtype, typ, value))
        if value is not None:
            same(outcome(lambda v: ddt.coerce_to_array(v).dtype, value),
                 outcome(lambda v: jdt.coerce_to_array(v).dtype, value))
    for a, b in [("int16", "float32"), ("float32", "int16"), ("float32", "complex64"),
                 (1, "int8"), ("uint8", int)]:
        same(outcome(ddt.safe_to_cast, a, b), outcome(jdt.safe_to_cast, a, b))


def test_short_dtype_names_match_jaxpr_printing():
    with jax.enable_x64(True):
        for dt in ALL_DTYPES:
            jaxpr = str(jax.make_jaxpr(lambda x: x)(np.zeros(2, dt)))
            short = ddt.short_dtype_name(dt)
            assert f"a:{short}[2]" in jaxpr, (dt, jaxpr)
            assert short == jdt.short_dtype_name(dt)
    assert ddt.short_dtype_name(jdt.float0) == "float0"
    jaxpr = jax.make_jaxpr(lambda x: jax.jvp(lambda y: y, (x,), (np.zeros(3, jdt.float0),)))
    assert f"{ddt.short_dtype_name(ddt.float0)}[3]" in str(jaxpr(np.arange(3)))
    expected = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
                "int8": "i8", "uint32": "u32", "bool": "bool", "complex64": "c64",
                "complex128": "c128", "float8_e4m3fn": "f8_e4m3fn", "int4": "i4"}
    for name, short in expected.items():
        assert ddt.short_dtype_name(np.dtype(getattr(ml_dtypes, name, name))) == short


def test_finfo_iinfo_match_jax():
    for dt in ALL_DTYPES:
        if jdt.issubdtype(dt, np.inexact):
            d, j = ddt.finfo(dt), jnp.finfo(dt)
            for attr in ("bits", "eps", "max", "min", "tiny", "nmant", "nexp", "dtype"):
                assert str(getattr(d, attr)) == str(getattr(j, attr)), (dt, attr)
        elif jdt.issubdtype(dt, np.integer):
            d, j = ddt.iinfo(dt), jnp.iinfo(dt)
            assert (d.bits, d.min, d.max, d.dtype) == (j.bits, j.min, j.max, j.dtype)


def test_constants_and_public_module():
    assert ddt.float0 == jdt.float0 and ddt.float0.itemsize == 0
    assert ddt.bfloat16 is jdt.bfloat16 is ml_dtypes.bfloat16
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
                 "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
                 "int4", "uint4", "int2", "uint2", "float4_e2m1fn"):
        assert getattr(ddt, name) is getattr(jdt, name), name
    jax_public = {n for n in dir(jax.dtypes) if not n.startswith("_")}
    assert set(public_dtypes.__all__) == jax_public
    for name in jax_public:
        assert hasattr(public_dtypes, name)
    assert issubclass(public_dtypes.prng_key, public_dtypes.extended)
