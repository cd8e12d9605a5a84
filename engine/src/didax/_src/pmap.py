"""`pmap` over N CPU devices, built as JAX 0.10 builds it: a `jit` (named `_fun`) of a
`shard_map` over a one-axis `Mesh`, whose per-device body squeezes each mapped argument's
block, runs the function and re-expands each output.

`shard_map_p` (printed `shard_map[check_vma=False in_specs=(P('i',),) jaxpr={...}
mesh=Mesh('i': 4, axis_types=(Auto,)) newly_manual_axes=frozenset({'i'}) out_specs=...]`)
carries the per-device jaxpr and, per argument/result, a PartitionSpec naming the
dimension split across the mesh (or `P()`: replicated). Its rules:

- impl: one XLA program with num_replicas = N (collectives lower to all_reduce /
  all_gather / replica_id over the replicas), a device assignment over the mesh's devices,
  inputs put as sharded global arrays (one block per device), outputs gathered per block;
- lowering inside another module (e.g. `jit(pmap(f))`): the body emulated on one device as
  a vmap over the mesh axis (collectives batch into reductions) — same values, no
  parallelism;
- JVP, batching (vmap of pmap), partial evaluation (known and unknown shard_maps joined by
  per-device residuals), transpose (cotangents of replicated inputs are psummed) and DCE.

Under staging (`make_jaxpr`) a pmap call is recorded as JAX records it; under every other
trace the shard_map is bound directly, so eager and differentiated pmaps run on devices.

May import core, the interpreters, xla_backend, lax, pjit, api_util, tree_util.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, xla_backend
from didax._src.api_util import check_callable, ensure_index_tuple, shaped_abstractify
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, ShapedArray, Tracer
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax import parallel, shapes
from didax._src.lax._define import def_primitive
from didax._src.tree_util import broadcast_prefix, tree_flatten, tree_unflatten

DEFAULT_AXIS_NAME = "_internal_pmap_axis_name"

# ----------------------------------------------------------------------------------------
# Meshes and partition specs
# ----------------------------------------------------------------------------------------


class Mesh:
    """A one-dimensional arrangement of devices under an axis name."""

    def __init__(self, devices: Sequence[Any], axis_names: tuple):
        self.devices = tuple(devices)
        self.axis_names = tuple(axis_names)
        self.name = self.axis_names[0]
        self.size = len(self.devices)

    def __repr__(self):
        return f"Mesh({self.name!r}: {self.size}, axis_types=(Auto,))"

    def _key(self):
        return (self.axis_names, tuple(d.id for d in self.devices))

    def __eq__(self, other):
        return isinstance(other, Mesh) and other._key() == self._key()

    def __hash__(self):
        return hash(self._key())


class PartitionSpec(tuple):
    """Per array dimension: the mesh axis it is split over, or None."""

    def __new__(cls, *parts):
        return super().__new__(cls, parts)

    def __repr__(self):
        return "P" + tuple.__repr__(self)


P = PartitionSpec


def _spec_dim(spec: PartitionSpec, name) -> int | None:
    for i, part in enumerate(spec):
        if part == name or (isinstance(part, tuple) and name in part):
            return i
    return None


def _block_aval(aval, spec, mesh: Mesh):
    d = _spec_dim(spec, mesh.name)
    if d is None:
        return aval
    shape = list(aval.shape)
    if shape[d] % mesh.size:
        raise ValueError(f"shard_map: dimension {d} of {aval.str_short()} is not divisible "
                         f"by the mesh axis {mesh.name!r} of size {mesh.size}")
    shape[d] //= mesh.size
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


def _global_aval(aval, spec, mesh: Mesh):
    d = _spec_dim(spec, mesh.name)
    if d is None:
        return aval
    shape = list(aval.shape)
    shape[d] *= mesh.size
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


_memo: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _memoized(closed: ClosedJaxpr, key, make: Callable):
    table = _memo.setdefault(closed, {})
    if key not in table:
        table[key] = make()
    return table[key]


def _env(mesh: Mesh):
    return parallel.axis_env(mesh.name, mesh.size)


# ----------------------------------------------------------------------------------------
# The shard_map primitive
# ----------------------------------------------------------------------------------------


def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    if len(avals) != len(jaxpr.in_avals):
        raise TypeError(f"shard_map: got {len(avals)} arguments, expected "
                        f"{len(jaxpr.in_avals)}")
    for a, spec, want in zip(avals, in_specs, jaxpr.in_avals):
        got = _block_aval(a, spec, mesh)
        if got.shape != want.shape or got.dtype != want.dtype:
            raise TypeError(f"shard_map: argument block {got.str_short()} does not match the "
                            f"body's parameter type {want.str_short()}")
    return [_global_aval(a, s, mesh) for a, s in zip(jaxpr.out_avals, out_specs)]


def _impl(*args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    for a in args:
        if isinstance(a, Tracer):
            raise core.escaped_tracer_error(a)
    run = _memoized(jaxpr, ("devices", mesh, in_specs, out_specs),
                    lambda: _DeviceProgram(jaxpr, mesh, in_specs, out_specs))
    return run(args)


def _bind(args, closed: ClosedJaxpr, mesh: Mesh, in_specs, out_specs):
    return shard_map_p.bind(*args, jaxpr=closed, mesh=mesh, in_specs=tuple(in_specs),
                            out_specs=tuple(out_specs), check_vma=False,
                            newly_manual_axes=frozenset({mesh.name}))


def _jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, **_):
    nonzeros = tuple(type(t) is not Zero for t in tangents)

    def make():
        with _env(mesh):
            return ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)

    jvp_closed, out_nz = _memoized(jaxpr, ("jvp", nonzeros), make)
    nz_t = [t for t in tangents if type(t) is not Zero]
    specs_in = [*in_specs, *(s for s, nz in zip(in_specs, nonzeros) if nz)]
    specs_out = [*out_specs, *(s for s, nz in zip(out_specs, out_nz) if nz)]
    outs = _bind([*primals, *nz_t], jvp_closed, mesh, specs_in, specs_out)
    n = len(out_specs)
    t_it = iter(outs[n:])
    t_out = [next(t_it) if nz else Zero(core.get_aval(p).to_tangent_aval())
             for p, nz in zip(outs[:n], out_nz)]
    return outs[:n], t_out


def _batch(axis_data, vals, dims, *, jaxpr, mesh, in_specs, out_specs, **_):
    from didax._src.pjit import batch_jaxpr  # noqa: PLC0415

    vals = [v if d is None else batching.moveaxis(v, d, 0) for v, d in zip(vals, dims)]
    in_dims = tuple(None if d is None else 0 for d in dims)

    def make():
        with _env(mesh):
            return batch_jaxpr(jaxpr, axis_data, in_dims)

    batched, out_dims = _memoized(jaxpr, ("vmap", axis_data.name, axis_data.size, in_dims),
                                  make)
    specs_in = [s if d is None else P(None, *s) for s, d in zip(in_specs, in_dims)]
    specs_out = [s if d is None else P(None, *s) for s, d in zip(out_specs, out_dims)]
    return _bind(vals, batched, mesh, specs_in, specs_out), out_dims


def _transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, **_):
    linear = tuple(ad.is_undefined_primal(a) for a in args)
    keep = tuple(type(c) is not Zero for c in cts)
    specs_in = [s for s, lin in zip(in_specs, linear) if not lin]
    specs_in += [s for s, k in zip(out_specs, keep) if k]
    specs_out = [s for s, lin in zip(in_specs, linear) if lin]
    n_nonlin = len(args) - sum(linear)
    t_closed = _memoized(jaxpr, ("transpose", linear, keep),
                         lambda: _transpose_jaxpr(jaxpr, linear, keep, n_nonlin,
                                                  specs_in[n_nonlin:], specs_out, mesh))
    nonlin = [a for a in args if not ad.is_undefined_primal(a)]
    outs = _bind([*nonlin, *(c for c in cts if type(c) is not Zero)], t_closed, mesh,
                 specs_in, specs_out)
    it = iter(outs)
    return [next(it) if lin else None for lin in linear]


def _transpose_jaxpr(closed, linear, keep, n_nonlin, ct_specs, lin_specs, mesh):
    """The transposed body. A replicated value is one value seen by every device: the
    cotangent of a replicated result is shared out (divided by the mesh size) and the
    cotangents of a replicated input are summed over the mesh."""
    with _env(mesh):
        if not all(keep):
            dced, _ = pe.dce_jaxpr(closed.jaxpr, keep, instantiate=True)
            closed = ClosedJaxpr(dced, closed.consts)
        t_closed = ad.transpose_jaxpr(closed, linear)
        rep_ct = [_spec_dim(s, mesh.name) is None for s in ct_specs]
        rep_in = [_spec_dim(s, mesh.name) is None for s in lin_specs]
        if not any(rep_ct) and not any(rep_in):
            return t_closed

        def fun(*xs):
            cts = [c / mesh.size if r else c for c, r in zip(xs[n_nonlin:], rep_ct)]
            outs = core.eval_jaxpr(t_closed.jaxpr, t_closed.consts, *xs[:n_nonlin], *cts)
            return [parallel.psum_p.bind(o, axes=(mesh.name,), axis_index_groups=None)[0]
                    if r else o for o, r in zip(outs, rep_in)]

        return pe.trace_to_closed_jaxpr(fun, t_closed.in_avals, "transpose")


def _lower(ctx, *args, jaxpr, mesh, in_specs, out_specs, **_):
    """Inside another module: the body emulated as a vmap over the mesh axis."""
    emulated = _memoized(jaxpr, ("emulate", mesh, in_specs, out_specs),
                         lambda: _emulation(jaxpr, mesh, in_specs, out_specs))
    sym = lowering.lower_function_once(ctx.module, ("shard_map", id(emulated)), "shmap_body",
                                       emulated)
    return lowering.call_function(ctx, sym, args, ctx.avals_out)


def _emulation(closed, mesh, in_specs, out_specs) -> ClosedJaxpr:
    n = mesh.size
    in_dims = [_spec_dim(s, mesh.name) for s in in_specs]
    out_dims = [_spec_dim(s, mesh.name) for s in out_specs]

    def fun(*xs):
        split = [x if d is None else shapes.reshape(x, _split_shape(np.shape(x), d, n))
                 for x, d in zip(xs, in_dims)]
        outs, _ = batching.batch_flat(
            lambda *bs: core.eval_jaxpr(closed.jaxpr, closed.consts, *bs),
            batching.AxisData(mesh.name, n), split, in_dims, out_dims)
        return [o if d is None else shapes.reshape(o, _merge_shape(np.shape(o), d))
                for o, d in zip(outs, out_dims)]

    avals = [_global_aval(a, s, mesh) for a, s in zip(closed.in_avals, in_specs)]
    return pe.trace_to_closed_jaxpr(fun, avals, "shard_map")


def _split_shape(shape, d, n):
    return (*shape[:d], n, shape[d] // n, *shape[d + 1:])


def _merge_shape(shape, d):
    return (*shape[:d], shape[d] * shape[d + 1], *shape[d + 2:])


shard_map_p = def_primitive(
    "shard_map", abstract_eval=_abstract_eval, impl=None, eager_impl=_impl, jvp=_jvp,
    transpose=_transpose, batch=_batch, lower=_lower, multiple_results=True)
shard_map_p.is_higher_order = True


# --- partial evaluation: a known and an unknown shard_map joined by residuals


def _partial_eval(trace: pe.JaxprTrace, *args, jaxpr, mesh, in_specs, out_specs, **_):
    unknowns = tuple(trace.is_unknown(a) for a in args)
    known, unknown, out_uk, n_res = _memoized(
        jaxpr, ("pe", unknowns), lambda: _split_jaxpr(jaxpr, unknowns, mesh))
    res_specs = [P(mesh.name)] * n_res
    known_args = [a for a, u in zip(args, unknowns) if not u]
    k_specs_in = [s for s, u in zip(in_specs, unknowns) if not u]
    k_specs_out = [s for s, uk in zip(out_specs, out_uk) if not uk]
    with core.set_current_trace(trace.parent_trace):
        known_outs = _bind(known_args, known, mesh, k_specs_in, [*k_specs_out, *res_specs])
    n_known = len(k_specs_out)
    residuals = known_outs[n_known:]
    unknown_args = [trace.instantiate(a) for a, u in zip(args, unknowns) if u]
    atoms = [trace.to_atom(x) for x in [*residuals, *unknown_args]]
    u_specs_in = [*res_specs, *(s for s, u in zip(in_specs, unknowns) if u)]
    u_specs_out = [s for s, uk in zip(out_specs, out_uk) if uk]
    out_avals = [_global_aval(a, s, mesh) for a, s in zip(unknown.out_avals, u_specs_out)]
    params = dict(jaxpr=unknown, mesh=mesh, in_specs=tuple(u_specs_in),
                  out_specs=tuple(u_specs_out), check_vma=False,
                  newly_manual_axes=frozenset({mesh.name}))
    unknown_outs = trace.emit(shard_map_p, atoms, out_avals, params)
    k_it, u_it = iter(known_outs[:n_known]), iter(unknown_outs)
    return [next(u_it) if uk else next(k_it) for uk in out_uk]


def _split_jaxpr(closed, unknowns, mesh):
    """Known and unknown bodies; each per-device residual travels as a (1, ...) block of a
    global array split along a new leading axis."""
    with _env(mesh):
        known, unknown, out_uk, res_avals = pe.partial_eval_jaxpr_nounits(
            closed, unknowns, instantiate=False)
        n_res = len(res_avals)
        n_known = len(known.out_avals) - n_res

        def known_fun(*xs):
            outs = core.eval_jaxpr(known.jaxpr, known.consts, *xs)
            return [*outs[:n_known], *(_expand0(r) for r in outs[n_known:])]

        def unknown_fun(*xs):
            res = [shapes.squeeze(r, (0,)) for r in xs[:n_res]]
            return core.eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *xs[n_res:])

        known2 = pe.trace_to_closed_jaxpr(known_fun, known.in_avals, "shard_map")
        res_blocks = [ShapedArray((1, *a.shape), a.dtype, a.weak_type) for a in res_avals]
        unknown2 = pe.trace_to_closed_jaxpr(unknown_fun,
                                            [*res_blocks, *unknown.in_avals[n_res:]],
                                            "shard_map")
    return known2, unknown2, out_uk, n_res


def _expand0(x):
    shape = np.shape(x)
    return shapes.broadcast_in_dim(x, (1, *shape), tuple(range(1, len(shape) + 1)))


pe.partial_eval_rules[shard_map_p] = _partial_eval


def _dce(used_outputs, eqn):
    p = eqn.params
    closed = p["jaxpr"]
    dced, used_inputs = pe.dce_jaxpr(closed.jaxpr, used_outputs, instantiate=False)
    if not any(used_outputs) and not dced.effects:
        return [False] * len(eqn.invars), None
    keep = set(dced.constvars)
    consts = [c for v, c in zip(closed.jaxpr.constvars, closed.consts) if v in keep]
    params = dict(p, jaxpr=ClosedJaxpr(dced, consts),
                  in_specs=tuple(s for s, u in zip(p["in_specs"], used_inputs) if u),
                  out_specs=tuple(s for s, u in zip(p["out_specs"], used_outputs) if u))
    new_eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
                          outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                          params=params)
    return used_inputs, new_eqn


pe.dce_rules[shard_map_p] = _dce


# ----------------------------------------------------------------------------------------
# Running a body on the mesh's devices
# ----------------------------------------------------------------------------------------


class _DeviceProgram:
    """The body compiled once as an N-replica XLA program, plus how to move data."""

    def __init__(self, closed: ClosedJaxpr, mesh: Mesh, in_specs, out_specs):
        available = xla_backend.devices()
        if mesh.size > len(available):
            raise ValueError(f"compiling computation that requires {mesh.size} logical "
                             f"devices, but only {len(available)} XLA devices are available "
                             f"(num_replicas={mesh.size})")
        self.mesh = mesh
        self.in_dims = [_spec_dim(s, mesh.name) for s in in_specs]
        self.out_dims = [_spec_dim(s, mesh.name) for s in out_specs]
        self.in_avals = [_global_aval(a, s, mesh) for a, s in zip(closed.in_avals, in_specs)]
        self.out_avals = [_global_aval(a, s, mesh)
                          for a, s in zip(closed.out_avals, out_specs)]
        self.exe = _compile_replicated(closed, mesh)
        self.handlers = [xla_backend.xc().array_result_handler(
            a, _sharding(mesh, d, len(a.shape)), True, _skip_checks=True)
            for a, d in zip(self.out_avals, self.out_dims)]

    def __call__(self, args) -> list:
        bufs = [_put(np.asarray(x, a.dtype), d, self.mesh)
                for x, a, d in zip(args, self.in_avals, self.in_dims)]
        outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        return [_gather(o, a, d) for o, a, d in zip(outs, self.out_avals, self.out_dims)]


def _compile_replicated(closed: ClosedJaxpr, mesh: Mesh):
    xc = xla_backend.xc()
    module = lowering.ModuleBuilder(f"pmap_{_sym(mesh.name)}", num_replicas=mesh.size)
    module.cache[parallel.REPLICA_AXES] = {mesh.name: mesh.size}
    with _env(mesh):
        lowering.lower_function(module, "main", closed, public=True)
    opts = xc.CompileOptions()
    opts.num_replicas = mesh.size
    opts.num_partitions = 1
    ids = np.array([[d.id] for d in mesh.devices], np.int32)
    opts.device_assignment = xc.DeviceAssignment.create(ids)
    return xla_backend.compile(module.text(), devices_=mesh.devices, options=opts)


def _sym(name) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in str(name)) or "axis"


def _sharding(mesh: Mesh, d: int | None, ndim: int):
    xc = xla_backend.xc()
    devs = xc.DeviceList(mesh.devices)
    if d is None:
        return xc.GSPMDSharding(devs, xc.HloSharding.replicate())
    tiles = [1] * ndim
    tiles[d] = mesh.size
    return xc.GSPMDSharding(devs, xc.HloSharding.iota_tile(tiles))


def _put(x: np.ndarray, d: int | None, mesh: Mesh):
    """x as one global device array: block k (along d) on device k, or x on every device."""
    xc = xla_backend.xc()
    blocks = [x] * mesh.size if d is None else np.split(x, mesh.size, axis=d)
    blocks = [np.ascontiguousarray(b).reshape(b.shape) for b in blocks]
    aval = ShapedArray(x.shape, x.dtype)
    return xc.batched_device_put(aval, _sharding(mesh, d, x.ndim), blocks,
                                 list(mesh.devices), True, False,
                                 xc.HostBufferSemantics.ZERO_COPY, True)


def _gather(buf, aval, d: int | None) -> Array:
    shards = [xla_backend.to_host(s, aval.dtype) for s in xla_backend.device_buffers(buf)]
    host = shards[0] if d is None else np.concatenate(shards, axis=d)
    return Array(np.asarray(host, aval.dtype).reshape(aval.shape), aval)


# ----------------------------------------------------------------------------------------
# pmap
# ----------------------------------------------------------------------------------------


def device_count(backend=None) -> int:
    """The number of devices (CPU: 1, or --xla_force_host_platform_device_count)."""
    return len(xla_backend.devices())


def local_device_count(backend=None) -> int:
    return len(xla_backend.devices())


def local_devices(process_index=None, backend=None, host_id=None) -> list:
    return xla_backend.devices()



def pmap(fun: Callable, axis_name=None, *, in_axes=0, out_axes=0,
         static_broadcasted_argnums: int | Sequence[int] = (), devices=None, backend=None,
         axis_size: int | None = None, donate_argnums=(), global_arg_shapes=None):
    """Maps fun over the leading (or in_axes) axis of its arguments, one slice per device;
    collectives over `axis_name` (psum, axis_index, ...) communicate across devices."""
    check_callable(fun)
    name = DEFAULT_AXIS_NAME if axis_name is None else axis_name
    static = ensure_index_tuple(static_broadcasted_argnums)
    cache: dict = {}

    @functools.wraps(fun)
    def pmap_f(*args, **kwargs):
        nargs = len(args)
        static_idx = {i % nargs for i in static if -nargs <= i < nargs}
        dyn = tuple(a for i, a in enumerate(args) if i not in static_idx)
        flat, in_tree = tree_flatten((dyn, kwargs))
        axes = _flat_in_axes(in_axes, args, static_idx, kwargs, flat)
        size = _axis_size(flat, axes, axis_size)
        mesh = Mesh(_devices(devices, size), (name,))
        avals = tuple(shaped_abstractify(x) for x in flat)
        key = (in_tree, avals, tuple(axes), _static_key(args, static_idx), mesh)
        entry = cache.get(key)
        if entry is None:
            entry = _trace_body(fun, args, static_idx, in_tree, avals, axes, out_axes, mesh)
            if not any(isinstance(c, Tracer) for c in entry[1]):
                cache[key] = entry
        closed, consts, in_specs, out_specs, out_tree = entry
        outs = _call(closed, mesh, [*consts, *flat], in_specs, out_specs)
        return tree_unflatten(out_tree, outs)

    return pmap_f


def _static_key(args, static_idx):
    vals = tuple(args[i] for i in sorted(static_idx))
    try:
        hash(vals)
    except TypeError:
        raise ValueError("Non-hashable static arguments are not supported") from None
    return vals


def _flat_in_axes(in_axes, args, static_idx, kwargs, flat) -> list:
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    dyn = tuple(a for i, a in enumerate(args) if i not in static_idx)
    if isinstance(in_axes, tuple):
        if len(in_axes) == len(args) and static_idx:
            in_axes = tuple(a for i, a in enumerate(in_axes) if i not in static_idx)
        if len(in_axes) != len(dyn):
            raise ValueError("pmap in_axes must be an int, None, or a tuple of entries "
                             "corresponding to the positional arguments passed to the "
                             f"function, but got len(in_axes)={len(in_axes)}, "
                             f"len(args)={len(dyn)}")
    tree = (in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(dyn),
            {k: 0 for k in kwargs})
    axes = broadcast_prefix(tree, (dyn, kwargs), is_leaf=lambda x: x is None)
    return [None if a is None else a % max(np.ndim(x), 1) for a, x in zip(axes, flat)]


def _axis_size(flat, axes, axis_size) -> int:
    sizes = {np.shape(x)[a] for x, a in zip(flat, axes) if a is not None}
    if not sizes:
        if axis_size is None:
            raise ValueError("pmap requires at least one argument with a mapped axis.")
        return axis_size
    if len(sizes) > 1:
        raise ValueError(f"pmap got inconsistent sizes for array axes to be mapped: "
                         f"{sorted(sizes)}")
    return next(iter(sizes))


def _devices(devices, size: int) -> list:
    if devices is not None:
        devices = list(devices)
        if len(devices) != size:
            raise ValueError(f"Leading axis size of input to pmapped function must equal the "
                             f"number of local devices passed to pmap. Got axis_size={size}, "
                             f"num_local_devices={len(devices)}.")
        return devices
    available = xla_backend.devices()
    if size > len(available):
        raise ValueError(f"compiling computation that requires {size} logical devices, but "
                         f"only {len(available)} XLA devices are available "
                         f"(num_replicas={size})")
    return available[:size]


def _trace_body(fun, args, static_idx, in_tree, avals, axes, out_axes, mesh: Mesh):
    """The per-device body: squeeze each mapped block, call fun, re-expand each result."""
    in_specs = [P() if a is None else P(*([None] * a), mesh.name) for a in axes]
    blocks = [_block_aval(v, s, mesh) for v, s in zip(avals, in_specs)]
    store: dict = {}

    def body(*xs):
        xs = [x if a is None else shapes.squeeze(x, (a,)) for x, a in zip(xs, axes)]
        dyn, kwargs = tree_unflatten(in_tree, xs)
        it = iter(dyn)
        full = [args[i] if i in static_idx else next(it) for i in range(len(args))]
        outs, store["tree"] = tree_flatten(fun(*full, **kwargs))
        o_axes = _flat_out_axes(out_axes, store["tree"], outs)
        store["axes"] = o_axes
        return [_expand(o, a) for o, a in zip(outs, o_axes)]

    with _env(mesh):
        closed = pe.trace_to_closed_jaxpr(body, blocks, "pmap")
    consts = list(closed.consts)  # closed-over values become replicated arguments
    if consts:
        closed = ClosedJaxpr(pe.convert_constvars_jaxpr(closed.jaxpr), ())
        in_specs = [P()] * len(consts) + in_specs
    out_specs = [P(*([None] * a), mesh.name) for a in store["axes"]]
    return closed, consts, tuple(in_specs), tuple(out_specs), store["tree"]


def _call(closed: ClosedJaxpr, mesh: Mesh, args, in_specs, out_specs) -> list:
    """Staged as JAX stages pmap (a jit named `_fun` of the shard_map); otherwise the
    shard_map is bound directly (run on the devices, or transformed)."""
    if not _staging():
        return _bind(args, closed, mesh, in_specs, out_specs)
    from didax._src.pjit import jit_p  # noqa: PLC0415

    avals = tuple(shaped_abstractify(a) for a in args)
    jit_closed = _memoized(closed, ("jit", avals, in_specs, out_specs),
                           lambda: pe.trace_to_closed_jaxpr(
                               lambda *xs: _bind(xs, closed, mesh, in_specs, out_specs),
                               list(avals), "jit"))
    return jit_p.bind(*args, jaxpr=jit_closed, name="_fun",
                      donated_invars=(False,) * len(args), keep_unused=False, inline=False)


def _staging() -> bool:
    """Whether a jaxpr is being built (some enclosing trace stages equations)."""
    t = core.trace_ctx.trace
    while t is not None:
        if type(t) is pe.DynamicJaxprTrace:  # not JaxprTrace (linearize stages tangents)
            return True
        t = getattr(t, "parent_trace", None)
    return False


def _flat_out_axes(out_axes, out_tree, outs) -> list[int]:
    axes = broadcast_prefix(out_axes, tree_unflatten(out_tree, list(outs)),
                            is_leaf=lambda x: x is None)
    res = []
    for a, o in zip(axes, outs):
        if a is None:
            raise NotImplementedError("pmap out_axes=None is not supported")
        res.append(a % (np.ndim(o) + 1))
    return res


def _expand(x, axis: int):
    shape = list(np.shape(x))
    dims = tuple(i if i < axis else i + 1 for i in range(len(shape)))
    shape.insert(axis, 1)
    return shapes.broadcast_in_dim(x, tuple(shape), dims)
