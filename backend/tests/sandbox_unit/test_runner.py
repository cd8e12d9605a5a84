"""The kernel's runner (unit): the jax alias, card sanitising and error descriptions."""

from __future__ import annotations

import json
import sys
import types

from sandbox.runner import JaxAlias, describe_error, execute, sanitize


def test_alias_maps_jax_to_the_target_modules(monkeypatch):
    fake = types.ModuleType("fakedidax")
    fake.__path__ = []  # a package
    sub = types.ModuleType("fakedidax.numpy")
    monkeypatch.setitem(sys.modules, "fakedidax", fake)
    monkeypatch.setitem(sys.modules, "fakedidax.numpy", sub)
    for name in ("jax", "jax.numpy"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    finder = JaxAlias("fakedidax")
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    import jax
    import jax.numpy as jnp

    assert jax is fake and jnp is sub
    assert fake.__spec__ is None or fake.__spec__.name != "jax"
    for name in ("jax", "jax.numpy"):
        sys.modules.pop(name, None)


def test_sanitize_non_finite():
    card = {"min": float("nan"), "preview": [1.0, float("inf"), float("-inf"), float("nan")]}
    clean = sanitize(card)
    assert clean == {"min": None, "preview": [1.0, "inf", "-inf", "nan"]}
    json.dumps(clean, allow_nan=False)


def test_describe_error_kinds():
    lines = ["x = 1", "raise MemoryError()"]
    err = execute("\n".join(lines), _NullCtx(), lines)
    assert err["kind"] == "memory" and err["user_line"] == 2
    assert execute("import sys\nsys.exit(0)", _NullCtx(), []) is None
    assert execute("import sys\nsys.exit(2)", _NullCtx(), [])["exc_type"] == "SystemExit"
    err = describe_error(KeyboardInterrupt(), [])
    assert err["kind"] == "cancelled" and err["user_line"] is None


class _NullCtx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
