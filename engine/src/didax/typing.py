"""`jax.typing`: the annotations JAX code uses for array-like arguments and dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np

from didax._src.basearray import Array

# Anything jnp.asarray accepts: Arrays, NumPy arrays and scalars, Python scalars.
ArrayLike = Array | np.ndarray | np.bool_ | np.number | bool | int | float | complex
# Anything jnp.dtype accepts.
DTypeLike = str | type | np.dtype | Any

__all__ = ["ArrayLike", "DTypeLike"]

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.typing", __name__)
