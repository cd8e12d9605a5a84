"""`jax.experimental.checkify`: functionalized run-time checks (user checks, NaNs, division
by zero, out-of-bounds indexing); re-exports."""

from didax._src.checkify import Error as Error
from didax._src.checkify import ErrorCategory as ErrorCategory
from didax._src.checkify import JaxRuntimeError as JaxRuntimeError
from didax._src.checkify import all_checks as all_checks
from didax._src.checkify import automatic_checks as automatic_checks
from didax._src.checkify import check as check
from didax._src.checkify import check_error as check_error
from didax._src.checkify import checkify as checkify
from didax._src.checkify import debug_check as debug_check
from didax._src.checkify import div_checks as div_checks
from didax._src.checkify import float_checks as float_checks
from didax._src.checkify import index_checks as index_checks
from didax._src.checkify import init_error as init_error
from didax._src.checkify import nan_checks as nan_checks
from didax._src.checkify import user_checks as user_checks
from didax._src.missing import module_getattr as _module_getattr

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.experimental.checkify", __name__)
