"""``torch.linalg``: norms, determinants, inverses, solves and decompositions of matrices.

Every function takes batches of matrices in the last two dims (leading dims are a batch,
broadcast where PyTorch broadcasts them) and computes on NumPy's or CuPy's ``linalg``.
Their gradients are the classic formulas, written next to the forwards in
``microtorch/ops/linalg.py``; the rest (norms, matrix_power, multi_dot, lstsq, cond,
lu_solve, householder_product...) are compositions of differentiable ops. NumPy has no LU
or LDL^T with LAPACK's pivots, so lu_factor (getrf) and ldl_factor (sytrf, in
``microtorch/ops/ldl.py``) are written out here, with the same pivots and info as
PyTorch's.

Differences from PyTorch:
- a singular or non-positive-definite matrix raises ``LinAlgError`` on the CPU, with
  PyTorch's message; on a GPU CuPy does not check unless it waits for the GPU, so the
  result holds inf or nan there (PyTorch waits and raises). The functions that do not
  raise in PyTorch (solve_triangular, cholesky_solve, the _ex forms, the backward of
  slogdet, qr, lu_factor at singular inputs) give its inf and nan, from the LU and
  substitutions written out in ``microtorch/ops/linalg.py`` where NumPy refuses;
- det's gradient at a singular matrix is the adjugate, the true derivative (PyTorch 2.x
  gives zeros for some singular matrices);
- cholesky_ex's gradient is 0 for the matrices whose info is nonzero (PyTorch's applies
  the formula to the partial factor);
- qr(mode="r") has a gradient (PyTorch's backward raises);
- lstsq computes the solution from the SVD whatever ``driver`` says (its extra outputs are
  the driver's): the same for full-rank A, but where rcond cuts singular values off,
  "gelsy" (a QR with column pivoting in PyTorch) may count another rank and solution;
- cond's gradient for p in ("fro", inf, -inf, 1, -1) is computed (PyTorch 2.13's backward
  raises an in-place error there);
- ldl_factor and ldl_solve factorise each matrix of a batch in a Python loop (the pivot
  choices differ between matrices), and, as PyTorch's, have no gradient: their results do
  not require grad (PyTorch's raise when backward reaches them);
- lu_factor(pivot=False) runs on CUDA tensors (PyTorch's needs cuSOLVER there too) and is
  refused on the CPU, as in PyTorch.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy

from . import dtypes as _dtypes
from . import functional as F
from . import return_types
from ._out import write_out as _write_out
from ._tensor import Tensor
from .amp.autocast_mode import autocast_inputs
from .factories import eye, ones_like
from .functional import _matmul, _vector_norm, matmul
from .ops import ldl as _ldl
from .ops import linalg as ops

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]


class LinAlgError(RuntimeError):
    """A matrix that has no inverse, no Cholesky factor...: PyTorch's
    torch.linalg.LinAlgError, a RuntimeError."""


# ---------------------------------------------------------------- argument checks
def _matrices(A: Any, op: str, square: bool = False, name: str = "A", float16: bool = False,
              integers: type = RuntimeError, halves: type = NotImplementedError
              ) -> Tensor:  # fmt: skip
    """A itself if it is a float32/float64 (or, if allowed, float16) tensor of (batches of)
    matrices, square if asked; otherwise PyTorch's error (``integers``, ``halves``: the ones
    its op raises for integer and bool tensors, and for float16)."""
    F._check_tensor(A, op, name)
    if A.dtype is _dtypes.float16 and not float16:
        raise halves(f"{op}: float16 is not supported, as in PyTorch; use .float()")
    if not A.dtype.is_floating_point:
        raise integers(
            f"{op}: Expected a floating point tensor as input. Got {A.dtype}; use .float() first"
        )
    if A.ndim < 2:
        raise RuntimeError(
            f"{op}: The input tensor {name} must have at least 2 dimensions, got shape "
            f"{tuple(A.shape)}"
        )
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: {name} must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    return A


# PyTorch's messages for LAPACK's info (formatted with it by _raise_on_info)
_SINGULAR = ("The diagonal element {} is zero, the inversion could not be completed because "
             "the input matrix is singular.")  # fmt: skip
_SOLVER_SINGULAR = "The solver failed because the input matrix is singular."
_NOT_POSITIVE_DEFINITE = (
    "The factorization could not be completed because the input is not positive-definite "
    "(the leading minor of order {} is not positive-definite)."
)


def _check_factorizable(op: str, A: Tensor, result: Tensor | None, factor: str,
                        message: str) -> None:  # fmt: skip
    """PyTorch's LinAlgError for the first matrix of A whose LU (factor "lu") or Cholesky
    factor ("cholesky") LAPACK reports as failed (info > 0), looked for when ``result`` is
    None (NumPy refused) or, on the CPU, not all finite (a nan input too; on a GPU, CuPy does
    not check without waiting for it, and the result holds inf or nan there)."""
    if result is not None and (
        A.device.type == "cuda" or bool(F.backend.xp_of(result.array).isfinite(result.array).all())
    ):
        return
    a = A.detach().array
    info = ops.lu_factor_arrays(a)[2] if factor == "lu" else ops.cholesky_arrays(a)[1]
    _raise_on_info(info, op, message)
    if result is None:  # (NumPy's LAPACK failed where the factorisation here did not)
        raise LinAlgError(f"{op}: {message.format('?')}")


# ---------------------------------------------------------------- norms
def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None, out: Any = None) -> Tensor:  # fmt: skip
    """The ord-norm of x's elements over ``dim`` (all of them by default): sum(|x|^ord)^(1/ord),
    max |x| for inf, min |x| for -inf, the count of nonzeros for 0."""
    return _write_out(
        _vector_norm(x, ord, dim, keepdim, dtype, "linalg.vector_norm"),
        out,
        "vector_norm",
        exact_dtype=True,
    )


def matrix_norm(input: Tensor, ord: Any = "fro", dim: Sequence = (-2, -1), keepdim: bool = False,
                *, dtype: Any = None, out: Any = None) -> Tensor:  # fmt: skip
    """The ord-norm of the matrices in dims ``dim``: "fro", "nuc" (the sum of singular
    values), inf / -inf (largest / smallest absolute row sum), 1 / -1 (the same of columns),
    2 / -2 (largest / smallest singular value)."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    op = "linalg.matrix_norm"
    _matrices(A, op, float16=ord not in ("nuc", 2, -2), halves=RuntimeError)  # (no float16 SVD)
    if dtype is not None:
        A = F._cast_for_norm(A, dtype, op)
    if not isinstance(dim, (tuple, list)):  # (an int or None is the wrong type, as in PyTorch)
        raise TypeError(f"{op}: dim must be a 2-tuple of ints, got {dim!r}")
    if len(dim) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple of ints, got {dim!r}")
    rows, cols = (F.wrap_dim(d, A.ndim, op) for d in dim)
    if rows == cols:
        raise RuntimeError(f"{op}: dims must be different, got {tuple(dim)}")
    if ord == "fro":
        return _write_out(
            _vector_norm(A, 2, (rows, cols), keepdim, None, op), out, op, exact_dtype=True
        )
    if ord in ("nuc", 2, -2):
        s = svdvals(F.movedim(A, (rows, cols), (-2, -1)))
        norm = F.sum(s, -1) if ord == "nuc" else _largest(s, -1) if ord == 2 else F.amin(s, -1)
        if keepdim:
            norm = F.unsqueeze(
                F.unsqueeze(norm, builtins.min(rows, cols)), builtins.max(rows, cols)
            )
        return _write_out(norm, out, op, exact_dtype=True)
    if ord in (1, -1, float("inf"), -float("inf")):
        summed, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = F.sum(F.abs(A), summed, keepdim=True)
        norm = _largest(sums, across, True) if ord > 0 else F.amin(sums, across, True)
        return _write_out(
            norm if keepdim else F.squeeze(norm, (rows, cols)), out, op, exact_dtype=True
        )
    raise RuntimeError(
        f"{op}: Order {ord!r} not supported; use 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2"
    )


