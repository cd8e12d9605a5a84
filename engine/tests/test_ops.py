"""Every first-order primitive of didax.lax against real JAX.

`OP_RECORDS` is the table: each record names the primitives it exercises, builds a
function from (jnp, lax) modules, and lists the dtypes and argument shapes to run it at.
For each (record, dtype) the function is compared with JAX in every mode of
`oracle.check_against_jax` — eager value/dtype/weak_type, make_jaxpr round trip, JVP, VJP,
grad, vmap with batch dims at different positions and unbatched operands — and float64
derivatives against finite differences. `test_records_cover_every_primitive` fails when a
primitive declared with def_primitive has no record, and `test_record_uses_its_primitives`
checks each record really stages the primitives it claims. `ERROR_RECORDS` compares the
error class and message for bad shapes and dtypes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

import didax
import numpy as np
import oracle
import pytest
from didax._src.lax import _define
from oracle import bfloat16, check_against_jax, check_error_against_jax, check_many, x64_mode

f16, f32, f64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
c64, c128 = np.dtype(np.complex64), np.dtype(np.complex128)
i8, i16, i32, i64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
u8, u16, u32, u64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
b1 = np.dtype(np.bool_)

FLOAT = (f16, bfloat16, f32, f64)
COMPLEX = (c64, c128)
SINT = (i8, i16, i32, i64)
UINT = (u8, u16, u32, u64)
INT = SINT + UINT
NUM = FLOAT + COMPLEX + INT
ALL = NUM + (b1,)
ORDERED = FLOAT + INT + (b1,)

MAIN_MODES = ("eval", "jaxpr", "jvp", "vjp", "vmap", "grad")

UNARY_SHAPES = [((3, 4),), ((),), ((0, 3),)]
BINARY_SHAPES = [((2, 3), (2, 3)), ((), ()), ((2, 3), ()), ((), (2, 3)), ((1, 3), (2, 3)),
                 ((0, 2), (0, 2))]


@dataclass(frozen=True)
class OpRecord:
    """One row of the table.

    build(jnp, lax) -> function under test. shapes: argument shapes per case. kinds: value
    kind per argument (see oracle.random_value) or a maker make(rng, dtype, shapes) ->
    args. diff: which arguments are differentiated (default: inexact array arguments).
    """

    name: str
    prims: tuple[str, ...]
    build: Callable
    dtypes: tuple
    shapes: list = field(default_factory=lambda: UNARY_SHAPES)
    kinds: object = "normal"
    modes: tuple = MAIN_MODES
    extra: tuple = ()
    diff: tuple | None = None
    in_axes: list | None = None
    tol: float = 1.0
    fd: bool = True
    named: bool = False  # runs under vmap(axis_name="i"): its collectives are batched away

    def make(self, rng, dtype, shapes):
        if callable(self.kinds):
            return self.kinds(rng, dtype, shapes)
        kinds = self.kinds if isinstance(self.kinds, tuple) else (self.kinds,) * len(shapes)
        return [oracle.random_value(rng, s, dtype, k) for s, k in zip(shapes, kinds)]


def main_dtype(dtypes):
    for d in (f32, i32, c64, b1):
        if d in dtypes:
            return d
    return dtypes[0]


# ----------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------

OP_RECORDS: list[OpRecord] = []


def rec(*args, **kwargs):
    OP_RECORDS.append(OpRecord(*args, **kwargs))


def lax_fn(name, **params):
    return lambda jnp, lax: lambda *xs: getattr(lax, name)(*xs, **params)


# --- unary elementwise math
for _name, _kind, _dts in [
    ("exp", "normal", FLOAT + COMPLEX), ("exp2", "normal", FLOAT + COMPLEX),
    ("log", "positive", FLOAT + COMPLEX), ("log1p", "positive", FLOAT + COMPLEX),
    ("expm1", "normal", FLOAT + COMPLEX), ("tanh", "normal", FLOAT + COMPLEX),
    ("logistic", "normal", FLOAT + COMPLEX), ("sin", "normal", FLOAT + COMPLEX),
    ("cos", "normal", FLOAT + COMPLEX), ("tan", "unit", FLOAT + COMPLEX),
    ("asin", "unit", FLOAT + COMPLEX), ("acos", "unit", FLOAT + COMPLEX),
    ("atan", "unit", FLOAT + COMPLEX), ("sinh", "normal", FLOAT + COMPLEX),
    ("cosh", "normal", FLOAT + COMPLEX), ("asinh", "normal", FLOAT + COMPLEX),
    ("acosh", "gt1", FLOAT + COMPLEX), ("atanh", "unit", FLOAT + COMPLEX),
    ("sqrt", "positive", FLOAT + COMPLEX), ("rsqrt", "positive", FLOAT + COMPLEX),
    ("cbrt", "nonzero", FLOAT), ("erf", "normal", FLOAT), ("erf_inv", "unit", FLOAT),
    ("erfc", "normal", FLOAT),
    ("lgamma", "positive", FLOAT), ("digamma", "positive", FLOAT),
    ("logistic", "normal", FLOAT), ("square", "normal", NUM),
    ("neg", "normal", NUM), ("sign", "nonzero", NUM),
    ("abs", "nonzero", FLOAT + COMPLEX + SINT),
    ("floor", "normal", FLOAT), ("ceil", "normal", FLOAT),
]:
    rec(_name, (_name,), lax_fn(_name), _dts, kinds=_kind, extra=("jvp2",))


def _specials(rng, dtype, shapes):
    vals = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0, 0.0, -2.0, 3.25, 7.0, np.nan,
                     -np.inf, 0.5])
    return [rng.permutation(vals)[:int(np.prod(s))].reshape(s).astype(dtype)
            for s in shapes]


def _halves(rng, dtype, shapes):
    return [(rng.integers(-8, 8, s) / 2).astype(dtype) for s in shapes]


rec("is_finite", ("is_finite",), lax_fn("is_finite"), FLOAT, kinds=_specials)
rec("round_afz", ("round",), lambda jnp, lax: lambda x: lax.round(x), FLOAT, kinds=_halves,
    fd=False)
rec("round_even", ("round",),
    lambda jnp, lax: lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), FLOAT,
    kinds=_halves, fd=False)
rec("not", ("not",), lax_fn("bitwise_not"), INT + (b1,), kinds="bits")
rec("population_count", ("population_count",), lax_fn("population_count"), INT,
    kinds="bits")
rec("clz", ("clz",), lax_fn("clz"), INT, kinds="bits")
rec("real", ("real",), lax_fn("real"), COMPLEX)
rec("imag", ("imag",), lax_fn("imag"), COMPLEX)
rec("conj", ("conj",), lax_fn("conj"), COMPLEX + (f32, f64))
for _y in (0, 1, 2, 3, -1, -3):
    rec(f"integer_pow_{_y}", ("integer_pow",), lax_fn("integer_pow", y=_y),
        (FLOAT + COMPLEX) if _y < 0 else NUM, kinds="nonzero" if _y < 0 else "small",
        extra=("jvp2",))


def _constrained(jnp, lax):
    """with_sharding_constraint to a one-device mesh (Auto axes, so vmap may batch it).
    (No jaxpr mode: JAX's equation also prints its context_mesh and layout.)"""
    lib = importlib.import_module(lax.__name__.split(".")[0])
    mesh = lib.make_mesh((1,), ("x",), axis_types=(lib.sharding.AxisType.Auto,))
    s = lib.sharding.NamedSharding(mesh, lib.sharding.PartitionSpec())
    return lambda x: lax.with_sharding_constraint(x * 2, s)


rec("sharding_constraint", ("sharding_constraint",), _constrained, (f32, f64, i32),
    modes=("eval", "jvp", "vjp", "vmap", "grad"))
rec("reduce_precision_f16", ("reduce_precision",),
    lax_fn("reduce_precision", exponent_bits=5, mantissa_bits=10), (f32, f64), fd=False)
rec("reduce_precision_bf16", ("reduce_precision",),
    lax_fn("reduce_precision", exponent_bits=8, mantissa_bits=7), (f32, f64), fd=False)
rec("stop_gradient", ("stop_gradient",),
    lambda jnp, lax: lambda x: lax.mul(lax.stop_gradient(x), x), FLOAT, fd=False)

# --- binary elementwise
for _name, _kinds, _dts in [
    ("add", "normal", NUM), ("sub", "normal", NUM), ("mul", "normal", NUM),
    ("div", ("normal", "nonzero"), NUM), ("rem", ("normal", "nonzero"), FLOAT + INT),
    ("pow", ("positive", "normal"), FLOAT + COMPLEX), ("max", "normal", ALL),
    ("min", "normal", ALL), ("atan2", "nonzero", FLOAT),
("bitwise_and", "bits", INT + (b1,)),
    ("bitwise_or", "bits", INT + (b1,)), ("bitwise_xor", "bits", INT + (b1,)),
    ("complex", "normal", (f32, f64)),
    ("eq", "small", ALL), ("ne", "small", ALL), ("lt", "small", ORDERED), ("le", "small", ORDERED), ("gt", "small", ORDERED),
    ("ge", "small", ORDERED),
]:
    _prim = {"bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}.get(_name, _name)
    rec(_name, (_prim,), lax_fn(_name), _dts, shapes=BINARY_SHAPES, kinds=_kinds)

rec("nextafter", ("nextafter",), lax_fn("nextafter"), FLOAT, shapes=BINARY_SHAPES,
    modes=("eval", "jaxpr", "vmap"))
# JAX's igamma/polygamma expand to large XLA programs: fewer shapes and modes
rec("igamma", ("igamma",), lax_fn("igamma"), (f32, f64), shapes=BINARY_SHAPES[:2],
    kinds="positive", diff=(1,), modes=("eval", "jaxpr", "jvp", "vmap"), in_axes=[(0, 0)])
rec("igammac", ("igammac",), lax_fn("igammac"), (f32, f64), shapes=BINARY_SHAPES[:2],
    kinds="positive", diff=(1,), modes=("eval", "jaxpr", "jvp", "vmap"), in_axes=[(0, 0)])
rec("betainc", ("regularized_incomplete_beta",),
    lambda jnp, lax: lambda a, b, x: lax.betainc(a, b, x / (1 + x)), (f32, f64),
    shapes=[((3,), (3,), (3,))], kinds="positive", modes=("eval", "jaxpr", "vmap"),
    in_axes=[(0, 0, 0)])
# JAX's lax.zeta has no JVP (jax.scipy.special.zeta differentiates in q)
rec("zeta", ("zeta",), lax_fn("zeta"), (f32, f64), shapes=BINARY_SHAPES[:2],
    kinds="positive", modes=("eval", "jaxpr", "vmap"), in_axes=[(0, 0)])
rec("max_ties", ("max",), lax_fn("max"), (f32, f64), shapes=BINARY_SHAPES[:1], kinds="small")
rec("min_ties", ("min",), lax_fn("min"), (f32, f64), shapes=BINARY_SHAPES[:1], kinds="small")


def _int_exponent(rng, dtype, shapes):
    return [oracle.random_value(rng, shapes[0], dtype, "positive"),
            rng.integers(-3, 4, shapes[1]).astype(np.int32)]


rec("pow_int_exponent", ("pow",), lax_fn("pow"), (f32, c64), shapes=BINARY_SHAPES[:2],
    kinds=_int_exponent)


def _shift_args(rng, dtype, shapes):
    bits = np.dtype(dtype).itemsize * 8
    return [oracle.random_value(rng, shapes[0], dtype, "bits"),
            rng.integers(0, bits + 2, shapes[1]).astype(dtype)]


for _name in ("shift_left", "shift_right_arithmetic", "shift_right_logical"):
    rec(_name, (_name,), lax_fn(_name), INT, shapes=BINARY_SHAPES[:3], kinds=_shift_args)


def _polygamma_args(rng, dtype, shapes):
    return [rng.integers(0, 3, shapes[0]).astype(dtype),
            oracle.random_value(rng, shapes[1], dtype, "positive")]


rec("polygamma", ("polygamma",), lax_fn("polygamma"), (f32, f64), shapes=BINARY_SHAPES[:2],
    kinds=_polygamma_args, diff=(1,), modes=("eval", "jaxpr", "jvp", "vmap"))

# --- select_n / clamp / convert_element_type


def _select_args(n_cases, which_dtype, which_scalar=False):
    def make(rng, dtype, shapes):
        s = shapes[0]
        ws = () if which_scalar else s
        if which_dtype == b1:
            which = rng.random(ws) < 0.5
        else:
            which = rng.integers(0, n_cases, ws).astype(which_dtype)
        return [which] + [oracle.random_value(rng, s, dtype) for _ in range(n_cases)]
    return make


rec("select_n_bool", ("select_n",), lax_fn("select_n"), ALL, kinds=_select_args(2, b1))
# large enough for the eager branch-free bit select (>= 4096 elements)
rec("select_n_bool_large", ("select_n",), lax_fn("select_n"), ALL, shapes=[((64, 80),) * 3],
    kinds=_select_args(2, b1), modes=("eval", "vjp"))
rec("select_n_int", ("select_n",), lax_fn("select_n"), (f32, i32, c64),
    kinds=_select_args(3, i32))
rec("select_n_scalar_which", ("select_n",), lax_fn("select_n"), (f32, i32),
    kinds=_select_args(2, b1, which_scalar=True))


def _clamp_args(scalar_bounds):
    def make(rng, dtype, shapes):
        s = shapes[0]
        bs = () if scalar_bounds else s
        kind = "normal" if oracle.is_inexact(dtype) else "small"
        lo = oracle.random_value(rng, bs, dtype, kind)
        hi = (np.asarray(lo) + np.asarray(oracle.random_value(rng, bs, dtype, "positive"))
              ).astype(dtype)
        return [lo, oracle.random_value(rng, s, dtype, kind), hi]
    return make


rec("clamp_scalar", ("clamp",), lax_fn("clamp"), FLOAT + SINT + (u8,),
    kinds=_clamp_args(True), diff=(1,))
rec("clamp_array", ("clamp",), lax_fn("clamp"), (f32, f64, i32), kinds=_clamp_args(False))

for _dst in (f32, i32, b1, f16, bfloat16, c64, u8):
    rec(f"convert_to_{_dst.name}", ("convert_element_type",),
        lambda jnp, lax, _dst=_dst: lambda x: lax.convert_element_type(x, _dst),
        (f32, f16, bfloat16, i32, u8, b1, i8) + ((c64,) if _dst == c64 else ()),
        kinds="small")
rec("convert_weak", ("convert_element_type",),
    lambda jnp, lax: lambda x: jnp.add(x, 1.5), (i32, u8, i8, b1), kinds="small")
rec("add_any", ("add_any",), lambda jnp, lax: lambda x: lax.mul(lax.sin(x), lax.cos(x)),
    (f32, f64))

# --- structural
rec("broadcast_in_dim", ("broadcast_in_dim",),
    lax_fn("broadcast_in_dim", shape=(2, 3, 4), broadcast_dimensions=(0, 2)), ALL,
    shapes=[((2, 4),), ((1, 4),), ((2, 1),)])
rec("broadcast_scalar", ("broadcast_in_dim",),
    lax_fn("broadcast_in_dim", shape=(2, 3), broadcast_dimensions=()), (f32, i32),
    shapes=[((),)])
rec("reshape", ("reshape",), lax_fn("reshape", new_sizes=(4, 3)), ALL,
    shapes=[((3, 4),), ((12,),), ((2, 6),)])
rec("reshape_dimensions", ("reshape",),
    lax_fn("reshape", new_sizes=(2, 6), dimensions=(1, 0)), (f32, i32), shapes=[((3, 4),)])
rec("reshape_empty", ("reshape",), lax_fn("reshape", new_sizes=(0, 5)), (f32,),
    shapes=[((5, 0),)])
rec("squeeze", ("squeeze",), lax_fn("squeeze", dimensions=(0, 2)), ALL,
    shapes=[((1, 3, 1),), ((1, 0, 1),)])
rec("expand_dims", ("broadcast_in_dim",), lax_fn("expand_dims", dimensions=(0, 2)),
    (f32, i32, b1), shapes=[((3, 4),), ((5,),)])
rec("transpose", ("transpose",), lax_fn("transpose", permutation=(2, 0, 1)), ALL,
    shapes=[((2, 3, 4),), ((0, 2, 3),)])
rec("rev", ("rev",), lax_fn("rev", dimensions=(0, 2)), ALL, shapes=[((2, 3, 4),)])
rec("concatenate", ("concatenate",),
    lambda jnp, lax: lambda *xs: lax.concatenate(xs, 1), ALL,
    shapes=[((2, 3), (2, 1), (2, 0)), ((2, 2), (2, 2), (2, 2))])
rec("split", ("split",), lax_fn("split", sizes=(1, 0, 3), axis=1), ALL,
    shapes=[((2, 4),)])
rec("pad", ("pad",),
    lambda jnp, lax: lambda x, v: lax.pad(x, v, ((1, 2, 0), (-1, 1, 2))), ALL,
    shapes=[((3, 4), ()), ((2, 1), ())])
rec("pad_interior_negative", ("pad",),
    lambda jnp, lax: lambda x, v: lax.pad(x, v, ((-2, -1, 1), (0, 0, 0))), (f32, i32),
    shapes=[((4, 3), ())])
rec("slice", ("slice",), lax_fn("slice", start_indices=(1, 0), limit_indices=(3, 4)), ALL,
    shapes=[((3, 4),)])
rec("slice_strided", ("slice",),
    lax_fn("slice", start_indices=(0, 1), limit_indices=(5, 4), strides=(2, 2)),
    (f32, i32, c64), shapes=[((5, 4),), ((6, 5),)])


def _dyn_args(n_update=False):
    def make(rng, dtype, shapes):
        x = oracle.random_value(rng, shapes[0], dtype)
        out = [x]
        if n_update:
            out.append(oracle.random_value(rng, shapes[1], dtype))
        out += [np.int32(rng.integers(-4, 5)) for _ in shapes[0]]
        return out
    return make


rec("dynamic_slice", ("dynamic_slice",),
    lambda jnp, lax: lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)), ALL,
    shapes=[((4, 3),)], kinds=_dyn_args(), in_axes=[(0, None, None), (1, None, None)])
