"""PyTorch's top-level linear-algebra names (torch.det, torch.svd, torch.cholesky...), older
spellings of functions in microtorch.linalg; microtorch/__init__.py exports them, and the
Tensor methods of the same names call them."""

from __future__ import annotations

import math
from typing import Any

from . import linalg, return_types
from . import random as _random
from ._out import write_out
from ._tensor import Tensor
from ._warn import warn_user
from .amp.autocast_mode import autocast_inputs
from .factories import eye, zeros_like
from .functional import _check_broadcast, _check_tensor, matmul, mean, swapaxes, where
from .functional import diagonal as F_diagonal
from .ops import linalg as ops


def det(input: Tensor) -> Tensor:
    """linalg.det(input) (PyTorch's top-level name takes ``input``, linalg's ``A``)."""
    return linalg.det(input)


def slogdet(input: Tensor, *, out: Any = None) -> return_types.slogdet:
    """linalg.slogdet(input): (sign, log|det|) of each square matrix."""
    return write_out(return_types.slogdet(*linalg.slogdet(input)), out, "slogdet")


def matrix_power(input: Tensor, n: int, *, out: Any = None) -> Tensor:
    """linalg.matrix_power(input, n): input multiplied by itself n times."""
    return linalg.matrix_power(input, n, out=out)


def matrix_exp(input: Tensor) -> Tensor:
    """linalg.matrix_exp(input): the exponential of each square matrix."""
    return linalg.matrix_exp(input)


def logdet(input: Tensor) -> Tensor:
    """log(det(input)): nan where the determinant is negative (with a zero gradient, as in
    PyTorch), -inf where it is 0."""
    sign, logabsdet = linalg.slogdet(input)
    return where(sign < 0, math.nan, logabsdet)


def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False, *, out: Any = None) -> Tensor:
    """Deprecated: linalg.vector_norm(input, 2, dim, keepdim), over at most two dims."""
    warn_user(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will "
        "be removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
        "keepdim)` instead"
    )
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(
            f"frobenius_norm: Expected at most 2 dimensions, but got {len(dims)} dimensions "
            "instead."
        )
    norm = linalg.vector_norm(input, 2, dims, keepdim)
    return write_out(norm, out, "frobenius_norm", exact_dtype=True)


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False, *,
                 out: Any = None) -> Tensor:  # fmt: skip
    """Deprecated: linalg.matrix_norm(input, "nuc", dim, keepdim), the sum of the singular
    values of the matrices in dims ``dim`` (the last two by default). Like PyTorch's,
    ``nuclear_norm(input, True)`` reads True as keepdim."""
    warn_user(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
        "keepdim)` instead"
    )
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    norm = linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    return write_out(norm, out, "nuclear_norm", exact_dtype=True)


def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of each slice of v along ``dim`` (over every other dim), shaped like
    v with the other dims of size 1: weight_norm's norm. dim=-1: the norm of all of v."""
    if not isinstance(pow, int) or isinstance(pow, bool):
        raise TypeError(f"norm_except_dim(): argument 'pow' must be int, not {type(pow).__name__}")
    if dim == -1:
        return linalg.vector_norm(v, pow)
    from .functional import wrap_dim

    d = wrap_dim(dim, v.ndim, "norm_except_dim")
    others = tuple(i for i in range(v.ndim) if i != d)
    return linalg.vector_norm(v, pow, others, keepdim=True)


def inverse(input: Tensor, *, out: Any = None) -> Tensor:
    """linalg.inv(input)."""
    return write_out(linalg.inv(input), out, "inverse", exact_dtype=True)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """linalg.pinv(input, rtol=rcond)."""
    (input,) = autocast_inputs("pinverse", input)  # (float32 under CPU autocast; linalg.pinv not)
    return linalg.pinv(input, rtol=rcond)