def _largest(norms: Tensor, dim: int, keepdim: bool = False) -> Tensor:
    """amax of (non-negative) norms over dim, 0 where dim is empty, as PyTorch's matrix norms
    of empty matrices (the smallest of none still raises)."""
    return F.amax(norms, dim, keepdim) if norms.shape[dim] else F.sum(norms, dim, keepdim)


def norm(input: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None, out: Any = None) -> Tensor:  # fmt: skip
    """A vector norm (dim an int, or no dim and no ord: all elements as one vector) or a matrix
    norm (dim a 2-tuple, a string ord, or an ord with a 2-D input and no dim), as PyTorch
    picks. The first argument is named input, as PyTorch's (its docs write A)."""
    op = "linalg.norm"
    F._check_tensor(input, op)
    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        matrix = False
    elif dim is not None:
        matrix = True
    elif ord is None:
        matrix = False
    elif input.ndim in (1, 2):
        matrix = input.ndim == 2
    else:
        raise RuntimeError(
            f"{op}: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{input.ndim}D"
        )
    if matrix:
        dims = (-2, -1) if dim is None else dim
        return _write_out(
            matrix_norm(input, "fro" if ord is None else ord, dims, keepdim, dtype=dtype),
            out,
            "norm",
            exact_dtype=True,
        )
    if isinstance(ord, str):
        raise RuntimeError(f"{op}: ord {ord!r} is a matrix norm; pass dim as a 2-tuple")
    return _write_out(
        _vector_norm(input, 2 if ord is None else ord, dim, keepdim, dtype, op),
        out,
        "norm",
        exact_dtype=True,
    )


def cond(input: Tensor, p: Any = None, *, out: Any = None) -> Tensor:
    """The condition number of each matrix in the p-norm: largest / smallest singular value
    for p None or 2 (the reverse for -2, any m x n), else matrix_norm(A, p) *
    matrix_norm(inv(A), p) for square A ("fro", "nuc", inf, -inf, 1, -1), inf where A is
    singular."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    op = "linalg.cond"
    (A,) = autocast_inputs("cond", A)
    _matrices(A, op, float16=True)  # (float16: each branch's own error, as in PyTorch)
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svdvals(_matrices(A, op))
        if s.shape[-1] == 0:  # empty matrices: 0, as in PyTorch
            return _write_out(F.sum(s, -1), out, "cond")
        largest, smallest = s[..., 0], s[..., -1]
        return _write_out(smallest / largest if p == -2 else largest / smallest, out, "cond")
    if p not in ("fro", "nuc", 1, -1, float("inf"), -float("inf")):
        raise RuntimeError(
            f"{op} got an invalid norm type: {p}; use None, 2, -2, 'fro', 'nuc', inf, -inf, 1 or -1"
        )
    _matrices(A, f"{op}(ord={p})", square=True, halves=RuntimeError)
    if A.shape[-1] == 0:  # empty matrices: 0, as in PyTorch (and as for p None above)
        return _write_out(F.sum(A.detach(), (-2, -1)), out, "cond")
    info = _singular_info(A, op, False)
    invertible = _identity_where_singular(info, A)
    product = matrix_norm(invertible, p) * matrix_norm(inv(invertible), p)
    return _write_out(F.where(info > 0, float("inf"), product), out, "cond")


# ---------------------------------------------------------------- determinants and inverses
def det(A: Tensor, *, out: Any = None) -> Tensor:
    """The determinant of each square matrix."""
    return _write_out(
        ops.Det.apply(_matrices(A, "linalg.det", square=True)), out, "det", exact_dtype=True
    )


def slogdet(A: Tensor, *, out: Any = None) -> return_types.linalg_slogdet:
    """(sign, log|det|) of each square matrix: the determinant without its overflow."""
    _matrices(A, "linalg.slogdet", square=True, halves=RuntimeError)
    xp = F.backend.xp_of(A.array)
    sign, logabsdet = (xp.asarray(t) for t in xp.linalg.slogdet(A.array))
    return _write_out(
        return_types.linalg_slogdet(
            ops.DetSign.apply(A, value=sign), ops.LogAbsDet.apply(A, value=logabsdet)
        ),
        out,
        "slogdet",
    )


def inv(A: Tensor, *, out: Any = None) -> Tensor:
    """The inverse of each square matrix (LinAlgError if one is singular)."""
    (A,) = autocast_inputs("inv", A)
    result = ops.Inv.apply(_matrices(A, "linalg.inv", square=True, halves=RuntimeError))
    _check_factorizable("linalg.inv", A, result, "lu", _SINGULAR)
    return _write_out(result, out, "inv", exact_dtype=True)


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> return_types.linalg_inv_ex:
    """(inverse, info): inv(A) without raising for singular matrices; info (int32, one per
    matrix) is 0 where A is invertible, else the 1-based index of the first zero on U's
    diagonal in A = P L U, whose inverse then holds the inf and nan of its divisions by zero
    (PyTorch's). check_errors raises LinAlgError instead."""
    op = "linalg.inv_ex"
    (A,) = autocast_inputs("inv_ex", A)
    _matrices(A, op, square=True, halves=RuntimeError)
    info = _singular_info(A, op, check_errors)
    return _write_out(return_types.linalg_inv_ex(ops.Inv.apply(A), info), out, "inv_ex")


def _singular_info(A: Tensor, op: str, check_errors: bool, message: str = _SINGULAR) -> Tensor:
    """LAPACK's info for square A: 0 for each invertible matrix, else 1 + the index of the
    first zero U[j, j] of its LU; with check_errors, LinAlgError (``message``) naming the
    first."""
    info = ops.lu_factor_arrays(A.detach().array)[2]
    if check_errors:
        _raise_on_info(info, op, message)
    return Tensor._make(info)


def _raise_on_info(info: Any, op: str, message: str) -> None:
    """LinAlgError for the first matrix whose info is positive, ``message`` formatted with it
    (and "(Batch element i)" for a batch), as PyTorch's check_errors."""
    failed = F.backend.xp_of(info).flatnonzero(info.reshape(-1) > 0)
    if failed.size:
        i = int(failed[0])
        where = f"(Batch element {i}): " if info.ndim else ""
        raise LinAlgError(f"{op}: {where}{message.format(int(info.reshape(-1)[i]))}")


def _identity_where_singular(info: Tensor, A: Tensor) -> Tensor:
    """A with its singular matrices (info > 0) replaced by the identity: invertible, and the
    replaced ones take no gradient."""
    failed = F.unsqueeze(F.unsqueeze(info > 0, -1), -1)
    return F.where(failed, eye(A.shape[-1], dtype=A.dtype, device=A.device), A)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Any = None) -> Tensor:
    """X with A @ X = B (or X @ A = B when left=False) for square A. B is a batch of vectors
    when it is 1-D or has A's shape without its last dim, otherwise of matrices; batch dims
    broadcast."""
    A, B = autocast_inputs("solve", A, B)
    op = "linalg.solve"
    result = _solve_vectors_or_matrices(A, B, left, op)
    _check_factorizable(op, A, result, "lu", _SOLVER_SINGULAR)
    return _write_out(result, out, "solve", exact_dtype=True)


