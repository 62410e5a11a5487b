"""nn.utils.clip_grad_norm_ and clip_grad_value_."""

from __future__ import annotations

import math

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn


def _params_with_grads(device: str = "cpu", scale: float = 1.0) -> tuple[list, list]:
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s).astype(np.float32) * scale for s in [(3, 4), (4,), (2, 2, 2)]]
    params = []
    for g in grads:
        p = nn.Parameter(torch.zeros(g.shape, device=device))
        p.grad = torch.tensor(g, device=device)
        params.append(p)
    return params, grads


def _torch_params_with(pt: object, grads: list) -> list:
    """PyTorch parameters holding copies of ``grads``."""
    tparams = [pt.zeros(g.shape, requires_grad=True) for g in grads]
    for tp, g in zip(tparams, grads):
        tp.grad = pt.from_numpy(g.copy())
    return tparams


def test_clip_grad_norm_scales_all_gradients_together(device: str) -> None:
    params, grads = _params_with_grads(device)
    total = math.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads))
    norm = nn.utils.clip_grad_norm_(params, max_norm=1.0)
    assert isinstance(norm, torch.Tensor) and norm.ndim == 0 and norm.device.type == device
    assert norm.item() == pytest.approx(total, rel=1e-6)
    coef = 1.0 / (total + 1e-6)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.cpu().numpy(), g * coef, rtol=1e-6)
    clipped = math.sqrt(
        sum(float((p.grad.cpu().numpy().astype(np.float64) ** 2).sum()) for p in params)
    )
    assert clipped == pytest.approx(1.0, rel=1e-5)


def test_clip_grad_norm_leaves_small_gradients_alone(device: str) -> None:
    params, grads = _params_with_grads(device, scale=0.01)
    norm = nn.utils.clip_grad_norm_(params, max_norm=5.0)
    assert norm.item() < 5.0
    for p, g in zip(params, grads):
        np.testing.assert_array_equal(p.grad.cpu().numpy(), g)


def test_clip_grad_norm_of_float16_and_float32_parameters_together(device: str) -> None:
    """Each gradient keeps its dtype; a float16 one is scaled by the float32 factor and
    rounded once, as in PyTorch (whose float16 math runs in float32)."""
    rng = np.random.default_rng(1)
    grads = [rng.standard_normal(1000).astype(np.float16), rng.standard_normal(10) * 10]
    params = [nn.Parameter(torch.zeros(g.size, dtype=torch.float16 if i == 0 else torch.float32,
                                       device=device)) for i, g in enumerate(grads)]  # fmt: skip
    for p, g in zip(params, grads):
        p.grad = torch.tensor(g, device=device).to(p.dtype)
    norm = nn.utils.clip_grad_norm_(params, max_norm=1.0)
    assert [p.grad.dtype for p in params] == [torch.float16, torch.float32]
    coef = np.float32(1.0) / (np.float32(norm.item()) + np.float32(1e-6))
    expected = (grads[0].astype(np.float32) * coef).astype(np.float16)
    np.testing.assert_array_equal(params[0].grad.cpu().numpy(), expected)


def _norm_dtypes_and_clipped_float16(T, device: str = "cpu") -> list:
    grads = [np.array([100.0, 200.0, 300.0]), np.array([[1.5, -2.0]])]
    seen = []
    for dtypes in (("float16", "float16"), ("float16", "float32"), ("float64", "float16")):
        params = [T.zeros(g.shape, dtype=getattr(T, d), device=device, requires_grad=True)
                  for g, d in zip(grads, dtypes)]  # fmt: skip
        for p, g in zip(params, grads):
            p.grad = T.tensor(g, dtype=p.dtype, device=device)
        for norm_type in (2.0, math.inf):
            norm = T.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type)
            seen.append((str(norm.dtype).rpartition(".")[2], norm.item()))
        seen.append(params[0].grad.cpu().tolist())
    return seen


