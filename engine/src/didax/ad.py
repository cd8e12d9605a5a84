"""`jax.ad`: what `f_vjp.with_refs(...)` takes per argument of the differentiated function
(`GradValue()`: return the gradient as a value; `DontWant()`: skip it; a `Ref`: add the
gradient into it) and the placeholders the VJP then returns (`GradRef()`, `DidntWant()`).

Imports: didax._src.vjp_fun only.
"""

from didax._src.vjp_fun import DidntWant as DidntWant
from didax._src.vjp_fun import DontWant as DontWant
from didax._src.vjp_fun import GradRef as GradRef
from didax._src.vjp_fun import GradValue as GradValue

__all__ = ["DidntWant", "DontWant", "GradRef", "GradValue"]
