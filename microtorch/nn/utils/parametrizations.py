"""``torch.nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and ``orthogonal``
written with :mod:`parametrize` (the module-based forms; ``nn.utils.weight_norm`` and
``nn.utils.spectral_norm`` are the older hook-based ones).

    weight_norm     w = g * v / ||v||               originals: original0 = g, original1 = v
    spectral_norm   w = W / sigma(W)                sigma by power iteration (buffers _u, _v)
    orthogonal      w = base @ Q(X), Q orthogonal   Q the Cayley map of a skew matrix made from X
"""

from __future__ import annotations

from ... import _linalg_names, factories, linalg, random
from ... import dtypes as _dtypes
from ... import functional as F
from ..._tensor import Tensor
from ...autograd import grad_mode
from .. import functional as nnF
from ..module import Module
from . import parametrize
from .weight_norm import norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ------------------------------------------------------------------ weight_norm
class _WeightNorm(Module):
    """w = g * v / ||v||, the norm over every dim but ``dim`` (-1: over all of v)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        """(g, v) that give ``weight``: its norms and itself."""
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Parametrize ``module.<name>`` as g * v / ||v|| with g (``original0``, the norms along
    ``dim``) and v (``original1``) learned separately; ``dim=None``: one norm for all."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


# ------------------------------------------------------------------ spectral_norm
class _SpectralNorm(Module):
    """w = W / sigma, sigma W's largest singular value (W seen as a matrix, ``dim`` first),
    estimated as u . (W v) from the singular-vector estimates u, v (buffers ``_u``, ``_v``),
    which each forward in training mode moves on by ``n_power_iterations`` steps of the
    power method: u = normalize(W v), v = normalize(W^T u). A 1-d weight is just normalized."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:  # fmt: skip
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but "
                f"got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            kind = dict(dtype=weight.dtype, device=weight.device)
            self.register_buffer("_u", nnF.normalize(random.randn(h, **kind), dim=0, eps=eps))
            self.register_buffer("_v", nnF.normalize(random.randn(w, **kind), dim=0, eps=eps))
            self._power_method(weight_mat, 15)  # start from good estimates, as PyTorch

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as (size of ``dim``, everything else)."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """Move the estimates u, v on in place (out of the graph: sigma's gradient is taken
        with u and v held fixed)."""
        with grad_mode.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(nnF.normalize(F.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(nnF.normalize(F.mv(weight_mat.mH, self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return nnF.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()  # the values of now, whatever comes later
        sigma = F.vdot(u, F.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        """Assigning a weight stores it as it is (its sigma is worked out on the next read)."""
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:  # fmt: skip
    """Parametrize ``module.<name>`` as W / sigma(W), its largest singular value estimated by
    power iteration (``dim``: the output dim, 0, or 1 for a transposed convolution)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if "ConvTranspose" in type(module).__name__ else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


# ------------------------------------------------------------------ orthogonal
_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(q: Tensor) -> bool:
    """Whether the columns of the tall ``q`` are orthonormal, to a tolerance of 10 n eps."""
    n, k = q.shape[-2], q.shape[-1]
    eye = factories.eye(k, dtype=q.dtype, device=q.device)
    return F.allclose(q.mH @ q, eye, atol=10.0 * n * _dtypes.finfo(q.dtype).eps)


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of a = Q R (tall a) with the signs that make R's diagonal non-negative."""
    q, r = linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """An orthogonal matrix (or batch) from an unconstrained X of the weight's shape, through
    the ``orthogonal_map``. With ``use_trivialization`` the result is ``base @ Q(X)``: assigning
    a weight stores it (made orthogonal) as the buffer ``base`` and resets X so that Q(X) = I."""

    def __init__(self, weight: Tensor, orthogonal_map: str, *,
                 use_trivialization: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:  # noqa: N803 (the math's name)
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:  # work on the tall form
            X, n, k = X.mT, k, n
        if self.orthogonal_map == "householder":
            Q = _householder_map(X)
            if self._buffers.get("base") is not None:
                Q = self.base @ Q
            return Q.mT if transposed else Q
        # a skew-symmetric A (A^T = -A) from the lower triangle of X, padded to n x n
        X = X.tril()
        if n != k:
            zeros = factories.zeros(*X.shape[:-2], n, n - k, dtype=X.dtype, device=X.device)
            X = F.cat([X, zeros], dim=-1)
        A = X - X.mH
        if self.orthogonal_map == "matrix_exp":
            Q = linalg.matrix_exp(A)
        else:  # cayley: Q = (I - A/2)^-1 (I + A/2), orthogonal for every skew A
            eye = factories.eye(n, dtype=A.dtype, device=A.device)
            Q = linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
        if n != k:
            Q = Q[..., :k]
        if self._buffers.get("base") is not None:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:  # noqa: N803
        """The X that gives ``Q``: with use_trivialization, store Q (made orthogonal, and
        completed to a square with random columns when it is not square) as ``base`` and
        return -I, whose map is I; without it there is no inverse of these maps."""
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor "
                f"of shape {Q.shape}."
            )
        if "base" not in self._buffers and self.orthogonal_map == "householder":
            return _householder_inverse(Q)
        if "base" not in self._buffers:
            raise NotImplementedError(
                "It is not possible to assign to the matrix exponential or the Cayley "
                "parametrizations when use_trivialization=False."
            )
        with grad_mode.no_grad():
            target = Q.mT if Q.shape[-2] < Q.shape[-1] else Q
            n, k = target.shape[-2], target.shape[-1]
            if n != k:  # complete to n x n with random columns, then orthogonalise
                extra = random.randn(*target.shape[:-2], n, n - k, dtype=Q.dtype,
                                        device=Q.device)  # fmt: skip
                base = _make_orthogonal(F.cat([target, extra], dim=-1))
            elif _is_orthogonal(target):
                base = target.clone()
            else:
                base = _make_orthogonal(target)
            self.base = base
            neg_eye = factories.zeros_like(Q)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye


def _householder_map(X: Tensor) -> Tensor:  # noqa: N803
    """The tall orthogonal Q made of the reflectors below X's diagonal (each column with an
    implied 1 on the diagonal, tau = 2 / |v|^2 making each reflector exact), with its
    columns' signs from X's diagonal (+-1: the part assignment sets; not differentiated)."""
    V = X.tril(diagonal=-1)
    tau = 2.0 / (1.0 + (V * V).sum(dim=-2))
    Q = linalg.householder_product(V, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)


def _householder_inverse(Q: Tensor) -> Tensor:  # noqa: N803
    """The X whose Householder map is ``Q`` (made orthogonal): Q's reflectors from its QR
    (geqrf), with the diagonal holding the signs that keep R's diagonal positive."""
    transposed = Q.shape[-2] < Q.shape[-1]
    with grad_mode.no_grad():
        X, tau = _linalg_names.geqrf(Q.mT if transposed else Q)
        signs = X.diagonal(dim1=-2, dim2=-1).sign()
        signs = F.where(tau == 0.0, -signs, signs)  # no reflection taken: the other sign
        X.diagonal(dim1=-2, dim2=-1).copy_(signs)
    return X.mT if transposed else X


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:  # fmt: skip
    """Parametrize the matrix (or batch of matrices) ``module.<name>`` to stay orthogonal
    (orthonormal rows or columns, whichever are fewer). ``orthogonal_map``: "matrix_exp"
    (the default for square ones), "householder" (the default for others) or "cayley"."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
