"""The LDL^T factorisation of symmetric (possibly indefinite) matrices with Bunch-Kaufman
pivoting, in LAPACK's compact form (sytrf, lower triangle), and the solve that reads it
(sytrs). PyTorch has no gradient for either, so these are plain array functions; its
linalg.ldl_factor and ldl_solve in microtorch/linalg.py wrap them.

The form: A = L D L^T, D block diagonal with 1x1 and 2x2 blocks, L unit lower triangular
times the row interchanges. ``pivots`` (int32, 1-based) says, for each column k:
- pivots[k] = p > 0: a 1x1 block D[k, k]; rows and columns k and p-1 were swapped first;
- pivots[k] = pivots[k+1] = -p < 0: a 2x2 block in rows and columns k, k+1; rows and
  columns k+1 and p-1 were swapped first.
LD holds D's blocks on and just below the diagonal and the multipliers of L below them.

Each matrix of a batch is factorised on its own: the pivot choices (and so the steps) differ
from one matrix to the next. The step loops are Python, the updates whole-array operations.
"""

from __future__ import annotations

import math

from ..backend import xp_of

_ALPHA = (1 + math.sqrt(17)) / 8  # Bunch-Kaufman's threshold: bounds the growth of L


def ldl_factor_arrays(a):
    """(ld, pivots, info) for a batch of symmetric matrices a (..., n, n), reading their
    lower triangles: LAPACK's sytrf (its unblocked sytf2). info is 1 + the first column whose
    pivot block is exactly singular (0 when none), as LAPACK's."""
    xp = xp_of(a)
    *batch, n, _ = a.shape
    flat = xp.tril(a.reshape(math.prod(batch), n, n))
    pivots = xp.zeros((flat.shape[0], n), dtype=xp.int32)
    info = xp.zeros(flat.shape[0], dtype=xp.int32)
    for b in range(flat.shape[0]):
        pivots[b], info[b] = _ldl_one(flat[b])
    return flat.reshape(a.shape), pivots.reshape(*batch, n), info.reshape(batch)


def _ldl_one(m):
    """Factorise one matrix m (n, n, lower triangle) in place; its (pivots, info)."""
    xp = xp_of(m)
    n = m.shape[0]
    pivots = [0] * n
    info = 0
    k = 0
    while k < n:
        step, singular = 1, False
        diagonal = abs(float(m[k, k]))
        below = xp.abs(m[k + 1 :, k])
        imax = k + 1 + int(xp.argmax(below)) if k + 1 < n else k
        colmax = float(below.max()) if k + 1 < n else 0.0
        if max(diagonal, colmax) == 0 or math.isnan(diagonal):
            info = info or k + 1  # a zero column: D[k, k] = 0, nothing to eliminate
            p, singular = k, True
        elif diagonal >= _ALPHA * colmax:
            p = k  # the diagonal entry is large enough: a 1x1 block, no swap
        else:
            # the largest off-diagonal entry of row / column imax (its lower triangle holds
            # row imax left of the diagonal and column imax below it)
            rowmax = float(xp.abs(m[imax, k:imax]).max())
            if imax + 1 < n:
                rowmax = max(rowmax, float(xp.abs(m[imax + 1 :, imax]).max()))
            if diagonal >= _ALPHA * colmax * (colmax / rowmax):
                p = k
            elif abs(float(m[imax, imax])) >= _ALPHA * rowmax:
                p = imax  # a 1x1 block after swapping k and imax
            else:
                p, step = imax, 2  # a 2x2 block after swapping k + 1 and imax
        kk = k + step - 1
        if p != kk:
            _swap_symmetric(m, kk, p, k, step)
        if step == 1:
            if k + 1 < n and not singular:
                # A[k+1:, k+1:] -= x x^T / d, then the column becomes x / d (L's multipliers)
                x = m[k + 1 :, k].copy()
                m[k + 1 :, k + 1 :] -= xp.tril(xp.outer(x, x) / m[k, k])
                m[k + 1 :, k] = x / m[k, k]
            pivots[k] = p + 1
        else:
            if k + 2 < n:
                # W = [x, y] D^-1 for the 2x2 block D = [[a, c], [c, d]]; A[k+2:, k+2:] -= W
                # [x, y]^T, and the two columns become W
                c = m[k + 1, k]
                d11, d22 = m[k + 1, k + 1] / c, m[k, k] / c
                scale = 1 / (d11 * d22 - 1) / c
                x, y = m[k + 2 :, k].copy(), m[k + 2 :, k + 1].copy()
                wk = scale * (d11 * x - y)
                wk1 = scale * (d22 * y - x)
                m[k + 2 :, k + 2 :] -= xp.tril(xp.outer(x, wk) + xp.outer(y, wk1))
                m[k + 2 :, k], m[k + 2 :, k + 1] = wk, wk1
            pivots[k] = pivots[k + 1] = -(p + 1)
        k += step
    return xp.asarray(pivots, dtype=xp.int32), info


