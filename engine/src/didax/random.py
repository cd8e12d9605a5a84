"""`didax.random`: JAX's `jax.random` API — threefry2x32 keys (typed `key<fry>` keys and
legacy uint32[2] keys) and the samplers, bit-exact with JAX 0.10's defaults."""

from didax._src.prng import PRNGImpl as PRNGImpl
from didax._src.random import (
    PRNGKey as PRNGKey,
)
from didax._src.random import (
    PRNGSpec as PRNGSpec,
)
from didax._src.random import (
    bernoulli as bernoulli,
)
from didax._src.random import (
    bits as bits,
)
from didax._src.random import (
    categorical as categorical,
)
from didax._src.random import (
    cauchy as cauchy,
)
from didax._src.random import (
    choice as choice,
)
from didax._src.random import (
    clone as clone,
)
from didax._src.random import (
    default_prng_impl as default_prng_impl,
)
from didax._src.random import (
    exponential as exponential,
)
from didax._src.random import (
    fold_in as fold_in,
)
from didax._src.random import (
    gumbel as gumbel,
)
from didax._src.random import (
    key as key,
)
from didax._src.random import (
    key_data as key_data,
)
from didax._src.random import (
    key_dtype as key_dtype,
)
from didax._src.random import (
    key_impl as key_impl,
)
from didax._src.random import (
    laplace as laplace,
)
from didax._src.random import (
    logistic as logistic,
)
from didax._src.random import (
    normal as normal,
)
from didax._src.random import (
    permutation as permutation,
)
from didax._src.random import (
    randint as randint,
)
from didax._src.random import (
    resolve_prng_impl as resolve_prng_impl,
)
from didax._src.random import (
    split as split,
)
from didax._src.random import (
    truncated_normal as truncated_normal,
)
from didax._src.random import (
    uniform as uniform,
)
from didax._src.random import (
    wrap_key_data as wrap_key_data,
)
from didax._src.random_extra import (
    double_sided_maxwell as double_sided_maxwell,
)
from didax._src.random_extra import (
    geometric as geometric,
)
from didax._src.random_extra import (
    lognormal as lognormal,
)
from didax._src.random_extra import (
    maxwell as maxwell,
)
from didax._src.random_extra import (
    pareto as pareto,
)
from didax._src.random_extra import (
    rademacher as rademacher,
)
from didax._src.random_extra import (
    rayleigh as rayleigh,
)
from didax._src.random_extra import (
    triangular as triangular,
)
from didax._src.random_extra import (
    wald as wald,
)
from didax._src.random_extra import (
    weibull_min as weibull_min,
)
