"""Padding layers, PixelShuffle/PixelUnshuffle and Upsample: PyTorch's outputs, gradients
and reprs, and clear errors (F.pad's modes are in the op table, tests/test_ops.py)."""

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


LAYERS = [
    ("ZeroPad1d", (2,), (2, 3, 4)),
    ("ZeroPad2d", ((1, 2, 0, 3),), (1, 2, 3, 3)),
    ("ConstantPad1d", ((0, 2), 1.5), (3, 4)),
    ("ConstantPad2d", (1, -0.5), (2, 2, 3)),
    ("ReflectionPad1d", ((2, 1),), (2, 2, 4)),
    ("ReflectionPad2d", (2,), (1, 2, 3, 4)),
    ("ReplicationPad1d", (3,), (2, 3)),
    ("ReplicationPad2d", ((1, 0, 2, 3),), (2, 2, 2, 3)),
    ("ZeroPad3d", ((1, 0, 2, 1, 0, 1),), (1, 2, 2, 3, 2)),
    ("ConstantPad3d", (1, 2.5), (2, 2, 3, 2)),
    ("ReflectionPad3d", ((2, 1, 1, 0, 1, 2),), (1, 2, 3, 3, 4)),
    ("ReplicationPad3d", (2,), (2, 1, 2, 3, 2)),
    ("CircularPad1d", ((2, 1),), (2, 2, 3)),
    ("CircularPad2d", ((1, 0, 2, 1),), (2, 3, 4)),
    ("CircularPad3d", (1,), (1, 2, 2, 3, 4)),
    ("PixelShuffle", (2,), (2, 8, 3, 2)),
    ("PixelShuffle", (3,), (9, 1, 2)),
    ("PixelUnshuffle", (2,), (1, 2, 4, 6)),
    ("Upsample", (None, 2), (2, 3, 4)),
    ("Upsample", ((5, 3),), (1, 2, 3, 4)),
    ("Upsample", (None, (1.5, 0.7)), (1, 1, 4, 5)),
    ("Upsample", (None, 1.7, "linear"), (2, 3, 4)),
    ("Upsample", (7, None, "linear", True), (2, 3, 4)),
    ("Upsample", ((5, 3), None, "bilinear"), (1, 2, 4, 6)),
    ("Upsample", (None, (2, 0.5), "bilinear", True), (1, 2, 4, 6)),
    ("Upsample", ((5, 7), None, "bicubic"), (1, 2, 3, 4)),
    ("Upsample", (None, (2, 0.6), "bicubic", True), (2, 1, 3, 5)),
    ("Upsample", (None, 1.5, "trilinear"), (1, 2, 3, 4, 2)),
    ("Upsample", ((2, 5, 3), None, "trilinear", True), (1, 2, 3, 4, 5)),
    ("Upsample", (None, 2.5, "linear", False, True), (2, 2, 3)),  # recompute_scale_factor
    ("Upsample", ((3, 2), None, "area"), (1, 2, 7, 5)),
    ("Upsample", (None, 1.7, "nearest-exact"), (1, 2, 7, 5)),
    ("UpsamplingNearest2d", (None, 2), (2, 3, 4, 3)),
    ("UpsamplingNearest2d", ((5, 7),), (1, 2, 3, 4)),
    ("UpsamplingBilinear2d", (None, 2), (2, 3, 4, 3)),
    ("UpsamplingBilinear2d", ((5, 7),), (1, 2, 3, 4)),
]


@pytest.mark.parametrize("cls, args, shape", LAYERS)
def test_layer_matches_pytorch(pt: object, cls: str, args: tuple, shape: tuple) -> None:
    ours, theirs = getattr(nn, cls)(*args), getattr(pt.nn, cls)(*args)
    assert repr(ours) == repr(theirs)
    a = np.random.default_rng(0).standard_normal(shape)
    assert_module_matches(pt, ours, theirs, a, rtol=1e-12, atol=1e-14)


def test_upsample_on_device(device: str) -> None:
    x = torch.randn(1, 2, 3, 3, device=device, requires_grad=True)
    y = nn.Upsample(scale_factor=2)(nn.ReflectionPad2d(1)(x))
    assert y.device.type == device and tuple(y.shape) == (1, 2, 10, 10)
    y.sum().backward()
    assert x.grad.device.type == device


