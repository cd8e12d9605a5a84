"""`jax.shard_map` (and the older `jax.experimental.shard_map.shard_map`) over the CPU
devices of a mesh, with JAX 0.10's semantics.

The body sees one block per device: each argument is cut along the dimensions its in_spec
names (P('x', None): rows split over mesh axis 'x'; P(): every device gets the whole
value), the body runs, and each result is put together along the dimensions its out_spec
names (a result the out_spec does not split over an axis must be the same on every device
along it; JAX checks this statically, from the axes each value varies over, and so does
didax). Collectives over the mesh axes (psum, all_gather, ppermute, psum_scatter,
all_to_all, axis_index, ...) communicate between the blocks.

How it runs: an emulation that computes the same values on one device. The body runs under
a `ShardMapTrace` (shard_map_trace.py) whose values hold every device's block at once and
whose primitives apply as one vmap per mesh axis, so eagerly `print` inside the body shows
each device's block and `jax.typeof` its varying axes, as in JAX. Eager results are laid
out over the mesh's devices by their out_specs (sharded Arrays). Under `jit` and
`make_jaxpr` the call is staged as JAX stages it, one `shard_map` equation carrying the
per-device jaxpr; that equation lowers, evaluates, differentiates and batches through its
emulation (the body's jaxpr run by a ShardMapTrace over global arrays), so `grad` of a
shard_map is the gradient of the same global function JAX differentiates.

May import core, the interpreters, lax, array, sharding, pjit, pmap (whose shard_map
primitive it shares), tree_util.
"""

from __future__ import annotations

import contextlib
import functools
import math
import weakref
from collections.abc import Callable

import numpy as np

from didax._src import core
from didax._src import pmap as _pmap
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, ShapedArray, Tracer
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.lax import parallel, shapes
from didax._src.shard_map_checks import (
    check_in_layouts,
    check_specs,
    check_specs_vs_args,
    out_rank_error,
    vma_error,
)
from didax._src.shard_map_trace import ShardMapTrace, ShardMapTracer, assemble, spec_axes, split
from didax._src.shard_map_types import annotate_body, annotate_layouts
from didax._src.sharding import (
    AbstractMesh,
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    ShardedArray,
    _abstract_override,
    get_mesh,
    layout_of,
    put_sharded,
)
from didax._src.tree_util import broadcast_prefix, tree_flatten, tree_unflatten


class _Infer:
    def __repr__(self):
        return "Infer"


Infer = _Infer()


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """Maps f over the blocks of its arguments on the devices of `mesh` (default: the
    current mesh of jax.set_mesh); see the module docstring."""
    if f is None:
        return lambda g: _shard_map(g, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                                    axis_names=axis_names, check_vma=check_vma)
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                      axis_names=axis_names, check_vma=check_vma)


def experimental_shard_map(f, mesh=None, in_specs=None, out_specs=None, check_rep=True,
                           check_vma=None, auto=frozenset()):
    """`jax.experimental.shard_map.shard_map`: the older spelling (mesh positional)."""
    check = check_rep if check_vma is None else check_vma
    names = frozenset(mesh.axis_names) - frozenset(auto) if auto and mesh is not None \
        else frozenset()
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                      axis_names=names, check_vma=check)


def _shard_map(f, *, mesh, in_specs, out_specs, axis_names, check_vma):
    if not callable(f):
        raise TypeError("shard_map requires a callable for its first argument, but got "
                        f"{f} of type {type(f)}.")

    @functools.wraps(f)
    def wrapped(*args):
        m, names = _resolve_mesh(mesh, axis_names, in_specs, out_specs)
        flat, in_tree = tree_flatten(args)
        specs = _in_specs_flat(in_specs, args, flat, m, names)
        dyn = [s is not None for s in specs]
        dyn_args = [x for x, d in zip(flat, dyn) if d]
        dyn_specs = tuple(s for s in specs if s is not None)
        check_specs_vs_args(f, m, args, [i for i, d in enumerate(dyn) if d], dyn_specs,
                            dyn_args)
        if in_specs is not Infer and set(names) == set(m.axis_names) and \
                all(t == AxisType.Explicit for t in m.axis_types):
            check_in_layouts(dyn_args, dyn_specs)
        axes = tuple((n, m.shape[n]) for n in m.axis_names if n in names)

        def call(*xs):
            it, st = iter(xs), iter(x for x, d in zip(flat, dyn) if not d)
            return f(*tree_unflatten(in_tree, [next(it) if d else next(st) for d in dyn]))

        if core.trace_ctx.trace is core.eval_trace:
            return _emulated(call, m, axes, dyn_args, dyn_specs, out_specs, check_vma)
        return _staged(call, f, m, axes, dyn_args, dyn_specs, out_specs, check_vma)

    return wrapped


