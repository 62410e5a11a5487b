"""torch.autograd.graph (microtorch/autograd/graph.py): nodes as PyTorch shows them
(name, next_functions, AccumulateGrad, hooks, metadata), gradient edges, multi-grad hooks
and increment_version, each checked against PyTorch when it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.autograd import graph

from ..torch_reference import torch_before


def _values(items: object) -> object:
    """Hook arguments as plain lists (tensors -> lists, None stays), to compare libraries."""
    if isinstance(items, (tuple, list)):
        return [_values(i) for i in items]
    if items is None or isinstance(items, str):
        return items
    return items.detach().cpu().numpy().tolist()


def _hook_order(lib):
    """Which hooks fire, in which order, with what, for y = x * w; z = (y * 2).sum()."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    z = (y * 2).sum()
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append(["pre", _values(go)]))
    y.grad_fn.register_hook(lambda gi, go: calls.append(["post", _values(gi), _values(go)]))
    y.register_hook(lambda g: calls.append(["tensor", _values(g)]))
    acc = y.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: calls.append(["acc pre", _values(go)]))
    acc.register_hook(lambda gi, go: calls.append(["acc post", _values(gi), _values(go)]))
    x.register_hook(lambda g: calls.append(["leaf", _values(g)]))
    z.backward(retain_graph=True)
    calls.append("grad()")
    lib.autograd.grad(z, [x, w])  # no AccumulateGrad runs: its hooks do not fire
    return calls


def test_node_hooks_fire_in_pytorchs_order():
    got = _hook_order(microtorch)
    assert got[:6] == [
        ["tensor", [2.0, 2.0]],
        ["pre", [[2.0, 2.0]]],
        ["post", [[6.0, 8.0], [2.0, 4.0]], [[2.0, 2.0]]],
        ["leaf", [6.0, 8.0]],
        ["acc pre", [[6.0, 8.0]]],
        ["acc post", [], [[6.0, 8.0]]],
    ]
    assert "acc pre" not in [c[0] for c in got[7:]]
    torch = pytest.importorskip("torch")
    assert got == _hook_order(torch)


def _replacing_hooks(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    pre = y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    post = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 100, None))
    acc = y.grad_fn.next_functions[0][0]
    acc_pre = acc.register_prehook(lambda go: (go[0] + 1,))
    y.sum().backward(retain_graph=True)
    first = [_values(x.grad), _values(w.grad)]
    for handle in (pre, post, acc_pre):
        handle.remove()
    x.grad = w.grad = None
    y.sum().backward()
    return first, [_values(x.grad), _values(w.grad)]


def test_hooks_that_return_tuples_replace_the_gradients_until_removed():
    got = _replacing_hooks(microtorch)
    assert got == ([[3001.0, 4001.0], None], [[3.0, 4.0], [1.0, 2.0]])
    torch = pytest.importorskip("torch")
    assert got == _replacing_hooks(torch)


def test_a_hook_returning_the_wrong_number_of_gradients_is_an_error():
    x = microtorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0],))  # Mul has two inputs (x and 2)
    with pytest.raises(RuntimeError, match="MulBackward0: a hook must return None or a tuple of 2"):
        y.sum().backward()


def test_hooks_on_nodes_run_on_every_device(device):
    x = microtorch.tensor([1.0, 2.0], device=device, requires_grad=True)
    y = x.exp()
    seen = []
    y.grad_fn.register_prehook(lambda go: seen.append(go[0].device))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2,))
    y.sum().backward()
    assert seen == [x.device]
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)


