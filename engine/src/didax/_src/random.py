"""`didax.random`: JAX 0.10's random API on threefry2x32 keys.

Keys are typed (`key(seed)`: dtype `key<fry>`) or legacy (`PRNGKey(seed)`: uint32[2]); every
function accepts both, wrapping legacy keys with `random_wrap` and unwrapping results as
JAX does. The samplers follow JAX's constructions step by step, so for the same key they
give the same bits — uniform from the top mantissa bits, normal by erf_inv, randint by two
words modulo the span, permutations by rounds of sorting on random keys, and so on.

May import everything below `random` in the layering (core, dtypes, config, lax, numpy,
prng, prng_keys).
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Hashable, Sequence

import numpy as np

from didax._src import core, dtypes
from didax._src.config import LegacyPrngKeyState, config
from didax._src.core import Tracer
from didax._src.lax import lax, reductions, shapes
from didax._src.lax.bitcast import bitcast_convert_type
from didax._src.numpy import indexing as np_indexing
from didax._src.numpy import lax_numpy
from didax._src.numpy import reductions as np_reductions
from didax._src.numpy import sorting as np_sorting
from didax._src.numpy import util as np_util
from didax._src.pjit import jit
from didax._src.prng import UINT_DTYPES, PRNGImpl, prngs
from didax._src.prng_keys import (
    KeyTy,
    random_bits,
    random_clone_p,
    random_fold_in,
    random_seed,
    random_split,
    random_unwrap,
    random_wrap,
)

Shape = Sequence[int]
_U32 = np.dtype("uint32")

# ----------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------


def _canonicalize_shape(shape) -> tuple[int, ...]:
    """A shape argument as a tuple of Python ints (a bare int means a 1-D shape)."""
    if isinstance(shape, (int, np.integer)):
        return (operator.index(shape),)
    try:
        return tuple(core.concrete_or_error(operator.index, d, "shape") for d in shape)
    except TypeError:
        pass
    raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                    f"got {shape}.")


def _broadcast_shapes(*shps) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shps))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shps)}") from None


def _check_shape(name: str, shape: tuple[int, ...], *param_shapes) -> None:
    if param_shapes:
        shape_ = _broadcast_shapes(shape, *param_shapes)
        if shape != shape_:
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, "
                "and the result of broadcasting the shapes must equal the shape argument, "
                f"but got result {shape_} for shape argument {shape}.")


def _float_dtype(name: str, dtype, kinds=np.floating, what="a float"):
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    if not dtypes.issubdtype(dtype, kinds):
        raise ValueError(f"dtype argument to `{name}` must be {what} dtype, got {dtype}")
    return dtype


def _dtype_of(x):
    return dtypes.dtype(x, canonicalize=True)


def _asarray(x, dtype=None):
    return lax_numpy.asarray(x, dtype)


def _const(like, value):
    return lax._const(like, value)


def _jit(**static):
    """JAX jits its samplers' bodies; so do we, which also makes them bit-exact with it
    (XLA's fusion, e.g. multiply-add contraction, and its transcendental functions)."""
    return lambda fun: jit(fun, **static)


# Eager sampling, flat and bucketed. With the partitionable threefry each element's bits
# depend only on its flat index, so a sample of shape (3, 3, 1, 4) is the first 36 elements
# of a flat sample of any larger size. Eagerly (no enclosing trace), the elementwise
# samplers draw a flat sample whose size is rounded up to a power of two, then cut and
# reshape it: parameter initialization (a handful of small shapes) compiles one program per
# sampler and dtype instead of one per shape, and a rank-1 program compiles 2-3x faster
# than a rank-4 one (XLA unrolls small dimensions). The values are the same bits.
_BUCKET_MIN, _BUCKET_MAX = 1024, 2 ** 20


def _flat_size(key, shape: tuple[int, ...], *scalars) -> int | None:
    """How many elements to draw flat for `shape` (None: sample the shape itself)."""
    if core.trace_ctx.trace is not core.eval_trace or isinstance(key, Tracer) \
            or key.dtype._impl.tag != "fry" or not config.jax_threefry_partitionable \
            or any(np.shape(a) != () or isinstance(a, Tracer) for a in scalars):
        return None
    n = math.prod(shape)
    if n == 0 or n > _BUCKET_MAX:
        return None if len(shape) == 1 or n == 0 else n
    return max(_BUCKET_MIN, 1 << (n - 1).bit_length())


def _unflatten(flat, shape: tuple[int, ...]):
    n = math.prod(shape)
    if np.shape(flat) != (n,):
        flat = shapes.slice(flat, (0,), (n,))
    return shapes.reshape(flat, shape)


# ----------------------------------------------------------------------------------------
# Keys
# ----------------------------------------------------------------------------------------


def _is_typed_key(x) -> bool:
    return isinstance(getattr(x, "dtype", None), KeyTy)


def _arraylike(x) -> bool:
    return (isinstance(x, (np.ndarray, Tracer)) or hasattr(x, "__jax_array__")
            or np_util.is_arraylike(x))


def _warn_or_fail_on_legacy_key() -> None:
    mode = config.jax_legacy_prng_key
    msg = ("Legacy uint32 key array passed as key to jax.random function. Please create keys "
           "using jax.random.key(). If use of a raw key array was intended, set "
           'jax_legacy_prng_key="allow".')
    if mode == LegacyPrngKeyState.ERROR:
        raise ValueError(msg)
    if mode == LegacyPrngKeyState.WARN:
        warnings.warn(msg, stacklevel=3)
    elif config.jax_enable_custom_prng:
        warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                      "Assuming valid threefry2x32 key for now.", FutureWarning, stacklevel=3)


