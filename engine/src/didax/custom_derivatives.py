"""didax.custom_derivatives: user-defined derivative rules (public re-exports)."""

from didax._src.closure_convert import closure_convert as closure_convert
from didax._src.custom_derivatives import SymbolicZero as SymbolicZero
from didax._src.custom_derivatives import custom_jvp as custom_jvp
from didax._src.custom_derivatives import custom_vjp as custom_vjp
from didax._src.custom_derivatives import zero_from_primal as zero_from_primal
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.custom_derivatives", __name__)
