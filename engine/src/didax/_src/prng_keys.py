"""Typed PRNG keys after JAX 0.10's design.

- `KeyTy`: the extended dtype of keys, printed `key<fry>` (its `_rules` say how a key maps
  to physical uint32 data); `physical_aval` maps key avals to their physical avals.
- `PRNGKeyArray`: a concrete array of keys overlaying a uint32 Array of key data (shape
  `(*keys_shape, *impl.key_shape)`), printing as JAX prints it.
- The key primitives, staged as JAX stages them: `random_seed`, `random_wrap`,
  `random_unwrap`, `random_split`, `random_fold_in`, `random_bits`, `random_clone` — each
  with an eager impl on key data, a lowering through its traced physical function,
  batching and zero JVPs.
- Extended-dtype rules for the structural primitives (broadcast_in_dim, reshape, squeeze,
  transpose, rev, slice, concatenate, split, dynamic_slice, dynamic_update_slice,
  select_n, gather): applied to key arrays they act on the key data (eagerly and when
  lowered).

May import core, dtypes, array, the interpreters, didax.lax and prng.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import ShapedArray, get_aval
from didax._src.interpreters import batching, lowering
from didax._src.lax import lax, reductions, shapes, slicing
from didax._src.lax._define import NONLINEAR, ZERO_JVP, broadcast_shapes_rule, def_primitive
from didax._src.prng import UINT_DTYPES, PRNGImpl, lower_physical

_U32 = np.dtype("uint32")

# ----------------------------------------------------------------------------------------
# The key dtype
# ----------------------------------------------------------------------------------------


class KeyTyRules:
    """How keys of a KeyTy map to physical data, and what their tangents are."""

    allow_conversion = False

    @staticmethod
    def physical_element_aval(dtype: KeyTy) -> ShapedArray:
        return ShapedArray(dtype._impl.key_shape, _U32)

    @staticmethod
    def tangent_dtype(_):
        return dtypes.float0

    @staticmethod
    def physical_const(val: PRNGKeyArray) -> Array:
        return val._base_array

    @staticmethod
    def from_physical(aval: ShapedArray, data) -> PRNGKeyArray:
        """The key array of type `aval` whose key data is `data`."""
        return PRNGKeyArray(aval.dtype._impl, data)


class KeyTy(dtypes.ExtendedDType):
    """The dtype of keys of one PRNG implementation (`key<fry>` for threefry2x32)."""

    type = dtypes.prng_key
    _rules = KeyTyRules

    def __init__(self, impl: PRNGImpl):
        self._impl = impl

    @property
    def name(self) -> str:
        return f"key<{self._impl.tag}>"

    @property
    def itemsize(self) -> int:
        return math.prod(self._impl.key_shape) * _U32.itemsize

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return type(other) is KeyTy and self._impl == other._impl

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((KeyTy, self._impl))


def is_key_aval(aval) -> bool:
    return isinstance(getattr(aval, "dtype", None), KeyTy)


def physical_aval(aval):
    """Keys become their uint32 data; other avals are unchanged."""
    dt = getattr(aval, "dtype", None)
    if not isinstance(dt, dtypes.ExtendedDType):
        return aval
    elem = dt._rules.physical_element_aval(dt)
    return ShapedArray((*aval.shape, *elem.shape), elem.dtype)


def key_shape_of(aval) -> tuple[int, ...]:
    return aval.dtype._impl.key_shape


# ----------------------------------------------------------------------------------------
# Key arrays
# ----------------------------------------------------------------------------------------


def check_key_data(impl: PRNGImpl, key_data) -> None:
    """JAX's checks that key_data can be the physical data of `impl` keys."""
    if not all(hasattr(key_data, a) for a in ("ndim", "shape", "dtype")):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data to have "
                        f"ndim, shape, and dtype attributes. Got {key_data}")
    nd = len(impl.key_shape)
    if key_data.ndim < 1:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; "
                        f"got ndim={key_data.ndim}")
    if tuple(key_data.shape[-nd:]) != impl.key_shape:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to "
                        f"end with {impl.key_shape}; got shape={key_data.shape} for "
                        f"{impl=}")
    if key_data.dtype not in (_U32, dtypes.float0):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = "
                        f"uint32; got dtype={key_data.dtype}")


_NO_NUMPY = ("JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
             "jax.random.key_data(arr) if you wish to extract the underlying integer array.")


