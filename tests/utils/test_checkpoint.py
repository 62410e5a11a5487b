"""utils.checkpoint: the same values and gradients as the plain run (and as PyTorch), with the
activations recomputed in backward."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import microtorch as mt
from microtorch import nn
from microtorch.utils.checkpoint import checkpoint, checkpoint_sequential

X = np.random.default_rng(0).standard_normal((5, 4))


def _mlp(device: str) -> nn.Module:
    mt.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Dropout(0.4), nn.Linear(8, 4)).to(device)


def _grads(x: mt.Tensor, module: nn.Module) -> list:
    return [x.grad.cpu().numpy()] + [p.grad.cpu().numpy() for p in module.parameters()]


def _run(module: nn.Module, device: str, use_reentrant: bool | None, **kw) -> tuple:
    """Loss value and the gradients of input and parameters; ``use_reentrant=None``: no
    checkpoint at all."""
    module.zero_grad()
    mt.manual_seed(1)  # the same dropout masks in every run
    x = mt.tensor(X, dtype=mt.float32, device=device, requires_grad=True)
    h = x * 2  # a non-leaf input: the gradient must flow on through it
    if use_reentrant is None:
        y = module(h)
    else:
        y = checkpoint(module, h, use_reentrant=use_reentrant, **kw)
    loss = (y * y).sum() + h.sum()
    loss.backward()
    return loss.item(), _grads(x, module)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_mlp_with_dropout_same_gradients_as_plain_run(device, use_reentrant):
    module = _mlp(device)
    value, grads = _run(module, device, None)
    value_ck, grads_ck = _run(module, device, use_reentrant)
    assert value_ck == value
    for g, g_ck in zip(grads, grads_ck):
        np.testing.assert_array_equal(g_ck, g)


def test_without_preserve_rng_state_the_masks_differ(device):
    # the check above can fail: recomputing with other dropout masks changes the gradients
    module = _mlp(device)
    _, grads = _run(module, device, None)
    _, grads_ck = _run(module, device, False, preserve_rng_state=False)
    assert not np.allclose(grads_ck[1], grads[1])


def test_rng_goes_on_as_without_checkpoint(device):
    module = _mlp(device)
    _run(module, device, None)
    after_plain = mt.rand(3).numpy()
    _run(module, device, False)
    np.testing.assert_array_equal(mt.rand(3).numpy(), after_plain)


def test_nothing_but_the_inputs_is_recorded(device):
    module = _mlp(device)
    x = mt.tensor(X, dtype=mt.float32, device=device, requires_grad=True)
    y = checkpoint(module, x, use_reentrant=False)
    node = y.grad_fn.next_functions[0][0]  # CheckpointOutput -> the shared CheckpointFunction
    assert type(node).__name__ == "CheckpointFunction"
    # no Linear/GELU nodes in between: the input, then the parameters the module used
    assert node.parents[0] is x and len(node.parents) == 1 + len(list(module.parameters()))
    assert all(any(p is q for q in module.parameters()) for p in node.parents[1:])
    y = checkpoint(module, x, use_reentrant=True)
    assert y.grad_fn.next_functions[0][0].parents == (x,)  # its parameters get .grad directly


class _AttentionBlock:
    """x + attention(norm(x)), then x + mlp(norm(x)): built for mt and torch alike."""

    def __init__(self, lib) -> None:
        self.norm1, self.norm2 = lib.nn.LayerNorm(8), lib.nn.LayerNorm(8)
        self.attn = lib.nn.MultiheadAttention(8, 2, batch_first=True)
        self.mlp = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 8))

    def modules(self) -> list:
        return [self.norm1, self.norm2, self.attn, self.mlp]

    def __call__(self, x, mask):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


def _copy_weights(ours: _AttentionBlock, theirs: _AttentionBlock, device: str) -> None:
    for m, tm in zip(ours.modules(), theirs.modules()):
        state = {
            k: mt.tensor(v.detach().numpy(), device=device) for k, v in tm.state_dict().items()
        }
        m.load_state_dict(state)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_attention_block_matches_torch(device, use_reentrant):
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint as torch_checkpoint

    torch.manual_seed(0)
    theirs = _AttentionBlock(torch)
    ours = _AttentionBlock(mt)
    for m in ours.modules():
        m.to(device)
    _copy_weights(ours, theirs, device)
    a = np.random.default_rng(2).standard_normal((2, 3, 8)).astype(np.float32)
    causal = np.triu(np.ones((3, 3), dtype=bool), 1)  # a tensor input that needs no grad
    x = mt.tensor(a, device=device, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y = checkpoint(ours, x, mt.tensor(causal, device=device), use_reentrant=use_reentrant)
    ty = torch_checkpoint(theirs, tx, torch.tensor(causal), use_reentrant=use_reentrant)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ty.detach().numpy(), atol=1e-5)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for m, tm in zip(ours.modules(), theirs.modules()):
        for (name, p), tp in zip(m.named_parameters(), tm.parameters()):
            np.testing.assert_allclose(p.grad.cpu().numpy(), tp.grad.numpy(), rtol=1e-4,
                                       atol=1e-5, err_msg=name)  # fmt: skip


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_attention_block_with_dropout_same_gradients_as_plain_run(device, use_reentrant):
    mt.manual_seed(0)
    block = _AttentionBlock(mt)
    block.attn = nn.MultiheadAttention(8, 2, dropout=0.3, batch_first=True)
    block.mlp.append(nn.Dropout(0.3))
    for m in block.modules():
        m.to(device)
    a = np.random.default_rng(2).standard_normal((2, 3, 8)).astype(np.float32)
    results = []
    for ck in (False, True):
        for m in block.modules():
            m.zero_grad()
        mt.manual_seed(7)
        x = mt.tensor(a, device=device, requires_grad=True)
        y = checkpoint(block, x, None, use_reentrant=use_reentrant) if ck else block(x, None)
        (y * y).sum().backward()
        params = [p.grad.cpu().numpy() for m in block.modules() for p in m.parameters()]
        results.append([x.grad.cpu().numpy()] + params)
    for g, g_ck in zip(*results):
        np.testing.assert_array_equal(g_ck, g)


def test_non_tensor_and_no_grad_inputs(device):
    x = mt.tensor(X, device=device, requires_grad=True)
    scale = mt.tensor(X + 1, device=device)  # requires_grad=False

    def f(a, s, power, name):
        assert name == "label"
        return (a * s) ** power

    y = checkpoint(f, x, scale, 2, "label", use_reentrant=True)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * X * (X + 1) ** 2)
    assert scale.grad is None


def test_several_outputs_some_unused_or_not_tensors(device):
    x = mt.tensor(X, device=device, requires_grad=True)

    def f(a):
        return a * 3, a.sum(1), a.argmax(1), "tag"

    three, total, index, tag = checkpoint(f, x, use_reentrant=False)
    assert tag == "tag" and not index.requires_grad and index.dtype == mt.int64
    (three.sum() * 2 + total.sum()).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.full(X.shape, 7.0))
    x.grad = None
    three, total, _, _ = checkpoint(f, x, use_reentrant=False)
    total.sum().backward()  # the other outputs get no gradient: zeros for them
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.ones(X.shape))


def test_warns_when_use_reentrant_is_not_given():
    x = mt.tensor(X, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant"):
        checkpoint(lambda a: a * 2, x)
    with pytest.warns(UserWarning, match="use_reentrant"):
        checkpoint_sequential([nn.ReLU(), nn.ReLU()], 2, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda a: a * 2, x, use_reentrant=False)


def test_keyword_arguments_only_without_reentrant():
    x = mt.tensor(X, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
        checkpoint(lambda a, k=1: a * k, x, use_reentrant=True, k=2)
    y = checkpoint(lambda a, k=1: a * k, x, use_reentrant=False, k=3)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(X.shape, 3.0))


def test_no_input_requires_grad_as_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint as torch_checkpoint

    layer, tlayer = nn.Linear(4, 3), torch.nn.Linear(4, 3)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(layer, mt.tensor(X, dtype=mt.float32), use_reentrant=True)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        ty = torch_checkpoint(tlayer, torch.tensor(X).float(), use_reentrant=True)
    assert y.requires_grad == ty.requires_grad == False  # noqa: E712
    y = checkpoint(layer, mt.tensor(X, dtype=mt.float32), use_reentrant=False)
    ty = torch_checkpoint(tlayer, torch.tensor(X).float(), use_reentrant=False)
    assert y.requires_grad == ty.requires_grad == True  # noqa: E712
    y.sum().backward()
    np.testing.assert_allclose(layer.bias.grad.numpy(), np.full(3, 5.0))


def test_reentrant_refused_under_autograd_grad_and_backward_inputs():
    x = mt.tensor(X, requires_grad=True)
    y = checkpoint(lambda a: a * 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="checkpoint: not compatible with autograd.grad"):
        mt.autograd.grad(y.sum(), x)
    y = checkpoint(lambda a: a * 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="checkpoint: not compatible"):
        y.sum().backward(inputs=[x])
    y = checkpoint(lambda a: a * 2, x, use_reentrant=True)
    y.sum().backward()  # the refusal above left nothing behind
    np.testing.assert_allclose(x.grad.numpy(), np.full(X.shape, 2.0))


def _non_reentrant_under_autograd_grad(lib) -> list:
    """use_reentrant=False under autograd.grad and backward(inputs=...): the parameters'
    gradients are returned (or put into .grad) as without the checkpoint; a tensor the
    function closes over and a checkpoint inside the checkpoint get theirs too."""
    from importlib import import_module

    ckpt = import_module(lib.__name__ + ".utils.checkpoint").checkpoint
    layer = lib.nn.Linear(2, 2)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor([[1.0, 2.0], [3.0, -4.0]]))
        layer.bias.fill_(0.5)
    hooked = []
    layer.weight.register_hook(lambda g: hooked.append("weight hook"))
    x = lib.tensor([[1.0, -1.0]], requires_grad=True)
    loss = ckpt(lambda t: layer(t).tanh(), x, use_reentrant=False).sum()
    seen = [[np.round(g.numpy(), 5).tolist() for g in lib.autograd.grad(loss, [x, layer.weight])]]
    seen.append((list(hooked), layer.weight.grad))  # the hook ran once, .grad is untouched
    ckpt(lambda t: layer(t).tanh(), x, use_reentrant=False).sum().backward(inputs=[layer.bias])
    seen.append((x.grad, layer.weight.grad, np.round(layer.bias.grad.numpy(), 5).tolist()))
    w = lib.tensor([2.0, 3.0], requires_grad=True)
    h = w * 2  # closed over by the function: a non-leaf from outside
    inner = lambda t: ckpt(lambda u: (layer(u) * h).sin(), t, use_reentrant=False) * 2  # noqa: E731
    ckpt(inner, x, use_reentrant=False).sum().backward()
    seen.append([np.round(t.grad.numpy(), 3).tolist() for t in (x, w, layer.weight)])
    return seen


def test_non_reentrant_under_autograd_grad_and_backward_inputs_as_in_pytorch():
    seen = _non_reentrant_under_autograd_grad(mt)
    assert seen[1] == (["weight hook"], None) and seen[2][:2] == (None, None)
    torch = pytest.importorskip("torch")
    assert _non_reentrant_under_autograd_grad(torch) == seen


def test_second_backward_needs_retain_graph():
    x = mt.tensor(X, requires_grad=True)
    y = checkpoint(lambda a: a.exp(), x, use_reentrant=False).sum()
    y.backward(retain_graph=True)
    y.backward()  # recomputed a second time
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(X))
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_input_changed_in_place_before_backward():
    x = mt.tensor(X, requires_grad=True)
    h = x * 1
    y = checkpoint(lambda a: a.exp(), h, use_reentrant=False)
    with mt.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_torch(device, segments):
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint_sequential as torch_sequential

    torch.manual_seed(0)
    tnet = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 6),
                               torch.nn.Tanh(), torch.nn.Linear(6, 2)).double()  # fmt: skip
    net = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 2))
    net = net.double().to(device)
    net.load_state_dict({k: mt.tensor(v.numpy(), device=device)
                         for k, v in tnet.state_dict().items()})  # fmt: skip
    x = mt.tensor(X, device=device, requires_grad=True)
    tx = torch.tensor(X, requires_grad=True)
    y = checkpoint_sequential(net, segments, x, use_reentrant=False)
    ty = torch_sequential(tnet, segments, tx, use_reentrant=False)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ty.detach().numpy(), rtol=1e-12)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-10)
    for p, tp in zip(net.parameters(), tnet.parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), tp.grad.numpy(), rtol=1e-10)


def _context_fn_and_options(lib) -> list:
    from contextlib import contextmanager
    from importlib import import_module

    ckpt_module = import_module(lib.__name__ + ".utils.checkpoint")
    seen = []

    @contextmanager
    def noted(name):
        seen.append(("enter", name, lib.is_grad_enabled()))
        try:
            yield
        finally:  # (PyTorch leaves the recomputation early, by an exception)
            seen.append(("exit", name))

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = ckpt_module.checkpoint(lambda t: t.exp(), x, use_reentrant=False,
                               context_fn=lambda: (noted("forward"), noted("recompute")),
                               determinism_check="none", debug=False)  # fmt: skip
    seen.append("backward")
    y.sum().backward()
    seen.append(np.round(x.grad.numpy(), 4).tolist())
    for bad in (dict(use_reentrant=True, context_fn=lambda: (noted("a"), noted("b"))),
                dict(use_reentrant=False, determinism_check="sometimes")):  # fmt: skip
        try:
            ckpt_module.checkpoint(lambda t: t * 2, x, **bad)
        except ValueError:
            seen.append("ValueError")
    assert ckpt_module.noop_context_fn is not None
    return seen


def test_context_fn_and_the_other_options_as_in_pytorch():
    seen = _context_fn_and_options(mt)
    assert seen[:3] == [("enter", "forward", True), ("exit", "forward"), "backward"]
    assert seen[3] == ("enter", "recompute", True) and seen[-2:] == ["ValueError"] * 2
    torch = pytest.importorskip("torch")
    assert _context_fn_and_options(torch) == seen
