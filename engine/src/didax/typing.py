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