def _solve_vectors_or_matrices(A: Tensor, B: Tensor, left: bool, op: str) -> Tensor:
    """solve without its check for singular A (inf and nan there)."""
    _matrices(A, op, square=True)
    F._check_tensor(B, op, "B")
    vector = B.ndim == 1 or tuple(B.shape) == tuple(A.shape[:-1])
    if vector:  # a column (..., n, 1); with left=False, X A = B then needs n == 1
        return F.squeeze(_solve_matrices(A, F.unsqueeze(B, -1), left, op), -1)
    if B.ndim < 2:
        raise RuntimeError(f"{op}: B must be a vector or a matrix, got shape {tuple(B.shape)}")
    return _solve_matrices(A, B, left, op)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None
             ) -> return_types.linalg_solve_ex:  # fmt: skip
    """(result, info): solve(A, B, left=left) without raising for singular A; info as in
    inv_ex (the result holds inf and nan for those matrices), LinAlgError with
    check_errors."""
    op = "linalg.solve_ex"
    A, B = autocast_inputs("solve", A, B)
    _matrices(A, op, square=True)
    info = _singular_info(A, op, check_errors, _SOLVER_SINGULAR)
    return _write_out(
        return_types.linalg_solve_ex(_solve_vectors_or_matrices(A, B, left, op), info),
        out,
        "solve_ex",
    )


def solve_triangular(input: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False, out: Any = None) -> Tensor:  # fmt: skip
    """X with A @ X = B (X @ A = B when left=False) for B a batch of matrices, reading only
    A's upper (or lower) triangle, and taking its diagonal as ones when unitriangular. B of
    another dtype is cast to A's (the result's), as PyTorch does."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    A, B = autocast_inputs("solve_triangular", A, B)
    op = "linalg.solve_triangular"
    _matrices(A, op, square=True, integers=NotImplementedError)
    F._check_tensor(B, op, "B")
    B = _matrices(F.cast(B, A.dtype), op, name="B")
    X = _solve_matrices(A, B, left, op, triangle=(upper, unitriangular))
    return _write_out(X, out, "solve_triangular", exact_dtype=True)


def _solve_matrices(A: Tensor, B: Tensor, left: bool, op: str,
                    triangle: tuple | None = None) -> Tensor:  # fmt: skip
    """X with A @ X = B, or X @ A = B (A^T X^T = B^T) when not left, B a batch of matrices;
    ``triangle``: (upper, unitriangular) to solve with that triangle of A only."""
    if left:
        return _solve_columns(A, B, True, op, triangle)
    return F.swapaxes(_solve_columns(A, F.swapaxes(B, -1, -2), False, op, triangle), -1, -2)


def _solve_columns(A: Tensor, B: Tensor, left: bool, op: str,
                   triangle: tuple | None = None) -> Tensor:  # fmt: skip
    """X with A @ X = B (A^T @ X = B when not left), B (..., n, k): the checks, then Solve
    (SolveTriangular, by substitution where it must, given ``triangle``)."""
    if B.dtype is not A.dtype:
        raise RuntimeError(
            f"{op}: Expected A and B to have the same dtype, but found A of type {A.dtype} and "
            f"B of type {B.dtype} instead"
        )
    if B.shape[-2] != A.shape[-1]:
        given = tuple(B.shape) if left else (*B.shape[:-2], B.shape[-1], B.shape[-2])
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({tuple(A.shape)} and {given})"
        )
    F._check_broadcast(tuple(A.shape[:-2]), tuple(B.shape[:-2]), op + " (batch dims)")
    if triangle is None:
        return ops.Solve.apply(A if left else F.swapaxes(A, -1, -2), B)  # (inf, nan if singular)
    upper, unitriangular = triangle  # (A^T's triangle is the other one)
    return ops.SolveTriangular.apply(
        A if left else F.swapaxes(A, -1, -2),
        B,
        upper=builtins.bool(upper) if left else not upper,
        unitriangular=builtins.bool(unitriangular),
    )


class _NoRcond:
    """pinv's rcond left out (None given is refused, as PyTorch's parser refuses it)."""

    def __repr__(self) -> str:
        return "<no rcond>"


_NO_RCOND: Any = _NoRcond()


def pinv(input: Tensor, rcond: Any = _NO_RCOND, hermitian: bool = False, *,
         atol: float | None = None, rtol: float | None = None, out: Any = None) -> Tensor:  # fmt: skip
    """The pseudo-inverse, through the SVD: singular values at or below max(atol, rtol *
    largest) count as zero (default rtol: eps * max(m, n); 0 when only atol is given).
    ``rcond`` is PyTorch's older, positional name for rtol. With hermitian, A is taken as
    symmetric, its lower triangle read, and the eigenvalues take the singular values' place."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    _matrices(A, "linalg.pinv", halves=RuntimeError)
    if rcond is None:  # (PyTorch's rcond form wants a number or a tensor; leave it out instead)
        raise TypeError("linalg.pinv(): argument 'rcond' must be float or Tensor, not NoneType")
    if rcond is not _NO_RCOND:
        _check_older_tolerance("linalg.pinv", "rcond", atol, rtol)
        rtol = rcond
    atol, rtol = _tolerances(A, atol, rtol)
    if hermitian:  # (eigh wants square matrices)
        _matrices(A, "linalg.eigh", square=True)
    return _write_out(ops.Pinv.apply(A, atol=atol, rtol=rtol, hermitian=hermitian), out, "pinv")


