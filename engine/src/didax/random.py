"""`didax.random`: JAX's `jax.random` API — threefry2x32 keys (typed `key<fry>` keys and
legacy uint32[2] keys) and the samplers, bit-exact with JAX 0.10's defaults."""

from didax._src.prng import PRNGImpl as PRNGImpl
from didax._src.prng_keys import PRNGKeyArray as _PRNGKeyArray  # noqa: F401
from didax._src.random import (
    PRNGKey as PRNGKey,
    PRNGSpec as PRNGSpec,
    bernoulli as bernoulli,
    bits as bits,
    categorical as categorical,
    cauchy as cauchy,
    choice as choice,
    clone as clone,
    default_prng_impl as default_prng_impl,
    exponential as exponential,
    fold_in as fold_in,
    gumbel as gumbel,
    key as key,
    key_data as key_data,
    key_dtype as key_dtype,
    key_impl as key_impl,
    laplace as laplace,
    logistic as logistic,
    normal as normal,
    permutation as permutation,
    randint as randint,
    resolve_prng_impl as resolve_prng_impl,
    split as split,
    truncated_normal as truncated_normal,
    uniform as uniform,
    wrap_key_data as wrap_key_data,
)
