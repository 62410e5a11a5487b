"""autograd.grad: gradients returned as a tuple, with no leaf's .grad touched."""

from __future__ import annotations

import warnings

import pytest

import microtorch

from ..torch_reference import torch_before


def _leaf(values: list, device: str) -> microtorch.Tensor:
    return microtorch.tensor(values, device=device, requires_grad=True)


def test_grad_returns_gradients_and_leaves_dot_grad_alone(device: str) -> None:
    x, w = _leaf([1.0, 2.0, 3.0], device), _leaf([0.5, -1.0, 2.0], device)
    h = x * w
    y = (h * h).sum() + x.sum()
    gx, gh = microtorch.autograd.grad(y, [x, h], retain_graph=True)  # a leaf and a non-leaf
    assert gx.tolist() == [1.5, 5.0, 25.0]  # 2 h w + 1
    assert gh.tolist() == [1.0, -4.0, 12.0]  # 2 h
    assert x.grad is None and w.grad is None
    (g,) = microtorch.autograd.grad(h, x, microtorch.tensor([1.0, 0.0, 2.0], device=device))
    assert g.tolist() == [0.5, 0.0, 4.0]  # grad_outputs weigh the non-scalar output
    assert g.device == x.device


def test_several_outputs_add_up_and_backward_still_works_after() -> None:
    p = _leaf([1.0, 2.0], "cpu")
    q = (p**3).sum()
    (g1,) = microtorch.autograd.grad([q, p.sum()], [p], retain_graph=True)
    assert g1.tolist() == [4.0, 13.0]  # 3 p^2 + 1
    q.backward()  # the kept graph still serves an ordinary backward
    assert p.grad.tolist() == [3.0, 12.0]


def test_unused_inputs_hooks_and_retained_gradients_as_in_pytorch() -> None:
    z, u = _leaf(2.0, "cpu"), _leaf(3.0, "cpu")
    with pytest.raises(RuntimeError, match=r"inputs\[0\] was not used.*allow_unused=True"):
        microtorch.autograd.grad(z * 3, [u])
    gz, gu = microtorch.autograd.grad(z * 3, [z, u], allow_unused=True)
    assert gz.item() == 3.0 and gu is None
    gz, gu = microtorch.autograd.grad(z * 3, [z, u], materialize_grads=True)
    assert gu.item() == 0.0
    a = _leaf([1.0, 2.0], "cpu")
    a.register_hook(lambda g: g * 10)  # a leaf's hooks see its gradient, as in backward()
    assert microtorch.autograd.grad((a * a).sum(), a)[0].tolist() == [20.0, 40.0]
    b = _leaf([1.0, 2.0], "cpu")
    c = b * 2
    c.retain_grad()  # PyTorch fills a retained non-leaf's .grad in autograd.grad too
    microtorch.autograd.grad(c.sum(), b)
    assert c.grad.tolist() == [1.0, 1.0] and b.grad is None


def test_grad_errors() -> None:
    x = _leaf([1.0, 2.0], "cpu")
    with pytest.raises(RuntimeError, match=r"implicitly created only for scalar outputs"):
        microtorch.autograd.grad(x * 2, x)
    with pytest.raises(RuntimeError, match=r"inputs\[0\] does not require grad"):
        microtorch.autograd.grad((x * 2).sum(), microtorch.ones(2))
    with pytest.raises(NotImplementedError, match=r"no gradients of gradients"):
        microtorch.autograd.grad((x * 2).sum(), x, create_graph=True)


def test_backward_with_inputs_fills_only_their_grads(device: str) -> None:
    a, b = _leaf([1.0, 2.0], device), _leaf([3.0, 4.0], device)
    h = a * b
    h.retain_grad()
    loss = (h * a).sum()
    loss.backward(inputs=[b, h], retain_graph=True)
    assert a.grad is None  # not asked for
    assert b.grad.tolist() == [1.0, 4.0] and h.grad.tolist() == [1.0, 2.0]
    loss.backward(inputs=b)  # accumulates, as backward() does
    assert b.grad.tolist() == [2.0, 8.0] and a.grad is None
    with pytest.raises(RuntimeError, match="inputs argument cannot be empty"):
        (a * 2).sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match=r"inputs\[0\] is not a tensor that requires grad"):
        (a * 2).sum().backward(inputs=[microtorch.ones(2)])
    with pytest.raises(NotImplementedError, match="backward: create_graph=True is not supported"):
        (a * 2).sum().backward(create_graph=True)


