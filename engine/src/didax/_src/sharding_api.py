"""The sharding entry points of the `jax` namespace built on the transformations:
`jax.reshard` (lay out anew, eagerly or inside jit).

May import everything below the public modules.
"""

from __future__ import annotations

from didax._src import api
from didax._src.sharding import NamedSharding, PartitionSpec, get_mesh


def reshard(xs, out_shardings):
    """xs laid out by out_shardings (NamedShardings, or PartitionSpecs of the current mesh)."""
    def to_sharding(s):
        if isinstance(s, PartitionSpec):
            mesh = get_mesh()
            if mesh is None:
                raise ValueError("reshard with a PartitionSpec needs a mesh: use "
                                 "jax.set_mesh(mesh) or pass a NamedSharding")
            return NamedSharding(mesh, s)
        return s
    if isinstance(out_shardings, (NamedSharding, PartitionSpec)):
        return api.device_put(xs, to_sharding(out_shardings))
    from didax._src.tree_util import tree_map  # noqa: PLC0415

    return api.device_put(xs, tree_map(to_sharding, out_shardings))
