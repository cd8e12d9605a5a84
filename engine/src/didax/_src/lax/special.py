"""Special-function primitives beyond lax.lax's set, each declared once with every rule:
`erfc` (the complementary error function, accurate where 1 - erf(x) cancels).

May import core, dtypes, the interpreters, lax._define and lax.lax.
"""

from __future__ import annotations

import numpy as np

from didax._src.interpreters import lowering
from didax._src.lax import lax
from didax._src.lax._define import (
    NONLINEAR,
    VECTORIZED,
    _float,
    def_primitive,
    unop_abstract_eval,
)


def _erfc_impl(x):
    from scipy import special  # noqa: PLC0415 - optional at import time, as lax.lax does

    with np.errstate(all="ignore"):
        return special.erfc(x)


def _erfc_jvp(g, x):
    return lax.mul(lax._const(x, -2.0 / np.sqrt(np.pi)),
                   lax.mul(g, lax.exp(lax.neg(lax.square(x)))))


erfc_p = def_primitive(
    "erfc", abstract_eval=unop_abstract_eval("erfc", _float), impl=_erfc_impl,
    jvp=(_erfc_jvp,), transpose=NONLINEAR, batch=VECTORIZED,
    lower=lowering.unary("chlo.erfc"))


def erfc(x):
    """The complementary error function, 1 - erf(x)."""
    return erfc_p.bind(x)
