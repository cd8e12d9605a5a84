"""`jax.test_util`: derivative checks against finite differences; re-exports only."""

from didax._src.test_util import check_grads as check_grads
from didax._src.test_util import check_jvp as check_jvp
from didax._src.test_util import check_vjp as check_vjp