rec("dynamic_update_slice", ("dynamic_update_slice",),
    lambda jnp, lax: lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)), ALL,
    shapes=[((4, 3), (2, 2))], kinds=_dyn_args(True),
    in_axes=[(0, 0, None, None), (None, 1, None, None), (1, None, None, None)])
rec("iota", ("iota",), lambda jnp, lax: lambda: lax.iota(np.int32, 5), (i32,),
    shapes=[()], modes=("eval", "jaxpr"))
rec("broadcasted_iota", ("iota",),
    lambda jnp, lax: lambda x: lax.add(x, lax.broadcasted_iota(x.dtype, (3, 4), 1)),
    (f32, i32, u8), shapes=[((3, 4),)])

# --- reductions


def _reduce(name, axes):
    return lambda jnp, lax: lambda x: getattr(lax, name)(x, axes)


for _name, _dts, _kind in [("reduce_sum", NUM, "normal"), ("reduce_max", ALL, "normal"),
                           ("reduce_min", ALL, "normal"), ("reduce_prod", NUM, "small"),
                           ("reduce_and", INT + (b1,), "bits"),
                           ("reduce_or", INT + (b1,), "bits"),
                           ("reduce_xor", INT + (b1,), "bits")]:
    for _axes in ((1,), (0, 1), ()):
        rec(f"{_name}_{'_'.join(map(str, _axes)) or 'none'}", (_name,) if _axes else (),
            _reduce(_name, _axes), _dts, shapes=[((3, 4),), ((0, 2),)] if _axes
            else [((3, 4),)], kinds=_kind)
