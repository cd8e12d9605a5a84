"""`didax.Array`: the concrete array type. An Array holds its value on the host (a NumPy
array, as eager evaluation produces) and/or on an XLA device (a jaxlib buffer, as jitted
code produces), transferring lazily in either direction only when needed, plus its aval
(shape, dtype, weak_type). Operators and methods are installed by didax.numpy.

May import core, dtypes, config, xla_backend.
"""

from __future__ import annotations

import sys

import numpy as np

from didax._src import core, dtypes, missing, xla_backend
from didax._src.core import ShapedArray


class Array:
    """A concrete, immutable array (JAX's `jax.Array`)."""

    __slots__ = ("_npy", "_buf", "aval", "_device", "__weakref__")
    __array_priority__ = 100

    def __init__(self, value, aval: ShapedArray | None = None, buf=None, device=None):
        self._npy = value
        self._buf = buf
        self._device = device
        if aval is None:
            aval = ShapedArray(np.shape(value), dtypes.canonicalize_dtype(value.dtype))
        self.aval = aval

    @classmethod
    def from_buffer(cls, buf, aval: ShapedArray, device=None) -> Array:
        return cls(None, aval, buf, device)

    # --- value access
    @property
    def _value(self) -> np.ndarray:
        v = self._npy
        if v is None:
            if self._buf is None:
                raise RuntimeError(
                    f"Array has been deleted with shape={self.aval.str_short()}.")
            v = self._npy = xla_backend.to_host(self._buf, self.aval.dtype, self.aval.shape)
        return v

    def _device_buffer(self, device=None):
        b = self._buf
        dev = device or self._device
        if b is None or (device is not None and self._device not in (None, device)):
            if self._npy is None:
                raise RuntimeError(
                    f"Array has been deleted with shape={self.aval.str_short()}.")
            b = xla_backend.device_put(self._npy, dev)
            if device is None or self._device in (None, device):
                self._buf = b
                self._device = dev
        return b

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: core._prod(self.aval.shape))
    weak_type = property(lambda self: self.aval.weak_type)
    itemsize = property(lambda self: self.aval.dtype.itemsize)
    nbytes = property(lambda self: self.aval.dtype.itemsize * core._prod(self.aval.shape))

    def __array__(self, dtype=None, copy=None):
        v = self._value
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        if copy:
            return v.copy()
        if v.flags.writeable:  # Arrays are immutable: hand out a read-only view
            v = v.view()
            v.flags.writeable = False
        return v

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))

    def __bool__(self):
        return bool(self._value)

    def _check_scalar(self) -> None:
        if self.aval.shape:
            raise TypeError("Only scalar arrays can be converted to Python scalars; got "
                            f"arr.ndim={len(self.aval.shape)}")

    def __int__(self):
        self._check_scalar()
        return int(self._value.item())

    def __float__(self):
        self._check_scalar()
        return float(self._value.item())

    def __complex__(self):
        self._check_scalar()
        return complex(self._value.item())

    def __index__(self):
        # bool is not an index (JAX differs from NumPy here)
        if self.aval.shape or not dtypes.is_int(self.aval.dtype):
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        return int(self._value)

    def __hash__(self):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")

    def __format__(self, spec):
        if self.aval.shape == ():
            return format(self._value[()], spec)
        return format(self._value, spec)

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def __reduce__(self):
        return (_reconstruct, (np.array(self._value), self.aval.weak_type))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # --- device API
    def block_until_ready(self) -> Array:
        if self._buf is not None:
            self._buf.block_until_ready()
        elif self._npy is None:
            raise RuntimeError(f"Array has been deleted with shape={self.aval.str_short()}.")
        return self

    def is_ready(self) -> bool:
        return True

    def copy_to_host_async(self) -> None:
        pass

    def devices(self) -> set:
        return {self.device}

    @property
    def device(self):
        return self._device or xla_backend.default_device()

    @property
    def is_fully_addressable(self) -> bool:
        return True

    @property
    def sharding(self) -> SingleDeviceSharding:
        return SingleDeviceSharding(self.device)

    @property
    def addressable_shards(self) -> list:
        index = tuple(slice(None) for _ in self.aval.shape)
        return [Shard(self.device, index, 0, self)]

    def addressable_data(self, index: int) -> Array:
        if index != 0:
            raise IndexError(f"list index out of range: {index}")
        return self

    def on_device_size_in_bytes(self) -> int:
        return int(np.prod(self.aval.shape, dtype=np.int64)) * self.aval.dtype.itemsize

    def to_device(self, device, *, stream=None) -> Array:
        del stream
        out = Array(self._value, self.aval)
        out._device_buffer(device)
        return out

    def __array_namespace__(self, *, api_version=None):
        del api_version
        return sys.modules["didax.numpy"]

    is_fully_replicated = property(lambda self: True)
    committed = property(lambda self: self._buf is not None)

    def delete(self) -> None:
        self._npy = None
        if self._buf is not None:
            self._buf.delete()
            self._buf = None

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack export of the host copy (didax runs on the CPU)."""
        kw = {} if max_version is None else {"max_version": max_version}
        return np.asarray(self).__dlpack__(stream=stream, **kw)

    def __dlpack_device__(self) -> tuple:
        return (1, 0)                                        # (kDLCPU, device 0)

    def is_deleted(self) -> bool:
        return self._npy is None and self._buf is None

    def unsafe_buffer_pointer(self) -> int:
        return self._device_buffer().unsafe_buffer_pointer()

    def __repr__(self):
        return array_repr(self._value, self.aval)

    def __getattr__(self, name):  # (only for names no slot or method provides)
        return missing.array_getattr(self, name)

    def __str__(self):
        return str(self._value)


class SingleDeviceSharding:
    """The sharding of an Array on one device (`Array.sharding`), as JAX names it."""

    __slots__ = ("_device", "memory_kind")

    def __init__(self, device, *, memory_kind: str = "device"):
        self._device = device
        self.memory_kind = memory_kind

    @property
    def device_set(self) -> set:
        return {self._device}

    is_fully_replicated = True
    is_fully_addressable = True
    num_devices = 1

    def __eq__(self, other):
        return isinstance(other, SingleDeviceSharding) and other._device == self._device

    def __hash__(self):
        return hash(("SingleDeviceSharding", self._device))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class Shard:
    """One addressable piece of an Array (the whole of it, on one device)."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data!r})")


