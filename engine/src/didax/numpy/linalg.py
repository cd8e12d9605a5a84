"""`didax.numpy.linalg`: JAX's jax.numpy.linalg (norms, det/slogdet/solve/inv/cholesky
as differentiable compositions; SVD/eigen/QR-based functions raise NotImplementedError)."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.numpy.linalg import (
    cholesky as cholesky,
)
from didax._src.numpy.linalg import (
    cond as cond,
)
from didax._src.numpy.linalg import (
    cross as cross,
)
from didax._src.numpy.linalg import (
    det as det,
)
from didax._src.numpy.linalg import (
    diagonal as diagonal,
)
from didax._src.numpy.linalg import (
    eig as eig,
)
from didax._src.numpy.linalg import (
    eigh as eigh,
)
from didax._src.numpy.linalg import (
    eigvals as eigvals,
)
from didax._src.numpy.linalg import (
    eigvalsh as eigvalsh,
)
from didax._src.numpy.linalg import (
    inv as inv,
)
from didax._src.numpy.linalg import (
    lstsq as lstsq,
)
from didax._src.numpy.linalg import (
    matmul as matmul,
)
from didax._src.numpy.linalg import (
    matrix_norm as matrix_norm,
)
from didax._src.numpy.linalg import (
    matrix_power as matrix_power,
)
from didax._src.numpy.linalg import (
    matrix_rank as matrix_rank,
)
from didax._src.numpy.linalg import (
    matrix_transpose as matrix_transpose,
)
from didax._src.numpy.linalg import (
    multi_dot as multi_dot,
)
from didax._src.numpy.linalg import (
    norm as norm,
)
from didax._src.numpy.linalg import (
    outer as outer,
)
from didax._src.numpy.linalg import (
    pinv as pinv,
)
from didax._src.numpy.linalg import (
    qr as qr,
)
from didax._src.numpy.linalg import (
    slogdet as slogdet,
)
from didax._src.numpy.linalg import (
    solve as solve,
)
from didax._src.numpy.linalg import (
    svd as svd,
)
from didax._src.numpy.linalg import (
    svdvals as svdvals,
)
from didax._src.numpy.linalg import (
    tensordot as tensordot,
)
from didax._src.numpy.linalg import (
    tensorinv as tensorinv,
)
from didax._src.numpy.linalg import (
    tensorsolve as tensorsolve,
)
from didax._src.numpy.linalg import (
    trace as trace,
)
from didax._src.numpy.linalg import (
    vecdot as vecdot,
)
from didax._src.numpy.linalg import (
    vector_norm as vector_norm,
)

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.numpy.linalg", __name__)