rec("reduce_max_ties", ("reduce_max",), _reduce("reduce_max", (0,)), (f32, f64),
    shapes=[((4, 3),)], kinds="small")
rec("reduce_prod_zeros", ("reduce_prod",), _reduce("reduce_prod", (0,)), (f32, f64),
    kinds=lambda rng, dt, s: [np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 3.0]], dt)],
    shapes=[((2, 3),)])

for _name in ("argmax", "argmin"):
    for _axis in (0, 1):
        rec(f"{_name}_{_axis}", (_name,),
            lambda jnp, lax, _name=_name, _axis=_axis: lambda x: getattr(lax, _name)(
                x, _axis, np.int32), FLOAT + INT + (b1,), shapes=[((3, 4),)], kinds="small")
rec("argmax_nan", ("argmax",), lambda jnp, lax: lambda x: lax.argmax(x, 0, np.int32),
    (f32,), kinds=_specials, shapes=[((12,),)])

for _name, _dts in [("cumsum", NUM), ("cumprod", FLOAT + INT), ("cummax", FLOAT + INT),
                    ("cummin", FLOAT + INT), ("cumlogsumexp", FLOAT)]:
    _kind = "small" if _name in ("cumsum", "cumprod") else "normal"
    for _rev in (False, True):
        rec(f"{_name}{'_rev' if _rev else ''}", (_name,),
            lambda jnp, lax, _name=_name, _rev=_rev: lambda x: getattr(lax, _name)(
                x, axis=1, reverse=_rev), _dts,
            shapes=[((3, 4),), ((2, 0),)] if _name == "cumsum" else [((3, 4),)],
            kinds=_kind)
