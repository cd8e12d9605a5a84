"""`jnp.einsum` with JAX's contraction semantics: subscripts with ellipses and implicit
outputs, size-1 broadcasting, repeated labels (diagonals via an iota mask), labels summed
out early, and every pairwise contraction a single dot_general (batch labels become batch
dimensions) with the promoted result dtype as preferred_element_type. The contraction
order is chosen greedily (the smallest intermediate first), each intermediate transposed to
opt_einsum's label order as JAX does; `einsum_path` reports it.

May import core, dtypes, array, didax.lax and numpy.util.
"""

from __future__ import annotations

import collections
import itertools
import math
import operator
import string

import numpy as np

from didax._src import dtypes
from didax._src.lax import lax, shapes
from didax._src.lax import reductions as lred
from didax._src.numpy.util import check_arraylike, convert, dtype_of, to_array

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse(subscripts, shapes_):
    """(input label strings, output label string) with ellipses expanded."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        ins, out = subscripts.split("->")
        explicit = True
    else:
        ins, out, explicit = subscripts, None, False
    ins = ins.split(",")
    if len(ins) != len(shapes_):
        raise ValueError("Number of einsum operands does not match the number of "
                         f"subscripts: {len(shapes_)} operands vs {len(ins)} terms")
    used = set("".join(ins) + (out or "")) - {".", "-", ">"}
    spare = [c for c in _LETTERS if c not in used]
    ell_rank = max((len(s) - len(t.replace("...", "")) for t, s in zip(ins, shapes_)
                    if "..." in t), default=0)
    ell = "".join(spare[:ell_rank])
    expanded = []
    for t, s in zip(ins, shapes_):
        if "..." in t:
            k = len(s) - len(t.replace("...", ""))
            t = t.replace("...", ell[ell_rank - k:] if k else "")
        if len(t) != len(s):
            raise ValueError(f"einstein sum subscript {t!r} does not contain the correct "
                             f"number of indices for operand of shape {tuple(s)}")
        expanded.append(t)
    if explicit:
        out = out.replace("...", ell)
    else:
        counts = collections.Counter("".join(expanded))
        out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    for c in out:
        if c not in "".join(expanded):
            raise ValueError(f"einstein sum subscripts string included output subscript "
                             f"{c!r} which never appeared in an input")
    return expanded, out


def _sizes(ins, shapes_):
    sizes: dict[str, int] = {}
    for t, s in zip(ins, shapes_):
        for c, d in zip(t, s):
            if d != 1:
                if sizes.get(c, 1) not in (1, d):
                    raise ValueError(f"Size of label '{c}' for operand does not match "
                                     f"previous terms ({sizes[c]} vs {d}).")
                sizes[c] = d
            else:
                sizes.setdefault(c, 1)
    return sizes


def _greedy_path(ins, out, sizes):
    """Pairs (i, j), i > j, of positions in the shrinking operand list, smallest
    intermediate first."""
    terms, path = list(ins), []
    while len(terms) > 1:
        best = None
        for j, i in itertools.combinations(range(len(terms)), 2):
            rest = "".join(t for k, t in enumerate(terms) if k not in (i, j)) + out
            kept = set(terms[i] + terms[j]) & set(rest)
            cost = math.prod(sizes[c] for c in kept)
            if best is None or cost < best[0]:
                best = (cost, i, j, kept)
        _, i, j, kept = best
        new = _intermediate_labels(kept, terms[i], terms[j])
        terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [new]
        path.append((i, j))
    return path


def _intermediate_labels(kept, lhs_labels: str, rhs_labels: str) -> str:
    """An intermediate's labels in order of first appearance in lhs then rhs (opt_einsum's
    "tensordot order", which JAX's einsum transposes each intermediate to)."""
    return "".join(sorted(kept, key=(lhs_labels + rhs_labels).find))


def _sublists_to_subscripts(*args):
    """einsum(op0, sublist0, op1, sublist1, ..., [out_sublist]) as a subscripts string:
    integer labels become letters, Ellipsis becomes '...' (NumPy's rule)."""
    letters = string.ascii_letters

    def term(sub):
        out = []
        for v in sub:
            if v is Ellipsis:
                out.append("...")
            else:
                v = operator.index(v)
                if not 0 <= v < len(letters):
                    raise ValueError(f"einsum subscript {v} is out of range: a sublist "
                                     f"label must be in [0, {len(letters)})")
                out.append(letters[v])
        return "".join(out)

    pairs = args[:-1] if len(args) % 2 else args
    operands = list(pairs[0::2])
    terms = [term(sub) for sub in pairs[1::2]]
    spec = ",".join(terms)
    if len(args) % 2:
        spec += "->" + term(args[-1])
    return spec, operands


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):   # the operand/sublist form
        subscripts, operands = _sublists_to_subscripts(subscripts, *operands)
    check_arraylike("einsum", *operands)
    operands = [to_array(op) for op in operands]
    ins, out_labels = _parse(subscripts, [np.shape(op) for op in operands])
    if preferred_element_type is None:
        pet, weak = dtypes.result_type(*operands, return_weak_type_flag=True)
        pet = dtypes.canonicalize_dtype(pet)
    else:
        pet = dtypes.check_and_canonicalize_user_dtype(preferred_element_type, "einsum")
        weak = False
    sizes = _sizes(ins, [np.shape(op) for op in operands])
    path = _greedy_path(ins, out_labels, sizes) if len(ins) > 1 else []
    return _contract(operands, ins, out_labels, path, pet, weak, precision)


