"""The distributions added after the first set (Gumbel, Cauchy, HalfNormal, StudentT,
Dirichlet, Pareto, ...) against torch.distributions with the same parameters: every
quantity and its gradient, rsample gradients, sample moments and support, shapes,
expand, repr and validation errors."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch

from .test_distribution import QUANTITIES, _first_line, _np, _params, check_quantity_against_torch

torch = pytest.importorskip("torch")

D = microtorch.distributions
TD = torch.distributions

# name: (make(dists, params), parameter values, log_prob values, value dtype)
CASES = {
    "Gumbel": (lambda d, p: d.Gumbel(p[0], p[1]), [[0.5, -1.0, 2.0], [1.0, 2.0, 0.5]],
               [0.3, -2.0, 2.5], "float64"),
    "Cauchy": (lambda d, p: d.Cauchy(p[0], p[1]), [[0.5, -1.0, 2.0], [1.0, 2.0, 0.5]],
               [0.3, -2.0, 2.5], "float64"),
    "HalfNormal": (lambda d, p: d.HalfNormal(p[0]), [[1.0, 2.0, 0.5]], [0.3, 0.0, 2.5],
                   "float64"),
    "HalfCauchy": (lambda d, p: d.HalfCauchy(p[0]), [[1.0, 2.0, 0.5]], [0.3, 0.0, 2.5],
                   "float64"),
    "StudentT": (lambda d, p: d.StudentT(p[0], p[1], p[2]),
                 [[0.5, 1.5, 3.0, 8.0], [0.5, -1.0, 2.0, 0.0], [1.0, 2.0, 0.5, 1.5]],
                 [0.3, -2.0, 2.5, 0.0], "float64"),
    "StudentT-df-only": (lambda d, p: d.StudentT(p[0]), [[2.0, 5.0]], [0.3, -1.0], "float64"),
    "Chi2": (lambda d, p: d.Chi2(p[0]), [[0.5, 2.0, 5.0]], [0.3, 2.0, 1.1], "float64"),
    "Dirichlet": (lambda d, p: d.Dirichlet(p[0]), [[[0.5, 2.0, 3.0], [2.0, 1.5, 4.0]]],
                  [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], "float64"),
    "Dirichlet-below-one": (lambda d, p: d.Dirichlet(p[0]), [[0.5, 0.3, 0.8]],
                            [0.2, 0.3, 0.5], "float64"),  # the mode is a corner
    "Geometric-probs": (lambda d, p: d.Geometric(probs=p[0]), [[0.2, 0.5, 0.9, 1.0]],
                        [0.0, 3.0, 1.0, 0.0], "float64"),
    "Geometric-logits": (lambda d, p: d.Geometric(logits=p[0]), [[-1.0, 0.0, 2.0]],
                         [2.0, 0.0, 5.0], "float64"),
    "Pareto": (lambda d, p: d.Pareto(p[0], p[1]), [[1.0, 2.0, 0.5], [0.5, 1.5, 3.0]],
               [1.3, 2.0, 2.5], "float64"),
    "Weibull": (lambda d, p: d.Weibull(p[0], p[1]), [[1.0, 2.0, 0.5], [0.5, 1.5, 3.0]],
                [1.3, 2.0, 0.4], "float64"),
    "Kumaraswamy": (lambda d, p: d.Kumaraswamy(p[0], p[1]), [[0.5, 2.0, 3.0], [1.5, 0.7, 4.0]],
                    [0.3, 0.9, 0.5], "float64"),
    "InverseGamma": (lambda d, p: d.InverseGamma(p[0], p[1]), [[0.5, 1.5, 3.0], [1.0, 2.0, 0.5]],
                     [0.3, 2.0, 1.1], "float64"),
    "FisherSnedecor": (lambda d, p: d.FisherSnedecor(p[0], p[1]),
                       [[1.0, 3.0, 5.0, 10.0], [2.0, 3.0, 6.0, 12.0]], [0.3, 2.0, 1.1, 0.8],
                       "float64"),
    "LogisticNormal": (lambda d, p: d.LogisticNormal(p[0], p[1]),
                       [[[0.5, -1.0], [0.0, 1.0]], [[1.0, 2.0], [0.5, 0.3]]],
                       [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], "float64"),
    "LogisticNormal-scalar": (lambda d, p: d.LogisticNormal(p[0], p[1]), [0.5, 1.0],
                              [0.3, 0.7], "float64"),
}  # fmt: skip


@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("case", list(CASES))
def test_quantities_and_gradients_match_torch(case: str, quantity: str, device: str) -> None:
    check_quantity_against_torch(CASES[case], quantity, device)