for _name in ("cummax", "cummin"):
    rec(f"{_name}_ties", (_name,), lambda jnp, lax, _name=_name: lambda x: getattr(lax, _name)(
        x, axis=0), (f32,), shapes=[((6, 3),)], kinds="small")

rec("sort", ("sort",), lambda jnp, lax: lambda x: lax.sort(x, dimension=0), ALL,
    shapes=[((5, 3),), ((4,),)])
rec("sort_ties", ("sort",), lambda jnp, lax: lambda x: lax.sort(x, dimension=1), (f32, i32),
    shapes=[((3, 6),)], kinds="small")
rec("sort_two_keys", ("sort",),
    lambda jnp, lax: lambda k1, k2, v: lax.sort((k1, k2, v), dimension=1, num_keys=2),
    (f32, i32), shapes=[((2, 5), (2, 5), (2, 5))], kinds="small")
rec("sort_key_val", ("sort",), lambda jnp, lax: lambda k, v: lax.sort_key_val(k, v),
    (f32, i32), shapes=[((3, 5), (3, 5))], kinds="small")
rec("fft", ("fft",), lambda jnp, lax: lambda x: lax.fft(x, lax.FftType.FFT, (4,)),
    (c64,), shapes=[((3, 4),)])
rec("ifft2", ("fft",), lambda jnp, lax: lambda x: lax.fft(x, lax.FftType.IFFT, (3, 4)),
    (c64,), shapes=[((2, 3, 4),)])
rec("rfft", ("fft",), lambda jnp, lax: lambda x: lax.fft(x, lax.FftType.RFFT, (4,)),
    (f32,), shapes=[((3, 4),)])
rec("irfft", ("fft",), lambda jnp, lax: lambda x: lax.fft(x, lax.FftType.IRFFT, (6,)),
    (c64,), shapes=[((3, 4),)])
rec("top_k", ("top_k",), lambda jnp, lax: lambda x: lax.top_k(x, 2), FLOAT + INT,
    shapes=[((3, 5),), ((4,),)])
rec("top_k_axis0_ties", ("top_k",), lambda jnp, lax: lambda x: lax.top_k(x, 3, axis=0),
    (f32, i32), shapes=[((6, 2),)], kinds="small")
rec("sort_specials", ("sort",), lambda jnp, lax: lambda x: lax.sort(x), (f32, f64),
    kinds=_specials, shapes=[((12,),)], fd=False)


def _dot(dims, pet=None):
    return lambda jnp, lax: lambda x, y: lax.dot_general(x, y, dims,
                                                         preferred_element_type=pet)


rec("dot_matmul", ("dot_general",), _dot((((1,), (0,)), ((), ()))), NUM,
    shapes=[((2, 3), (3, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 3))])
rec("dot_vector", ("dot_general",), _dot((((0,), (0,)), ((), ()))), (f32, i32, c64),
    shapes=[((3,), (3,))])
rec("dot_batch", ("dot_general",), _dot((((2,), (1,)), ((0,), (0,)))), (f32, f64, c64),
    shapes=[((2, 3, 4), (2, 4, 5))])
rec("dot_batch_middle", ("dot_general",), _dot((((0,), (2,)), ((1,), (0,)))), (f32, f64),
    shapes=[((4, 2, 3), (2, 5, 4))])
rec("dot_outer", ("dot_general",), _dot((((), ()), ((), ()))), (f32,),
    shapes=[((2, 3), (4,))])
rec("dot_preferred_i32", ("dot_general",), _dot((((1,), (0,)), ((), ())), np.int32),
    (i8, u8), shapes=[((2, 3), (3, 4))], kinds="small")
rec("dot_preferred_f32", ("dot_general",), _dot((((1,), (0,)), ((), ())), np.float32),
    (bfloat16, f16), shapes=[((2, 3), (3, 4))])
rec("dot", ("dot_general",), lambda jnp, lax: lambda x, y: lax.dot(x, y), (f32,),
    shapes=[((2, 3), (3,)), ((3,), (3, 2))])
