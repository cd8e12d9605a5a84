"""The public `didax.Array` type: what `isinstance(x, jax.Array)` means in JAX — concrete
arrays and tracers alike (a traced value inside jit/grad/vmap is an Array to user code).
The engine itself checks the concrete class (`didax._src.array.Array`), never this one.

May import core, array.
"""

from __future__ import annotations

import abc

from didax._src import array, core


class Array(abc.ABC):  # noqa: B024 - a pure type: registered classes are its instances
    """The type of didax arrays: concrete device arrays and tracers."""

    __slots__ = ()


Array.register(array.Array)
Array.register(core.Tracer)
Array.__module__ = "didax"