def _check_prng_key(name: str, key, *, allow_batched: bool = False):
    """(typed key, whether it was a legacy key that we wrapped)."""
    if _is_typed_key(key):
        typed, wrapped = key, False
    elif _arraylike(key):
        typed, wrapped = random_wrap(key, impl=default_prng_impl()), True
        _warn_or_fail_on_legacy_key()
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and typed.ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{np.shape(key)} != (). Use jax.vmap for batching.")
    return typed, wrapped


def _return_prng_keys(was_wrapped: bool, keys):
    if config.jax_enable_custom_prng or not was_wrapped:
        return keys
    return random_unwrap(keys)


def default_prng_impl() -> PRNGImpl:
    """The PRNG implementation named by `jax_default_prng_impl`."""
    name = config.jax_default_prng_impl
    if name not in prngs:
        raise NotImplementedError(f"PRNG implementation {name!r} is not available in didax "
                                  f"(available: {', '.join(prngs)})")
    return prngs[name]


class PRNGSpec:
    """Names a PRNG key implementation."""

    __slots__ = ("_impl",)

    def __init__(self, impl: PRNGImpl):
        self._impl = impl

    def __repr__(self) -> str:
        return f"PRNGSpec({self._impl.name!r})"

    def __str__(self) -> str:
        return str(self._impl)

    def __hash__(self) -> int:
        return hash(self._impl)

    def __eq__(self, other) -> bool:
        return isinstance(other, PRNGSpec) and self._impl == other._impl


PRNGSpecDesc = str | PRNGSpec | PRNGImpl | Hashable
KeyDTypeLike = str | KeyTy


def resolve_prng_impl(impl_spec) -> PRNGImpl:
    if impl_spec is None:
        return default_prng_impl()
    if type(impl_spec) is PRNGImpl:
        return impl_spec
    if type(impl_spec) is PRNGSpec or isinstance(impl_spec, KeyTy):
        return impl_spec._impl
    if type(impl_spec) is str:
        if impl_spec in prngs:
            return prngs[impl_spec]
        names = ", ".join(f'"{s}"' for s in prngs)
        raise ValueError(f'unrecognized PRNG implementation "{impl_spec}". '
                         f"Did you mean one of: {names}?")
    raise TypeError(f"unrecognized type {type(impl_spec)} for specifying PRNG implementation.")


def key_dtype(impl_spec=None) -> KeyTy:
    """The key dtype of a PRNG implementation (`key<fry>` by default)."""
    return KeyTy(resolve_prng_impl(impl_spec))