# (many more configurations in test_convolution.py)
rec("conv_general_dilated", ("conv_general_dilated",),
    lambda jnp, lax: lambda x, w: lax.conv_general_dilated(
        x, w, (2, 1), ((1, 0), (0, 1)), rhs_dilation=(1, 2), feature_group_count=2),
    (f32, f64, c64), shapes=[((2, 4, 5, 4), (4, 2, 2, 2))])
# (many more configurations in test_windowed_reductions.py)
for _name, _op, _init in [("sum", "add", 0.0), ("max", "max", -np.inf),
                          ("min", "min", np.inf)]:
    rec(f"reduce_window_{_name}", (f"reduce_window_{_name}",),
        lambda jnp, lax, _op=_op, _init=_init: lambda x: lax.reduce_window(
            x, _init, getattr(lax, _op), (2, 1), (1, 2), "SAME"), (f32, f64),
        shapes=[((4, 5),)])



# --- gather / scatter / bitcast (lax/slicing.py, lax/bitcast.py)


def _gather_args(n_idx, idx_hi, with_updates=None):
    def make(rng, dtype, shapes):
        x = oracle.random_value(rng, shapes[0], dtype)
        idx = rng.integers(0, idx_hi, shapes[1]).astype(np.int32)
        out = [x, idx]
        if with_updates is not None:
            out.append(oracle.random_value(rng, shapes[2], dtype))
        return out
    return make


def _gather(mode, batching=False):
    def build(jnp, lax):
        if batching:
            dn = lax.GatherDimensionNumbers(
                offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(1,),
                operand_batching_dims=(0,), start_indices_batching_dims=(0,))
            sizes = (1, 1, 3)
        else:
            dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                            start_index_map=(0,))
            sizes = (1, 3)
        return lambda x, i: lax.gather(x, i, dn, sizes, mode=mode)
    return build


rec("gather_clip", ("gather",), _gather("clip"), (f32, f64, i32, c64, b1),
    shapes=[((5, 3), (4, 1)), ((5, 3), (0, 1))], kinds=_gather_args(1, 7),
    in_axes=[(0, 0), (None, 1), (1, None)])
rec("gather_fill", ("gather",), _gather("fill"), (f32, i32, u8, b1),
    shapes=[((5, 3), (4, 1))], kinds=_gather_args(1, 7), in_axes=[(0, 0), (None, 0)])
rec("gather_batching_dims", ("gather",), _gather("promise_in_bounds", batching=True),
    (f32, i32), shapes=[((2, 5, 3), (2, 4, 1))], kinds=_gather_args(1, 5),
    in_axes=[(0, 0), (None, 1)])


def _scatter(name, mode="fill", unique=False):
    def build(jnp, lax):
        dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                         scatter_dims_to_operand_dims=(0,))
        fn = getattr(lax, name)
        return lambda x, i, u: fn(x, i, u, dn, mode=mode, unique_indices=unique)
    return build


def _unique_rows(rng, dtype, shapes):
    x = oracle.random_value(rng, shapes[0], dtype)
    idx = rng.permutation(shapes[0][0])[:shapes[1][0]].reshape(shapes[1]).astype(np.int32)
    return [x, idx, oracle.random_value(rng, shapes[2], dtype)]


_SCATTER_SHAPES = [((5, 3), (4, 1), (4, 3)), ((5, 3), (0, 1), (0, 3))]
_SCATTER_AXES = [(0, 0, 0), (None, 0, 1), (1, None, None)]
for _name, _prim, _dts in [("scatter_add", "scatter-add", NUM),
                           ("scatter_sub", "scatter-sub", (f32, f64, i32, c64)),
                           ("scatter_min", "scatter-min", (f32, f64, i32, u8)),
                           ("scatter_max", "scatter-max", (f32, f64, i32, b1))]:
    rec(_name, (_prim,), _scatter(_name), _dts, shapes=_SCATTER_SHAPES,
        kinds=_gather_args(1, 6, with_updates=True), in_axes=_SCATTER_AXES)
rec("scatter", ("scatter",), _scatter("scatter", unique=True), (f32, f64, i32, b1, c64),
    shapes=_SCATTER_SHAPES[:1], kinds=_unique_rows, in_axes=_SCATTER_AXES)
rec("scatter_mul", ("scatter-mul",), _scatter("scatter_mul", unique=True), (f32, f64, i32),
    shapes=_SCATTER_SHAPES[:1], kinds=_unique_rows, in_axes=_SCATTER_AXES)
rec("scatter_clip", ("scatter-add",), _scatter("scatter_add", mode="clip"), (f32,),
    shapes=_SCATTER_SHAPES[:1], kinds=_gather_args(1, 8, with_updates=True),
    in_axes=_SCATTER_AXES)

for _src, _dst, _shape in [(f32, i32, (3, 4)), (i32, f32, (3, 4)), (f32, u8, (3, 2)),
                           (u8, f32, (3, 4)), (f64, u32, (2, 3)), (i8, u8, (4,))]:
    rec(f"bitcast_{_src.name}_to_{_dst.name}", ("bitcast_convert_type",),
        lambda jnp, lax, _dst=_dst: lambda x: lax.bitcast_convert_type(x, _dst), (_src,),
        shapes=[(_shape,)], kinds="bits" if _src.kind in "iu" else "normal",
        modes=("eval", "jaxpr", "vmap"), in_axes=[(0,)])


# --- stack / unstack / tile (lax/stacking.py)
rec("stack", ("stack",), lambda jnp, lax: lambda x, y: lax.stack([x, y], 1), ALL,
    shapes=[((2, 3), (2, 3)), ((3,), (3,)), ((0, 2), (0, 2))])
rec("unstack", ("unstack",), lambda jnp, lax: lambda x: lax.unstack(x, 1), ALL,
    shapes=[((2, 3),), ((2, 1, 4),)])
rec("tile", ("tile",), lambda jnp, lax: lambda x: lax.tile(x, (2, 1, 3)), ALL,
    shapes=[((2, 3, 1),), ((1, 0, 2),)])

# --- collectives (lax/parallel.py), under vmap with a named axis


def _named(inner):
    """Wraps the record's function in vmap(axis_name="i") of its own library."""
    def build(jnp, lax):
        top = importlib.import_module(jnp.__name__.split(".")[0])
        return top.vmap(inner(jnp, lax), axis_name="i")
    return build