def _resolve_mesh(mesh, axis_names, in_specs, out_specs):
    if mesh is None:
        mesh = get_mesh()
        if mesh is None or mesh.empty:
            raise ValueError("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to "
                             "enter into a mesh context")
    if isinstance(mesh, AbstractMesh):
        concrete = get_mesh()
        if concrete is None or concrete.abstract_mesh != mesh:
            raise NotImplementedError("shard_map over an AbstractMesh needs the matching "
                                      "concrete mesh set with jax.set_mesh in didax")
        mesh = concrete
    if not isinstance(mesh, Mesh):
        raise TypeError("shard_map requires a `jax.sharding.Mesh` or a "
                        "`jax.sharding.AbstractMesh` instance for its second argument, but "
                        f"got {mesh} of type {type(mesh)}.")
    if not isinstance(axis_names, (frozenset, set)):
        raise TypeError("`axis_names` argument of shard_map should be of type `frozenset` "
                        f"or `set`. Got type: {type(axis_names)}")
    names = frozenset(axis_names) or frozenset(mesh.axis_names)
    if not names <= frozenset(mesh.axis_names):
        raise ValueError(f"jax.shard_map requires axis_names={names} to be a subset of "
                         f"mesh.axis_names={frozenset(mesh.axis_names)}")
    types = dict(zip(mesh.axis_names, mesh.axis_types))
    if in_specs is Infer and not all(types[a] == AxisType.Explicit for a in names):
        kinds = ", ".join(str(types[a]) for a in mesh.axis_names if a in names)
        raise TypeError("shard_map in_specs argument must be a pytree of "
                        "`jax.sharding.PartitionSpec` instances, but it was `None` when "
                        f"axis_names={names} are of type {kinds}")
    if in_specs is not Infer:
        check_specs("in", in_specs, names)
    check_specs("out", out_specs, names)
    return mesh, names


def _in_specs_flat(in_specs, args, flat, mesh, names) -> list:
    if in_specs is Infer:
        return [_manual_spec(layout_of(x), names, np.ndim(x)) for x in flat]
    try:
        return broadcast_prefix(in_specs, args, is_leaf=lambda x: x is None)
    except ValueError as e:
        raise ValueError(f"shard_map in_specs: {e}") from None


def _manual_spec(layout, names, ndim) -> PartitionSpec:
    """The in_spec inferred from an argument's layout: its split dimensions' manual axes."""
    if layout is None:
        return PartitionSpec()
    out = []
    for part in spec_axes(layout.spec, ndim):
        kept = tuple(a for a in part if a in names)
        out.append(None if not kept else kept[0] if len(kept) == 1 else kept)
    while out and out[-1] is None:
        out.pop()
    return PartitionSpec(*out)


@contextlib.contextmanager
def _bound(axes, mesh=None):
    """The mesh axes bound while a body runs; inside, the current abstract mesh shows the
    manual axes as Manual (as JAX's does)."""
    with contextlib.ExitStack() as stack:
        for name, size in axes:
            stack.enter_context(parallel.axis_env(name, size))
        if mesh is not None:
            manual = {n for n, _ in axes}
            am = mesh.abstract_mesh
            types = tuple(AxisType.Manual if n in manual else t
                          for n, t in zip(am.axis_names, am.axis_types))
            _abstract_override.append(AbstractMesh(am.axis_sizes, am.axis_names, types,
                                                   _device_kind=am._device_kind))
            stack.callback(_abstract_override.pop)
        yield


# ----------------------------------------------------------------------------------------
# Running the emulation
# ----------------------------------------------------------------------------------------


def _emulated(call, mesh, axes, args, in_specs, out_specs, check_vma):
    """Eagerly: the body run under a ShardMapTrace (on the gathered values); the results
    are laid out over the mesh by their out_specs."""
    args = [Array(np.asarray(x._value), x.aval) if type(x) is ShardedArray else x
            for x in args]
    store: dict = {}

    def specs_of(outs):
        try:
            store["specs"] = broadcast_prefix(out_specs, outs, is_leaf=lambda x: x is None)
        except ValueError as e:
            raise ValueError(f"shard_map out_specs: {e}") from None
        return store["specs"]

    # (JAX names the function of its eager output conversion in this error)
    outs, tree = run(call, mesh, axes, args, in_specs, specs_of, check_vma, "_rem_singleton")
    outs = [_place(o, s, mesh) for o, s in zip(outs, store["specs"])]
    return tree_unflatten(tree, outs)


