"""A JAX API didax lacks raises NotImplementedError naming it and what to use instead —
module attributes, submodule imports and array attributes — while names JAX itself lacks
keep raising AttributeError; and every name in the table is one JAX really has."""

from __future__ import annotations

import importlib

import didax
import jax
import pytest
from didax._src.jax_api_names import JAX_NAMES, JAX_SUBMODULES


# names didax does not implement (when one gets implemented, pick another still missing)
@pytest.mark.parametrize("module,name", [("didax", "smap"), ("didax.lax", "ragged_dot"),
                                         ("didax.scipy.special", "spence"),
                                         ("didax.scipy.special", "fresnel")])
def test_known_names_raise_not_implemented(module, name):
    mod = importlib.import_module(module)
    jax_api = "jax" + module[len("didax"):] + "." + name
    assert name not in vars(mod), f"{jax_api} is implemented now: list a missing name"
    with pytest.raises(NotImplementedError, match=f"{jax_api} is not implemented in didax.*"
                                                  "instead"):
        getattr(mod, name)


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        didax.numpy.nope  # noqa: B018
    assert not hasattr(didax.nn, "nope")
    with pytest.raises(AttributeError):
        didax.numpy.ones(2).nope  # noqa: B018


def test_submodule_import_and_array_attributes():
    with pytest.raises(NotImplementedError, match="jax.experimental.pallas is not implemented"):
        importlib.import_module("didax.experimental.pallas")
    with pytest.raises(NotImplementedError, match="jax.Array.global_shards"):
        didax.numpy.ones(2).global_shards  # noqa: B018


def test_table_matches_jax():
    for mod_name, names in JAX_NAMES.items():
        if mod_name == "jax.Array":
            target = jax.numpy.ones(2)
        else:
            target = importlib.import_module(mod_name)
        for n in names.split()[:40]:
            assert n in dir(target) or hasattr(target, n), f"{mod_name}.{n}"
    assert "jax.experimental.pallas" in JAX_SUBMODULES


@pytest.mark.parametrize("name", ["psum", "pmax", "all_gather", "psum_scatter", "all_to_all"])
def test_axis_index_groups_say_what_to_do(name):
    """Collectives over groups of an axis's members are not supported: the error names the
    API and what to use instead (JAX itself computes them)."""
    fn = getattr(didax.lax, name)
    kwargs = {"split_axis": 0, "concat_axis": 0} if name == "all_to_all" else {}
    groups = [[0, 1], [2, 3]]
    with pytest.raises(NotImplementedError, match=rf"jax\.lax\.{name} with axis_index_groups"
                       r".*split the axis"):
        didax.vmap(lambda x: fn(x, "i", axis_index_groups=groups, **kwargs),
                   axis_name="i")(didax.numpy.ones((4, 4)))
