"""The ref primitives, each declared once with all its rules, and the public functions
(`jax.new_ref`, `jax.ref.get/set/swap/addupdate`, `jax.freeze`, `jax.empty_ref`).

- `new_ref` (`b:Ref{f32[3]} = new_ref[kind=None memory_space=None] a`) allocates a ref;
- `get` (`c:f32[3] <- b[...]`) reads `ref[idx]`;
- `swap` (`d:f32[], b[1] <- b[1], c`, printed `b[1] <- c` when the old value is unused)
  writes `ref[idx] = v` and returns the old value;
- `addupdate` (`b[...] += c`) adds in place;
- `freeze` (`c:f32[3] = freeze b`) gives a ref's final value.

How each interpreter sees them, as in JAX:
- eagerly they act on the ref's buffer (an Array replaced by each write);
- staged (jit, make_jaxpr) they become equations; a jitted program is compiled after the
  state-discharge pass (state/discharge.py), never lowered with refs in it;
- under a transformation (grad, vjp, jvp, vmap), a ref the traced function allocates is a
  cell of that transformation (state/types.py): `new_ref` and the operations on such a
  cell are evaluated as pure indexing and updates of its value as they are traced, so
  derivatives and batching flow through the ordinary rules of those operations;
- refs from outside a transformation (a closed-over or argument ref) keep their
  primitives: JVP rules reject writing a differentiated value into them, and batching
  rules reject writing a batched value into an unbatched ref (JAX's errors); a ref
  passed to vmap as a batched argument is read and written whole, batched.

May import core, the interpreters, lax, numpy (indexing), state.types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from didax._src import core, dtypes, errors
from didax._src.array import Array
from didax._src.core import Primitive, ShapedArray, get_aval
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.lax._define import def_primitive, unsupported
from didax._src.lax.select_convert import convert_element_type
from didax._src.numpy import array_creation, indexing
from didax._src.numpy import manipulation as jnp_manip
from didax._src.state import types as st
from didax._src.state.types import AbstractRef, NDIndexer, Ref, RefEffect

_READ, _WRITE, _ALLOC = (frozenset({RefEffect(k)}) for k in ("Read", "Write", "Alloc"))


class _RefOpPrimitive(Primitive):
    """get/swap/addupdate/freeze: on a transformation's cell the operation is applied to
    the cell's value right away, as traced (state discharge on the fly)."""

    __slots__ = ()

    def bind(self, *args, **params):
        ref = args[0]
        if type(ref) is Ref and ref.owner is not None and _in_owner_scope(ref.owner):
            return self.impl(*args, **params)
        return core.trace_ctx.trace.process_primitive(self, args, params)


def _in_owner_scope(owner) -> bool:
    """Whether a cell of `owner` may be operated on directly here: no staging trace (a loop
    body, a jit) stands between the current trace and the owner. Under one, the cell is
    staged as a ref operand instead, and discharged where the staged primitive is bound
    (state.types.bind)."""
    t = core.trace_ctx.trace
    while t is not None and t is not owner:
        if isinstance(t, pe.DynamicJaxprTrace):
            return False
        t = t.parent_trace
    return True


class _NewRefPrimitive(Primitive):
    """new_ref: a buffer eagerly, an equation when staged, and a cell of the current
    transformation otherwise."""

    __slots__ = ()

    def bind(self, init_val, **params):
        trace = core.trace_ctx.trace
        if isinstance(trace, (core.EvalTrace, pe.DynamicJaxprTrace)):
            return trace.process_primitive(self, (init_val,), params)
        aval = _inner_aval(init_val)
        return Ref(AbstractRef(aval), _as_value(init_val, aval), owner=trace)