def _key(ctor_name: str, seed, impl_spec):
    impl = resolve_prng_impl(impl_spec)
    if _is_typed_key(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (). Use jax.vmap for batching")
    # Python ints go through int64 first, so large seeds wrap instead of overflowing.
    seeds = _asarray(np.int64(seed) if isinstance(seed, int) else seed)
    if not dtypes.is_int(core.get_aval(seeds).dtype):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    return random_seed(seeds, impl=impl)


def key(seed, *, impl=None, dtype=None):
    """A typed PRNG key (dtype `key<fry>`, shape ()) from an integer seed."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                             "jax.random.key")
        impl = dtype
    return _key("key", seed, impl)


def PRNGKey(seed, *, impl=None):  # noqa: N802 - JAX's name
    """A legacy PRNG key: the uint32[2] key data of `key(seed)`."""
    return _return_prng_keys(True, _key("PRNGKey", seed, impl))


def fold_in(key, data):
    """A new key folding the 32-bit integer `data` into `key`."""
    key, wrapped = _check_prng_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array ofshape "
                        f"{np.shape(data)} != (). Use jax.vmap for batching.")
    # NumPy raises JAX's OverflowError for Python ints outside uint32.
    msgs = np.uint32(data) if isinstance(data, int) else _asarray(data, _U32)
    return _return_prng_keys(wrapped, random_fold_in(key, msgs))


def _split(key, num: int | Sequence[int] = 2):
    if key.ndim:
        raise TypeError("split accepts a single key, but was given a key array of shape "
                        f"{key.shape} != (). Use jax.vmap for batching.")
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    shape = tuple(core.concrete_or_error(operator.index, d, "split num") for d in shape)
    return random_split(key, shape=shape)


def split(key, num: int | Sequence[int] = 2):
    """`num` new keys (or an array of keys of shape `num`) derived from `key`."""
    typed, wrapped = _check_prng_key("split", key)
    return _return_prng_keys(wrapped, _split(typed, num))


def clone(key):
    """A copy of key, for deliberate reuse (the identity on values)."""
    return random_clone_p.bind(key)


def key_impl(keys) -> str | PRNGSpec:
    keys, _ = _check_prng_key("key_impl", keys, allow_batched=True)
    impl = keys.dtype._impl
    return impl.name if impl.name in prngs else PRNGSpec(impl)


def key_data(keys):
    """The uint32 key data underlying an array of keys."""
    keys, _ = _check_prng_key("key_data", keys, allow_batched=True)
    return random_unwrap(keys)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys whose key data is `key_bits_array` (uint32[..., 2] for threefry)."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                             "jax.random.wrap_key_data")
        impl = dtype
    return random_wrap(key_bits_array, impl=resolve_prng_impl(impl))


# ----------------------------------------------------------------------------------------
# Bits and uniform samplers
# ----------------------------------------------------------------------------------------


def bits(key, shape: Shape = (), dtype=None):
    """Uniform random bits as unsigned integers (uint32, or uint64 with x64)."""
    key, _ = _check_prng_key("bits", key)
    if dtype is None:
        dtype = dtypes.default_uint_dtype()
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.unsignedinteger):
        raise ValueError("dtype argument to `bits` must be an unsigned int dtype, got "
                         f"{dtype}")
    return random_bits(key, dtype.itemsize * 8, _canonicalize_shape(shape))


def uniform(key, shape: Shape = (), dtype=None, minval=0.0, maxval=1.0, *,
            out_sharding=None):
    """Uniform floats in [minval, maxval); laid out by out_sharding when given."""
    key, _ = _check_prng_key("uniform", key)
    dtype = _float_dtype("uniform", dtype)
    shape = _canonicalize_shape(shape)
    flat = _flat_size(key, shape, minval, maxval)
    if flat is not None:
        return _laid_out(_unflatten(_uniform(key, minval, maxval, (flat,), dtype), shape),
                         out_sharding)
    return _laid_out(_uniform(key, minval, maxval, shape, dtype), out_sharding)


@_jit(static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape: tuple[int, ...], dtype):
    _check_shape("uniform", shape)
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval = shapes.broadcast_to_rank(minval, len(shape))
    maxval = shapes.broadcast_to_rank(maxval, len(shape))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypesgot {dtype}.")
    rng_bits = 8 if nmant < 8 else nbits
    raw = random_bits(key, rng_bits, shape)
    uint_dtype = UINT_DTYPES[nbits]
    if rng_bits != nbits:
        raw = lax.convert_element_type(raw, uint_dtype)
    # Keep the top nmant random bits as the mantissa of a float in [1, 2).
    mantissa = lax.shift_right_logical(raw, np.array(rng_bits - nmant, uint_dtype)[()])
    one_bits = np.array(1.0, dtype).view(uint_dtype)[()]
    floats = bitcast_convert_type(lax.bitwise_or(mantissa, one_bits), dtype)
    floats = floats - np.array(1.0, dtype)[()]
    return lax.max(minval, shapes.reshape(floats * (maxval - minval) + minval, shape))


def _convert_and_clip_integer(val, dtype):
    """val converted to the integer dtype, saturating at its range instead of wrapping."""
    val_dtype = core.get_aval(val).dtype
    lo = _const(val, max(dtypes.iinfo(dtype).min, dtypes.iinfo(val_dtype).min))
    hi = _const(val, min(dtypes.iinfo(dtype).max, dtypes.iinfo(val_dtype).max))
    return lax_numpy.astype(lax_numpy.clip(val, lo, hi), dtype)


def randint(key, shape: Shape, minval, maxval, dtype=None):
    """Uniform integers in [minval, maxval)."""
    key, _ = _check_prng_key("randint", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    shape = _canonicalize_shape(shape)
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = dtypes.iinfo(dtype)
    sample_dtype = dtype
    if info.bits < 32:  # sample at 32 bits, then narrow
        sample_dtype = np.dtype("int32")
        minval = lax_numpy.clip(lax_numpy.astype(_asarray(minval), sample_dtype),
                                int(info.min), int(info.max))
        maxval = lax_numpy.clip(lax_numpy.astype(_asarray(maxval), sample_dtype),
                                int(info.min), int(info.max) + 1)
    return lax_numpy.astype(_randint(key, minval, maxval, shape, sample_dtype), dtype)


def _integer_bound(x):
    x = _asarray(x)
    if not dtypes.issubdtype(core.get_aval(x).dtype, np.integer):
        x = lax_numpy.astype(x, int)
    return x


@_jit(static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    _check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    np_util.check_arraylike("randint", minval, maxval)
    minval, maxval = _integer_bound(minval), _integer_bound(maxval)
    top = _convert_and_clip_integer(np.array(dtypes.iinfo(dtype).max, dtype),
                                    core.get_aval(maxval).dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = _convert_and_clip_integer(minval, dtype)
    maxval = _convert_and_clip_integer(maxval, dtype)
    minval = shapes.broadcast_to_rank(minval, len(shape))
    maxval = shapes.broadcast_to_rank(maxval, len(shape))
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = _split(key)
    higher_bits, lower_bits = random_bits(k1, nbits, shape), random_bits(k2, nbits, shape)
    unsigned = UINT_DTYPES[nbits]
    span = lax.convert_element_type(maxval - minval, unsigned)
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)
    span = lax.select(maxval_out_of_range & (maxval > minval),
                      lax.add(span, _const(span, 1)), span)
    # (hi * 2**nbits + lo) mod span, computed without overflowing nbits.
    multiplier = lax.rem(_const(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier),
                     lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


# ----------------------------------------------------------------------------------------
# Permutations and choice
# ----------------------------------------------------------------------------------------


def _arange(n: int):
    return shapes.iota(dtypes.default_int_dtype(), n)




@_jit(static_argnums=(2,))
def _shuffle(key, x, axis: int):
    """Rounds of stable sorting along `axis` by fresh random 32-bit keys; enough rounds
    that ties are unlikely to leave any bias."""
    exponent = 3
    size = math.prod(np.shape(x))
    num_rounds = int(np.ceil(exponent * np.log(max(1, size)) /
                             np.log(np.iinfo(np.uint32).max)))
    for _ in range(num_rounds):
        key, subkey = _split(key)
        sort_keys = random_bits(subkey, 32, np.shape(x))
        _, x = reductions.sort_key_val(sort_keys, x, axis)
    return x


def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of arange(x), or of x along `axis`."""
    key, _ = _check_prng_key("permutation", key)
    np_util.check_arraylike("permutation", x)
    axis = shapes.canonicalize_axis(axis, np.ndim(x) or 1)
    if not np.ndim(x):
        if not dtypes.issubdtype(_dtype_of(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = core.concrete_or_error(int, x, "argument x of jax.random.permutation()")
        return _shuffle(key, _arange(r), axis)
    x = _asarray(x)
    if independent or np.ndim(x) == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, _arange(np.shape(x)[axis]), 0)
    return np_indexing.take(x, ind, axis, unique_indices=True)


def _top_k_indices(x, k: int):
    """Indices of the k largest entries along the last axis (ties: lower index first)."""
    n = np.shape(x)[-1]
    idx = shapes.broadcasted_iota(np.int32, np.shape(x), np.ndim(x) - 1)
    _, order = reductions.sort_key_val(lax.neg(x), idx, np.ndim(x) - 1)
    return shapes.slice_in_dim(order, 0, k, axis=np.ndim(x) - 1) if k < n else order


def choice(key, a, shape: Shape = (), replace: bool = True, p=None, axis: int = 0,
           mode: str | None = None):
    """Random samples from `a` (or arange(a)), optionally weighted by `p`."""
    key, _ = _check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    np_util.check_arraylike("choice", a)
    arr = _asarray(a)
    if arr.ndim == 0:
        n_inputs = core.concrete_or_error(int, a, "The error occurred in jax.random.choice()")
    else:
        axis = shapes.canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    shape = _canonicalize_shape(shape)
    n_draws = math.prod(shape)
    if n_draws == 0:
        return lax.full(shape, 0, arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    ind = _choice_indices(key, arr, n_inputs, n_draws, shape, replace, p, axis, mode)
    result = ind if arr.ndim == 0 else np_indexing.take(arr, ind, axis)
    out_shape = shape if arr.ndim == 0 else (*arr.shape[:axis], *shape, *arr.shape[axis + 1:])
    return shapes.reshape(result, out_shape)


def _choice_indices(key, arr, n_inputs, n_draws, shape, replace, p, axis, mode):
    if p is None:
        if replace:
            return randint(key, shape, 0, n_inputs)
        perm = permutation(key, n_inputs, 0)
        return shapes.slice_in_dim(perm, 0, n_draws, axis=0)
    np_util.check_arraylike("choice", p)
    (p_arr,) = np_util.promote_dtypes_inexact(p)
    if p_arr.shape != (n_inputs,):
        raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                         f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
    if replace:
        p_cuml = np_reductions.cumsum(p_arr)
        r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
        return lax_numpy.astype(np_sorting.searchsorted(p_cuml, r), int)
    g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + lax.log(p_arr)
    return lax.convert_element_type(_top_k_indices(g, n_draws), dtypes.default_int_dtype())


# ----------------------------------------------------------------------------------------
# Continuous samplers (see random_extra for the rest)
# ----------------------------------------------------------------------------------------


def normal(key, shape: Shape = (), dtype=None, *, out_sharding=None):
    """Standard normal samples (complex dtypes: independent real and imaginary parts of
    variance 1/2); laid out by out_sharding when given (the same values)."""
    key, _ = _check_prng_key("normal", key)
    shape = _canonicalize_shape(shape)
    dtype = _float_dtype("normal", dtype, np.inexact, "a float or complex")
    flat = _flat_size(key, shape)
    if flat is not None:
        return _laid_out(_unflatten(_normal(key, (flat,), dtype), shape), out_sharding)
    return _laid_out(_normal(key, shape, dtype), out_sharding)


def _laid_out(x, out_sharding):
    if out_sharding is None:
        return x
    from didax._src.lax.sharding_constraint import with_sharding_constraint  # noqa: PLC0415

    return with_sharding_constraint(x, out_sharding)


@_jit(static_argnums=(1, 2))
def _normal(key, shape, dtype):
    if dtypes.is_complex(dtype):
        sqrt2 = np.array(np.sqrt(2), dtype)[()]
        key_re, key_im = _split(key)
        real_dtype = np.array(0, dtype).real.dtype
        re = lax.convert_element_type(_normal_real(key_re, shape, real_dtype), dtype)
        im = lax.convert_element_type(_normal_real(key_im, shape, real_dtype), dtype)
        return (re + 1j * im) / sqrt2
    return _normal_real(key, shape, dtype)


@_jit(static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    _check_shape("normal", shape)
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = uniform(key, shape, dtype, lo, np.array(1.0, dtype))
    return lax.mul(np.array(np.sqrt(2), dtype)[()], lax.erf_inv(u))


def truncated_normal(key, lower, upper, shape: Shape | None = None, dtype=None):
    """Standard normal samples conditioned on lying in (lower, upper)."""
    if shape is not None:
        shape = _canonicalize_shape(shape)
    key, _ = _check_prng_key("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    flat = None if shape is None else _flat_size(key, shape, lower, upper)
    if flat is not None:
        return _unflatten(_truncated_normal(key, lower, upper, (flat,), dtype), shape)
    return _truncated_normal(key, lower, upper, shape, dtype)


@_jit(static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    if shape is None:
        shape = _broadcast_shapes(np.shape(lower), np.shape(upper))
    else:
        _check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)[()]
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a, b = lax.erf(lower / sqrt2), lax.erf(upper / sqrt2)
    u = uniform(key, shape, dtype, minval=a, maxval=b)
    out = sqrt2 * lax.erf_inv(u)
    # Keep rounding from pushing samples onto (or past) the bounds.
    lo = lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype)[()])
    hi = lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype)[()])
    return _clip(out, lo, hi)


def _clip(x, lo, hi):
    return lax_numpy.clip(x, lo, hi)


def bernoulli(key, p=0.5, shape: Shape | None = None, mode: str = "low"):
    """Booleans that are True with probability p."""
    if shape is not None:
        shape = _canonicalize_shape(shape)
    if mode not in ("high", "low"):
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    key, _ = _check_prng_key("bernoulli", key)
    dtype = _dtype_of(p)
    if not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    return _bernoulli(key, lax.convert_element_type(p, dtype), shape=shape, mode=mode)


@_jit(static_argnames=("shape", "mode"))
def _bernoulli(key, p, shape, mode):
    dtype = core.get_aval(p).dtype
    if shape is None:
        shape = np.shape(p)
    else:
        _check_shape("bernoulli", shape, np.shape(p))
    if mode == "high":
        u1, u2 = uniform(key, (2, *shape), dtype)
        u2 = u2 * (2 ** -dtypes.finfo(dtype).nmant)
        return u2 < p - u1
    return uniform(key, shape, dtype) < p


def _simple(name: str, key, shape, dtype):
    """Checks shared by the samplers taking (key, shape, dtype)."""
    key, _ = _check_prng_key(name, key)
    dtype = _float_dtype(name, dtype)
    return key, _canonicalize_shape(shape), dtype


def exponential(key, shape: Shape = (), dtype=None):
    """Exponential(1) samples."""
    return _exponential(*_simple("exponential", key, shape, dtype))


@_jit(static_argnums=(1, 2))
def _exponential(key, shape, dtype):
    u = uniform(key, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))  # log of 1 - u, in (0, 1]


