"""Lazy modules and nn.parameter.UninitializedParameter / UninitializedBuffer: the sizes
inferred on the first forward, the switch to the ordinary class, PyTorch's outputs and
gradients after it, state_dict / load_state_dict, optimizers, dtype moves and clear errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn
from microtorch.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

from ..torch_reference import torch_before
from .torch_parity import assert_module_matches


@pytest.fixture
def pt() -> object:
    """PyTorch, where installed (the tests that compare with it skip without it)."""
    return pytest.importorskip("torch")


LAZY = [  # (lazy class, its arguments, the class it becomes, that class's arguments, input)
    ("LazyLinear", (3,), "Linear", (5, 3), (2, 5)),
    ("LazyLinear", (2, False), "Linear", (4, 2, False), (2, 3, 4)),
    ("LazyConv1d", (4, 3), "Conv1d", (2, 4, 3), (2, 2, 7)),
    ("LazyConv2d", (4, 3, 2, 1, 1, 2), "Conv2d", (6, 4, 3, 2, 1, 1, 2), (2, 6, 5, 5)),
    ("LazyConv2d", (3, 2), "Conv2d", (2, 3, 2), (2, 4, 4)),  # unbatched: in_channels = dim 0
    ("LazyConv3d", (2, 2), "Conv3d", (3, 2, 2), (1, 3, 3, 4, 3)),
    ("LazyConvTranspose1d", (4, 3, 2), "ConvTranspose1d", (2, 4, 3, 2), (2, 2, 5)),
    (
        "LazyConvTranspose2d",
        (4, 3, 2, 1, 1, 2),
        "ConvTranspose2d",
        (2, 4, 3, 2, 1, 1, 2),
        (1, 2, 3, 4),
    ),  # fmt: skip
    ("LazyConvTranspose3d", (2, 2), "ConvTranspose3d", (3, 2, 2), (3, 2, 2, 3)),  # unbatched
    ("LazyBatchNorm1d", (), "BatchNorm1d", (3,), (4, 3)),
    ("LazyBatchNorm2d", (1e-3, None), "BatchNorm2d", (2, 1e-3, None), (3, 2, 3, 2)),
    ("LazyBatchNorm3d", (), "BatchNorm3d", (2,), (2, 2, 2, 3, 2)),
    ("LazyInstanceNorm1d", (), "InstanceNorm1d", (3, 1e-5, 0.1, True, True), (2, 3, 5)),
    ("LazyInstanceNorm2d", (1e-5, 0.1, False, False), "InstanceNorm2d", (2,), (2, 2, 3, 3)),
    ("LazyInstanceNorm3d", (), "InstanceNorm3d", (2, 1e-5, 0.1, True, True), (1, 2, 2, 3, 2)),
]


@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features")
@pytest.mark.parametrize("lazy, args, cls, cls_args, shape", LAZY)
def test_lazy_module_becomes_the_ordinary_one_and_matches_pytorch(
    pt: object, lazy: str, args: tuple, cls: str, cls_args: tuple, shape: tuple
) -> None:
    ours, theirs = getattr(nn, lazy)(*args).double(), getattr(pt.nn, lazy)(*args).double()
    same_repr = "Norm" not in lazy or not torch_before((2, 13))  # (2.11's norms: no bias=)
    assert repr(ours) == repr(theirs) or not same_repr
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert all(is_lazy(p) for p in ours.parameters())
    a = np.random.default_rng(0).standard_normal(shape)
    ours(torch.tensor(a))
    theirs(pt.tensor(a))
    assert type(ours) is getattr(nn, cls) and type(theirs) is getattr(pt.nn, cls)
    # (LazyInstanceNorm2d without affine or running stats has nothing to infer: PyTorch
    # leaves num_features at 0 and warns on every call; microtorch reads it all the same)
    assert repr(ours) == repr(getattr(pt.nn, cls)(*cls_args)) or not same_repr
    assert not any(is_lazy(t) for t in list(ours.parameters()) + list(ours.buffers()))
    assert not ours._forward_pre_hooks and not hasattr(ours, "_initialize_hook")
    for p in ours.parameters():
        assert type(p) is nn.Parameter and p.dtype is torch.float64 and p.requires_grad
    # the same state in both, then the same outputs and gradients (training mode)
    theirs.load_state_dict({k: pt.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    assert_module_matches(pt, ours, theirs, a + 0.5, 1e-10, 1e-12)


def test_lazy_linear_initialises_as_linear_does() -> None:
    torch.manual_seed(3)
    lazy = nn.LazyLinear(4)
    lazy(torch.ones(2, 9))
    torch.manual_seed(3)
    plain = nn.Linear(9, 4)
    # the same draws: U(-1/3, 1/3) for weight and bias, as Linear(9, 4)
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), plain.weight.detach().numpy())
    np.testing.assert_array_equal(lazy.bias.detach().numpy(), plain.bias.detach().numpy())
    norm = nn.LazyBatchNorm1d()
    norm(torch.randn(4, 3))
    assert norm.weight.tolist() == [1, 1, 1] and norm.running_var.shape == (3,)


def test_uninitialized_parameters_refuse_to_be_used(pt: object) -> None:
    m = nn.LazyLinear(3)
    assert repr(m.weight) == repr(pt.nn.LazyLinear(3).weight) == "<UninitializedParameter>"
    with pytest.raises(ValueError, match="uninitialized parameter .* call it on a batch"):
        m.weight + 1
    with pytest.raises(ValueError, match="uninitialized"):
        nn.functional.linear(torch.ones(2, 4), m.weight)
    with pytest.raises(RuntimeError, match="Can't access the shape"):
        _ = m.weight.shape
    with pytest.raises(RuntimeError, match="Expected 3D .* or 4D .* input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(torch.ones(3, 5))
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(torch.ones(1, 3, 5, 5))
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.LazyBatchNorm2d()(torch.ones(2, 3))


def test_uninitialized_parameter_and_buffer_materialize_in_place(pt: object) -> None:
    p, tp = UninitializedParameter(dtype=torch.float64), pt.nn.parameter.UninitializedParameter()
    assert p.requires_grad and tp.requires_grad and p.dtype is torch.float64
    p.materialize((2, 3))
    tp.materialize((2, 3))
    assert type(p) is nn.Parameter and type(tp) is pt.nn.Parameter
    assert tuple(p.shape) == (2, 3) and p.requires_grad and not is_lazy(p)
    b = UninitializedBuffer()
    assert not b.requires_grad and b.dtype is torch.float32
    b.materialize((4,), dtype=torch.float64)
    assert type(b) is torch.Tensor and b.dtype is torch.float64 and tuple(b.shape) == (4,)
    assert nn.UninitializedParameter is UninitializedParameter


def test_lazy_state_dict_loads_before_the_first_forward(pt: object) -> None:
    theirs = pt.nn.Sequential(pt.nn.Conv2d(3, 4, 2), pt.nn.BatchNorm2d(4))
    ours = nn.Sequential(nn.LazyConv2d(4, 2), nn.LazyBatchNorm2d())
    # a checkpoint gives the shapes, as in PyTorch
    result = ours.load_state_dict(
        {k: torch.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
    )
    assert repr(result) == "<All keys matched successfully>"
    assert tuple(ours[0].weight.shape) == (4, 3, 2, 2) and tuple(ours[1].running_mean.shape) == (4,)
    a = np.random.default_rng(1).standard_normal((2, 3, 4, 4)).astype(np.float32)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(ours(torch.tensor(a)).detach().numpy(),
                               theirs(pt.tensor(a)).detach().numpy(), rtol=1e-5, atol=1e-6)  # fmt: skip
    assert type(ours[0]) is nn.Conv2d and ours[0].in_channels == 3
    assert type(ours[1]) is nn.BatchNorm2d and ours[1].num_features == 4


def test_optimizers_and_moves_around_lazy_modules() -> None:
    model = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1)).double()
    assert all(p.dtype is torch.float64 for p in model.parameters())  # recorded, not made
    copied = copy.deepcopy(model)
    assert is_lazy(copied[0].weight) and copied[0].weight is not model[0].weight
    x = torch.randn(16, 3, dtype=torch.float64)
    model(x)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)  # made after the first forward
    before = model[0].weight.detach().clone()
    loss = (model(x) ** 2).mean()
    loss.backward()
    opt.step()
    assert model[0].weight.dtype is torch.float64 and tuple(model[0].weight.shape) == (8, 3)
    assert not np.allclose(before.numpy(), model[0].weight.detach().numpy())
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    # an optimizer made before the first forward holds the same (materialized) objects
    early = nn.LazyLinear(2)
    opt = torch.optim.Adam(early.parameters(), lr=0.1)
    early(torch.ones(3, 4)).sum().backward()
    opt.step()
    assert tuple(opt.param_groups[0]["params"][0].shape) == (2, 4)


def test_lazy_modules_on_device(device: str) -> None:
    for lazy, shape in ((nn.LazyConv2d(3, 2, device=device), (2, 4, 5, 5)),
                        (nn.LazyBatchNorm1d(device=device), (4, 3)),
                        (nn.LazyLinear(2).to(device), (3, 5))):  # fmt: skip
        y = lazy(torch.randn(*shape, device=device))
        assert y.device.type == device
        assert all(t.device.type == device for t in list(lazy.parameters()) + list(lazy.buffers()))
        y.sum().backward()