def _inner_aval(x) -> ShapedArray:
    try:
        aval = get_aval(x)
    except TypeError:
        raise TypeError(
            "Error interpreting argument to new_ref as a JAX value. The problematic value "
            f"is of type {type(x)} and was passed to new_ref at position 0.\n") from None
    if type(aval) is AbstractRef:
        raise TypeError(f"new_ref of a mutable array reference of type {aval}: a ref "
                        "cannot hold a ref; pass jax.freeze(ref) or ref[...] instead")
    return aval


def _as_value(x, aval):
    """x as an array value of type aval (tracers stay as they are)."""
    if isinstance(x, (core.Tracer, Array)):
        return x
    return array_creation.asarray(x)


# ----------------------------------------------------------------------------------------
# Indexing: ref[idx] -> (NDIndexer, integer operands)
# ----------------------------------------------------------------------------------------


def make_indexer(shape: tuple, idx) -> tuple[NDIndexer | None, list]:
    """The static indexer and the integer-index operands of `ref[idx]` (None: the whole
    ref, printed `[...]`)."""
    if idx is None or idx is Ellipsis:
        return None, []
    idx = idx if isinstance(idx, tuple) else (idx,)
    if not idx:
        return None, []
    if any(i is None for i in idx):
        raise ValueError("Ref indexing with None (np.newaxis) is not supported; index "
                         "the value read from the ref instead: ref[...][None]")
    n_ellipsis = sum(i is Ellipsis for i in idx)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_ellipsis:
        k = idx.index(Ellipsis)
        idx = idx[:k] + (slice(None),) * (len(shape) - len(idx) + 1) + idx[k + 1:]
    if len(idx) > len(shape):
        raise ValueError(f"`indices` must not be longer than `shape`: indices={idx}, "
                         f"shape={shape}")
    idx = idx + (slice(None),) * (len(shape) - len(idx))
    specs, operands, shapes = [], [], []
    for i, dim in zip(idx, shape):
        if isinstance(i, slice):
            specs.append(st.slice_spec(i, dim))
            continue
        specs.append(None)
        operands.append(_int_indexer(i, dim))
        shapes.append(np.shape(operands[-1]))
    int_shape = np.broadcast_shapes(*shapes) if shapes else ()
    if len(set(shapes)) > 1:
        operands = [o if np.shape(o) == int_shape else jnp_manip.broadcast_to(o, int_shape)
                    for o in operands]
    return NDIndexer(tuple(specs), tuple(shape), tuple(int_shape)), operands


def _int_indexer(i, dim: int):
    if isinstance(i, (bool, np.bool_)):
        raise TypeError("Ref indexing with a boolean is not supported; use integer "
                        "indices or slices")
    if isinstance(i, (int, np.integer)):
        i = int(i)
        if i >= dim or i < -dim:
            raise ValueError(f"Out of bound indexer: idx={i}, dim={dim}.")
        return i
    if isinstance(i, (list, np.ndarray)):
        i = array_creation.asarray(i)
    try:
        aval = get_aval(i)
    except TypeError:
        raise TypeError(f"Invalid Ref index {i!r} of type {type(i)}") from None
    if aval.dtype == np.bool_:
        raise errors.NonConcreteBooleanIndexError(
            f"Array boolean indices must be concrete; got {aval.str_short()}")
    if not dtypes.issubdtype(aval.dtype, np.integer):
        raise TypeError(f"Ref indices must be integers or slices, got {aval.str_short()}")
    return i


def read(x, indexer: NDIndexer | None, idx):
    """x[idx] as a pure operation (how `get` is discharged)."""
    if indexer is None:
        return x
    return indexing.getitem(x, indexer.python_index(idx))


def write(x, indexer: NDIndexer | None, idx, v, add: bool):
    """x with x[idx] set to (add: incremented by) v, as a pure operation."""
    if indexer is None:
        return x + v if add else _full_like(x, v)
    at = indexing.IndexUpdateHelper(x)[indexer.python_index(idx)]
    return at.add(v) if add else at.set(v)


