"""`didax.nn.initializers`: JAX's parameter initializers."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.nn_initializers import (
    Initializer as Initializer,
)
from didax._src.nn_initializers import (
    constant as constant,
)
from didax._src.nn_initializers import (
    delta_orthogonal as delta_orthogonal,
)
from didax._src.nn_initializers import (
    glorot_normal as glorot_normal,
)
from didax._src.nn_initializers import (
    glorot_uniform as glorot_uniform,
)
from didax._src.nn_initializers import (
    he_normal as he_normal,
)
from didax._src.nn_initializers import (
    he_uniform as he_uniform,
)
from didax._src.nn_initializers import (
    kaiming_normal as kaiming_normal,
)
from didax._src.nn_initializers import (
    kaiming_uniform as kaiming_uniform,
)
from didax._src.nn_initializers import (
    lecun_normal as lecun_normal,
)
from didax._src.nn_initializers import (
    lecun_uniform as lecun_uniform,
)
from didax._src.nn_initializers import (
    normal as normal,
)
from didax._src.nn_initializers import (
    ones as ones,
)
from didax._src.nn_initializers import (
    orthogonal as orthogonal,
)
from didax._src.nn_initializers import (
    truncated_normal as truncated_normal,
)
from didax._src.nn_initializers import (
    uniform as uniform,
)
from didax._src.nn_initializers import (
    variance_scaling as variance_scaling,
)
from didax._src.nn_initializers import (
    xavier_normal as xavier_normal,
)
from didax._src.nn_initializers import (
    xavier_uniform as xavier_uniform,
)
from didax._src.nn_initializers import (
    zeros as zeros,
)

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.nn.initializers", __name__)
