"""didax.export: serialize jitted functions as StableHLO and call them later (the
`jax.export` API: export, Exported, deserialize, DisabledSafetyCheck, ...)."""

from didax._src.export import CALLING_CONVENTION_VERSION as CALLING_CONVENTION_VERSION
from didax._src.export import DisabledSafetyCheck as DisabledSafetyCheck
from didax._src.export import Exported as Exported
from didax._src.export import default_export_platform as default_export_platform
from didax._src.export import deserialize as deserialize
from didax._src.export import export as export
from didax._src.export import (
    maximum_supported_calling_convention_version as maximum_supported_calling_convention_version,
)
from didax._src.export import (
    minimum_supported_calling_convention_version as minimum_supported_calling_convention_version,
)
from didax._src.export_format import (
    register_namedtuple_serialization as register_namedtuple_serialization,
)
from didax._src.export_format import (
    register_pytree_node_serialization as register_pytree_node_serialization,
)
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.export", __name__)
