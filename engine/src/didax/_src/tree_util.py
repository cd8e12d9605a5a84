"""Pytree utilities: didax's implementation of the `jax.tree_util` API.

Holds flatten/unflatten/map/reduce/transpose, key paths, node registration
(custom classes, dataclasses, static types), `Partial`, and the prefix
helpers (`broadcast_prefix`, `prefix_errors`) that vmap-like APIs build on.
The node registry and `PyTreeDef` live in `didax._src.pytree`.
Imports: the Python standard library and didax's own `_src.pytree` only.
"""

from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
import textwrap
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from didax._src import pytree
from didax._src.pytree import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    PyTreeDef,
    PyTreeRegistry,
    SequenceKey,
)

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type[Any])
H = TypeVar("H", bound=Hashable)

Leaf = Any
PyTree = Any
KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[Any, ...]

default_registry: PyTreeRegistry = pytree.default_registry
# Same registrations as `default_registry`, except that None is a leaf.
none_leaf_registry: PyTreeRegistry = pytree.none_leaf_registry

__all__ = ["DictKey", "FlattenedIndexKey", "GetAttrKey", "PyTreeDef", "SequenceKey"]


# --- flatten / unflatten -----------------------------------------------------


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None,
                 ) -> tuple[list[Leaf], PyTreeDef]:
    """Flattens a pytree into its leaves (in order) and its structure."""
    return default_registry.flatten(tree, is_leaf)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Leaf]) -> Any:
    """Rebuilds a pytree of structure `treedef` from `leaves`."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Leaf]:
    """Returns the leaves of a pytree, in flattening order."""
    return default_registry.flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """Returns the PyTreeDef of a pytree."""
    return default_registry.flatten(tree, is_leaf)[1]


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """Makes the treedef of a tuple whose elements have the given structures."""
    return pytree.treedef_tuple(treedefs)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """Returns the treedefs of the root's immediate children."""
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True if the treedef has a single node (a leaf, None or an empty container)."""
    return treedef.num_nodes == 1


def treedef_is_strict_leaf(treedef: PyTreeDef) -> bool:
    """True if the treedef is exactly one leaf."""
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of `iterable` is a pytree leaf."""
    if is_leaf is None:
        return pytree.all_leaves(default_registry, iterable)
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves))


def is_tree_node(typ: type) -> bool:
    """True if `typ` is a pytree node type (built-in, namedtuple or registered)."""
    return default_registry.is_node(typ)


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """Returns (children, node data) of a pytree node; ValueError for a leaf."""
    out = default_registry.flatten_one_level(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[Any, Any]], Hashable]:
    """Returns ([(key, child), ...], node data) of a pytree node; ValueError for a leaf."""
    out = default_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


# --- registration ------------------------------------------------------------


def _register(node: pytree.NodeType) -> None:
    for registry in pytree.all_registries:
        registry.register(node)


def register_pytree_node(nodetype: type[T], flatten_func: Callable[[T], tuple[Any, Any]],
                         unflatten_func: Callable[[Any, Any], T],
                         flatten_with_keys_func: Callable[[T], tuple[Any, Any]] | None = None,
                         ) -> None:
    """Registers `nodetype` as a pytree node with flatten/unflatten functions."""
    _register(pytree.custom_node_type(nodetype, flatten_func, unflatten_func,
                                      flatten_with_keys_func))


