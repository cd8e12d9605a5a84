"""`jax.scipy.cluster`: the vq submodule."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax.scipy.cluster import vq as vq

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.cluster", __name__)
