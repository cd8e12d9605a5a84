"""`didax.numpy`: NumPy's API on didax arrays, with JAX's semantics (immutable arrays,
JAX type promotion and weak types, everything differentiable and batchable)."""

import numpy as _np

from didax._src import dtypes as _dtypes
from didax._src.array import Array as ndarray
from didax._src.numpy import array_creation as _ac
from didax._src.numpy import einsum as _es
from didax._src.numpy import index_tricks as _it
from didax._src.numpy import indexing_ops as _io
from didax._src.numpy import lax_numpy as _ln
from didax._src.numpy import manipulation as _mp
from didax._src.numpy import numeric as _nm
from didax._src.numpy import pad as _pad
from didax._src.numpy import polynomial as _poly
from didax._src.numpy import products as _pr
from didax._src.numpy import reductions as _red
from didax._src.numpy import scalar_types as _st
from didax._src.numpy import setops as _set
from didax._src.numpy import sorting as _so
from didax._src.numpy import statistics as _stats
from didax._src.numpy import ufunc_api as _ufa
from didax._src.numpy import ufuncs as _uf
from didax._src.numpy import ufuncs_math as _um
from didax._src.numpy import vectorize as _vec
from didax._src.numpy.indexing import argwhere as argwhere
from didax._src.numpy.indexing import flatnonzero as flatnonzero
from didax._src.numpy.indexing import nonzero as nonzero
from didax._src.numpy.indexing import put_along_axis as put_along_axis
from didax._src.numpy.indexing import take as take
from didax._src.numpy.indexing import take_along_axis as take_along_axis

# --- scalar types (callable: jnp.float32(3) is a 0-d float32 Array) and dtype helpers
bool_ = bool = _st.bool_  # noqa: A001
int8, int16, int32, int64 = _st.int8, _st.int16, _st.int32, _st.int64
uint8, uint16, uint32, uint64 = _st.uint8, _st.uint16, _st.uint32, _st.uint64
float16, float32, float64 = _st.float16, _st.float32, _st.float64
complex64, complex128 = _st.complex64, _st.complex128
bfloat16 = _st.bfloat16
float_, int_, uint, complex_ = _st.float_, _st.int_, _st.uint, _st.complex_
single, double, csingle, cdouble = _st.single, _st.double, _st.csingle, _st.cdouble
globals().update(_st.ml_types)
generic, number, inexact, floating = _np.generic, _np.number, _np.inexact, _np.floating
complexfloating, integer = _np.complexfloating, _np.integer
signedinteger, unsignedinteger = _np.signedinteger, _np.unsignedinteger
character, flexible, object_ = _np.character, _np.flexible, _np.object_
dtype = _np.dtype
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo
issubdtype = _dtypes.issubdtype
isdtype = _dtypes.isdtype
promote_types = _dtypes.promote_types
can_cast = _np.can_cast
save, savez = _np.save, _np.savez
ComplexWarning = _np.exceptions.ComplexWarning

pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None
mgrid, ogrid, r_, c_, s_, index_exp = (_it.mgrid, _it.ogrid, _it.r_, _it.c_, _it.s_,
                                       _it.index_exp)


def result_type(*args):
    """The canonical dtype JAX's promotion assigns to args."""
    return _dtypes.canonicalize_dtype(_dtypes.result_type(*args))


def _export(module):
    g = globals()
    for name in getattr(module, "__all__", None) or dir(module):
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        if callable(obj) and getattr(obj, "__module__", "") == module.__name__:
            g.setdefault(name, obj)


for _m in (_uf, _um, _red, _ac, _mp, _io, _pr, _so, _stats, _pad, _es, _set, _nm, _poly, _it, _vec, _ufa, _ln):
    _export(_m)
del _m, _export
globals().update(_ufa._jax_ufuncs())

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax.numpy import fft as fft  # noqa: E402
from didax.numpy import linalg as linalg  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.numpy", __name__)