def named_rec(*args, **kwargs):
    rec(*args, named=True, **kwargs)


for _name in ("psum", "pmax", "pmin"):
    named_rec(_name, (_name,), _named(lambda jnp, lax, _name=_name: lambda x: getattr(lax, _name)(
        x, "i")), (f32, i32), shapes=[((4, 3),), ((2,),)], in_axes=[(0,), (1,)],
        modes=MAIN_MODES if _name == "psum" else ("eval", "jaxpr", "vmap"))
named_rec("pmean", ("psum",), _named(lambda jnp, lax: lambda x: lax.pmean(x, "i")), (f32,),
    shapes=[((4, 3),)], in_axes=[(0,)])
named_rec("axis_index", ("axis_index",), _named(lambda jnp, lax: lambda x: lax.add(
    x, lax.convert_element_type(lax.axis_index("i"), x.dtype))), (f32, i32),
    shapes=[((4, 3),)], in_axes=[(0,), (1,)])
named_rec("all_gather", ("all_gather",), _named(lambda jnp, lax: lambda x: lax.all_gather(x, "i")),
    (f32, i32), shapes=[((4, 3),)], in_axes=[(0,), (1,)])
named_rec("all_gather_tiled", ("all_gather",), _named(
    lambda jnp, lax: lambda x: lax.all_gather(x, "i", axis=1, tiled=True)), (f32,),
    shapes=[((4, 2, 3),)], in_axes=[(0,)])

_RING = [(0, 1), (1, 2), (2, 3), (3, 0)]
_VALUE_MODES = ("eval", "jvp", "vjp", "grad")  # (JAX's batching rules emit other operations)
named_rec("ppermute", ("ppermute",), _named(
    lambda jnp, lax: lambda x: lax.ppermute(x, "i", _RING) * 2), (f32, i32),
    shapes=[((4, 3),)], in_axes=[(0,)], modes=_VALUE_MODES)
named_rec("ppermute_reverse", ("ppermute",), _named(
    lambda jnp, lax: lambda x: lax.ppermute(x, "i", [(k, 3 - k) for k in range(4)])), (f32,),
    shapes=[((4, 3),)], in_axes=[(0,)], modes=_VALUE_MODES)
named_rec("psum_scatter", ("reduce_scatter",), _named(
    lambda jnp, lax: lambda x: lax.psum_scatter(x, "i")), (f32, i32),
    shapes=[((4, 4, 3),)], in_axes=[(0,)], modes=_VALUE_MODES)
named_rec("psum_scatter_tiled", ("reduce_scatter",), _named(
    lambda jnp, lax: lambda x: lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True)),
    (f32,), shapes=[((4, 3, 8),)], in_axes=[(0,)], modes=_VALUE_MODES)
named_rec("all_to_all", ("all_to_all",), _named(
    lambda jnp, lax: lambda x: lax.all_to_all(x, "i", 0, 1)), (f32, i32),
    shapes=[((4, 4, 3),)], in_axes=[(0,)], modes=_VALUE_MODES)
named_rec("all_to_all_tiled", ("all_to_all",), _named(
    lambda jnp, lax: lambda x: lax.all_to_all(x, "i", 1, 0, tiled=True)), (f32,),
    shapes=[((4, 2, 8),)], in_axes=[(0,)], modes=_VALUE_MODES)


# ----------------------------------------------------------------------------------------
# running a record
# ----------------------------------------------------------------------------------------


def _modes_for(record: OpRecord, dtype, first_shape: bool) -> tuple:
    """All modes for the main dtype's first shape; fewer elsewhere (the rules under test
    are shared, the dtype- and shape-specific parts are the values, JVPs and transposes)."""
    if dtype == main_dtype(record.dtypes):
        if first_shape:
            return record.modes + record.extra
        return tuple(m for m in ("eval", "jaxpr", "vjp", "vmap") if m in record.modes)
    modes = [m for m in ("eval", "jaxpr") if m in record.modes]
    if oracle.is_inexact(dtype) and "jvp" in record.modes:
        modes.append("jvp")
        if dtype in (f64, c128):
            modes.append("vjp")
        if dtype == f64 and record.fd:
            modes.append("fd")
    return tuple(modes)


def _record_cases(record: OpRecord, dtype) -> list[dict]:
    main = dtype == main_dtype(record.dtypes)
    cases = []
    for k, shapes in enumerate(record.shapes if main else record.shapes[:1]):
        rng = np.random.default_rng(oracle.seed_of(record.name, str(dtype), k))
        batch = [record.make(np.random.default_rng(oracle.seed_of(record.name, k, b)),
                             dtype, shapes) for b in range(oracle.BATCH)]
        cases.append(dict(args=record.make(rng, dtype, shapes),
                          modes=_modes_for(record, dtype, k == 0),
                          diff_argnums=record.diff, in_axes_list=record.in_axes,
                          batch_args=batch, tol_scale=record.tol))
    return cases


def run_record(record: OpRecord, dtypes) -> None:
    """All dtypes of a record, with one JAX compilation per x64 setting."""
    for x64 in (False, True):
        group = [d for d in dtypes if oracle.needs_x64(d) == x64]
        if not group:
            continue
        with x64_mode(x64):
            cases = [c for d in group for c in _record_cases(record, d)]
            check_many(record.build, cases)


@pytest.mark.parametrize("record", OP_RECORDS, ids=lambda r: r.name)
def test_op(record):
    run_record(record, record.dtypes)


# ----------------------------------------------------------------------------------------
# coverage of the table
# ----------------------------------------------------------------------------------------


# First-order lax primitives with no JAX-visible entry point of their own, and where they
# are tested instead.
TESTED_ELSEWHERE = {
    "select_and_gather_add": "the JVP of reduce_window_max/min: reached through derivatives "
                             "of max pooling (test_windowed_reductions.py)",
    "select_and_scatter_add": "the transpose of select_and_gather_add: reached through "
                              "gradients of max pooling (test_windowed_reductions.py)",
    "pvary": "shard_map's cast to a varying value: only meaningful in a shard_map body "
             "(test_shard_map.py)",
    "psum_invariant": "psum as a checked shard_map body stages it (test_shard_map.py)",
    "empty2": "the uninitialized filler of cond's residuals: only reachable through "
              "partial evaluation of lax.cond (control-flow tests)",
}


def _first_order_primitives():
    """Every first-order primitive declared in didax._src.lax (higher-order ones — jit,
    control flow — are tested with their transformations)."""
    return {p.name for p in _define.all_primitives
            if not p.is_higher_order
            and _define.declared_in.get(p, "").startswith("didax._src.lax")}


