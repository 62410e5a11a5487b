"""Multivariate normal distribution, given by its covariance matrix, its precision matrix
or the lower Cholesky factor of its covariance (``scale_tril``)."""

from __future__ import annotations

import math
from typing import Any

from .. import functional as F
from .. import linalg
from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, standard_normal


def batch_mahalanobis(L: Tensor, x: Tensor) -> Tensor:
    """x^T (L L^T)^-1 x over the last dimension: |y|^2 with L y = x (batches broadcast)."""
    n = x.shape[-1]
    batch = F.broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1]))
    L = L.expand(tuple(batch) + (n, n))
    x = x.expand(tuple(batch) + (n,))
    y = linalg.solve_triangular(L, x.unsqueeze(-1), upper=False).squeeze(-1)
    return y.pow(2).sum(-1)


def half_log_det(L: Tensor) -> Tensor:
    """log det(L L^T) / 2 = sum log diag(L), for a lower-triangular L with positive diagonal."""
    return L.diagonal(0, -2, -1).log().sum(-1)


class MultivariateNormal(Distribution):
    """MultivariateNormal(loc, covariance_matrix=S | precision_matrix=P | scale_tril=L):
    density exp(-(x - loc)^T S^-1 (x - loc) / 2) / sqrt((2 pi)^n det S), S = P^-1 = L L^T.
    loc's last dimension is the event; batches of loc and the matrix broadcast."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        (matrix,) = given
        if matrix.dim() < 2:
            which = (
                "scale_tril" if scale_tril is not None
                else "covariance_matrix" if covariance_matrix is not None
                else "precision_matrix"
            )  # fmt: skip
            raise ValueError(
                f"{which} matrix must be at least two-dimensional, with optional leading "
                "batch dimensions"
            )
        batch_shape = F.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        matrix = matrix.expand(tuple(batch_shape) + (-1, -1))
        if scale_tril is not None:
            self.scale_tril = matrix
        elif covariance_matrix is not None:
            self.covariance_matrix = matrix
        else:
            self.precision_matrix = matrix
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(precision_matrix))

    def expand(self, batch_shape: tuple, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self._event_shape)
        cov_shape = loc_shape + tuple(self._event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(cov_shape)
        return self._expanded(new, batch_shape)

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return linalg.inv(L @ L.mT).expand(self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        shape = tuple(self._batch_shape) + tuple(self._event_shape)
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(shape)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """loc + L eps with eps standard normal: differentiable in loc and the matrix."""
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        L = self._unbroadcasted_scale_tril
        m = batch_mahalanobis(L, value - self.loc)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + m) - half_log_det(L)

    def entropy(self) -> Tensor:
        n = self._event_shape[0]
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + half_log_det(self._unbroadcasted_scale_tril)
        return h.expand(self._batch_shape) if len(self._batch_shape) else h
