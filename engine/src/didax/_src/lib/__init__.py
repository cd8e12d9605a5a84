"""`jax._src.lib`: the jaxlib pieces user code reaches through JAX's private path (the
"How JAX primitives work" tutorial imports `jax._src.lib.mlir.dialects.hlo`)."""

import jaxlib as _jaxlib

version_str = _jaxlib.__version__
version = tuple(int(p) for p in version_str.split(".")[:3] if p.isdigit())
