"""`jax.scipy.spatial`: the transform submodule."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax.scipy.spatial import transform as transform

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.spatial", __name__)
