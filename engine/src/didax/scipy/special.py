"""`didax.scipy.special`: JAX's jax.scipy.special functions didax provides."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.numpy.ufuncs_math import i0 as i0
from didax._src.scipy.special import (
    betaln as betaln,
)
from didax._src.scipy.special import (
    digamma as digamma,
)
from didax._src.scipy.special import (
    entr as entr,
)
from didax._src.scipy.special import (
    erf as erf,
)
from didax._src.scipy.special import (
    erfc as erfc,
)
from didax._src.scipy.special import (
    erfinv as erfinv,
)
from didax._src.scipy.special import (
    expit as expit,
)
from didax._src.scipy.special import (
    gamma as gamma,
)
from didax._src.scipy.special import (
    gammainc as gammainc,
)
from didax._src.scipy.special import (
    gammaln as gammaln,
)
from didax._src.scipy.special import (
    gammasgn as gammasgn,
)
from didax._src.scipy.special import (
    kl_div as kl_div,
)
from didax._src.scipy.special import (
    log_ndtr as log_ndtr,
)
from didax._src.scipy.special import (
    log_softmax as log_softmax,
)
from didax._src.scipy.special import (
    loggamma as loggamma,
)
from didax._src.scipy.special import (
    logit as logit,
)
from didax._src.scipy.special import (
    logsumexp as logsumexp,
)
from didax._src.scipy.special import (
    multigammaln as multigammaln,
)
from didax._src.scipy.special import (
    ndtr as ndtr,
)
from didax._src.scipy.special import (
    ndtri as ndtri,
)
from didax._src.scipy.special import (
    polygamma as polygamma,
)
from didax._src.scipy.special import (
    rel_entr as rel_entr,
)
from didax._src.scipy.special import (
    softmax as softmax,
)
from didax._src.scipy.special import (
    xlog1py as xlog1py,
)
from didax._src.scipy.special import (
    xlogy as xlogy,
)
from didax._src.scipy.special_extra import bernoulli as bernoulli
from didax._src.scipy.special_extra import bessel_jn as bessel_jn
from didax._src.scipy.special_extra import boxcox as boxcox
from didax._src.scipy.special_extra import boxcox1p as boxcox1p
from didax._src.scipy.special_extra import erfcx as erfcx
from didax._src.scipy.special_extra import exp1 as exp1
from didax._src.scipy.special_extra import expi as expi
from didax._src.scipy.special_extra import expn as expn
from didax._src.scipy.special_extra import poch as poch
from didax._src.scipy.special_more import beta as beta
from didax._src.scipy.special_more import betainc as betainc
from didax._src.scipy.special_more import comb as comb
from didax._src.scipy.special_more import factorial as factorial
from didax._src.scipy.special_more import gammaincc as gammaincc
from didax._src.scipy.special_more import i0e as i0e
from didax._src.scipy.special_more import i1 as i1
from didax._src.scipy.special_more import i1e as i1e
from didax._src.scipy.special_more import zeta as zeta

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.special", __name__)