def cholesky(input: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """L with input = L @ L.mT (U with input = U.mT @ U when upper); deprecated in PyTorch
    for linalg.cholesky, as the warning says."""
    warn_user(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release; use linalg.cholesky(A) (or linalg.cholesky(A, upper=True))"
    )
    return write_out(linalg.cholesky(input, upper=upper), out, "cholesky")


def cholesky_solve(
    input: Tensor, input2: Tensor, upper: bool = False, *, out: Any = None
) -> Tensor:
    """X with A @ X = input for A = L @ L.mT given its Cholesky factor input2 = L (A =
    U.mT @ U, input2 = U, when upper): two triangular solves, reading only input2's
    triangle; batch dims broadcast."""
    op = "cholesky_solve"
    input, input2 = autocast_inputs("cholesky_solve", input, input2)
    linalg._matrices(input, op, integers=NotImplementedError)
    linalg._matrices(input2, op, square=True, name="input2", integers=NotImplementedError)
    if input.dtype is not input2.dtype:
        raise RuntimeError(
            f"{op}: Expected b and A to have the same dtype, but found b of type "
            f"{input.dtype} and A of type {input2.dtype} instead"
        )
    if input.shape[-2] != input2.shape[-1]:
        raise RuntimeError(
            f"{op}: Incompatible matrix sizes for cholesky_solve: each A matrix is "
            f"{input2.shape[-1]} by {input2.shape[-1]} but each b matrix is "
            f"{input.shape[-2]} by {input.shape[-1]}"
        )
    _check_broadcast(tuple(input.shape[:-2]), tuple(input2.shape[:-2]), op)
    return write_out(ops.CholeskySolve.apply(input, input2, upper=upper), out, "cholesky_solve")
    # (inf, nan for a zero on input2's diagonal, as in PyTorch)


def cholesky_inverse(input: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """The inverse of A = L @ L.mT (U.mT @ U when upper) from its Cholesky factor input:
    cholesky_solve of the identity."""
    (input,) = autocast_inputs("cholesky_inverse", input)
    linalg._matrices(input, "cholesky_inverse", square=True, integers=NotImplementedError)
    # a zero on the factor's diagonal raises, as in PyTorch (LAPACK's potri reports it)
    zeros = F_diagonal(input.detach(), 0, -2, -1).array == 0
    info = zeros.argmax(-1).astype("int32") + 1 if zeros.shape[-1] else zeros.sum(-1)
    linalg._raise_on_info(info * zeros.any(-1), "cholesky_inverse", linalg._SINGULAR)
    identity = eye(input.shape[-1], dtype=input.dtype, device=input.device)
    return write_out(cholesky_solve(identity, input, upper), out, "cholesky_inverse")


def triangular_solve(
    input: Tensor,
    A: Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
    *,
    out: Any = None,
) -> return_types.triangular_solve:
    """(solution, cloned_coefficient): X with A @ X = input (A.mT @ X = input with
    transpose) for triangular A, and a copy of A; deprecated in PyTorch for
    linalg.solve_triangular, as the warning says."""
    warn_user(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular and "
        "will be removed in a future PyTorch release; its arguments are reversed there: "
        "X = torch.linalg.solve_triangular(A, B, upper=upper)"
    )
    op = "triangular_solve"
    input, A = autocast_inputs("triangular_solve", input, A)
    linalg._matrices(input, op, integers=NotImplementedError)
    linalg._matrices(A, op, square=True, name="A", integers=NotImplementedError)
    if input.dtype is not A.dtype:  # (linalg.solve_triangular casts; this one refuses)
        raise RuntimeError(
            f"{op}: Expected b and A to have the same dtype, but found b of type {input.dtype} "
            f"and A of type {A.dtype} instead; cast one, e.g. b.to(A.dtype)"
        )
    T = swapaxes(A, -1, -2) if transpose else A
    upper = upper != transpose  # (the transpose of an upper triangle is a lower one)
    X = linalg.solve_triangular(T, input, upper=upper, unitriangular=unitriangular)
    # the copy of A has the batch dims broadcast against input's, as PyTorch's
    cloned = A.expand(*X.shape[:-2], *A.shape[-2:]).clone()
    return write_out(return_types.triangular_solve(X, cloned), out, "triangular_solve")


def svd(
    input: Tensor, some: bool = True, compute_uv: bool = True, *, out: Any = None
) -> return_types.svd:
    """(U, S, V) with input = U @ diag(S) @ V.mT (V, not linalg.svd's Vh), reduced unless
    some=False; compute_uv=False gives zero-filled U (m, m) and V (n, n), as in PyTorch."""
    if not compute_uv:  # (some does not matter then)
        U, S, Vh = linalg.svd(input, full_matrices=True)
        return write_out(
            return_types.svd(zeros_like(U.detach()), S, zeros_like(Vh.detach())), out, "svd"
        )
    U, S, Vh = linalg.svd(input, full_matrices=not some)
    return write_out(return_types.svd(U, S, swapaxes(Vh, -1, -2)), out, "svd")


def qr(input: Tensor, some: bool = True, *, out: Any = None) -> return_types.qr:
    """(Q, R): linalg.qr(input, "reduced" if some else "complete"); deprecated in PyTorch,
    as the warning says."""
    warn_user(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release; use linalg.qr(A, 'reduced' if some else 'complete')"
    )
    return write_out(
        return_types.qr(*linalg.qr(input, "reduced" if some else "complete")), out, "qr"
    )


def chain_matmul(*matrices: Tensor, out: Any = None) -> Tensor:
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
    return write_out(
        matrices[0] if len(matrices) == 1 else linalg.multi_dot(matrices),
        out,
        "chain_matmul",
        exact_dtype=True,
    )


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, *, out: Any = None) -> Any:
    """(LU, pivots) of linalg.lu_factor, with info when get_infos (singular matrices do not
    raise); deprecated in PyTorch, as the warning says."""
    warn_user(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release; use LU, pivots = "
        "torch.linalg.lu_factor(A) (or LU, pivots, info = torch.linalg.lu_factor_ex(A))"
    )
    (A,) = autocast_inputs("lu", A)
    LU, pivots, info = linalg.lu_factor_ex(A, pivot=pivot)
    return write_out(
        return_types._lu_with_info(LU, pivots, info) if get_infos else (LU, pivots), out, "lu"
    )


def lu_unpack(
    LU_data: Tensor,
    LU_pivots: Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    out: Any = None,
) -> return_types.lu_unpack:
    """(P, L, U) with A = P @ L @ U from lu_factor's (LU, pivots)."""
    P, L, U = linalg.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)
    return write_out(return_types.lu_unpack(P, L, U), out, "lu_unpack")