def test_the_norm_is_in_the_gradients_common_dtype_as_in_pytorch(device: str) -> None:
    """float16 gradients alone: a float16 norm, so the scale factor is float16 too."""
    seen = _norm_dtypes_and_clipped_float16(torch, device)
    assert [dtype for dtype, _ in seen[0:2] + seen[3:5] + seen[6:8]] == [
        "float16", "float16", "float32", "float32", "float64", "float64"
    ]  # fmt: skip
    assert seen[0][1] == 374.25  # sqrt(140006.25) = 374.17, rounded to float16
    pt = pytest.importorskip("torch")
    expected = _norm_dtypes_and_clipped_float16(pt)
    for mine, theirs in zip(seen, expected):
        if isinstance(mine, tuple):
            assert mine[0] == theirs[0] and mine[1] == pytest.approx(theirs[1], rel=1e-6)
        else:
            np.testing.assert_allclose(mine, theirs, rtol=1e-3)


def test_a_nan_norm_makes_every_gradient_nan_as_in_pytorch(device: str) -> None:
    """Not silently left unclipped: PyTorch multiplies by max_norm / (nan + eps) = nan."""
    params, _ = _params_with_grads(device)
    params[0].grad = torch.full_like(params[0].grad, float("nan"))
    norm = nn.utils.clip_grad_norm_(params, max_norm=1.0)
    assert math.isnan(norm.item())
    assert all(np.isnan(p.grad.cpu().numpy()).all() for p in params)


def test_clip_grad_norm_other_norms_and_edge_cases() -> None:
    params, grads = _params_with_grads()
    norm = nn.utils.clip_grad_norm_(params, max_norm=100.0, norm_type=math.inf)
    assert norm.item() == pytest.approx(max(np.abs(g).max() for g in grads))
    norm = nn.utils.clip_grad_norm_(params, max_norm=100.0, norm_type=1)
    assert norm.item() == pytest.approx(sum(np.abs(g).sum() for g in grads), rel=1e-6)
    norm = nn.utils.clip_grad_norm_(params, max_norm=100.0, norm_type=-math.inf)
    assert norm.item() == pytest.approx(min(np.abs(g).min() for g in grads))  # the smallest
    single = nn.Parameter(torch.zeros(2))
    single.grad = torch.tensor([3.0, 4.0])
    assert nn.utils.clip_grad_norm_(single, 1.0).item() == pytest.approx(5.0)
    np.testing.assert_allclose(single.grad.numpy(), [0.6, 0.8], rtol=1e-5)
    assert nn.utils.clip_grad_norm_([nn.Parameter(torch.zeros(2))], 1.0).item() == 0.0
    # norm_type 0, as in PyTorch: the 0-"norm" of the gradients' 0-"norms", which is how many
    # gradients are not all zero
    params[0].grad.zero_()
    assert nn.utils.clip_grad_norm_(params, max_norm=100.0, norm_type=0).item() == 2.0
    bad = nn.Parameter(torch.zeros(2))
    bad.grad = torch.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([bad], 1.0, error_if_nonfinite=True)


def test_clip_grad_norm_matches_pytorch() -> None:
    pt = pytest.importorskip("torch")
    params, grads = _params_with_grads(scale=3.0)
    tparams = _torch_params_with(pt, grads)
    params[1].grad.zero_()  # (a gradient of zeros: the "0-norm" counts the others)
    tparams[1].grad.zero_()
    for norm_type in (2.0, math.inf, 0.0, 3.0, -math.inf, -2.0, 0.5):
        ours = nn.utils.clip_grad_norm_(params, 0.5, norm_type=norm_type)
        theirs = pt.nn.utils.clip_grad_norm_(tparams, 0.5, norm_type=norm_type)
        assert ours.item() == pytest.approx(theirs.item(), rel=1e-6)
        for p, tp in zip(params, tparams):
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-6, atol=1e-7)