def _swap_symmetric(m, kk, p, k, step):
    """Swap rows and columns kk and p (kk < p) of the symmetric matrix held in m's lower
    triangle, in its trailing part from column k; for a 2x2 step also m[k+1, k] and m[p, k]."""
    xp = xp_of(m)
    n = m.shape[0]
    if p + 1 < n:
        m[p + 1 :, kk], m[p + 1 :, p] = m[p + 1 :, p].copy(), m[p + 1 :, kk].copy()
    between = xp.arange(kk + 1, p)  # column kk below kk and row p left of p, swapped
    m[between, kk], m[p, between] = m[p, between].copy(), m[between, kk].copy()
    m[kk, kk], m[p, p] = m[p, p].copy(), m[kk, kk].copy()
    if step == 2:
        m[k + 1, k], m[p, k] = m[p, k].copy(), m[k + 1, k].copy()


def ldl_solve_arrays(ld, pivots, b):
    """X with A X = b for A given by ldl_factor_arrays' (ld, pivots) (LAPACK's sytrs): L's
    solve with the interchanges, D's blocks, then L^T's solve with them undone. ld (..., n,
    n) and b (..., n, k) have broadcasting batch dims."""
    xp = xp_of(ld)
    batch = xp.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    count = math.prod(batch)  # (spelled out: reshape(-1, ...) fails on empty arrays)
    ld = xp.broadcast_to(ld, batch + ld.shape[-2:]).reshape(count, *ld.shape[-2:])
    pivots = xp.broadcast_to(pivots, batch + pivots.shape[-1:]).reshape(count, pivots.shape[-1])
    x = xp.broadcast_to(b, batch + b.shape[-2:]).reshape(count, *b.shape[-2:]).copy()
    for i in range(x.shape[0]):
        _ldl_solve_one(ld[i], [int(p) for p in pivots[i]], x[i])
    return x.reshape(batch + b.shape[-2:])


def _ldl_solve_one(m, pivots, x):
    """Solve in place for one matrix: x (n, k) becomes A^-1 x."""
    n = m.shape[0]
    k = 0
    while k < n:  # L D y = P^T x, forward
        if pivots[k] > 0:
            _swap_rows(x, k, pivots[k] - 1)
            x[k + 1 :] -= m[k + 1 :, k, None] * x[k]
            x[k] /= m[k, k]
            k += 1
        else:
            _swap_rows(x, k + 1, -pivots[k] - 1)
            x[k + 2 :] -= m[k + 2 :, k, None] * x[k] + m[k + 2 :, k + 1, None] * x[k + 1]
            c = m[k + 1, k]  # the 2x2 block [[a, c], [c, d]] solved by Cramer's rule
            a, d = m[k, k] / c, m[k + 1, k + 1] / c
            first, second = x[k] / c, x[k + 1] / c
            denominator = a * d - 1
            x[k], x[k + 1] = (d * first - second) / denominator, (a * second - first) / denominator
            k += 2
    k = n - 1
    while k >= 0:  # L^T x = y, backward, undoing the interchanges
        if pivots[k] > 0:
            x[k] -= m[k + 1 :, k] @ x[k + 1 :]
            _swap_rows(x, k, pivots[k] - 1)
            k -= 1
        else:
            x[k] -= m[k + 1 :, k] @ x[k + 1 :]
            x[k - 1] -= m[k + 1 :, k - 1] @ x[k + 1 :]
            _swap_rows(x, k, -pivots[k] - 1)
            k -= 2


def _swap_rows(x, i, j):
    if i != j:
        x[i], x[j] = x[j].copy(), x[i].copy()
