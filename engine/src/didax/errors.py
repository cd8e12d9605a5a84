"""`didax.errors`: the error classes, named as in `jax.errors`."""

from didax._src.errors import (
    ConcretizationTypeError as ConcretizationTypeError,
)
from didax._src.errors import (
    JAXIndexError as JAXIndexError,
)
from didax._src.errors import (
    JaxprTypeError as JaxprTypeError,
)
from didax._src.errors import (
    JaxRuntimeError as JaxRuntimeError,
)
from didax._src.errors import (
    JAXTypeError as JAXTypeError,
)
from didax._src.errors import (
    KeyReuseError as KeyReuseError,
)
from didax._src.errors import (
    NonConcreteBooleanIndexError as NonConcreteBooleanIndexError,
)
from didax._src.errors import (
    TracerArrayConversionError as TracerArrayConversionError,
)
from didax._src.errors import (
    TracerBoolConversionError as TracerBoolConversionError,
)
from didax._src.errors import (
    TracerIntegerConversionError as TracerIntegerConversionError,
)
from didax._src.errors import (
    UnexpectedTracerError as UnexpectedTracerError,
)
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.errors", __name__)