def run(call, mesh, axes, args, in_specs, specs_of, check_vma, fun_name, f=None):
    """call(*blocks) -> pytree, run per device; returns the flat global results and their
    tree. specs_of(output pytree) gives the flat out_specs."""
    trace = ShardMapTrace(core.trace_ctx.trace, mesh, axes)
    tracers = [trace.new(*split(x, s, axes)) for x, s in zip(args, in_specs)]
    with _bound(axes, mesh), core.set_current_trace(trace):
        out = call(*tracers)
    flat, tree = tree_flatten(out)
    specs = specs_of(out)
    fails, results = [], []
    for o, s in zip(flat, specs):
        val, vma = (o.val, o.vma) if type(o) is ShardMapTracer and o._trace is trace \
            else (o, frozenset())
        if len(s) > np.ndim(val) - len(vma):
            raise ValueError(out_rank_error(f or call, tree, specs, flat, trace))
        named = {a for part in spec_axes(s, np.ndim(val) - len(vma)) for a in part}
        extra = [n for n, _ in axes if n in vma and n not in named]
        if extra and check_vma:
            fails.append((s, vma))
            continue
        if extra:
            val, vma = _first_block(val, vma, extra, axes)
        results.append(assemble(val, vma, s, axes))
    if fails:
        raise ValueError(vma_error(fun_name, mesh, fails))
    return results, tree


def _first_block(val, vma, extra, axes):
    """Device 0's block along the axes in extra (check_vma=False: assumed replicated)."""
    order = [n for n, _ in axes if n in vma]
    for n in extra:
        i = order.index(n)
        first = shapes.split(val, (1, np.shape(val)[i] - 1), i)[0] \
            if np.shape(val)[i] > 1 else val
        val = shapes.squeeze(first, (i,))
        order.pop(i)
    return val, frozenset(order)


def _place(x, spec, mesh: Mesh):
    if isinstance(x, Tracer):
        return x
    aval = core.get_aval(x)
    spec = PartitionSpec(*spec_axes_compact(spec, len(aval.shape), mesh))
    return put_sharded(np.asarray(x), aval, NamedSharding(mesh, spec))


def spec_axes_compact(spec, ndim, mesh) -> list:
    """The spec as JAX types it: over Explicit axes, one entry per dimension."""
    parts = list(spec)
    if AxisType.Explicit in mesh.axis_types:
        parts += [None] * (ndim - len(parts))
    return parts


# ----------------------------------------------------------------------------------------
# Staged: the shard_map primitive
# ----------------------------------------------------------------------------------------


def _staged(call, f, mesh, axes, args, in_specs, out_specs, check_vma):
    sizes = dict(axes)
    blocks = [_block_aval(core.get_aval(x), s, sizes) for x, s in zip(args, in_specs)]
    store: dict = {}

    def body(*xs):
        out = call(*xs)
        flat, store["tree"] = tree_flatten(out)
        try:
            store["specs"] = broadcast_prefix(out_specs, out, is_leaf=lambda x: x is None)
        except ValueError as e:
            raise ValueError(f"shard_map out_specs: {e}") from None
        return flat

    with _bound(axes, mesh):
        closed = pe.trace_to_closed_jaxpr(body, blocks, "shard_map")
    consts = list(closed.consts)
    if consts:
        closed = ClosedJaxpr(pe.convert_constvars_jaxpr(closed.jaxpr), ())
        in_specs = (PartitionSpec(),) * len(consts) + tuple(in_specs)
    closed = annotate_body(closed, in_specs, axes, check_vma)
    params = dict(jaxpr=closed, mesh=mesh.abstract_mesh, in_specs=tuple(in_specs),
                  out_specs=tuple(store["specs"]), check_vma=check_vma,
                  newly_manual_axes=frozenset(sizes))
    _emulation(params, getattr(f, "__name__", str(f)))  # (raises JAX's errors now)
    outs = shard_map_p.bind(*consts, *args, **params)
    annotate_layouts(args, [getattr(layout_of(x), "spec", None) for x in args], mesh)
    annotate_layouts(outs, params["out_specs"], mesh)
    return tree_unflatten(store["tree"], outs)


def _block_aval(aval, spec, sizes):
    shape = list(aval.shape)
    for d, names in enumerate(spec_axes(spec, len(shape))):
        shape[d] //= math.prod(sizes[n] for n in names)
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


def _axes(mesh: AbstractMesh, manual) -> tuple:
    return tuple((n, s) for n, s in zip(mesh.axis_names, mesh.axis_sizes) if n in manual)