def _contract(operands, ins, out_labels, path, pet, weak, precision):
    ops, names = list(operands), list(ins)
    if len(ops) == 1:
        op, nm = _reduce_single(ops[0], names[0], out_labels, pet)
        ops, names = [op], [nm]
    for i, j in path:
        lhs, lhs_n = ops.pop(i), names.pop(i)
        rhs, rhs_n = ops.pop(j), names.pop(j)
        keep = set("".join(names) + out_labels)
        result = _intermediate_labels(keep & set(lhs_n + rhs_n), lhs_n, rhs_n) if ops \
            else out_labels
        op, nm = _pair(lhs, lhs_n, rhs, rhs_n, keep, result, pet, precision)
        if ops and nm != result:  # intermediates take opt_einsum's label order, as in JAX
            op, nm = shapes.transpose(op, tuple(nm.index(c) for c in result)), result
        ops.append(op)
        names.append(nm)
    op, nm = ops[0], names[0]
    if nm != out_labels:
        op = shapes.transpose(op, tuple(nm.index(c) for c in out_labels))
    return to_array(convert(op, pet, weak))


def _sum(x, axes, pet):
    if not axes:
        return x
    if dtypes.result_type(x, pet) != dtype_of(x):
        x = lax.convert_element_type(x, pet)
    if dtype_of(x) == np.bool_:
        return lred.reduce_or(x, tuple(axes))
    return lred.reduce_sum(x, tuple(axes))


def _sum_repeats(x, names, keep, pet):
    """Labels repeated within one operand: keep the diagonal (summing it away unless the
    label is still needed)."""
    for c, n in collections.Counter(names).items():
        if n < 2:
            continue
        axes = [k for k, d in enumerate(names) if d == c]
        size = np.shape(x)[axes[0]]
        iotas = [shapes.broadcasted_iota(np.uint32, (size,) * len(axes), k)
                 for k in range(len(axes))]
        mask = iotas[0]
        eye = None
        for io in iotas[1:]:
            e = lax.eq(mask, io)
            eye = e if eye is None else lax.bitwise_and(eye, e)
        eye = shapes.broadcast_in_dim(eye, np.shape(x), tuple(axes)) \
            if np.ndim(x) != len(axes) else eye
        x = lax.select(eye, x, lax.full_like(x, 0))
        drop = axes if c not in keep else axes[:-1]
        x = _sum(x, drop, pet)
        names = "".join(d for k, d in enumerate(names) if k not in drop)
    return x, names


def _reduce_single(x, names, out_labels, pet):
    counts = collections.Counter(names)
    uniques = [k for k, c in enumerate(names) if counts[c] == 1 and c not in out_labels]
    x = _sum(x, uniques, pet)
    names = "".join(c for k, c in enumerate(names) if k not in uniques)
    return _sum_repeats(x, names, out_labels, pet)


def _squeeze_singletons(x, names, other_shape, other_names):
    """Size-1 dims whose label is larger in the other operand broadcast: drop them."""
    drop = [k for k, c in enumerate(names) if np.shape(x)[k] == 1 and c in other_names
            and other_shape[other_names.index(c)] != 1]
    if not drop:
        return x, names
    return shapes.squeeze(x, drop), "".join(c for k, c in enumerate(names) if k not in drop)


def _pair(lhs, ln, rhs, rn, keep, result, pet, precision):
    lhs, ln = _squeeze_singletons(lhs, ln, np.shape(rhs), rn)
    rhs, rn = _squeeze_singletons(rhs, rn, np.shape(lhs), ln)
    for side in (0, 1):
        x, n, other = (lhs, ln, rn) if side == 0 else (rhs, rn, ln)
        counts = collections.Counter(n)
        uniq = [k for k, c in enumerate(n) if counts[c] == 1 and c not in other and
                c not in keep]
        x = _sum(x, uniq, pet)
        n = "".join(c for k, c in enumerate(n) if k not in uniq)
        x, n = _sum_repeats(x, n, set(keep) | set(other), pet)
        lhs, ln = (x, n) if side == 0 else (lhs, ln)
        rhs, rn = (x, n) if side == 1 else (rhs, rn)
    both = set(ln) & set(rn)
    batch = [c for c in result if c in both]
    contracted = sorted(c for c in both if c not in keep)
    gone = set(batch) | set(contracted)
    lrem = "".join(c for c in ln if c not in gone)
    rrem = "".join(c for c in rn if c not in gone)
    lc, rc = [ln.index(c) for c in contracted], [rn.index(c) for c in contracted]
    lb, rb = [ln.index(c) for c in batch], [rn.index(c) for c in batch]
    if "".join(batch) + rrem + lrem == result:
        out = lred.dot_general(rhs, lhs, ((tuple(rc), tuple(lc)), (tuple(rb), tuple(lb))),
                               precision=precision, preferred_element_type=pet)
        return out, "".join(batch) + rrem + lrem
    out = lred.dot_general(lhs, rhs, ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))),
                           precision=precision, preferred_element_type=pet)
    return out, "".join(batch) + lrem + rrem


def einsum_path(subscripts, *operands, optimize="greedy"):
    """(pairs, description): the contraction order einsum uses, as opt_einsum reports
    paths (positions in the shrinking operand list, smaller first)."""
    shapes_ = [np.shape(op) for op in operands]
    ins, out = _parse(subscripts, shapes_)
    sizes = _sizes(ins, shapes_)
    path = [(j, i) for i, j in _greedy_path(ins, out, sizes)] if len(ins) > 1 else [(0,)]
    desc = (f"  Complete contraction:  {','.join(ins)}->{out}\n"
            f"  Contraction path: {path}")
    return path, desc

