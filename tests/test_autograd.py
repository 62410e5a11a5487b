"""The autograd graph: how gradients flow, accumulate and get freed, grad modes, in-place ops
with the version counter, hooks, retain_grad, and the errors PyTorch users expect."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch import nn


def leaf(values, device: str = "cpu", dtype=None) -> microtorch.Tensor:
    return microtorch.tensor(values, dtype=dtype, device=device, requires_grad=True)


def values(t: microtorch.Tensor) -> list:
    return t.detach().cpu().tolist()


# ------------------------------------------------------------------ graph shapes
def test_diamond_graph(device: str) -> None:
    # a feeds two branches that meet again: d = (2a) * (a + 1), dd/da = 2(a + 1) + 2a
    a = leaf([1.0, -2.0, 3.0], device)
    b = a * 2
    c = a + 1
    d = (b * c).sum()
    d.backward()
    assert values(a.grad) == pytest.approx([6.0, -6.0, 14.0])


def test_deeper_diamond_reaches_every_branch_once(device: str) -> None:
    a = leaf([0.5], device)
    b = a.exp()
    c = b * b  # b used twice
    d = b + c
    (d * b).sum().backward()
    # f = b^2 + b^3 with b = e^a: df/da = (2b^2 + 3b^3)
    e = np.exp(0.5)
    assert a.grad.item() == pytest.approx(2 * e**2 + 3 * e**3, rel=1e-6)


def test_reuse_a_times_a(device: str) -> None:
    a = leaf([3.0, -1.0], device)
    (a * a).sum().backward()
    assert values(a.grad) == [6.0, -2.0]


def test_leaf_used_by_many_ops_gets_the_sum(device: str) -> None:
    a = leaf([2.0], device)
    (a + a + 3 * a + a * a).sum().backward()
    assert a.grad.item() == pytest.approx(1 + 1 + 3 + 4)


def test_gradients_accumulate_over_backward_calls_until_reset(device: str) -> None:
    a = leaf([1.0, 2.0], device)
    (a * 3).sum().backward()
    (a * 3).sum().backward()
    assert values(a.grad) == [6.0, 6.0]
    a.grad = None
    (a * 3).sum().backward()
    assert values(a.grad) == [3.0, 3.0]


def test_ten_thousand_op_chain_has_no_recursion_limit() -> None:
    x = leaf(1.0, dtype=microtorch.float64)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.backward()
    assert x.grad.item() == pytest.approx(1.0001**10_000, rel=1e-9)


def test_long_mixed_chain_frees_without_recursion() -> None:
    x = leaf([0.1, 0.2])
    y = x
    for i in range(5_000):
        y = (y + 0.001).tanh() if i % 2 else y * 1.0
    y.sum().backward()
    assert x.grad is not None and np.isfinite(x.grad.numpy()).all()
    del y  # dropping a 5,000-node graph must not overflow the stack


def test_only_inputs_that_require_grad_get_gradients(device: str) -> None:
    a = leaf([1.0, 2.0], device)
    b = microtorch.tensor([3.0, 4.0], device=device)
    out = (a * b).sum()
    assert out.requires_grad and not b.requires_grad
    out.backward()
    assert values(a.grad) == [3.0, 4.0]
    assert b.grad is None


def test_is_leaf_and_grad_fn() -> None:
    a = leaf([1.0])
    b = a * 2
    c = microtorch.tensor([1.0])
    assert a.is_leaf and a.grad_fn is None
    assert not b.is_leaf and b.grad_fn.name() == "MulBackward0"
    assert c.is_leaf and (c * 2).is_leaf  # no graph is recorded without requires_grad
    assert b.grad_fn.parents[0] is a  # a leaf that requires grad is a graph input
    assert b.grad_fn.next_functions[0][0].variable is a  # PyTorch's view: its AccumulateGrad


def test_detach_cuts_the_graph() -> None:
    a = leaf([2.0])
    b = (a * a).detach()
    assert not b.requires_grad and b.grad_fn is None
    (a * b).sum().backward()
    assert a.grad.item() == 4.0  # b is a constant


def test_gradient_flows_through_dtype_casts_and_keeps_the_leaf_dtype(device: str) -> None:
    a = leaf([1.0, 2.0], device)  # float32
    (a.double() * 2).sum().backward()
    assert a.grad.dtype is microtorch.float32
    b = leaf([1.0, 2.0], device, dtype=microtorch.float64)
    (b.to(microtorch.float32) ** 2).sum().backward()
    assert b.grad.dtype is microtorch.float64
    assert values(b.grad) == [2.0, 4.0]


def test_sum_with_a_wider_dtype_gives_the_input_dtype_gradient() -> None:
    a = leaf([[1.0, 2.0]])
    total = a.sum(dtype=microtorch.float64)
    assert total.dtype is microtorch.float64
    total.backward()
    assert a.grad.dtype is microtorch.float32 and values(a.grad) == [[1.0, 1.0]]


def test_clone_passes_the_gradient() -> None:
    a = leaf([1.0, 2.0])
    (a.clone() * 3).sum().backward()
    assert values(a.grad) == [3.0, 3.0]


def test_integer_results_do_not_require_grad() -> None:
    a = leaf([1.0, 5.0, 3.0])
    assert not a.argmax().requires_grad
    assert not (a > 2).requires_grad
    assert not a.max(dim=0).indices.requires_grad


def test_autograd_backward_function() -> None:
    a = leaf([1.0, 2.0])
    microtorch.autograd.backward((a * a).sum())
    assert values(a.grad) == [2.0, 4.0]


def _autograd_backward_of_two_outputs_sharing_a_graph(T) -> list:
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor([0.5, -1.0], requires_grad=True)
    h = (a * b).exp()  # both outputs go through h: one backward pass must serve both
    T.autograd.backward([h * 2, h.sum()], [T.tensor([1.0, 3.0]), None])
    seen = [a.grad.tolist(), b.grad.tolist()]
    c = T.tensor([1.0, 2.0], requires_grad=True)
    T.autograd.backward([(a * c).sum(), (c * c).sum()], inputs=[c])  # only c's .grad changes
    seen += [c.grad.tolist(), a.grad.tolist()]
    T.autograd.backward(a * c, grad_tensors=T.tensor([1.0, 0.0]), inputs=c)
    return seen + [c.grad.tolist()]


def test_autograd_backward_of_several_tensors_is_one_pass_as_in_pytorch() -> None:
    seen = _autograd_backward_of_two_outputs_sharing_a_graph(microtorch)
    h = np.exp([0.5, -2.0])  # d/da of sum(2 w h) + sum(h) = (2 w + 1) h b, with w = [1, 3]
    np.testing.assert_allclose(seen[0], [3.0, 7.0] * h * [0.5, -1.0])
    np.testing.assert_allclose(seen[1], [3.0, 7.0] * h * [1.0, 2.0])
    assert seen[2] == [3.0, 6.0] and seen[4] == [4.0, 6.0]  # a + 2 c, then + [1, 0] * a
    assert seen[3] == seen[0]  # a was not in inputs
    with pytest.raises(RuntimeError, match=r"element 1 of tensors does not require grad"):
        microtorch.autograd.backward([leaf([1.0]).sum(), microtorch.ones(1)])
    torch = pytest.importorskip("torch")
    expected = _autograd_backward_of_two_outputs_sharing_a_graph(torch)
    for mine, theirs in zip(seen, expected):
        np.testing.assert_allclose(mine, theirs)


# ------------------------------------------------------------------ backward's arguments
def test_backward_on_non_scalar_needs_gradient() -> None:
    a = leaf([1.0, 2.0])
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ):
        (a * 2).backward()


def test_backward_with_gradient_is_a_vector_jacobian_product(device: str) -> None:
    a = leaf([1.0, 2.0, 3.0], device)
    (a * a).backward(gradient=microtorch.tensor([1.0, 0.0, -1.0], device=device))
    assert values(a.grad) == [2.0, 0.0, -6.0]


def test_backward_gradient_of_wrong_shape_is_rejected() -> None:
    a = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"gradient has shape \(3,\).*shape \(2,\)"):
        (a * 2).backward(microtorch.ones(3))


def test_backward_on_tensor_without_grad_raises() -> None:
    with pytest.raises(RuntimeError, match="does not require grad"):
        microtorch.ones(2).sum().backward()


def test_backward_on_a_one_element_non_0d_tensor() -> None:
    a = leaf([2.0])
    (a * 3).backward()  # shape (1,): one element, like PyTorch this needs no gradient=
    assert a.grad.item() == 3.0


# ------------------------------------------------------------------ freeing and retain_graph
def test_second_backward_without_retain_graph_raises_clearly() -> None:
    a = leaf([1.0, 2.0])
    y = (a * a).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward() -> None:
    a = leaf([1.0, 2.0])
    y = (a.exp() * a).sum()
    y.backward(retain_graph=True)
    first = a.grad.numpy().copy()
    y.backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * first, rtol=1e-6)
    with pytest.raises(RuntimeError, match="retain_graph"):
        y.backward()  # the second call did not retain it


# ------------------------------------------------------------------ grad modes
def test_no_grad_context_manager(device: str) -> None:
    a = leaf([1.0], device)
    with microtorch.no_grad():
        b = a * 2
        assert not microtorch.is_grad_enabled()
    assert microtorch.is_grad_enabled()
    assert not b.requires_grad and b.grad_fn is None


def test_no_grad_decorator_with_and_without_parentheses() -> None:
    a = leaf([1.0])

    @microtorch.no_grad()
    def double(t):
        return t * 2

    @microtorch.no_grad
    def triple(t):
        return t * 3

    assert not double(a).requires_grad
    assert not triple(a).requires_grad
    assert triple.__name__ == "triple"
    assert (a * 2).requires_grad


def test_enable_grad_inside_no_grad() -> None:
    a = leaf([1.0])
    with microtorch.no_grad():
        with microtorch.enable_grad():
            b = a * 2
        c = a * 2

        @microtorch.enable_grad()
        def inside(t):
            return t * 2

        d = inside(a)
    assert b.requires_grad and not c.requires_grad and d.requires_grad


def test_grad_mode_is_restored_after_an_exception() -> None:
    with pytest.raises(ValueError):
        with microtorch.no_grad():
            raise ValueError("boom")
    assert microtorch.is_grad_enabled()


def test_set_grad_enabled_as_call_and_context_manager() -> None:
    a = leaf([1.0])
    with microtorch.set_grad_enabled(False):
        assert not (a * 2).requires_grad
    assert (a * 2).requires_grad
    microtorch.set_grad_enabled(False)
    try:
        assert not microtorch.is_grad_enabled()
    finally:
        microtorch.set_grad_enabled(True)
    assert microtorch.is_grad_enabled()


def _modes_seen_through_a_decorated_generator(T, decorate) -> list:
    """Grad mode inside a decorated generator's body and in the caller between its steps."""

    @decorate(T)
    def steps():
        received = yield T.is_grad_enabled()
        yield (T.is_grad_enabled(), received)
        try:
            yield "waiting"
        except KeyError:
            yield ("thrown", T.is_grad_enabled())
        return "done"

    seen = []
    with T.set_grad_enabled(True):  # the caller's mode
        gen = steps()
        seen.append(next(gen))
        seen.append(T.is_grad_enabled())
        seen.append(gen.send("sent"))
        seen.append(next(gen))
        seen.append(gen.throw(KeyError("k")))
        seen.append(T.is_grad_enabled())
        with pytest.raises(StopIteration) as stop:
            next(gen)
        seen.append(stop.value.value)
    return seen