def register_pytree_node_class(cls: Typ) -> Typ:
    """Class decorator: registers a class with `tree_flatten`/`tree_unflatten` methods."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype: type[T],
                              flatten_with_keys: Callable[[T], tuple[Iterable, Any]],
                              unflatten_func: Callable[[Any, Any], T],
                              flatten_func: Callable[[T], tuple[Any, Any]] | None = None,
                              ) -> None:
    """Registers a node type whose flattening also names each child with a key."""
    if not flatten_func:
        def flatten_func(tree):
            pairs, aux = flatten_with_keys(tree)
            return [child for _, child in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: Typ) -> Typ:
    """Class decorator: like `register_pytree_node_class`, with `tree_flatten_with_keys`."""
    flatten = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten)
    return cls


def _dataclass_fields(nodetype: type, data_fields, meta_fields) -> tuple[list, list]:
    if data_fields is not None and meta_fields is not None:
        return data_fields, meta_fields
    if (data_fields is None) != (meta_fields is None):
        raise TypeError("register_dataclass: data_fields and meta_fields must both be "
                        "specified when either is specified. "
                        f"Got {data_fields=} {meta_fields=}.")
    if not dataclasses.is_dataclass(nodetype):
        raise TypeError("register_dataclass: data_fields and meta_fields are required "
                        f"when nodetype is not a dataclass. Got {nodetype=}.")
    fields = dataclasses.fields(nodetype)
    return ([f.name for f in fields if not f.metadata.get("static", False)],
            [f.name for f in fields if f.metadata.get("static", False)])


def _check_dataclass_fields(nodetype: type, data: tuple, meta: tuple, drop: Sequence) -> None:
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop)
        given = {*data, *meta}
        if given != init:
            msg = ("data_fields and meta_fields must include all dataclass fields with "
                   "``init=True`` and only them.")
            if missing := init - given:
                msg += (f" Missing fields: {missing}. Add them to drop_fields to suppress "
                        "this error.")
            if unexpected := given - init:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data) & set(meta):
        raise ValueError(
            f"data_fields and meta_fields must not overlap. Overlapping fields: {overlap}.")


def register_dataclass(nodetype: Typ, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> Typ:
    """Registers a dataclass-like type: data fields are children, meta fields are static.

    For a `dataclasses.dataclass`, the field lists may be omitted: fields whose
    metadata has `static=True` are meta fields, all others are data fields.
    """
    data, meta = _dataclass_fields(nodetype, data_fields, meta_fields)
    data, meta = tuple(data), tuple(meta)
    _check_dataclass_fields(nodetype, data, meta, drop_fields)
    _register(pytree.dataclass_node_type(nodetype, data, meta))
    return nodetype


def register_static(cls: type[H]) -> type[H]:
    """Registers `cls` as a node with no children: instances become treedef data."""
    register_pytree_with_keys(cls, lambda obj: ((), obj), lambda obj, _: obj)
    return cls


def _ordered_dict_with_keys(d: collections.OrderedDict) -> tuple[tuple, tuple]:
    return tuple((DictKey(k), v) for k, v in d.items()), tuple(d)


def _defaultdict_with_keys(d: collections.defaultdict) -> tuple[tuple, tuple]:
    keys = tuple(sorted(d))
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.OrderedDict, _ordered_dict_with_keys,
    lambda keys, values: collections.OrderedDict(zip(keys, values, strict=True)))
register_pytree_with_keys(
    collections.defaultdict, _defaultdict_with_keys,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values, strict=True)))


# --- map / reduce / transpose ------------------------------------------------


def _leaves_up_to(name: str, treedef: PyTreeDef, tree: Any, rest: tuple,
                  is_leaf: Callable | None) -> list[list[Any]]:
    """Flattens each of `rest` up to `treedef`, explaining any mismatch by key path."""
    out = []
    for other in rest:
        try:
            out.append(treedef.flatten_up_to(other))
        except Exception as e:
            err = next(iter(_prefix_error((), tree, other, is_leaf)), None)
            raise (err(name) if err is not None else e) from None
    return out


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Applies `f` leafwise to `tree` and the matching subtrees of each of `rest`."""
    leaves, treedef = default_registry.flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    others = _leaves_up_to("tree_map tree", treedef, tree, rest, is_leaf)
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *others)])


class Unspecified:
    """Marker for an omitted `initializer`/`identity` argument."""


def tree_reduce(function: Callable[[T, Any], T], tree: Any,
                initializer: T | Unspecified = Unspecified(),
                is_leaf: Callable[[Any], bool] | None = None) -> T:
    """`functools.reduce` over the leaves of `tree`."""
    leaves = tree_leaves(tree, is_leaf=is_leaf)
    if isinstance(initializer, Unspecified):
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def _parallel_reduce(seq: list, operation: Callable, identity: Any) -> Any:
    if not seq:
        if isinstance(identity, Unspecified):
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    if len(seq) == 1:
        return seq[0]
    mid = len(seq) // 2
    return operation(_parallel_reduce(seq[:mid], operation, identity),
                     _parallel_reduce(seq[mid:], operation, identity))


