"""`jax.scipy.spatial.transform`: `Rotation` (unit quaternions, scalar last, stored in one
`quat` array; batches along leading axes) with SciPy's constructors and conversions, and
`Slerp` (spherical linear interpolation between rotations). Both are NamedTuples, hence
pytrees, as in JAX (jax/_src/scipy/spatial/transform.py), whose formulas these follow.

May import core, dtypes, lax and numpy (the implementation modules).
"""

from __future__ import annotations

import re
import typing

import numpy as np

from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import linalg_decomp as jld
from didax._src.numpy import manipulation as man
from didax._src.numpy import numeric, sorting
from didax._src.numpy import products as prod
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um

_AXIS = {"x": 0, "y": 1, "z": 2}

# ---- quaternion arithmetic (over leading batch axes) -----------------------------------


def _norm(v):
    return um.sqrt(red.sum(v * v, axis=-1))


def _normalize(q):
    return q / _norm(q)[..., None]


def _compose(p, q):
    """The Hamilton product p q (apply q, then p)."""
    cross = prod.cross(p[..., :3], q[..., :3])
    vec = p[..., 3:] * q[..., :3] + q[..., 3:] * p[..., :3] + cross
    w = (p[..., 3] * q[..., 3] - p[..., 0] * q[..., 0] - p[..., 1] * q[..., 1]
         - p[..., 2] * q[..., 2])
    return man.concatenate([vec, w[..., None]], axis=-1)


def _as_matrix(q):
    x, y, z, w = (q[..., i] for i in range(4))
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    rows = [[x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2]]
    return man.stack([man.stack(r, axis=-1) for r in rows], axis=-2)


def _from_matrix(m):
    """The quaternion of a rotation matrix, from its largest diagonal entry or trace."""
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    decision = man.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], trace], axis=-1)
    choice = red.argmax(decision, axis=-1)
    out = man.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                     m[..., 1, 0] - m[..., 0, 1], 1 + trace], axis=-1)
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [None] * 4
        q[i] = 1 - trace + 2 * m[..., i, i]
        q[j] = m[..., j, i] + m[..., i, j]
        q[k] = m[..., k, i] + m[..., i, k]
        q[3] = m[..., k, j] - m[..., j, k]
        out = ln.where((choice == i)[..., None], man.stack(q, axis=-1), out)
    return _normalize(out)


def _from_rotvec(rotvec, degrees: bool):
    rotvec = um.deg2rad(rotvec) if degrees else rotvec
    angle = _norm(rotvec)
    a2 = angle * angle
    small = 0.5 - a2 / 48 + a2 * a2 / 3840
    scale = ln.where(angle <= 0.001, small, um.sin(angle / 2) / angle)
    return man.concatenate([scale[..., None] * rotvec, um.cos(angle / 2)[..., None]], axis=-1)


def _as_rotvec(q, degrees: bool):
    q = ln.where((q[..., 3] < 0)[..., None], -q, q)
    angle = 2.0 * uf.arctan2(_norm(q[..., :3]), q[..., 3])
    a2 = angle * angle
    small = 2 + a2 / 12 + 7 * a2 * a2 / 2880
    scale = ln.where(angle <= 0.001, small, angle / um.sin(angle / 2))
    scale = um.rad2deg(scale) if degrees else scale
    return scale[..., None] * q[..., :3]


def _elementary(axis: int, angle):
    zero = ac.zeros_like(angle)
    parts = [zero, zero, zero, um.cos(angle / 2.0)]
    parts[axis] = um.sin(angle / 2.0)
    return man.stack(parts, axis=-1)


def _canonical(q):
    neg, zero = q < 0, q == 0
    flip = (neg[..., 3] | zero[..., 3] & neg[..., 0]
            | zero[..., 3] & zero[..., 0] & neg[..., 1]
            | zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2])
    return ln.where(flip[..., None], -q, q)

# ---- Euler angles ----------------------------------------------------------------------


def _check_seq(seq: str, max_axes: int = 3) -> bool:
    """Validates an axis sequence; True when intrinsic (upper case)."""
    if not 1 <= len(seq) <= max_axes:
        raise ValueError("Expected axis specification to be a non-empty string of upto 3 "
                         f"characters, got {seq}")
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    if not (intrinsic or re.match(r"^[xyz]{1,3}$", seq)):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic


def _euler_abcd(q, i, j, k, symmetric, sign):
    if symmetric:
        return q[..., 3], q[..., i], q[..., j], q[..., k] * sign
    return (q[..., 3] - q[..., j], q[..., i] + q[..., k] * sign, q[..., j] + q[..., 3],
            q[..., k] * sign - q[..., i])