def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out: Any = None) -> Tensor:
    """linalg.lu_solve(LU_data, LU_pivots, input) (PyTorch's older argument order; its docs
    call input b); deprecated in PyTorch, as the warning says."""
    b = input
    warn_user(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in "
        "a future PyTorch release; its arguments are reversed there: "
        "X = torch.linalg.lu_solve(LU, pivots, B)"
    )
    b, LU_data = autocast_inputs("lu_solve", b, LU_data)
    return write_out(linalg.lu_solve(LU_data, LU_pivots, b), out, "lu_solve", exact_dtype=True)


def geqrf(input: Tensor, *, out: Any = None) -> return_types.geqrf:
    """(a, tau): the QR of input in LAPACK's form: R on and above a's diagonal, the
    Householder vectors below it (their leading 1s not stored) with their scales tau; no
    gradient (PyTorch has none)."""
    (input,) = autocast_inputs("geqrf", input)
    linalg._matrices(input, "geqrf", integers=NotImplementedError)
    a, tau = ops.householder_qr_arrays(input.detach().array)
    return write_out(return_types.geqrf(Tensor._make(a), Tensor._make(tau)), out, "geqrf")


def orgqr(input: Tensor, input2: Tensor, *, out: Any = None) -> Tensor:
    """linalg.householder_product(input, tau=input2): the Q of geqrf's output (PyTorch's
    docs call input2 tau; its parser takes input2=)."""
    return write_out(linalg.householder_product(input, input2), out, "orgqr")


def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True,
          transpose: bool = False, *, out: Any = None) -> Tensor:  # fmt: skip
    """Q @ other (Q.mT @ other with transpose; other @ Q, other @ Q.mT when not left) for
    the full square Q = H_1 ... H_k of geqrf's (input, tau), without forming Q. PyTorch's
    docs call input2 and input3 tau and other; its parser takes input2= and input3=."""
    tau, other = input2, input3
    op = "ormqr"
    input, tau, other = autocast_inputs("ormqr", input, tau, other)
    linalg._matrices(input, op, integers=NotImplementedError)
    linalg._matrices(other, op, name="other", integers=NotImplementedError)
    _check_tensor(tau, op, "tau")
    for name, t in (("tau", tau), ("other", other)):
        if t.dtype is not input.dtype:
            raise RuntimeError(f"torch.ormqr: Expected input and {name} to have the same dtype, "
                               f"but got {input.dtype} and {t.dtype}")  # fmt: skip
    if other.ndim != input.ndim or tau.ndim != input.ndim - 1:
        raise RuntimeError(
            "torch.ormqr: Expected other to have the same number of dimensions as input, and "
            f"tau one less, but got input.ndim {input.ndim}, other.ndim {other.ndim} and "
            f"tau.ndim {tau.ndim}"
        )
    rows = other.shape[-2] if left else other.shape[-1]
    if input.shape[-2] != rows:
        raise RuntimeError(
            f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to input.shape[-2], "
            f"got {tuple(other.shape)} and {tuple(input.shape)}"
        )
    k = min(rows, input.shape[-1])
    if tau.shape[-1] != k:
        raise RuntimeError(
            f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{-2 if left else -1}], "
            f"input.shape[-1]) = {k}, got {tau.shape[-1]}"
        )
    for name, dims in (("other", other.shape[:-2]), ("tau", tau.shape[:-1])):
        if tuple(dims) != tuple(input.shape[:-2]):  # (no broadcasting, as in PyTorch)
            raise RuntimeError(
                f"torch.ormqr: Expected batch dimensions of {name} to be equal to "
                f"input.shape[:-2] = {tuple(input.shape[:-2])}, but got {tuple(dims)}"
            )
    return write_out(
        linalg.apply_householder(input, tau, other, left, transpose), out, "ormqr", exact_dtype=True
    )


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int = 2, M: Tensor | None = None
                ) -> tuple:  # fmt: skip
    """(U, S, V), A - M ~ U @ diag(S) @ V.mT of rank q, by random projection (Halko,
    Martinsson and Tropp): Q, an orthonormal basis of (A - M) R for a Gaussian R (n, q) drawn
    from microtorch's generator, refined by niter power iterations; then the SVD of the
    small Q.mT (A - M). Differentiable, as its steps are."""
    op = "svd_lowrank"
    linalg._matrices(A, op)
    q = 6 if q is None else q
    X = A if M is None else A - M
    if X.shape[-2] < X.shape[-1]:  # work on the tall transpose: U and V swap
        U, S, V = _svd_lowrank_tall(swapaxes(X, -1, -2), q, niter)
        return V, S, U
    return _svd_lowrank_tall(X, q, niter)