def test_padding_and_upsampling_errors() -> None:
    F = nn.functional
    with pytest.raises(RuntimeError, match="too wide for mode='reflect'"):
        F.pad(torch.ones(1, 2, 3), (3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="doesn't take in value"):
        F.pad(torch.ones(1, 2, 3), (1, 1), mode="replicate", value=1.0)
    with pytest.raises(NotImplementedError, match="padding size 2 is not supported for 1D"):
        F.pad(torch.ones(3), (1, 1), mode="reflect")
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode"):
        F.pad(torch.ones(1, 3), (1, 1), mode="wrap")
    with pytest.raises(RuntimeError, match="divisible by upscale_factor"):
        F.pixel_shuffle(torch.ones(1, 3, 2, 2), 2)
    with pytest.raises(RuntimeError, match="divisible by downscale_factor"):
        F.pixel_unshuffle(torch.ones(1, 3, 3, 2), 2)
    with pytest.raises(NotImplementedError, match="mode='lanczos' is not implemented"):
        F.interpolate(torch.ones(1, 1, 4, 4), scale_factor=2, mode="lanczos")
    with pytest.raises(NotImplementedError, match="mode='lanczos' is not implemented"):
        nn.Upsample(scale_factor=2, mode="lanczos")
    with pytest.raises(NotImplementedError, match="Got 3D input, but bicubic mode needs 4D"):
        F.interpolate(torch.ones(1, 1, 4), scale_factor=2, mode="bicubic")
    with pytest.raises(ValueError, match="anti-alias option is only supported for bilinear"):
        F.interpolate(torch.ones(1, 1, 4, 4), scale_factor=2, mode="nearest", antialias=True)
    with pytest.raises(NotImplementedError, match="interpolate"):  # no integer kernel there
        F.interpolate(torch.ones(1, 1, 4, 4, dtype=torch.int64), scale_factor=2, mode="bicubic")
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D"):
        F.interpolate(torch.ones(1, 1, 4), scale_factor=2, mode="bilinear")
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D"):
        F.interpolate(torch.ones(1, 1, 4, 4), scale_factor=2, mode="linear")
    with pytest.raises(NotImplementedError, match="interpolate"):  # no integer kernel there
        F.interpolate(torch.ones(1, 1, 4, dtype=torch.int64), scale_factor=2, mode="linear")
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(torch.ones(1, 1, 4), size=3, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor"):
        F.interpolate(torch.ones(1, 1, 4))
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(torch.ones(1, 1, 4), size=3, align_corners=True)


def test_circular_pad_modules_check_the_input_dims_as_pytorch(pt: object) -> None:
    # only the circular pad modules check the dims themselves (a ValueError, not F.pad's
    # NotImplementedError)
    for cls, shape in [("CircularPad1d", (3,)), ("CircularPad2d", (3, 3)),
                       ("CircularPad3d", (1, 1, 2, 3, 3, 3)), ("CircularPad2d", (1, 1, 2, 3, 3))]:  # fmt: skip
        with pytest.raises(ValueError, match=f"{cls}: expected"):
            getattr(nn, cls)(1)(torch.ones(*shape))
        with pytest.raises(ValueError, match="expected"):
            getattr(pt.nn, cls)(1)(pt.ones(*shape))
    assert tuple(nn.CircularPad2d(1)(torch.ones(2, 3, 3)).shape) == (2, 5, 5)  # unbatched


def test_deprecated_upsample_functions_warn_and_match_pytorch(pt: object) -> None:
    a = np.random.default_rng(2).standard_normal((1, 2, 3, 4))
    calls = [
        lambda F, x: F.upsample(x, scale_factor=2),
        lambda F, x: F.upsample(x, size=(5, 3), mode="bilinear", align_corners=False),
        lambda F, x: F.upsample_nearest(x, size=(6, 5)),
        lambda F, x: F.upsample_bilinear(x, scale_factor=(1.5, 2)),
    ]
    for call in calls:
        with pytest.warns(UserWarning, match="is deprecated. Use `nn.functional.interpolate`"):
            ours = call(nn.functional, torch.tensor(a))
        with pytest.warns(UserWarning):
            theirs = call(pt.nn.functional, pt.tensor(a))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)


def test_pad_circular_negative_widths_wrap_what_is_left() -> None:
    # PyTorch crops the negative widths first, then wraps around what is left
    x = torch.arange(6.0).reshape(1, 1, 6)
    F = nn.functional
    assert F.pad(x, (-1, 2), mode="circular").tolist() == [[[1, 2, 3, 4, 5, 1, 2]]]
    assert F.pad(x, (2, -3), mode="circular").tolist() == [[[1, 2, 0, 1, 2]]]
    with pytest.raises(RuntimeError, match="too wide for mode='circular'"):
        F.pad(x, (0, 7), mode="circular")  # wider than the dim
    # wider than what the negative width leaves: it would wrap around twice, which PyTorch
    # refuses in 1-d (elsewhere it reads memory it never wrote)
    for widths in [(-4, 3), (4, -3), (-1, 6), (0, 0, 2, -1)]:
        with pytest.raises(RuntimeError, match="too wide for mode='circular'"):
            F.pad(x if len(widths) == 2 else x.reshape(1, 2, 3), widths, mode="circular")
    for mode in ("reflect", "replicate", "circular"):
        with pytest.raises(RuntimeError, match="takes away more"):
            F.pad(x, (-4, -3), mode=mode)  # -1 elements
    with pytest.raises(RuntimeError, match="takes away more"):
        F.pad(x, (-3, -3), mode="reflect")  # an empty result: refused in 1-d, as in PyTorch
    image = torch.ones(2, 2, 5, 4)
    assert tuple(F.pad(image, (-2, -2, 0, -1), mode="replicate").shape) == (2, 2, 4, 0)
    with pytest.raises(RuntimeError, match="takes away more"):
        F.pad(image, (-2, -2, -2, -3), mode="replicate")  # every padded dim empty


def test_pad_widths_at_the_edges_match_pytorch(pt: object) -> None:
    # random widths in -4..4 around inputs of 1 to 5 elements per dim, every mode; circular
    # only where PyTorch's output is defined (it reads uninitialised memory when a left
    # width wraps around the cropped input more than once)
    rng = np.random.default_rng(7)
    for _ in range(400):
        dims = int(rng.integers(1, 4))
        shape = (2, 2) + tuple(int(n) for n in rng.integers(1, 6, size=dims))
        widths = tuple(int(w) for w in rng.integers(-4, 5, size=2 * dims))
        mode = ("constant", "reflect", "replicate", "circular")[int(rng.integers(4))]
        if mode == "circular":
            kept = [shape[-1 - i] - max(-widths[2 * i], 0) - max(-widths[2 * i + 1], 0)
                    for i in range(dims)]  # fmt: skip
            if any(k <= 0 or max(widths[2 * i : 2 * i + 2]) > k for i, k in enumerate(kept)):
                continue
        a = rng.standard_normal(shape)
        try:
            theirs = pt.nn.functional.pad(pt.tensor(a), widths, mode=mode).numpy()
        except RuntimeError:
            with pytest.raises(RuntimeError):
                nn.functional.pad(torch.tensor(a), widths, mode=mode)
        else:
            ours = nn.functional.pad(torch.tensor(a), widths, mode=mode).numpy()
            np.testing.assert_array_equal(ours, theirs, err_msg=f"{shape} {widths} {mode}")


def test_pad_negative_widths_match_pytorch(pt: object) -> None:
    a = np.random.default_rng(1).standard_normal((2, 3, 5, 6))
    for mode in ("constant", "reflect", "replicate", "circular"):
        for widths in [
            (-1, 2, 0, 0),
            (2, -3, 1, 1),
            (1, -2, 0, 1),
            (-2, 3, 2, -1),
            (-1, -1, -2, -2),
        ]:
            ours = nn.functional.pad(torch.tensor(a), widths, mode=mode)
            theirs = pt.nn.functional.pad(pt.tensor(a), widths, mode=mode)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=f"{mode} {widths}")


