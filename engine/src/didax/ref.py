"""Mutable array references (`jax.ref`): `new_ref`, `get`, `set`, `swap`, `addupdate`,
`freeze`, the `Ref` type and its aval `AbstractRef`.

Imports: didax._src.state only.
"""

from didax._src.state import control_flow as _control_flow  # noqa: F401 - its rules
from didax._src.state import discharge as _discharge  # noqa: F401 - installs jit's hooks
from didax._src.state.primitives import empty_ref as empty_ref
from didax._src.state.primitives import free_ref as free_ref
from didax._src.state.primitives import freeze as freeze
from didax._src.state.primitives import new_ref as new_ref
from didax._src.state.primitives import ref_addupdate as addupdate
from didax._src.state.primitives import ref_get as get
from didax._src.state.primitives import ref_set as set  # noqa: A001 - JAX's name
from didax._src.state.primitives import ref_swap as swap
from didax._src.state.types import AbstractRef as AbstractRef
from didax._src.state.types import Ref as Ref

__all__ = ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get",
           "new_ref", "set", "swap"]
