"""autograd.functional: jacobian and vjp against closed forms and, where PyTorch is
installed, against torch.autograd.functional."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.autograd.functional import jacobian, vjp

RNG = np.random.default_rng(0)
A, W = RNG.standard_normal(3), RNG.standard_normal((2, 3))


def test_jacobians_of_closed_forms(device: str) -> None:
    x = microtorch.tensor(A, device=device)
    w = microtorch.tensor(W, device=device)
    host = lambda t: t.cpu().numpy()  # noqa: E731
    np.testing.assert_allclose(host(jacobian(lambda v: w @ v, x)), W)  # linear: J = W
    np.testing.assert_allclose(host(jacobian(lambda v: v.tanh(), x)), np.diag(1 - np.tanh(A) ** 2))
    both = jacobian(lambda u, v: u * v.sum(), (x, x))  # two inputs: one block each
    assert isinstance(both, tuple) and both[0].shape == (3, 3) and both[1].shape == (3, 3)
    np.testing.assert_allclose(host(both[1]), np.outer(A, np.ones(3)))
    outs = jacobian(lambda v: (v.exp(), v.sum()), x)  # two outputs
    assert outs[0].shape == (3, 3) and outs[1].shape == (3,)
    assert (
        host(jacobian(lambda v: microtorch.ones(2, device=device), x)).tolist() == [[0.0] * 3] * 2
    )


def test_vjp_and_its_errors() -> None:
    x = microtorch.tensor(A)
    out, g = vjp(lambda v: v**2, x, microtorch.ones(3))
    assert not out.requires_grad and np.allclose(g.numpy(), 2 * A)
    total, g = vjp(lambda v: (v**2).sum(), x)  # v left out: the output is one number
    assert total.item() == pytest.approx((A**2).sum()) and np.allclose(g.numpy(), 2 * A)
    with pytest.raises(RuntimeError, match="v can be left out only when func returns a single"):
        vjp(lambda v: v**2, x)
    with pytest.raises(RuntimeError, match="output is independent of input 1"):
        jacobian(lambda u, v: u * 2, (x, x), strict=True)
    with pytest.raises(NotImplementedError, match="no gradients of gradients"):
        jacobian(lambda v: v, x, create_graph=True)
    with pytest.raises(AttributeError, match="hessian needs gradients of gradients"):
        microtorch.autograd.functional.hessian  # noqa: B018


def test_matches_pytorch() -> None:
    pt = pytest.importorskip("torch")
    results = []
    for lib in (microtorch, pt):

        def f(u, v, lib=lib):
            return lib.softmax(u @ v.T, dim=-1), (u * v).sum()

        u, v = lib.tensor(W), lib.tensor(W[::-1].copy())
        J = lib.autograd.functional.jacobian(f, (u, v))
        _, g = lib.autograd.functional.vjp(f, (u, v), (lib.ones(2, 2), lib.tensor(2.0)))
        results.append([t.numpy() for block in J for t in block] + [t.numpy() for t in g])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def _errors_for_inputs_that_cannot_require_grad(T) -> list:
    from_module = T.autograd.functional
    calls = [
        lambda: from_module.jacobian(lambda a: a * 2, T.tensor([1, 2])),
        lambda: from_module.jacobian(lambda a: a * 2, T.tensor([True])),
        lambda: from_module.vjp(lambda a: a * 2, T.tensor([1, 2]), T.ones(2)),
        lambda: from_module.jacobian(lambda a: a * 2, 3.0),
    ]
    seen = []
    for call in calls:
        try:
            call()
        except (RuntimeError, TypeError) as error:
            seen.append(type(error).__name__)
    return seen


def test_integer_and_non_tensor_inputs_raise_pytorchs_error_types() -> None:
    seen = _errors_for_inputs_that_cannot_require_grad(microtorch)
    assert seen == ["RuntimeError"] * 3 + ["TypeError"]
    with pytest.raises(RuntimeError, match=r"inputs\[0\] is microtorch.int64.*\.float\(\)"):
        jacobian(lambda a: a * 2, microtorch.tensor([1, 2]))
    torch = pytest.importorskip("torch")
    assert _errors_for_inputs_that_cannot_require_grad(torch) == seen


def _structure_checks(T) -> list:
    """What jacobian and vjp make of lists, miscounted v's and their speed options."""
    af, x = T.autograd.functional, T.tensor(A)
    calls = [
        lambda: af.vjp(lambda u: (u * 2, u * 3), x, (T.ones(3),)),  # one v for two outputs
        lambda: af.vjp(lambda u: (u * 2, u * 3), x, [T.ones(3), T.ones(3)]),  # a list
        lambda: af.jacobian(lambda u, v: u * v, [x, x]),
        lambda: af.jacobian(lambda u: [u * 2], x),
        lambda: af.jacobian(lambda u: u * 2, x, strict=True, vectorize=True),
        lambda: af.jacobian(lambda u: u * 2, x, strategy="forward-mode"),
        lambda: af.jacobian(lambda u: u * 2, x, strategy="forward-mode", vectorize=True),
        lambda: af.vjp(lambda u: (u.sum(),), x),  # v left out: one output of one element
    ]
    seen = []
    for call in calls:
        try:
            out = call()
        except (RuntimeError, TypeError) as error:
            seen.append(type(error).__name__)
        else:
            flat = out if isinstance(out, T.Tensor) else out[1]
            seen.append(flat.numpy().round(12).tolist())
    return seen


def test_tuple_structure_and_options_as_pytorch() -> None:
    seen = _structure_checks(microtorch)
    assert seen[:6] == ["RuntimeError", "TypeError", "TypeError", "TypeError", "RuntimeError",
                        "NotImplementedError"]  # fmt: skip
    assert seen[6] == (2 * np.eye(3)).tolist() and seen[7] == [1.0] * 3
    torch = pytest.importorskip("torch")
    assert _structure_checks(torch) == seen


def test_jacobian_inside_no_grad_is_the_jacobian() -> None:
    """jacobian differentiates func even when called under no_grad (it picked the output's
    elements outside the graph before, and every row came out zero)."""
    x = microtorch.tensor(A)
    with microtorch.no_grad():
        J = jacobian(lambda v: v.sin(), x)
        _, g = vjp(lambda v: v.sin(), x, microtorch.ones(3))
    np.testing.assert_allclose(J.numpy(), np.diag(np.cos(A)))
    np.testing.assert_allclose(g.numpy(), np.cos(A))
    torch = pytest.importorskip("torch")
    with torch.no_grad():
        expected = torch.autograd.functional.jacobian(lambda v: v.sin(), torch.tensor(A))
    np.testing.assert_allclose(J.numpy(), expected.numpy())