def laplace(key, shape: Shape = (), dtype=None):
    """Laplace(0, 1) samples."""
    return _laplace(*_simple("laplace", key, shape, dtype))


@_jit(static_argnums=(1, 2))
def _laplace(key, shape, dtype):
    u = uniform(key, shape, dtype, minval=-1.0 + dtypes.finfo(dtype).epsneg, maxval=1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def logistic(key, shape: Shape = (), dtype=None):
    """Standard logistic samples."""
    return _logistic(*_simple("logistic", key, shape, dtype))


@_jit(static_argnums=(1, 2))
def _logistic(key, shape, dtype):
    x = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).tiny, maxval=1.0)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def cauchy(key, shape: Shape = (), dtype=None):
    """Standard Cauchy samples."""
    return _cauchy(*_simple("cauchy", key, shape, dtype))


@_jit(static_argnums=(1, 2))
def _cauchy(key, shape, dtype):
    u = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).eps, maxval=1.0)
    return lax.tan(lax.mul(_const(u, np.pi), lax.sub(u, _const(u, 0.5))))


def gumbel(key, shape: Shape = (), dtype=None, mode: str | None = None):
    """Standard Gumbel samples; mode "high"/"highest" spend more bits on the tail."""
    key, shape, dtype = _simple("gumbel", key, shape, dtype)
    if mode is None:
        mode = "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel(key, shape, dtype, mode)


