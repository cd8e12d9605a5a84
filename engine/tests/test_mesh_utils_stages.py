"""jax.experimental.mesh_utils and jax.stages against JAX: device meshes (shapes, device
order, errors) and the stage types jit's objects are instances of."""

import didax
import jax
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