def test_records_cover_every_primitive():
    covered = {p for r in OP_RECORDS for p in r.prims}
    missing = _first_order_primitives() - covered - set(TESTED_ELSEWHERE)
    assert not missing, f"primitives without an OP_RECORDS entry: {sorted(missing)}"


def _staged_primitives(record: OpRecord, dtype) -> set[str]:
    args = record.make(np.random.default_rng(0), dtype, record.shapes[0])
    f = record.build(didax.numpy, didax.lax)
    jaxprs = [didax.make_jaxpr(f)(*args)]
    diff = [i for i, a in enumerate(args) if oracle.is_inexact(np.asarray(a).dtype)]
    if diff and "add_any" in record.prims:
        def g(*d):
            full = list(args)
            for i, v in zip(diff, d):
                full[i] = v
            out = f(*full)
            return didax.numpy.sum(didax.numpy.real(out)) if not isinstance(out, (
                tuple, list)) else didax.numpy.sum(didax.numpy.real(out[0]))
        jaxprs.append(didax.make_jaxpr(didax.grad(g, argnums=tuple(range(len(diff)))))(
            *[args[i] for i in diff]))
    names = set()
    for j in jaxprs:
        names.update(e.primitive.name for e in j.jaxpr.eqns)
    return names


@pytest.mark.parametrize("record", [r for r in OP_RECORDS if not r.named],
                         ids=lambda r: r.name)
def test_record_uses_its_primitives(record):
    """The record stages its primitives (at some dtype: conversions to the same dtype are
    no-ops)."""
    staged = set()
    for dtype in record.dtypes:
        with x64_mode(oracle.needs_x64(dtype)):
            staged |= _staged_primitives(record, dtype)
        if set(record.prims) <= staged:
            break
    assert set(record.prims) <= staged, f"{record.name} stages {sorted(staged)}"


# ----------------------------------------------------------------------------------------
# errors: bad shapes and dtypes raise JAX's exception class and message
# ----------------------------------------------------------------------------------------

_a = np.ones((2, 3), np.float32)
_b = np.ones((3, 2), np.float32)
_i = np.ones((2, 3), np.int32)
_c = np.ones((2, 3), np.complex64)

ERROR_RECORDS = [
    ("add_dtypes", lambda jnp, lax: lambda x, y: lax.add(x, y), [_a, _i], "exact"),
    ("add_shapes", lambda jnp, lax: lambda x, y: lax.add(x, y), [_a, _b], "exact"),
    ("add_ranks", lambda jnp, lax: lambda x, y: lax.add(x, y), [_a, _a[0]], "exact"),
    ("sin_int", lambda jnp, lax: lambda x: lax.sin(x), [_i], "exact"),
    ("lt_complex", lambda jnp, lax: lambda x: lax.lt(x, x), [_c], "exact"),
    ("and_float", lambda jnp, lax: lambda x: lax.bitwise_and(x, x), [_a], "exact"),
    ("atan2_dtypes", lambda jnp, lax: lambda x, y: lax.atan2(x, y), [_a, _i], "exact"),
    ("integer_pow_negative_int", lambda jnp, lax: lambda x: lax.integer_pow(x, -2), [_i],
     "exact"),
    ("broadcast_in_dim_rank", lambda jnp, lax: lambda x: lax.broadcast_in_dim(
        x, (2, 3), (0,)), [_a], "exact"),
    ("broadcast_in_dim_size", lambda jnp, lax: lambda x: lax.broadcast_in_dim(
        x, (4, 3), (0, 1)), [_a], "exact"),
    ("transpose_perm", lambda jnp, lax: lambda x: lax.transpose(x, (0, 0)), [_a], "exact"),
    ("squeeze_non_unit", lambda jnp, lax: lambda x: lax.squeeze(x, (0,)), [_a], "exact"),
    ("rev_duplicate", lambda jnp, lax: lambda x: lax.rev(x, (0, 0)), [_a], "exact"),
    ("concatenate_shapes", lambda jnp, lax: lambda x, y: lax.concatenate([x, y], 0),
     [_a, _b], "exact"),
    ("concatenate_dtypes", lambda jnp, lax: lambda x, y: lax.concatenate([x, y], 0),
     [_a, _i], "exact"),
    ("split_sizes", lambda jnp, lax: lambda x: lax.split(x, (1, 1), 1), [_a], "exact"),
    ("pad_config_length", lambda jnp, lax: lambda x: lax.pad(x, np.float32(0),
                                                             ((1, 1, 0),)), [_a], "exact"),
    ("pad_dtype", lambda jnp, lax: lambda x: lax.pad(x, np.int32(0), ((1, 1, 0),) * 2),
     [_a], "exact"),
    # (eager JAX prints the sizes as np.int64(...) here; the words are what matter)
    ("dynamic_slice_sizes", lambda jnp, lax: lambda x: lax.dynamic_slice(x, (0, 0), (3, 1)),
     [_a], "slice slice_sizes must be less than or equal to operand shape, got slice_sizes"),
    ("dynamic_update_slice_dtype", lambda jnp, lax: lambda x, u: lax.dynamic_update_slice(
        x, u, (0, 0)), [_a, _i[:1]], "exact"),
    ("select_n_shapes", lambda jnp, lax: lambda p, x, y: lax.select_n(p, x, y),
     [np.ones(3, bool), _a, _a], "exact"),
    ("select_n_case_dtypes", lambda jnp, lax: lambda p, x, y: lax.select_n(p, x, y),
     [np.ones((2, 3), bool), _a, _i], "exact"),
    ("clamp_shapes", lambda jnp, lax: lambda x: lax.clamp(np.ones(2, np.float32), x, x),
     [_a], "exact"),
    ("dot_general_contracting", lambda jnp, lax: lambda x, y: lax.dot_general(
        x, y, (((1,), (1,)), ((), ()))), [_a, _b], "exact"),
    ("dot_general_batch_contract", lambda jnp, lax: lambda x, y: lax.dot_general(
        x, y, (((1,), (0,)), ((0,), (0,)))), [_a, _b], "exact"),
    ("dot_general_range", lambda jnp, lax: lambda x: lax.dot_general(
        x, x, (((2,), (0,)), ((), ()))), [_a], "exact"),
    ("dot_preferred_narrow", lambda jnp, lax: lambda x: lax.dot_general(
        x, x, (((0,), (0,)), ((), ())), preferred_element_type=np.int8), [_i[0]], "exact"),
    ("reduce_sum_axis", lambda jnp, lax: lambda x: lax.reduce_sum(x, (2,)), [_a], "exact"),
    ("argmax_axis", lambda jnp, lax: lambda x: lax.argmax(x, 2, np.int32), [_a], "exact"),
    ("argmax_empty", lambda jnp, lax: lambda x: lax.argmax(x, 0, np.int32),
     [np.ones((0, 2), np.float32)], "exact"),
    ("cumsum_axis", lambda jnp, lax: lambda x: lax.cumsum(x, 2), [_a], "exact"),
    ("cumsum_negative_axis", lambda jnp, lax: lambda x: lax.cumsum(x, -1), [_a], "exact"),
    ("sort_shapes", lambda jnp, lax: lambda x, y: lax.sort((x, y)), [_a, _b], "exact"),
    ("sort_dimension", lambda jnp, lax: lambda x: lax.sort(x, dimension=2), [_a], "exact"),
    ("iota_dimension", lambda jnp, lax: lambda: lax.broadcasted_iota(np.int32, (2, 3), 2),
     [], "exact"),
    ("clamp_dtypes", lambda jnp, lax: lambda x, y: lax.clamp(y, x, x), [_a, _i], "exact"),
    ("clamp_max_shape", lambda jnp, lax: lambda x: lax.clamp(
        x, x, np.ones(2, np.float32)), [_a], "exact"),
    ("select_n_which_dtype", lambda jnp, lax: lambda x: lax.select_n(x, x, x), [_a],
     "exact"),
    ("select_n_bool_three_cases", lambda jnp, lax: lambda p, x: lax.select_n(p, x, x, x),
     [np.ones((2, 3), bool), _a], "exact"),
    ("dynamic_update_slice_rank", lambda jnp, lax: lambda x, u: lax.dynamic_update_slice(
        x, u, (0, 0)), [_a, _a[0]], "exact"),
    ("dynamic_update_slice_big", lambda jnp, lax: lambda x, u: lax.dynamic_update_slice(
        x, u, (0, 0)), [_a, _b.reshape(2, 3)[:, :2].repeat(2, 1)], "exact"),
    ("dynamic_slice_float_index", lambda jnp, lax: lambda x: lax.dynamic_slice(
        x, (np.float32(0), np.float32(0)), (1, 1)), [_a], "exact"),
    ("concatenate_ranks", lambda jnp, lax: lambda x: lax.concatenate([x, x[0]], 0), [_a],
     "exact"),
    ("concatenate_dimension", lambda jnp, lax: lambda x: lax.concatenate([x, x], 2), [_a],
     "exact"),
    ("pad_negative_interior", lambda jnp, lax: lambda x: lax.pad(
        x, np.float32(0), ((0, 0, -1), (0, 0, 0))), [_a], "exact"),
    ("transpose_rank", lambda jnp, lax: lambda x: lax.transpose(x, (0,)), [_a], "exact"),
    ("squeeze_axis", lambda jnp, lax: lambda x: lax.squeeze(x, (2,)), [_a], "exact"),
    ("rev_out_of_range", lambda jnp, lax: lambda x: lax.rev(x, (2,)), [_a], "exact"),
    ("rev_negative", lambda jnp, lax: lambda x: lax.rev(x, (-1,)), [_a], "exact"),
    ("reshape_negative", lambda jnp, lax: lambda x: lax.reshape(x, (-1, 3)), [_a], "exact"),
    ("split_axis", lambda jnp, lax: lambda x: lax.split(x, (1, 1), axis=2), [_a], "exact"),
    ("select_n_which_shape", lambda jnp, lax: lambda p, x: lax.select_n(p, x, x),
     [np.ones(2, bool), _a], "exact"),
]