@_jit(static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    info = dtypes.finfo(dtype)
    if dtype == np.float32 and mode == "highest":
        return _gumbel_highest(key, shape)
    if mode in ("high", "highest"):
        high, low = _uniform(key, minval=0.0, maxval=1.0, shape=(2, *shape), dtype=dtype)
        x = lax.select(high >= 0.5, high, high + 2 ** -info.nmant * low + info.tiny)
        return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
    u = _uniform(key, minval=info.tiny, maxval=1.0, shape=shape, dtype=dtype)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def _gumbel_highest(key, shape):
    nbits = 32
    raw = random_bits(key, nbits, (2, *shape))
    neg = lax.bitwise_not(raw)
    lo_bits = shapes.index_in_dim(neg, 1, 0, keepdims=False)
    carry = lax.convert_element_type(lax.eq(lo_bits, np.uint32(2 ** nbits - 1)), _U32)
    neg = neg + shapes.concatenate([shapes.expand_dims(carry, (0,)),
                                    lax.full((1, *shape), 1, _U32)], 0)  # 1 - u, fixed point
    first = shapes.index_in_dim(raw, 0, 0, keepdims=False)
    flip = lax.lt(first, np.uint32(1 << (nbits - 1)))
    chosen = lax.select(shapes.broadcast_in_dim(flip, (2, *shape), tuple(range(1, 1 + len(shape)))),
                        raw, neg)
    x = _safe_int_to_float(chosen)
    small = lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
    large = lax.neg(lax.log(lax.neg(lax.log(x))))
    return lax.select(flip, small, large)


def _safe_int_to_float(raw):
    """u32[2, ...] 64-bit fixed-point fractions -> f32 in (0, 1), keeping every leading bit."""
    finfo = dtypes.finfo(np.float32)
    hi, lo = (shapes.index_in_dim(raw, i, 0, keepdims=False) for i in (0, 1))
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    all_zero = lax.eq(hiclz, np.uint32(32))
    mantissa = lax.bitwise_or(
        lax.shift_left(hi, hiclz),
        lax.select(all_zero, lax.shift_left(lo, loclz),
                   lax.shift_right_logical(lo, np.uint32(finfo.bits) - hiclz)))
    mantissa = lax.shift_right_logical(mantissa, np.uint32(finfo.bits - finfo.nmant - 1))
    mantissa = lax.bitwise_and(mantissa, np.uint32((1 << finfo.nmant) - 1))
    lead = lax.select(all_zero, np.uint32(32) + loclz, hiclz)
    exp = lax.shift_left(np.uint32(-finfo.minexp) - lead, np.uint32(finfo.nmant))
    exp = lax.bitwise_and(exp, np.uint32((1 << (finfo.bits - 2)) - (1 << (finfo.nmant - 1))))
    return bitcast_convert_type(lax.bitwise_or(exp, mantissa), np.float32)


def categorical(key, logits, axis: int = -1, shape: Shape | None = None,
                replace: bool = True, mode: str | None = None):
    """Samples from categorical distributions given by unnormalized log-probabilities."""
    key, _ = _check_prng_key("categorical", key)
    np_util.check_arraylike("categorical", logits)
    logits = _asarray(logits)
    ndim = logits.ndim
    batch_shape = tuple(np.delete(logits.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = _canonicalize_shape(shape)
        _check_shape("categorical", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        ax = axis - ndim if axis >= 0 else axis
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(ax % ndim, logits.shape[ax])
        g = gumbel(key, (*prefix, *logits_shape), logits.dtype, mode=mode)
        scores = g + (shapes.expand_dims(logits, tuple(range(len(prefix)))) if prefix
                      else logits)
        return reductions.argmax(scores, (len(prefix) + ndim + ax) % scores.ndim,
                                 dtypes.default_int_dtype())
    return _categorical_no_replace(key, logits, axis, shape, batch_shape, prefix, mode)


def _categorical_no_replace(key, logits, axis, shape, batch_shape, prefix, mode):
    logits = logits + gumbel(key, logits.shape, logits.dtype, mode=mode)
    k = math.prod(prefix)
    axis = shapes.canonicalize_axis(axis, logits.ndim)
    if k > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number "
                         f"of categories ({logits.shape[axis]}).")
    perm = (*(d for d in range(logits.ndim) if d != axis), axis)
    indices = _top_k_indices(shapes.transpose(logits, perm), k)
    indices = lax.convert_element_type(indices, dtypes.default_int_dtype())
    nd = indices.ndim
    return shapes.reshape(indices, shape, (nd - 1, *range(nd - 1)))



# Importing real JAX draws five numbers from numpy's global generator (retry jitter in
# jax/_src/clusters/k8s_cluster.py), so a program that seeds numpy before `import jax`
# sees the stream five draws on; draw them too, so such a program's numbers match.
np.random.rand(5)