class PRNGKeyArray(Array):
    """A concrete array of PRNG keys (dtype `key<impl>`), overlaying uint32 key data."""

    __slots__ = ("_impl", "_base_array")

    def __init__(self, impl: PRNGImpl, key_data):
        assert not isinstance(key_data, core.Tracer)
        check_key_data(impl, key_data)
        if not isinstance(key_data, Array):
            key_data = Array(np.asarray(key_data, _U32))
        self._impl = impl
        self._base_array = key_data
        self._npy = self._buf = self._device = None
        nd = len(impl.key_shape)
        self.aval = ShapedArray(key_data.shape[:-nd], KeyTy(impl))

    @property
    def _value(self):
        raise TypeError(_NO_NUMPY)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(_NO_NUMPY)

    def _device_buffer(self, device=None):
        return self._base_array._device_buffer(device)

    def __repr__(self):
        return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{self._base_array}"

    __str__ = __repr__

    def __format__(self, spec):
        return repr(self)

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (PRNGKeyArray(self._impl, k) for k in self._base_array)

    def __getitem__(self, idx):
        from didax._src.numpy import indexing  # noqa: PLC0415 - numpy sits above lax

        return indexing.getitem(self, idx)

    def __reduce__(self):
        return (PRNGKeyArray, (self._impl, self._base_array))

    def __eq__(self, other):
        return _keys_compare("equal", self, other, lax.eq, reductions.reduce_and)

    def __ne__(self, other):
        return _keys_compare("not_equal", self, other, lax.ne, reductions.reduce_or)

    __hash__ = None  # type: ignore[assignment]

    # Like JAX's key arrays, no conversions to Python scalars.
    def __int__(self):
        raise TypeError("int() argument must be a string, a bytes-like object or a real "
                        "number, not 'PRNGKeyArray'")

    def __float__(self):
        raise TypeError("float() argument must be a string or a real number, not "
                        "'PRNGKeyArray'")

    def __complex__(self):
        raise TypeError("complex() first argument must be a string or a number, not "
                        "'PRNGKeyArray'")

    def __index__(self):
        raise TypeError("'PRNGKeyArray' object cannot be interpreted as an integer")

    def item(self, *args):
        raise NotImplementedError("Cannot call abstract method item")

    def tolist(self):
        raise TypeError(_NO_NUMPY)

    def block_until_ready(self):
        self._base_array.block_until_ready()
        return self

    @property
    def device(self):
        return self._base_array.device

    def delete(self) -> None:
        self._base_array.delete()

    def is_deleted(self) -> bool:
        return self._base_array.is_deleted()

    def unsafe_buffer_pointer(self) -> int:
        return self._base_array.unsafe_buffer_pointer()

    def copy(self) -> PRNGKeyArray:
        return PRNGKeyArray(self._impl, self._base_array)

    # --- shape methods (the structural primitives act on key arrays)
    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return shapes.reshape(self, _resolve_shape(tuple(shape), self.size))

    def ravel(self, order="C"):
        return shapes.reshape(self, (self.size,))

    flatten = ravel

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        perm = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
        return shapes.transpose(self, tuple(a % self.ndim for a in perm))

    T = property(lambda self: self.transpose())

    def squeeze(self, axis=None):
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        return shapes.squeeze(self, (axis,) if isinstance(axis, int) else tuple(axis))

    def swapaxes(self, axis1: int, axis2: int):
        perm = list(range(self.ndim))
        a, b = axis1 % self.ndim, axis2 % self.ndim
        perm[a], perm[b] = perm[b], perm[a]
        return shapes.transpose(self, tuple(perm))


