"""Short aliases of the pytree utilities (the `jax.tree` API).

`didax.tree.map(f, t)` is `didax.tree_util.tree_map(f, t)`, and so on; `static`
makes a dataclass field that `register_dataclass` treats as a meta field.
Imports: the standard library and `didax._src.tree_util` only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from didax._src import tree_util as _tu

T = TypeVar("T")


def all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf of `tree` is truthy."""
    return _tu.tree_all(tree, is_leaf=is_leaf)


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None,
            ) -> tuple[list[Any], _tu.PyTreeDef]:
    """Returns (leaves, treedef) of `tree`."""
    return _tu.tree_flatten(tree, is_leaf)


def leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """Returns the leaves of `tree`."""
    return _tu.tree_leaves(tree, is_leaf)


def map(f: Callable[..., Any], tree: Any, *rest: Any,
        is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Applies `f` leafwise over `tree` and the matching subtrees of `rest`."""
    return _tu.tree_map(f, tree, *rest, is_leaf=is_leaf)


def reduce(function: Callable[[T, Any], T], tree: Any,
           initializer: T | _tu.Unspecified = _tu.Unspecified(),
           is_leaf: Callable[[Any], bool] | None = None) -> T:
    """`functools.reduce` over the leaves of `tree`."""
    return _tu.tree_reduce(function, tree, initializer, is_leaf=is_leaf)


def reduce_associative(operation: Callable[[T, T], T], tree: Any, *,
                       identity: T | _tu.Unspecified = _tu.Unspecified(),
                       is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Reduces the leaves of `tree` pairwise with an associative `operation`."""
    return _tu.tree_reduce_associative(operation, tree, identity=identity, is_leaf=is_leaf)


def structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> _tu.PyTreeDef:
    """Returns the treedef of `tree`."""
    return _tu.tree_structure(tree, is_leaf)


def transpose(outer_treedef: _tu.PyTreeDef, inner_treedef: _tu.PyTreeDef | None,
              pytree_to_transpose: Any) -> Any:
    """Turns an outer-of-inner pytree into an inner-of-outer pytree."""
    return _tu.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


def unflatten(treedef: _tu.PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuilds a pytree from its treedef and leaves."""
    return _tu.tree_unflatten(treedef, leaves)


def flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                      is_leaf_takes_path: bool = False,
                      ) -> tuple[list[tuple[_tu.KeyPath, Any]], _tu.PyTreeDef]:
    """Returns ([(key_path, leaf), ...], treedef) of `tree`."""
    return _tu.tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)


def leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                     is_leaf_takes_path: bool = False) -> list[tuple[_tu.KeyPath, Any]]:
    """Returns [(key_path, leaf), ...] of `tree`."""
    return _tu.tree_leaves_with_path(tree, is_leaf, is_leaf_takes_path)


def map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                  is_leaf: Callable[..., bool] | None = None,
                  is_leaf_takes_path: bool = False) -> Any:
    """Like `map`, but `f` receives each leaf's key path first."""
    return _tu.tree_map_with_path(f, tree, *rest, is_leaf=is_leaf,
                                  is_leaf_takes_path=is_leaf_takes_path)


def broadcast(prefix_tree: Any, full_tree: Any,
              is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Replicates the leaves of `prefix_tree` over the matching subtrees of `full_tree`."""
    return _tu.tree_broadcast(prefix_tree, full_tree, is_leaf=is_leaf)


def static(**kwargs: Any) -> Any:
    """A `dataclasses.field` marked static, i.e. a meta field for `register_dataclass`."""
    metadata = {"static": True, **(kwargs.pop("metadata", {}) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.tree", __name__)
