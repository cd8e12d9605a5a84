"""The sharding entry points of the `jax` namespace built on the transformations:
`jax.reshard` (lay out anew, eagerly or inside jit) and `jax.make_array_from_callback`
(a sharded array assembled from per-device blocks).

May import everything below the public modules.
"""

from __future__ import annotations

import numpy as np

from didax._src import api, dtypes
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


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """A global array of `shape` laid out by `sharding`, each device's block fetched by
    `data_callback(index)` (index: the tuple of slices of the global array it holds)."""
    shape = tuple(int(d) for d in shape)
    if hasattr(sharding, "devices_indices_map"):
        index_map = sharding.devices_indices_map(shape)
    else:  # one device holds everything
        index_map = {d: (slice(None),) * len(shape) for d in sharding.device_set}
    host = None
    for index in index_map.values():
        block = np.asarray(data_callback(index))
        if host is None:
            host = np.zeros(shape, _checked_dtype(dtype, block.dtype))
        host[index] = block
    if host is None:
        host = np.zeros(shape, dtype)
    return api.device_put(host, sharding)


def _checked_dtype(dtype, shard_dtype):
    shard_dtype = dtypes.canonicalize_dtype(shard_dtype)
    if dtype is not None and dtypes.canonicalize_dtype(dtype) != shard_dtype:
        raise ValueError("If `dtype` is provided to `jax.make_array_from_callback`, it must "
                         "match the dtype of the addressable shards. Got "
                         f"dtype={np.dtype(dtype)} and shard dtype={shard_dtype}`.")
    return shard_dtype