def _grad_argument_errors(T) -> list:
    """The exception type (or the result) of autograd.grad calls PyTorch refuses or accepts."""
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    calls = [
        lambda: T.autograd.grad(x * 2, x, grad_outputs=T.ones(1)),  # would broadcast
        lambda: T.autograd.grad(x * 2, x, grad_outputs=T.ones(3, 1)),
        lambda: T.autograd.grad(x.sum(), x, grad_outputs=T.ones(1)),  # 0-d output
        lambda: T.autograd.grad([x * 2, x * 3], x, grad_outputs=[T.ones(3)]),  # one too few
        lambda: T.autograd.grad([x.sum(), x.sum()], x, grad_outputs=T.ones(())),
        lambda: T.autograd.grad(x.sum(), []),
        lambda: T.autograd.grad(x.sum(), x, allow_unused=False, materialize_grads=True),
        lambda: T.autograd.grad([], x),
        lambda: T.autograd.grad([], x, allow_unused=True),
        lambda: T.autograd.grad([], x, materialize_grads=True),
        lambda: T.autograd.grad((x * x).sum(), x, only_inputs=True),
    ]
    seen = []
    for call in calls:
        try:
            result = call()
        except (RuntimeError, ValueError) as error:
            seen.append(type(error).__name__)
        else:
            seen.append([None if g is None else g.tolist() for g in result])
    return seen


def test_grad_checks_its_arguments_as_pytorch_does() -> None:
    seen = _grad_argument_errors(microtorch)
    assert seen == ["RuntimeError"] * 6 + ["ValueError", "RuntimeError", [None], [[0.0] * 3]] + [
        [[2.0, 4.0, 6.0]]
    ]
    x = _leaf([1.0, 2.0], "cpu")
    with pytest.raises(RuntimeError, match=r"grad_outputs\[0\] has a shape of \(1,\).*\(2,\)"):
        microtorch.autograd.grad(x * 2, x, grad_outputs=microtorch.ones(1))
    with pytest.raises(RuntimeError, match=r"got 2 tensors and 1 gradients"):
        microtorch.autograd.grad([x * 2, x * 3], x, grad_outputs=[microtorch.ones(2)])
    torch = pytest.importorskip("torch")
    if torch_before((2, 13)):
        pytest.skip("the installed PyTorch raises other error types for some of these")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # (torch: only_inputs is deprecated)
        assert _grad_argument_errors(torch) == seen


def _batched_gradients(T) -> list:
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = T.tensor([0.5, -1.0], requires_grad=True)
    u = T.tensor([1.0], requires_grad=True)  # not used
    y = (x * x)[:2] * w  # shape (2,)
    rows = T.eye(2)  # one grad_outputs per row: the rows of the Jacobians
    gx, gw, gu = T.autograd.grad(y, [x, w, u], rows, is_grads_batched=True, allow_unused=True,
                                 retain_graph=True)  # fmt: skip
    seen = [gx.tolist(), gw.tolist(), gu]
    (gx_again,) = T.autograd.grad([y], [x], [rows * 2], is_grads_batched=True)
    seen.append(gx_again.tolist())
    return seen


def test_grad_with_batched_grad_outputs_gives_one_gradient_per_entry() -> None:
    seen = _batched_gradients(microtorch)
    assert seen[0] == [[1.0, 0.0, 0.0], [0.0, -4.0, 0.0]]  # d y_i / d x_j = 2 x_j w_i [i == j]
    assert seen[1] == [[1.0, 0.0], [0.0, 4.0]] and seen[2] is None
    assert seen[3] == [[2.0, 0.0, 0.0], [0.0, -8.0, 0.0]]
    x = _leaf([1.0, 2.0], "cpu")
    with pytest.raises(RuntimeError, match="is_grads_batched=True needs grad_outputs"):
        microtorch.autograd.grad(x * 2, x, is_grads_batched=True)
    torch = pytest.importorskip("torch")
    assert _batched_gradients(torch) == seen


def _constant_in_place_results(lib) -> list:
    """A non-leaf overwritten in place by constants (comparisons, logical ops) stays in the
    graph with a zero gradient for its old values, as in PyTorch."""
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = []
    for write in (
        lambda y: y.eq_(4.0),
        lambda y: y.gt_(x),
        lambda y: y[1:].lt_(5.0),  # through a view
    ):
        x.grad = None
        y = x * 2
        write(y)
        (y * x + x).sum().backward()
        out.append((y.tolist(), y.requires_grad, y.is_leaf, x.grad.tolist()))
    return out


def test_constants_written_in_place_keep_the_tensor_in_the_graph() -> None:
    ours = _constant_in_place_results(microtorch)
    assert ours[0] == ([0.0, 1.0, 0.0], True, False, [1.0, 2.0, 1.0])
    x = microtorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * 2).logical_not_()  # (PyTorch passes the old gradient through this one, as if
    (y * x + x).sum().backward()  # the values had not changed; here they get none)
    assert y.requires_grad and x.grad.tolist() == [1.0, 1.0, 1.0]
    torch = pytest.importorskip("torch")
    assert ours == _constant_in_place_results(torch)


def test_variable_is_the_old_name_for_a_leaf_tensor() -> None:
    from microtorch.autograd import Variable

    t = microtorch.ones(2)
    v = Variable(t, requires_grad=True)
    assert v is not t and v.is_leaf and v.requires_grad and not t.requires_grad
    assert v.data_ptr() == t.data_ptr()  # the same memory, as in PyTorch
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0]
    assert not Variable(microtorch.ones(2, requires_grad=True) * 2).requires_grad
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert not Variable(t, volatile=True).requires_grad
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1.0, 2.0])
