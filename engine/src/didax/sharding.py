"""`jax.sharding`: meshes, partition specs and shardings over the CPU devices; re-exports."""

from didax._src.array import Shard as Shard
from didax._src.sharding import AbstractMesh as AbstractMesh
from didax._src.sharding import AxisType as AxisType
from didax._src.sharding import Mesh as Mesh
from didax._src.sharding import NamedSharding as NamedSharding
from didax._src.sharding import PartitionSpec as PartitionSpec
from didax._src.sharding import SingleDeviceSharding as SingleDeviceSharding
from didax._src.sharding import get_abstract_mesh as get_abstract_mesh
from didax._src.sharding import get_mesh as get_mesh
from didax._src.sharding import set_mesh as set_mesh
from didax._src.sharding import use_abstract_mesh as use_abstract_mesh
from didax._src.sharding import use_mesh as use_mesh
from didax._src.sharding_api import reshard as reshard

Sharding = (NamedSharding, SingleDeviceSharding)

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.sharding", __name__)
