"""Property tests (hypothesis): broadcasting and reductions agree with NumPy for random
shapes, dims and keepdim, forward and backward, and every gradient has its input's shape."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import microtorch

FAST = settings(max_examples=25, deadline=None)
seeds = st.integers(0, 2**32 - 1)


def reduce_to(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """NumPy's version of backward through broadcasting: sum over the dims that grew."""
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True).reshape(shape)


def leaf(array: np.ndarray) -> microtorch.Tensor:
    return microtorch.tensor(array, requires_grad=True)


# op name -> (microtorch op, NumPy forward, NumPy local derivatives d/da and d/db)
BINARY = {
    "add": (lambda a, b: a + b, np.add, lambda a, b: (np.ones_like(a), np.ones_like(b))),
    "sub": (lambda a, b: a - b, np.subtract, lambda a, b: (np.ones_like(a), -np.ones_like(b))),
    "mul": (lambda a, b: a * b, np.multiply, lambda a, b: (b, a)),
    "div": (lambda a, b: a / b, np.divide, lambda a, b: (1 / b, -a / b**2)),
    "maximum": (microtorch.maximum, np.maximum, lambda a, b: (a > b, b > a)),
    "minimum": (microtorch.minimum, np.minimum, lambda a, b: (a < b, b < a)),
    "pow": (lambda a, b: a**b, np.power, lambda a, b: (b * a ** (b - 1), a**b * np.log(a))),
}


@FAST
@given(
    name=st.sampled_from(sorted(BINARY)),
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
    seed=seeds,
)
def test_binary_broadcasting_matches_numpy(name, shapes, seed) -> None:
    op, forward, local = BINARY[name]
    rng = np.random.default_rng(seed)
    shape_a, shape_b = shapes.input_shapes
    a_np = rng.uniform(0.5, 2.0, shape_a)  # positive: safe for div and pow
    b_np = rng.uniform(0.5, 2.0, shape_b)
    a, b = leaf(a_np), leaf(b_np)
    out = op(a, b)
    expected = forward(a_np, b_np)
    assert tuple(out.shape) == expected.shape == shapes.result_shape
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12, atol=1e-12)

    r = rng.standard_normal(expected.shape)
    (out * microtorch.tensor(r)).sum().backward()
    da, db = local(*np.broadcast_arrays(a_np, b_np))
    for t, d, shape in ((a, da, shape_a), (b, db, shape_b)):
        assert tuple(t.grad.shape) == shape and t.grad.dtype is microtorch.float64
        np.testing.assert_allclose(t.grad.numpy(), reduce_to(d * r, shape), rtol=1e-9, atol=1e-12)


@FAST
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
    seed=seeds,
)
def test_where_broadcasting_matches_numpy(shapes, seed) -> None:
    rng = np.random.default_rng(seed)
    shape_c, shape_a, shape_b = shapes.input_shapes
    cond_np = rng.random(shape_c) < 0.5
    a_np, b_np = rng.standard_normal(shape_a), rng.standard_normal(shape_b)
    a, b = leaf(a_np), leaf(b_np)
    out = microtorch.where(microtorch.tensor(cond_np), a, b)
    np.testing.assert_array_equal(out.detach().numpy(), np.where(cond_np, a_np, b_np))
    r = rng.standard_normal(shapes.result_shape)
    (out * microtorch.tensor(r)).sum().backward()
    cond = np.broadcast_to(cond_np, shapes.result_shape)
    np.testing.assert_allclose(a.grad.numpy(), reduce_to(np.where(cond, r, 0.0), shape_a))
    np.testing.assert_allclose(b.grad.numpy(), reduce_to(np.where(cond, 0.0, r), shape_b))


@FAST
@given(
    batch=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3),
    n=st.integers(1, 3),
    k=st.integers(1, 3),
    m=st.integers(1, 3),
    seed=seeds,
)
def test_batched_matmul_broadcasting_matches_numpy(batch, n, k, m, seed) -> None:
    rng = np.random.default_rng(seed)
    a_np = rng.standard_normal(batch.input_shapes[0] + (n, k))
    b_np = rng.standard_normal(batch.input_shapes[1] + (k, m))
    a, b = leaf(a_np), leaf(b_np)
    out = a @ b
    expected = a_np @ b_np
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    r = rng.standard_normal(expected.shape)
    (out * microtorch.tensor(r)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), reduce_to(r @ np.swapaxes(b_np, -1, -2), a_np.shape))
    np.testing.assert_allclose(b.grad.numpy(), reduce_to(np.swapaxes(a_np, -1, -2) @ r, b_np.shape))


@st.composite
def reduction_args(draw):
    """A shape, a dim argument (None, an int, or a tuple of distinct ints, possibly negative)
    and keepdim."""
    shape = draw(array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4))
    ndim = len(shape)
    if ndim == 0:
        return shape, draw(st.sampled_from([None, 0, -1])), draw(st.booleans())
    axes = st.integers(-ndim, ndim - 1)
    dim = draw(
        st.one_of(
            st.none(),
            axes,
            st.lists(axes, min_size=1, max_size=ndim, unique_by=lambda d: d % ndim).map(tuple),
        )
    )
    return shape, dim, draw(st.booleans())


