"""nn.utils.fusion (BatchNorm folded into the conv/linear layer before it, in eval mode) and
nn.utils.memory_format (conv weights laid out channels_last): the fused layer gives what
layer -> BatchNorm gave, with PyTorch's fused weights; PyTorch's errors for misuse."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as mt
from microtorch import nn
from microtorch.nn.utils import (
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)

RNG = np.random.default_rng(0)


def _trained_bn(bn: nn.Module, shape: tuple, device: str) -> nn.Module:
    """``bn`` with running statistics and affine weights away from their defaults."""
    with mt.no_grad():
        bn.weight.copy_(mt.tensor(RNG.uniform(0.5, 2.0, bn.num_features), device=device))
        bn.bias.copy_(mt.tensor(RNG.standard_normal(bn.num_features), device=device))
    bn.train()
    for _ in range(3):
        bn(mt.tensor(RNG.standard_normal(shape) * 3 + 1, device=device, dtype=bn.weight.dtype))
    return bn.eval()


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fuse_conv_bn_eval_matches_conv_then_bn(device: str, bias: bool, dtype: str) -> None:
    dt = getattr(mt, dtype)
    conv = nn.Conv2d(3, 4, 3, bias=bias).to(device, dt).eval()
    bn = _trained_bn(nn.BatchNorm2d(4).to(device, dt), (2, 4, 5, 5), device)
    x = mt.tensor(RNG.standard_normal((2, 3, 6, 6)), device=device, dtype=dt)
    fused = fuse_conv_bn_eval(conv, bn)
    assert fused is not conv and isinstance(fused, nn.Conv2d)
    assert fused.weight.dtype == dt and fused.bias is not None and fused.bias.dtype == dt
    assert isinstance(fused.weight, nn.Parameter) and fused.weight.requires_grad
    tol = 1e-12 if dtype == "float64" else 1e-5
    want = bn(conv(x)).detach().cpu().numpy()
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(), want, rtol=tol, atol=tol)
    assert conv.bias is None if not bias else conv.bias is not fused.bias  # conv untouched


def test_fuse_linear_bn_eval_matches_linear_then_bn(device: str) -> None:
    linear = nn.Linear(5, 3).to(device).double().eval()
    bn = _trained_bn(nn.BatchNorm1d(3).to(device).double(), (8, 3), device)
    x = mt.tensor(RNG.standard_normal((4, 5)), device=device)
    fused = fuse_linear_bn_eval(linear, bn)
    want = bn(linear(x)).detach().cpu().numpy()
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    one = _trained_bn(nn.BatchNorm1d(1).double().to(device), (8, 1), device)  # 1 feature: allowed
    x1 = x[:, None, :]  # (N, 1, 5): the BatchNorm's one channel, the features after it
    out = fuse_linear_bn_eval(linear, one)(x1).detach().cpu().numpy()
    want = one(linear(x1)).detach().cpu().numpy()
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


def test_fusion_refuses_training_mode_and_mismatched_features() -> None:
    conv, bn = nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_conv_bn_eval(conv, bn)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_conv_bn_eval(conv.eval(), bn)  # bn still training
    with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
        fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(2).eval())
    untracked = nn.BatchNorm2d(2, track_running_stats=False).eval()
    with pytest.raises(AssertionError, match="running statistics"):
        fuse_conv_bn_eval(conv.eval(), untracked)


def test_fused_weights_equal_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    w, b = RNG.standard_normal((4, 2, 3, 3)), RNG.standard_normal(4)
    rm, rv = RNG.standard_normal(4), RNG.uniform(0.1, 2.0, 4)
    bw, bb = RNG.standard_normal(4), RNG.standard_normal(4)
    for transpose, weight in ((False, w), (True, w.transpose(1, 0, 2, 3).copy())):
        for conv_b, bn_w, bn_b in ((b, bw, bb), (None, None, None)):
            ours = fuse_conv_bn_weights(*(None if a is None else mt.tensor(a) for a in
                                          (weight, conv_b, rm, rv)), 1e-3,
                                        *(None if a is None else mt.tensor(a) for a in (bn_w, bn_b)),
                                        transpose)  # fmt: skip
            theirs = torch.nn.utils.fuse_conv_bn_weights(
                *(None if a is None else torch.tensor(a) for a in (weight, conv_b, rm, rv)), 1e-3,
                *(None if a is None else torch.tensor(a) for a in (bn_w, bn_b)), transpose,
            )  # fmt: skip
            for o, t in zip(ours, theirs, strict=True):
                assert isinstance(o, nn.Parameter) and o.requires_grad == t.requires_grad
                np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-14)
    lw, lb = RNG.standard_normal((4, 6)), RNG.standard_normal(4)
    for linear_b in (lb, None):
        args = (lw, linear_b, rm, rv)
        ours = fuse_linear_bn_weights(*(None if a is None else mt.tensor(a) for a in args), 1e-5,
                                      mt.tensor(bw), mt.tensor(bb))  # fmt: skip
        theirs = torch.nn.utils.fuse_linear_bn_weights(
            *(None if a is None else torch.tensor(a) for a in args), 1e-5, torch.tensor(bw),
            torch.tensor(bb),
        )  # fmt: skip
        for o, t in zip(ours, theirs, strict=True):
            assert o.requires_grad == t.requires_grad
            np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-14)


def test_fusion_module_path() -> None:
    from microtorch.nn.utils import fusion

    assert fusion.fuse_conv_bn_eval is fuse_conv_bn_eval
    assert nn.utils.fuse_linear_bn_weights is fuse_linear_bn_weights


def test_convert_conv2d_weight_memory_format(device: str) -> None:
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Sequential(nn.Conv2d(4, 2, 2)),
                          nn.Conv1d(2, 2, 1)).to(device)  # fmt: skip
    x = mt.tensor(RNG.standard_normal((1, 3, 5, 5)), device=device, dtype=mt.float32)
    before = model[0](x).detach().cpu().numpy()
    params = list(model.parameters())
    weights = [m.weight.detach().cpu().numpy() for m in (model[0], model[2][0], model[3])]
    assert convert_conv2d_weight_memory_format(model, mt.channels_last) is model
    assert list(model.parameters()) == params  # the same Parameters, re-laid-out in place
    assert model[0].weight.is_contiguous(memory_format=mt.channels_last)
    assert not model[0].weight.is_contiguous()
    assert model[2][0].weight.stride() == (16, 1, 8, 4)  # (O, I, H, W) stored as O, H, W, I
    assert model[3].weight.stride() == (2, 1, 1)  # a Conv1d: left alone
    for w, m in zip(weights, (model[0], model[2][0], model[3]), strict=True):
        np.testing.assert_array_equal(m.weight.detach().cpu().numpy(), w)
    np.testing.assert_array_equal(model[0](x).detach().cpu().numpy(), before)
    convert_conv2d_weight_memory_format(model, mt.contiguous_format)
    assert model[0].weight.is_contiguous()
    assert convert_conv3d_weight_memory_format(model, mt.channels_last_3d) is model
    assert model[0].weight.is_contiguous()  # 2-d convolutions untouched


def test_convert_conv2d_weight_memory_format_strides_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    ours = convert_conv2d_weight_memory_format(nn.Conv2d(3, 6, (2, 3)), mt.channels_last)
    theirs = torch.nn.utils.convert_conv2d_weight_memory_format(
        torch.nn.Conv2d(3, 6, (2, 3)), torch.channels_last
    )
    assert ours.weight.stride() == theirs.weight.stride()
