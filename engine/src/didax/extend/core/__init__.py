"""`jax.extend.core`: primitives and the jaxpr IR as user code builds on them (the "Writing
custom Jaxpr interpreters" and "How JAX primitives work" tutorials); re-exports."""

from didax._src.core import AbstractToken as AbstractToken
from didax._src.core import ClosedJaxpr as ClosedJaxpr
from didax._src.core import DropVar as DropVar
from didax._src.core import Jaxpr as Jaxpr
from didax._src.core import JaxprEqn as JaxprEqn
from didax._src.core import Literal as Literal
from didax._src.core import Primitive as Primitive
from didax._src.core import Token as Token
from didax._src.core import Var as Var
from didax._src.core import check_jaxpr as check_jaxpr
from didax._src.core import concrete_or_error as concrete_or_error
from didax._src.core import jaxpr_as_fun as jaxpr_as_fun
from didax._src.core import jaxprs_in_params as jaxprs_in_params
from didax._src.core import new_eqn as new_jaxpr_eqn
from didax._src.core import set_current_trace as set_current_trace
from didax._src.core import subjaxprs as subjaxprs
from didax._src.core import valid_jaxtype as valid_jaxtype
from didax._src.errors import JaxprTypeError as JaxprTypeError
from didax.extend.core import primitives as primitives

no_effects: frozenset = frozenset()

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.extend.core", __name__)