_memo: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _emulation(params, fun_name="shard_map") -> ClosedJaxpr:
    """The equation as a jaxpr over global arrays (memoized per body and specs)."""
    closed = params["jaxpr"]
    key = (params["mesh"], params["in_specs"], params["out_specs"], params["check_vma"],
           params["newly_manual_axes"])
    table = _memo.setdefault(closed, {})
    if key not in table:
        mesh = params["mesh"]
        axes = _axes(mesh, params["newly_manual_axes"])
        sizes = dict(axes)
        specs_out = list(params["out_specs"])

        def fun(*xs):
            body = core.jaxpr_as_fun(closed)
            outs, _ = run(lambda *bs: list(body(*bs)), mesh, axes, xs,
                          params["in_specs"], lambda outs: specs_out, params["check_vma"],
                          fun_name)
            return outs

        avals = [_global_aval(a, s, sizes) for a, s in zip(closed.in_avals,
                                                            params["in_specs"])]
        table[key] = pe.trace_to_closed_jaxpr(fun, avals, "shard_map")
    return table[key]


def _global_aval(aval, spec, sizes):
    shape = list(aval.shape)
    for d, names in enumerate(spec_axes(spec, len(shape))):
        shape[d] *= math.prod(sizes[n] for n in names)
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    sizes = dict(_axes(mesh, newly_manual_axes))
    return [_global_aval(a, s, sizes) for a, s in zip(jaxpr.out_avals, out_specs)]


def _call(closed: ClosedJaxpr, args) -> list:
    """closed applied as one jitted call: over sharded arrays it is partitioned as a whole
    (rather than operation by operation under the explicit-layout rules)."""
    from didax._src.pjit import jit_p  # noqa: PLC0415

    return jit_p.bind(*args, jaxpr=closed, name="shard_map",
                      donated_invars=(False,) * len(args), keep_unused=False, inline=False)


def _impl(*args, **params):
    return _call(_emulation(params), args)


def _jvp(primals, tangents, **params):
    emul = _emulation(params)
    nonzeros = tuple(type(t) is not ad.Zero for t in tangents)
    jvp_closed, out_nz = ad.jvp_jaxpr(emul, nonzeros, instantiate=False)
    nz = [t for t in tangents if type(t) is not ad.Zero]
    outs = _call(jvp_closed, [*primals, *nz])
    n = len(emul.out_avals)
    it = iter(outs[n:])
    return outs[:n], [next(it) if z else ad.Zero(a.to_tangent_aval())
                      for z, a in zip(out_nz, emul.out_avals)]


def _transpose(cts, *args, **params):
    emul = _emulation(params)
    linear = tuple(ad.is_undefined_primal(a) for a in args)
    cts = [ad.instantiate_zeros(c) if type(c) is not ad.Zero else
           ad.zeros_like_aval(a) for c, a in zip(cts, emul.out_avals)]
    t = ad.transpose_jaxpr(emul, linear)
    nonlin = [a for a in args if not ad.is_undefined_primal(a)]
    outs = iter(_call(t, [*nonlin, *cts]))
    return [next(outs) if lin else None for lin in linear]


def _batch(axis_data, vals, dims, **params):
    from didax._src.pjit import batch_jaxpr  # noqa: PLC0415

    emul = _emulation(params)
    batched, out_dims = batch_jaxpr(emul, axis_data, tuple(dims))
    return _call(batched, vals), out_dims


def _lower(ctx, *args, **params):
    emul = _emulation(params)
    sym = lowering.lower_function_once(ctx.module, ("shard_map_emulation", id(emul)),
                                       "shmap_body", emul)
    return lowering.call_function(ctx, sym, args, ctx.avals_out)


# One `shard_map` primitive, pmap's: its equations over a sharding mesh (AbstractMesh)
# use the rules above, pmap's (over its one-axis device mesh) keep pmap's rules.
shard_map_p = _pmap.shard_map_p


def _over_mesh(params) -> bool:
    return isinstance(params.get("mesh"), AbstractMesh)


def _dispatch(mine: Callable, theirs: Callable) -> Callable:
    def rule(*args, **params):
        return (mine if _over_mesh(params) else theirs)(*args, **params)
    return rule


def _pe_rule(theirs: Callable) -> Callable:
    def rule(trace, *args, **params):
        if _over_mesh(params):
            return trace.default_process_primitive(shard_map_p, args, params)
        return theirs(trace, *args, **params)
    return rule


shard_map_p.abstract_eval = _dispatch(_abstract_eval, shard_map_p.abstract_eval)
shard_map_p.impl = _dispatch(_impl, shard_map_p.impl)
ad.primitive_jvps[shard_map_p] = _dispatch(_jvp, ad.primitive_jvps[shard_map_p])
ad.primitive_transposes[shard_map_p] = _dispatch(_transpose,
                                                 ad.primitive_transposes[shard_map_p])
batching.primitive_batchers[shard_map_p] = _dispatch(_batch,
                                                     batching.primitive_batchers[shard_map_p])
lowering.lowerings[shard_map_p] = _dispatch(_lower, lowering.lowerings[shard_map_p])
pe.partial_eval_rules[shard_map_p] = _pe_rule(pe.partial_eval_rules[shard_map_p])