def matrix_power(input: Tensor, n: int, *, out: Any = None) -> Tensor:
    """A multiplied by itself n times (the identity for n = 0, powers of inv(A) for n < 0),
    by repeated squaring."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    op = "linalg.matrix_power"
    F._check_tensor(A, op)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, got shape {tuple(A.shape)}"
        )
    try:  # an int, NumPy's or a 0-d integer tensor's too, as PyTorch takes them
        if isinstance(n, builtins.bool) or (isinstance(n, Tensor) and n.ndim):
            raise TypeError
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{op}: n must be an int, got {type(n).__name__} {n!r}") from None
    # PyTorch casts into out where its last step is a copy (n = 0, 1, +-4, +-8, ...), not where
    # it is a product or an inverse written into out
    exact = n not in (0, 1) and not (abs(n) >= 4 and abs(n) & (abs(n) - 1) == 0)
    if n < 0:
        A, n = inv(A), -n
    if n == 0:  # the identity, taking A's gradient (zero) with it as PyTorch's does
        identity = eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(*A.shape)
        return _write_out(
            F.where(ones_like(A, dtype=_dtypes.bool), identity, A), out, "matrix_power"
        )
    result, square = None, A
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return _write_out(result, out, "matrix_power", exact_dtype=exact)


def matrix_exp(input: Tensor, *, out: Any = None) -> Tensor:
    """exp(A) = I + A + A^2 / 2! + ... of each square matrix (scaling and squaring with a
    Pade approximant); float16 is computed in float32 (NumPy has no float16 solve)."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    _matrices(A, "linalg.matrix_exp", square=True, float16=True)
    if A.dtype is _dtypes.float16:
        result = F.cast(ops.MatrixExp.apply(F.cast(A, _dtypes.float32)), _dtypes.float16)
    else:
        result = ops.MatrixExp.apply(A)
    return _write_out(result, out, "matrix_exp")


