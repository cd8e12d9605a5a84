"""didax.custom_derivatives: user-defined derivative rules (public re-exports)."""

from didax._src.closure_convert import closure_convert as closure_convert
from didax._src.custom_derivatives import SymbolicZero as SymbolicZero
from didax._src.custom_derivatives import custom_jvp as custom_jvp
from didax._src.custom_derivatives import custom_vjp as custom_vjp
from didax._src.custom_derivatives import zero_from_primal as zero_from_primal
