"""`jax.test_util`: derivative checks against finite differences; re-exports only."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.test_util import check_grads as check_grads
from didax._src.test_util import check_jvp as check_jvp
from didax._src.test_util import check_vjp as check_vjp

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.test_util", __name__)