def multi_dot(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """The product of a chain of matrices; the first may be a 1-D row vector and the last a
    1-D column vector, as in PyTorch."""
    (tensors,) = autocast_inputs("multi_dot", tensors)
    op = "linalg.multi_dot"
    if not isinstance(tensors, (list, tuple)):  # (a tensor would be iterated row by row)
        raise TypeError(
            f"{op}: tensors must be a list or tuple of tensors, got {type(tensors).__name__}; "
            "write multi_dot([a, b, c])"
        )
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"{op}: expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        allowed = (1, 2) if i in (0, len(tensors) - 1) else (2,)
        if F._check_tensor(t, op, f"tensors[{i}]").ndim not in allowed:
            raise RuntimeError(
                f"{op}: tensor {i} must be {' or '.join(f'{d}D' for d in allowed)}, got shape "
                f"{tuple(t.shape)}"
            )
    result = tensors[0]
    for t in tensors[1:]:
        result = matmul(result, t)
    return _write_out(result, out, "multi_dot", exact_dtype=True)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of the vectors in x's last dim: x (..., n) gives (..., n, N)
    with columns x^0, x^1, ..., x^(N-1) (N = n by default), by repeated products; int64 for
    integer x; a 0-d x is one point."""
    if F._check_tensor(x, "linalg.vander", "x").ndim == 0:  # one point, as PyTorch: (1, N)
        x = F.reshape(x, (1,))
    if x.dtype in (_dtypes.bool, _dtypes.float16):
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{x.dtype}, as in PyTorch (no bool or float16); use .float()"
        )
    N = x.shape[-1] if N is None else N
    if N <= 1:
        raise RuntimeError(f"linalg.vander: N must be greater than 1, got N={N}")
    if not x.dtype.is_floating_point:  # integers of every width give int64, as in PyTorch
        x = F.cast(x, _dtypes.int64)
    columns = [ones_like(x), x]
    while len(columns) < N:
        columns.append(F.mul(columns[-1], x))
    return F.stack(columns, -1)


def tensorinv(input: Tensor, ind: int = 2, *, out: Any = None) -> Tensor:
    """The inverse of A read as a matrix with A.shape[:ind] as rows and A.shape[ind:] as
    columns (their products equal), shaped A.shape[ind:] + A.shape[:ind]: then
    tensordot(tensorinv(A, ind), A, ind) is the identity."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    op = "linalg.tensorinv"
    (A,) = autocast_inputs("tensorinv", A)
    F._check_tensor(A, op, "A")
    if ind <= 0:
        raise RuntimeError(f"{op}: Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(
            f"{op}: Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)} "
            f"(shape {tuple(A.shape)}, ind={ind})"
        )
    return _write_out(
        F.reshape(inv(F.reshape(A, (math.prod(rows), math.prod(cols)))), cols + rows),
        out,
        "tensorinv",
    )


def tensorsolve(
    input: Tensor, other: Tensor, dims: Sequence[int] | None = None, *, out: Any = None
) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B: A read as a matrix with B's dims as rows and the
    rest, A.shape[B.ndim:], as columns (X's shape). ``dims``: dims of A moved to its end
    first."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    B = other  # (PyTorch's keyword is other; its docs write B)
    op = "linalg.tensorsolve"
    A, B = autocast_inputs("tensorsolve", A, B)
    F._check_tensor(A, op, "A"), F._check_tensor(B, op, "B")
    if dims is not None:
        A = F.movedim(A, tuple(dims), tuple(range(A.ndim - len(dims), A.ndim)))
    rows, cols = tuple(A.shape[: B.ndim]), tuple(A.shape[B.ndim :])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(
            f"{op}: Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {math.prod(cols)} != {math.prod(rows)} "
            f"(A of shape {tuple(A.shape)}, B of shape {tuple(B.shape)})"
        )
    n = math.prod(cols)
    return _write_out(
        F.reshape(solve(F.reshape(A, (n, n)), F.reshape(B, (n,))), cols), out, "tensorsolve"
    )


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The cross product of the 3-vectors along ``dim`` (-1 by default); the inputs have one
    number of dims, and sizes 1 broadcast."""
    if isinstance(dim, builtins.bool) or not isinstance(dim, int):  # (no first-dim-of-3 rule)
        raise TypeError(f"linalg.cross: dim must be an int, got {type(dim).__name__} {dim!r}")
    return _write_out(F.cross(input, other, dim), out, "cross", exact_dtype=True)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The dot product of the vectors along ``dim``, other dims broadcast: sum(x * y, dim).
    Both floating point of one dtype, as PyTorch asks."""
    x, y = autocast_inputs("vecdot", x, y)
    op = "linalg.vecdot"
    F._check_tensor(x, op, "x"), F._check_tensor(y, op, "y")
    for t in (x, y):
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                f"{op}: Expected a floating point tensor as input. Got {t.dtype}; use .float()"
            )
    if x.dtype is not y.dtype:
        raise RuntimeError(
            f"{op}: Expected x and y to have the same dtype, but found x of type {x.dtype} and "
            f"y of type {y.dtype} instead; cast one, e.g. y.to(x.dtype)"
        )
    return _write_out(
        F.sum(F.mul(x, y), dim, dtype=x.dtype), out, "vecdot", exact_dtype=True
    )  # (dtype: autocast leaves the sum alone)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the matrices in dims dim1 and dim2 (the last two by default)."""
    return F.diagonal(A, offset, dim1, dim2)


def matrix_rank(input: Tensor, tol: float | None = None, hermitian: bool = False, *,
                atol: float | None = None, rtol: float | None = None, out: Any = None) -> Tensor:  # fmt: skip
    """How many singular values of each matrix are above max(atol, rtol * largest) (int64, no
    gradient; default rtol eps * max(m, n), 0 when only atol is given). ``tol`` is PyTorch's
    older, positional form: an absolute tolerance (atol=tol, rtol=0). With hermitian, A is
    taken as symmetric, its lower triangle read, and |eigenvalues| are counted instead."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    (A,) = autocast_inputs("matrix_rank", A)
    _matrices(A, "linalg.matrix_rank", halves=RuntimeError)
    if tol is not None:
        _check_older_tolerance("linalg.matrix_rank", "tol", atol, rtol)
        atol, rtol = tol, 0.0
    atol, rtol = _tolerances(A, atol, rtol)
    xp = F.backend.xp_of(A.array)
    if hermitian:  # the singular values of a symmetric matrix: |w|, sorted descending
        _matrices(A, "linalg.eigh", square=True)
        s = xp.sort(xp.abs(xp.linalg.eigvalsh(A.array)), axis=-1)[..., ::-1]
    else:
        s = xp.linalg.svd(A.array, compute_uv=False)
    cutoff = xp.maximum(atol, rtol * s[..., :1])
    return _write_out(
        Tensor._make(xp.asarray((s > cutoff).sum(axis=-1), dtype="int64")), out, "matrix_rank"
    )


def _tolerances(A: Tensor, atol: Any, rtol: Any) -> tuple:
    """pinv's and matrix_rank's (atol, rtol) as arrays to compare with A's singular values
    (..., k): numbers, or tensors broadcast against A's batch dims (PyTorch takes both).
    rtol defaults to eps * max(m, n) where atol is not above 0, else to 0 (PyTorch's rule)."""
    xp = F.backend.xp_of(A.array)

    def as_array(value: Any) -> Any:
        if isinstance(value, Tensor):  # (..., 1): one per matrix
            return value.detach().array.astype(A.array.dtype)[..., None]
        return xp.asarray(0.0 if value is None else value, dtype=A.array.dtype)

    atol = as_array(atol)
    if rtol is None:
        default = _dtypes.finfo(A.dtype).eps * builtins.max(A.shape[-2:])
        return atol, xp.where(atol > 0, 0.0, default).astype(A.array.dtype)
    return atol, as_array(rtol)


def _check_older_tolerance(op: str, name: str, atol: Any, rtol: Any) -> None:
    """PyTorch's older positional tolerance (pinv's rcond, matrix_rank's tol) cannot be mixed
    with atol= and rtol= (TypeError, as there)."""
    if atol is not None or rtol is not None:
        raise TypeError(
            f"{op}: {name} (the older form) cannot be given with atol= or rtol=; use only "
            "atol= and rtol="
        )


def lstsq(input: Tensor, b: Tensor, rcond: float | None = None, *, driver: str | None = None,
          out: Any = None) -> return_types.linalg_lstsq:  # fmt: skip
    """The least-squares solution X of A @ X = B (the minimum-norm one, pinv(A) @ B, singular
    values at or below rcond * largest taken as 0, except for "gels"), with the extras of
    PyTorch's ``driver`` (default "gelsy" on the CPU, "gels" on CUDA): rank (int64, not
    for "gels"), the singular values of A ("gelsd", "gelss") and residuals, |A X - B|^2
    of each column of B (for m > n, "gels", or "gelsd" / "gelss" with every A of full
    rank), else empty. The solution and the residuals have gradients."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    B = b  # (PyTorch's keyword is b; its docs write B)
    A, B = autocast_inputs("lstsq", A, B)
    op = "linalg.lstsq"
    _matrices(A, op, halves=RuntimeError)
    F._check_tensor(B, op, "B")
    if driver is None:
        driver = "gels" if A.device.type == "cuda" else "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           f"gelsy, gelsd, gelss), got {driver!r}")  # fmt: skip
    if A.device.type == "cuda" and driver != "gels":
        raise RuntimeError(f"torch.linalg.lstsq: `driver` other than `gels` is not supported on "
                           f"CUDA, as in PyTorch; got {driver!r}")  # fmt: skip
    vector = B.ndim == A.ndim - 1
    B2 = F.unsqueeze(B, -1) if vector else B
    if B2.shape[-2] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A and B must have the same number of rows, got shapes {tuple(A.shape)} "
            f"and {tuple(B.shape)}"
        )
    if driver == "gels":  # (a QR, which assumes full rank: no rcond)
        rcond = None
    X = _matmul(pinv(A, rtol=rcond), B2)  # (not autocast: lstsq is one op in PyTorch)
    xp = F.backend.xp_of(A.array)
    empty = Tensor._make(xp.zeros((0,), dtype=A.array.dtype))
    m, n = A.shape[-2:]
    rank = Tensor._make(xp.zeros((0,), dtype="int64"))
    if driver != "gels":
        rank = matrix_rank(A.detach(), rtol=rcond)
    full_rank = driver == "gels" or (driver != "gelsy" and bool((rank.array == n).all()))
    residuals = empty
    if m > n and full_rank:  # (the minimum: its gradient through X is 0, as it should be)
        residuals = F.sum(F.square(_matmul(A, X) - B2), -2)
    if driver in ("gelsd", "gelss"):
        singular_values = svdvals(A.detach())
    else:
        singular_values = Tensor._make(empty.array.copy())  # (not the residuals' array)
    result = return_types.linalg_lstsq(
        F.squeeze(X, -1) if vector else X, residuals, rank, singular_values
    )
    return _write_out(result, out, "lstsq")


# ---------------------------------------------------------------- decompositions
def cholesky(input: Tensor, *, upper: bool = False, out: Any = None) -> Tensor:
    """L lower triangular with A = L @ L.mT for symmetric positive-definite A (U = L.mT with
    A = U.mT @ U when upper); LinAlgError if A is not positive-definite."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    (A,) = autocast_inputs("cholesky", A)
    op = "linalg.cholesky"
    _matrices(A, op, square=True)
    try:
        L = ops.Cholesky.apply(A)
    except numpy.linalg.LinAlgError:
        L = None
    _check_factorizable(op, A, L, "cholesky", _NOT_POSITIVE_DEFINITE)
    return _write_out(F.swapaxes(L, -1, -2) if upper else L, out, "cholesky", exact_dtype=True)


def cholesky_ex(input: Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None
                ) -> return_types.linalg_cholesky_ex:  # fmt: skip
    """(L, info): cholesky(A, upper=upper) without raising; info (int32, one per matrix) is 0
    where A is positive-definite, else the order of its first leading minor that is not, and
    L is then the factor computed up to that column (as PyTorch's, not meant for use).
    check_errors raises LinAlgError instead."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    op = "linalg.cholesky_ex"
    (A,) = autocast_inputs("cholesky_ex", A)
    _matrices(A, op, square=True)
    partial, info = ops.cholesky_arrays(A.detach().array)
    if check_errors:
        _raise_on_info(info, op, _NOT_POSITIVE_DEFINITE)
    info = Tensor._make(info)
    if bool((info > 0).any()):
        failed = F.unsqueeze(F.unsqueeze(info > 0, -1), -1)
        L = F.where(failed, Tensor._make(partial), cholesky(_identity_where_singular(info, A)))
    else:
        L = cholesky(A)
    return _write_out(
        return_types.linalg_cholesky_ex(F.swapaxes(L, -1, -2) if upper else L, info),
        out,
        "cholesky_ex",
    )


def qr(A: Tensor, mode: str = "reduced", *, out: Any = None) -> return_types.linalg_qr:
    """(Q, R) with A = Q @ R, Q's columns orthonormal and R upper triangular: Q (m, k) and
    R (k, n), k = min(m, n), for "reduced"; Q (m, m) and R (m, n) for "complete"; an
    empty Q for "r"."""
    (A,) = autocast_inputs("qr", A)
    op = "linalg.qr"
    _matrices(A, op)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"{op}: qr received unrecognized mode '{mode}' but expected one of 'reduced' "
            "(default), 'r', or 'complete'"
        )
    xp = F.backend.xp_of(A.array)
    q, r = xp.linalg.qr(A.array, mode="complete" if mode == "complete" else "reduced")
    Q = ops.QrQ.apply(A, q=q, r=r)
    R = ops.QrR.apply(A, q=q, r=r)
    if mode == "r":
        Q = Tensor._make(xp.zeros((0,), dtype=A.array.dtype))
    return _write_out(return_types.linalg_qr(Q, R), out, "qr")


def householder_product(input: Tensor, tau: Tensor, *, out: Any = None) -> Tensor:
    """The first n columns of H_1 H_2 ... H_k for A (..., m, n), m >= n >= k, with H_i = I -
    tau_i v_i v_i^T, v_i column i of A below the diagonal with a 1 on it (LAPACK's orgqr:
    geqrf's output gives the Q of the QR)."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    op = "linalg.householder_product"
    A, tau = autocast_inputs("householder_product", A, tau)
    _matrices(A, op, integers=NotImplementedError)
    F._check_tensor(tau, op, "tau")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{op}: tau dtype {tau.dtype} does not match input dtype {A.dtype}")
    m, n = A.shape[-2:]
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.ndim} and input.ndim is equal to {A.ndim}"
        )
    if m < n:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1], got shape {tuple(A.shape)}")  # fmt: skip
    if n < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1], got {n} and {tau.shape[-1]}")  # fmt: skip
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):  # (no broadcasting, as in PyTorch)
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2] = "
            f"{tuple(A.shape[:-2])}, but got {tuple(tau.shape[:-1])}"
        )
    identity = eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape)  # (k = 0 too)
    return _write_out(
        apply_householder(A, tau, identity, left=True, transpose=False), out, "householder_product"
    )