@pytest.mark.parametrize(
    "decorate",
    [lambda T: T.no_grad(), lambda T: T.inference_mode(), lambda T: T.set_grad_enabled(False)],
    ids=["no_grad", "inference_mode", "set_grad_enabled"],
)
def test_mode_decorators_on_a_generator_function_apply_inside_its_body(decorate) -> None:
    seen = _modes_seen_through_a_decorated_generator(microtorch, decorate)
    # inside the body: grad off at every step; in the caller between steps: grad on again
    assert seen == [False, True, (False, "sent"), "waiting", ("thrown", False), True, "done"]
    assert microtorch.is_grad_enabled()
    torch = pytest.importorskip("torch")
    assert _modes_seen_through_a_decorated_generator(torch, decorate) == seen


def test_enable_grad_on_a_generator_function_inside_no_grad() -> None:
    a = leaf([1.0])

    @microtorch.enable_grad()
    def doubles():
        yield a * 2
        yield a * 3

    with microtorch.no_grad():
        results = list(doubles())
        assert not microtorch.is_grad_enabled()
    assert [r.requires_grad for r in results] == [True, True]


def test_set_grad_enabled_as_a_decorator_leaves_the_mode_as_it_was() -> None:
    a = leaf([1.0])

    @microtorch.set_grad_enabled(False)
    def double(t):
        return t * 2, microtorch.is_grad_enabled()

    assert microtorch.is_grad_enabled()  # decorating did not switch gradients off
    out, inside = double(a)
    assert not out.requires_grad and inside is False
    assert microtorch.is_grad_enabled() and (a * 2).requires_grad


