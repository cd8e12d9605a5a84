"""`didax.scipy`: JAX's jax.scipy subset (special functions)."""

from didax.scipy import special as special