def apply_householder(A: Tensor, tau: Tensor, C: Tensor, left: bool, transpose: bool) -> Tensor:
    """Q C (Q^T C with transpose; C Q, C Q^T when not left) for Q = H_1 ... H_k, H_i = I -
    tau_i v_i v_i^T and v_i the unit lower triangular columns of A (..., mn, k'), k =
    tau.shape[-1]: each H_i applied in turn, as differentiable ops."""
    k = tau.shape[-1]
    ones = eye(A.shape[-2], A.shape[-1], dtype=A.dtype, device=A.device)
    V = F.tril(A, -1) + ones  # (the ones on the diagonal take no gradient)
    order = range(k - 1, -1, -1) if left != transpose else range(k)  # H_k first, or H_1
    for i in order:
        v, t = V[..., :, i], F.unsqueeze(F.unsqueeze(tau[..., i], -1), -1)
        if left:  # H C = C - tau v (v^T C)
            C = C - t * matmul(F.unsqueeze(v, -1), matmul(F.unsqueeze(v, -2), C))
        else:  # C H = C - tau (C v) v^T
            C = C - t * matmul(matmul(C, F.unsqueeze(v, -1)), F.unsqueeze(v, -2))
    return C


def eigh(input: Tensor, UPLO: str = "L", *, out: Any = None) -> return_types.linalg_eigh:
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix, read from
    its lower (UPLO="L") or upper triangle. The gradient assumes distinct eigenvalues."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    (A,) = autocast_inputs("eigh", A)
    op = "linalg.eigh"
    _matrices(A, op, square=True, integers=NotImplementedError)
    if UPLO not in ("L", "U", "l", "u"):  # (either case, as PyTorch takes it)
        raise RuntimeError(f"{op}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    UPLO = UPLO.upper()
    w, v = F.backend.xp_of(A.array).linalg.eigh(A.array, UPLO=UPLO)
    return _write_out(
        return_types.linalg_eigh(
            ops.EighValues.apply(A, values=w, vectors=v),
            ops.EighVectors.apply(A, values=w, vectors=v),
        ),
        out,
        "eigh",
    )


def eigvalsh(input: Tensor, UPLO: str = "L", *, out: Any = None) -> Tensor:
    """The eigenvalues of each symmetric matrix, ascending (eigh's first output)."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    (A,) = autocast_inputs("eigvalsh", A)
    return _write_out(eigh(A, UPLO).eigenvalues, out, "eigvalsh", exact_dtype=True)


def svd(
    A: Tensor, full_matrices: bool = True, *, driver: str | None = None, out: Any = None
) -> return_types.linalg_svd:
    """(U, S, Vh) with A = U @ diag(S) @ Vh, S descending: U (m, m) and Vh (n, n) with
    full_matrices, else (m, k) and (k, n), k = min(m, n). The gradient assumes distinct,
    nonzero singular values (and, as PyTorch's, ignores the extra columns of full U and Vh).
    ``driver`` (cuSOLVER's algorithm in PyTorch) is for CUDA tensors and changes nothing."""
    (A,) = autocast_inputs("svd", A)
    _matrices(A, "linalg.svd")
    _check_svd_driver(A, driver, "linalg.svd")
    u, s, vh = F.backend.xp_of(A.array).linalg.svd(A.array, full_matrices=full_matrices)
    return _write_out(
        return_types.linalg_svd(
            ops.SvdU.apply(A, u=u, s=s, vh=vh),
            ops.SvdS.apply(A, u=u, s=s, vh=vh),
            ops.SvdVh.apply(A, u=u, s=s, vh=vh),
        ),
        out,
        "svd",
    )


def svdvals(A: Tensor, *, driver: str | None = None, out: Any = None) -> Tensor:
    """The singular values of each matrix, descending (``driver``: as svd's)."""
    (A,) = autocast_inputs("svdvals", A)
    _matrices(A, "linalg.svdvals")
    _check_svd_driver(A, driver, "linalg.svdvals")
    u, s, vh = F.backend.xp_of(A.array).linalg.svd(A.array, full_matrices=False)
    return _write_out(ops.SvdS.apply(A, u=u, s=s, vh=vh), out, "svdvals", exact_dtype=True)


def _check_svd_driver(A: Tensor, driver: str | None, op: str) -> None:
    """driver= is PyTorch's choice of cuSOLVER algorithm: refused on the CPU (as there), one of
    cuSOLVER's names on CUDA, where any gives the same SVD here."""
    if driver is None:
        return
    if A.device.type != "cuda":
        raise RuntimeError(
            f"{op}: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER "
            "backend, as in PyTorch; leave it out on the CPU"
        )
    if driver not in ("gesvd", "gesvdj", "gesvda"):
        raise RuntimeError(
            f"{op}: driver must be one of 'gesvd', 'gesvdj', 'gesvda' (or None), got {driver!r}"
        )


# ---------------------------------------------------------------- LU
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out: Any = None
                 ) -> return_types.linalg_lu_factor_ex:  # fmt: skip
    """(LU, pivots, info): A = P L U with partial pivoting, packed as LAPACK's getrf: L
    (unit lower triangular) below LU's diagonal, U on and above it; pivots (int32, 1-based)
    name the row swapped with row j at step j; info (int32) is 0, or 1 + the index of U's
    first zero diagonal entry (check_errors raises then). Without pivot (CUDA only, as in
    PyTorch), no rows are swapped."""
    op = "linalg.lu_factor_ex"
    lu, pivots, info = _lu_arrays(A, pivot, op)
    if check_errors:
        _check_lu_info(info, op)
    LU = ops.LuFactor.apply(A, lu=lu, pivots=pivots)
    return _write_out(
        return_types.linalg_lu_factor_ex(LU, Tensor._make(pivots), Tensor._make(info)),
        out,
        "lu_factor_ex",
    )


def lu_factor(A: Tensor, *, pivot: bool = True, out: Any = None) -> return_types.linalg_lu_factor:
    """(LU, pivots) of lu_factor_ex, raising RuntimeError where U has a zero on its diagonal
    (the factorisation is still there in lu_factor_ex and lu)."""
    op = "linalg.lu_factor"
    lu, pivots, info = _lu_arrays(A, pivot, op)
    _check_lu_info(info, op)
    return _write_out(
        return_types.linalg_lu_factor(
            ops.LuFactor.apply(A, lu=lu, pivots=pivots), Tensor._make(pivots)
        ),
        out,
        "lu_factor",
    )


def _lu_arrays(A: Tensor, pivot: bool, op: str) -> tuple:
    """The checks of the LU functions, then (lu, pivots, info) arrays of A."""
    _matrices(A, op, integers=NotImplementedError)
    if not pivot and A.device.type != "cuda":
        raise RuntimeError(f"{op}: LU without pivoting is not implemented on the CPU, as in "
                           "PyTorch; use pivot=True")  # fmt: skip
    return ops.lu_factor_arrays(A.detach().array, pivot)


def _check_lu_info(info: Any, op: str) -> None:
    """PyTorch's RuntimeError for an LU whose U has a zero on its diagonal."""
    failed = F.backend.xp_of(info).flatnonzero(info.reshape(-1) > 0)
    if failed.size:
        j = int(info.reshape(-1)[int(failed[0])])
        raise RuntimeError(
            f"{op}: U[{j},{j}] is zero and using it on lu_solve would result in a division by "
            "zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )


def lu(A: Tensor, *, pivot: bool = True, out: Any = None) -> return_types.linalg_lu:
    """(P, L, U) with A = P @ L @ U: P a permutation, L (m, k) unit lower triangular, U (k, n)
    upper triangular, k = min(m, n). Singular matrices are factorised too."""
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return _write_out(return_types.linalg_lu(*lu_unpack(LU, pivots)), out, "lu")


def lu_unpack(LU: Tensor, pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True
              ) -> return_types.linalg_lu:  # fmt: skip
    """(P, L, U) from lu_factor's packed LU and pivots (L, U empty without unpack_data, P
    empty without unpack_pivots)."""
    op = "lu_unpack"
    _matrices(LU, op, name="LU_data", float16=True)  # (float16 too, as in PyTorch)
    F._check_tensor(pivots, op, "LU_pivots")
    m, n = LU.shape[-2:]
    k = builtins.min(m, n)
    xp = F.backend.xp_of(LU.array)
    empty = Tensor._make(xp.zeros((0,), dtype=LU.array.dtype))
    if unpack_data:
        L = F.tril(LU, -1)[..., :, :k] + eye(m, k, dtype=LU.dtype, device=LU.device)
        U = F.triu(LU)[..., :k, :]
    else:
        L, U = empty, Tensor._make(empty.array.copy())
    P = empty
    if unpack_pivots:
        if pivots.dtype is not _dtypes.int32 or pivots.shape[-1:] != (k,):
            raise RuntimeError(
                f"{op}: LU_pivots must be an int32 tensor (lu_factor's) of shape (..., {k}) for "
                f"LU of shape {tuple(LU.shape)}, got {pivots.dtype} of shape "
                f"{tuple(pivots.shape)}"
            )
        P = Tensor._make(ops.permutation_matrix(pivots.array, m, LU.array.dtype))
    return return_types.linalg_lu(P, L, U)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
             adjoint: bool = False, out: Any = None) -> Tensor:  # fmt: skip
    """X with A @ X = B (A^T @ X = B with adjoint; X @ A = B, X @ A^T = B when not left) for
    A = P L U given as lu_factor's (LU, pivots): two triangular solves and the permutation,
    differentiable in LU and B."""
    op = "linalg.lu_solve"
    _matrices(LU, op, square=True, name="LU")
    _matrices(B, op, name="B")
    F._check_tensor(pivots, op, "pivots")
    if pivots.dtype is not _dtypes.int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type int32 (lu_factor's), "
                           f"got {pivots.dtype}")  # fmt: skip
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    P, L, U = lu_unpack(LU, pivots)
    Lt, Ut, Pt = (F.swapaxes(t, -1, -2) for t in (L, U, P))
    if left and not adjoint:  # P L U X = B
        Y = solve_triangular(L, _matmul(Pt, B), upper=False, unitriangular=True)
        return _write_out(solve_triangular(U, Y, upper=True), out, "lu_solve", exact_dtype=True)
    if left:  # U^T L^T P^T X = B
        Y = solve_triangular(Lt, solve_triangular(Ut, B, upper=False), upper=True,
                             unitriangular=True)  # fmt: skip
        return _write_out(_matmul(P, Y), out, "lu_solve", exact_dtype=True)
    if not adjoint:  # X P L U = B
        Y = solve_triangular(U, B, upper=True, left=False)
        return _write_out(
            _matmul(solve_triangular(L, Y, upper=False, left=False, unitriangular=True), Pt),
            out,
            "lu_solve",
            exact_dtype=True,
        )
    Y = solve_triangular(Lt, _matmul(B, P), upper=True, left=False, unitriangular=True)
    return _write_out(
        solve_triangular(Ut, Y, upper=False, left=False), out, "lu_solve", exact_dtype=True
    )  # X U^T L^T P^T = B


# ---------------------------------------------------------------- LDL
def ldl_factor_ex(input: Tensor, *, hermitian: bool = False, check_errors: bool = False, out: Any = None
                  ) -> return_types.linalg_ldl_factor_ex:  # fmt: skip
    """(LD, pivots, info): A = L D L^T for symmetric A (its lower triangle read), with
    Bunch-Kaufman pivoting, in LAPACK's sytrf form (microtorch/ops/ldl.py says how to read
    it); info (int32) is 1 + the first column with an exactly singular block of D, else 0.
    ``hermitian`` is the same as symmetric for real matrices. No gradient, as in PyTorch."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    op = "linalg.ldl_factor_ex"
    _matrices(A, op, square=True)
    ld, pivots, info = _ldl.ldl_factor_arrays(A.detach().array)
    if check_errors:
        _raise_on_info(info, op, "The factorization could not be completed because the block "
                       "diagonal matrix D has a zero block at column {}")  # fmt: skip
    return _write_out(
        return_types.linalg_ldl_factor_ex(
            Tensor._make(ld), Tensor._make(pivots), Tensor._make(info)
        ),
        out,
        "ldl_factor_ex",
    )


def ldl_factor(
    input: Tensor, *, hermitian: bool = False, out: Any = None
) -> return_types.linalg_ldl_factor:
    """(LD, pivots) of ldl_factor_ex, raising RuntimeError where D is exactly singular."""
    A = input  # (PyTorch's keyword is input; its docs write A)
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    failed = F.backend.xp_of(info.array).flatnonzero(info.array.reshape(-1) > 0)
    if failed.size:
        raise RuntimeError(
            f"linalg.ldl_factor: the block diagonal D of the input of shape {tuple(A.shape)} is "
            f"singular (a zero block at column {int(info.array.reshape(-1)[int(failed[0])])}); "
            "linalg.ldl_factor_ex returns the factorisation with info instead"
        )
    return _write_out(return_types.linalg_ldl_factor(LD, pivots), out, "ldl_factor")


def ldl_solve(
    LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out: Any = None
) -> Tensor:
    """X with A @ X = B for A given by ldl_factor's (LD, pivots); batch dims broadcast. No
    gradient, as in PyTorch."""
    op = "linalg.ldl_solve"
    _matrices(LD, op, square=True, name="LD")
    _matrices(B, op, name="B")
    F._check_tensor(pivots, op, "pivots")
    if B.dtype is not LD.dtype:
        raise RuntimeError(
            f"{op}: Expected b and A to have the same dtype, but found b of type {B.dtype} and "
            f"A of type {LD.dtype} instead"
        )
    n = LD.shape[-1]
    if B.shape[-2] != n or tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(
            f"{op}: Incompatible matrix sizes: each A matrix is {n} by {n} (pivots "
            f"{tuple(pivots.shape)}) but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    F._check_broadcast(tuple(LD.shape[:-2]), tuple(B.shape[:-2]), op)
    arrays = (t.detach().array for t in (LD, pivots, B))
    return _write_out(
        Tensor._make(_ldl.ldl_solve_arrays(*arrays)), out, "ldl_solve", exact_dtype=True
    )
