"""`jax.core`: the names JAX 0.10 keeps public there (`isinstance(x, jax.core.Tracer)`,
`jax.core.eval_jaxpr`, ...)."""

from didax._src.api_extras import ensure_compile_time_eval as ensure_compile_time_eval
from didax._src.core import AbstractValue as AbstractValue
from didax._src.core import Literal as _Literal
from didax._src.core import ShapedArray as ShapedArray
from didax._src.core import Trace as Trace
from didax._src.core import Tracer as Tracer
from didax._src.core import Var as _Var
from didax._src.core import eval_jaxpr as eval_jaxpr

Atom = _Var | _Literal

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.core", __name__)
