"""`didax.nn`: JAX's jax.nn activation functions and helpers, and `initializers`."""

from didax._src.attention import BlockScaleConfig as _BlockScaleConfig  # noqa: F401
from didax._src.attention import dot_product_attention as dot_product_attention
from didax._src.attention import (
    get_scaled_dot_general_config as get_scaled_dot_general_config,
)
from didax._src.attention import scaled_dot_general as scaled_dot_general
from didax._src.attention import scaled_matmul as scaled_matmul
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.nn import (
    celu as celu,
)
from didax._src.nn import (
    elu as elu,
)
from didax._src.nn import (
    gelu as gelu,
)
from didax._src.nn import (
    glu as glu,
)
from didax._src.nn import (
    hard_sigmoid as hard_sigmoid,
)
from didax._src.nn import (
    hard_silu as hard_silu,
)
from didax._src.nn import (
    hard_swish as hard_swish,
)
from didax._src.nn import (
    hard_tanh as hard_tanh,
)
from didax._src.nn import (
    identity as identity,
)
from didax._src.nn import (
    leaky_relu as leaky_relu,
)
from didax._src.nn import (
    log1mexp as log1mexp,
)
from didax._src.nn import (
    log_sigmoid as log_sigmoid,
)
from didax._src.nn import (
    log_softmax as log_softmax,
)
from didax._src.nn import (
    logmeanexp as logmeanexp,
)
from didax._src.nn import (
    logsumexp as logsumexp,
)
from didax._src.nn import (
    mish as mish,
)
from didax._src.nn import (
    one_hot as one_hot,
)
from didax._src.nn import (
    relu as relu,
)
from didax._src.nn import (
    relu6 as relu6,
)
from didax._src.nn import (
    selu as selu,
)
from didax._src.nn import (
    sigmoid as sigmoid,
)
from didax._src.nn import (
    silu as silu,
)
from didax._src.nn import (
    soft_sign as soft_sign,
)
from didax._src.nn import (
    softmax as softmax,
)
from didax._src.nn import (
    softplus as softplus,
)
from didax._src.nn import (
    sparse_plus as sparse_plus,
)
from didax._src.nn import (
    sparse_sigmoid as sparse_sigmoid,
)
from didax._src.nn import (
    squareplus as squareplus,
)
from didax._src.nn import (
    standardize as standardize,
)
from didax._src.nn import (
    swish as swish,
)
from didax._src.nn import (
    tanh as tanh,
)
from didax.nn import initializers as initializers

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.nn", __name__)
