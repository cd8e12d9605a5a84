"""`jax.stages`: the types of jit's stages (Traced -> Lowered -> Compiled), ArgInfo, and the
Wrapped protocol / CompilerOptions names for annotations."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.stages import ArgInfo as ArgInfo
from didax._src.stages import Compiled as Compiled
from didax._src.stages import CompilerOptions as CompilerOptions
from didax._src.stages import Lowered as Lowered
from didax._src.stages import Traced as Traced
from didax._src.stages import Wrapped as Wrapped

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.stages", __name__)