def _full_like(x, v):
    aval = get_aval(x)
    if isinstance(v, (core.Tracer, Array)) and get_aval(v) == aval:
        return v
    return jnp_manip.broadcast_to(array_creation.asarray(v, aval.dtype), aval.shape)


# ----------------------------------------------------------------------------------------
# The public functions
# ----------------------------------------------------------------------------------------


def new_ref(init_val: Any, *, memory_space: Any = None, kind: Any = None):
    """A mutable array reference holding init_val (`jax.new_ref`)."""
    return new_ref_p.bind(init_val, memory_space=memory_space, kind=kind)


def empty_ref(ty, memory_space=None):
    """A ref of type ty (a ShapeDtypeStruct or aval) with unspecified contents (zeros)."""
    shape, dtype = tuple(ty.shape), ty.dtype
    return new_ref(array_creation.zeros(shape, dtype), memory_space=memory_space)


def _check_ref(ref, name: str):
    if not st.is_ref(ref):
        raise ValueError(f"Can only call `{name}` on a `Ref`: {ref}.")


def ref_get(ref, idx=None):
    """ref[idx] (`jax.ref.get`)."""
    _check_ref(ref, "ref_get")
    indexer, operands = make_indexer(ref.shape, idx)
    return get_p.bind(ref, *operands, indexer=indexer)


def _implicit_cast(dtype, value):
    """As JAX's `_maybe_implicit_cast`: a weakly typed float into a float ref, or any
    integer into an integer ref, takes the ref's dtype."""
    try:
        aval = get_aval(value)
    except TypeError:
        return value
    if type(aval) is not ShapedArray:
        return value
    both = (lambda kind: dtypes.issubdtype(dtype, kind) and
            dtypes.issubdtype(aval.dtype, kind))
    if (aval.weak_type and both(np.floating)) or both(np.integer):
        if not isinstance(value, (core.Tracer, Array)):
            return np.asarray(value, dtype)
        return convert_element_type(value, dtype)
    return value


def ref_swap(ref, idx, value, _function_name: str = "ref_swap"):
    """Writes ref[idx] = value and returns the previous ref[idx] (`jax.ref.swap`)."""
    _check_ref(ref, _function_name)
    value = _implicit_cast(ref.dtype, value)
    indexer, operands = make_indexer(ref.shape, idx)
    return swap_p.bind(ref, value, *operands, indexer=indexer)


def ref_set(ref, idx, value) -> None:
    """ref[idx] = value (`jax.ref.set`)."""
    ref_swap(ref, idx, value, "ref_set")


def ref_addupdate(ref, idx, x) -> None:
    """ref[idx] += x in place (`jax.ref.addupdate`)."""
    _check_ref(ref, "ref_addupdate")  # (no implicit cast here, as JAX)
    indexer, operands = make_indexer(ref.shape, idx)
    addupdate_p.bind(ref, x, *operands, indexer=indexer)


def freeze(ref):
    """The final value of ref (`jax.freeze`)."""
    _check_ref(ref, "freeze")
    return freeze_p.bind(ref)


def free_ref(ref) -> tuple:
    """Invalidates ref (`jax.free_ref`): didax keeps no device memory per ref to free."""
    _check_ref(ref, "free_ref")
    return ()


st.ops.update(get=ref_get, swap=ref_swap, addupdate=ref_addupdate,
              staging=pe.DynamicJaxprTrace)


# ----------------------------------------------------------------------------------------
# Abstract evaluation
# ----------------------------------------------------------------------------------------


def _ref_aval(aval, name: str) -> AbstractRef:
    if type(aval) is not AbstractRef:
        raise ValueError(f"`{name}` must be called on `Ref` types: {aval}.")
    return aval


def _indexed_aval(ref_aval: AbstractRef, indexer) -> ShapedArray:
    inner = ref_aval.inner_aval
    if indexer is None:
        return inner
    return ShapedArray(indexer.result_shape(), inner.dtype, inner.weak_type)


