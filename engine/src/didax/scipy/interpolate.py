"""`jax.scipy.interpolate`: RegularGridInterpolator."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy.interpolate import RegularGridInterpolator as RegularGridInterpolator

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.interpolate", __name__)
