"""Spatial transformers: ``affine_grid`` (the sampling positions of an affine map) and
``grid_sample`` (an image read at such positions), both compositions of differentiable ops,
so autograd gives the gradients with respect to theta, the input and the grid.

Positions are normalized: -1 and 1 are the left and right (top and bottom) edges of the
image. With ``align_corners=True`` they are the centres of the corner pixels (pixel i of n
at -1 + 2i / (n - 1)); with False (the default) the outer edges of the corner pixels (pixel
i at (2i + 1) / n - 1), so the result does not depend on the image's resolution.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from .. import functional as _functional
from .._tensor import Tensor
from .._warn import warn_user
from ..amp.autocast_mode import autocast_inputs
from ..autograd.grad_mode import no_grad
from ..factories import linspace, ones

_DEFAULT_CHANGED = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def _pixel_centres(n: int, align_corners: bool, like: Tensor) -> Tensor:
    """(n,): the normalized position of each pixel's centre along a dim of n pixels."""
    if n <= 1:  # one pixel sits at the centre, 0, in either convention (as PyTorch)
        return linspace(0, 0, n, dtype=like.dtype, device=like.device)
    centres = linspace(-1, 1, n, dtype=like.dtype, device=like.device)
    return centres if align_corners else centres * ((n - 1) / n)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid (N, H, W, 2) of a batch of 2-D affine maps theta (N, 2, 3) for an
    output of ``size`` (N, C, H, W): grid[n, i, j] = theta[n] @ (x_j, y_i, 1), with x, y the
    normalized pixel centres; 3-D: theta (N, 3, 4), size (N, C, D, H, W) -> (N, D, H, W, 3)."""
    if align_corners is None:
        warn_user(_DEFAULT_CHANGED)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    spatial = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (spatial, spatial + 1):
        raise ValueError(
            f"Expected a batch of {spatial}D affine matrices of shape Nx{spatial}x{spatial + 1} "
            f"for size {size}. Got {tuple(theta.shape)}."
        )
    if theta.shape[0] != size[0]:  # PyTorch's matmul refuses it: a RuntimeError
        raise RuntimeError(
            f"affine_grid: theta holds {theta.shape[0]} matrices (shape {tuple(theta.shape)}) "
            f"but size {size} asks for a batch of {size[0]}"
        )
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if align_corners and min(size[2:]) == 1:
        warn_user(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details."
        )
    dims = size[2:]  # (H, W) or (D, H, W)
    # base (*dims, spatial + 1): x along the last dim, then y (then z), then a 1 for the shift
    axes = [_pixel_centres(n, align_corners, theta) for n in reversed(dims)]  # x, y, (z)
    columns = []
    for k, centres in enumerate(axes):
        shape = [1] * spatial
        shape[spatial - 1 - k] = dims[spatial - 1 - k]
        columns.append(centres.reshape(shape).expand(dims))
    columns.append(ones(dims, dtype=theta.dtype, device=theta.device))
    base = _functional.stack(columns, -1).reshape(1, -1, spatial + 1)  # (1, prod(dims), s+1)
    grid = _functional.matmul(base, theta.transpose(1, 2))  # (N, prod(dims), spatial)
    return grid.reshape((size[0],) + dims + (spatial,))


_MODES = ("bilinear", "nearest", "bicubic")
_PADDING_MODES = ("zeros", "border", "reflection")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:  # fmt: skip
    """Read the image input (N, C, H, W) at the normalized positions grid (N, Ho, Wo, 2)
    ((x, y) each, -1 .. 1 across the image): out (N, C, Ho, Wo); a volume (N, C, D, H, W)
    at grid (N, Do, Ho, Wo, 3) ((x, y, z)) gives (N, C, Do, Ho, Wo). "bilinear" mixes the
    four pixels around a position (the eight voxels, trilinearly, for a volume), "nearest"
    takes the closest (ties to even), "bicubic" (images only) the 4 x 4 around it with
    cubic convolution weights. Positions outside read zeros ("zeros"), the edge
    pixel ("border") or the image mirrored at its edges ("reflection")."""
    input, grid = autocast_inputs("grid_sample", input, grid)
    if mode not in _MODES:
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _PADDING_MODES:
        raise ValueError(
            f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    _functional._check_tensor(input, "grid_sample")
    _functional._check_tensor(grid, "grid_sample", "grid")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim or input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected 4-D input (N, C, H, W) with a grid (N, H_out, W_out, 2), "
            f"or 5-D input (N, C, D, H, W) with a grid (N, D_out, H_out, W_out, 3), of the same "
            f"batch size, but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}"
        )
    spatial = input.ndim - 2
    if grid.shape[-1] != spatial:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {spatial} in last dimension, but got "
            f"grid with sizes {list(grid.shape)}"
        )
    if not input.dtype.is_floating_point:  # (no integer kernel: NotImplementedError)
        raise NotImplementedError(
            f"grid_sampler(): not implemented for {input.dtype} inputs, as in PyTorch; use .float()"
        )
    if input.dtype is not grid.dtype:
        raise RuntimeError(
            f"grid_sampler(): expected floating input and grid of one dtype, but got input "
            f"{input.dtype} and grid {grid.dtype}"
        )
    if mode == "bicubic" and spatial == 3:  # PyTorch has no tricubic either
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if align_corners is None:
        warn_user(_DEFAULT_CHANGED)
        align_corners = False
    n, c, *sizes = input.shape  # (H, W) or (D, H, W)
    out_sizes = tuple(grid.shape[1:-1])
    points = grid.reshape(n, 1, math.prod(out_sizes), spatial)  # (N, 1, P, s): a row of P
    flat = input.reshape(n, c, math.prod(sizes))
    if mode == "bicubic":
        out = _bicubic(flat, points, sizes, padding_mode, align_corners)
        return out.reshape((n, c) + out_sizes)
    # the grid's last dim is (x, y[, z]): x runs along W (the last dim), y along H, z along
    # D; each coordinate (N, 1, P) in pixels
    coords = [_source_position(points[..., k], sizes[-1 - k], padding_mode, align_corners)
              for k in range(spatial)]  # fmt: skip
    if mode == "nearest":  # bilinear at the rounded position: all the weight on one pixel
        rounded = [_functional.round(p) for p in coords]  # derivative 0
        weight = 1.0
        for p in rounded:
            finite = _functional.nan_to_num(p)
            # 1 (even where p is nan or inf, which read zeros); the grid's gradient is 0
            weight = weight * (1 - (finite - finite.detach()))
        out = _pixel(flat, [p.detach() for p in rounded], sizes) * weight
    else:
        with no_grad():  # the corners: their positions are constants for the gradient
            lows = [_functional.floor(p) for p in coords]
        fractions = [p - low for p, low in zip(coords, lows)]  # how far past the low corner
        out = 0.0
        # each corner: 0 (low) or 1 (low + 1) along x, y (and z), weighted by the product
        # of (1 - fraction) or fraction along each dim (2 ** spatial corners)
        for corner in itertools.product((0, 1), repeat=spatial):
            weight = 1.0
            for step, f in zip(corner, fractions):
                weight = weight * (f if step else 1 - f)
            positions = [low + step for low, step in zip(lows, corner)]
            out = out + _pixel(flat, positions, sizes) * weight
    return out.reshape((n, c) + out_sizes)


def _bicubic(flat: Tensor, points: Tensor, sizes: list, padding_mode: str,
             align_corners: bool) -> Tensor:  # fmt: skip
    """mode="bicubic": each position (x, y) reads the 4 x 4 pixels around it, columns
    floor(x) - 1 .. floor(x) + 2 and rows likewise, weighted by Keys' cubic convolution
    (a = -0.75) of tx = x - floor(x) along x times that of ty along y. The position is not
    folded into the image first: each of the 16 taps is clamped or mirrored on its own, as
    PyTorch does. points (N, 1, P, 2) -> (N, C, P)."""
    h, w = sizes
    x = _unnormalize(points[..., 0], w, align_corners)  # (N, 1, P)
    y = _unnormalize(points[..., 1], h, align_corners)
    with no_grad():  # the taps' positions are constants for the gradient
        x0, y0 = _functional.floor(x), _functional.floor(y)
    weights_x, weights_y = _cubic_weights(x - x0), _cubic_weights(y - y0)
    out = 0.0
    for i, weight_y in zip((-1, 0, 1, 2), weights_y):
        with no_grad():
            row = _fold(y0 + i, h, padding_mode, align_corners)
        for j, weight_x in zip((-1, 0, 1, 2), weights_x):
            with no_grad():
                column = _fold(x0 + j, w, padding_mode, align_corners)
            out = out + _pixel(flat, [column, row], sizes) * (weight_x * weight_y)
    return out


def _cubic_weights(t: Tensor) -> list:
    """The weights of the taps at offsets -1, 0, 1, 2 from floor(src) for t = src -
    floor(src) in [0, 1): Keys' cubic convolution with a = -0.75 at distances 1 + t, t,
    1 - t and 2 - t (the near branch within 1, the far one from 1 to 2)."""
    a = -0.75

    def near(d: Tensor) -> Tensor:
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d: Tensor) -> Tensor:
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _pixel(flat: Tensor, positions: list, sizes: list) -> Tensor:
    """flat (N, C, prod(sizes)) read at the integer positions (x, y[, z]) (each (N, 1, P))
    of an image of ``sizes`` (H, W) or (D, H, W): (N, C, P), zero where a position falls
    outside the image (or is nan: a nan grid entry reads nothing)."""
    with no_grad():
        inside = None
        index: Any = 0
        for p, size, stride in zip(positions, reversed(sizes), _strides(sizes)):
            fits = (p >= 0) & (p <= size - 1)  # False for nan
            inside = fits if inside is None else inside & fits
            index = index + p * stride
        index = _functional.where(inside, index, 0.0).long()
        index = index.expand(flat.shape[0], flat.shape[1], index.shape[-1])
    return _functional.where(inside, _functional.gather(flat, 2, index), 0.0)


def _strides(sizes: list) -> list:
    """The flat-index stride of x, y (and z) in an image of ``sizes`` (H, W) / (D, H, W):
    1, W (, H * W)."""
    return [math.prod(sizes[len(sizes) - k :]) for k in range(len(sizes))]


def _source_position(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """Normalized coordinates -> pixel coordinates along a dim of ``size`` pixels, folded
    back into the image for "border" (clamped) and "reflection" (mirrored)."""
    return _fold(_unnormalize(coord, size, align_corners), size, padding_mode, align_corners)


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """Normalized coordinates (-1 .. 1 across the image) -> pixel coordinates."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _fold(pixels: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """Pixel coordinates outside the image folded back in: clamped ("border"), mirrored
    ("reflection") or left as they are ("zeros", where they read zeros)."""
    if padding_mode == "reflection":  # mirror at the corner pixels' centres or outer edges
        if align_corners:
            pixels = _reflect(pixels, 0, 2 * (size - 1))
        else:
            pixels = _reflect(pixels, -1, 2 * size - 1)
    if padding_mode != "zeros":
        pixels = _clip(pixels, size - 1)
    return pixels


def _clip(pixels: Tensor, high: int) -> Tensor:
    """pixels kept in [0, high]; the gradient is 0 at and beyond either end, as PyTorch's."""
    pixels = _functional.where(pixels <= 0, 0.0, pixels)
    return _functional.where(pixels >= high, float(high), pixels)


def _reflect(pixels: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """pixels mirrored into [twice_low / 2, twice_high / 2], back and forth as often as
    needed (the bounds are given doubled so that they stay integers)."""
    if twice_low == twice_high:  # a single pixel: everything reads it
        return pixels * 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = pixels - low
    distance = _functional.where(distance < 0, -distance, distance)  # mirrored at low
    with no_grad():
        flips = _functional.floor(distance / span)  # how many spans it went past low
    extra = distance - flips * span  # its place within the last span
    return _functional.where(flips % 2 == 0, extra + low, span - extra + low)