def _reconstruct(value, weak_type):
    return Array(value, ShapedArray(value.shape, value.dtype, weak_type))


def array_repr(value: np.ndarray, aval: ShapedArray) -> str:
    """JAX's repr: an empty array always shows its shape; when the last printed line plus
    the dtype would pass NumPy's line width, the dtype goes on the same line after
    len("Array(") spaces (JAX pads rather than breaking the line)."""
    prefix = "Array("
    dtype_str = f"dtype={aval.dtype.name}"
    if aval.weak_type:
        dtype_str += ", weak_type=True"
    dtype_str += ")"
    width = np.get_printoptions()["linewidth"]
    if value.size == 0:
        body = f"[], shape={value.shape}"
    else:
        body = np.array2string(value, prefix=prefix, suffix=",", separator=", ",
                               max_line_width=width)
    last_line = len(body) - body.rfind("\n") + 1
    sep = " " * len(prefix) if last_line + len(dtype_str) + 1 > width else " "
    return f"{prefix}{body},{sep}{dtype_str}"


def to_numpy(x, aval=None) -> np.ndarray:
    """The host NumPy value of an array-like, in its canonical dtype."""
    t = type(x)
    if t is Array:
        return x._value
    if t is np.ndarray:
        dt = dtypes.canonicalize_dtype(x.dtype)
        return x if x.dtype == dt else x.astype(dt)
    if aval is None:
        aval = core.get_aval(x)
    if t is int:
        return core.host_scalar(x, aval.dtype)
    return np.asarray(x, aval.dtype)


core.register_array_type(Array)


# The concrete array type prints as JAX's does (`<class 'jaxlib._jax.ArrayImpl'>`): programs
# show `type(x)`. (Pickling goes through __reduce__, never through this name.)
Array.__module__, Array.__name__, Array.__qualname__ = "jaxlib._jax", "ArrayImpl", "ArrayImpl"
