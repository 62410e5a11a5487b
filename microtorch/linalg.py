"""``torch.linalg``: norms, determinants, inverses, solves and decompositions of matrices.

Every function takes batches of matrices in the last two dims (leading dims are a batch,
broadcast where PyTorch broadcasts them) and computes on NumPy's or CuPy's ``linalg``.
Their gradients are the classic formulas, written next to the forwards in
``microtorch/ops/linalg.py``; the rest (norms, matrix_power, multi_dot, lstsq...) are
compositions of differentiable ops.

Differences from PyTorch:
- a singular or non-positive-definite matrix raises ``LinAlgError`` on the CPU; on a GPU
  CuPy does not check unless it waits for the GPU, so the result holds inf or nan there
  (PyTorch waits and raises);
- det's gradient at a singular matrix is the adjugate, the true derivative (PyTorch 2.x
  gives zeros for some singular matrices); slogdet's gradient needs an invertible matrix;
- solve_triangular solves with an LU factorisation of the triangle: the same values, but a
  zero on its diagonal raises LinAlgError instead of giving inf;
- qr(mode="r") has a gradient (PyTorch's backward raises);
- pinv and matrix_rank accept ``hermitian`` but always use the SVD (same results);
- lstsq returns what PyTorch's default CPU driver does: the solution, an empty residuals
  and singular_values, and the rank, whatever ``driver`` says.
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import operator
from collections.abc import Iterator, Sequence
from typing import Any

import numpy

from . import dtypes as _dtypes
from . import functional as F
from ._tensor import Tensor
from .amp.autocast_mode import autocast_inputs
from .factories import eye, ones_like
from .functional import _matmul, _vector_norm, matmul
from .ops import linalg as ops

__all__ = [
    "LinAlgError",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
    "svdvals",
    "vecdot",
    "vector_norm",
]


class LinAlgError(RuntimeError):
    """A matrix that has no inverse, no Cholesky factor...: PyTorch's
    torch.linalg.LinAlgError, a RuntimeError."""


SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])
EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])
LstsqResult = collections.namedtuple(
    "LstsqResult", ["solution", "residuals", "rank", "singular_values"]
)


# ---------------------------------------------------------------- argument checks
def _matrices(A: Any, op: str, square: bool = False, name: str = "A", float16: bool = False,
              integers: type = RuntimeError) -> Tensor:  # fmt: skip
    """A itself if it is a float32/float64 (or, if allowed, float16) tensor of (batches of)
    matrices, square if asked; otherwise PyTorch's error (``integers``: the one its op
    raises for integer and bool tensors)."""
    F._check_tensor(A, op, name)
    if A.dtype is _dtypes.float16 and not float16:
        raise NotImplementedError(f"{op}: float16 is not supported, as in PyTorch; use .float()")
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


@contextlib.contextmanager
def _singular_raises(op: str, A: Tensor, what: str = "singular") -> Iterator[None]:
    """NumPy's LinAlgError as ours, naming the op and the shape."""
    try:
        yield
    except numpy.linalg.LinAlgError as error:
        raise LinAlgError(
            f"{op}: the input of shape {tuple(A.shape)} is {what} ({error}), so the "
            "computation could not be completed"
        ) from None


# ---------------------------------------------------------------- norms
def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:  # fmt: skip
    """The ord-norm of x's elements over ``dim`` (all of them by default): sum(|x|^ord)^(1/ord),
    max |x| for inf, min |x| for -inf, the count of nonzeros for 0."""
    return _vector_norm(x, ord, dim, keepdim, dtype, "linalg.vector_norm")


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Sequence = (-2, -1), keepdim: bool = False,
                *, dtype: Any = None) -> Tensor:  # fmt: skip
    """The ord-norm of the matrices in dims ``dim``: "fro", "nuc" (the sum of singular
    values), inf / -inf (largest / smallest absolute row sum), 1 / -1 (the same of columns),
    2 / -2 (largest / smallest singular value)."""
    op = "linalg.matrix_norm"
    _matrices(A, op, float16=ord not in ("nuc", 2, -2))  # (no float16 SVD, as in PyTorch)
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
        return _vector_norm(A, 2, (rows, cols), keepdim, None, op)
    if ord in ("nuc", 2, -2):
        s = svdvals(F.movedim(A, (rows, cols), (-2, -1)))
        out = F.sum(s, -1) if ord == "nuc" else _largest(s, -1) if ord == 2 else F.amin(s, -1)
        if keepdim:
            out = F.unsqueeze(F.unsqueeze(out, builtins.min(rows, cols)), builtins.max(rows, cols))
        return out
    if ord in (1, -1, float("inf"), -float("inf")):
        summed, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = F.sum(F.abs(A), summed, keepdim=True)
        out = _largest(sums, across, True) if ord > 0 else F.amin(sums, across, True)
        return out if keepdim else F.squeeze(out, (rows, cols))
    raise RuntimeError(
        f"{op}: Order {ord!r} not supported; use 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2"
    )


