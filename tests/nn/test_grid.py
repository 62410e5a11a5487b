"""F.affine_grid and F.grid_sample (nn/grid.py): PyTorch's outputs and gradients (input,
grid and theta) for every mode, padding mode and align_corners, its warnings and errors
(the op table in tests/test_ops.py gradchecks them)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn

F = nn.functional


@pytest.fixture
def pt() -> object:
    """PyTorch, where installed (the tests that compare with it skip without it)."""
    return pytest.importorskip("torch")


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
# one row: reflection's edge; 5-D: volumes (trilinear), one of a single voxel deep
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 2, 1, 4), (2, 2, 3, 4, 2), (1, 2, 1, 3, 1)])
def test_grid_sample_matches_pytorch(pt: object, mode: str, padding_mode: str,
                                     align_corners: bool, shape: tuple) -> None:  # fmt: skip
    if mode == "bicubic" and len(shape) == 5:
        pytest.skip("bicubic is for images only (PyTorch raises for volumes)")
    rng = np.random.default_rng(0)
    out_sizes = (3, 6) if len(shape) == 4 else (2, 3, 4)
    a = rng.standard_normal(shape)
    g = rng.uniform(-3, 3, (shape[0],) + out_sizes + (len(shape) - 2,))  # far outside too
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-5)):
        x, grid = (
            torch.tensor(a.astype(dtype), requires_grad=True),
            torch.tensor(g.astype(dtype), requires_grad=True),
        )
        tx, tgrid = (
            pt.tensor(a.astype(dtype), requires_grad=True),
            pt.tensor(g.astype(dtype), requires_grad=True),
        )
        kwargs = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
        y, ty = F.grid_sample(x, grid, **kwargs), pt.nn.functional.grid_sample(tx, tgrid, **kwargs)
        assert y.dtype is x.dtype
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
        r = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        (y * torch.tensor(r)).sum().backward()
        (ty * pt.tensor(r)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(grid.grad.numpy(), tgrid.grad.numpy(), rtol=tol, atol=10 * tol)


def test_grid_sample_of_an_affine_grid_matches_pytorch(pt: object) -> None:
    # the spatial-transformer use: rotate and shift an image, gradients back to theta
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 5, 6))
    angle = np.array([0.3, -1.1])
    th = np.stack([[np.cos(angle), -np.sin(angle), [0.1, -0.2]],
                   [np.sin(angle), np.cos(angle), [0.0, 0.3]]]).transpose(2, 0, 1)  # fmt: skip
    results = []
    for T in (torch, pt):
        theta = T.tensor(th, requires_grad=True)
        grid = T.nn.functional.affine_grid(theta, (2, 3, 4, 7), align_corners=False)
        y = T.nn.functional.grid_sample(T.tensor(a), grid, align_corners=False)
        (y * y).sum().backward()
        results.append((y.detach().numpy(), theta.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_identity_and_zoom_grids_on_pixel_edges_give_pytorchs_gradients(
    pt: object, dtype: str, align_corners: bool
) -> None:
    # the spatial transformer's start (theta the identity, every position on a pixel, where
    # the bilinear weights have a kink): PyTorch's pixel positions, bit for bit, decide which
    # side's slope the grid gets (its 2-D CPU kernel rounds (x + 1) * (size / 2) - 0.5 once)
    rng = np.random.default_rng(2)
    for shape in ((3, 1, 14, 14), (2, 2, 6, 12), (1, 1, 5, 7)):
        a, r = rng.standard_normal(shape), rng.standard_normal(shape)
        th = np.tile(np.eye(2, 3), (shape[0], 1, 1))
        th[0] = [[2, 0, 0.25], [0, 0.5, -0.5]]  # a zoom and a shift: more positions on edges
        results = []
        for T in (torch, pt):
            x = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
            theta = T.tensor(th, dtype=getattr(T, dtype), requires_grad=True)
            grid = T.nn.functional.affine_grid(theta, x.size(), align_corners=align_corners)
            grid.retain_grad()
            for padding_mode in ("zeros", "border"):
                y = T.nn.functional.grid_sample(x, grid, padding_mode=padding_mode,
                                                align_corners=align_corners)  # fmt: skip
                (y * T.tensor(r, dtype=getattr(T, dtype))).sum().backward(retain_graph=True)
            results.append([grid.detach().numpy(), grid.grad.numpy(), theta.grad.numpy()])
        tol = 1e-10 if dtype == "float64" else 1e-4
        np.testing.assert_array_equal(results[0][0], results[1][0])  # the grids: bit for bit
        for ours, theirs in zip(results[0][1:], results[1][1:]):
            np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def test_positions_nudged_onto_pytorchs_side_keep_non_finite_entries(pt: object) -> None:
    a = np.arange(12.0).reshape(1, 1, 3, 4)
    # (nan positions and reflection are left out: PyTorch's CPU kernel reads pixel 0 for
    # what it cannot fold, and crashes in its backward)
    g = np.array([[[[np.inf, 0.0], [-np.inf, 0.0], [1e300, 0.0], [-1e300, 0.5], [0.25, 0.0]]]])
    for padding_mode in ("zeros", "border"):
        ours = F.grid_sample(torch.tensor(a), torch.tensor(g), padding_mode=padding_mode,
                             align_corners=False)  # fmt: skip
        theirs = pt.nn.functional.grid_sample(
            pt.tensor(a), pt.tensor(g), padding_mode=padding_mode, align_corners=False
        )
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=padding_mode)


def test_nearest_ties_round_to_even_as_pytorch(pt: object) -> None:
    a = np.arange(10.0).reshape(1, 1, 2, 5)
    g = np.array([[[[-0.75, 0], [-0.25, 0], [0.25, 0], [0.75, 0.0]]]])  # pixels 0.5 .. 3.5
    ours = F.grid_sample(torch.tensor(a), torch.tensor(g), "nearest", align_corners=True)
    theirs = pt.nn.functional.grid_sample(pt.tensor(a), pt.tensor(g), "nearest",
                                          align_corners=True)  # fmt: skip
    assert ours.tolist() == theirs.tolist() == [[[[0.0, 2.0, 2.0, 4.0]]]]


def test_align_corners_none_warns_as_pytorch(pt: object) -> None:
    theta = np.eye(2, 3)[None]
    for T in (torch, pt):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            grid = T.nn.functional.affine_grid(T.tensor(theta), (1, 1, 2, 2))
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            T.nn.functional.grid_sample(T.ones(1, 1, 2, 2, dtype=T.float64), grid)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.affine_grid(torch.tensor(theta), (1, 1, 2, 2), align_corners=False)


ERRORS = [
    (lambda T: T.nn.functional.affine_grid(T.ones(2, 2, 3), (2, 3, 4), align_corners=False),
     NotImplementedError, "only supports 4D and 5D sizes"),
    (lambda T: T.nn.functional.affine_grid(T.ones(2, 2, 3), (3, 3, 4, 5), align_corners=False),
     RuntimeError, "asks for a batch of 3"),
    (lambda T: T.nn.functional.affine_grid(T.ones(2, 3, 3), (2, 3, 4, 5), align_corners=False),
     ValueError, "shape Nx2x3"),
    (lambda T: T.nn.functional.affine_grid(T.ones(2, 2, 3, dtype=T.int64), (2, 3, 4, 5),
                                           align_corners=False),
     ValueError, "floating point type"),
    (lambda T: T.nn.functional.affine_grid(T.ones(2, 2, 3), (2, 3, 0, 5), align_corners=False),
     ValueError, "non-zero, positive output size"),
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5), T.ones(1, 4, 5, 2), mode="foo",
                                           align_corners=False),
     ValueError, "expected mode to be"),
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5), T.ones(2, 4, 5, 2),
                                           padding_mode="foo", align_corners=False),
     ValueError, "expected padding_mode to be"),
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5), T.ones(1, 4, 5, 2),
                                           align_corners=False),
     RuntimeError, "same batch size"),
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5), T.ones(2, 4, 5, 1),
                                           align_corners=False),
     RuntimeError, "size 2 in last dimension"),
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5, 2), T.ones(2, 4, 5, 1, 2),
                                           align_corners=False),
     RuntimeError, "size 3 in last dimension"),
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5, 2), T.ones(2, 4, 5, 2),
                                           align_corners=False),
     RuntimeError, "or 5-D input"),
    (lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2, 2), T.zeros(1, 1, 1, 1, 3),
                                           mode="bicubic", align_corners=False),
     RuntimeError, "bicubic interpolation only supports 4D"),  # PyTorch has no tricubic
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5, dtype=T.float64),
                                           T.ones(2, 4, 5, 2), align_corners=False),
     RuntimeError, None),
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5), T.ones(2, 4, 5, 2, dtype=T.int64),
                                           align_corners=False),
     RuntimeError, "of one dtype"),
    (lambda T: T.nn.functional.grid_sample(T.ones(2, 3, 4, 5, dtype=T.int64),
                                           T.ones(2, 4, 5, 2), align_corners=False),
     NotImplementedError, "not implemented for an input of dtype"),  # no integer kernel
]  # fmt: skip


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_grid_errors_as_pytorch(pt: object, call: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call(torch)
    with pytest.raises(error):
        call(pt)


def test_nan_and_infinite_grid_entries_read_as_pytorch(pt: object) -> None:
    # they fall outside the image: bilinear weights turn the zeros into nan, nearest reads
    # 0 (a nan position crashed the gather here before)
    a = np.random.default_rng(0).standard_normal((1, 2, 3, 4))
    inf, nan = float("inf"), float("nan")
    g = np.array([[[[nan, 0.2], [0.3, nan], [inf, 0.0], [-inf, 0.5], [nan, nan], [0.1, 0.2]]]])
    for mode in ("bilinear", "nearest"):
        for align_corners in (True, False):
            x, grid = torch.tensor(a, requires_grad=True), torch.tensor(g, requires_grad=True)
            tx, tgrid = pt.tensor(a, requires_grad=True), pt.tensor(g, requires_grad=True)
            ours = F.grid_sample(x, grid, mode, align_corners=align_corners)
            theirs = pt.nn.functional.grid_sample(tx, tgrid, mode, align_corners=align_corners)
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
            ours.sum().backward()
            theirs.sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
            np.testing.assert_allclose(grid.grad.numpy(), tgrid.grad.numpy(), rtol=1e-12)


def test_grid_sample_on_device(device: str) -> None:
    x = torch.randn(1, 2, 3, 4, device=device, requires_grad=True)
    theta = torch.tensor([[[0.8, -0.2, 0.1], [0.3, 1.1, -0.4]]], device=device, requires_grad=True)
    grid = F.affine_grid(theta, (1, 2, 5, 5), align_corners=False)
    y = F.grid_sample(x, grid, padding_mode="reflection", align_corners=False)
    assert y.device.type == device and tuple(y.shape) == (1, 2, 5, 5)
    y.sum().backward()
    assert x.grad.device.type == device and theta.grad.device.type == device
    volume = torch.randn(1, 2, 3, 4, 2, device=device, requires_grad=True)
    theta = torch.tensor([[[0.9, 0.1, 0.0, 0.2], [0.0, 1.1, -0.1, 0.0], [0.2, 0.0, 0.8, -0.3]]],
                         device=device, requires_grad=True)  # fmt: skip
    grid = F.affine_grid(theta, (1, 2, 2, 3, 3), align_corners=True)
    y = F.grid_sample(volume, grid, mode="nearest", align_corners=True)
    assert y.device.type == device and tuple(y.shape) == (1, 2, 2, 3, 3)
    F.grid_sample(volume, grid, align_corners=True).sum().backward()
    assert volume.grad.device.type == device and theta.grad.device.type == device