@pytest.mark.parametrize("mode", [None, 0, 1.0, "no", np.True_])
def test_set_grad_enabled_takes_only_a_bool_as_in_pytorch(mode) -> None:
    with pytest.raises(TypeError, match=r"set_grad_enabled\(\).*must be bool"):
        microtorch.set_grad_enabled(mode)
    assert microtorch.is_grad_enabled()  # nothing was switched
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        torch.set_grad_enabled(mode)


# ------------------------------------------------------------------ in-place ops
def test_inplace_methods_return_self_and_change_values(device: str) -> None:
    t = microtorch.tensor([1.0, 2.0, 3.0], device=device)
    assert t.add_(1) is t and values(t) == [2.0, 3.0, 4.0]
    assert t.sub_(1) is t and values(t) == [1.0, 2.0, 3.0]
    assert t.mul_(2) is t and values(t) == [2.0, 4.0, 6.0]
    assert t.div_(2) is t and values(t) == [1.0, 2.0, 3.0]
    assert t.add_(microtorch.ones(3, device=device), alpha=2) is t and values(t) == [3.0, 4.0, 5.0]
    mask = microtorch.tensor([True, False, True], device=device)
    assert t.masked_fill_(mask, 0.5) is t and values(t) == [0.5, 4.0, 0.5]
    assert t.copy_(microtorch.tensor([7.0, 8.0, 9.0], device=device)) is t
    assert values(t) == [7.0, 8.0, 9.0]
    assert t.fill_(2.5) is t and values(t) == [2.5, 2.5, 2.5]
    assert t.zero_() is t and values(t) == [0.0, 0.0, 0.0]
    before = t
    t += 4
    assert t is before and values(t) == [4.0, 4.0, 4.0]


def test_inplace_math_methods_write_into_the_tensor(device: str) -> None:
    t = microtorch.tensor([[0.25, 4.0], [1.0, 16.0]], device=device)
    alias = t.view(4)
    assert t.sqrt_() is t and values(alias) == [0.5, 2.0, 1.0, 4.0]
    assert t.reciprocal_().neg_() is t and values(t) == [[-2.0, -0.5], [-1.0, -0.25]]
    assert t.relu_().tril_() is t and values(t) == [[0.0, 0.0], [0.0, 0.0]]
    n = microtorch.tensor([1, 4], device=device)
    with pytest.raises(RuntimeError, match="can't be cast"):
        n.sqrt_()  # float results do not fit an integer tensor, as in PyTorch
    assert values(n) == [1, 4]


def test_writes_into_an_expanded_tensor_are_refused_clearly(device: str) -> None:
    rows = microtorch.ones(3, 1, device=device).expand(3, 4)  # 4 elements share a cell
    for write in (lambda: rows.mul_(2), lambda: rows.relu_(), lambda: rows.__setitem__(0, 5.0)):
        with pytest.raises(RuntimeError, match="refers to a single memory location.*clone"):
            write()
    rows.clone().mul_(2)  # what the message says to do
    # an expand that repeats nothing is an ordinary view: a write reaches the original
    base = microtorch.ones(3, device=device)
    base.expand(1, 3).mul_(2)
    assert values(base) == [2.0, 2.0, 2.0]


