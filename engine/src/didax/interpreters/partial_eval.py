"""`jax.interpreters.partial_eval`: staging traces and jaxpr dead-code elimination;
re-exports."""

from didax._src.interpreters.partial_eval import DynamicJaxprTrace as DynamicJaxprTrace
from didax._src.interpreters.partial_eval import DynamicJaxprTracer as DynamicJaxprTracer
from didax._src.interpreters.partial_eval import JaxprTracer as JaxprTracer
from didax._src.interpreters.partial_eval import dce_jaxpr as dce_jaxpr
from didax._src.interpreters.partial_eval import dce_rules as dce_rules