def test_interpolate_takes_floating_and_uint8_inputs_only(pt: object) -> None:
    # PyTorch's nearest kernels exist for floating dtypes and uint8; ours took any dtype
    for name in ("uint8", "int8", "int32", "int64", "bool", "float32", "float64"):
        a = np.arange(6).reshape(1, 2, 3).astype(name)
        try:
            theirs = pt.nn.functional.interpolate(pt.tensor(a), scale_factor=2)
        except NotImplementedError:
            with pytest.raises(NotImplementedError, match="not implemented for"):
                nn.functional.interpolate(torch.tensor(a), scale_factor=2)
        else:
            ours = nn.functional.interpolate(torch.tensor(a), scale_factor=2)
            assert ours.dtype.name == name
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_interpolate_size_gives_one_int_per_spatial_dim(pt: object) -> None:
    # size=(3,) for a 2-D image was broadcast to (3, 3) here; PyTorch raises ValueError
    x, tx = torch.ones(1, 2, 4, 5), pt.ones(1, 2, 4, 5)
    for size in [(3,), [3], (1, 2, 3)]:
        with pytest.raises(ValueError, match="same number of spatial dimensions"):
            nn.functional.interpolate(x, size=size)
        with pytest.raises(ValueError, match="same number of spatial dimensions"):
            pt.nn.functional.interpolate(tx, size=size)
    for size in [3.5, (3.0, 4)]:
        with pytest.raises(TypeError):
            nn.functional.interpolate(x, size=size)
        with pytest.raises(TypeError):
            pt.nn.functional.interpolate(tx, size=size)
    assert tuple(nn.functional.interpolate(x, size=(np.int64(3), 7)).shape) == (1, 2, 3, 7)


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((1, 2, 4, 5), dict(scale_factor=0.1)),  # 0 x 0: an empty output here before
        ((1, 2, 4, 5), dict(scale_factor=-1.0)),
        ((1, 2, 4, 5), dict(size=(0, 3))),  # ZeroDivisionError here before
        ((1, 2, 0, 5), dict(size=(2, 2))),
    ],
)
def test_interpolate_needs_non_empty_input_and_output_sizes(pt: object, shape: tuple,
                                                            kwargs: dict) -> None:  # fmt: skip
    with pytest.raises(RuntimeError, match="sizes should be greater than 0"):
        nn.functional.interpolate(torch.ones(*shape), **kwargs)
    with pytest.raises(RuntimeError, match="sizes should be greater than 0"):
        pt.nn.functional.interpolate(pt.ones(*shape), **kwargs)