def _largest(norms: Tensor, dim: int, keepdim: bool = False) -> Tensor:
    """amax of (non-negative) norms over dim, 0 where dim is empty, as PyTorch's matrix norms
    of empty matrices (the smallest of none still raises)."""
    return F.amax(norms, dim, keepdim) if norms.shape[dim] else F.sum(norms, dim, keepdim)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None) -> Tensor:  # fmt: skip
    """A vector norm (dim an int, or no dim and no ord: all elements as one vector) or a matrix
    norm (dim a 2-tuple, a string ord, or an ord with a 2-D A and no dim), as PyTorch picks."""
    op = "linalg.norm"
    F._check_tensor(A, op)
    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        matrix = False
    elif dim is not None:
        matrix = True
    elif ord is None:
        matrix = False
    elif A.ndim in (1, 2):
        matrix = A.ndim == 2
    else:
        raise RuntimeError(
            f"{op}: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D"
        )
    if matrix:
        dims = (-2, -1) if dim is None else dim
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"{op}: ord {ord!r} is a matrix norm; pass dim as a 2-tuple")
    return _vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype, op)


# ---------------------------------------------------------------- determinants and inverses
def det(A: Tensor) -> Tensor:
    """The determinant of each square matrix."""
    return ops.Det.apply(_matrices(A, "linalg.det", square=True))


def slogdet(A: Tensor) -> SlogdetResult:
    """(sign, log|det|) of each square matrix: the determinant without its overflow."""
    _matrices(A, "linalg.slogdet", square=True)
    xp = F.backend.xp_of(A.array)
    sign, logabsdet = (xp.asarray(t) for t in xp.linalg.slogdet(A.array))
    return SlogdetResult(ops.DetSign.apply(A, value=sign), ops.LogAbsDet.apply(A, value=logabsdet))


def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix (LinAlgError if one is singular)."""
    (A,) = autocast_inputs("inv", A)
    with _singular_raises("linalg.inv", A):
        return ops.Inv.apply(_matrices(A, "linalg.inv", square=True))


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with A @ X = B (or X @ A = B when left=False) for square A. B is a batch of vectors
    when it is 1-D or has A's shape without its last dim, otherwise of matrices; batch dims
    broadcast."""
    A, B = autocast_inputs("solve", A, B)
    op = "linalg.solve"
    _matrices(A, op, square=True)
    F._check_tensor(B, op, "B")
    vector = B.ndim == 1 or tuple(B.shape) == tuple(A.shape[:-1])
    if vector:  # a column (..., n, 1); with left=False, X A = B then needs n == 1
        return F.squeeze(_solve_matrices(A, F.unsqueeze(B, -1), left, op), -1)
    if B.ndim < 2:
        raise RuntimeError(f"{op}: B must be a vector or a matrix, got shape {tuple(B.shape)}")
    return _solve_matrices(A, B, left, op)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:  # fmt: skip
    """X with A @ X = B (X @ A = B when left=False) for B a batch of matrices, reading only
    A's upper (or lower) triangle, and taking its diagonal as ones when unitriangular. B of
    another dtype is cast to A's (the result's), as PyTorch does."""
    A, B = autocast_inputs("solve_triangular", A, B)
    op = "linalg.solve_triangular"
    _matrices(A, op, square=True, integers=NotImplementedError)
    F._check_tensor(B, op, "B")
    B = _matrices(F.cast(B, A.dtype), op, name="B")
    T = F.triu(A) if upper else F.tril(A)
    if unitriangular:  # the diagonal replaced by ones (so it gets no gradient)
        ones = eye(A.shape[-1], dtype=A.dtype, device=A.device)
        T = T - F.diag_embed(F.diagonal(T, 0, -2, -1)) + ones
    return _solve_matrices(T, B, left, op)


