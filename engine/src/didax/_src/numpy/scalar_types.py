"""JAX-style scalar types of didax.numpy (`jnp.float32`, `jnp.int8`, ...): classes that
compare and hash like NumPy's scalar types and work as dtypes, but whose call builds a
didax Array (JAX has no scalar objects: `jnp.float32(3)` is a 0-d float32 Array).

May import core, dtypes and numpy.array_creation.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from didax._src import core, dtypes


class _ScalarMeta(type):
    """Metaclass of the scalar types: the class itself behaves as its dtype."""

    dtype: np.dtype

    @property
    def __numpy_dtype__(cls) -> np.dtype:
        return cls.dtype

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other: Any) -> bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other: Any) -> bool:
        return not cls == other

    def __call__(cls, x: Any):
        from didax._src.numpy.array_creation import asarray  # noqa: PLC0415

        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.dtype.type)


def _not_an_array(x):
    raise TypeError(f"JAX scalar type {x} cannot be interpreted as a JAX array.")


core.pytype_aval_mappings[_ScalarMeta] = _not_an_array


def _make(np_type) -> _ScalarMeta:
    name = np.dtype(np_type).name
    cls = _ScalarMeta(name, (object,), {"dtype": np.dtype(np_type)})
    cls.__module__ = "didax.numpy"
    cls.__doc__ = (f"The didax scalar constructor of type {name}: calling it returns a 0-d "
                   "(or n-d) didax Array of that dtype.")
    return cls


bool_ = _make(np.bool_)
uint8, uint16 = _make(np.uint8), _make(np.uint16)
uint32, uint64 = _make(np.uint32), _make(np.uint64)
int8, int16 = _make(np.int8), _make(np.int16)
int32, int64 = _make(np.int32), _make(np.int64)
bfloat16 = _make(dtypes.bfloat16)
float16, float32, float64 = _make(np.float16), _make(np.float32), _make(np.float64)
complex64, complex128 = _make(np.complex64), _make(np.complex128)

_ML_NAMES = ("int2", "int4", "uint2", "uint4", "float4_e2m1fn", "float6_e2m3fn",
             "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
             "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
             "float8_e5m2fnuz", "int1", "uint1")
ml_types = {n: _make(getattr(ml_dtypes, n)) for n in _ML_NAMES if hasattr(ml_dtypes, n)}

single, double = float32, float64
csingle, cdouble = complex64, complex128
int_, uint, float_, complex_ = int64, uint64, float64, complex128
