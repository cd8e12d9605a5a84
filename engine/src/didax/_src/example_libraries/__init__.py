"""Implementation of `jax.example_libraries` (stax, optimizers)."""
