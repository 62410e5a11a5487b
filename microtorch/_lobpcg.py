"""torch.lobpcg: a few of the largest (or smallest) eigenpairs of a symmetric A, or of the
generalized problem A x = w B x with B symmetric positive-definite, by Knyazev's locally
optimal block preconditioned conjugate gradient (LOBPCG).

Each step looks for the best n vectors in the span of three blocks: the current vectors X,
their (preconditioned) residuals W = iK (A X - B X diag(w)) and the previous step's
direction P. The span is given a B-orthonormal basis (from the eigen-decomposition of its
Gram matrix, dropping directions that have become dependent, which is what keeps the
method stable near convergence), and the Rayleigh-Ritz step there picks the new X: the
eigenvectors of the small projected matrix for its n largest (or smallest) eigenvalues.
It stops when the first k residuals are below tol relative to |A x| + |w| |B x|.

The iteration runs on the arrays, without a graph; the result then takes the gradient of
converged eigenpairs (without B, as in PyTorch): dw_i = x_i^T dA x_i, and the eigenvectors'
in ops.linalg.PartialEighVectors.
"""

from __future__ import annotations

import math
from typing import Any

from . import dtypes as _dtypes
from . import functional as F
from . import linalg
from . import random as _random
from ._tensor import Tensor
from .backend import xp_of
from .ops import linalg as ops


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None,
           n: int | None = None, iK: Tensor | None = None, niter: int | None = None,
           tol: float | None = None, largest: bool | None = None, method: str | None = None,
           tracker: Any = None, ortho_iparams: Any = None, ortho_fparams: Any = None,
           ortho_bparams: Any = None) -> tuple:  # fmt: skip
    """(eigenvalues (..., k), eigenvectors (..., m, k)): the k largest (smallest when
    largest=False) eigenpairs of symmetric A (..., m, m), or of A x = w B x, from n >= k
    starting vectors X (default: n = k Gaussian vectors from microtorch's generator), with the
    preconditioner iK, at most niter steps (default 1000, -1: until converged) and residual
    tolerance tol (default sqrt(eps)). method "basic" and "ortho" run the same iteration
    here; the ortho_* tuning parameters are accepted and not needed; tracker is not
    supported."""
    op = "lobpcg"
    linalg._matrices(A, op, square=True)
    if method not in (None, "basic", "ortho"):
        raise ValueError(f"{op}: method must be 'basic' or 'ortho' (or None), got {method!r}")
    if tracker is not None:
        raise NotImplementedError(f"{op}: tracker is not supported in microtorch; leave it out")
    m = A.shape[-1]
    if X is not None:
        F._check_tensor(X, op, "X")
        n = X.shape[-1]
        k = n if k is None else k
    else:
        k = 1 if k is None else k
        n = k if n is None else n
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={n})"
        )
    k = min(k, n)  # (PyTorch returns n pairs when n < k)
    if A.requires_grad:  # A's symmetric part, so that A's gradient is symmetric (PyTorch's)
        A = (A + F.swapaxes(A, -1, -2)) / 2
    if X is None:
        X = _random.randn(*A.shape[:-2], m, n, dtype=A.dtype, device=A.device)
    settings = dict(
        count=k,
        largest=True if largest is None else largest,
        niter=1000 if niter is None else niter,
        tol=math.sqrt(_dtypes.finfo(A.dtype).eps) if tol is None else tol,
    )
    a = A.detach().array
    batch = a.shape[:-2]
    xp = xp_of(a)
    arrays = [None if t is None else xp.broadcast_to(t.detach().array, batch + t.shape[-2:])
              for t in (B, iK, X)]  # fmt: skip
    values = xp.zeros(batch + (k,), dtype=a.dtype)
    vectors = xp.zeros(batch + (m, k), dtype=a.dtype)
    for index in _indices(batch):
        b, ik, x = (None if t is None else t[index] for t in arrays)
        values[index], vectors[index] = _lobpcg_one(a[index], b, ik, x.astype(a.dtype), **settings)
    if B is not None:  # no gradient with B, as in PyTorch
        return Tensor._make(values), Tensor._make(vectors)
    return (
        ops.EighValues.apply(A, values=values, vectors=vectors),
        ops.PartialEighVectors.apply(A, values=values, vectors=vectors),
    )


def _indices(batch: tuple) -> list:
    """Every index tuple into an array of shape ``batch`` (one () for no batch)."""
    out = [()]
    for size in batch:
        out = [i + (j,) for i in out for j in range(size)]
    return out


def _lobpcg_one(a, b, ik, x, count, largest, niter, tol):
    """(w (count,), X (m, count)) for one matrix, the iteration of the module docstring."""
    xp = xp_of(a)
    n = x.shape[-1]
    w, coefficients = _rayleigh_ritz(a, b, x, n, largest)
    x = x @ coefficients
    p = None
    step = 0
    while niter < 0 or step < niter:
        ax = a @ x
        bx = x if b is None else b @ x
        r = ax - bx * w
        scale = xp.linalg.norm(ax, axis=0) + xp.abs(w) * xp.linalg.norm(bx, axis=0)
        error = xp.linalg.norm(r, axis=0) / xp.where(scale > 0, scale, 1)
        if bool((error[:count] < tol).all()):
            break
        blocks = [x, r if ik is None else ik @ r] + ([] if p is None else [p])
        s = xp.concatenate(blocks, axis=1)
        w, coefficients = _rayleigh_ritz(a, b, s, n, largest)
        x_new = s @ coefficients
        p = x_new - s[:, :n] @ coefficients[:n]  # the part of the step outside span(X)
        x = x_new
        step += 1
    return w[:count], x[:, :count]


def _rayleigh_ritz(a, b, s, n, largest):
    """(w, C): the n largest (or smallest) Ritz values of a on span(s) and the coefficients
    C with s @ C their B-orthonormal Ritz vectors. The basis: s's columns scaled to B-norm
    1, then its Gram matrix's eigenvectors over the square roots of their eigenvalues,
    dropping the (nearly) dependent directions."""
    xp = xp_of(a)
    bs = s if b is None else b @ s
    norms = xp.sqrt(xp.abs((s * bs).sum(axis=0)))
    unit = xp.where(norms > 0, 1 / xp.where(norms > 0, norms, 1), 0)
    gram = (s.T @ bs) * unit[:, None] * unit[None, :]
    gram_w, gram_v = xp.linalg.eigh((gram + gram.T) / 2)
    kept = gram_w > gram_w[-1] * 1e3 * xp.finfo(a.dtype).eps
    basis = unit[:, None] * (gram_v[:, kept] / xp.sqrt(gram_w[kept]))  # s @ basis: orthonormal
    q = s @ basis
    h = q.T @ (a @ q)
    ritz_w, ritz_v = xp.linalg.eigh((h + h.T) / 2)  # ascending
    chosen = slice(None, -n - 1, -1) if largest else slice(0, n)
    return ritz_w[chosen], basis @ ritz_v[:, chosen]
