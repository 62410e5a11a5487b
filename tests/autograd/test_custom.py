"""PyTorch-style custom Functions (microtorch/autograd/custom.py): staticmethod forward and
backward on tensors with a ctx, recorded as one node of the graph."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.autograd import Function, gradcheck


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


class Affine(Function):
    """y = x * w + shift, with a Python number among the inputs."""

    @staticmethod
    def forward(ctx, x, w, shift):
        ctx.save_for_backward(x, w)
        ctx.seen = ctx.needs_input_grad
        return x * w + shift

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        grad_x = grad * w if ctx.needs_input_grad[0] else None
        grad_w = grad * x if ctx.needs_input_grad[1] else None
        return grad_x, grad_w, None


def test_a_custom_function_is_one_node_with_its_own_backward(device: str) -> None:
    x = microtorch.tensor([1.0, -2.0, 0.5], device=device, requires_grad=True)
    h = x * 1
    y = Cube.apply(h)
    assert y.grad_fn.name() == "CubeBackward" and y.grad_fn.next_functions == ((h.grad_fn, 0),)
    assert y.tolist() == [1.0, -8.0, 0.125]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0, 0.75]


def test_gradcheck_of_custom_functions() -> None:
    x = microtorch.randn(3, 4, dtype=microtorch.float64, requires_grad=True)
    w = microtorch.randn(4, dtype=microtorch.float64, requires_grad=True)
    assert gradcheck(Cube.apply, (x,))
    assert gradcheck(lambda x, w: Affine.apply(x, w, 2.5), (x, w))


def test_needs_input_grad_and_inputs_without_gradient() -> None:
    x = microtorch.ones(2, 3, requires_grad=True)
    w = microtorch.full((3,), 2.0)  # no gradient wanted: backward skips it
    y = Affine.apply(x, w, 1.0)
    assert y.grad_fn.ctx.seen == (True, False, False)
    y.sum().backward()
    assert x.grad.tolist() == [[2.0] * 3] * 2 and w.grad is None
    with microtorch.no_grad():
        z = Affine.apply(x, w, 1.0)
    assert z.grad_fn is None and not z.requires_grad
    assert Affine.apply(w, w, 0.0).grad_fn is None  # nothing requires grad


def _needs_input_grad_seen_by_forward(T) -> list:
    seen = []

    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, k):
            seen.append(ctx.needs_input_grad)
            return x * w * k

        @staticmethod
        def backward(ctx, grad):
            return grad, None, None

    x, w = T.ones(2, requires_grad=True), T.ones(2)
    Scale.apply(x, w, 2.0)
    with T.no_grad():
        Scale.apply(x, w, 2.0)  # from requires_grad alone, also with no graph recorded
    Scale.apply(w, w, 2.0)
    return seen


def test_needs_input_grad_in_forward_follows_requires_grad_as_in_pytorch() -> None:
    seen = _needs_input_grad_seen_by_forward(microtorch)
    assert seen == [(True, False, False), (True, False, False), (False, False, False)]
    torch = pytest.importorskip("torch")
    assert _needs_input_grad_seen_by_forward(torch) == seen


def test_a_gradient_of_a_broadcast_shape_is_summed_down() -> None:
    class AddRow(Function):
        @staticmethod
        def forward(ctx, x, row):
            return x + row

        @staticmethod
        def backward(ctx, grad):
            return grad, grad  # grad has x's shape (2, 3); row is (3,)

    x = microtorch.zeros(2, 3, requires_grad=True)
    row = microtorch.zeros(3, requires_grad=True)
    AddRow.apply(x, row).sum().backward()
    assert row.grad.tolist() == [2.0, 2.0, 2.0]


def test_setup_context_and_mark_non_differentiable() -> None:
    class TopIndex(Function):
        @staticmethod
        def forward(x):
            return x.argmax(-1)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output)

        @staticmethod
        def backward(ctx, grad):
            raise AssertionError("never called")

    out = TopIndex.apply(microtorch.tensor([[1.0, 3.0, 2.0]], requires_grad=True))
    assert out.tolist() == [1] and not out.requires_grad and out.grad_fn is None


def test_saved_tensors_are_checked_and_freed_like_any_op() -> None:
    x = microtorch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = Cube.apply(h)
    with microtorch.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()

    y = Cube.apply(x * 1).sum()
    y.backward(retain_graph=True)
    y.backward()  # kept by retain_graph
    assert x.grad.tolist() == [6.0, 24.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_forward_that_returns_its_input_gives_a_new_tensor() -> None:
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2  # (a made-up gradient, to see it is this one that runs)

    x = microtorch.ones(2, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


class _Returns(Function):
    """backward returns whatever ``ctx.answer`` is."""

    @staticmethod
    def forward(ctx, x, answer, scale=1.0):
        ctx.answer = answer
        return x * scale

    @staticmethod
    def backward(ctx, grad):
        return ctx.answer(grad)


@pytest.mark.parametrize(
    "answer, pattern",
    [
        (lambda g: (), r"incorrect number of gradients \(expected 2.*got 0\)"),
        (lambda g: (g, None, g), "incorrect number of gradients"),
        (lambda g: (g, g), "gradient different than None at position 1.*not a tensor"),
        (lambda g: (g[:1], None), r"invalid gradient at index 0 - got \[1\] but expected .*\[3\]"),
        (lambda g: (g.numpy(), None), "backward must return tensors"),
    ],
)
def test_wrong_gradients_from_backward_are_named(answer, pattern) -> None:
    x = microtorch.ones(3, requires_grad=True)
    y = _Returns.apply(x, answer)
    with pytest.raises(RuntimeError, match=pattern):
        y.sum().backward()


def test_extra_none_gradients_and_keyword_arguments_are_accepted() -> None:
    x = microtorch.ones(3, requires_grad=True)
    _Returns.apply(x, lambda g: (g * 3, None, None), scale=3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def _several_outputs(T, materialize: bool = True) -> list:
    """A Function returning two tensors, an integer result marked non-differentiable and a
    number; only the first output is used, so the second's gradient is materialized."""
    seen = []

    class Parts(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.set_materialize_grads(materialize)
            ctx.save_for_backward(x, y)
            index = (x > 1).long()
            ctx.mark_non_differentiable(index)
            return x * y, x + y, index, 7

        @staticmethod
        def backward(ctx, g_prod, g_sum, g_index, g_number):
            x, y = ctx.saved_tensors
            seen.append([None if g is None else (g.tolist(), str(g.dtype).split(".")[-1])
                         for g in (g_prod, g_sum, g_index, g_number)])  # fmt: skip
            g_sum = 0 if g_sum is None else g_sum
            return g_prod * y + g_sum, g_prod * x + g_sum

    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = T.tensor([3.0, 4.0], requires_grad=True)
    prod, total, index, number = Parts.apply(x, y)
    seen.append([prod.grad_fn.name(), total.grad_fn.name(), index.requires_grad, number])
    seen.append([node.variable is leaf for (node, _), leaf in
                 zip(total.grad_fn.next_functions, (x, y))])  # fmt: skip
    prod.register_hook(lambda g: g * 10)
    (prod * 2).sum().backward()
    seen.append((x.grad.tolist(), y.grad.tolist()))
    return seen


@pytest.mark.parametrize("materialize", [True, False])
def test_several_outputs_as_in_pytorch(materialize: bool) -> None:
    seen = _several_outputs(microtorch, materialize)
    unused = ([0.0, 0.0], "float32") if materialize else None
    assert seen == [
        ["PartsBackward", "PartsBackward", False, 7],
        [True, True],
        [([20.0, 20.0], "float32"), unused, ([0, 0], "int64") if materialize else None, None],
        ([60.0, 80.0], [20.0, 40.0]),
    ]
    torch = pytest.importorskip("torch")
    assert _several_outputs(torch, materialize) == seen


def _two_outputs_used_together(T) -> list:
    class Pair(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2, x * x

        @staticmethod
        def backward(ctx, g_double, g_square):
            (x,) = ctx.saved_tensors
            return g_double * 2 + g_square * 2 * x

    x = T.tensor([1.0, -3.0], requires_grad=True)
    double, square = Pair.apply(x)
    square.retain_grad()
    (double * square).sum().backward(retain_graph=True)  # d/dx 2x^3 = 6 x^2
    seen = [x.grad.tolist(), square.grad.tolist()]
    seen.append([g.tolist() for g in T.autograd.grad((double + square).sum(), [square, x])])
    (one,) = Pair.apply(x)[:1]
    one.sum().backward()
    seen.append(x.grad.tolist())
    try:
        one.sum().backward()  # the saved x was freed by the first backward
    except RuntimeError:
        seen.append("RuntimeError")
    return seen


def test_outputs_used_together_share_one_backward_as_in_pytorch() -> None:
    seen = _two_outputs_used_together(microtorch)
    assert seen == [[6.0, 54.0], [2.0, -6.0], [[1.0, 1.0], [4.0, -4.0]], [8.0, 56.0],
                    "RuntimeError"]  # fmt: skip
    torch = pytest.importorskip("torch")
    assert _two_outputs_used_together(torch) == seen


def test_gradcheck_and_jacobian_of_several_outputs() -> None:
    class SinSquare(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x * x

        @staticmethod
        def backward(ctx, g_sin, g_square):
            (x,) = ctx.saved_tensors
            return g_sin * x.cos() + g_square * 2 * x

    class Wrong(SinSquare):
        @staticmethod
        def backward(ctx, g_sin, g_square):
            return g_sin + g_square

    x = microtorch.tensor([0.3, -1.2], dtype=microtorch.float64, requires_grad=True)
    assert gradcheck(SinSquare.apply, (x,))
    assert not gradcheck(Wrong.apply, (x,), raise_exception=False)
    d_sin, d_square = microtorch.autograd.functional.jacobian(SinSquare.apply, x.detach())
    np.testing.assert_allclose(d_square.numpy(), np.diag(2 * x.detach().numpy()))


def _node_hooks_of_several_outputs(T) -> list:
    class Pair(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g_double, g_triple):
            return g_double * 2 + g_triple * 3

    seen = []

    def rounded(grads):
        return [None if g is None else g.tolist() for g in grads]

    x = T.ones(2, requires_grad=True)
    double, triple = Pair.apply(x)
    node = double.grad_fn  # (PyTorch's one node of the call; here the output's, which passes
    # the hooks on to it)
    node.register_prehook(lambda go: seen.append(("pre", rounded(go))) or (go[0] * 10, go[1]))
    node.register_hook(lambda gi, go: seen.append(("post", rounded(gi), rounded(go))))
    (double + triple).sum().backward()
    seen.append(x.grad.tolist())
    return seen


def test_node_hooks_of_a_function_with_several_outputs_as_in_pytorch() -> None:
    seen = _node_hooks_of_several_outputs(microtorch)
    assert seen == [("pre", [[1.0, 1.0], [1.0, 1.0]]),
                    ("post", [[23.0, 23.0]], [[10.0, 10.0], [1.0, 1.0]]), [23.0, 23.0]]  # fmt: skip
    torch = pytest.importorskip("torch")
    assert _node_hooks_of_several_outputs(torch) == seen


def test_forward_returns_a_tensor_or_a_tuple() -> None:
    class Listed(Function):
        @staticmethod
        def forward(ctx, x):
            return [x * 2]

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="must return a tensor or a tuple.*got list"):
        Listed.apply(microtorch.ones(2, requires_grad=True))


def _missing_methods(T) -> list:
    class NoForward(T.autograd.Function):
        pass

    class NoBackward(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class WithVjp(NoBackward):
        @staticmethod
        def vjp(ctx, grad):
            return grad * 7

    seen = []
    for call in (lambda: NoForward.apply(T.ones(1, requires_grad=True)),
                 lambda: NoBackward.apply(T.ones(1, requires_grad=True)).sum().backward()):  # fmt: skip
        try:
            call()
        except NotImplementedError:
            seen.append("NotImplementedError")
    x = T.ones(2, requires_grad=True)
    WithVjp.apply(x).sum().backward()
    return seen + [x.grad.tolist()]


def test_missing_forward_or_backward_and_vjp_as_in_pytorch() -> None:
    seen = _missing_methods(microtorch)
    assert seen == ["NotImplementedError"] * 2 + [[7.0, 7.0]]
    torch = pytest.importorskip("torch")
    assert _missing_methods(torch) == seen


def test_array_level_ops_are_unchanged() -> None:
    """microtorch's own form (forward on arrays, instance methods) still goes its own way."""

    class Double(Function):
        def forward(self, x):
            return x * 2

        def backward(self, grad):
            return grad * 2

    x = microtorch.tensor(np.arange(3.0), requires_grad=True)
    Double.apply(x).sum().backward()
    assert not Double.pytorch_style and Cube.pytorch_style
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_once_differentiable_backward_as_in_pytorch() -> None:
    from microtorch.autograd.function import once_differentiable

    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            assert not microtorch.is_grad_enabled()  # no graph of the backward is recorded
            return grad * 2 * x

    x = microtorch.tensor([1.0, -3.0], requires_grad=True)
    (Square.apply(x) * microtorch.tensor([1.0, 2.0])).sum().backward()
    assert x.grad.tolist() == [2.0, -12.0]
    torch = pytest.importorskip("torch")
    assert torch.autograd.function.once_differentiable.__name__ == once_differentiable.__name__


def test_save_for_backward_takes_only_tensors_or_none() -> None:
    def function_saving(T, value):
        class Saves(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, value)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        return Saves

    x = microtorch.ones(2, requires_grad=True)
    function_saving(microtorch, None).apply(x).sum().backward()  # None is fine
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match=r"argument 1 is of type int.*ctx.value"):
        function_saving(microtorch, 3).apply(x)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        function_saving(torch, 3).apply(torch.ones(2, requires_grad=True))


def _in_place_function_with_mark_dirty(T) -> list:
    class DoubleInPlace(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class MarksButReturnsNew(DoubleInPlace):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x * 2

    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = DoubleInPlace.apply(b)
    seen = [c is b, b.tolist(), b.grad_fn is not None, b._version]  # mul_, then mark_dirty
    (b * b).sum().backward()  # b is the output now: d/da (2 a)^2 = 8 a
    seen.append(a.grad.tolist())
    z = T.tensor([1.0, 2.0])
    seen.append((DoubleInPlace.apply(z) is z, z.tolist(), z.requires_grad))
    for bad in (lambda: DoubleInPlace.apply(T.ones(1, requires_grad=True)),
                lambda: MarksButReturnsNew.apply(T.ones(1, requires_grad=True) * 1)):  # fmt: skip
        try:
            bad()
        except RuntimeError:
            seen.append("RuntimeError")
    return seen


def test_mark_dirty_makes_the_changed_input_the_output_as_in_pytorch() -> None:
    seen = _in_place_function_with_mark_dirty(microtorch)
    assert (
        seen
        == [True, [2.0, 4.0], True, 2, [8.0, 16.0], (True, [2.0, 4.0], False)]
        + ["RuntimeError"] * 2
    )
    torch = pytest.importorskip("torch")
    assert _in_place_function_with_mark_dirty(torch) == seen
