"""`jax.interpreters.partial_eval`: staging traces and jaxpr dead-code elimination;
re-exports."""

from didax._src.interpreters.partial_eval import DynamicJaxprTrace as DynamicJaxprTrace
from didax._src.interpreters.partial_eval import DynamicJaxprTracer as DynamicJaxprTracer
from didax._src.interpreters.partial_eval import JaxprTracer as JaxprTracer
from didax._src.interpreters.partial_eval import dce_jaxpr as dce_jaxpr
from didax._src.interpreters.partial_eval import dce_rules as dce_rules
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.interpreters.partial_eval", __name__)