def _get_abstract_eval(ref_aval, *idx_avals, indexer):
    return _indexed_aval(_ref_aval(ref_aval, "get"), indexer)


def _check_value(name: str, ref_aval, val_aval, indexer) -> ShapedArray:
    expected = _indexed_aval(_ref_aval(ref_aval, name), indexer)
    if val_aval.shape != expected.shape:
        raise ValueError(f"Invalid shape for `{name}`. Ref shape: {ref_aval.shape}. "
                         f"Expected shape: {expected.shape}. Value shape: {val_aval.shape}. "
                         f"Transforms: {() if indexer is None else (indexer,)}. ")
    if val_aval.dtype != expected.dtype:
        what = "Value dtype" if name == "swap" else "Value shape"  # (JAX's wording)
        raise ValueError(f"Invalid dtype for `{name}`. Ref dtype: {ref_aval.dtype}. "
                         f"{what}: {val_aval.dtype}. ")
    return expected


def _swap_abstract_eval(ref_aval, val_aval, *idx_avals, indexer):
    return _check_value("swap", ref_aval, val_aval, indexer)


def _addupdate_abstract_eval(ref_aval, val_aval, *idx_avals, indexer):
    _check_value("addupdate", ref_aval, val_aval, indexer)
    return []


def _new_ref_abstract_eval(aval, *, memory_space, kind):
    return AbstractRef(aval)


def _freeze_abstract_eval(ref_aval):
    return _ref_aval(ref_aval, "freeze").inner_aval


# ----------------------------------------------------------------------------------------
# Evaluation: on a buffer eagerly, on a cell's value as traced
# ----------------------------------------------------------------------------------------


def _new_ref_impl(init_val, *, memory_space, kind):
    aval = _inner_aval(init_val)
    return Ref(AbstractRef(aval), _as_value(init_val, aval))


def _get_impl(ref, *idx, indexer):
    return read(ref._buf, indexer, idx)


def _swap_impl(ref, val, *idx, indexer):
    _swap_abstract_eval(ref.aval, get_aval(val), indexer=indexer)
    old = read(ref._buf, indexer, idx)
    ref._buf = write(ref._buf, indexer, idx, val, add=False)
    return old


def _addupdate_impl(ref, val, *idx, indexer):
    _addupdate_abstract_eval(ref.aval, get_aval(val), indexer=indexer)
    ref._buf = write(ref._buf, indexer, idx, val, add=True)
    return []


def _freeze_impl(ref):
    return ref._buf


# ----------------------------------------------------------------------------------------
# JVP: a ref with a tangent ref (jax.jvp of a ref argument) updates both; a ref from outside
# the differentiated function takes no differentiated value
# ----------------------------------------------------------------------------------------


def _get_jvp(primals, tangents, *, indexer):
    ref_t = tangents[0]
    out = get_p.bind(*primals, indexer=indexer)
    if type(ref_t) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, get_p.bind(ref_t, *primals[1:], indexer=indexer)


def _write_jvp(name: str, what: str):
    prim_of = {"swap": lambda: swap_p, "addupdate": lambda: addupdate_p}[name]

    def rule(primals, tangents, *, indexer):
        prim = prim_of()
        out = prim.bind(*primals, indexer=indexer)  # (JAX writes the primal, then raises)
        ref_t, val_t = tangents[0], tangents[1]
        if type(ref_t) is ad.Zero:
            if type(val_t) is not ad.Zero:
                raise Exception(
                    f"performing {what} operation with a differentiated value on a "
                    f"non-differentiated array reference of type {get_aval(primals[0])}. "
                    "Move the array reference to be an argument of the differentiated "
                    "function?")
            return out, (ad.Zero.from_primal_value(out) if name == "swap" else [])
        out_t = prim.bind(ref_t, ad.instantiate_zeros(val_t), *primals[2:], indexer=indexer)
        return out, out_t
    return rule


