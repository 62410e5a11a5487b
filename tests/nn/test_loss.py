"""The regression, binary and KL losses (nn.functional and their modules): NumPy reference
values, gradients against finite differences, PyTorch parity where it is installed, and
errors. (Cross-entropy and NLL have their own tests in test_ops and test_layers.)"""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch import nn
from microtorch.autograd import gradcheck
from microtorch.nn import functional as F

RNG = np.random.default_rng(0)
X, Y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
P, T = 1 / (1 + np.exp(-X)), RNG.random((3, 4))  # probabilities and soft targets


def _t(a, grad: bool = False, device: str = "cpu") -> microtorch.Tensor:
    return microtorch.tensor(a, dtype=microtorch.float64, device=device, requires_grad=grad)


def _np_smooth_l1(d, beta):
    d = np.abs(d)
    return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def _np_bce(p, t):
    return -(t * np.maximum(np.log(p), -100) + (1 - t) * np.maximum(np.log(1 - p), -100))


CASES = {
    "l1": (lambda x, y: F.l1_loss(x, y, reduction="none"), X, Y, np.abs(X - Y)),
    "smooth_l1": (
        lambda x, y: F.smooth_l1_loss(x, y, reduction="none", beta=0.5),
        X, Y, _np_smooth_l1(X - Y, 0.5),
    ),
    "huber": (
        lambda x, y: F.huber_loss(x, y, reduction="none", delta=0.5),
        X, Y, 0.5 * _np_smooth_l1(X - Y, 0.5),
    ),
    "bce": (lambda p, t: F.binary_cross_entropy(p, t, reduction="none"), P, T, _np_bce(P, T)),
    "bce_with_logits": (
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"),
        X, T, _np_bce(P, T),
    ),
    "kl_div": (
        lambda logq, p: F.kl_div(logq, p, reduction="none"),
        np.log(P), T, T * (np.log(T) - np.log(P)),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients(name: str, device: str) -> None:
    fn, a, b, expected = CASES[name]
    out = fn(_t(a, device=device), _t(b, device=device))
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-10, atol=1e-12)
    assert gradcheck(fn, [_t(a, grad=True), _t(b, grad=True)])


def test_reductions_and_modules() -> None:
    x, y = _t(X), _t(Y)
    assert F.l1_loss(x, y).item() == pytest.approx(np.abs(X - Y).mean())
    assert F.l1_loss(x, y, reduction="sum").item() == pytest.approx(np.abs(X - Y).sum())
    assert nn.L1Loss()(x, y).item() == pytest.approx(np.abs(X - Y).mean())
    assert nn.SmoothL1Loss(beta=0.5)(x, y).item() == pytest.approx(_np_smooth_l1(X - Y, 0.5).mean())
    assert nn.SmoothL1Loss(beta=0.0)(x, y).item() == pytest.approx(np.abs(X - Y).mean())
    assert nn.HuberLoss(delta=2.0)(x, y).item() == pytest.approx(
        2.0 * _np_smooth_l1(X - Y, 2.0).mean()
    )
    w = _t(RNG.random((3, 4)))
    assert nn.BCELoss(weight=w)(_t(P), _t(T)).item() == pytest.approx(
        (w.numpy() * _np_bce(P, T)).mean()
    )
    assert nn.BCEWithLogitsLoss(reduction="sum")(x, _t(T)).item() == pytest.approx(
        _np_bce(P, T).sum()
    )
    kl = nn.KLDivLoss(reduction="batchmean")(_t(np.log(P)), _t(T)).item()
    assert kl == pytest.approx((T * (np.log(T) - np.log(P))).sum() / 3)


def test_binary_cross_entropy_edges_as_in_pytorch() -> None:
    # a certainty that is wrong costs 100 (the log is clamped), and its gradient is finite
    p = _t([0.0, 1.0, 0.5], grad=True)
    loss = F.binary_cross_entropy(p, _t([1.0, 0.0, 1.0]), reduction="none")
    assert loss.tolist()[:2] == [100.0, 100.0]
    loss.sum().backward()
    assert np.isfinite(p.grad.numpy()).all()
    # on logits: no overflow for large ones, and the gradient at 0 is sigmoid(0) - y
    x = _t([0.0, 800.0, -800.0], grad=True)
    y = _t([1.0, 0.0, 1.0])
    out = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    assert out.tolist() == pytest.approx([np.log(2), 800.0, 800.0])
    out.sum().backward()
    assert x.grad.tolist() == pytest.approx([-0.5, 1.0, -1.0])
    pos = F.binary_cross_entropy_with_logits(_t([0.0]), _t([1.0]), pos_weight=_t([3.0]))
    assert pos.item() == pytest.approx(3 * np.log(2))


def test_kl_div_with_zero_targets_and_log_targets() -> None:
    logq = _t(np.log([0.5, 0.25, 0.25]))
    assert F.kl_div(logq, _t([1.0, 0.0, 0.0]), reduction="sum").item() == pytest.approx(np.log(2))
    log_p = _t(np.log([0.5, 0.5, 1e-9]))
    same = F.kl_div(logq, log_p, reduction="sum", log_target=True).item()
    assert same == pytest.approx(F.kl_div(logq, log_p.exp(), reduction="sum").item())
    with pytest.warns(UserWarning, match="'batchmean' divides by the batch size only"):
        F.kl_div(logq, _t([1.0, 0.0, 0.0]))


def test_loss_errors_say_what_is_wrong() -> None:
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(_t([1.5]), _t([1.0]))
    with pytest.raises(
        ValueError, match=r"target of shape \(2,\) must have the same shape as input \(3,\)"
    ):
        F.binary_cross_entropy_with_logits(_t([0.0, 0.0, 0.0]), _t([1.0, 0.0]))
    with pytest.raises(RuntimeError, match="floating point of one dtype.*int64"):
        F.binary_cross_entropy_with_logits(_t([0.0]), microtorch.tensor([1]))
    with pytest.raises(RuntimeError, match="beta must not be negative"):
        F.smooth_l1_loss(_t([0.0]), _t([1.0]), beta=-1.0)
    with pytest.raises(RuntimeError, match="delta must be positive"):
        F.huber_loss(_t([0.0]), _t([1.0]), delta=0.0)
    with pytest.warns(UserWarning, match="they broadcast together"):
        F.l1_loss(_t(np.zeros((3, 1))), _t(np.zeros(3)))


def test_losses_match_pytorch() -> None:
    pt = pytest.importorskip("torch")
    pos_weight = RNG.random(4) + 0.5
    calls = [
        ("l1_loss", X, Y, {}),
        ("smooth_l1_loss", X, Y, {"beta": 0.3}),
        ("huber_loss", X, Y, {"delta": 0.7}),
        ("binary_cross_entropy", P, T, {"weight": RNG.random((3, 4))}),
        ("binary_cross_entropy_with_logits", X, T, {"pos_weight": pos_weight}),
        ("kl_div", np.log(P), T, {"reduction": "batchmean"}),
        ("kl_div", np.log(P), np.log(T), {"reduction": "sum", "log_target": True}),
    ]
    for name, a, b, options in calls:
        results = []
        for lib in (microtorch, pt):
            x = lib.tensor(a, requires_grad=True)
            y = lib.tensor(b, requires_grad=True)
            kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in options.items()}
            out = getattr(lib.nn.functional, name)(x, y, **kw)
            out.backward()
            results.append((out.item(), x.grad.numpy(), y.grad.numpy()))
        (ours, gx, gy), (theirs, tx, ty) = results
        assert ours == pytest.approx(theirs, rel=1e-10), name
        np.testing.assert_allclose(gx, tx, rtol=1e-9, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(gy, ty, rtol=1e-9, atol=1e-12, err_msg=name)