def _structure(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    z = (y * 2).sum()
    ((mul2, _),) = z.grad_fn.next_functions
    (acc_x, nr), (acc_w, _) = y.grad_fn.next_functions
    return [
        z.grad_fn.name(),
        mul2.name(),
        [n is None for n, _ in mul2.next_functions],  # (y, 2): the number needs no gradient
        acc_x.name(),
        nr,
        acc_x.variable is x and acc_w.variable is w,
        acc_x is (x * 1).grad_fn.next_functions[0][0],  # one AccumulateGrad per leaf
        acc_x.next_functions,
        isinstance(z.grad_fn, lib.autograd.graph.Node),
        isinstance(acc_x, lib.autograd.graph.Node),
        y.grad_fn.metadata,
        x.exp().grad_fn.name(),
    ]


def test_next_functions_name_and_accumulate_grad_as_in_pytorch():
    got = _structure(microtorch)
    assert got[:4] == [
        "SumBackward0",
        "MulBackward0",
        [False, True],
        "torch::autograd::AccumulateGrad",
    ]
    torch = pytest.importorskip("torch")
    assert got == _structure(torch)


def _custom_edges(lib):
    class Affine(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, w):
            return x * k + w

        @staticmethod
        def backward(ctx, g):
            return g, None, g

    x = lib.ones(2, requires_grad=True)
    edges = Affine.apply(x, 2.0, lib.ones(2)).grad_fn.next_functions
    return [(None if node is None else node.name(), nr) for node, nr in edges]


def test_a_custom_functions_node_has_an_edge_per_tensor_input():
    got = _custom_edges(microtorch)
    assert got == [("torch::autograd::AccumulateGrad", 0), (None, 0)]
    torch = pytest.importorskip("torch")
    if torch_before((2, 13)):
        pytest.skip("PyTorch before 2.13 refuses next_functions on a custom Function's node")
    assert got == _custom_edges(torch)


def test_metadata_is_kept_on_the_node():
    y = microtorch.ones(2, requires_grad=True) * 2
    y.grad_fn.metadata["layer"] = "fc1"
    assert y.grad_fn.metadata == {"layer": "fc1"}
    assert microtorch.ones(2, requires_grad=True).exp().grad_fn.metadata == {}


def test_the_engine_follows_parents_and_next_functions_only_shows_them():
    x = microtorch.ones(2, requires_grad=True)
    y = x * 3
    assert y.grad_fn.parents == (x, None)
    with pytest.raises(AttributeError):
        y.grad_fn.next_functions = ()  # read-only: the links are parents


def _edges(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    edge = lib.autograd.graph.get_gradient_edge(y)
    leaf_edge = lib.autograd.graph.get_gradient_edge(x)
    return [
        edge.node is y.grad_fn,
        edge.output_nr,
        leaf_edge.node.name(),
        leaf_edge.node is y.grad_fn.next_functions[0][0],
        leaf_edge.node.variable is x,
        leaf_edge.ownership_token,
        list(edge._fields),
    ]


def test_get_gradient_edge():
    got = _edges(microtorch)
    assert got[:3] == [True, 0, "torch::autograd::AccumulateGrad"]
    with pytest.raises(RuntimeError, match="does not require gradients"):
        graph.get_gradient_edge(microtorch.ones(2))
    torch = pytest.importorskip("torch")
    assert got == _edges(torch)


def _multi(lib, mode):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0], requires_grad=True)
    c = lib.tensor(5.0, requires_grad=True)
    seen = []
    handle = lib.autograd.graph.register_multi_grad_hook(
        (a, b, c), lambda g: seen.append(_values(g)), mode=mode
    )
    (a * 2).sum().backward()
    (a.sum() * b * (a * a).sum()).sum().backward()
    (c * 2).backward()
    (b * 3).sum().backward()
    lib.ones(2).sum()  # no backward: nothing
    handle.remove()
    (a * 2).sum().backward()  # removed: nothing
    return seen


@pytest.mark.parametrize("mode", ["all", "any"])
def test_register_multi_grad_hook_fires_once_per_backward(mode):
    got = _multi(microtorch, mode)
    if mode == "all":
        assert got == [[[2.0, 2.0], None, None], [[33.0, 51.0], [15.0], None],
                       [None, None, 2.0], [None, [3.0], None]]  # fmt: skip
    else:  # the second backward gives a and b a gradient: fn gets one of them
        assert got[0] == [2.0, 2.0] and got[1] in ([33.0, 51.0], [15.0]) and got[2:] == [2.0, [3.0]]
    torch = pytest.importorskip("torch")
    expected = _multi(torch, mode)
    if mode == "any":  # (PyTorch's engine happens to finish b first; microtorch's, a)
        got[1] = expected[1]
    assert got == expected