def _freeze_jvp(primals, tangents):
    out = freeze_p.bind(*primals)
    if type(tangents[0]) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, freeze_p.bind(tangents[0])


def _ref_cotangent(ct, ref, *args, **params):
    """Transposing reaches a ref operand only when differentiating with respect to a ref
    (grad/vjp of a ref argument): its cotangent would have to be a ref (JAX's error)."""
    aval = ref.aval if ad.is_undefined_primal(ref) else get_aval(ref)
    inner = aval.inner_aval.strip_weak_type() if type(aval) is AbstractRef else aval
    raise ValueError(f"Expected cotangent type {aval} but got {inner}")


# ----------------------------------------------------------------------------------------
# Batching: a batched ref is read and written whole
# ----------------------------------------------------------------------------------------


def _get_batch(axis_data, vals, dims, *, indexer):
    ref, *idx = vals
    if indexer is None:
        return get_p.bind(ref, indexer=None), dims[0]
    full = get_p.bind(ref, indexer=None)
    outs, out_dims = batching.batch_flat(lambda f, *i: [read(f, indexer, i)], axis_data,
                                         [full, *idx], dims)
    return outs[0], out_dims[0]


def _unbatched_ref(what: str, ref):
    raise Exception(f"performing {what} operation with vmapped value on an unbatched array "
                    f"reference of type {get_aval(ref)}. Move the array reference to be an "
                    "argument to the vmapped function?")


def _write_batch(add: bool):
    def rule(axis_data, vals, dims, *, indexer):
        ref, val, *idx = vals
        if dims[0] is None:
            _unbatched_ref("an addupdate" if add else "a set/swap", ref)
        if indexer is None:  # the whole ref: the value moved to the ref's batch axis
            val = batching.matchaxis(axis_data.size, dims[1], dims[0], val)
            if add:
                addupdate_p.bind(ref, val, indexer=None)
                return [], []
            return swap_p.bind(ref, val, indexer=None), dims[0]
        full = get_p.bind(ref, indexer=None)

        def body(f, v, *i):
            return [read(f, indexer, i), write(f, indexer, i, v, add)]

        (old, new), (old_dim, new_dim) = batching.batch_flat(body, axis_data,
                                                            [full, val, *idx], dims)
        new = batching.matchaxis(axis_data.size, new_dim, dims[0], new)
        swap_p.bind(ref, new, indexer=None)
        return ([], []) if add else (old, old_dim)
    return rule


def _freeze_batch(axis_data, vals, dims):
    return freeze_p.bind(vals[0]), dims[0]


# ----------------------------------------------------------------------------------------
# Printing, as JAX prints them
# ----------------------------------------------------------------------------------------


def _pp_slice(spec, dim: int) -> str:
    start, size, _ = spec
    end = start + size
    return f"{start or ''}:{'' if end == dim else end}"


def _pp_ref(context, ref, indexer, idx) -> str:
    name = context.name(ref)
    if indexer is None:
        return f"{name}[...]"
    it = iter(idx)
    parts = []
    for spec, dim in zip(indexer.indices, indexer.shape):
        if spec is None:
            a = next(it)
            parts.append(str(np.asarray(a.val.val if type(a.val) is core.TypedScalar
                                        else a.val).item())
                         if type(a) is core.Literal else context.name(a))
        else:
            parts.append(_pp_slice(spec, dim))
    return f"{name}[{','.join(parts)}]"


def _pp_lhs(context, settings, v) -> str:
    return core.pp_vars([v], context, print_shapes=settings.print_shapes).format()


def _get_pp(eqn, context, settings):
    from didax._src import pretty_printer as pp  # noqa: PLC0415
    ref, *idx = eqn.invars
    return pp.text(f"{_pp_lhs(context, settings, eqn.outvars[0])} <- "
                   f"{_pp_ref(context, ref, eqn.params['indexer'], idx)}")