def _euler_from_quat(q, axes, extrinsic: bool, degrees: bool):
    """Euler angles of q for a 3-axis sequence (Bernardes and Viollet's method)."""
    first, third = (0, 2) if extrinsic else (2, 0)
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    a, b, c, d = _euler_abcd(q, i, j, k, symmetric, sign)
    middle = 2 * uf.arctan2(um.hypot(c, d), um.hypot(a, b))
    case = ln.where(uf.abs(middle) <= 1e-7, 1, ln.where(uf.abs(middle - np.pi) <= 1e-7, 2, 0))
    half_sum, half_diff = uf.arctan2(b, a), uf.arctan2(d, c)
    angles = [ac.zeros_like(middle), middle, ac.zeros_like(middle)]
    angles[0] = ln.where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    angles[first] = ln.where(case == 0, half_sum - half_diff, angles[first])
    angles[third] = ln.where(case == 0, half_sum + half_diff, angles[third])
    if not symmetric:
        angles[third] = angles[third] * sign
        angles[1] = angles[1] - np.pi / 2
    out = (man.stack(angles, axis=-1) + np.pi) % (2 * np.pi) - np.pi
    return um.rad2deg(out) if degrees else out

# ---- Rotation, Slerp -------------------------------------------------------------------


class Rotation(typing.NamedTuple):
    """Rotations in 3 dimensions, as unit quaternions (x, y, z, w)."""

    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations):
        return cls(man.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles, degrees: bool = False):
        intrinsic = _check_seq(seq)
        angles = man.atleast_1d(angles)
        angles = um.deg2rad(angles) if degrees else angles
        axes = [_AXIS[a] for a in seq.lower()]
        out = _elementary(axes[0], angles[..., 0])
        for idx in range(1, len(axes)):
            q = _elementary(axes[idx], angles[..., idx])
            out = _compose(out, q) if intrinsic else _compose(q, out)
        return cls(out)

    @classmethod
    def from_matrix(cls, matrix):
        return cls(_from_matrix(ac.asarray(matrix)))

    @classmethod
    def from_mrp(cls, mrp):
        mrp = ac.asarray(mrp)
        sq1 = red.sum(mrp * mrp, axis=-1)[..., None] + 1
        return cls(man.concatenate([2 * mrp[..., :3], 2 - sq1], axis=-1) / sq1)

    @classmethod
    def from_quat(cls, quat):
        return cls(_normalize(ac.asarray(quat)))

    @classmethod
    def from_rotvec(cls, rotvec, degrees: bool = False):
        return cls(_from_rotvec(ac.asarray(rotvec), degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype=float):
        assert num is None
        return cls(ac.array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key, num: int | None = None):
        raise NotImplementedError()

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other) -> Rotation:
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors, inverse: bool = False):
        """The rotated vectors (by the inverse rotation with `inverse`)."""
        m = self.as_matrix()
        m = man.swapaxes(m, -1, -2) if inverse else m
        return prod.matmul(m, ac.asarray(vectors)[..., None])[..., 0]

    def as_euler(self, seq: str, degrees: bool = False):
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        intrinsic = _check_seq(seq)
        return _euler_from_quat(self.quat, [_AXIS[a] for a in seq.lower()], not intrinsic,
                                degrees)

    def as_matrix(self):
        return _as_matrix(self.quat)

    def as_mrp(self):
        sign = ln.where(self.quat[..., 3] < 0, -1.0, 1.0)
        return (sign[..., None] * self.quat[..., :3]) / (1.0 + sign * self.quat[..., 3])[..., None]

    def as_rotvec(self, degrees: bool = False):
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False):
        q = _canonical(self.quat) if canonical else self.quat
        return man.roll(q, shift=1, axis=-1) if scalar_first else q

    def inv(self):
        return Rotation(self.quat * ac.array([-1, -1, -1, 1], dtype=self.quat.dtype))

    def magnitude(self):
        return 2.0 * uf.arctan2(_norm(self.quat[..., :3]), uf.abs(self.quat[..., 3]))

    def mean(self, weights=None):
        """The (weighted) mean rotation: the top eigenvector of sum w q q^T."""
        q = self.quat
        w = (ac.ones(q.shape[0], dtype=q.dtype) if weights is None
             else ac.asarray(weights, dtype=q.dtype))
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number of "
                             f"rotations, got {w.shape[0]} values and {len(self)} rotations.")
        _, v = jld.eigh(prod.dot(w[None, :] * q.T, q))
        return Rotation(v[:, -1])

    @property
    def single(self) -> bool:
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation of rotations at key times."""

    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations: Rotation):
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = ac.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError("Expected times to be specified in a 1 dimensional array, got "
                             f"{times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of "
                             f"timestamps given, got {len(rotations)} rotations and "
                             f"{times.shape[0]} timestamps.")
        starts = Rotation(rotations.as_quat()[:-1])
        steps = (starts.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec()
        return cls(times=times, timedelta=numeric.diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times):
        t = ac.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single = t.ndim == 0
        t = man.atleast_1d(t)
        ind = uf.maximum(sorting.searchsorted(self.times, t) - 1, 0)
        alpha = (t - self.times[ind]) / self.timedelta[ind]
        out = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return out[0] if single else out
