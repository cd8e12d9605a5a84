"""`jax.scipy.ndimage`: map_coordinates."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy.ndimage import map_coordinates as map_coordinates

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.ndimage", __name__)