def assert_resize_matches(pt: object, a: np.ndarray, resize: object) -> None:
    """resize(T, x) (T: microtorch or PyTorch) gives PyTorch's output, in the input's dtype,
    and input gradient, in float64 (to 1e-12) and float32 (to 1e-5)."""
    for dtype, tol in (("float64", 1e-12), ("float32", 1e-5)):
        x = torch.tensor(a.astype(dtype), requires_grad=True)
        tx = pt.tensor(a.astype(dtype), requires_grad=True)
        ours, theirs = resize(torch, x), resize(pt, tx)
        assert ours.dtype.name == dtype
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                                   atol=tol)  # fmt: skip
        r = np.random.default_rng(1).standard_normal(tuple(theirs.shape)).astype(dtype)
        (ours * torch.tensor(r)).sum().backward()
        (theirs * pt.tensor(r)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((1, 2, 4, 2), dict(scale_factor=1.3, mode="bilinear")),  # W: 2 -> 2, H: 4 -> 5
        ((1, 2, 3), dict(scale_factor=1.2, mode="linear", align_corners=True)),  # 3 -> 3
        ((2, 1, 7, 1, 3), dict(scale_factor=1.3, mode="trilinear")),
        ((1, 2, 5, 2), dict(scale_factor=(2.5, 1.3), mode="bilinear")),
        ((1, 2, 5, 3), dict(size=(7, 3), mode="bilinear", align_corners=True)),
    ],
)
def test_interpolate_linear_copies_a_dim_that_keeps_its_size(pt: object, shape: tuple,
                                                             kwargs: dict) -> None:  # fmt: skip
    # PyTorch's CPU kernels copy such a dim rather than sample it at 1 / scale_factor
    a = np.random.default_rng(0).standard_normal(shape)
    assert_resize_matches(pt, a, lambda T, x: T.nn.functional.interpolate(x, **kwargs))


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((2, 3, 4, 5), dict(size=(7, 3))),
        ((1, 2, 3, 4), dict(scale_factor=2.5, align_corners=True)),
        ((1, 2, 5, 6), dict(scale_factor=(0.34, 0.7))),  # downsampling: taps reach past both ends
        ((1, 2, 5, 6), dict(scale_factor=(0.6, 2.2), recompute_scale_factor=True)),
        ((1, 1, 1, 4), dict(size=(3, 1))),  # a single row: all four taps read it
        ((1, 2, 4, 3), dict(scale_factor=1.3, align_corners=False)),  # 3 -> 3 at 1 / 1.3
    ],
)
def test_interpolate_bicubic_matches_pytorch(pt: object, shape: tuple, kwargs: dict) -> None:
    a = np.random.default_rng(0).standard_normal(shape)
    assert_resize_matches(pt, a, lambda T, x: T.nn.Upsample(mode="bicubic", **kwargs)(x))
    assert repr(nn.Upsample(scale_factor=2, mode="bicubic")) == repr(
        pt.nn.Upsample(scale_factor=2, mode="bicubic")
    )


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((2, 3, 9, 8), dict(size=(4, 3))),  # downsampling: the filter stretches
        ((1, 2, 4, 5), dict(size=(7, 11))),  # upsampling: plain linear / cubic weights
        ((1, 2, 13, 6), dict(scale_factor=(0.34, 2.2), align_corners=True)),
        ((1, 2, 7, 16), dict(scale_factor=0.25, recompute_scale_factor=True)),
        ((1, 1, 6, 5), dict(size=(6, 2))),  # H keeps its size: copied
    ],
)
def test_interpolate_antialias_matches_pytorch(pt: object, mode: str, shape: tuple,
                                               kwargs: dict) -> None:  # fmt: skip
    # (PyTorch's CPU kernel misreads an input or output width of 1, which these avoid)
    a = np.random.default_rng(0).standard_normal(shape)
    assert_resize_matches(
        pt, a, lambda T, x: T.nn.functional.interpolate(x, mode=mode, antialias=True, **kwargs)
    )


