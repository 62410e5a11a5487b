"""Conv1d / Conv2d and Unfold / Fold: PyTorch's outputs and gradients with the same
weights, its state_dicts and reprs, the default init, devices and clear errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn

from .torch_parity import assert_module_matches

# PyTorch warns that it copies the input for padding="same" with an even kernel
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")


@pytest.fixture
def pt() -> object:
    """PyTorch, where installed (the tests that compare with it skip without it)."""
    return pytest.importorskip("torch")


CONVS = [
    ("Conv1d", (3, 4, 3), {}, (2, 3, 9)),
    ("Conv1d", (4, 6, 2), dict(stride=2, padding=1, dilation=2, groups=2), (2, 4, 8)),
    ("Conv1d", (2, 3, 4), dict(padding="same", bias=False), (1, 2, 7)),
    ("Conv1d", (2, 3, 3), dict(padding=2, padding_mode="reflect"), (2, 2, 5)),
    ("Conv1d", (2, 3, 3), dict(padding="same", padding_mode="circular"), (2, 2, 5)),
    ("Conv1d", (2, 2, 3), {}, (2, 6)),  # unbatched
    ("Conv2d", (3, 4, 3), {}, (2, 3, 6, 5)),
    ("Conv2d", (4, 6, (3, 2)), dict(stride=(2, 1), padding=(1, 2), groups=2), (2, 4, 7, 6)),
    ("Conv2d", (2, 4, 3), dict(dilation=2, padding="valid"), (1, 2, 7, 7)),
    ("Conv2d", (3, 3, 3), dict(padding="same", groups=3), (2, 3, 5, 4)),
    ("Conv2d", (2, 3, 3), dict(padding=1, padding_mode="replicate"), (2, 2, 4, 5)),
    ("Conv2d", (2, 3, (2, 3)), dict(padding=(1, 2), padding_mode="circular"), (1, 2, 4, 4)),
    ("Conv2d", (2, 3, 2), dict(stride=2, padding_mode="reflect", padding=1), (2, 5, 5)),
    ("Conv3d", (2, 3, 2), {}, (2, 2, 4, 3, 5)),
    (
        "Conv3d",
        (4, 2, (3, 1, 2)),
        dict(stride=(2, 1, 1), padding=(1, 0, 1), groups=2),
        (1, 4, 5, 3, 4),
    ),
    ("Conv3d", (2, 2, 3), dict(padding="same", dilation=(1, 2, 1), bias=False), (2, 4, 5, 3)),
    ("Conv3d", (2, 3, 2), dict(padding=1, padding_mode="circular"), (1, 2, 3, 3, 3)),
    ("Conv3d", (2, 3, 3), dict(padding=1, padding_mode="reflect"), (2, 3, 4, 3)),  # unbatched
    ("ConvTranspose1d", (3, 4, 3), {}, (2, 3, 5)),
    (
        "ConvTranspose1d",
        (4, 6, 3),
        dict(stride=2, padding=1, output_padding=1, groups=2, dilation=2),
        (2, 4, 6),
    ),  # fmt: skip
    ("ConvTranspose1d", (2, 3, 2), dict(output_padding=2, dilation=3, bias=False), (2, 4)),
    ("ConvTranspose2d", (3, 2, (3, 2)), dict(stride=(2, 1), padding=(1, 1)), (2, 3, 4, 5)),
    (
        "ConvTranspose2d",
        (4, 4, 3),
        dict(stride=3, padding=2, output_padding=(2, 1), groups=4),
        (1, 4, 3, 3),
    ),  # fmt: skip
    ("ConvTranspose2d", (2, 3, 2), dict(stride=2), (2, 3, 2)),  # unbatched
    ("ConvTranspose3d", (2, 3, 2), dict(stride=2, output_padding=(1, 0, 1)), (1, 2, 2, 3, 2)),
    (
        "ConvTranspose3d",
        (4, 2, (1, 2, 3)),
        dict(padding=(0, 1, 1), groups=2, dilation=(1, 2, 1)),
        (4, 2, 3, 3),
    ),  # fmt: skip
]


def _pair(pt: object, cls: str, args: tuple, kwargs: dict) -> tuple:
    """Our module and PyTorch's, with our (seeded) parameters loaded into PyTorch's."""
    ours = getattr(nn, cls)(*args, **kwargs).double()
    theirs = getattr(pt.nn, cls)(*args, **kwargs).double()
    theirs.load_state_dict({k: pt.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("cls, args, kwargs, shape", CONVS)
def test_conv_matches_pytorch(
    pt: object, cls: str, args: tuple, kwargs: dict, shape: tuple
) -> None:
    ours, theirs = _pair(pt, cls, args, kwargs)
    assert_module_matches(pt, ours, theirs, np.random.default_rng(0).standard_normal(shape))
    assert repr(ours) == repr(theirs)


TRANSPOSED_SIZES = [  # (class, module args, input shape, output_size)
    ("ConvTranspose2d", (2, 3, 3, 2, 1), (1, 2, 4, 4), (8, 7)),  # the largest H, smallest W
    ("ConvTranspose2d", (2, 3, 3, 2, 1), (1, 2, 4, 4), (1, 3, 7, 8)),  # (N, C, *S) taken too
    ("ConvTranspose2d", (2, 3, 3, 2, 1), (2, 4, 4), (3, 8, 8)),  # unbatched: (C, *S)
    ("ConvTranspose1d", (2, 2, 2, 3), (1, 2, 3), [9]),
    ("ConvTranspose3d", (2, 2, (2, 1, 3), (2, 3, 1)), (1, 2, 2, 2, 3), (5, 6, 5)),
]


@pytest.mark.parametrize("cls, args, shape, size", TRANSPOSED_SIZES)
def test_conv_transpose_output_size_matches_pytorch(pt: object, cls: str, args: tuple,
                                                    shape: tuple, size: object) -> None:  # fmt: skip
    ours, theirs = _pair(pt, cls, args, {})
    a = np.random.default_rng(7).standard_normal(shape)
    y, ty = ours(torch.tensor(a), output_size=size), theirs(pt.tensor(a), output_size=size)
    assert tuple(y.shape) == tuple(ty.shape)
    assert tuple(y.shape[-ours._spatial :]) == tuple(size)[-ours._spatial :]
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    # output_size=None: the module's output_padding (0 here), the smallest size
    assert tuple(ours(torch.tensor(a)).shape) == tuple(theirs(pt.tensor(a)).shape)


def test_conv_transpose_is_the_input_gradient_of_conv() -> None:
    # <conv(x, w), y> = <x, conv_transpose(y, w)> with the same stride/padding/dilation/groups
    F = nn.functional
    rng = np.random.default_rng(8)
    x, w = (
        torch.tensor(rng.standard_normal((2, 4, 7, 6))),
        torch.tensor(rng.standard_normal((6, 2, 3, 2))),
    )
    geometry = dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
    y = torch.tensor(rng.standard_normal(tuple(F.conv2d(x, w, **geometry).shape)))
    # 7 rows -> 4 -> 7 with output_padding=0 (stride 2: 7 and 8 rows both give 4)
    back = F.conv_transpose2d(y, w, **geometry)
    assert tuple(back.shape) == (2, 4, 7, 6)
    np.testing.assert_allclose(float((F.conv2d(x, w, **geometry) * y).sum()),
                               float((x * back).sum()), rtol=1e-12)  # fmt: skip


def test_conv_transpose_errors_as_pytorch(pt: object) -> None:
    F, tF = nn.functional, pt.nn.functional
    calls = [
        (lambda T, F: F.conv_transpose2d(T.ones(1, 2, 3, 3), T.ones(2, 3, 2, 2), stride=2,
                                         output_padding=2), "smaller than either stride"),
        (lambda T, F: F.conv_transpose2d(T.ones(1, 2, 1, 1), T.ones(2, 3, 1, 1), padding=1),
         "Output size is too small"),
        (lambda T, F: F.conv_transpose2d(T.ones(1, 2, 3, 3), T.ones(3, 3, 2, 2)),
         r"expected input\[1, 2, 3, 3\] to have 3 channels"),
        (lambda T, F: F.conv_transpose2d(T.ones(1, 4, 3, 3), T.ones(4, 3, 2, 2), groups=3),
         "divisible by groups=3"),
        (lambda T, F: F.conv_transpose2d(T.ones(1, 2, 3, 3), T.ones(2, 3, 2, 2), padding=-1),
         "negative padding"),
        (lambda T, F: F.conv_transpose1d(T.ones(1, 2, 3), T.ones(2, 3, 2), output_padding=-1),
         "negative"),
        (lambda T, F: F.conv_transpose2d(T.ones(1, 2, 3, 3), T.ones(2, 3, 2, 2), T.ones(2)),
         "bias of shape"),
        (lambda T, F: F.conv_transpose1d(T.ones(1, 2, 3), T.ones(2, 3, 0)), "greater than zero"),
        (lambda T, F: F.conv_transpose1d(T.ones(1, 2, 3), T.ones(2, 3, 2), stride=0), "stride"),
        (lambda T, F: F.conv_transpose2d(T.ones(1, 2, 3, 3), T.ones(2, 3, 2, 2, 2)), "4-D"),
        (lambda T, F: F.conv_transpose2d(T.ones(1, 3, 4, 4), T.ones(3, 0, 1, 1)),
         "at least 1 output channel"),
        (lambda T, F: F.conv1d(T.ones(1, 3, 4), T.ones(0, 3, 1)), "at least 1 at dimension 0"),
        (lambda T, F: F.conv3d(T.ones(1, 3, 4, 4, 4), T.ones(0, 3, 1, 1, 1)), "at least 1"),
    ]  # fmt: skip
    for call, message in calls:
        with pytest.raises(RuntimeError, match=message):
            call(torch, F)
        with pytest.raises(RuntimeError):
            call(pt, tF)
    with pytest.raises(TypeError, match="padding"):
        F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 3, 2, 2), padding="same")
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose2d(2, 3, 2, padding_mode="reflect")
    with pytest.raises(ValueError, match="padding must be an int"):
        nn.ConvTranspose2d(2, 3, 2, padding="same")  # PyTorch accepts it, then fails later
    m, tm = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1), pt.nn.ConvTranspose2d(2, 3, 3, 2, 1)
    for size in ((9, 9), (6, 7), (1, 2, 3, 9, 8)):
        with pytest.raises(ValueError, match="output size|output_size"):
            m(torch.ones(1, 2, 4, 4), output_size=size)
        with pytest.raises(ValueError):
            tm(pt.ones(1, 2, 4, 4), output_size=size)


def test_conv_transpose_of_integers_and_empty_batches_as_pytorch(pt: object) -> None:
    a, w = np.arange(12).reshape(1, 2, 6), np.array([[[1, -2]], [[3, 0]]])
    ours = nn.functional.conv_transpose1d(torch.tensor(a), torch.tensor(w), stride=2, padding=1)
    theirs = pt.nn.functional.conv_transpose1d(pt.tensor(a), pt.tensor(w), stride=2, padding=1)
    assert ours.dtype is torch.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    empty = nn.functional.conv_transpose2d(torch.ones(0, 2, 3, 3), torch.ones(2, 4, 2, 2), stride=2)
    assert tuple(empty.shape) == (0, 4, 6, 6)


def test_conv_transpose_default_init_and_attributes_are_pytorchs(pt: object) -> None:
    conv = nn.ConvTranspose2d(4, 6, 3, groups=2, output_padding=0)  # fan_in = 6/2 * 9 = 27
    bound = 1 / math.sqrt(27)
    assert tuple(conv.weight.shape) == (4, 3, 3, 3) and tuple(conv.bias.shape) == (6,)
    w = conv.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    for ours, theirs in [
        (nn.ConvTranspose1d(2, 4, 3, 2, 1, 1), pt.nn.ConvTranspose1d(2, 4, 3, 2, 1, 1)),
        (nn.ConvTranspose3d(2, 2, 1, groups=2), pt.nn.ConvTranspose3d(2, 2, 1, groups=2)),
    ]:
        for name in ("in_channels", "out_channels", "kernel_size", "stride", "padding",
                     "dilation", "groups", "padding_mode", "transposed", "output_padding"):  # fmt: skip
            assert getattr(ours, name) == getattr(theirs, name), name


def test_conv_loads_pytorchs_state_dict(pt: object) -> None:
    theirs = pt.nn.Conv2d(3, 4, (2, 3), stride=2, groups=1)
    ours = nn.Conv2d(3, 4, (2, 3), stride=2)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight", "bias"]
    result = ours.load_state_dict(
        {k: torch.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
    )
    assert repr(result) == "<All keys matched successfully>"
    a = np.random.default_rng(2).standard_normal((2, 3, 6, 7)).astype(np.float32)
    np.testing.assert_allclose(
        ours(torch.tensor(a)).detach().numpy(),
        theirs(pt.tensor(a)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    no_bias = nn.Conv1d(2, 2, 1, bias=False)
    assert no_bias.bias is None and list(no_bias.state_dict()) == ["weight"]


def test_conv_default_init_is_pytorchs_and_seeded() -> None:
    conv = nn.Conv2d(4, 8, 3, groups=2)  # fan_in = 4 / 2 * 3 * 3 = 18
    bound = 1 / math.sqrt(18)
    assert tuple(conv.weight.shape) == (8, 2, 3, 3) and tuple(conv.bias.shape) == (8,)
    w, b = conv.weight.detach().numpy(), conv.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound  # U(-bound, bound)
    assert np.abs(b).max() <= bound
    torch.manual_seed(0)
    again = nn.Conv2d(4, 8, 3, groups=2)
    np.testing.assert_array_equal(again.weight.detach().numpy(), w)


def test_conv_on_device_matches_cpu(device: str) -> None:
    torch.manual_seed(5)
    cpu = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
    torch.manual_seed(5)
    dev = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2, device=device)
    x = torch.randn(2, 4, 5, 6)
    xd = x.to(device).requires_grad_(True)
    x.requires_grad_(True)
    y, yd = cpu(x), dev(xd)
    assert yd.device.type == device
    np.testing.assert_allclose(yd.detach().cpu().numpy(), y.detach().numpy(), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    yd.sum().backward()
    np.testing.assert_allclose(xd.grad.cpu().numpy(), x.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        dev.weight.grad.cpu().numpy(), cpu.weight.grad.numpy(), rtol=1e-5, atol=1e-5
    )


def test_unfold_fold_modules_match_pytorch(pt: object) -> None:
    a = np.random.default_rng(3).standard_normal((2, 3, 5, 4))
    for ours, theirs in [
        (
            nn.Unfold((2, 3), padding=1, stride=(2, 1)),
            pt.nn.Unfold((2, 3), padding=1, stride=(2, 1)),
        ),
        (nn.Unfold(2, dilation=2), pt.nn.Unfold(2, dilation=2)),
    ]:
        x, tx = torch.tensor(a, requires_grad=True), pt.tensor(a, requires_grad=True)
        y, ty = ours(x), theirs(tx)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
        assert repr(ours) == repr(theirs)
        fold, tfold = nn.Fold((5, 4), **_geometry(theirs)), pt.nn.Fold((5, 4), **_geometry(theirs))
        z, tz = fold(y), tfold(ty)
        np.testing.assert_allclose(z.detach().numpy(), tz.detach().numpy(), rtol=1e-12)
        assert repr(fold) == repr(tfold)
        (z * z).sum().backward()
        (tz * tz).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def _geometry(unfold: object) -> dict:
    return {k: getattr(unfold, k) for k in ("kernel_size", "dilation", "padding", "stride")}


def test_conv_errors_name_the_op_and_shapes() -> None:
    F = nn.functional
    with pytest.raises(
        RuntimeError, match=r"conv2d: Given groups=1, weight of size \[4, 3, 3, 3\]"
    ):
        nn.Conv2d(3, 4, 3)(torch.ones(1, 2, 5, 5))  # 2 channels, 3 expected
    with pytest.raises(RuntimeError, match="conv1d: expected 2-D .* or 3-D"):
        nn.Conv1d(1, 1, 1)(torch.ones(1, 1, 2, 2))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        F.conv1d(torch.ones(1, 1, 2), torch.ones(1, 1, 3))
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided"):
        F.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 3), stride=2, padding="same")
    with pytest.raises(RuntimeError, match="Invalid padding string"):
        F.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 3), padding="full")
    with pytest.raises(RuntimeError, match="list of 2 values"):
        F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), stride=(1, 1, 1))
    with pytest.raises(RuntimeError, match="bias of shape"):
        F.conv1d(torch.ones(1, 1, 4), torch.ones(2, 1, 3), torch.ones(3))
    with pytest.raises(RuntimeError, match="same dtype"):
        F.conv1d(torch.ones(1, 1, 4), torch.ones(2, 1, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="stride"):
        F.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 3), stride=0)
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.Conv2d(3, 4, 2, groups=2)
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2d(4, 4, 2, padding_mode="foo")
    with pytest.raises(ValueError, match="strided"):
        nn.Conv1d(4, 4, 2, stride=2, padding="same")
    with pytest.raises(RuntimeError, match="fold: expected size"):
        F.fold(torch.ones(2, 12, 5), (4, 4), 2)


def test_integer_convolution_stays_integer_as_in_pytorch(pt: object) -> None:
    a = np.arange(10).reshape(1, 1, 10)
    w = np.array([[[1, -2, 3]]])
    ours = nn.functional.conv1d(torch.tensor(a), torch.tensor(w), stride=2)
    theirs = pt.nn.functional.conv1d(pt.tensor(a), pt.tensor(w), stride=2)
    assert ours.dtype is torch.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_empty_batches_give_empty_outputs(pt: object) -> None:
    F, tF = nn.functional, pt.nn.functional
    calls = [
        (lambda F, x: F.conv1d(x, x.new_ones((3, 2, 2))), (0, 2, 5)),
        (lambda F, x: F.conv2d(x, x.new_ones((4, 1, 2, 2)), groups=2), (0, 2, 3, 3)),
        (lambda F, x: F.unfold(x, 2), (0, 2, 3, 3)),
        (lambda F, x: F.avg_pool1d(x, 2), (0, 2, 5)),
        (lambda F, x: F.adaptive_avg_pool2d(x, 2), (0, 2, 3, 3)),
    ]
    for call, shape in calls:
        ours, theirs = call(F, torch.zeros(*shape)), call(tF, pt.zeros(*shape))
        assert tuple(ours.shape) == tuple(theirs.shape)


def test_the_torch_level_names_are_the_functional_ones(pt: object) -> None:
    a = np.random.default_rng(4).standard_normal((1, 4, 6))
    w = np.random.default_rng(5).standard_normal((2, 4, 3))
    x, tx = torch.tensor(a), pt.tensor(a)
    pairs = [
        (torch.conv1d(x, torch.tensor(w), None, 2, 1), pt.conv1d(tx, pt.tensor(w), None, 2, 1)),
        (torch.avg_pool1d(x, 2), pt.avg_pool1d(tx, 2)),  # stride=() as torch.avg_pool1d's
        (torch.adaptive_avg_pool1d(x, 4), pt.adaptive_avg_pool1d(tx, 4)),
        (
            torch.pixel_shuffle(x.reshape(1, 4, 2, 3), 2),
            pt.pixel_shuffle(tx.reshape(1, 4, 2, 3), 2),
        ),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert torch.conv2d is nn.functional.conv2d and torch.pixel_unshuffle is not None
    for name in ("conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"):
        assert getattr(torch, name) is getattr(nn.functional, name) and hasattr(pt, name)


SLIDING_WINDOWS_WITH_A_ZERO = [
    lambda T, x: T.nn.functional.conv2d(x, T.ones(3, 2, 0, 2)),  # an empty kernel
    lambda T, x: T.nn.Conv2d(2, 3, 0)(x),
    lambda T, x: T.nn.functional.unfold(x, 0),
    lambda T, x: T.nn.functional.unfold(x, 2, stride=0),
    lambda T, x: T.nn.functional.unfold(x, 2, dilation=0),
    lambda T, x: T.nn.functional.fold(T.ones(1, 8, 16), 5, 0),
    lambda T, x: T.nn.functional.fold(T.ones(1, 8, 16), 5, 2, stride=0),
    lambda T, x: T.nn.functional.avg_pool2d(x, 0),
    lambda T, x: T.nn.functional.avg_pool2d(x, 2, stride=0),
    lambda T, x: T.nn.functional.avg_pool1d(x[0], 2, stride=0),
]


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")  # PyTorch's Conv2d
@pytest.mark.parametrize("call", SLIDING_WINDOWS_WITH_A_ZERO)
def test_a_zero_kernel_stride_or_dilation_raises_as_in_pytorch(call: object) -> None:
    # ours returned an output (empty kernels) or raised ZeroDivisionError (zero strides)
    with pytest.raises(RuntimeError, match="should be greater than zero"):
        call(torch, torch.ones(1, 2, 5, 5))
    pt = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        call(pt, pt.ones(1, 2, 5, 5))


def test_conv_has_pytorchs_attributes(pt: object) -> None:
    # transposed and output_padding were missing (AttributeError for code inspecting a conv)
    for args, kwargs in [((3, 4, 3), {}), ((3, 6, (2, 3)), dict(padding="same", groups=3))]:
        for cls in ("Conv1d", "Conv2d"):
            k = args[2] if cls == "Conv2d" or isinstance(args[2], int) else args[2][0]
            ours = getattr(nn, cls)(args[0], args[1], k, **kwargs)
            theirs = getattr(pt.nn, cls)(args[0], args[1], k, **kwargs)
            for name in ("in_channels", "out_channels", "kernel_size", "stride", "padding",
                         "dilation", "groups", "padding_mode", "transposed", "output_padding"):  # fmt: skip
                assert getattr(ours, name) == getattr(theirs, name), (cls, name)