def tree_reduce_associative(operation: Callable[[T, T], T], tree: Any, *,
                            identity: T | Unspecified = Unspecified(),
                            is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Reduces the leaves with an associative `operation` as a balanced binary tree."""
    return _parallel_reduce(tree_leaves(tree, is_leaf=is_leaf), operation, identity)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf is truthy."""
    return all(tree_leaves(tree, is_leaf=is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turns an outer-of-inner pytree into an inner-of-outer pytree."""
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
    columns = [outer_treedef.unflatten(list(col)) for col in zip(*rows)]
    return inner_treedef.unflatten(columns)


# --- key paths ---------------------------------------------------------------


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False,
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Like `tree_flatten`, but each leaf comes with its key path."""
    if is_leaf is not None and not is_leaf_takes_path:
        pred = is_leaf
        is_leaf = lambda _, x: pred(x)
    return default_registry.flatten_with_path(tree, is_leaf)


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """Like `tree_leaves`, but each leaf comes with its key path."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like `tree_map`, but `f` also receives the key path of each leaf first."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    plain_is_leaf = None if is_leaf_takes_path else is_leaf
    others = _leaves_up_to("tree_map_with_path tree", treedef, tree, rest, plain_is_leaf)
    return treedef.unflatten([f(path, x, *xs)
                              for (path, x), *xs in zip(pairs, *others)])


def _simple_entrystr(key: Any) -> str:
    match key:
        case SequenceKey(idx=k) | DictKey(key=k) | GetAttrKey(name=k) | FlattenedIndexKey(key=k):
            return str(k)
        case _:
            return str(key)


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Renders a key path, e.g. "['a'][0].b", or "a/0/b" with simple=True, separator='/'."""
    return separator.join(map(_simple_entrystr if simple else str, keys))


def _key_value(key: Any) -> Any:
    for attr in ("key", "idx", "name"):
        if hasattr(key, attr):
            return getattr(key, attr)
    return key


generate_key_paths = tree_leaves_with_path


# --- Partial -----------------------------------------------------------------


class _HashableCallableShim:
    """Wraps a callable, forwarding calls, hashing and equality to it."""

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A `functools.partial` that is a pytree: bound arguments are its children.

    The wrapped function is static node data, so `Partial` objects can be passed
    through transformed functions like any other pytree.
    """

    def __new__(cls, func, *args, **kwargs):
        if not isinstance(func, functools.partial):
            return super().__new__(cls, func, *args, **kwargs)
        # functools.partial would merge a partial's bound arguments into ours, making
        # them leaves; box it so that only the arguments given here become children.
        shim = _HashableCallableShim(func)
        out = super().__new__(cls, shim, *args, **kwargs)
        shim.func, shim.args, shim.keywords = func.func, func.args, func.keywords
        return out


Partial.__module__ = "didax.tree_util"
register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]),
)


# --- prefixes and structural errors ------------------------------------------


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Replicates each leaf of `prefix_tree` over its subtree in `full_tree`."""
    leaves = broadcast_prefix(prefix_tree, full_tree, is_leaf=is_leaf)
    return tree_structure(full_tree).unflatten(leaves)


def broadcast_prefix(prefix_tree: Any, full_tree: Any,
                     is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """For each leaf of `full_tree`, the leaf of `prefix_tree` whose subtree holds it.

    `is_leaf` applies to `prefix_tree` only (e.g. `lambda x: x is None` for vmap's
    in_axes). Raises ValueError naming the first mismatching key path when
    `prefix_tree` is not a tree prefix of `full_tree`.
    """
    prefix_leaves, prefix_treedef = tree_flatten(prefix_tree, is_leaf)
    try:
        subtrees = prefix_treedef.flatten_up_to(full_tree)
    except ValueError:
        errors = prefix_errors(prefix_tree, full_tree, is_leaf)
        if not errors:
            raise
        raise errors[0]("broadcast_prefix prefix_tree") from None
    result: list[Any] = []
    flatten = default_registry.flatten
    for leaf, subtree in zip(prefix_leaves, subtrees):
        result.extend([leaf] * flatten(subtree)[1].num_leaves)
    return result


def broadcast_flattened_prefix_with_treedef(prefix_leaves: list[Any],
                                            prefix_treedef: PyTreeDef,
                                            full_treedef: PyTreeDef) -> list[Any]:
    """Like `broadcast_prefix`, on an already flattened prefix and a full treedef.

    Raises a plain ValueError on mismatch; callers wanting key paths should use
    `prefix_errors` on the unflattened trees.
    """
    out: list[Any] = []
    _broadcast_treedef(prefix_leaves, 0, prefix_treedef, full_treedef, out)
    return out


def _broadcast_treedef(leaves: list, start: int, prefix: PyTreeDef, full: PyTreeDef,
                       out: list) -> None:
    if treedef_is_strict_leaf(prefix):
        out.extend([leaves[start]] * full.num_leaves)
        return
    if treedef_is_strict_leaf(full):
        raise ValueError("`prefix_treedef` is not a prefix of `full_treedef`")
    if prefix.node_data() != full.node_data():
        raise ValueError(f"expected {full.node_data()}, got {prefix.node_data()}")
    prefix_children, full_children = prefix.children(), full.children()
    if len(prefix_children) != len(full_children):
        raise ValueError("`prefix_treedef` is not a prefix of `full_treedef`")
    for p, f in zip(prefix_children, full_children):
        _broadcast_treedef(leaves, start, p, f, out)
        start += p.num_leaves


def prefix_errors(prefix_tree: Any, full_tree: Any,
                  is_leaf: Callable[[Any], bool] | None = None,
                  ) -> list[Callable[[str], ValueError]]:
    """Every place where `prefix_tree` fails to be a tree prefix of `full_tree`.

    Each entry maps a name for the prefix tree (as the caller calls it) to a
    ValueError describing the mismatch and its key path.
    """
    return list(_prefix_error((), prefix_tree, full_tree, is_leaf))


def _child_keys(tree: Any) -> tuple:
    return tuple(k for k, _ in flatten_one_level_with_keys(tree)[0])


def _prefix_error(path: KeyPath, prefix: Any, full: Any, is_leaf: Callable | None):
    if treedef_is_strict_leaf(tree_structure(prefix, is_leaf=is_leaf)):
        return  # a leaf is a prefix of anything
    if type(prefix) is not type(full):
        yield _error_factory(path, "different types", lambda name: (
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\nbut at the same key path the full pytree has a "
            f"subtree of different type\n    {type(full)}."))
        return
    prefix_children, prefix_meta = flatten_one_level(prefix)
    full_children, full_meta = flatten_one_level(full)
    prefix_children, full_children = tuple(prefix_children), tuple(full_children)
    prefix_keys, full_keys = _child_keys(prefix), _child_keys(full)
    if len(prefix_children) != len(full_children) or (
            isinstance(prefix, (list, tuple)) and len(prefix) != len(full)):
        yield _arity_error(path, prefix, full, prefix_keys, full_keys)
        return
    if prefix_meta != full_meta:
        yield _metadata_error(path, prefix, prefix_meta, full_meta)
        return
    for k, p, f in zip(prefix_keys, prefix_children, full_children):
        yield from _prefix_error((*path, k), p, f, is_leaf)


def _error_factory(path: KeyPath, what: str,
                   details: Callable[[str], str]) -> Callable[[str], ValueError]:
    return lambda name: ValueError(f"pytree structure error: {what} at key path\n"
                                   f"    {name}{keystr(path)}\n{details(name)}")


def _arity_error(path: KeyPath, prefix: Any, full: Any, prefix_keys: tuple,
                 full_keys: tuple) -> Callable[[str], ValueError]:
    if isinstance(prefix, (list, tuple)):
        ty = type(prefix).__name__
        return _error_factory(path, f"different lengths of {ty}", lambda name: (
            f"At that key path, the prefix pytree {name} has a subtree of type {ty} "
            f"of length {len(prefix)}, but the full pytree has a subtree of the same "
            f"type but of length {len(full)}."))
    names = lambda keys: " ".join(str(_key_value(k)) for k in keys)
    try:
        diff = ("so the symmetric difference on key sets is\n    "
                + names(_symmetric_difference(prefix_keys, full_keys)))
    except Exception:  # unhashable keys
        diff = ""
    return _error_factory(path, "different numbers of pytree children", lambda name: (
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix)}\nwith {len(prefix_keys)} child keys\n    {names(prefix_keys)}\n"
        "but at the same key path the full pytree has a subtree of the same type but "
        f"with {len(full_keys)} child keys\n    {names(full_keys)}\n{diff}"))


def _symmetric_difference(keys1: tuple, keys2: tuple) -> list:
    """The keys in exactly one of the two tuples, in a deterministic order."""
    set1, set2 = set(keys1), set(keys2)
    return [k for k in keys1 if k not in set2] + [k for k in keys2 if k not in set1]


def _metadata_error(path: KeyPath, prefix: Any, prefix_meta: Any,
                    full_meta: Any) -> Callable[[str], ValueError]:
    prefix_str, full_str = str(prefix_meta), str(full_meta)
    diff = "\n".join(difflib.ndiff(prefix_str.splitlines(), full_str.splitlines()))
    return _error_factory(path, "different pytree metadata", lambda name: (
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix)}\nwith metadata\n    {prefix_str}\n"
        "but at the same key path the full pytree has a subtree of the same type but "
        f"with metadata\n    {full_str}\nso the diff in the metadata at these pytree "
        f"nodes is\n{textwrap.indent(diff, prefix='    ')}"))


