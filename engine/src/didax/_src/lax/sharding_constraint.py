"""`jax.lax.with_sharding_constraint`: the `sharding_constraint` primitive, an identity that
asks for a layout. Eagerly it lays the value out (a sharded array); staged, it lowers to
XLA's `@Sharding` custom call when the program is partitioned over a mesh (an identity on
one device); derivatives carry the same constraint, and vmap leaves the batch dimension
unsharded.

May import core, the interpreters, lax._define, array and sharding.
"""

from __future__ import annotations

from didax._src import core
from didax._src.array import Array
from didax._src.interpreters.ad import Zero
from didax._src.lax._define import def_primitive
from didax._src.sharding import NamedSharding, PartitionSpec, ShardedArray, get_mesh, put_sharded
from didax._src.tree_util import tree_flatten, tree_unflatten


def _impl(x, *, sharding):
    if type(x) is ShardedArray and x._named == sharding:
        return x
    aval = core.get_aval(x)
    return put_sharded(x._value if isinstance(x, Array) else x, aval, sharding)


def _lower(ctx, x, *, sharding):
    if ctx.module.num_partitions <= 1:
        return x
    s = sharding.hlo_string(len(ctx.avals_in[0].shape))
    return ctx.fn.op1("stablehlo.custom_call", [x], ctx.avals_out[0],
                      f'call_target_name = "Sharding", mhlo.sharding = "{s}"')


def _batch(axis_data, vals, dims, *, sharding):
    (x,), (d,) = vals, dims
    parts = list(sharding.spec) + [None] * (len(core.get_aval(x).shape) - 1 - len(sharding.spec))
    parts.insert(d, None)
    return sharding_constraint_p.bind(x, sharding=sharding.with_spec(PartitionSpec(*parts))), d


sharding_constraint_p = def_primitive(
    "sharding_constraint", abstract_eval=lambda x, *, sharding: x, impl=None,
    eager_impl=_impl,
    jvp=lambda primals, tangents, *, sharding: (
        sharding_constraint_p.bind(primals[0], sharding=sharding),
        tangents[0] if type(tangents[0]) is Zero
        else sharding_constraint_p.bind(tangents[0], sharding=sharding)),
    transpose=lambda ct, x, *, sharding: [
        Zero(x.aval) if type(ct) is Zero else sharding_constraint_p.bind(ct, sharding=sharding)],
    batch=_batch, lower=_lower, linear="joint")


def with_sharding_constraint(x, shardings):
    """x (a pytree), each leaf constrained to its sharding (a NamedSharding, or a
    PartitionSpec over the current mesh); shardings may be a pytree prefix of x."""
    leaves, tree = tree_flatten(x)
    specs = shardings if isinstance(shardings, (list, tuple)) and len(shardings) == len(
        leaves) and not isinstance(shardings, PartitionSpec) else [shardings] * len(leaves)
    out = []
    for v, s in zip(leaves, specs):
        if isinstance(s, PartitionSpec):
            mesh = get_mesh()
            if mesh is None:
                raise ValueError("with_sharding_constraint with a PartitionSpec needs a mesh: "
                                 "use jax.set_mesh(mesh) or pass a NamedSharding")
            s = NamedSharding(mesh, s)
        out.append(sharding_constraint_p.bind(v, sharding=s))
    return tree_unflatten(tree, out)


def meshes_in(jaxpr: core.Jaxpr) -> list:
    """The meshes of the sharding constraints in jaxpr (sub-jaxprs included)."""
    found = []
    for eqn in jaxpr.eqns:
        if eqn.primitive is sharding_constraint_p:
            found.append(eqn.params["sharding"].mesh)
        for sub in core.jaxprs_in_params(eqn.params):
            found += meshes_in(sub)
    return found