@pytest.mark.parametrize("name,build,args,message", ERROR_RECORDS,
                         ids=[r[0] for r in ERROR_RECORDS])
def test_op_error(name, build, args, message):
    check_error_against_jax(build, args, message=message)


def test_grad_of_integer_input_error():
    check_error_against_jax(lambda jnp, lax: lambda x: lax.convert_element_type(
        x, np.float32), [_i[0, 0]], transform=lambda mod, f: mod.grad(f))


def test_batched_dynamic_index_needs_gather():
    """vmap over the start indices of dynamic_slice turns it into a gather."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3)).astype(np.float32)
    idx = np.array([0, 2, 3], np.int32)
    check_against_jax(
        lambda jnp, lax: lambda x, i: lax.dynamic_slice(x, (i, np.int32(0)), (2, 3)),
        [x, idx[0]], ("vmap",), in_axes_list=[(None, 0)],
        batch_args=[[x, i] for i in idx])


@pytest.mark.parametrize("limit,strides", [((3, 3), None), ((2, 3), (1, -1)), ((2,), None)])
def test_slice_errors_when_traced(limit, strides):
    """(Eager JAX reports out-of-bounds slices through another path; traced, the
    messages are slice's own.)"""
    check_error_against_jax(lambda jnp, lax: lambda x: lax.slice(x, (0,) * len(limit), limit,
                                                                 strides),
                            [_a], transform=lambda mod, f: mod.make_jaxpr(f),
                            message="class" if strides else "exact")


def test_nextafter_has_no_derivative():
    check_error_against_jax(lambda jnp, lax: lambda x: lax.nextafter(x, x),
                            [np.float32(1.5)], transform=lambda mod, f: mod.grad(f))


@pytest.mark.xfail(raises=NotImplementedError, strict=True,
                   reason="igamma's derivative in a needs igamma_grad_a, not implemented yet")
def test_igamma_derivative_in_a():
    a = np.array([0.5, 1.5, 3.0], np.float32)
    check_against_jax(lambda jnp, lax: lambda a, x: lax.igamma(a, x), [a, a + 0.25],
                      ("jvp",), diff_argnums=(0,))


def test_scatter_mul_gradient_needs_unique_indices():
    dn = dict(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,))
    x, u = np.ones((4, 2), np.float32), np.full((2, 2), 2.0, np.float32)
    check_error_against_jax(
        lambda jnp, lax: lambda u: lax.scatter_mul(
            x, np.array([[0], [0]], np.int32), u, lax.ScatterDimensionNumbers(**dn)).sum(),
        [u], transform=lambda mod, f: mod.grad(f))
