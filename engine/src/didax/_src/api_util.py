"""Helpers shared by the transformation APIs: flattening functions over pytrees, argnums
handling, static arguments, and the `ShapeDtypeStruct` abstract-array description.

May import core, dtypes, tree_util.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.tree_util import tree_flatten, tree_unflatten


def flatten_fun(fun: Callable, in_tree) -> tuple[Callable, dict]:
    """fun(*args, **kwargs) -> pytree  as  flat(*leaves) -> leaves; the output treedef
    lands in store['out_tree']."""
    store: dict[str, Any] = {}

    def flat(*flat_args):
        args, kwargs = tree_unflatten(in_tree, flat_args)
        out = fun(*args, **kwargs)
        leaves, out_tree = tree_flatten(out)
        store["out_tree"] = out_tree
        return leaves

    return flat, store


def flatten_fun_nokwargs(fun: Callable, in_tree) -> tuple[Callable, dict]:
    store: dict[str, Any] = {}

    def flat(*flat_args):
        args = tree_unflatten(in_tree, flat_args)
        out = fun(*args)
        leaves, out_tree = tree_flatten(out)
        store["out_tree"] = out_tree
        return leaves

    return flat, store


def check_callable(fun: Any) -> None:
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if inspect.isgeneratorfunction(fun):
        raise TypeError(f"Expected a function, got a generator function: {fun}")


def ensure_index_tuple(x) -> tuple[int, ...]:
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(operator.index(i) for i in x)


def argnums_partial(fun: Callable, dyn_argnums: Sequence[int], args: Sequence[Any]):
    """(f over the dynamic args, the dynamic args)."""
    dyn_set = tuple(dyn_argnums)
    dyn_args = tuple(args[i] for i in dyn_set)

    def f(*dyn):
        full = list(args)
        for i, v in zip(dyn_set, dyn):
            full[i] = v
        return fun(*full)

    return f, dyn_args


def check_argnums(name: str, argnums: Sequence[int], nargs: int) -> tuple[int, ...]:
    out = []
    for i in argnums:
        j = i + nargs if i < 0 else i
        if not 0 <= j < nargs:
            raise TypeError(
                f"differentiating with respect to argnums={argnums[0] if len(argnums) == 1 else argnums} "
                f"requires at least {max(i, -i - 1) + 1} positional arguments to be passed by "
                f"the caller, but got only {nargs} positional arguments.")
        out.append(j)
    return tuple(out)


class ShapeDtypeStruct:
    """An abstract array: a shape, a dtype and optionally weak typing (used for tracing
    and AOT lowering without concrete values)."""

    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape, dtype, sharding=None, weak_type: bool = False):
        self.shape = tuple(shape)
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        # Kept as given (float64 stays float64, as in JAX); the aval is canonical.
        self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
        self.sharding = sharding
        self.weak_type = weak_type

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: core._prod(self.shape))

    @classmethod
    def like(cls, x) -> ShapeDtypeStruct:
        """The abstract array of x (an array, a Python scalar, a ShapeDtypeStruct):
        its shape, canonical dtype, weak type and (for sharded arrays) sharding."""
        if isinstance(x, ShapeDtypeStruct):
            return cls(x.shape, x.dtype, sharding=x.sharding, weak_type=x.weak_type)
        aval = core.get_aval(x)
        sharding = getattr(aval, "sharding", None)
        return cls(aval.shape, aval.dtype, sharding=sharding, weak_type=aval.weak_type)

    @property
    def aval(self) -> core.ShapedArray:
        return core.ShapedArray(self.shape, dtypes.canonicalize_dtype(self.dtype, True),
                                self.weak_type)

    def __repr__(self):
        w = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{w})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]


def shaped_abstractify(x) -> core.ShapedArray:
    """The aval a traced input gets (ShapeDtypeStructs and values alike)."""
    if isinstance(x, ShapeDtypeStruct):
        return x.aval
    return core.get_aval(x)


def arg_names(fun: Callable, args: Sequence[Any], kwargs: dict) -> list[str] | None:
    """Names for each flattened positional argument slot ("x", or "args[0]")."""
    try:
        sig = inspect.signature(fun)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    return list(bound.arguments)


def debug_arg_names(fun: Callable, args: Sequence[Any]) -> list[str]:
    """Per top-level positional argument: its parameter name or args[i]."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(len(args)):
        p = params[i] if i < len(params) else None
        if p is not None and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        else:
            names.append(f"args[{i}]")
    return names


def param_names(fun: Callable, nargs: int) -> list[str]:
    """JAX's name for each of nargs positional arguments of fun: the parameter's name, or
    `args[i]` (after the *args parameter's name) for the i-th extra one."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    pos = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    var = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), "args")
    return [pos[i] if i < len(pos) else f"{var}[{i - len(pos)}]" for i in range(nargs)]
