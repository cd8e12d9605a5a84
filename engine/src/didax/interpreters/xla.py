"""`jax.interpreters.xla`: evaluating one primitive by compiling it (`apply_primitive`);
re-exports."""

from didax._src.lax.dispatch import apply_primitive as apply_primitive
