"""Implementation of didax.scipy (JAX's jax.scipy subset)."""