def np_axes(dim, ndim: int):
    if dim is None or ndim == 0:
        return None if ndim else ()
    return tuple(d % ndim for d in dim) if isinstance(dim, tuple) else dim % ndim


def expand_back(g: np.ndarray, axes, keepdim: bool, shape: tuple) -> np.ndarray:
    """The gradient of a reduction's output, put back where each value came from."""
    if not keepdim:
        g = np.expand_dims(g, axes if axes is not None else tuple(range(len(shape))))
    return np.broadcast_to(g, shape)


@FAST
@given(args=reduction_args(), name=st.sampled_from(["sum", "mean", "amax", "var"]), seed=seeds)
def test_reductions_match_numpy(args, name, seed) -> None:
    shape, dim, keepdim = args
    rng = np.random.default_rng(seed)
    x_np = rng.standard_normal(shape)
    x = leaf(x_np)
    axes = np_axes(dim, len(shape))
    count = x_np.size // max(np.sum(x_np, axis=axes).size, 1)
    if name == "sum":
        out, expected = x.sum(dim, keepdim=keepdim), x_np.sum(axes, keepdims=keepdim)
    elif name == "mean":
        out, expected = x.mean(dim, keepdim=keepdim), x_np.mean(axes, keepdims=keepdim)
    elif name == "amax":
        out, expected = (
            x.amax(() if dim is None else dim, keepdim),
            x_np.max(axes, keepdims=keepdim),
        )
    else:
        if count < 2:
            return  # one value per group: the unbiased variance is NaN (checked elsewhere)
        out, expected = x.var(dim, keepdim=keepdim), x_np.var(axes, ddof=1, keepdims=keepdim)
    assert tuple(out.shape) == np.shape(expected)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-10, atol=1e-12)

    r = rng.standard_normal(np.shape(expected))
    (out * microtorch.tensor(r)).sum().backward()
    g = expand_back(r, axes, keepdim, shape)
    if name == "sum":
        want = g
    elif name == "mean":
        want = g / count
    elif name == "amax":
        want = g * (x_np == x_np.max(axes, keepdims=True))  # random data: no ties
    else:
        want = g * 2 * (x_np - x_np.mean(axes, keepdims=True)) / (count - 1)
    assert tuple(x.grad.shape) == shape
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-9, atol=1e-12)


@FAST
@given(
    shape=array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4),
    data=st.data(),
    largest=st.booleans(),
    keepdim=st.booleans(),
    seed=seeds,
)
def test_max_min_dim_match_numpy(shape, data, largest, keepdim, seed) -> None:
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x_np = np.random.default_rng(seed).standard_normal(shape)
    x = leaf(x_np)
    values, indices = x.max(dim, keepdim) if largest else x.min(dim, keepdim)
    idx = x_np.argmax(dim) if largest else x_np.argmin(dim)
    want_values = np.take_along_axis(x_np, np.expand_dims(idx, dim), dim)
    if not keepdim:
        want_values = want_values.squeeze(dim)
    np.testing.assert_array_equal(values.detach().numpy(), want_values)
    np.testing.assert_array_equal(indices.numpy(), np.expand_dims(idx, dim) if keepdim else idx)
    values.sum().backward()
    one_hot = np.zeros(shape)
    np.put_along_axis(one_hot, np.expand_dims(idx, dim), 1.0, dim)
    np.testing.assert_array_equal(x.grad.numpy(), one_hot)


@FAST
@given(
    shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
    data=st.data(),
    scale=st.sampled_from([1.0, 100.0, 1e4]),
    seed=seeds,
)
def test_softmax_is_stable_and_normalised(shape, data, scale, seed) -> None:
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x_np = np.random.default_rng(seed).standard_normal(shape) * scale
    x = microtorch.tensor(x_np, dtype=microtorch.float32)
    p = x.softmax(dim).numpy()
    logp = x.log_softmax(dim).numpy()
    assert np.isfinite(p).all() and np.isfinite(logp).all()
    np.testing.assert_allclose(p.sum(dim), 1.0, rtol=1e-5)
    x64 = x.numpy().astype(np.float64)  # the float32 values, computed exactly
    shifted = x64 - x64.max(dim, keepdims=True)
    want = shifted - np.log(np.exp(shifted).sum(dim, keepdims=True))
    np.testing.assert_allclose(logp, want, rtol=1e-5, atol=1e-5)


def test_reduce_to_helper() -> None:  # the helper the properties rely on
    g = np.ones((2, 3, 4))
    assert reduce_to(g, (3, 1)).tolist() == [[8.0]] * 3
    assert reduce_to(g, ()).item() == 24.0
    with pytest.raises(ValueError):
        reduce_to(g, (5,))