def _solve_matrices(A: Tensor, B: Tensor, left: bool, op: str) -> Tensor:
    """X with A @ X = B, or X @ A = B (A^T X^T = B^T) when not left, B a batch of matrices."""
    if left:
        return _solve_columns(A, B, True, op)
    return F.swapaxes(_solve_columns(A, F.swapaxes(B, -1, -2), False, op), -1, -2)


def _solve_columns(A: Tensor, B: Tensor, left: bool, op: str) -> Tensor:
    """X with A @ X = B (A^T @ X = B when not left), B (..., n, k): the checks, then Solve."""
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
    with _singular_raises(op, A):
        return ops.Solve.apply(A if left else F.swapaxes(A, -1, -2), B)


def pinv(A: Tensor, rcond: float | None = None, hermitian: bool = False, *,
         atol: float | None = None, rtol: float | None = None) -> Tensor:  # fmt: skip
    """The pseudo-inverse, through the SVD: singular values at or below max(atol, rtol *
    largest) count as zero (default rtol: eps * max(m, n); 0 when only atol is given).
    ``rcond`` is PyTorch's older, positional name for rtol."""
    _matrices(A, "linalg.pinv")
    if rcond is not None:
        _check_older_tolerance("linalg.pinv", "rcond", atol, rtol)
        rtol = rcond
    atol, rtol = _tolerances(A, atol, rtol)
    return ops.Pinv.apply(A, atol=atol, rtol=rtol)


def matrix_power(A: Tensor, n: int) -> Tensor:
    """A multiplied by itself n times (the identity for n = 0, powers of inv(A) for n < 0),
    by repeated squaring."""
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
    if n < 0:
        A, n = inv(A), -n
    if n == 0:  # the identity, taking A's gradient (zero) with it as PyTorch's does
        identity = eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(*A.shape)
        return F.where(ones_like(A, dtype=_dtypes.bool), identity, A)
    result, square = None, A
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
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
    return result


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of the 3-vectors along ``dim`` (-1 by default); the inputs have one
    number of dims, and sizes 1 broadcast."""
    if isinstance(dim, builtins.bool) or not isinstance(dim, int):  # (no first-dim-of-3 rule)
        raise TypeError(f"linalg.cross: dim must be an int, got {type(dim).__name__} {dim!r}")
    return F.cross(input, other, dim)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
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
    return F.sum(F.mul(x, y), dim, dtype=x.dtype)  # (dtype: autocast leaves the sum alone)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the matrices in dims dim1 and dim2 (the last two by default)."""
    return F.diagonal(A, offset, dim1, dim2)


