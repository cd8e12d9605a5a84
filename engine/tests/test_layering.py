"""The engine's layering (engine/README.md), checked with `ast` over engine/src/didax:
every import — module-level or inside a function — points from a module to one in the
same or a lower layer. Every module must be assigned a layer (a new module fails until it
is placed). Also: no module is longer than 1,000 lines.
"""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "didax"
MAX_LINES = 1000

# Layers from lowest to highest (engine/README.md); "public" is didax/*.py.
ORDER = ["foundation", "core", "interpreters", "runtime", "lax", "jit", "libraries",
         "transformations", "public"]
# (module pattern relative to didax._src, layer); the first matching pattern wins.
PLACEMENT: list[tuple[str, str]] = [
    *[(m, "foundation") for m in ("util", "source_info", "errors", "tracer_errors",
                                  "pretty_printer",
                                  "config", "debug_nans", "dtypes", "_promotion", "pytree", "tree_util")],
    ("core", "core"), ("jaxpr_printer", "core"), ("jaxpr_check", "core"), ("api_util", "core"),
    ("interpreters", "interpreters"), ("interpreters.*", "interpreters"),
    ("state.types", "core"),
    ("missing", "foundation"), ("jax_api_names", "foundation"),
    ("xla_backend", "runtime"), ("array", "runtime"), ("basearray", "runtime"),
    ("eager_xla", "runtime"), ("sharding", "runtime"), ("sharding_rules", "runtime"),
    # control flow is a library built on lax (README: "numpy/*, random, ..., control flow")
    ("lax.control_flow", "libraries"), ("lax.control_flow.*", "libraries"),
    ("lax", "lax"), ("lax.*", "lax"),
    # jit sits below the libraries: jnp and random functions are jitted, as in JAX
    ("pjit", "jit"), ("jit_messages", "jit"), ("stages", "jit"), ("sharded_exec", "jit"),
    *[(m, "libraries") for m in ("numpy", "numpy.*", "random", "random_*", "prng",
                                 "prng_keys", "image", "lax_linalg", "mesh_utils", "custom_derivatives", "callback", "nn",
                                 "flatten_util", "ops", "example_libraries", "state", "state.*",
                                 "example_libraries.*",
                                 "nn_*", "scipy", "scipy.*", "ad_checkpoint", "closure_convert", "debugger")],
    *[(m, "transformations") for m in ("api", "api_extras", "pmap", "shard_map", "shard_map_*", "export", "test_util",
                                       "export_format", "viz", "vjp_fun", "lib", "lib.*", "scipy_kde", "scipy_optimize", "linear_solve", "ode", "attention", "sharding_api", "checkify", "checkify_*",
                                       "viz.*")],
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def layer_of(module: str) -> str | None:
    if module == "didax._src":
        return "foundation"
    if not module.startswith("didax._src."):
        return "public"  # didax/*.py: re-exports of the implementation
    rel = module[len("didax._src."):]
    for pattern, layer in PLACEMENT:
        if fnmatch.fnmatchcase(rel, pattern):
            return layer
    return None


def _resolve(base: str, name: str) -> str:
    full = f"{base}.{name}"
    return full if full in MODULES else base


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, imported didax module) for every import statement in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] == "didax":
                out += [(node.lineno, _resolve(node.module, a.name)) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names
                    if a.name.split(".")[0] == "didax"]
    return out


def test_every_module_has_a_layer():
    unplaced = [m for m in MODULES if layer_of(m) is None]
    assert not unplaced, f"modules missing from PLACEMENT in {__file__}: {unplaced}"


def test_no_relative_imports():
    rel = [f"{m}:{n.lineno}" for m, p in MODULES.items()
           for n in ast.walk(ast.parse(p.read_text()))
           if isinstance(n, ast.ImportFrom) and n.level]
    assert not rel, f"relative imports (use absolute didax._src imports): {rel}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    here = layer_of(module)
    if here is None:
        pytest.fail(f"{module} has no layer")
    bad = []
    for line, target in imports_of(MODULES[module]):
        there = layer_of(target)
        if there is not None and ORDER.index(there) > ORDER.index(here):
            bad.append(f"line {line}: {target} ({there})")
    assert not bad, f"{module} ({here}) imports a higher layer: {bad}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size(module):
    n = len(MODULES[module].read_text().splitlines())
    assert n <= MAX_LINES, f"{module} has {n} lines (limit {MAX_LINES}): split it"


def test_layer_checker_sees_violations():
    """The checker itself: a lax module importing didax.numpy would be reported."""
    assert ORDER.index(layer_of("didax._src.numpy.ufuncs")) > ORDER.index(
        layer_of("didax._src.lax.lax"))
    assert ORDER.index(layer_of("didax._src.api")) > ORDER.index(layer_of("didax._src.core"))
    assert layer_of("didax.numpy") == "public"
    src = "def f():\n    from didax._src import api\n"
    tree = ast.parse(src)
    found = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert found and found[0].module == "didax._src"
