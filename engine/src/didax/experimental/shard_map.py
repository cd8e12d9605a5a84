"""`jax.experimental.shard_map`: the older spelling of `jax.shard_map` (mesh positional,
`check_rep`), deprecated as in JAX 0.10 (a DeprecationWarning on use)."""

import warnings

from didax._src.shard_map import experimental_shard_map as _shard_map


def __getattr__(name):
    if name == "shard_map":
        warnings.warn("jax.experimental.shard_map is deprecated in v0.8.0. Used "
                      "jax.shard_map instead.", DeprecationWarning, stacklevel=2)
        return _shard_map
    raise AttributeError(f"module 'jax.experimental.shard_map' has no attribute '{name}'")