def _resolve_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    if shape.count(-1) == 1:
        rest = math.prod(d for d in shape if d != -1)
        shape = tuple(size // rest if rest and d == -1 else d for d in shape)
    return shape


def _keys_compare(name: str, a, b, cmp: Callable, reduce: Callable):
    """Elementwise key equality: all words of the key data compare equal."""
    b_dtype = getattr(b, "dtype", None) or dtypes.dtype(b, canonicalize=True)
    if b_dtype != a.dtype:
        raise TypeError(f"{name} does not accept dtypes {a.dtype}, {b_dtype}.")
    da, db = random_unwrap(a), random_unwrap(b)
    shape = np.broadcast_shapes(np.shape(da), np.shape(db))
    da, db = (shapes.broadcast_in_dim(d, shape, tuple(range(len(shape) - np.ndim(d),
                                                            len(shape)))) for d in (da, db))
    return reduce(cmp(da, db), (len(shape) - 1,))


# ----------------------------------------------------------------------------------------
# Key primitives
# ----------------------------------------------------------------------------------------


def _key_aval(impl: PRNGImpl, shape) -> ShapedArray:
    return ShapedArray(tuple(shape), KeyTy(impl))


def _eager(fun: Callable, *args, **params):
    with core.set_current_trace(core.eval_trace):
        return fun(*args, **params)


def _lowering(physical: Callable, multiple_results: bool = False) -> Callable:
    """A lowering rule running physical(ctx_avals_in, *physical_args, **params)."""

    def rule(ctx, *args, **params):
        fun = functools.partial(physical, ctx.avals_in, **params)
        return lower_physical(ctx, fun, [physical_aval(a) for a in ctx.avals_in], args,
                              multiple_results)
    return rule


def _identity_lowering(ctx, x, **params):
    return lowering.Value(x.name, physical_aval(ctx.avals_out[0]))


def _vectorized_key_batch(prim):
    def rule(axis_data, vals, dims, **params):
        return prim.bind(*vals, **params), dims[0]
    return rule


# --- random_seed
def _seed_abstract_eval(seeds, *, impl):
    return _key_aval(impl, seeds.shape)


random_seed_p = def_primitive(
    "random_seed", abstract_eval=_seed_abstract_eval, impl=None,
    eager_impl=lambda seeds, *, impl: PRNGKeyArray(impl, _eager(impl.seed, seeds)),
    jvp=ZERO_JVP, transpose=NONLINEAR, batch=None,
    lower=_lowering(lambda avals, seeds, *, impl: impl.seed(seeds)))
batching.primitive_batchers[random_seed_p] = _vectorized_key_batch(random_seed_p)


def random_seed(seeds, impl: PRNGImpl):
    return random_seed_p.bind(seeds, impl=impl)


# --- random_wrap / random_unwrap
def _wrap_abstract_eval(base, *, impl):
    check_key_data(impl, base)
    return _key_aval(impl, base.shape[:-len(impl.key_shape)])


def _wrap_batch(axis_data, vals, dims, *, impl):
    (x,), (d,) = vals, dims
    return random_wrap_p.bind(batching.moveaxis(x, d, 0), impl=impl), 0


random_wrap_p = def_primitive(
    "random_wrap", abstract_eval=_wrap_abstract_eval, impl=None,
    eager_impl=lambda base, *, impl: PRNGKeyArray(impl, base),
    jvp=ZERO_JVP, transpose=NONLINEAR, batch=_wrap_batch, lower=_identity_lowering)


def random_wrap(base, *, impl: PRNGImpl):
    check_key_data(impl, base)
    return random_wrap_p.bind(base, impl=impl)


def _unwrap_abstract_eval(keys):
    return physical_aval(keys)


random_unwrap_p = def_primitive(
    "random_unwrap", abstract_eval=_unwrap_abstract_eval, impl=None,
    eager_impl=lambda keys: keys._base_array, jvp=ZERO_JVP, transpose=NONLINEAR,
    batch=None, lower=_identity_lowering)
batching.primitive_batchers[random_unwrap_p] = _vectorized_key_batch(random_unwrap_p)


def random_unwrap(keys):
    dt = getattr(keys, "dtype", None)
    if not isinstance(dt, KeyTy):
        raise TypeError(f"random_unwrap takes key array operand, got keys.dtype={dt}")
    return random_unwrap_p.bind(keys)


# --- random_split
def _split_abstract_eval(keys, *, shape):
    return _key_aval(keys.dtype._impl, (*keys.shape, *shape))


random_split_p = def_primitive(
    "random_split", abstract_eval=_split_abstract_eval, impl=None,
    eager_impl=lambda keys, *, shape: PRNGKeyArray(
        keys._impl, _eager(keys._impl.split, keys._base_array, shape)),
    jvp=ZERO_JVP, transpose=NONLINEAR, batch=None,
    lower=_lowering(lambda avals, base, *, shape: avals[0].dtype._impl.split(base, shape)))
batching.primitive_batchers[random_split_p] = _vectorized_key_batch(random_split_p)


def random_split(keys, shape: tuple[int, ...]):
    return random_split_p.bind(keys, shape=tuple(shape))


# --- random_fold_in
def _fold_in_abstract_eval(keys, msgs):
    if msgs.dtype != _U32:
        raise TypeError(f"random_fold_in requires uint32 messages, got {msgs.dtype}")
    shape = broadcast_shapes_rule("random_fold_in", keys.shape, msgs.shape)
    return ShapedArray(shape, keys.dtype)


def _fold_in_physical(avals, base, msgs):
    """Broadcasts keys and messages to their common shape, then folds in."""
    keys_aval, msgs_aval = avals
    impl = keys_aval.dtype._impl
    shape = broadcast_shapes_rule("random_fold_in", keys_aval.shape, msgs_aval.shape)
    nk = len(impl.key_shape)
    kdims = tuple(range(len(shape))) if keys_aval.shape else ()
    base = shapes.broadcast_in_dim(
        base, (*shape, *impl.key_shape),
        (*kdims, *range(len(shape), len(shape) + nk)))
    mdims = tuple(range(len(shape))) if msgs_aval.shape else ()
    return impl.fold_in(base, shapes.broadcast_in_dim(msgs, shape, mdims))


def _fold_in_eager(keys, msgs):
    data = _eager(_fold_in_physical, [get_aval(keys), get_aval(msgs)], keys._base_array, msgs)
    return PRNGKeyArray(keys._impl, data)


def _fold_in_batch(axis_data, vals, dims):
    return batching.broadcast_batcher(random_fold_in_p, axis_data, vals, dims)


random_fold_in_p = def_primitive(
    "random_fold_in", abstract_eval=_fold_in_abstract_eval, impl=None,
    eager_impl=_fold_in_eager, jvp=ZERO_JVP, transpose=NONLINEAR, batch=_fold_in_batch,
    lower=_lowering(_fold_in_physical))


def random_fold_in(keys, msgs):
    return random_fold_in_p.bind(keys, msgs)


# --- random_bits
def _bits_abstract_eval(keys, *, bit_width, shape):
    dtype = dtypes.canonicalize_dtype(UINT_DTYPES[bit_width])
    return ShapedArray((*keys.shape, *shape), dtype)


random_bits_p = def_primitive(
    "random_bits", abstract_eval=_bits_abstract_eval, impl=None,
    eager_impl=lambda keys, *, bit_width, shape: _eager(
        keys._impl.random_bits, keys._base_array, bit_width, shape),
    jvp=ZERO_JVP, transpose=NONLINEAR, batch=None,
    lower=_lowering(lambda avals, base, *, bit_width, shape:
                    avals[0].dtype._impl.random_bits(base, bit_width, shape)))
batching.primitive_batchers[random_bits_p] = _vectorized_key_batch(random_bits_p)


def random_bits(keys, bit_width: int, shape: tuple[int, ...]):
    return random_bits_p.bind(keys, bit_width=bit_width, shape=tuple(shape))


# --- random_clone (an identity that key-reuse checking could tell apart)
random_clone_p = def_primitive(
    "random_clone", abstract_eval=lambda x: x, impl=None, eager_impl=lambda x: x,
    jvp=ZERO_JVP, transpose=NONLINEAR, batch=None,
    lower=lambda ctx, x: lowering.Value(x.name, physical_aval(ctx.avals_out[0])))
batching.primitive_batchers[random_clone_p] = _vectorized_key_batch(random_clone_p)


# ----------------------------------------------------------------------------------------
# Structural primitives on key arrays: act on the key data
# ----------------------------------------------------------------------------------------


def _trailing(avals) -> tuple[int, ...]:
    return next(key_shape_of(a) for a in avals if is_key_aval(a))


def _phys_broadcast_in_dim(avals, x, *, shape, broadcast_dimensions, sharding):
    ks = _trailing(avals)
    n = len(shape)
    return shapes.broadcast_in_dim_p.bind(
        x, shape=(*shape, *ks), sharding=None,
        broadcast_dimensions=(*broadcast_dimensions, *range(n, n + len(ks))))


def _phys_reshape(avals, x, *, new_sizes, dimensions, sharding):
    ks = _trailing(avals)
    if dimensions is not None:
        dimensions = (*dimensions, *range(len(dimensions), len(dimensions) + len(ks)))
    return shapes.reshape_p.bind(x, new_sizes=(*new_sizes, *ks), dimensions=dimensions,
                                 sharding=None)


def _phys_transpose(avals, x, *, permutation):
    n = len(permutation)
    return shapes.transpose_p.bind(
        x, permutation=(*permutation, *range(n, n + len(_trailing(avals)))))


def _phys_slice(avals, x, *, start_indices, limit_indices, strides):
    ks = _trailing(avals)
    return shapes.slice_p.bind(
        x, start_indices=(*start_indices, *(0 for _ in ks)),
        limit_indices=(*limit_indices, *ks),
        strides=None if strides is None else (*strides, *(1 for _ in ks)))


def _zero_index(idxs):
    dt = get_aval(idxs[0]).dtype if idxs else np.dtype("int32")
    return lax.full((), 0, dt)


def _phys_dynamic_slice(avals, x, *idxs, slice_sizes):
    ks = _trailing(avals)
    zeros = [_zero_index(idxs)] * len(ks)
    return shapes.dynamic_slice_p.bind(x, *idxs, *zeros, slice_sizes=(*slice_sizes, *ks))


def _phys_dynamic_update_slice(avals, x, upd, *idxs):
    zeros = [_zero_index(idxs)] * len(_trailing(avals))
    return shapes.dynamic_update_slice_p.bind(x, upd, *idxs, *zeros)


def _phys_select_n(avals, which, *cases):
    if avals[0].shape:
        ks = _trailing(avals)
        shape = (*avals[0].shape, *ks)
        which = shapes.broadcast_in_dim(which, shape, tuple(range(len(avals[0].shape))))
    return lax.select_n_p.bind(which, *cases)


def _phys_gather(avals, operand, indices, *, dimension_numbers, slice_sizes, **params):
    """The key data of each gathered key is one more offset (window) dimension."""
    ks = _trailing(avals)
    out_rank = avals[1].ndim - 1 + len(dimension_numbers.offset_dims)
    dn = dimension_numbers._replace(offset_dims=(
        *dimension_numbers.offset_dims, *range(out_rank, out_rank + len(ks))))
    return slicing.gather_p.bind(operand, indices, dimension_numbers=dn,
                                 slice_sizes=(*slice_sizes, *ks), **params)


def _same_params(prim):
    return lambda avals, *xs, **params: prim.bind(*xs, **params)


_STRUCTURAL_RULES: dict[core.Primitive, Callable] = {
    shapes.broadcast_in_dim_p: _phys_broadcast_in_dim,
    shapes.reshape_p: _phys_reshape,
    shapes.transpose_p: _phys_transpose,
    shapes.slice_p: _phys_slice,
    shapes.dynamic_slice_p: _phys_dynamic_slice,
    shapes.dynamic_update_slice_p: _phys_dynamic_update_slice,
    lax.select_n_p: _phys_select_n,
    slicing.gather_p: _phys_gather,
    shapes.squeeze_p: _same_params(shapes.squeeze_p),
    shapes.rev_p: _same_params(shapes.rev_p),
    shapes.concatenate_p: _same_params(shapes.concatenate_p),
    shapes.split_p: _same_params(shapes.split_p),
}


def _physical_value(x):
    return x._base_array if type(x) is PRNGKeyArray else x


def _from_physical(aval, data):
    return PRNGKeyArray(aval.dtype._impl, data) if is_key_aval(aval) else data


def install_key_rule(prim: core.Primitive, physical: Callable) -> None:
    """Makes prim accept key arrays: its eager impl and lowering run physical(avals_in,
    *key_data_or_values, **params) on the key data; other operands take the old path."""
    base_impl, base_lower = prim.impl, lowering.lowerings[prim]

    def impl(*args, **params):
        for a in args:
            if type(a) is PRNGKeyArray:
                break
        else:
            return base_impl(*args, **params)
        avals = [get_aval(a) for a in args]
        out = prim.abstract_eval(*avals, **params)
        res = _eager(physical, avals, *map(_physical_value, args), **params)
        if prim.multiple_results:
            return [_from_physical(a, r) for a, r in zip(out, res)]
        return _from_physical(out, res)

    def lower(ctx, *args, **params):
        if not any(map(is_key_aval, ctx.avals_in)):
            return base_lower(ctx, *args, **params)
        fun = functools.partial(physical, ctx.avals_in, **params)
        return lower_physical(ctx, fun, [physical_aval(a) for a in ctx.avals_in], args,
                              prim.multiple_results)

    prim.impl = impl
    lowering.lowerings[prim] = lower


for _prim, _rule in _STRUCTURAL_RULES.items():
    install_key_rule(_prim, _rule)