def test_float16_gradients_of_broadcasts_are_summed_in_float32_as_pytorch() -> None:
    """The gradient of an expand (or of any broadcast operand) is a sum; PyTorch sums
    float16 in float32, and so does unbroadcast: in float16 the error of a 3000-term sum
    was a few percent."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    upstream = rng.standard_normal((3000, 4)).astype(np.float16)  # (summed along dim 0: in
    grads = []  # float16 NumPy adds its rows one at a time, with no pairwise summation)
    for T in (torch, microtorch):
        x = T.tensor([[0.5, 1.0, 2.0, 3.0]], dtype=T.float16, requires_grad=True)
        b = T.tensor([0.25], dtype=T.float16, requires_grad=True)
        (x.expand(3000, 4) * 1 + b).backward(T.tensor(upstream))
        grads.append(x.grad.reshape(-1).tolist() + [b.grad.item()])
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-3)
    exact = upstream.astype(np.float64).sum(axis=0)
    np.testing.assert_allclose(grads[1][:4], exact, rtol=2e-3)


def test_copy_broadcasts_and_casts() -> None:
    t = microtorch.zeros(2, 3)
    t.copy_(microtorch.tensor([1, 2, 3]))  # int64 source, broadcast over rows
    assert t.dtype is microtorch.float32
    assert t.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]


def test_setitem_forms(device: str) -> None:
    t = microtorch.zeros(3, 4, device=device)
    t[0] = 1.0
    t[1, 1:3] = microtorch.tensor([2.0, 3.0], device=device)
    t[:, -1] = 9.0
    t[microtorch.tensor([2, 2], device=device), 0] = 5.0
    assert values(t) == [[1.0, 1.0, 1.0, 9.0], [0.0, 2.0, 3.0, 9.0], [5.0, 0.0, 0.0, 9.0]]


def test_setitem_with_ints_and_index_arrays_in_pytorchs_order(device: str) -> None:
    """An int next to an index array is applied first, as in PyTorch: t[1, :, [0, 2]] is
    t[1][:, [0, 2]], a (3, 2) block (NumPy's order would make it (2, 3))."""
    t = microtorch.zeros(2, 3, 4, device=device)
    t[1, :, [0, 2]] = microtorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=device)
    assert values(t[1]) == [[1.0, 0.0, 2.0, 0.0], [3.0, 0.0, 4.0, 0.0], [5.0, 0.0, 6.0, 0.0]]
    assert values(t[0]) == [[0.0] * 4] * 3
    # the same write recorded in the graph: the gradients land where PyTorch puts them
    a = leaf(np.zeros((2, 3, 4)).tolist(), device)
    v = leaf([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device)
    h = a * 1
    h[1, :, [0, 2]] = v
    (h * microtorch.arange(24.0, device=device).reshape(2, 3, 4)).sum().backward()
    assert values(v.grad) == [[12.0, 14.0], [16.0, 18.0], [20.0, 22.0]]
    assert values(a.grad)[1][0] == [0.0, 13.0, 0.0, 15.0]


def test_boolean_mask_assignment_under_no_grad(device: str) -> None:
    # the top-k sampling idiom: logits[logits < v[:, [-1]]] = -float("inf")
    logits = leaf([[1.0, 4.0, 2.0, 3.0]], device)
    v, _ = microtorch.topk(logits, 2)
    with microtorch.no_grad():
        logits[logits < v[:, [-1]]] = -float("inf")
    assert values(logits) == [[-float("inf"), 4.0, -float("inf"), 3.0]]
    probs = microtorch.softmax(logits.detach(), dim=-1)
    assert values(probs)[0][0] == 0.0 and sum(values(probs)[0]) == pytest.approx(1.0)


def test_a_uint8_index_is_a_mask_as_in_pytorch(device: str) -> None:
    x = microtorch.arange(6.0, device=device).view(2, 3)
    byte_mask = microtorch.tensor([1, 0, 1], dtype=microtorch.uint8, device=device)
    with pytest.warns(UserWarning, match="uint8 tensor used as an index is a mask"):
        picked = x[:, byte_mask]
    assert values(picked) == [[0.0, 2.0], [3.0, 5.0]]  # not columns 1, 0, 1


def test_inplace_on_a_leaf_that_requires_grad_raises() -> None:
    a = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        a.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        a[0] = 5.0


def test_inplace_on_a_leaf_under_no_grad_is_allowed() -> None:
    # what an optimizer step does
    a = leaf([1.0, 2.0])
    with microtorch.no_grad():
        a.sub_(0.5 * microtorch.ones(2))
        a[0] = 0.0
    assert values(a) == [0.0, 1.5]
    assert a.requires_grad and a.is_leaf


def test_gradient_through_inplace_ops_on_non_leaves(device: str) -> None:
    a = leaf([1.0, 2.0, 3.0], device)
    b = leaf([10.0, 20.0, 30.0], device)
    h = a * 2
    h.mul_(3)  # h = 6a
    h.add_(b)  # h = 6a + b
    h.masked_fill_(microtorch.tensor([False, True, False], device=device), 0.0)
    (h * h).sum().backward()
    # d/da sum(h^2) = 2h * 6 where not masked; d/db = 2h where not masked
    assert values(a.grad) == [12 * 16.0, 0.0, 12 * 48.0]
    assert values(b.grad) == [32.0, 0.0, 96.0]


def test_gradient_through_setitem_and_copy(device: str) -> None:
    a = leaf([1.0, 2.0, 3.0], device)
    v = leaf(5.0, device)
    h = a * 1
    h[1] = v  # position 1 now comes from v
    (h * h).sum().backward()
    assert values(a.grad) == [2.0, 0.0, 6.0]
    assert v.grad.item() == 10.0

    b = leaf([4.0, 5.0], device)
    buf = microtorch.zeros(2, device=device)
    buf.copy_(b)  # a buffer that did not require grad now depends on b
    assert buf.requires_grad
    (buf * 3).sum().backward()
    assert values(b.grad) == [3.0, 3.0]


def test_zero_and_fill_cut_the_gradient_of_old_values() -> None:
    a = leaf([1.0, 2.0])
    h = a * 2
    h.zero_()
    h.add_(a)
    h.sum().backward()
    assert values(a.grad) == [1.0, 1.0]  # only the add_ after zero_ depends on a


def test_version_counter_catches_modified_saved_tensor() -> None:
    a = leaf([1.0, 2.0])
    h = a * 1
    y = (h * h).sum()  # Mul saved h
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_version_counter_catches_modified_saved_output() -> None:
    a = leaf([1.0, 2.0])
    y = a.exp()  # Exp saves its output
    z = y.sum()
    with microtorch.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_version_counter_is_shared_with_views_and_detach() -> None:
    a = leaf([1.0, 2.0, 3.0, 4.0])
    h = a * 1
    y = (h * h).sum()
    with microtorch.no_grad():
        h.view(2, 2)[0, 0] = 10.0  # a write through a view of h
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()

    b = leaf([1.0, 2.0])
    z = (b * b).sum()
    b.detach().zero_()  # shares b's memory and version counter
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_detach_in_place_refuses_views_as_in_pytorch() -> None:
    x = leaf([1.0, 2.0, 3.0])
    h = x * 2
    h.detach_()  # not a view: cut out of the graph
    assert not h.requires_grad and h.is_leaf
    for view in (x[0], (x * 2)[1:], x.detach()[0], microtorch.ones(2, 3).view(6)):
        with pytest.raises(RuntimeError, match=r"detach_\(\).*views.*use \.detach\(\)"):
            view.detach_()
    torch = pytest.importorskip("torch")
    t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for view in (t[0], (t * 2)[1:], t.detach()[0], torch.ones(2, 3).view(6)):
        with pytest.raises(RuntimeError):
            view.detach_()


def _in_place_change_through_data_after_forward(T) -> list:
    x = T.tensor([1.0, -2.0], requires_grad=True)
    y = x * x  # saves x
    x.data.mul_(2)  # not seen by autograd: backward uses the new values, no error
    y.sum().backward()
    seen = [x.grad.tolist(), x.tolist()]
    z = T.tensor([1.0, 2.0], requires_grad=True)
    w = z * z
    z.detach().mul_(2)  # detach() shares the version counter: caught
    try:
        w.sum().backward()
    except RuntimeError:
        seen.append("RuntimeError")
    return seen


def test_in_place_change_through_data_is_not_tracked_unlike_detach_as_in_pytorch() -> None:
    seen = _in_place_change_through_data_after_forward(microtorch)
    assert seen == [[4.0, -8.0], [2.0, -4.0], "RuntimeError"]
    torch = pytest.importorskip("torch")
    assert _in_place_change_through_data_after_forward(torch) == seen


def test_inplace_through_dot_data_is_not_counted_as_in_pytorch(device: str) -> None:
    """x.data shares x's memory but not its version counter (detach() shares both)."""
    a = leaf([1.0, 2.0], device)
    y = a.exp()  # Exp saves its output
    y.data.zero_()
    assert y._version == 0 and y.data._version == 0
    y.sum().backward()  # uses the new values, as PyTorch does
    assert values(a.grad) == [0.0, 0.0]


def test_einsum_of_one_operand_is_a_view_as_in_pytorch(device: str) -> None:
    m = microtorch.arange(9.0, device=device).reshape(3, 3)
    microtorch.einsum("ii->i", m).fill_(0.0)  # zeroes m's diagonal, as in PyTorch
    assert values(m) == [[0.0, 1.0, 2.0], [3.0, 0.0, 5.0], [6.0, 7.0, 0.0]]
    a = leaf([[1.0, 2.0], [3.0, 4.0]], device)
    h = a * 1
    y = (h * h).sum()
    with microtorch.no_grad():
        microtorch.einsum("ij->ji", h).mul_(2)  # a write through the view changes h
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    s = microtorch.einsum("ij->j", m)  # a sum is new memory: writing it leaves m alone
    s.add_(1)
    assert values(m)[0] == [0.0, 1.0, 2.0]


def test_inplace_change_that_no_backward_needs_is_fine() -> None:
    a = leaf([1.0, 2.0])
    h = a * 1
    y = (h + 1).sum()  # Add saves nothing
    h.add_(5)
    y.backward()
    assert values(a.grad) == [1.0, 1.0]


def test_inplace_change_to_a_factor_only_the_other_factor_needs(device: str) -> None:
    """h * w keeps h only for w's gradient (and w for h's), as PyTorch does: when w needs
    no gradient, changing h in place afterwards leaves the backward intact; the same for
    h / w, h @ w, linear and einsum. When w needs one, the change is still caught."""
    a = leaf([1.0, 2.0], device)
    w = microtorch.tensor([4.0, 2.0], device=device)
    h = a * 1
    y = (h * w).sum() + (h / w).sum() + h @ w + nn.functional.linear(h, w[None]).sum()
    y = y + microtorch.einsum("i,i->", h, w)
    h.add_(1)
    y.backward()
    assert values(a.grad) == [16.25, 8.5]  # w + 1/w + w + w + w
    v = leaf([4.0, 2.0], device)
    h = a * 1
    y = (h * v).sum()
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_relu_saves_its_output_as_pytorch_does(device: str) -> None:
    """So changing relu's input in place afterwards is fine, and changing its output is
    caught (both as in PyTorch)."""
    a = leaf([1.0, -1.0, 2.0], device)
    h = a * 1
    r = nn.functional.relu(h)
    h.add_(5)
    r.sum().backward()
    assert values(a.grad) == [1.0, 0.0, 1.0]
    r = nn.functional.relu(a * 1)
    r.add_(1)
    with pytest.raises(RuntimeError, match="ReluBackward0: one of the variables needed"):
        r.sum().backward()


def test_inplace_through_views_reaches_the_base_and_its_gradient(device: str) -> None:
    """h[0:2].mul_(2) changes h, and h's gradient knows (PyTorch's CopySlices); the same for
    views of views, reshaped and transposed views."""
    a = leaf([1.0, 2.0, 3.0], device)
    h = a * 1
    h[0:2].mul_(2)  # h = [2a0, 2a1, a2]
    (h * h).sum().backward()
    assert values(h) == [2.0, 4.0, 3.0] and values(a.grad) == [8.0, 16.0, 6.0]

    m = leaf([[1.0, 2.0], [3.0, 4.0]], device)
    g = m * 1
    g.T[0].mul_(3)  # column 0 of g, through a transposed view
    g.view(4)[3:].add_(10)  # g[1, 1], through a flat view
    g.expand(1, 2, 2).mul_(1)  # an expand that repeats nothing is a view like the others
    (g * g).sum().backward()
    assert values(g) == [[3.0, 2.0], [9.0, 14.0]]
    assert values(m.grad) == [[18.0, 4.0], [54.0, 28.0]]


def test_inplace_through_a_view_made_by_indexing_with_none(device: str) -> None:
    """h[None] is a view like h[0:2]; its index (None) was taken for "not made by indexing"."""
    a = leaf([1.0, 2.0], device)
    h = a * 1
    h[None].mul_(3)
    h[None, 1:].add_(a[1:])
    (h * h).sum().backward()
    assert values(h) == [3.0, 8.0] and values(a.grad) == [18.0, 64.0]  # h = [3a0, 4a1]


def test_writing_a_tensor_that_needs_grad_into_a_view_of_a_buffer(device: str) -> None:
    """buf[0:2].copy_(w): buf now depends on w (its gradient was silently lost before)."""
    w = leaf([1.0, 2.0], device)
    buf = microtorch.zeros(3, device=device)
    buf[0:2].copy_(w)
    assert buf.requires_grad and values(buf) == [1.0, 2.0, 0.0]
    (buf * microtorch.tensor([5.0, 6.0, 7.0], device=device)).sum().backward()
    assert values(w.grad) == [5.0, 6.0]


def test_a_view_used_after_its_base_changed_in_place_follows_the_new_values(device: str) -> None:
    """v = h[1:3]; h.mul_(2); then v holds 2h[1:3], and its gradient must say so (its
    grad_fn is remade from h's new graph, as PyTorch does); the same through a transposed
    view of a reshaped one, and for a view whose base only later came to need grad."""
    a = leaf([1.0, 2.0, 3.0, 4.0], device)
    h = a * 1
    v = h[1:3]
    h.mul_(2)
    (v * v).sum().backward()
    assert values(v) == [4.0, 6.0] and values(a.grad) == [0.0, 16.0, 24.0, 0.0]
    a.grad = None
    h = a * 1
    w = h.view(2, 2).t()
    h.add_(a)  # h = 2a
    (w * microtorch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)).sum().backward()
    assert values(a.grad) == [2.0, 6.0, 4.0, 8.0]
    a.grad = None
    buf = microtorch.zeros(4, device=device)
    first = buf[:2]
    buf.copy_(a)  # buf (and so first) now depends on a
    (first * 5).sum().backward()
    assert values(a.grad) == [5.0, 5.0, 0.0, 0.0]
    h = a * 1
    piece = h.chunk(2)[0]
    h.mul_(2)
    with pytest.raises(RuntimeError, match="a view made by Split is used after its base"):
        piece.sum()  # PyTorch refuses this one too
    h = a * 1
    kept = h[:2]
    kept.retain_grad()  # survives the view being remade, as in PyTorch
    h.mul_(2)
    (kept * 3).sum().backward()
    assert values(kept.grad) == [3.0, 3.0]


