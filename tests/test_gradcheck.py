"""microtorch.autograd.gradcheck: passes right gradients, and catches wrong ones, naming the
worst input and index (element by element for small inputs, along random directions for
large ones)."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.autograd import Function, GradcheckError, gradcheck
from microtorch.autograd.gradcheck import ELEMENTWISE_LIMIT
from microtorch.backend import xp_of


class Cube(Function):
    """x ** 3, written the way a new op is written: forward and backward on raw arrays."""

    def forward(self, x):
        self.save_for_backward(x)
        return x * x * x

    def backward(self, grad):
        (x,) = self.saved
        return grad * 3 * x * x


class WrongCube(Cube):
    def backward(self, grad):
        (x,) = self.saved
        return grad * 2 * x * x  # wrong factor


class ScaledAdd(Function):
    """a + 2 b, with a bug only in b's gradient at one element."""

    def forward(self, a, b):
        return a + 2 * b

    def backward(self, grad):
        gb = 2 * grad
        gb = gb.copy()
        gb[0, 1] += 0.5
        return grad, gb


def f64(*shape: int, device: str = "cpu") -> microtorch.Tensor:
    return microtorch.randn(*shape, dtype=microtorch.float64, device=device, requires_grad=True)


def test_a_correct_op_passes(device: str) -> None:
    assert gradcheck(Cube.apply, (f64(3, 2, device=device),))


def test_a_wrong_op_fails_and_names_the_input_and_index() -> None:
    with pytest.raises(GradcheckError, match=r"input 0 at index \(\d+, \d+\)"):
        gradcheck(WrongCube.apply, (f64(2, 2),))


def test_the_worst_mismatch_is_reported() -> None:
    a, b = f64(2, 3), f64(2, 3)
    with pytest.raises(GradcheckError) as info:
        gradcheck(ScaledAdd.apply, (a, b))
    message = str(info.value)
    assert "input 1 at index (0, 1)" in message  # a's gradient is right, b's is not
    assert "backward gives" in message and "finite differences give" in message


def test_large_inputs_are_checked_along_random_directions() -> None:
    n = ELEMENTWISE_LIMIT + 10
    big = f64(n)
    assert gradcheck(lambda t: (t * t).sum() + Cube.apply(t), (big,))
    with pytest.raises(GradcheckError, match="input 0 along random direction"):
        gradcheck(WrongCube.apply, (big,))


def test_many_inputs_some_without_grad_and_several_outputs() -> None:
    a, b = f64(2, 3), f64(3)
    mask = microtorch.tensor([True, False, True])
    index = microtorch.tensor([1, 0])

    def fn(a, b, mask, index):
        out = microtorch.where(mask, a * b, a.exp())
        return out[index], out.max(dim=1)  # a tensor and a (values, indices) pair

    assert gradcheck(lambda *t: (fn(*t)[0], *fn(*t)[1]), (a, b, mask, index))


def test_tolerances_are_honoured() -> None:
    class SlightlyOff(Function):
        def forward(self, x):
            return x * 2.0

        def backward(self, grad):
            return grad * 2.0001  # relative error 5e-5

    x = f64(3)
    assert gradcheck(SlightlyOff.apply, (x,), atol=1e-8, rtol=1e-3)
    with pytest.raises(GradcheckError):
        gradcheck(SlightlyOff.apply, (x,), atol=1e-8, rtol=1e-6)


def test_inputs_are_restored_after_checking() -> None:
    x = f64(2, 2)
    before = x.detach().numpy().copy()
    gradcheck(Cube.apply, (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)


def test_gradients_the_user_has_are_left_alone() -> None:
    x = f64(2, 2)
    x.grad = microtorch.ones(2, 2, dtype=microtorch.float64)  # e.g. accumulated by training
    gradcheck(Cube.apply, (x,))
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_raise_exception_false_returns_false() -> None:
    assert gradcheck(WrongCube.apply, (f64(2, 2),), raise_exception=False) is False
    assert gradcheck(Cube.apply, f64(2), raise_exception=False) is True  # one tensor: fine


def test_non_finite_gradients_are_mismatches() -> None:
    class NanGrad(Function):
        def forward(self, x):
            return x + 0.0

        def backward(self, grad):
            return grad * xp_of(grad).nan

    with pytest.raises(GradcheckError):
        gradcheck(NanGrad.apply, (f64(2),))


def test_bad_calls_are_rejected() -> None:
    with pytest.raises(ValueError, match="use float64 inputs"):
        gradcheck(Cube.apply, (microtorch.randn(2, requires_grad=True),))
    with pytest.raises(ValueError, match="no input requires grad"):
        gradcheck(Cube.apply, (microtorch.randn(2, dtype=microtorch.float64),))
    with pytest.raises(GradcheckError, match="no output requires grad"):
        gradcheck(lambda t: t.argmax(), (f64(3),))


def test_gradcheck_is_public_and_documented() -> None:
    assert microtorch.autograd.gradcheck is gradcheck
    for words in ("finite differences", "float64", "random directions", "GradcheckError"):
        assert words in gradcheck.__doc__


def _cube(x):
    return x**3


def _cube_with_a_wrong_gradient(x):
    """x ** 3 forward, but 2 x^2 as its gradient (instead of 3 x^2)."""
    c = x.detach()
    return c**3 + (x - c) * 2 * c * c


def _gradcheck_with_pytorchs_keywords(T) -> list:
    x = T.randn(2, 3, dtype=T.float64, requires_grad=True)
    options = dict(eps=1e-6, atol=1e-5, rtol=1e-3, nondet_tol=0.0, check_undefined_grad=True,
                   check_grad_dtypes=True, check_batched_grad=False, check_backward_ad=True,
                   masked=None)  # fmt: skip
    wrong = _cube_with_a_wrong_gradient
    return [
        T.autograd.gradcheck(func=_cube, inputs=(x,)),
        T.autograd.gradcheck(_cube, (x,), raise_exception=False, **options),
        T.autograd.gradcheck(wrong, (x,), raise_exception=False, **options),
        T.autograd.gradcheck(_cube, (x,), fast_mode=True),
        T.autograd.gradcheck(wrong, (x,), fast_mode=True, raise_exception=False),
    ]


def test_gradcheck_takes_pytorchs_keyword_names_and_options() -> None:
    seen = _gradcheck_with_pytorchs_keywords(microtorch)
    assert seen == [True, True, False, True, False]
    with pytest.raises(GradcheckError, match="along random direction"):  # fast_mode: directions
        gradcheck(WrongCube.apply, (f64(2, 2),), fast_mode=True)
    with pytest.raises(NotImplementedError, match="reverse-mode autograd only"):
        gradcheck(Cube.apply, (f64(2),), check_forward_ad=True)
    torch = pytest.importorskip("torch")
    assert _gradcheck_with_pytorchs_keywords(torch) == seen
