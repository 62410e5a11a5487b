"""PyTorch's top-level linear-algebra names (torch.det, torch.svd, torch.cholesky...), older
spellings of functions in microtorch.linalg; microtorch/__init__.py exports them, and the
Tensor methods of the same names call them."""

from __future__ import annotations

import collections
import math

from . import linalg
from ._tensor import Tensor
from ._warn import warn_user
from .amp.autocast_mode import autocast_inputs
from .factories import zeros_like
from .functional import swapaxes, where

SvdResult = collections.namedtuple("SvdResult", ["U", "S", "V"])


def det(input: Tensor) -> Tensor:
    """linalg.det(input) (PyTorch's top-level name takes ``input``, linalg's ``A``)."""
    return linalg.det(input)


def slogdet(input: Tensor) -> linalg.SlogdetResult:
    """linalg.slogdet(input): (sign, log|det|) of each square matrix."""
    return linalg.slogdet(input)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """linalg.matrix_power(input, n): input multiplied by itself n times."""
    return linalg.matrix_power(input, n)


def logdet(input: Tensor) -> Tensor:
    """log(det(input)): nan where the determinant is negative (with a zero gradient, as in
    PyTorch), -inf where it is 0."""
    sign, logabsdet = linalg.slogdet(input)
    return where(sign < 0, math.nan, logabsdet)


def inverse(input: Tensor) -> Tensor:
    """linalg.inv(input)."""
    return linalg.inv(input)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """linalg.pinv(input, rtol=rcond)."""
    (input,) = autocast_inputs("pinverse", input)  # (float32 under CPU autocast; linalg.pinv not)
    return linalg.pinv(input, rtol=rcond)


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """L with input = L @ L.mT (U with input = U.mT @ U when upper); deprecated in PyTorch
    for linalg.cholesky, as the warning says."""
    warn_user(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release; use linalg.cholesky(A) (or linalg.cholesky(A, upper=True))"
    )
    return linalg.cholesky(input, upper=upper)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> SvdResult:
    """(U, S, V) with input = U @ diag(S) @ V.mT (V, not linalg.svd's Vh), reduced unless
    some=False; compute_uv=False gives zero-filled U (m, m) and V (n, n), as in PyTorch."""
    if not compute_uv:  # (some does not matter then)
        U, S, Vh = linalg.svd(input, full_matrices=True)
        return SvdResult(zeros_like(U.detach()), S, zeros_like(Vh.detach()))
    U, S, Vh = linalg.svd(input, full_matrices=not some)
    return SvdResult(U, S, swapaxes(Vh, -1, -2))


def qr(input: Tensor, some: bool = True) -> linalg.QRResult:
    """(Q, R): linalg.qr(input, "reduced" if some else "complete"); deprecated in PyTorch,
    as the warning says."""
    warn_user(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release; use linalg.qr(A, 'reduced' if some else 'complete')"
    )
    return linalg.qr(input, "reduced" if some else "complete")


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The product of 2-D matrices, left to right: linalg.multi_dot, which PyTorch deprecates
    it for (one matrix is returned as it is)."""
    warn_user(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release; "
        "use torch.linalg.multi_dot instead, which accepts a list of two or more tensors"
    )
    matrices = autocast_inputs("chain_matmul", *matrices)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        if not isinstance(m, Tensor):
            raise TypeError(
                f"chain_matmul(): expected Tensor as element {i}, but got {type(m).__name__}; "
                "pass the matrices as separate arguments"
            )
        if m.ndim != 2:
            raise RuntimeError(
                f"chain_matmul(): Tensor dimension is {m.ndim}, expected 2 instead (matrix "
                f"{i} has shape {tuple(m.shape)})"
            )
    return matrices[0] if len(matrices) == 1 else linalg.multi_dot(matrices)
