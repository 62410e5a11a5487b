"""LKJ distribution over Cholesky factors of correlation matrices."""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes
from .. import functional as F
from .._tensor import Size, Tensor
from ..autograd import grad_mode
from ..factories import arange
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all, standard_normal


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration=eta): the Cholesky factor L of a dim x dim
    correlation matrix C = L L^T with density proportional to det(C)^(eta - 1)
    (eta = 1: uniform over correlation matrices). Draws use the onion method: row i of L
    is sqrt(y_i) times a uniform direction in its first i entries, y_i ~ Beta, and the
    diagonal entry makes the row's length 1. No rsample, as in PyTorch."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        c = self.concentration
        marginal = c + 0.5 * (dim - 2)
        steps = arange(dim - 1, dtype=c.dtype, device=c.device)
        offset = F.cat([steps.new_zeros((1,)), steps])  # 0, 0, 1, ..., dim - 2
        # row i (i entries left of the diagonal) has squared length y_i ~
        # Beta(i / 2, marginal - (i - 1) / 2); row 0 is e_0, its Beta a placeholder.
        # (PyTorch 2.13 takes i - 1/2 for the first parameter, which makes rows 2 and
        # below too strongly correlated: see the test of the marginals.)
        half_rows = (arange(dim, dtype=c.dtype, device=c.device) / 2).clamp(min=0.5)
        self._beta = Beta(half_rows, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(c.shape, (dim, dim), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> LKJCholesky:
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        return self._expanded(new, batch_shape)

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        with grad_mode.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            normal = standard_normal(self._extended_shape(sample_shape), y).tril(-1)
            norms = normal.pow(2).sum(-1, keepdim=True).sqrt()
            directions = F.where(norms > 0, normal / norms, 0.0)  # row 0 has no entries
            w = y.sqrt() * directions
            tiny = dtypes.finfo(w.dtype).tiny
            diagonal = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return w + diagonal.diag_embed()

    def log_prob(self, value: Tensor) -> Tensor:
        """sum_i (2 (eta - 1) + dim - i) log L_ii over rows i = 2..dim, minus the log
        normaliser."""
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(0, -2, -1)[..., 1:]
        rows = arange(2, self.dim + 1, dtype=value.dtype, device=value.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - rows
        unnormalized = (order * diagonal.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + F.mvlgamma(alpha - 0.5, dm1)
        return unnormalized - (normalizer - alpha.lgamma() * dm1)
