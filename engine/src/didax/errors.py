"""`didax.errors`: the error classes, named as in `jax.errors`."""

from didax._src.errors import (
    ConcretizationTypeError as ConcretizationTypeError,
    JAXIndexError as JAXIndexError,
    JAXTypeError as JAXTypeError,
    JaxprTypeError as JaxprTypeError,
    JaxRuntimeError as JaxRuntimeError,
    KeyReuseError as KeyReuseError,
    NonConcreteBooleanIndexError as NonConcreteBooleanIndexError,
    TracerArrayConversionError as TracerArrayConversionError,
    TracerBoolConversionError as TracerBoolConversionError,
    TracerIntegerConversionError as TracerIntegerConversionError,
    UnexpectedTracerError as UnexpectedTracerError,
)
