"""`jax.example_libraries`: the small example libraries JAX ships — `stax` (neural
networks as init/apply pairs) and `optimizers` (first-order optimizers over pytrees)."""

from didax.example_libraries import optimizers as optimizers
from didax.example_libraries import stax as stax