def _svd_lowrank_tall(X: Tensor, q: int, niter: int) -> tuple:
    """svd_lowrank for X (..., m, n) with m >= n."""
    R = _random.randn(X.shape[-1], q, dtype=X.dtype, device=X.device)
    Q = linalg.qr(matmul(X, R)).Q
    for _ in range(niter):  # power iterations: Q spans X (X^T X)^i R
        Q = linalg.qr(matmul(swapaxes(X, -1, -2), Q)).Q
        Q = linalg.qr(matmul(X, Q)).Q
    U, S, Vh = linalg.svd(matmul(swapaxes(Q, -1, -2), X), full_matrices=False)
    return matmul(Q, U), S, swapaxes(Vh, -1, -2)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> tuple:
    """(U, S, V): svd_lowrank of A less its column means (when center), rank q (default
    min(6, m, n)): V's columns are the principal directions, S^2 / (m - 1) their variances."""
    op = "pca_lowrank"
    linalg._matrices(A, op)
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else q
    if not (isinstance(q, int) and 0 <= q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    M = mean(A, -2, keepdim=True) if center else None
    return svd_lowrank(A, q, niter, M)


# PyTorch 2.x keeps these names only to say where their replacements are
def _removed(name: str, advice: str) -> None:
    """The RuntimeError PyTorch 2.x raises for a function removed in 1.9."""
    raise RuntimeError(f"{name} was deprecated in PyTorch 1.9 and is now removed; {advice}")


def matrix_rank(*args: Any, **kwargs: Any) -> None:
    """Removed in PyTorch 1.9: raises RuntimeError pointing to linalg.matrix_rank."""
    _removed("torch.matrix_rank", "use torch.linalg.matrix_rank (its 'symmetric' argument is "
             "called 'hermitian' there)")  # fmt: skip


def lstsq(*args: Any, **kwargs: Any) -> None:
    """Removed in PyTorch 1.9: raises RuntimeError pointing to linalg.lstsq."""
    _removed("torch.lstsq", "use torch.linalg.lstsq(A, B).solution (A first: the arguments are "
             "reversed, and no QR is returned; use torch.linalg.qr for that)")  # fmt: skip


def solve(*args: Any, **kwargs: Any) -> None:
    """Removed in PyTorch 1.9: raises RuntimeError pointing to linalg.solve."""
    _removed("torch.solve", "use X = torch.linalg.solve(A, B) for X = torch.solve(B, A).solution "
             "(the arguments are reversed, and no LU is returned; use torch.linalg.lu_factor "
             "for that)")  # fmt: skip


def eig(*args: Any, **kwargs: Any) -> None:
    """Removed in PyTorch 1.9: raises RuntimeError (linalg.eig needs complex dtypes)."""
    _removed("torch.eig", "its replacements torch.linalg.eig and torch.linalg.eigvals return "
             "complex tensors, which microtorch does not have (for a symmetric matrix use "
             "torch.linalg.eigh)")  # fmt: skip


def symeig(*args: Any, **kwargs: Any) -> None:
    """Removed in PyTorch 1.9: raises RuntimeError pointing to linalg.eigh."""
    _removed("torch.symeig", "use torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L') for the "
             "eigenvalues, or torch.linalg.eigh(A, UPLO=...) for both (the default triangle is "
             "now the lower one)")  # fmt: skip
