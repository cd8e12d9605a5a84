"""jax.experimental.mesh_utils, jax.make_array_from_callback and jax.stages against JAX:
device meshes (shapes, device order, errors), arrays assembled from per-device blocks, and
the stage types jit's objects are instances of."""

import didax
import jax
import numpy as np
import pytest
from didax.experimental import mesh_utils as dmu
from jax.experimental import mesh_utils as jmu


def test_create_device_mesh_as_jax():
    for mu, lib in ((dmu, didax), (jmu, jax)):
        devs = lib.devices() * 4  # stand-ins for four devices: only their order matters
        assert mu.create_device_mesh((1,)).shape == (1,)
        mesh = mu.create_device_mesh((2, 2), devs)
        assert mesh.shape == (2, 2) and list(mesh.flat) == devs
        assert mu.create_hybrid_device_mesh((1,), (1,), process_is_granule=True).shape == (1,)
        with pytest.raises(ValueError, match=r"must equal the product of mesh_shape \(3,\)"):
            mu.create_device_mesh((3,))
        with pytest.raises(ValueError, match="does not have attribute slice_index"):
            mu.create_hybrid_device_mesh((1,), (1,))
        mesh = lib.sharding.Mesh(mu.create_device_mesh((1, 1)), ("x", "y"))
        assert mesh.axis_names == ("x", "y")


def test_stage_types_as_jax():
    for lib in (didax, jax):
        f = lib.jit(lambda x: x * 2)
        lowered = f.lower(1.0)
        assert isinstance(f, lib.stages.Wrapped)
        assert not isinstance(lambda x: x, lib.stages.Wrapped)
        assert isinstance(f.trace(1.0), lib.stages.Traced)
        assert isinstance(lowered, lib.stages.Lowered)
        assert isinstance(lowered.compile(), lib.stages.Compiled)
        assert lib.stages.ArgInfo and lib.stages.CompilerOptions


def test_make_array_from_callback_as_jax():
    data = np.arange(12).reshape(3, 4)
    for lib in (didax, jax):
        mesh = lib.sharding.Mesh(np.array(lib.devices()).reshape(1, 1), ("x", "y"))
        calls = []

        def fetch(index, calls=calls):
            calls.append(index)
            return data[index]
        sharding = lib.sharding.NamedSharding(mesh, lib.sharding.PartitionSpec("x", "y"))
        arr = lib.make_array_from_callback((3, 4), sharding, fetch)
        assert arr.dtype == np.int32 and arr.sharding == sharding
        np.testing.assert_array_equal(np.asarray(arr), data)
        assert calls == [(slice(None), slice(None))]  # one device: the whole array
        one = lib.sharding.SingleDeviceSharding(lib.devices()[0])
        np.testing.assert_array_equal(lib.make_array_from_callback((4,), one, lambda i: data[0][i]),
                                      data[0])
        with pytest.raises(ValueError, match="it must match the dtype of the addressable"):
            lib.make_array_from_callback((3, 4), sharding, fetch, dtype=np.float32)
