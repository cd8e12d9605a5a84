"""`jax.scipy.spatial.transform`: Rotation and Slerp."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy.spatial_transform import Rotation as Rotation
from didax._src.scipy.spatial_transform import Slerp as Slerp

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.spatial.transform", __name__)
