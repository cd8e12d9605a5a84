"""`jax.ad_checkpoint`: checkpointing (rematerialization), its policies, `checkpoint_name`
and the residual report; re-exports."""

from didax._src.ad_checkpoint import checkpoint as checkpoint
from didax._src.ad_checkpoint import checkpoint_name as checkpoint_name
from didax._src.ad_checkpoint import checkpoint_policies as checkpoint_policies
from didax._src.ad_checkpoint import remat as remat
from didax._src.api_extras import print_saved_residuals as print_saved_residuals
from didax._src.api_extras import saved_residuals as saved_residuals
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.ad_checkpoint", __name__)
