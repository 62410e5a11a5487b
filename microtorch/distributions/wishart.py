"""Wishart distribution over positive-definite matrices."""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import dtypes, linalg
from .. import functional as F
from .._tensor import Size, Tensor
from ..factories import arange, eye, tensor
from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .utils import lazy_property, standard_normal


def mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma function sum_{i < p} digamma(x - i / 2), the derivative of
    mvlgamma(x, p)."""
    if not bool((x > (p - 1) / 2).all()):
        raise ValueError("Wrong domain for multivariate digamma function.")
    halves = arange(p, dtype=x.dtype, device=x.device) / 2
    return (x.unsqueeze(-1) - halves).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """Wishart(df, covariance_matrix=S | precision_matrix=S^-1 | scale_tril=L): the
    distribution of X^T X for df rows X of Normal(0, S) (df any real > p - 1 for p x p
    matrices); density det(X)^((df - p - 1)/2) exp(-tr(S^-1 X) / 2) over
    2^(df p / 2) det(S)^(df / 2) Gamma_p(df / 2).

    rsample is Bartlett's decomposition: (L A)(L A)^T with A lower triangular, sqrt of
    chi-squared draws on its diagonal and standard normals below, so it is
    differentiable in S (and in df through the chi-squared draws)."""

    support = constraints.positive_definite
    has_rsample = True

    @property
    def arg_constraints(self) -> dict:  # type: ignore[override]
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self._event_shape[-1] - 1),
        }

    def __init__(self, df: Any, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        param = given[0]
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, Tensor):
            batch_shape = tuple(F.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        else:
            batch_shape = tuple(param.shape[:-2])
            self.df = tensor(df, dtype=param.dtype, device=param.device)
        event_shape = tuple(param.shape[-2:])
        p = event_shape[-1]
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        matrix = param.expand(batch_shape + (-1, -1))
        if scale_tril is not None:
            self.scale_tril = matrix
        elif covariance_matrix is not None:
            self.covariance_matrix = matrix
        else:
            self.precision_matrix = matrix
        if bool((self.df < p).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)  # validates
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(precision_matrix))
        self._dist_chi2 = self._chi2()

    def _chi2(self) -> Chi2:
        """Chi2(df - i) for i = 0..p-1: the squared diagonal of Bartlett's factor."""
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        steps = arange(p, dtype=L.dtype, device=L.device)
        return Chi2(self.df.unsqueeze(-1) - steps.expand(tuple(self._batch_shape) + (p,)))

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Wishart:
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        matrix_shape = tuple(batch_shape) + tuple(self._event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(matrix_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(matrix_shape)
        self._expanded(new, batch_shape)
        new._dist_chi2 = new._chi2()
        return new

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """(L L^T)^-1 = L^-T L^-1."""
        L = self._unbroadcasted_scale_tril
        identity = eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(tuple(L.shape))
        L_inv = linalg.solve_triangular(L, identity, upper=False)
        return (L_inv.mT @ L_inv).expand(self._matrix_shape())

    def _df_matrix(self, values: Tensor) -> Tensor:
        """A per-batch value shaped to multiply batch_shape + (p, p) matrices."""
        return values.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self) -> Tensor:
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        """(df - p - 1) S where df > p + 1, nan otherwise."""
        factor = self.df - self._event_shape[-1] - 1
        factor = F.where(factor <= 0, float("nan"), factor)
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        """Var(X_ij) = df (S_ij^2 + S_ii S_jj)."""
        V = self.covariance_matrix
        diag = V.diagonal(0, -2, -1)
        return self._df_matrix(self.df) * (V.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _bartlett_sample(self, sample_shape: Size) -> Tensor:
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        eps = dtypes.finfo(L.dtype).eps
        diagonal = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps).diag_embed()
        shape = tuple(sample_shape) + tuple(self._batch_shape) + (p, p)
        below = standard_normal(shape, L).tril(-1)
        chol = L @ (diagonal + below)
        return chol @ chol.mT

    def rsample(self, sample_shape: tuple = Size(), max_try_correction: int | None = None
                ) -> Tensor:  # fmt: skip
        """Bartlett draws; a draw that comes out singular (possible for p - 1 < df < p) is
        drawn again, up to max_try_correction (10) times, with a warning if any is left."""
        sample_shape = Size(sample_shape)
        tries = 10 if max_try_correction is None else max_try_correction
        sample = self._bartlett_sample(sample_shape)
        for _ in range(tries):
            singular = ~self.support.check(sample.detach())
            if not bool(singular.any()):
                return sample
            mask = singular.reshape(tuple(singular.shape) + (1, 1))
            sample = F.where(mask, self._bartlett_sample(sample_shape), sample)
        if bool((~self.support.check(sample.detach())).any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
        return sample

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det_S = L.diagonal(0, -2, -1).log().sum(-1)
        batch = tuple(F.broadcast_shapes(tuple(L.shape[:-2]), tuple(value.shape[:-2])))
        L_full = L.expand(batch + (p, p))
        # tr(S^-1 X) = tr(L^-1 X L^-T): two triangular solves
        Y = linalg.solve_triangular(L_full, value.expand(batch + (p, p)), upper=False)
        Z = linalg.solve_triangular(L_full, Y.mT, upper=False)
        trace = Z.diagonal(0, -2, -1).sum(-1)
        return (
            -nu * (p * math.log(2) / 2 + half_log_det_S)
            - F.mvlgamma(nu / 2, p)
            + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
            - trace / 2
        )

    @property
    def _natural_params(self) -> tuple:
        p = self._event_shape[-1]
        return (-self.precision_matrix / 2, (self.df - p - 1) / 2)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        p = self._event_shape[-1]
        half_df = y + (p + 1) / 2
        log_det = p * math.log(2) - linalg.slogdet(-2 * x).logabsdet
        return half_df * log_det + F.mvlgamma(half_df, p)

    _mean_carrier_measure = 0

    def entropy(self) -> Tensor:
        nu = self.df
        p = self._event_shape[-1]
        half_log_det_S = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        return (
            (p + 1) * (p * math.log(2) / 2 + half_log_det_S)
            + F.mvlgamma(nu / 2, p)
            - (nu - p - 1) / 2 * mvdigamma(nu / 2, p)
            + nu * p / 2
        )
