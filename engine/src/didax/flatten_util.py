"""`jax.flatten_util.ravel_pytree`: a pytree of arrays as one flat vector, and the
function that rebuilds the pytree from such a vector."""

from didax._src.flatten_util import ravel_pytree as ravel_pytree

__all__ = ["ravel_pytree"]
