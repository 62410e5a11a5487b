"""Every case of the op table (test_ops.py) against PyTorch: the same function, written with
the PyTorch API, runs once with ``microtorch`` and once with ``torch`` on the same arrays;
outputs, output dtypes and the gradients of every input must match.

Skipped where PyTorch is not installed. Random ops (dropout) are left out: the two libraries
draw different random numbers."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
import microtorch.nn.functional as mF

from .test_ops import CASES, OpCase, as_list, make_arrays
from .torch_reference import torch_before

torch = pytest.importorskip("torch")
tF = torch.nn.functional

# cases whose gradient PyTorch computes only from a release on (older ones raise)
GRADIENT_SINCE = {"aminmax": (2, 13), "nextafter": (2, 13), "view_copies": (2, 13)}

TOLERANCE = {"float64": dict(rtol=1e-7, atol=1e-9), "float32": dict(rtol=2e-5, atol=2e-5)}


def _dtype_name(t: object) -> str:
    return str(t.dtype).rsplit(".", 1)[-1]  # torch.float32 / microtorch.float32 -> float32


def _run(case: OpCase, lib: object, F: object, arrays: list, make: object) -> tuple:
    inputs = [make(a, grad) for a, grad in arrays]
    return inputs, as_list(case.fn(lib, F, *inputs))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", [c for c in CASES if c.torch], ids=lambda c: c.name)
def test_matches_pytorch(case: OpCase, dtype: str) -> None:
    arrays = make_arrays(case, dtype)
    ours_in, ours = _run(
        case, microtorch, mF, arrays, lambda a, g: microtorch.tensor(a, requires_grad=g)
    )
    theirs_in, theirs = _run(case, torch, tF, arrays, lambda a, g: torch.tensor(a, requires_grad=g))

    assert len(ours) == len(theirs), f"{case.name}: {len(ours)} outputs, PyTorch has {len(theirs)}"
    tol = TOLERANCE[dtype]
    for i, (o, t) in enumerate(zip(ours, theirs)):
        assert tuple(o.shape) == tuple(t.shape), f"{case.name}: output {i} shape"
        assert _dtype_name(o) == _dtype_name(t), f"{case.name}: output {i} {o.dtype} vs {t.dtype}"
        np.testing.assert_allclose(
            o.detach().numpy(), t.detach().numpy(), **tol, err_msg=f"{case.name} output {i}"
        )
        assert o.requires_grad == t.requires_grad, f"{case.name}: output {i} requires_grad"

    if not case.grad:
        return
    if torch_before(GRADIENT_SINCE.get(case.name, (0, 0))):
        pytest.skip(f"{case.name}: the installed PyTorch has no gradient for it yet")
    # the same random projection of every differentiable output, summed, in both libraries
    rng = np.random.default_rng(1)
    projections = [rng.standard_normal(tuple(o.shape)).astype(dtype) for o in ours]
    ours_loss = sum(
        (o * microtorch.tensor(r)).sum() for o, r in zip(ours, projections) if o.requires_grad
    )
    theirs_loss = sum(
        (t * torch.tensor(r)).sum() for t, r in zip(theirs, projections) if t.requires_grad
    )
    ours_loss.backward()
    theirs_loss.backward()
    for i, (o, t) in enumerate(zip(ours_in, theirs_in)):
        if not t.requires_grad:
            continue
        assert (o.grad is None) == (t.grad is None), f"{case.name}: input {i} gradient presence"
        if t.grad is None:
            continue
        assert o.grad.dtype.name == _dtype_name(t.grad), f"{case.name}: input {i} grad dtype"
        np.testing.assert_allclose(
            o.grad.numpy(), t.grad.numpy(), **tol, err_msg=f"{case.name} grad of input {i}"
        )
