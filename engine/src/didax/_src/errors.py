"""didax's error classes, named and arranged as `jax.errors` arranges them.

Tracer conversion errors name the operation that needed a concrete value and the user's
source line. May import only the standard library.
"""

from __future__ import annotations

import os

# PJRT logs INFO lines to stderr unless told otherwise before jaxlib is first imported.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

_DOCS = "https://docs.jax.dev/en/latest/errors.html"


class _JAXErrorMixin:
    """Appends a pointer to the explanation of the error class."""

    def __init__(self, message: str):
        super().__init__(f"{message}\nSee {_DOCS}#jax.errors.{type(self).__name__}")


class JAXTypeError(_JAXErrorMixin, TypeError):
    """A didax-specific TypeError."""


class JAXIndexError(_JAXErrorMixin, IndexError):
    """A didax-specific IndexError."""


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where a concrete Python value is needed."""


class TracerBoolConversionError(ConcretizationTypeError):
    """bool() (an `if`, `while`, `and`, `or`) of a traced value."""


class TracerIntegerConversionError(JAXTypeError):
    """int() / __index__ of a traced value."""


class TracerArrayConversionError(JAXTypeError):
    """np.asarray of a traced value."""


class UnexpectedTracerError(JAXTypeError):
    """A tracer was used outside the transformation that created it."""


class KeyReuseError(JAXTypeError):
    """A PRNG key was used twice (only raised when key-reuse checking is on)."""


class NonConcreteBooleanIndexError(JAXIndexError):
    """Boolean-mask indexing with a traced mask (the result shape would be dynamic)."""


class JaxprTypeError(TypeError):
    """A jaxpr failed the type checker."""


class InconclusiveDimensionOperation(Exception):
    """Kept for API parity with jax.errors (didax has no symbolic shapes)."""


try:  # the runtime error class jaxlib raises from XLA
    from jaxlib.xla_client import XlaRuntimeError as JaxRuntimeError  # type: ignore
except Exception:  # pragma: no cover - jaxlib always present at runtime

    class JaxRuntimeError(RuntimeError):  # type: ignore[no-redef]
        """An error raised by the XLA runtime."""
