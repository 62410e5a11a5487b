"""Multivariate normal with a low-rank plus diagonal covariance W W^T + diag(D)."""

from __future__ import annotations

import math
from typing import Any

from .. import functional as F
from .. import linalg
from .._tensor import Size, Tensor
from ..factories import eye
from . import constraints
from .distribution import Distribution
from .multivariate_normal import batch_mahalanobis
from .utils import lazy_property, standard_normal


def capacitance_tril(W: Tensor, D: Tensor) -> Tensor:
    """The Cholesky factor of the capacitance matrix I + W^T D^-1 W (m x m for W n x m):
    the small matrix through which the Woodbury identity inverts W W^T + D."""
    m = W.shape[-1]
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    K = Wt_Dinv @ W + eye(m, dtype=W.dtype, device=W.device)
    return linalg.cholesky(K)


def lowrank_logdet(W: Tensor, D: Tensor, cap_tril: Tensor) -> Tensor:
    """log det(W W^T + D) = log det(capacitance) + log det(D) (matrix determinant lemma)."""
    return 2 * cap_tril.diagonal(0, -2, -1).log().sum(-1) + D.log().sum(-1)


def lowrank_mahalanobis(W: Tensor, D: Tensor, x: Tensor, cap_tril: Tensor) -> Tensor:
    """x^T (W W^T + D)^-1 x by the Woodbury identity:
    x^T D^-1 x - |C^-1 W^T D^-1 x|^2 with C the capacitance's Cholesky factor."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = (Wt_Dinv @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / D).sum(-1) - batch_mahalanobis(cap_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """LowRankMultivariateNormal(loc, cov_factor W (n x m), cov_diag D (n)): a normal with
    covariance W W^T + diag(D); log_prob and entropy cost O(n m^2) through the m x m
    capacitance matrix instead of O(n^3)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(
                f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m"
            )
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {Size(event_shape)}")
        try:
            loc_, self.cov_factor, cov_diag_ = F.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = capacitance_tril(cov_factor, cov_diag)
        batch_shape = tuple(self.loc.shape[:-1])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> LowRankMultivariateNormal:
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self._event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return self._expanded(new, batch_shape)

    def _full(self, matrix: Tensor) -> Tensor:
        """An n x n matrix expanded over the batch."""
        n = self._event_shape[0]
        return matrix.expand(tuple(self._batch_shape) + (n, n))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (W.pow(2).sum(-1) + D).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self) -> Tensor:
        """D^(1/2) chol(I + D^(-1/2) W W^T D^(-1/2)): a Cholesky factor of the covariance
        that stays accurate when D is much smaller than W W^T."""
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        n = self._event_shape[0]
        sqrt_D = D.sqrt().unsqueeze(-1)
        scaled = W / sqrt_D
        K = scaled @ scaled.mT + eye(n, dtype=W.dtype, device=W.device)
        return self._full(sqrt_D * linalg.cholesky(K))

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return self._full(W @ W.mT + D.diag_embed())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """D^-1 - D^-1 W C^-1 W^T D^-1 (the Woodbury identity), C the capacitance."""
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        A = linalg.solve_triangular(self._capacitance_tril, W.mT / D.unsqueeze(-2), upper=False)
        return self._full(D.reciprocal().diag_embed() - A.mT @ A)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """loc + W eps_m + sqrt(D) eps_n: differentiable in all three parameters."""
        shape = tuple(self._extended_shape(sample_shape))
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        eps_W = standard_normal(shape[:-1] + tuple(W.shape[-1:]), self.loc)
        eps_D = standard_normal(shape, self.loc)
        return self.loc + (W @ eps_W.unsqueeze(-1)).squeeze(-1) + D.sqrt() * eps_D

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        diff = value - self.loc
        M = lowrank_mahalanobis(W, D, diff, self._capacitance_tril)
        log_det = lowrank_logdet(W, D, self._capacitance_tril)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + log_det + M)

    def entropy(self) -> Tensor:
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        log_det = lowrank_logdet(W, D, self._capacitance_tril)
        n = self._event_shape[0]
        H = 0.5 * (n * (1.0 + math.log(2 * math.pi)) + log_det)
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
