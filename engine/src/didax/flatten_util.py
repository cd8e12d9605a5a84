"""`jax.flatten_util.ravel_pytree`: a pytree of arrays as one flat vector, and the
function that rebuilds the pytree from such a vector."""

from didax._src.flatten_util import ravel_pytree as ravel_pytree

__all__ = ["ravel_pytree"]

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.flatten_util", __name__)