@pytest.mark.parametrize(
    "kwargs",
    [dict(scale_factor=1.7, mode="bilinear"), dict(size=(57, 20), mode="bilinear", align_corners=True),
     dict(scale_factor=0.6, mode="bicubic"), dict(size=(50,), mode="linear")],
)  # fmt: skip
def test_interpolate_float16_computes_in_float32_as_pytorch(pt: object, kwargs: dict) -> None:
    """float16 positions, weights and sums in float32, rounded once (PyTorch's opmath): in
    float16 the source positions past 32 are 0.03 apart, and the results were off by 0.25.
    Now as close to the exact result as PyTorch's; antialias refuses float16, as there."""
    shape = (1, 2, 40) if kwargs["mode"] == "linear" else (1, 2, 40, 33)
    x = (np.random.default_rng(9).standard_normal(shape) * 3).astype(np.float16)
    results = []
    for lib, dtype in ((torch, np.float16), (pt, np.float16), (pt, np.float64)):
        t = lib.tensor(x.astype(dtype), requires_grad=True)
        y = lib.nn.functional.interpolate(t, **kwargs)
        (y * y.detach()).sum().backward()
        results.append([y.detach().numpy(), t.grad.numpy()])
    for ours, theirs, exact in zip(*results):
        assert ours.dtype == np.float16
        error, their_error = np.abs(ours - exact).max(), np.abs(theirs - exact).max()
        assert error <= 1.05 * their_error + 1e-6, (error, their_error)
    for lib in (torch, pt):
        with pytest.raises(NotImplementedError):
            lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.float16), size=(2, 2),
                                          mode="bilinear", antialias=True)  # fmt: skip


def test_interpolate_refuses_zero_channels_except_for_area_as_pytorch(pt: object) -> None:
    for mode, shape in [("nearest", (1, 0, 4, 5)), ("linear", (1, 0, 4)),
                        ("bilinear", (1, 0, 4, 5)), ("trilinear", (1, 0, 2, 4, 5))]:  # fmt: skip
        for lib in (torch, pt):
            with pytest.raises(RuntimeError, match="Non-empty"):
                lib.nn.functional.interpolate(lib.ones(shape), size=3, mode=mode)
            out = lib.nn.functional.interpolate(lib.ones((0, 2) + shape[2:]), size=3, mode=mode)
            assert tuple(out.shape) == (0, 2) + (3,) * (len(shape) - 2)  # an empty batch is fine
    for lib in (torch, pt):
        out = lib.nn.functional.interpolate(lib.ones(1, 0, 4, 5), size=3, mode="area")
        assert tuple(out.shape) == (1, 0, 3, 3)


def test_interpolate_area_to_an_empty_size_and_infinite_scales_as_pytorch(pt: object) -> None:
    # "area" is adaptive average pooling: a size of 0 gives an empty output, not an error
    for kwargs in (dict(size=(0, 2)), dict(scale_factor=0.34), dict(scale_factor=(0.5, 1))):
        for lib in (torch, pt):
            out = lib.nn.functional.interpolate(lib.ones(1, 2, 1, 2), mode="area", **kwargs)
            assert tuple(out.shape)[:2] == (1, 2) and 0 in tuple(out.shape)
    for factor in (float("inf"), float("nan")):
        for lib in (torch, pt):
            with pytest.raises(RuntimeError):
                lib.nn.functional.interpolate(lib.ones(1, 2, 3), scale_factor=factor)


