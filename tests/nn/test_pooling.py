"""AvgPool1d/2d and AdaptiveAvgPool1d/2d: PyTorch's outputs, gradients and reprs, integer
inputs, devices and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn

from .torch_parity import assert_module_matches


@pytest.fixture
def pt() -> object:
    """PyTorch, where installed (the tests that compare with it skip without it)."""
    return pytest.importorskip("torch")


POOLS = [
    ("AvgPool1d", (3,), {}, (2, 3, 8)),
    ("AvgPool1d", (4, 2, 2), dict(ceil_mode=True, count_include_pad=False), (2, 2, 9)),
    ("AvgPool1d", (2,), dict(stride=1, padding=1), (3, 5)),  # unbatched
    ("AvgPool2d", (2,), {}, (2, 3, 6, 5)),
    ("AvgPool2d", ((3, 2), (2, 1), (1, 1)), dict(ceil_mode=True), (1, 2, 6, 5)),
    ("AvgPool2d", (3, 2, 1), dict(ceil_mode=True, count_include_pad=False), (2, 1, 7, 6)),
    ("AvgPool2d", (2,), dict(stride=1, divisor_override=3), (2, 4, 4)),
    ("AvgPool3d", (2,), {}, (2, 2, 4, 5, 4)),
    ("AvgPool3d", ((3, 2, 2), (2, 1, 2), (1, 0, 1)), dict(ceil_mode=True), (1, 2, 5, 3, 4)),
    (
        "AvgPool3d",
        (2, 1),
        dict(count_include_pad=False, padding=1, divisor_override=None),
        (2, 3, 3, 2),
    ),  # unbatched
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 8)),
    ("AdaptiveAvgPool1d", (6,), {}, (2, 4)),
    ("AdaptiveAvgPool2d", ((2, 3),), {}, (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d", ((None, 4),), {}, (1, 2, 3, 9)),
    ("AdaptiveAvgPool2d", (1,), {}, (2, 3, 5, 5)),
    ("AdaptiveAvgPool3d", ((2, 3, 1),), {}, (2, 3, 5, 7, 3)),
    ("AdaptiveAvgPool3d", ((None, 4, None),), {}, (1, 2, 3, 5, 2)),
    ("AdaptiveAvgPool3d", (2,), {}, (2, 3, 4, 5)),  # unbatched
    ("LPPool1d", (2, 3), {}, (2, 3, 8)),
    ("LPPool1d", (4, 2, 1), dict(ceil_mode=True), (3, 7)),  # unbatched
    ("LPPool2d", (2, (2, 3), (1, 2)), {}, (2, 3, 5, 7)),
    ("LPPool2d", (3, 2), dict(ceil_mode=True), (1, 2, 5, 5)),  # nan where a sum is < 0
    ("LPPool3d", (2, 2), {}, (2, 2, 4, 4, 5)),
]


@pytest.mark.parametrize("cls, args, kwargs, shape", POOLS)
def test_pool_matches_pytorch(
    pt: object, cls: str, args: tuple, kwargs: dict, shape: tuple
) -> None:
    ours, theirs = getattr(nn, cls)(*args, **kwargs), getattr(pt.nn, cls)(*args, **kwargs)
    a = np.random.default_rng(0).standard_normal(shape)
    assert_module_matches(pt, ours, theirs, a, rtol=1e-12, atol=1e-14)
    assert repr(ours) == repr(theirs)


def test_avg_pool_of_integers_truncates_as_pytorch(pt: object) -> None:
    a = np.arange(-7, 9).reshape(1, 2, 8)
    for kwargs in (dict(kernel_size=3), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)):
        ours = nn.functional.avg_pool1d(torch.tensor(a), **kwargs)
        theirs = pt.nn.functional.avg_pool1d(pt.tensor(a), **kwargs)
        assert ours.dtype is torch.int64
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "kwargs",
    [dict(kernel_size=3), dict(kernel_size=2, divisor_override=3),
     dict(kernel_size=3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)],
)  # fmt: skip
def test_avg_pool_of_float16_is_summed_in_float32_as_pytorch(pt: object, kwargs: dict) -> None:
    """float16 windows summed and divided in float32, rounded once: bit for bit PyTorch's
    values (the float16 sums were off in a third of the entries). The gradients too, but
    where windows overlap, which PyTorch adds up in float16 and microtorch in float32."""
    x = (np.random.default_rng(1).standard_normal((2, 3, 9, 8)) * 3).astype(np.float16)
    results = []
    for lib in (torch, pt):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.avg_pool2d(t, **kwargs)
        (y * y.detach()).sum().backward()
        results.append((y.detach().numpy(), t.grad.numpy()))
    (y, grad), (their_y, their_grad) = results
    assert y.dtype == grad.dtype == np.float16
    np.testing.assert_array_equal(y, their_y)
    if kwargs.get("stride", kwargs["kernel_size"]) >= kwargs["kernel_size"]:  # no overlap
        np.testing.assert_array_equal(grad, their_grad)
    np.testing.assert_allclose(grad, their_grad, rtol=2e-3, atol=1e-3)


def test_pools_on_device_match_cpu(device: str) -> None:
    x = torch.randn(2, 3, 7, 6)
    for pool in (nn.AvgPool2d(3, 2, 1, ceil_mode=True), nn.AdaptiveAvgPool2d((4, 5))):
        xc = x.detach().clone().requires_grad_(True)
        xd = x.to(device).detach().requires_grad_(True)
        y, yd = pool(xc), pool(xd)
        assert yd.device.type == device
        np.testing.assert_allclose(
            yd.detach().cpu().numpy(), y.detach().numpy(), rtol=1e-5, atol=1e-6
        )
        (y * y).sum().backward()
        (yd * yd).sum().backward()
        np.testing.assert_allclose(xd.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_pool_errors() -> None:
    F = nn.functional
    with pytest.raises(NotImplementedError, match="lp_pool2d: norm_type=inf is max pooling"):
        F.lp_pool2d(torch.ones(1, 1, 4, 4), float("inf"), 2)  # max pooling: an exercise
    with pytest.raises(RuntimeError, match="avg_pool2d: pad should be at most half"):
        F.avg_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match="output size .* is too small"):
        F.avg_pool1d(torch.ones(1, 1, 3), 5)
    with pytest.raises(RuntimeError, match=r"avg_pool1d: expected 2-D .* but got input of size"):
        F.avg_pool1d(torch.ones(3), 2)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(torch.ones(1, 1, 4, 4), 2, divisor_override=0)
    with pytest.raises(TypeError, match="'divisor_override' must be int"):  # as in PyTorch
        F.avg_pool2d(torch.ones(1, 1, 4, 4), 2, divisor_override=2.5)
    with pytest.raises(NotImplementedError, match="adaptive_avg_pool1d"):
        F.adaptive_avg_pool1d(torch.ones(1, 2, 4, dtype=torch.int64), 2)
    with pytest.raises(RuntimeError, match="non-empty input"):
        F.adaptive_avg_pool2d(torch.ones(1, 2, 0, 3), 2)
    assert tuple(F.adaptive_avg_pool1d(torch.ones(2, 3, 4), 0).shape) == (2, 3, 0)  # as PyTorch


def test_adaptive_avg_pool1d_refuses_none_as_pytorch() -> None:
    # None keeps a dim's size in adaptive_avg_pool2d only; the 1-d pool returned its input
    F = nn.functional
    for size in (None, (None,)):
        with pytest.raises(TypeError, match="output_size"):
            F.adaptive_avg_pool1d(torch.ones(1, 2, 5), size)
    assert tuple(F.adaptive_avg_pool2d(torch.ones(1, 2, 5, 4), (None, 2)).shape) == (1, 2, 5, 2)
    pt = pytest.importorskip("torch")
    for size in (None, (None,)):
        with pytest.raises(TypeError, match="output_size"):
            pt.nn.functional.adaptive_avg_pool1d(pt.ones(1, 2, 5), size)


def test_pooling_refuses_the_inputs_pytorch_refuses(pt: object) -> None:
    # avg_pool3d (and lp_pool3d, which PyTorch computes through it) wants every spatial dim
    # at least the kernel's size, the padding not counted; every avg_pool wants non-empty
    # dims other than the batch; adaptive pools one output size per spatial dim
    F = nn.functional
    calls = [
        (lambda m, x: m.avg_pool3d(x, 3, padding=1), (1, 1, 2, 4, 4)),
        (lambda m, x: m.avg_pool3d(x, (1, 2, 4), stride=2, padding=(0, 0, 1)), (2, 3, 2)),
        (lambda m, x: m.avg_pool3d(x, (3, 1, 4), ceil_mode=True), (1, 2, 2, 7, 5)),
        (lambda m, x: m.lp_pool3d(x, 2, 3), (1, 2, 7, 3, 2)),
        (lambda m, x: m.avg_pool1d(x, 2), (1, 0, 4)),
        (lambda m, x: m.avg_pool2d(x, 2), (1, 0, 4, 4)),
        (lambda m, x: m.avg_pool2d(x, 2), (0, 4, 4)),  # unbatched: no dim may be empty
        (lambda m, x: m.avg_pool3d(x, 1), (1, 1, 0, 4, 4)),
        (lambda m, x: m.adaptive_avg_pool3d(x, (2, 2)), (1, 2, 4, 4, 4)),
        (lambda m, x: m.adaptive_avg_pool2d(x, (2, 2, 2)), (1, 2, 4, 4)),
    ]
    for call, shape in calls:
        with pytest.raises(RuntimeError):
            call(pt.nn.functional, pt.ones(shape))
        with pytest.raises(RuntimeError, match=r"pool\dd"):
            call(F, torch.ones(shape))
    # what still works: a 3-d window that fits, a 2-d one that fits only with the padding,
    # an empty batch
    for call, shape in [
        (lambda m, x: m.avg_pool3d(x, 3, padding=1), (1, 1, 3, 4, 4)),
        (lambda m, x: m.avg_pool2d(x, 3, padding=1), (1, 1, 2, 4)),
        (lambda m, x: m.avg_pool3d(x, 2), (0, 2, 4, 4, 4)),
    ]:
        a = np.random.default_rng(0).standard_normal(shape)
        ours, theirs = call(F, torch.tensor(a)), call(pt.nn.functional, pt.tensor(a))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)