def _swap_pp(eqn, context, settings):
    from didax._src import pretty_printer as pp  # noqa: PLC0415
    ref, val, *idx = eqn.invars
    x_i = _pp_ref(context, ref, eqn.params["indexer"], idx)
    (y,) = eqn.outvars
    if type(y) is core.DropVar or context.var_names.get(y) == "_":
        return pp.text(f"{x_i} <- {context.name(val)}")
    return pp.text(f"{_pp_lhs(context, settings, y)}, {x_i} <- {x_i}, {context.name(val)}")


def _addupdate_pp(eqn, context, settings):
    from didax._src import pretty_printer as pp  # noqa: PLC0415
    ref, val, *idx = eqn.invars
    return pp.text(f"{_pp_ref(context, ref, eqn.params['indexer'], idx)} += "
                   f"{context.name(val)}")


# ----------------------------------------------------------------------------------------
# The primitives
# ----------------------------------------------------------------------------------------

_NO_LOWERING = lowering.not_lowerable(
    "a ref primitive reached lowering: jitted programs are state-discharged "
    "(didax._src.state.discharge) before they are lowered")
_NO_TRANSPOSE = unsupported(
    "refs never appear in linear programs: a ref allocated under grad/vjp is a cell whose "
    "operations are traced as pure indexing and updates, and writing a differentiated "
    "value into any other ref is an error")
_NO_REF_GRAD = _ref_cotangent  # (a transpose that raises JAX's error)
_CELL = ("never reached: under a transformation new_ref makes a cell of that "
         "transformation (_NewRefPrimitive.bind), not an equation")

new_ref_p = def_primitive(
    "new_ref", abstract_eval=_new_ref_abstract_eval, impl=None, eager_impl=_new_ref_impl,
    jvp=unsupported(_CELL), transpose=_NO_TRANSPOSE, batch=unsupported(_CELL),
    lower=_NO_LOWERING, primitive=_NewRefPrimitive("new_ref"))
get_p = def_primitive(
    "get", abstract_eval=_get_abstract_eval, impl=None, eager_impl=_get_impl, jvp=_get_jvp,
    transpose=_NO_REF_GRAD, batch=_get_batch, lower=_NO_LOWERING, pp=_get_pp,
    primitive=_RefOpPrimitive("get"))
swap_p = def_primitive(
    "swap", abstract_eval=_swap_abstract_eval, impl=None, eager_impl=_swap_impl,
    jvp=_write_jvp("swap", "a set/swap"), transpose=_NO_REF_GRAD,
    batch=_write_batch(False), lower=_NO_LOWERING, pp=_swap_pp,
    primitive=_RefOpPrimitive("swap"))
addupdate_p = def_primitive(
    "addupdate", abstract_eval=_addupdate_abstract_eval, impl=None,
    eager_impl=_addupdate_impl, jvp=_write_jvp("addupdate", "an addupdate"),
    transpose=_NO_REF_GRAD, batch=_write_batch(True), lower=_NO_LOWERING,
    pp=_addupdate_pp, primitive=_RefOpPrimitive("addupdate", multiple_results=True))
freeze_p = def_primitive(
    "freeze", abstract_eval=_freeze_abstract_eval, impl=None, eager_impl=_freeze_impl,
    jvp=_freeze_jvp, transpose=_NO_REF_GRAD, batch=_freeze_batch, lower=_NO_LOWERING,
    primitive=_RefOpPrimitive("freeze"))

pe.effects_rules[new_ref_p] = lambda **params: _ALLOC
pe.effects_rules[get_p] = lambda **params: _READ
pe.effects_rules[swap_p] = lambda **params: _WRITE
pe.effects_rules[addupdate_p] = lambda **params: _WRITE
pe.effects_rules[freeze_p] = lambda **params: _READ
REF_PRIMITIVES = frozenset({new_ref_p, get_p, swap_p, addupdate_p, freeze_p})