def test_interpolate_refuses_recompute_scale_factor_with_a_size(pt: object) -> None:
    for lib in (torch, pt):
        with pytest.raises(ValueError, match="recompute_scale_factor is not meaningful"):
            lib.nn.functional.interpolate(lib.ones(1, 2, 4), size=3, recompute_scale_factor=True)
        out = lib.nn.functional.interpolate(lib.ones(0, 2, 4), size=3)  # an empty batch is fine
        assert tuple(out.shape) == (0, 2, 3)


@pytest.mark.parametrize(
    "dtype, value",
    [
        ("uint8", -1),  # wrapped (OverflowError) here before
        ("uint8", 256),
        ("uint8", 2.7),  # truncated to 2
        ("int8", -128),
        ("int64", float("inf")),  # written as -2**63 here before
        ("int64", float("nan")),
        ("float32", 1e300),  # written as inf here before
        ("float16", 1e5),
        ("float32", float("-inf")),
        ("bool", 2),
    ],
)
def test_constant_pad_value_must_fit_the_dtype_as_in_pytorch(pt: object, dtype: str,
                                                             value: float) -> None:  # fmt: skip
    def outcome(lib: object) -> object:
        try:
            out = lib.nn.functional.pad(lib.zeros(1, 3, dtype=getattr(lib, dtype)), (1, 1),
                                        value=value)  # fmt: skip
        except RuntimeError as e:
            assert "cannot be converted" in str(e)
            return "RuntimeError"
        return out.numpy().tolist()

    assert outcome(torch) == outcome(pt)


def test_reflect_and_replicate_pads_refuse_bool_tensors_as_pytorch(pt: object) -> None:
    a = np.array([[[True, False, True]]])
    for mode in ("reflect", "replicate"):
        with pytest.raises(NotImplementedError, match="not implemented for bool"):
            nn.functional.pad(torch.tensor(a), (1, 1), mode=mode)
        with pytest.raises(NotImplementedError):
            pt.nn.functional.pad(pt.tensor(a), (1, 1), mode=mode)
    ours = nn.functional.pad(torch.tensor(a), (1, 1), mode="circular")  # this one works
    theirs = pt.nn.functional.pad(pt.tensor(a), (1, 1), mode="circular")
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("shape", [(2, 0, 3), (0, 2, 3), (0, 3), (1, 0, 2, 2), (0, 1, 2, 2)])
def test_reflect_and_replicate_pads_of_empty_tensors_as_pytorch(pt: object, shape: tuple) -> None:
    # only the batch dim may be empty: (2, 0, 3) was padded to (2, 0, 5) here
    widths = (1, 1) if len(shape) < 4 else (1, 1, 1, 1)
    for mode in ("reflect", "replicate", "circular"):
        try:
            theirs = pt.nn.functional.pad(pt.ones(*shape), widths, mode=mode)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                nn.functional.pad(torch.ones(*shape), widths, mode=mode)
        else:
            ours = nn.functional.pad(torch.ones(*shape), widths, mode=mode)
            assert tuple(ours.shape) == tuple(theirs.shape), mode


def test_nearest_2d_keeps_or_halves_positions_where_a_dim_keeps_or_doubles(pt: object) -> None:
    # scale_factor=1.3 on 3 rows gives 3 rows: PyTorch's 2-d kernel reads rows 0, 1, 2 (not
    # 0, 0, 1 from floor(i / 1.3)), and i // 2 where a dim doubles; its 1-d and 3-d ones don't
    rng = np.random.default_rng(6)
    for shape, factors in [((1, 2, 3, 4), (1.3, 1.5)), ((1, 1, 2, 3), (1.3, 0.7)),
                           ((1, 1, 3, 2), (2.1, 1.0)), ((1, 2, 3), (1.3,)),
                           ((1, 1, 3, 2, 2), (1.3, 2.1, 1.0))]:  # fmt: skip
        a = rng.standard_normal(shape)
        ours = nn.functional.interpolate(torch.tensor(a), scale_factor=factors)
        theirs = pt.nn.functional.interpolate(pt.tensor(a), scale_factor=factors)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=str(factors))
    rows = nn.functional.interpolate(torch.arange(3.0).reshape(1, 1, 3, 1), scale_factor=(1.3, 1))
    assert rows.flatten().tolist() == [0.0, 1.0, 2.0]
