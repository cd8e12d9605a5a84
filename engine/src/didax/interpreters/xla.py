"""`jax.interpreters.xla`: evaluating one primitive by compiling it (`apply_primitive`);
re-exports."""

from didax._src.lax.dispatch import apply_primitive as apply_primitive
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.interpreters.xla", __name__)
