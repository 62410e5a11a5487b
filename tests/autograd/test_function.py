"""PyTorch's ``torch.autograd.function`` names (microtorch/autograd/function.py):
FunctionCtx, InplaceFunction and once_differentiable, used as PyTorch code uses them."""

from __future__ import annotations

import pytest

import microtorch
from microtorch.autograd.function import Function, FunctionCtx, InplaceFunction, once_differentiable


def _square(lib):
    """A custom Function from the PyTorch docs' pattern, with once_differentiable."""
    seen = []

    class Square(lib.autograd.function.InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            seen.append(isinstance(ctx, lib.autograd.function.FunctionCtx))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = lib.tensor([3.0, -1.0], requires_grad=True)
    y = Square.apply(x)
    y.sum().backward()
    node = y.grad_fn
    return [seen, x.grad.tolist(), node.name(), isinstance(node, lib.autograd.graph.Node)]


def test_a_custom_function_through_the_function_module():
    got = _square(microtorch)
    assert got == [[True], [6.0, -2.0], "SquareBackward", True]
    torch = pytest.importorskip("torch")
    assert got == _square(torch)


def test_inplace_function_keeps_its_flag():
    assert issubclass(InplaceFunction, Function)
    assert InplaceFunction().inplace is False and InplaceFunction(inplace=True).inplace is True


def test_function_ctx_is_the_class_of_ctx_and_other_names_are_missing():
    from microtorch.autograd import custom

    assert FunctionCtx is custom.FunctionCtx
    with pytest.raises(AttributeError, match="has no attribute 'NestedIOFunction'"):
        microtorch.autograd.function.NestedIOFunction  # noqa: B018


def test_once_differentiable_returns_backward_unchanged():
    def backward(ctx, grad):
        return grad

    assert once_differentiable(backward) is backward