def equality_errors(tree1: Any, tree2: Any, is_leaf: Callable[[Any], bool] | None = None,
                    ) -> Iterable[tuple[KeyPath, str, str, str]]:
    """Describes structural differences: yields (path, thing1, thing2, explanation)."""
    yield from _equality_errors((), tree1, tree2, is_leaf)


def equality_errors_pytreedef(tree1: PyTreeDef, tree2: PyTreeDef,
                              ) -> Iterable[tuple[KeyPath, str, str, str]]:
    """Like `equality_errors`, on two treedefs."""
    leaf = _PytreeLeaf()
    return equality_errors(tree1.unflatten([leaf] * tree1.num_leaves),
                           tree2.unflatten([leaf] * tree2.num_leaves))


class _PytreeLeaf:
    def __repr__(self):
        return "pytree leaf"


def _children_count(n: int) -> str:
    return f"{n} child{'ren' if n > 1 else ''}"


def _equality_errors(path: KeyPath, t1: Any, t2: Any, is_leaf: Callable | None):
    if (treedef_is_strict_leaf(tree_structure(t1, is_leaf=is_leaf))
            and treedef_is_strict_leaf(tree_structure(t2, is_leaf=is_leaf))):
        return
    if type(t1) is not type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        name = type(t1).__name__
        yield (path, f"{name} of length {len(t1)}", f"{name} of length {len(t2)}",
               "the lengths do not match")
        return
    c1, meta1 = flatten_one_level(t1)
    c2, meta2 = flatten_one_level(t2)
    c1, c2 = tuple(c1), tuple(c2)
    keys1, keys2 = _child_keys(t1), _child_keys(t2)
    if len(c1) != len(c2):
        try:
            diff = " ".join(repr(_key_value(k)) for k in _symmetric_difference(keys1, keys2))
        except Exception:
            diff = ""
        yield (path, f"{type(t1)} with {_children_count(len(c1))}",
               f"{type(t2)} with {_children_count(len(c2))}",
               "the numbers of children do not match"
               + (diff and f", with the symmetric difference of key sets: {{{diff}}}"))
        return
    if meta1 != meta2:
        yield (path, f"{type(t1)} with pytree metadata {meta1}",
               f"{type(t2)} with pytree metadata {meta2}",
               "the pytree node metadata does not match")
        return
    for k, a, b in zip(keys1, c1, c2):
        yield from _equality_errors((*path, k), a, b, is_leaf)
