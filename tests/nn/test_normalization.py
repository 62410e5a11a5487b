"""BatchNorm1d/2d, InstanceNorm1d/2d and GroupNorm: PyTorch's outputs, gradients, running
statistics over several training steps, eval outputs, state_dicts, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn

from ..torch_reference import needs_torch, torch_before
from .torch_parity import assert_module_matches


@pytest.fixture
def pt() -> object:
    """PyTorch, where installed (the tests that compare with it skip without it)."""
    return pytest.importorskip("torch")


def _pair(pt: object, cls: str, args: tuple, kwargs: dict) -> tuple:
    """Our module and PyTorch's in float64, with random affine parameters copied over."""
    ours = getattr(nn, cls)(*args, **kwargs).double()
    theirs = getattr(pt.nn, cls)(*args, **kwargs).double()
    with torch.no_grad():
        for p in ours.parameters():
            p.copy_(torch.randn(*p.shape, dtype=torch.float64))
    result = theirs.load_state_dict({k: pt.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    return ours, theirs


def _compare_state(ours: nn.Module, theirs: object) -> None:
    theirs_state = theirs.state_dict()
    assert list(ours.state_dict()) == list(theirs_state)
    for k, v in ours.state_dict().items():
        assert v.dtype.name == str(theirs_state[k].dtype).rsplit(".", 1)[-1], k
        np.testing.assert_allclose(v.numpy(), theirs_state[k].numpy(), rtol=1e-12, err_msg=k)


NO_BIAS = needs_torch((2, 13), "BatchNorm and GroupNorm take bias=")
NORMS = [
    ("BatchNorm1d", (3,), {}, (5, 3)),
    ("BatchNorm1d", (3,), dict(momentum=None), (4, 3, 6)),  # cumulative average
    ("BatchNorm1d", (3,), dict(affine=False, momentum=0.3, eps=1e-3), (4, 3, 2)),
    ("BatchNorm2d", (2,), {}, (3, 2, 4, 3)),
    ("BatchNorm2d", (2,), dict(track_running_stats=False), (3, 2, 2, 3)),
    pytest.param("BatchNorm2d", (2,), dict(bias=False, momentum=None), (2, 2, 3, 3), marks=NO_BIAS),
    ("InstanceNorm1d", (3,), {}, (2, 3, 5)),
    ("InstanceNorm1d", (3,), dict(affine=True, track_running_stats=True), (2, 3, 5)),
    ("InstanceNorm2d", (2,), dict(affine=True), (2, 2, 3, 4)),
    ("InstanceNorm2d", (2,), dict(track_running_stats=True, momentum=0.5), (2, 2, 3, 3)),
    # momentum=None is 0 for InstanceNorm in PyTorch (no cumulative average): stats stay put
    ("InstanceNorm1d", (3,), dict(track_running_stats=True, momentum=None), (2, 3, 4)),
    ("InstanceNorm2d", (2,), {}, (2, 3, 4)),  # unbatched
    ("BatchNorm3d", (2,), {}, (3, 2, 2, 3, 2)),
    ("BatchNorm3d", (2,), dict(affine=False, momentum=None), (2, 2, 3, 2, 2)),
    ("InstanceNorm3d", (2,), dict(affine=True, track_running_stats=True), (2, 2, 3, 2, 3)),
    ("InstanceNorm3d", (3,), {}, (3, 2, 2, 3)),  # unbatched
    ("GroupNorm", (2, 4), {}, (3, 4, 5)),
    ("GroupNorm", (3, 6), dict(eps=1e-3, affine=False), (2, 6, 2, 3)),
    pytest.param("GroupNorm", (1, 2), dict(bias=False), (2, 2, 3, 3), marks=NO_BIAS),
]


@pytest.mark.parametrize("args, shape", [((3,), (2, 5, 4)), ((4, 0.5, 0.3, 2.0), (2, 5, 4, 3)),
                                         ((2, 1e-2), (1, 3, 2, 3, 2)), ((7,), (2, 3, 4))])  # fmt: skip
def test_local_response_norm_matches_pytorch(pt: object, args: tuple, shape: tuple) -> None:
    ours, theirs = nn.LocalResponseNorm(*args), pt.nn.LocalResponseNorm(*args)
    assert repr(ours) == repr(theirs)
    a = np.random.default_rng(3).standard_normal(shape) * 3
    assert_module_matches(pt, ours, theirs, a, 1e-12, 1e-14)
    with pytest.raises(ValueError, match="3D or higher"):
        ours(torch.ones(2, 3))
    assert tuple(ours(torch.ones(0, 2, 3)).shape) == (0, 2, 3)


@pytest.mark.parametrize("shape, size", [((1, 6, 3), 2), ((1, 6, 2, 2), 3)])
def test_local_response_norm_of_integers_floors_the_mean_as_pytorch(pt, shape, size) -> None:
    values = np.arange(np.prod(shape)).reshape(shape) - 5
    ours = torch.nn.functional.local_response_norm(
        torch.tensor(values), size, alpha=0.3, beta=0.5, k=1.25
    )
    theirs = pt.nn.functional.local_response_norm(
        pt.tensor(values), size, alpha=0.3, beta=0.5, k=1.25
    )
    assert ours.dtype is torch.float32 and theirs.dtype is pt.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    for lib in (torch, pt):
        with pytest.raises(NotImplementedError):
            lib.nn.functional.local_response_norm(lib.ones(1, 2, 2, dtype=lib.bool), 2)


@pytest.mark.parametrize("cls, args, kwargs, shape", NORMS)
def test_norm_training_then_eval_matches_pytorch(pt: object, cls: str, args: tuple,
                                                 kwargs: dict, shape: tuple) -> None:  # fmt: skip
    ours, theirs = _pair(pt, cls, args, kwargs)
    if not torch_before((2, 13)):  # older releases print no bias=
        assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(0)
    for step in range(4):  # training: batch statistics, running ones updated
        assert_module_matches(
            pt, ours, theirs, rng.standard_normal(shape) * (step + 1) + step, 1e-9, 1e-11
        )
        _compare_state(ours, theirs)
        ours.zero_grad()
        theirs.zero_grad()
    ours.eval()
    theirs.eval()
    a = rng.standard_normal(shape) + 0.5
    assert_module_matches(pt, ours, theirs, a, 1e-9, 1e-11)  # eval: the running statistics
    _compare_state(ours, theirs)


def test_batch_norm_buffers_and_pytorchs_state_dict(pt: object) -> None:
    theirs = pt.nn.BatchNorm2d(3)
    theirs(pt.randn(4, 3, 2, 2) * 3 + 1)  # running statistics away from 0 and 1
    ours = nn.BatchNorm2d(3)
    assert [n for n, _ in ours.named_buffers()] == ["running_mean", "running_var",
                                                    "num_batches_tracked"]  # fmt: skip
    assert ours.num_batches_tracked.dtype is torch.int64 and ours.num_batches_tracked.item() == 0
    ours.load_state_dict({k: torch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert ours.num_batches_tracked.item() == 1
    ours.eval()
    theirs.eval()
    a = np.random.default_rng(1).standard_normal((2, 3, 2, 2)).astype(np.float32)
    np.testing.assert_allclose(
        ours(torch.tensor(a)).detach().numpy(), theirs(pt.tensor(a)).detach().numpy(), rtol=1e-5
    )
    no_stats = nn.BatchNorm1d(2, track_running_stats=False)
    assert no_stats.running_mean is None and list(no_stats.state_dict()) == ["weight", "bias"]
    assert list(nn.InstanceNorm1d(2).state_dict()) == []


def test_running_statistics_are_not_part_of_the_graph() -> None:
    bn = nn.BatchNorm1d(2)
    x = torch.randn(4, 2, requires_grad=True)
    bn(x).sum().backward()
    assert not bn.running_mean.requires_grad and not bn.running_var.requires_grad
    assert bn.running_mean.grad_fn is None


def test_batch_norm_on_device_matches_cpu(device: str) -> None:
    cpu, dev = nn.BatchNorm2d(3), nn.BatchNorm2d(3, device=device)
    x = torch.randn(4, 3, 2, 3) * 2 + 1
    for _ in range(2):
        y, yd = cpu(x), dev(x.to(device))
        assert yd.device.type == device
        np.testing.assert_allclose(yd.detach().cpu().numpy(), y.detach().numpy(), rtol=1e-5,
                                   atol=1e-5)  # fmt: skip
    np.testing.assert_allclose(dev.running_var.cpu().numpy(), cpu.running_var.numpy(), rtol=1e-5)
    gn = nn.GroupNorm(3, 3, device=device)
    assert gn(x.to(device)).device.type == device


def test_norm_errors() -> None:
    F = nn.functional
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(torch.ones(2, 3, 4))
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.BatchNorm1d(3)(torch.ones(2, 3, 4, 5))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(torch.ones(1, 3))
    with pytest.raises(ValueError, match="more than 1 spatial element"):
        F.instance_norm(torch.ones(2, 3, 1))
    with pytest.raises(RuntimeError, match=r"batch_norm: running_mean of shape \(4,\) does not"):
        F.batch_norm(torch.ones(2, 3), torch.zeros(4), torch.ones(3))
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F.group_norm(torch.ones(2, 4, 3), 3)
    with pytest.raises(ValueError, match="divisible by num_groups"):
        nn.GroupNorm(3, 4)
    with pytest.raises(NotImplementedError, match="batch_norm"):
        F.batch_norm(torch.ones(2, 3, dtype=torch.int64), None, None, training=True)
    for size in (0, -1):  # an empty window of channels: PyTorch's pooling refuses it
        with pytest.raises(RuntimeError, match="local_response_norm: size"):
            F.local_response_norm(torch.ones(1, 4, 4), size)
        with pytest.raises(RuntimeError, match="local_response_norm: size"):
            nn.LocalResponseNorm(size)(torch.ones(1, 4, 4, 4))


@pytest.mark.parametrize("shape", [(0, 2, 5), (2, 4, 0)])
def test_empty_inputs_give_empty_outputs_and_keep_the_statistics(pt: object, shape: tuple) -> None:
    for name, call in [
        ("group_norm", lambda F, x, rm, rv: F.group_norm(x, 2)),
        # (with running statistics PyTorch sets them to NaN for an empty batch; we keep them)
        ("instance_norm", lambda F, x, rm, rv: F.instance_norm(x)),
        ("batch_norm", lambda F, x, rm, rv: F.batch_norm(x, rm, rv, training=True)),
    ]:
        rm, rv = torch.zeros(shape[1]), torch.ones(shape[1])
        trm, trv = pt.zeros(shape[1]), pt.ones(shape[1])
        ours, theirs = (
            call(nn.functional, torch.zeros(*shape), rm, rv),
            call(pt.nn.functional, pt.zeros(*shape), trm, trv),
        )
        assert tuple(ours.shape) == tuple(theirs.shape), name
        assert rm.tolist() == trm.tolist() and rv.tolist() == trv.tolist(), name


def test_norms_refuse_an_input_of_another_dtype_than_their_parameters(pt: object) -> None:
    # PyTorch raises for a float64 input through float32 parameters or running statistics,
    # rather than promoting; instance_norm alone accepts running statistics of another dtype
    a = np.random.default_rng(2).standard_normal((4, 3, 5))
    for build in [
        lambda m: m.BatchNorm1d(3),
        lambda m: m.BatchNorm1d(3, affine=False),
        lambda m: m.BatchNorm1d(3, track_running_stats=False),
        lambda m: m.BatchNorm1d(3).eval(),
        lambda m: m.GroupNorm(3, 3),
        lambda m: m.InstanceNorm1d(3, affine=True),
    ]:
        with pytest.raises(RuntimeError):
            build(pt.nn)(pt.tensor(a))
        with pytest.raises(RuntimeError, match="must share one dtype"):
            build(nn)(torch.tensor(a))
    for use_input_stats in (True, False):
        ours = nn.functional.instance_norm(torch.tensor(a), torch.zeros(3), torch.ones(3),
                                           use_input_stats=use_input_stats)  # fmt: skip
        theirs = pt.nn.functional.instance_norm(pt.tensor(a), pt.zeros(3), pt.ones(3),
                                                use_input_stats=use_input_stats)  # fmt: skip
        assert ours.dtype is torch.float64
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)


def _half_input_through_float32_norms(lib) -> list:
    """float16 inputs through float32 norm layers (as after a float16 layer under autocast):
    float16 outputs, float32 running statistics and parameter gradients, float16 input
    gradients."""
    rng = np.random.default_rng(3)
    seen = []
    for build, shape in [(lambda m: m.BatchNorm1d(3), (4, 3)),
                         (lambda m: m.BatchNorm2d(2).eval(), (2, 2, 3, 3)),
                         (lambda m: m.LayerNorm(3), (4, 3)),
                         (lambda m: m.GroupNorm(2, 4), (2, 4, 3)),
                         (lambda m: m.InstanceNorm1d(3, affine=True, track_running_stats=True),
                          (2, 3, 4))]:  # fmt: skip
        layer = build(lib.nn)
        x = lib.tensor(rng.standard_normal(shape)).half().requires_grad_()
        out = layer(x)
        (out.float() * lib.arange(out.numel()).reshape(out.shape)).sum().backward()
        grads = [x.grad] + [p.grad for p in layer.parameters()]
        seen.append([str(t.dtype).split(".")[-1] for t in [out, *grads, *layer.buffers()]])
        seen.append([np.round(t.detach().float().numpy(), 2).tolist()
                     for t in [out, *grads, *layer.buffers()]])  # fmt: skip
    return seen


def test_float16_input_through_float32_norms_as_in_pytorch(pt: object) -> None:
    ours, theirs = _half_input_through_float32_norms(torch), _half_input_through_float32_norms(pt)
    assert ours[0] == ["float16", "float16", "float32", "float32", "float32", "float32", "int64"]
    assert [ours[i] for i in range(0, len(ours), 2)] == [theirs[i] for i in range(0, len(ours), 2)]
    for a, b in zip(ours[1::2], theirs[1::2], strict=True):
        for u, v in zip(a, b, strict=True):
            np.testing.assert_allclose(u, v, rtol=2e-2, atol=5e-2)


def test_a_checkpoint_without_num_batches_tracked_loads(pt: object) -> None:
    # checkpoints from before num_batches_tracked existed load in PyTorch (a plain dict, no
    # version metadata), the module's count left as it is
    for lib in (pt, torch):
        model = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3))
        model(lib.randn(4, 3))
        old = {k: v for k, v in model.state_dict().items() if "num_batches_tracked" not in k}
        fresh = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3))
        fresh[1].num_batches_tracked.fill_(5)
        result = fresh.load_state_dict(old)  # strict: no missing key
        assert not result.missing_keys and not result.unexpected_keys
        assert fresh[1].num_batches_tracked.item() == 5
        assert fresh[1].running_mean.tolist() == model[1].running_mean.tolist()
    with pytest.raises(RuntimeError, match='Missing key.*"1.running_var"'):
        nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).load_state_dict(
            {k: v for k, v in old.items() if "running_var" not in k}
        )


