"""`jax.interpreters.batching`: vmap rule tables and helpers; re-exports."""

from didax._src.interpreters.batching import (
    axis_primitive_batchers as axis_primitive_batchers,
)
from didax._src.interpreters.batching import bdim_at_front as bdim_at_front
from didax._src.interpreters.batching import broadcast as broadcast
from didax._src.interpreters.batching import defbroadcasting as defbroadcasting
from didax._src.interpreters.batching import defvectorized as defvectorized
from didax._src.interpreters.batching import matchaxis as matchaxis
from didax._src.interpreters.batching import moveaxis as moveaxis
from didax._src.interpreters.batching import not_mapped as not_mapped
from didax._src.interpreters.batching import primitive_batchers as _fancy
from didax._src.interpreters.user_rules import primitive_batchers as primitive_batchers

# didax's own table holds rules rule(axis_data, vals, dims, **params): JAX's "fancy" ones
fancy_primitive_batchers = _fancy

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.interpreters.batching", __name__)
