"""Counter-based PRNG machinery after JAX 0.10's design (threefry2x32 by default).

- `threefry2x32_p`: the Threefry-2x32 block cipher (20 rounds) on uint32 arrays, and
  `iota_2x32_shape_p`: a row-major 64-bit counter over a shape, as (hi, lo) uint32 halves.
  Both are primitives with every rule (NumPy impl, StableHLO lowering, batching, zero JVP).
- The threefry implementation of the PRNG interface (seed, split, fold_in, random_bits), as
  functions of the *physical* key data (uint32[..., 2]) written in didax.lax, vectorized
  over leading key dimensions; `threefry_prng_impl` is registered as the default.

The typed-key layer (the `key<fry>` extended dtype, key arrays and the random_* key
primitives) lives in `didax._src.prng_keys`. May import core, dtypes, config, array, the
interpreters and didax.lax.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from didax._src import core, dtypes
from didax._src.config import config
from didax._src.core import ShapedArray
from didax._src.interpreters import batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.lax import lax, shapes
from didax._src.lax._define import (
    NONLINEAR,
    ZERO_JVP,
    broadcast_shapes_rule,
    def_primitive,
    unsupported,
)

_U32 = np.dtype("uint32")
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule parity constant
UINT_DTYPES = {8: np.dtype("uint8"), 16: np.dtype("uint16"), 32: _U32,
               64: np.dtype("uint64")}


# ----------------------------------------------------------------------------------------
# threefry2x32
# ----------------------------------------------------------------------------------------


def _threefry_abstract_eval(k1, k2, x1, x2):
    avals = (k1, k2, x1, x2)
    if any(a.dtype != _U32 for a in avals):
        raise TypeError(f"Arguments to threefry2x32 must have uint32 type, got "
                        f"{[a.str_short() for a in avals]}")
    shape = broadcast_shapes_rule("threefry2x32", *(a.shape for a in avals))
    return [ShapedArray(shape, _U32)] * 2


def _threefry_rounds(x0, x1, ks, add, rotl, xor, const):
    """The 20 rounds and 5 key injections, over any array-like algebra."""
    x0, x1 = add(x0, ks[0]), add(x1, ks[1])
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 = add(x0, x1)
            x1 = xor(x0, rotl(x1, r))
        x0 = add(x0, ks[(i + 1) % 3])
        x1 = add(add(x1, ks[(i + 2) % 3]), const(i + 1))
    return x0, x1


def _threefry_impl(k1, k2, x1, x2):
    shape = np.broadcast_shapes(*(np.shape(a) for a in (k1, k2, x1, x2)))
    k1, k2, x1, x2 = (np.broadcast_to(np.asarray(a, _U32), shape) for a in (k1, k2, x1, x2))
    with np.errstate(over="ignore"):
        ks = (k1, k2, k1 ^ k2 ^ np.uint32(_PARITY))
        return _threefry_rounds(
            x1, x2, ks, add=np.add, xor=np.bitwise_xor, const=np.uint32,
            rotl=lambda v, r: (v << np.uint32(r)) | (v >> np.uint32(32 - r)))


# The lowering mirrors the module JAX emits on CPU — a private `threefry2x32` function
# whose five key injections are a rolled while loop around a `closed_call` of four rounds —
# so that XLA compiles (and, for the float code consuming the bits, fuses and rounds) our
# programs exactly as it compiles JAX's.
_I32 = np.dtype("int32")


def _bcast(fn, x, aval):
    """x (rank 0, or already of aval's shape) broadcast to aval's shape."""
    if tuple(x.aval.shape) == tuple(aval.shape):
        return x
    return fn.op1("stablehlo.broadcast_in_dim", [x], aval,
                  "broadcast_dimensions = array<i64>")


def _emit_func(module, name: str, arg_avals, body) -> str:
    """Emits `func.func private @name` whose results body(fn, args) returns."""
    fn = lowering.FuncBuilder(module)
    args = [lowering.Value(f"%arg{i}", a) for i, a in enumerate(arg_avals)]
    outs = body(fn, args)
    fn.op("func.return", outs, [])
    sym = module.fresh_func_name(name)
    params = ", ".join(f"{a.name}: {lowering.ir_type(a.aval)}" for a in args)
    results = ", ".join(lowering.ir_type(o.aval) for o in outs)
    text = "\n".join(fn.lines)
    module.funcs.append(f"  func.func private @{sym}({params}) -> ({results}) {{\n{text}\n  }}")
    return sym


def _rounds_body(fn, args):
    """closed_call(i, x0, x1, ks_a, ks_b, ks_c, rot, rot_next): four rounds, one key
    injection; returns the state with the key words and rotation tables rotated."""
    i, x0, x1, ka, kb, kc, rot, rot_next = args
    x_aval, u32 = x0.aval, ShapedArray((), _U32)
    one = fn.const(np.int32(1), ShapedArray((), _I32))
    i_next = fn.op1("stablehlo.add", [i, one], i.aval)
    for j in range(4):
        r = fn.op1("stablehlo.slice", [rot], ShapedArray((1,), _U32),
                   f"start_indices = array<i64: {j}>, limit_indices = array<i64: {j + 1}>, "
                   "strides = array<i64: 1>")
        r = fn.op1("stablehlo.reshape", [r], u32)
        x0 = fn.op1("stablehlo.add", [x0, x1], x_aval)
        left = fn.op1("stablehlo.shift_left", [x1, _bcast(fn, r, x_aval)], x_aval)
        back = fn.op1("stablehlo.subtract", [fn.const(np.uint32(32), u32), r], u32)
        right = fn.op1("stablehlo.shift_right_logical", [x1, _bcast(fn, back, x_aval)],
                       x_aval)
        x1 = fn.op1("stablehlo.xor", [x0, fn.op1("stablehlo.or", [left, right], x_aval)],
                    x_aval)
    x0 = fn.op1("stablehlo.add", [x0, _bcast(fn, ka, x_aval)], x_aval)
    x1 = fn.op1("stablehlo.add", [x1, _bcast(fn, kb, x_aval)], x_aval)
    step = fn.op1("stablehlo.convert", [fn.op1("stablehlo.add", [i, one], i.aval)], u32)
    x1 = fn.op1("stablehlo.add", [x1, _bcast(fn, step, x_aval)], x_aval)
    return [i_next, x0, x1, kb, kc, ka, rot_next, rot]


def _threefry_func(module, k_avals, x_aval) -> str:
    key = ("threefry2x32", tuple(k_avals), x_aval)
    sym = module.cache.get(key)
    if sym is None:
        i32 = ShapedArray((), _I32)
        rounds = _emit_func(module, "closed_call",
                            [i32, x_aval, x_aval, *k_avals, k_avals[0], ShapedArray((4,), _U32),
                             ShapedArray((4,), _U32)], _rounds_body)
        sym = module.cache[key] = _emit_func(
            module, "threefry2x32", [*k_avals, x_aval, x_aval],
            lambda fn, args: _threefry_body(fn, args, rounds))
    return sym


def _threefry_body(fn, args, rounds: str):
    k0, k1, x0, x1 = args
    x_aval, k_aval = x0.aval, k0.aval
    rots = [fn.const(np.array(r, _U32), ShapedArray((4,), _U32)) for r in _ROTATIONS]
    k2 = fn.op1("stablehlo.xor", [fn.op1("stablehlo.xor", [k0, k1], k_aval),
                                  fn.const(np.uint32(_PARITY), k_aval)], k_aval)
    x0 = fn.op1("stablehlo.add", [x0, _bcast(fn, k0, x_aval)], x_aval)
    x1 = fn.op1("stablehlo.add", [x1, _bcast(fn, k1, x_aval)], x_aval)
    i32 = ShapedArray((), _I32)
    zero_i, zero_n = fn.const(np.int32(0), i32), fn.const(np.int32(0), i32)
    carry = [zero_n, zero_i, x0, x1, k1, k2, k0, *rots]
    avals = [c.aval for c in carry]

    def cond(b, a):
        five = b.const(np.int32(5), i32)
        return [lowering.compare_op(b, a[0], five, "LT", ShapedArray((), np.bool_), "SIGNED")]

    def body(b, a):
        outs = b.op("func.call", a[1:], avals[1:], f"callee = @{rounds}")
        return [b.op1("stablehlo.add", [a[0], b.const(np.int32(1), i32)], i32), *outs]

    res = fn.op("stablehlo.while", carry, avals, regions=[fn.region(avals, cond),
                                                          fn.region(avals, body)])
    return [res[2], res[3]]


def _threefry_lower(ctx, k1, k2, x1, x2):
    fn, aval = ctx.fn, ctx.avals_out[0]
    # Keys stay scalars when they are; anything else is broadcast to the output shape.
    keys = [k if k.aval.shape in ((), tuple(aval.shape)) and k1.aval.shape == k2.aval.shape
            else lowering.broadcast_to(fn, k, aval) for k in (k1, k2)]
    if keys[0].aval.shape != keys[1].aval.shape:
        keys = [lowering.broadcast_to(fn, k, aval) for k in keys]
    xs = [lowering.broadcast_to(fn, x, aval) for x in (x1, x2)]
    sym = _threefry_func(ctx.module, [k.aval for k in keys], ShapedArray(aval.shape, _U32))
    return lowering.call_function(ctx, sym, [*keys, *xs], [aval, aval])


def _threefry_batch(axis_data, vals, dims):
    outs, out_dim = batching.broadcast_batcher(threefry2x32_p, axis_data, vals, dims)
    return outs, [out_dim, out_dim]


threefry2x32_p = def_primitive(
    "threefry2x32", abstract_eval=_threefry_abstract_eval, impl=_threefry_impl,
    jvp=ZERO_JVP, transpose=NONLINEAR, batch=_threefry_batch, lower=_threefry_lower,
    multiple_results=True)


# ----------------------------------------------------------------------------------------
# iota_2x32_shape
# ----------------------------------------------------------------------------------------


def _iota_2x32_abstract_eval(*, shape):
    return [ShapedArray(shape, _U32)] * 2


def _iota_2x32_impl(*, shape):
    counts = np.arange(math.prod(shape), dtype=np.uint64).reshape(shape)
    return [(counts >> np.uint64(32)).astype(_U32), counts.astype(_U32)]


def _iota_2x32_lower(ctx, *, shape):
    """Sum of per-dimension uint64 iotas times their row-major strides, as JAX lowers it."""
    fn, out = ctx.fn, ctx.avals_out[0]
    u64 = ShapedArray(shape, np.uint64)
    iotas = [fn.op1("stablehlo.iota", [], u64, f"iota_dimension = {d} : i64")
             for d in range(len(shape))]
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    terms = [fn.op1("stablehlo.multiply", [fn.const(np.uint64(s), u64), i], u64)
             for i, s in zip(iotas, strides)]
    counts = terms[0]
    for t in terms[1:]:
        counts = fn.op1("stablehlo.add", [counts, t], u64)
    shifted = fn.op1("stablehlo.shift_right_logical", [counts, fn.const(np.uint64(32), u64)],
                     u64)
    lo = fn.op1("stablehlo.convert", [counts], out)
    return [fn.op1("stablehlo.convert", [shifted], out), lo]


iota_2x32_shape_p = def_primitive(
    "iota_2x32_shape", abstract_eval=_iota_2x32_abstract_eval, impl=_iota_2x32_impl,
    jvp=ZERO_JVP, transpose=NONLINEAR, multiple_results=True, lower=_iota_2x32_lower,
    batch=unsupported("iota_2x32_shape has no operands, so it is never batched"))


def iota_2x32_shape(shape: tuple[int, ...]):
    """(hi, lo) uint32 halves of a row-major uint64 iota over `shape`."""
    if not shape:
        zero = lax.full((), 0, _U32)
        return zero, zero
    return iota_2x32_shape_p.bind(shape=tuple(shape))


# ----------------------------------------------------------------------------------------
# The threefry PRNG on physical key data (uint32[*batch, 2])
# ----------------------------------------------------------------------------------------


def _keypair(base):
    """The two uint32 words of every key: (k1, k2), each of the batch shape."""
    axis = np.ndim(base) - 1
    return (shapes.index_in_dim(base, 0, axis, keepdims=False),
            shapes.index_in_dim(base, 1, axis, keepdims=False))


def _threefry_over(base, shape):
    """threefry2x32 of every key against the counter over `shape`: two uint32 arrays of
    shape (*batch, *shape)."""
    k1, k2 = _keypair(base)
    batch = np.shape(k1)
    hi, lo = iota_2x32_shape(tuple(shape))
    if not batch:  # one key: scalar key words against the counters, as JAX binds it
        return threefry2x32_p.bind(k1, k2, hi, lo)
    full = (*batch, *shape)
    key_dims, count_dims = tuple(range(len(batch))), tuple(range(len(batch), len(full)))
    return threefry2x32_p.bind(
        *(shapes.broadcast_in_dim(k, full, key_dims) for k in (k1, k2)),
        *(shapes.broadcast_in_dim(c, full, count_dims) for c in (hi, lo)))


def _stack_last(a, b):
    shape = (*np.shape(a), 1)
    dims = tuple(range(np.ndim(a)))
    return shapes.concatenate([shapes.broadcast_in_dim(a, shape, dims),
                               shapes.broadcast_in_dim(b, shape, dims)], np.ndim(a))


def threefry_seed(seeds):
    """Key data for integer seeds (any shape): hi and lo 32-bit words of each seed."""
    dt = core.get_aval(seeds).dtype
    if not dtypes.is_int(dt):
        raise TypeError(f"PRNG key seed must be an integer; got {seeds!r}")
    hi = lax.convert_element_type(
        lax.shift_right_logical(seeds, lax.full((), 32, dt)), _U32)
    lo = lax.convert_element_type(seeds, _U32)  # == seed & 0xFFFFFFFF
    return _stack_last(hi, lo)


def threefry_split(base, shape: tuple[int, ...]):
    """Key data (*batch, 2) -> (*batch, *shape, 2) of fresh keys."""
    if not config.jax_threefry_partitionable:
        batch = np.shape(base)[:-1]
        counts = shapes.iota(_U32, math.prod(shape) * 2)
        return shapes.reshape(_threefry_2x32(base, counts), (*batch, *shape, 2))
    b1, b2 = _threefry_over(base, shape)
    return _stack_last(b1, b2)


def _threefry_2x32(base, counts):
    """The original (non-partitionable) hash of a 1-D uint32 counter array: its halves are
    the two threefry inputs (padded with one 0 when odd). (*batch, 2) -> (*batch, n)."""
    k1, k2 = _keypair(base)
    batch, n = np.shape(k1), np.shape(counts)[0]
    odd = n % 2
    if odd:
        counts = shapes.concatenate([counts, lax.full((1,), 0, _U32)], 0)
    half = (n + odd) // 2
    full, nb = (*batch, half), len(batch)
    words = [shapes.broadcast_in_dim(k, full, tuple(range(nb))) for k in (k1, k2)]
    xs = [shapes.broadcast_in_dim(shapes.slice_in_dim(counts, i * half, (i + 1) * half),
                                  full, (nb,)) for i in (0, 1)]
    out = shapes.concatenate(list(threefry2x32_p.bind(*words, *xs)), nb)
    return shapes.slice_in_dim(out, 0, n, axis=nb) if odd else out


def _random_bits_original(base, bit_width: int, shape: tuple[int, ...]):
    """The non-partitionable bit stream: ceil(bits / 32) counters hashed, then cut into
    words of bit_width (little-end pieces first)."""
    batch, size = np.shape(base)[:-1], math.prod(shape)
    max_count = -(-bit_width * size // 32)
    if max_count >= np.iinfo(np.uint32).max:
        raise NotImplementedError("random bits arrays this large need the partitionable "
                                  "threefry (jax_threefry_partitionable=True)")
    bits = _threefry_2x32(base, shapes.iota(_U32, max_count))
    dtype, nb = UINT_DTYPES[bit_width], len(batch)
    if bit_width == 64:
        half = max_count // 2
        hi, lo = (lax.convert_element_type(shapes.slice_in_dim(bits, a, a + half, axis=nb),
                                           dtype) for a in (0, half))
        bits = lax.bitwise_or(lax.shift_left(hi, lax.full((), 32, core.get_aval(hi).dtype)),
                              lo)
    elif bit_width in (8, 16):
        per = 32 // bit_width
        pieces = shapes.broadcast_in_dim(bits, (*batch, max_count, per), tuple(range(nb + 1)))
        shifts = lax.mul(np.uint32(bit_width), shapes.broadcasted_iota(
            _U32, (*batch, max_count, per), nb + 1))
        pieces = lax.bitwise_and(lax.shift_right_logical(pieces, shifts),
                                 np.uint32(np.iinfo(dtype).max))
        bits = lax.convert_element_type(
            shapes.reshape(pieces, (*batch, max_count * per)), dtype)
        bits = shapes.slice_in_dim(bits, 0, size, axis=nb)
    return shapes.reshape(bits, (*batch, *shape))


def threefry_fold_in(base, msgs):
    """Key data (*batch, 2) and uint32 messages of the same batch shape -> new key data."""
    k1, k2 = _keypair(base)
    zero = lax.full((), 0, _U32)
    b1, b2 = threefry2x32_p.bind(k1, k2, shapes.broadcast_in_dim(zero, np.shape(msgs), ()),
                                 msgs)
    return _stack_last(b1, b2)


def threefry_random_bits(base, bit_width: int, shape: tuple[int, ...]):
    """Uniform bits: key data (*batch, 2) -> uint<bit_width>[*batch, *shape]."""
    if bit_width not in UINT_DTYPES:
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    if not config.jax_threefry_partitionable:
        return _random_bits_original(base, bit_width, shape)
    if math.prod(shape) > 2 ** 64:
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    b1, b2 = _threefry_over(base, shape)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        hi, lo = lax.convert_element_type(b1, dtype), lax.convert_element_type(b2, dtype)
        return lax.bitwise_or(lax.shift_left(hi, lax.full((), 32, core.get_aval(hi).dtype)),
                              lo)
    bits = lax.bitwise_xor(b1, b2)
    return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)


class PRNGImpl(NamedTuple):
    """A PRNG implementation: the shape of one key's uint32 data and its operations, each
    a function of physical key data with leading batch dimensions."""

    key_shape: tuple[int, ...]
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str = "<unnamed>"
    tag: str = "?"

    def __hash__(self) -> int:
        return hash(self.tag)

    def __str__(self) -> str:
        return self.tag


prngs: dict[str, PRNGImpl] = {}


def register_prng(impl: PRNGImpl) -> None:
    if impl.name in prngs:
        raise ValueError(f"PRNG with name {impl.name} already registered: {impl}")
    prngs[impl.name] = impl


threefry_prng_impl = PRNGImpl(
    key_shape=(2,), seed=threefry_seed, split=threefry_split,
    random_bits=threefry_random_bits, fold_in=threefry_fold_in,
    name="threefry2x32", tag="fry")
register_prng(threefry_prng_impl)


# ----------------------------------------------------------------------------------------
# Lowering through a traced physical function
# ----------------------------------------------------------------------------------------


def lower_physical(ctx, fun: Callable, in_avals: Sequence[ShapedArray], args,
                   multiple_results: bool):
    """Lowers `fun` (written in didax.lax, taking and returning physical arrays) inline:
    traced to a jaxpr over `in_avals`, whose equations are emitted into ctx's function."""
    args = [lowering.Value(v.name, a) for v, a in zip(args, in_avals)]

    def flat(*xs):
        out = fun(*xs)
        return list(out) if multiple_results else [out]

    with core.set_current_trace(core.eval_trace):
        closed = pe.trace_to_closed_jaxpr(flat, list(in_avals), "lowering")
    outs = lowering.lower_jaxpr_body(ctx.fn, closed.jaxpr, closed.consts, args, ctx.tokens)
    return outs if multiple_results else outs[0]