def test_instance_norm_checks_its_channel_count_as_pytorch_does(pt: object) -> None:
    # affine: a ValueError (before this, our weight's shape check raised a RuntimeError);
    # without affine num_features is unused and PyTorch only warns
    a = np.random.default_rng(3).standard_normal((2, 3, 5))
    for lib, x in ((pt, pt.tensor(a)), (torch, torch.tensor(a))):
        with pytest.raises(ValueError, match="to match num_features"):
            lib.nn.InstanceNorm1d(4, affine=True).double()(x)
        with pytest.raises(ValueError, match="dim=0 to match num_features"):
            lib.nn.InstanceNorm1d(4, affine=True).double()(x[0])
        with pytest.warns(UserWarning, match="num_features"):
            out = lib.nn.InstanceNorm1d(4)(x)
        assert tuple(out.shape) == (2, 3, 5)


@needs_torch((2, 13), "batch_norm's eps checks")
def test_batch_norm_checks_eps_as_pytorch(pt: object) -> None:
    # a non-positive eps in training (or a negative one) gave nan here; PyTorch: ValueError
    a = np.random.default_rng(5).standard_normal((4, 3, 5))
    for lib, x in ((torch, torch.tensor(a)), (pt, pt.tensor(a))):
        F = lib.nn.functional
        stats = (lib.zeros(3, dtype=x.dtype), lib.ones(3, dtype=x.dtype))
        with pytest.raises(ValueError, match="eps must be positive during training"):
            F.batch_norm(x, None, None, training=True, eps=0.0)
        with pytest.raises(ValueError, match="eps must be non-negative"):
            F.batch_norm(x, *stats, training=False, eps=-1.0)
        with pytest.raises(ValueError, match="eps must be positive during training"):
            lib.nn.BatchNorm1d(3, eps=-1).double()(x)
        assert F.batch_norm(x, *stats, training=False, eps=0.0).shape == x.shape
        # eps is checked before the tensors: a float32 module on float64 input (PyTorch's
        # ModuleInfo error sample) says eps, not the dtype mix
        with pytest.raises(ValueError, match="eps must be positive during training"):
            lib.nn.BatchNorm1d(3, eps=0.0)(x)
