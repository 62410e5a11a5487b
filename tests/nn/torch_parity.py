"""One check shared by the layer tests: our module and PyTorch's give the same output and
the same gradients (input and every parameter) for the same float64 input."""

from __future__ import annotations

import numpy as np

import microtorch


def assert_module_matches(pt: object, ours: object, theirs: object, a: np.ndarray,
                          rtol: float = 1e-10, atol: float = 1e-12) -> None:  # fmt: skip
    """Forward ``a`` through both, then backward the same random projection of the output."""
    x, tx = microtorch.tensor(a, requires_grad=True), pt.tensor(a, requires_grad=True)
    y, ty = ours(x), theirs(tx)
    assert tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    r = np.random.default_rng(1).standard_normal(tuple(y.shape))
    (y * microtorch.tensor(r)).sum().backward()
    (ty * pt.tensor(r)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=rtol, atol=atol)
    for (name, p), tp in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            p.grad.numpy(), tp.grad.numpy(), rtol=rtol, atol=atol, err_msg=name
        )