def test_a_view_used_after_its_base_changed_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (torch, microtorch):
        a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        h = a * 1
        row, col, flat = h[1], h[:, 0], h.reshape(6)
        h[0].mul_(3)
        h.exp_()
        (row.sum() + (col * 2).sum() + flat[2]).backward()
        grads.append(a.grad.tolist())
    assert np.allclose(grads[0], grads[1])


def test_copy_of_constants_into_a_tensor_in_the_graph_keeps_it_there(device: str) -> None:
    """h.copy_(constants): h still requires grad and passes a zero gradient back, as in
    PyTorch, so h.sum().backward() works; and a saved h is still caught."""
    a = leaf([1.0, 2.0], device)
    h = a * 3
    h.copy_(microtorch.tensor([5.0, 6.0], device=device))
    assert h.requires_grad and h.grad_fn is not None
    (h * h).sum().backward()
    assert values(a.grad) == [0.0, 0.0]
    y = a.exp()
    y.copy_(microtorch.zeros(2, device=device))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()  # Exp's saved output was overwritten, as in PyTorch


def test_inplace_on_views_that_cannot_be_tracked_raises() -> None:
    a = leaf([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        a[0:1].add_(1)  # a view of a leaf, as in PyTorch
    h = a * 1
    with pytest.raises(RuntimeError, match="in-place op on a view: this tensor was made by Split"):
        h.split(2)[0].mul_(2)  # PyTorch refuses this one too
    c = h[[0, 1]]  # integer-list indexing copies, so this is not a view
    c.mul_(2)
    c.sum().backward()
    assert values(a.grad) == [2.0, 2.0, 0.0]


def test_inplace_ops_on_empty_tensors_are_fine(device: str) -> None:
    """NumPy gives a fresh empty array the strides 0, which read as 'made by expand'."""
    e = microtorch.zeros(0, 3, device=device)
    assert e.add_(1).shape == (0, 3)
    a = leaf([1.0, 2.0], device)
    h = a * 1
    h[h > 5].mul_(2)  # selects nothing
    h[2:].zero_()
    h.sum().backward()
    assert values(a.grad) == [1.0, 1.0]


def test_an_element_of_a_vector_is_a_view(device: str) -> None:
    """x[1] of a 1-D tensor shares x's memory (NumPy gives a scalar copy there)."""
    x = microtorch.zeros(3, device=device)
    x[1].fill_(2.0)
    x[2].add_(5.0)
    assert values(x) == [0.0, 2.0, 5.0]


# ------------------------------------------------------------------ hooks and retain_grad
def test_hook_on_a_leaf_sees_and_replaces_the_gradient(device: str) -> None:
    a = leaf([1.0, 2.0], device)
    seen = []

    def hook(g):
        seen.append(values(g))
        return g * 10

    a.register_hook(hook)
    (a * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    assert values(a.grad) == [30.0, 30.0]


def test_hook_on_a_non_leaf_changes_what_flows_upstream() -> None:
    a = leaf([1.0, 2.0])
    b = a * 2
    seen = []
    b.register_hook(lambda g: seen.append(values(g)))  # returns None: observe only
    b.register_hook(lambda g: g + 1)
    (b * 5).sum().backward()
    assert seen == [[5.0, 5.0]]
    assert values(a.grad) == [12.0, 12.0]  # (5 + 1) * 2


def test_hook_handle_remove() -> None:
    a = leaf([1.0])
    handle = a.register_hook(lambda g: g * 0)
    handle.remove()
    (a * 2).sum().backward()
    assert a.grad.item() == 2.0


def _grad_with_a_hook_for_one_block(T) -> list:
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with x.register_hook(lambda g: g * 10) as handle:
        (x * x).sum().backward()
    (x * x).sum().backward()  # the hook is gone: plain 2 x is added
    handle.remove()  # removing again is harmless
    return x.grad.tolist()


def test_hook_handle_as_a_context_manager_removes_the_hook_at_the_end() -> None:
    assert _grad_with_a_hook_for_one_block(microtorch) == [22.0, 44.0]
    torch = pytest.importorskip("torch")
    assert _grad_with_a_hook_for_one_block(torch) == [22.0, 44.0]


def test_hook_on_tensor_without_grad_raises() -> None:
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        microtorch.ones(2).register_hook(lambda g: g)


def test_retain_grad_keeps_a_non_leaf_gradient(device: str) -> None:
    a = leaf([1.0, 2.0], device)
    b = a * 3
    c = a * 4
    b.retain_grad()
    (b * b + c).sum().backward()
    assert values(b.grad) == [6.0, 12.0]
    with pytest.warns(UserWarning, match="not a leaf is being read; backward.. does not fill"):
        assert c.grad is None  # not retained: PyTorch warns about reading it too
    assert values(a.grad) == [18 + 4.0, 36 + 4.0]


def test_retains_grad_as_in_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        a = T.ones(2, requires_grad=True)
        b, c = a * 2, a * 3
        assert not a.retains_grad and not b.retains_grad
        b.retain_grad()
        a.retain_grad()  # a leaf keeps its .grad anyway: retains_grad stays False
        assert b.retains_grad and not c.retains_grad and not a.retains_grad
        assert not T.ones(2).retains_grad


def test_retain_grad_follows_an_in_place_change_as_in_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        a = T.ones(2, requires_grad=True)
        b = a * 2
        b.retain_grad()
        b.mul_(3)  # b's .grad is now the gradient of its new value
        assert b.retains_grad
        (b * 5).sum().backward()
        assert b.grad.tolist() == [5.0, 5.0] and a.grad.tolist() == [30.0, 30.0]


def test_post_accumulate_grad_hooks_run_in_order_after_the_sum_is_in_grad(device: str) -> None:
    a = leaf([1.0, 2.0], device)
    seen = []
    a.register_hook(lambda g: g * 10)  # runs before accumulation
    first = a.register_post_accumulate_grad_hook(lambda t: seen.append(("first", values(t.grad))))
    a.register_post_accumulate_grad_hook(lambda t: seen.append(("second", t is a)))
    (a * 3 + a).sum().backward()  # two paths into a: one call, with the summed gradient
    assert seen == [("first", [40.0, 40.0]), ("second", True)]
    (a * 1).sum().backward()  # called again after each accumulation
    assert seen[-2:] == [("first", [50.0, 50.0]), ("second", True)]
    first.remove()
    seen.clear()
    a.sum().backward(inputs=[a])
    assert seen == [("second", True)]


def test_post_accumulate_grad_hook_not_run_by_autograd_grad_and_refused_on_non_leaves() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        a = T.ones(2, requires_grad=True)
        seen = []
        a.register_post_accumulate_grad_hook(seen.append)
        T.autograd.grad((a * 2).sum(), [a])  # no .grad accumulated: no call
        assert seen == []
        with pytest.raises(RuntimeError, match="non-leaf"):
            (a * 2).register_post_accumulate_grad_hook(seen.append)
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            T.ones(2).register_post_accumulate_grad_hook(seen.append)


# ops whose node microtorch names as PyTorch does, though its class is named otherwise
NODE_NAMES = {
    "log1p": lambda T, x, y: T.log1p(x.abs()),
    "logaddexp": lambda T, x, y: T.logaddexp(x, y),
    "logaddexp2": lambda T, x, y: T.logaddexp2(x, y),
    "xlog1py": lambda T, x, y: T.special.xlog1py(x, y.abs()),
    "frexp": lambda T, x, y: T.frexp(x)[0],
    "igamma": lambda T, x, y: T.igamma(x.abs(), y.abs()),
    "igammac": lambda T, x, y: T.igammac(x.abs(), y.abs()),
    "i0": lambda T, x, y: T.i0(x),
    "i1": lambda T, x, y: T.special.i1(x),
    "i0e": lambda T, x, y: T.special.i0e(x),
    "i1e": lambda T, x, y: T.special.i1e(x),
    "floor": lambda T, x, y: x.floor(),
    "ceil": lambda T, x, y: x.ceil(),
    "trunc": lambda T, x, y: T.fix(x),
    "sign": lambda T, x, y: x.sign(),
    "round": lambda T, x, y: x.round(),
    "round_decimals": lambda T, x, y: x.round(decimals=2),
    "erfcx": lambda T, x, y: T.special.erfcx(x),
    "log_ndtr": lambda T, x, y: T.special.log_ndtr(x),
    "ndtri": lambda T, x, y: T.special.ndtri(x.sigmoid()),
    "entr": lambda T, x, y: T.special.entr(x.abs()),
    "zeta": lambda T, x, y: T.special.zeta(x.abs() + 2, y.abs() + 1),
    "clamp_numbers": lambda T, x, y: x.clamp(-0.5, 0.5),
    "clamp_min_number": lambda T, x, y: x.clamp(min=0),
    "clamp_tensors": lambda T, x, y: x.clamp(y, y + 1),
    "tril": lambda T, x, y: x.reshape(2, 2).tril(),
    "triu": lambda T, x, y: T.triu(x.reshape(2, 2)),
    "layer_norm": lambda T, x, y: T.nn.functional.layer_norm(x, (4,)),
    "max_dim": lambda T, x, y: x.max(0).values,
    "min_dim": lambda T, x, y: T.min(x, dim=0)[0],
    "scatter_add": lambda T, x, y: x.scatter_add(0, T.tensor([1, 0]), y[:2]),
    "pow_number_exponent": lambda T, x, y: x**2,
    "pow_tensors": lambda T, x, y: x.abs() ** y,
    "pow_number_base": lambda T, x, y: 2.0**y,
    "remainder_tensors": lambda T, x, y: x.remainder(y),
    "remainder_number": lambda T, x, y: x % 2.0,
    "fmod_number": lambda T, x, y: x.fmod(2.0),
    "fmod_tensors": lambda T, x, y: T.fmod(x, y),
    "sum_all": lambda T, x, y: x.sum(),
    "sum_dim": lambda T, x, y: x.sum(0),
    "mean_all": lambda T, x, y: x.mean(),
    "mean_dims": lambda T, x, y: x.reshape(2, 2).mean((0, 1)),
    "prod_all": lambda T, x, y: x.prod(),
    "prod_dim": lambda T, x, y: x.prod(-1, keepdim=True),
}


@pytest.mark.parametrize("name", list(NODE_NAMES))
def test_node_names_are_pytorchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    values = [[0.3, -1.2, 2.5, 0.7], [1.1, 0.4, -0.6, 2.0]]
    ours = NODE_NAMES[name](microtorch, *(leaf(v, "cpu") for v in values))
    theirs = NODE_NAMES[name](torch, *(torch.tensor(v, requires_grad=True) for v in values))
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    assert f"grad_fn=<{type(theirs.grad_fn).__name__}>" in repr(ours)


def test_backward_runs_with_grad_mode_off_so_hooks_can_update_leaves_in_place() -> None:
    """PyTorch's walk records no graph (without create_graph): a hook sees grad mode off,
    so an SGD step in a post-accumulate hook (p.add_ on a leaf) works; after the walk grad
    mode is back on."""
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        v = T.tensor([0.0, 0.0, 0.0], requires_grad=True)
        modes = []
        v.register_hook(lambda g, modes=modes, T=T: modes.append(T.is_grad_enabled()))
        v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.01))
        v.backward(T.tensor([1.0, 2.0, 3.0]))
        assert modes == [False] and T.is_grad_enabled()
        assert v.tolist() == pytest.approx([-0.01, -0.02, -0.03]) and v.requires_grad


def test_post_accumulate_grad_hook_on_a_parameter_steps_it() -> None:
    w = nn.Parameter(microtorch.ones(2))
    w.register_post_accumulate_grad_hook(lambda p: p.data.sub_(p.grad))
    (w * 3).sum().backward()
    assert values(w) == [-2.0, -2.0]


def test_is_inference_mode_enabled_as_in_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        seen = [T.is_inference_mode_enabled()]
        with T.inference_mode():
            seen.append(T.is_inference_mode_enabled())
            with T.inference_mode(False):
                seen.append(T.is_inference_mode_enabled())
            seen.append(T.is_inference_mode_enabled())
        with T.no_grad():
            seen.append(T.is_inference_mode_enabled())
        assert seen == [False, True, False, True, False], T


def _grad_mode_under_inference_mode_false(T) -> list:
    a = T.ones(2, requires_grad=True)

    @T.inference_mode(False)
    def double(t):
        return t * 2

    seen = []
    for outer in (T.no_grad, T.inference_mode, T.enable_grad):
        with outer():
            with T.inference_mode(False):
                seen.append((T.is_grad_enabled(), (a * 2).requires_grad))
            seen.append((T.is_grad_enabled(), double(a).requires_grad))
    return seen


def test_inference_mode_false_is_normal_mode_with_gradients_on_as_in_pytorch() -> None:
    seen = _grad_mode_under_inference_mode_false(microtorch)
    assert seen == [(True, True), (False, True)] * 2 + [(True, True), (True, True)]
    torch = pytest.importorskip("torch")
    assert _grad_mode_under_inference_mode_false(torch) == seen


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # (tests/fake_cupy's 0 / 0)
def test_max_of_values_with_nan_and_prod_of_one_value_as_in_pytorch(device: str) -> None:
    nan = float("nan")
    x = leaf([nan, 2.0, nan], device)
    x.max().backward()  # the nans are the maximum: they share the gradient
    assert values(x.grad) == [0.5, 0.0, 0.5]
    y = leaf([[nan, 1.0], [2.0, 3.0]], device)
    y.amin(-1).sum().backward()  # amin's rule, 0 / 0 where the result is nan: as PyTorch's
    assert np.isnan(values(y.grad)[0]).all() and values(y.grad)[1] == [1.0, 0.0]
    z = leaf(nan, device)
    z.prod().backward()  # the product of one number is itself
    assert z.grad.item() == 1.0


def test_gradients_at_nan_and_extreme_values_as_in_pytorch(device: str) -> None:
    nan = float("nan")
    x = leaf([nan, -2.0], device)
    assert values(x.detach().sign())[0] == 0.0  # PyTorch's sign(nan) is 0
    x.abs().sum().backward()
    assert values(x.grad) == [0.0, -1.0]
    a, b = leaf([nan, 1.0, 2.0], device), leaf([0.0, 1.0, 3.0], device)
    microtorch.maximum(a, b).sum().backward()  # a nan sends the gradient to both sides
    assert values(a.grad) == [1.0, 0.5, 0.0] and values(b.grad) == [1.0, 0.5, 1.0]
    # d(a / b)/db = -a / b^2 for a = 1e100, b = 1e160: b * b overflows, (a / b) / b does not
    f64 = {"dtype": microtorch.float64, "device": device}
    big = microtorch.tensor(1e160, **f64, requires_grad=True)
    (microtorch.tensor(1e100, **f64) / big).backward()
    assert big.grad.item() == pytest.approx(-1e-220)


def test_gelu_and_erf_of_a_0d_tensor(device: str) -> None:
    for dtype in (microtorch.float32, microtorch.float16, microtorch.float64):
        for approximate in ("none", "tanh"):
            x = microtorch.tensor(0.7, dtype=dtype, device=device, requires_grad=True)
            y = microtorch.nn.functional.gelu(x, approximate=approximate)
            y.backward()
            assert y.shape == () and x.grad.shape == ()
            assert y.item() == pytest.approx(0.5306, abs=2e-3)
            assert x.grad.item() == pytest.approx(0.977, abs=2e-3)
        assert microtorch.erf(microtorch.tensor(0.7, dtype=dtype, device=device)).item() == (
            pytest.approx(0.6778, abs=2e-3)
        )


def test_assigning_a_grad_that_does_not_fit_raises(device: str) -> None:
    a = leaf([1.0, 2.0], device)
    a.grad = microtorch.ones(2, device=device)  # fits: kept, and backward adds to it
    (a * 3).sum().backward()
    assert values(a.grad) == [4.0, 4.0]
    for bad, pattern in (
        (microtorch.zeros(3, device=device), r"with size \(3,\) to a tensor with size \(2,\)"),
        (microtorch.zeros(2, dtype=microtorch.float64, device=device), "with dtype"),
    ):
        with pytest.raises(RuntimeError, match=pattern):
            a.grad = bad
    with pytest.raises(
        TypeError, match="expected to be a Tensor or None but got grad of type list"
    ):
        a.grad = [0.0, 0.0]
    a.grad = None
    assert a.grad is None


def test_retain_grad_on_a_0d_result() -> None:
    a = leaf([1.0, 2.0])
    loss = (a * a).sum()
    loss.retain_grad()
    loss.backward()
    assert loss.grad.item() == 1.0 and loss.grad.shape == ()


def test_0d_leaf_gets_a_0d_array_gradient() -> None:
    a = leaf(2.0)
    (a * a * a).backward()
    assert a.grad.shape == () and a.grad.item() == 12.0
    assert a.grad.device == microtorch.device("cpu")
    assert "12." in repr(a.grad)


# ------------------------------------------------------------------ conventions at kinks and ties
def test_gradient_conventions_at_ties_and_kinks_match_pytorch() -> None:
    def grad_of(fn, data):
        t = leaf(data)
        fn(t).sum().backward()
        return values(t.grad)

    assert grad_of(lambda t: t.max(), [1.0, 3.0, 3.0]) == [0.0, 0.5, 0.5]  # ties share
    assert grad_of(lambda t: t.min(), [2.0, 2.0]) == [0.5, 0.5]
    assert grad_of(lambda t: t.max(dim=1).values, [[1.0, 3.0, 3.0]]) == [[0.0, 1.0, 0.0]]
    assert grad_of(lambda t: t.amax(dim=1), [[1.0, 3.0, 3.0]]) == [[0.0, 0.5, 0.5]]
    assert grad_of(lambda t: t.relu(), [0.0, -1.0, 1.0]) == [0.0, 0.0, 1.0]
    assert grad_of(lambda t: t.abs(), [0.0, -1.0, 1.0]) == [0.0, -1.0, 1.0]
    assert grad_of(lambda t: t.clamp(0.0, 1.0), [-1.0, 0.0, 1.0, 2.0]) == [0.0, 1.0, 1.0, 0.0]
    a, b = leaf([1.0, 2.0]), leaf([1.0, 3.0])
    microtorch.maximum(a, b).sum().backward()
    assert values(a.grad) == [0.5, 0.0] and values(b.grad) == [0.5, 1.0]
    assert grad_of(lambda t: t**0, [0.0, 2.0]) == [0.0, 0.0]  # not NaN at 0 ** 0


def test_embedding_padding_idx_gets_no_gradient() -> None:
    weight = leaf(np.arange(8.0, dtype=np.float32).reshape(4, 2))
    idx = microtorch.tensor([[0, 2], [2, 3]])
    out = nn.functional.embedding(idx, weight, padding_idx=2)
    assert out.tolist()[0][1] == [4.0, 5.0]  # the padding row is still looked up
    out.sum().backward()
    assert values(weight.grad) == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]


def test_indexing_with_repeated_indices_accumulates(device: str) -> None:
    a = leaf([1.0, 2.0, 3.0], device)
    a[[0, 0, 2, 0]].sum().backward()
    assert values(a.grad) == [3.0, 0.0, 1.0]
