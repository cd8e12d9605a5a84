"""`jax.interpreters.ad`: forward- and reverse-mode rule tables and helpers; re-exports."""

from didax._src.interpreters.ad import JVPTrace as JVPTrace
from didax._src.interpreters.ad import JVPTracer as JVPTracer
from didax._src.interpreters.ad import UndefinedPrimal as UndefinedPrimal
from didax._src.interpreters.ad import Zero as Zero
from didax._src.interpreters.ad import add_jaxvals_p as add_jaxvals_p
from didax._src.interpreters.ad import add_tangents as add_tangents
from didax._src.interpreters.ad import defbilinear as defbilinear
from didax._src.interpreters.ad import defjvp as defjvp
from didax._src.interpreters.ad import defjvp2 as defjvp2
from didax._src.interpreters.ad import instantiate_zeros as instantiate_zeros
from didax._src.interpreters.ad import is_undefined_primal as is_undefined_primal
from didax._src.interpreters.ad import primitive_jvps as primitive_jvps
from didax._src.interpreters.ad import primitive_transposes as primitive_transposes
from didax._src.interpreters.ad import zeros_like_aval as zeros_like_aval
from didax._src.interpreters.user_rules import add_jaxvals as add_jaxvals
from didax._src.interpreters.user_rules import deflinear as deflinear
from didax._src.interpreters.user_rules import deflinear2 as deflinear2
from didax._src.interpreters.user_rules import (
    get_primitive_transpose as get_primitive_transpose,
)
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.interpreters.ad", __name__)