def matrix_rank(A: Tensor, tol: float | None = None, hermitian: bool = False, *,
                atol: float | None = None, rtol: float | None = None) -> Tensor:  # fmt: skip
    """How many singular values of each matrix are above max(atol, rtol * largest) (int64, no
    gradient; default rtol eps * max(m, n), 0 when only atol is given). ``tol`` is PyTorch's
    older, positional form: an absolute tolerance (atol=tol, rtol=0)."""
    (A,) = autocast_inputs("matrix_rank", A)
    _matrices(A, "linalg.matrix_rank")
    if tol is not None:
        _check_older_tolerance("linalg.matrix_rank", "tol", atol, rtol)
        atol, rtol = tol, 0.0
    atol, rtol = _tolerances(A, atol, rtol)
    xp = F.backend.xp_of(A.array)
    s = xp.linalg.svd(A.array, compute_uv=False)
    cutoff = xp.maximum(atol, rtol * s[..., :1])
    return Tensor._make(xp.asarray((s > cutoff).sum(axis=-1), dtype="int64"))


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


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None
          ) -> LstsqResult:  # fmt: skip
    """The least-squares solution X of A @ X = B (the minimum-norm one, pinv(A) @ B, as
    PyTorch's default CPU driver gives for full-rank A), with PyTorch's default-driver
    extras: residuals and singular_values empty, rank the rank of A. Only the solution
    has a gradient."""
    A, B = autocast_inputs("lstsq", A, B)
    op = "linalg.lstsq"
    _matrices(A, op)
    F._check_tensor(B, op, "B")
    vector = B.ndim == A.ndim - 1
    B2 = F.unsqueeze(B, -1) if vector else B
    if B2.shape[-2] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A and B must have the same number of rows, got shapes {tuple(A.shape)} "
            f"and {tuple(B.shape)}"
        )
    X = _matmul(pinv(A, rtol=rcond), B2)  # (not autocast: lstsq is one op in PyTorch)
    empty = F.backend.xp_of(A.array).zeros((0,), dtype=A.array.dtype)
    return LstsqResult(
        F.squeeze(X, -1) if vector else X, Tensor._make(empty), matrix_rank(A.detach()),
        Tensor._make(empty.copy()),
    )  # fmt: skip


# ---------------------------------------------------------------- decompositions
def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """L lower triangular with A = L @ L.mT for symmetric positive-definite A (U = L.mT with
    A = U.mT @ U when upper); LinAlgError if A is not positive-definite."""
    (A,) = autocast_inputs("cholesky", A)
    op = "linalg.cholesky"
    with _singular_raises(op, A, "not positive-definite"):
        L = ops.Cholesky.apply(_matrices(A, op, square=True))
    return F.swapaxes(L, -1, -2) if upper else L


def qr(A: Tensor, mode: str = "reduced") -> QRResult:
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
    return QRResult(Q, R)


def eigh(A: Tensor, UPLO: str = "L") -> EighResult:
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix, read from
    its lower (UPLO="L") or upper triangle. The gradient assumes distinct eigenvalues."""
    (A,) = autocast_inputs("eigh", A)
    op = "linalg.eigh"
    _matrices(A, op, square=True, integers=NotImplementedError)
    if UPLO not in ("L", "U", "l", "u"):  # (either case, as PyTorch takes it)
        raise RuntimeError(f"{op}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    UPLO = UPLO.upper()
    w, v = F.backend.xp_of(A.array).linalg.eigh(A.array, UPLO=UPLO)
    return EighResult(
        ops.EighValues.apply(A, values=w, vectors=v), ops.EighVectors.apply(A, values=w, vectors=v)
    )


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of each symmetric matrix, ascending (eigh's first output)."""
    (A,) = autocast_inputs("eigvalsh", A)
    return eigh(A, UPLO).eigenvalues


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> SVDResult:
    """(U, S, Vh) with A = U @ diag(S) @ Vh, S descending: U (m, m) and Vh (n, n) with
    full_matrices, else (m, k) and (k, n), k = min(m, n). The gradient assumes distinct,
    nonzero singular values (and, as PyTorch's, ignores the extra columns of full U and Vh).
    ``driver`` (cuSOLVER's algorithm in PyTorch) is for CUDA tensors and changes nothing."""
    (A,) = autocast_inputs("svd", A)
    _matrices(A, "linalg.svd")
    _check_svd_driver(A, driver, "linalg.svd")
    u, s, vh = F.backend.xp_of(A.array).linalg.svd(A.array, full_matrices=full_matrices)
    return SVDResult(
        ops.SvdU.apply(A, u=u, s=s, vh=vh),
        ops.SvdS.apply(A, u=u, s=s, vh=vh),
        ops.SvdVh.apply(A, u=u, s=s, vh=vh),
    )


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    """The singular values of each matrix, descending (``driver``: as svd's)."""
    (A,) = autocast_inputs("svdvals", A)
    _matrices(A, "linalg.svdvals")
    _check_svd_driver(A, driver, "linalg.svdvals")
    u, s, vh = F.backend.xp_of(A.array).linalg.svd(A.array, full_matrices=False)
    return ops.SvdS.apply(A, u=u, s=s, vh=vh)


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