def test_register_multi_grad_hook_inside_a_hooked_backward_and_after_an_error():
    a = microtorch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    graph.register_multi_grad_hook((a,), lambda g: seen.append(g[0].tolist()))
    bad = a * 2
    bad.register_hook(lambda g: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        bad.sum().backward()
    assert seen == []  # that walk stopped: its queued call is dropped
    (a * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    microtorch.autograd.grad((a * 4).sum(), [a])  # (which PyTorch refuses in mode "all")
    assert seen == [[3.0, 3.0], [4.0, 4.0]]


def test_register_multi_grad_hook_checks_the_mode():
    a = microtorch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="mode to be one of"):
        graph.register_multi_grad_hook((a,), print, mode="some")


def test_queue_callback_outside_backward_is_an_error():
    from microtorch.autograd import engine

    with pytest.raises(RuntimeError, match="during a backward pass"):
        engine.queue_callback(print)


def _versions(lib):
    t = lib.ones(2)
    before = t._version
    lib.autograd.graph.increment_version(t)
    lib.autograd.graph.increment_version([t, t])
    x = lib.ones(2, requires_grad=True)
    y = x.exp()
    lib.autograd.graph.increment_version(y)  # exp saved its output: backward must refuse
    try:
        y.sum().backward()
        refused = False
    except RuntimeError as error:
        refused = "modified by an inplace operation" in str(error)
    return [before, t._version, refused]


def test_increment_version():
    got = _versions(microtorch)
    assert got == [0, 3, True]
    torch = pytest.importorskip("torch")
    assert got == _versions(torch)


def _saved_hooks(lib):
    """What pack and unpack see for exp (saves its output) and a custom Function."""
    G = lib.autograd.graph
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    log = []

    def pack(t):
        log.append(["pack", t is x, t.requires_grad, t.grad_fn is not None])
        return t.detach().clone()

    def unpack(p):
        log.append(["unpack", p.shape[0]])
        return p

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return 2 * t * g

    with G.saved_tensors_hooks(pack, unpack):
        y = x.exp()
        with lib.no_grad():
            x.exp()  # no graph: nothing packed
        s = Square.apply(x)
    log.append("backward")
    (y.sum() + s.sum()).backward()
    return log, [round(v, 4) for v in x.grad.tolist()]


def test_saved_tensors_hooks_pack_when_saved_and_unpack_in_backward():
    got = _saved_hooks(microtorch)
    assert got == (
        [["pack", False, True, True], ["pack", True, True, False], "backward",
         ["unpack", 2], ["unpack", 2]],
        [4.7183, 11.3891],
    )  # fmt: skip
    torch = pytest.importorskip("torch")
    assert got == _saved_hooks(torch)


def test_saved_tensors_hooks_see_mul_and_div_save_as_pytorch_does():
    """The order pack_hook sees the saved tensors in (the saved_tensors_hooks docstring
    example prints them): mul and div save the second operand first."""

    def packed(lib) -> list:
        shapes = []
        a, b = lib.ones(2, requires_grad=True), lib.ones(3, 1, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: shapes.append(tuple(t.shape)) or t,
                                                    lambda t: t):  # fmt: skip
            (a * b + a / b + a * 2).sum().backward()
        return shapes

    got = packed(microtorch)
    assert got == [(3, 1), (2,), (3, 1), (2,)]
    torch = pytest.importorskip("torch")
    assert got == packed(torch)


def test_saved_tensors_hooks_own_the_values_and_nest():
    x = microtorch.tensor([1.0, 2.0], requires_grad=True)
    kept = []
    with graph.saved_tensors_hooks(
        lambda t: kept.append(t) or len(kept) - 1, lambda i: kept[i] * 10
    ):
        y = (x * x).sum()  # Mul saves x twice
    y.backward()
    assert x.grad.tolist() == [20.0, 40.0]  # 10x for each saved x: backward used them
    order = []
    with graph.saved_tensors_hooks(lambda t: order.append("outer") or t, lambda t: t):
        with graph.saved_tensors_hooks(lambda t: order.append("inner") or t, lambda t: t):
            x.exp()
        x.exp()
    assert order == ["inner", "outer"]
    a = x * 1
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        b = (a * a).sum()
    a.mul_(2)  # the hooks own the saved values: no in-place check, as in PyTorch
    b.backward()


def test_saved_tensors_hooks_errors():
    x = microtorch.tensor([1.0, 2.0], requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: t, lambda t: 5):
        y = x.exp().sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got .* int"):
        y.backward()
    with graph.disable_saved_tensors_hooks("not in this block"):
        with pytest.raises(RuntimeError, match="not in this block"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="^no$"):
            with graph.disable_saved_tensors_hooks("no"):
                pass
    from microtorch.autograd import function

    assert function._saved_tensors_hooks is None and graph._hooks_disabled is None


def test_save_on_cpu_keeps_saved_tensors_on_the_host(device):
    x = microtorch.tensor([1.0, 2.0], device=device, requires_grad=True)
    with graph.save_on_cpu(pin_memory=True):
        y = x.exp()
    assert all(p.value[1].device.type == "cpu" for p in y.grad_fn.saved_arrays)
    y.sum().backward()
    assert x.grad.device == x.device
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
