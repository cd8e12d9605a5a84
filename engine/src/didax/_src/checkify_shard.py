"""checkify's rule for the shard_map primitive (jax.shard_map over a sharding mesh, and
pmap's over its device mesh), as JAX's: the body is checkified per device, the incoming
error enters replicated (P()), and the error leaves with a leading axis over the devices —
one error per device, so `err.get()` reads "at mapped index i: ..." as a batched error.

Registers into checkify_rules.error_checks. May import core, the interpreters, lax,
pmap, shard_map, sharding, tree_util, checkify_rules.
"""

from __future__ import annotations

from didax._src import core, pmap
from didax._src import shard_map as shmap
from didax._src.checkify_rules import checkify_subjaxpr, error_checks
from didax._src.core import ClosedJaxpr, get_aval
from didax._src.interpreters import partial_eval as pe
from didax._src.lax import shapes
from didax._src.sharding import AbstractMesh, PartitionSpec
from didax._src.tree_util import tree_flatten


def _mesh_kind(mesh, newly_manual_axes):
    """(axis environment, block aval of (aval, spec), replicated spec, spec splitting a
    leading axis over every device) for the equation's kind of mesh."""
    if isinstance(mesh, AbstractMesh):
        axes = shmap._axes(mesh, newly_manual_axes)
        sizes = dict(axes)
        return (lambda: shmap._bound(axes), lambda a, s: shmap._block_aval(a, s, sizes),
                PartitionSpec(), PartitionSpec(tuple(n for n, _ in axes)))
    return (lambda: pmap._env(mesh), lambda a, s: pmap._block_aval(a, s, mesh),
            pmap.P(), pmap.P(mesh.name))


def _errors_with_device_axis(closed: ClosedJaxpr, n_err: int) -> tuple[ClosedJaxpr, list]:
    """closed, its error results given a leading axis of size 1 (the device's), and its
    constants as leading inputs."""
    def fun(*xs):
        outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *xs)
        return [*(shapes.expand_dims(e, (0,)) for e in outs[:n_err]), *outs[n_err:]]

    traced = pe.trace_to_closed_jaxpr(fun, closed.in_avals, "checkify")
    return ClosedJaxpr(pe.convert_constvars_jaxpr(traced.jaxpr), ()), list(traced.consts)


def shard_map_error_check(error, enabled_errors, *vals_in, jaxpr, mesh, in_specs, out_specs,
                          check_vma, newly_manual_axes):
    env, block, rep, split = _mesh_kind(mesh, newly_manual_axes)
    err_vals, err_tree = tree_flatten(error)
    in_avals = [*(get_aval(e) for e in err_vals),
                *(block(get_aval(v), s) for v, s in zip(vals_in, in_specs))]
    with env():
        checked = checkify_subjaxpr(jaxpr, enabled_errors, err_tree, in_avals)
        n_err = checked.out_tree.num_leaves - len(out_specs)
        body, consts = checked.derive(
            "shard_map", lambda: _errors_with_device_axis(checked.closed, n_err))
    n_in = len(consts) + len(err_vals)
    outs = pmap.shard_map_p.bind(
        *consts, *err_vals, *vals_in, jaxpr=body, mesh=mesh,
        in_specs=(rep,) * n_in + tuple(in_specs), out_specs=(split,) * n_err + tuple(out_specs),
        check_vma=check_vma, newly_manual_axes=newly_manual_axes)
    return checked.unflatten(outs)


error_checks[pmap.shard_map_p] = shard_map_error_check
