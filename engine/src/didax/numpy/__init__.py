"""`didax.numpy`: NumPy's API on didax arrays, with JAX's semantics (immutable arrays,
JAX type promotion and weak types, everything differentiable and batchable)."""

import numpy as _np

from didax._src import dtypes as _dtypes
from didax._src.array import Array as ndarray
from didax._src.numpy import lax_numpy as _ln
from didax._src.numpy import reductions as _red
from didax._src.numpy import ufuncs as _uf
from didax._src.numpy.indexing import nonzero as nonzero
from didax._src.numpy.util import broadcast_to as _broadcast_to_impl

Array = ndarray

# dtypes and scalar types, as jax.numpy names them
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
bfloat16 = _dtypes.bfloat16
float_ = float64
int_ = int64
uint = uint64
complex_ = complex128
single, double = float32, float64
csingle, cdouble = complex64, complex128
generic, number, inexact, floating = _np.generic, _np.number, _np.inexact, _np.floating
complexfloating, integer = _np.complexfloating, _np.integer
signedinteger, unsignedinteger = _np.signedinteger, _np.unsignedinteger
dtype = _np.dtype
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo
issubdtype = _dtypes.issubdtype
isdtype = _dtypes.isdtype
promote_types = _dtypes.promote_types
can_cast = _np.can_cast

pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None


def result_type(*args):
    """The canonical dtype JAX's promotion assigns to args."""
    return _dtypes.canonicalize_dtype(_dtypes.result_type(*args))


def broadcast_to(array, shape):
    """Broadcasts array to shape."""
    return _broadcast_to_impl(_ln.asarray(array), tuple(shape) if not isinstance(shape, int)
                              else (shape,))


def _export(module, names=None):
    g = globals()
    for name in names or [n for n in dir(module) if not n.startswith("_")]:
        obj = getattr(module, name)
        if callable(obj) and getattr(obj, "__module__", "").startswith("didax._src.numpy"):
            g.setdefault(name, obj)


_export(_uf)
_export(_red)
_export(_ln)
del _export