def _norms_of_no_gradients(T) -> list:
    previous = T.get_default_dtype()
    seen = []
    try:
        for default in (T.float32, T.float64):
            T.set_default_dtype(default)
            no_grad_yet = T.nn.Parameter(T.zeros(2))
            for norm in (T.nn.utils.clip_grad_norm_([], 1.0),
                         T.nn.utils.clip_grad_norm_([no_grad_yet], 1.0)):  # fmt: skip
                seen.append((norm.item(), norm.dtype == default))
    finally:
        T.set_default_dtype(previous)
    return seen


def test_the_norm_of_no_gradients_is_0_in_the_default_dtype_as_in_pytorch() -> None:
    assert _norms_of_no_gradients(torch) == [(0.0, True)] * 4
    pt = pytest.importorskip("torch")
    assert _norms_of_no_gradients(pt) == [(0.0, True)] * 4


def test_clip_grad_value(device: str) -> None:
    params, grads = _params_with_grads(device)
    nn.utils.clip_grad_value_(params, 0.5)
    for p, g in zip(params, grads):
        np.testing.assert_array_equal(p.grad.cpu().numpy(), np.clip(g, -0.5, 0.5))


def test_get_total_norm_and_clip_grads_with_norm_are_clip_grad_norm_in_two_steps(
    device: str,
) -> None:
    params, grads = _params_with_grads(device, scale=2.0)
    total = nn.utils.get_total_norm([p.grad for p in params], norm_type=3.0)
    expected = sum(float((np.abs(g.astype(np.float64)) ** 3).sum()) for g in grads) ** (1 / 3)
    assert total.ndim == 0 and total.item() == pytest.approx(expected, rel=1e-6)
    assert nn.utils.clip_grads_with_norm_(params, 1.0, total) is None
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.cpu().numpy(), g / (total.item() + 1e-6), rtol=1e-5)
    # a single tensor, an empty list, and a None gradient left out
    assert nn.utils.get_total_norm(torch.tensor([3.0, 4.0], device=device)).item() == 5.0
    assert nn.utils.get_total_norm([]).item() == 0.0
    assert nn.utils.get_total_norm([None, torch.tensor([1.0, 0.0])]).item() == 1.0


def test_clip_grad_norm_without_underscore_is_deprecated_as_in_pytorch() -> None:
    params, grads = _params_with_grads(scale=3.0)
    with pytest.warns(
        FutureWarning, match="deprecated in favor of `torch.nn.utils.clip_grad_norm_`"
    ):
        norm = nn.utils.clip_grad_norm(params, 1.0)
    total = math.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads))
    assert norm.item() == pytest.approx(total, rel=1e-6)
    clipped = math.sqrt(sum(float((p.grad.numpy().astype(np.float64) ** 2).sum()) for p in params))
    assert clipped == pytest.approx(1.0, rel=1e-5)


def test_clip_grad_norm_takes_a_generator_of_parameters() -> None:
    """Walked once for the norm and once to scale: a generator must not run dry."""
    params, grads = _params_with_grads(scale=3.0)
    nn.utils.clip_grad_norm_((p for p in params), 1.0)
    assert not np.allclose(params[0].grad.numpy(), grads[0])


def test_two_step_clipping_matches_pytorch() -> None:
    pt = pytest.importorskip("torch")
    params, grads = _params_with_grads(scale=3.0)
    tparams = _torch_params_with(pt, grads)
    for norm_type in (2.0, 1.0, math.inf):
        ours = nn.utils.get_total_norm([p.grad for p in params], norm_type)
        theirs = pt.nn.utils.get_total_norm([tp.grad for tp in tparams], norm_type)
        assert ours.item() == pytest.approx(theirs.item(), rel=1e-6)
    nn.utils.clip_grads_with_norm_(params, 0.5, ours)
    pt.nn.utils.clip_grads_with_norm_(tparams, 0.5, theirs)
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-6, atol=1e-7)
