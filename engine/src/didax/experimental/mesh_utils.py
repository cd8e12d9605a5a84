"""`jax.experimental.mesh_utils`: create_device_mesh, create_hybrid_device_mesh."""

from didax._src.mesh_utils import create_device_mesh as create_device_mesh
from didax._src.mesh_utils import create_hybrid_device_mesh as create_hybrid_device_mesh
from didax._src.mesh_utils import device_kind_handler_dict as device_kind_handler_dict
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.experimental.mesh_utils", __name__)
