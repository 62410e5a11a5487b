"""Ordinary PyTorch code, as learners copy it from tutorials and course notebooks, runs
unchanged on microtorch and gives PyTorch's results.

Each snippet is a function of the module it is given, ``torch``: the same source text runs
as ``snippet(microtorch)`` (always) and as ``snippet(torch)`` (where PyTorch is installed).
Inputs come from NumPy arrays through ``torch.tensor(array)`` so both runs see the same
numbers; weights are loaded the same way. Both runs must agree on every returned value
(values, shapes, dtypes, requires_grad) and on everything printed (with ``microtorch.``
read as ``torch.``, so ``print(x.shape)`` and ``print(x.dtype)`` are compared too).

The second half checks the errors a learner hits (wrong shapes, integer tensors, CUDA on a
machine without it, backward twice, in-place changes to saved tensors...): each names the
op and the shapes, dtypes or devices involved. These snippets use the CPU, as the tutorials
do; device handling has its own tests (tests/test_backend.py, tests/test_errors.py).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import microtorch

from .conftest import cuda_available
from .torch_reference import torch_before


def randn(seed: int, *shape: int, scale: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def load_numpy_weights(torch: Any, model: Any, seed: int, scale: float = 1.0) -> None:
    """Give ``model`` the same random weights in both runs (through load_state_dict)."""
    rng = np.random.default_rng(seed)
    state = {
        name: torch.tensor((rng.standard_normal(tuple(v.shape)) * scale).astype(np.float32))
        for name, v in model.state_dict().items()
    }
    model.load_state_dict(state)


# ------------------------------------------------------------------ the snippets
SNIPPETS: list[Callable[[Any], Any]] = []
TOLERANCE: dict[str, tuple[float, float]] = {}  # name -> (rtol, atol) for training loops


def snippet(fn: Callable[[Any], Any] | None = None, *, rtol: float = 1e-5, atol: float = 1e-6):
    def register(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
        SNIPPETS.append(f)
        TOLERANCE[f.__name__] = (rtol, atol)
        return f

    return register(fn) if fn is not None else register


@snippet
def creation_and_default_dtypes(torch):
    a = torch.tensor([1, 2, 3])
    b = torch.tensor([1.0, 2.0])
    c = torch.tensor([True, False])
    d = torch.tensor(np.arange(4, dtype=np.float64))
    e = torch.tensor(np.arange(4, dtype=np.int32))
    f = torch.zeros(2, 3)
    g = torch.ones((2, 2), dtype=torch.long)
    h = torch.arange(5)
    i = torch.arange(0, 1, 0.25)
    j = torch.full((2,), 7)
    k = torch.full((2,), 7.0)
    print(a.dtype, b.dtype, c.dtype, d.dtype, e.dtype, f.dtype, g.dtype, h.dtype, i.dtype)
    print(j.dtype, k.dtype, torch.tensor(3.5).shape, torch.tensor(2).dim(), torch.eye(3).size(1))
    return [a, b, c, d, e, f, g, h, i, j, k, torch.eye(3), torch.linspace(0, 1, 5),
            torch.zeros_like(d)]  # fmt: skip


@snippet
def tensor_from_lists_of_numbers_tensors_and_numpy_scalars(torch):
    a = torch.tensor([torch.tensor(1.0), torch.tensor(2.0)])
    b = torch.tensor([1, 2.5])
    c = torch.as_tensor(np.array([1, 2, 3]))
    d = torch.from_numpy(np.array([1.0, 2.0], dtype=np.float32))
    e = torch.tensor(np.float32(3.0))
    f = torch.tensor([np.float64(1.0), 2.0])  # a NumPy float64 keeps its dtype
    g = torch.tensor([np.float32(1.0), 2.0])
    h = torch.tensor([])
    print(a.dtype, b.dtype, c.dtype, d.dtype, e.dtype, e.shape, f.dtype, g.dtype, h.shape, h.dtype)
    return [a, b, c, d, e, f, g]


@snippet
def dtype_promotion(torch):
    x = torch.tensor([1, 2, 3])
    y = torch.tensor([0.5, 1.5, 2.5])
    z = torch.tensor(np.array([1.0, 2.0, 3.0]))  # float64
    outs = [x + y, x * 2, x * 2.5, x / 2, x // 2, x % 2, y + z, x + True, (x > 1) + 1,
            y * torch.tensor(2.0, dtype=torch.float64), x**2, y**2, 2**y, x.sum(), (x > 1).sum(),
            -y, 1 - y, 1 / y, torch.tensor(1) + 1.5, torch.tensor(True) * 2]  # fmt: skip
    for o in outs:
        print(o.dtype)
    return outs


@snippet
def small_integer_dtypes_wrap_around(torch):
    a = torch.tensor([1, 2, -3], dtype=torch.int8)
    u = torch.tensor([1, 250], dtype=torch.uint8)
    outs = [a * 200, a + 300, 300 - a, u - 2, u + 10, a > 200]
    for o in outs:
        print(o.dtype)
    return outs


@snippet
def integer_arithmetic(torch):
    a = torch.tensor([-7, -3, 0, 3, 7])
    return [a // 2, a % 3, a / 2, a / 0.5, a * True, a.abs(), -a, a**2, a.clamp(-2, 2), a > 0,
            (a > 0) & (a < 5), ~(a > 0), (a > 0) | (a < -5), a.max(), a.min().item()]  # fmt: skip


@snippet
def broadcasting_arithmetic_and_gradients(torch):
    a = torch.tensor(randn(0, 4, 1, 3), requires_grad=True)
    b = torch.tensor(randn(1, 2, 3), requires_grad=True)
    c = (a * b + a / (b.abs() + 1) - b**2).tanh()
    c.sum().backward()
    print(c.shape)
    return [c, a.grad, b.grad]


@snippet
def matmul_forms(torch):
    A = torch.tensor(randn(2, 2, 3, 4), requires_grad=True)
    B = torch.tensor(randn(3, 4, 5), requires_grad=True)
    v = torch.tensor(randn(4, 4), requires_grad=True)
    outs = [A @ B, A @ v, v @ B, v @ v, torch.matmul(A, B), torch.bmm(A, A.transpose(1, 2)),
            torch.mm(A[0], B)]  # fmt: skip
    sum(o.sum() for o in outs).backward()
    for o in outs:
        print(o.shape)
    ints = torch.tensor([[1, 2], [3, 4]])
    return outs + [A.grad, B.grad, v.grad, ints @ ints]


@snippet
def indexing(torch):
    x = torch.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    outs = [x[0], x[:, 1], x[..., -1], x[0, 1:, ::2], x[:, None, 0], x[[0, 1, 1]],
            x[torch.tensor([1, 0])], x[x > 10], x[0][x[0] > 5], x[:, [0, 2], 1], x[1, 2, 3],
            x[-1, -1], torch.arange(10)[::3], torch.arange(10)[-3:],
            x[1, :, [0, 2]], x[torch.tensor(1), :, [0, 2]], x[[0, 1], :, 0]]  # fmt: skip
    for o in outs:
        print(o.shape)
    return outs


@snippet
def index_assignment(torch):
    x = torch.zeros(3, 4)
    x[0] = 1.0
    x[1, 2] = 5
    x[:, 3] = torch.tensor([7.0, 8.0, 9.0])
    x[x == 0] = -1.0
    x[2, :2] = torch.tensor([3.0, 4.0])
    x[:, [0, 2]] += 1
    y = torch.arange(6)
    y[y % 2 == 0] = 0
    z = torch.zeros(4)
    z[torch.tensor([0, 2])] = 1.0
    w = torch.zeros(2, 3, 4)
    w[1, :, [0, 2]] = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return [x, y, z, w]


@snippet
def integer_and_in_place_operators(torch):
    t = torch.tensor([5, -7, 12])
    outs = [t // 4, t % 4, 7 // t, 7.5 % t, t.floor_divide(-5), t.remainder(5), 5 in t, 6 in t,
            torch.floor_divide(t, 3), torch.remainder(t, -3)]  # fmt: skip
    x = torch.tensor([5.0, -3.5])
    alias = x  # in-place operators change the tensor itself, so the alias sees them
    x **= 2
    x //= 3
    x %= 5
    mask = torch.tensor([True, False, True])
    alias_mask = mask
    mask &= torch.tensor([True, True, False])
    mask |= torch.tensor([False, True, False])
    mask ^= torch.tensor([True, True, True])
    return outs + [alias, alias_mask]


@snippet
def growing_a_tensor_in_a_loop_and_finding_elements(torch):
    out = torch.tensor([])  # an empty 1-D start: cat leaves it out, whatever the other shapes
    for i in range(3):
        out = torch.cat([out, torch.full((1, 2), float(i))])
    x = torch.tensor([[0.0, 1.5], [2.0, 0.0]])
    rows, cols = torch.where(x > 1)
    return [out, torch.cat([torch.tensor([]), torch.tensor([])]), rows, cols,
            torch.nonzero(x), x.nonzero(as_tuple=True)[1], torch.nonzero(torch.tensor(5)),
            x.where(x > 1, -1.0), *torch.zeros(0, 2).chunk(3)]  # fmt: skip


@snippet
def loss_modules_with_weights_and_ignored_targets(torch):
    logp = torch.log_softmax(torch.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0], [1.0, 1.0, 1.0]]), 1)
    t = torch.tensor([1, 2, 0])
    w = torch.tensor([1.0, 2.0, 0.5])
    nn = torch.nn
    images = torch.log_softmax(torch.arange(24.0).reshape(2, 3, 2, 2) / 10, dim=1)
    return [nn.NLLLoss()(logp, t), nn.NLLLoss(w)(logp, t), nn.NLLLoss(reduction="none")(logp, t),
            nn.NLLLoss(w, ignore_index=2)(logp, t), nn.CrossEntropyLoss(w, ignore_index=0)(logp, t),
            nn.NLLLoss(reduction="none")(images, torch.zeros(2, 2, 2, dtype=torch.long)),
            torch.nn.functional.cross_entropy(logp[0], t[0], reduction="none")]  # fmt: skip


@snippet
def dtype_limits_positions_and_random_like(torch):
    scores = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    mask = torch.tensor([[True, False], [True, True]])
    filled = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)  # the HF-style mask fill
    limits = [torch.finfo(torch.float32).eps, torch.finfo().max, torch.finfo(torch.float16).tiny,
              torch.finfo(torch.float64).resolution, torch.iinfo(torch.int64).max,
              torch.iinfo(torch.uint8).min, torch.finfo(torch.float32).bits]  # fmt: skip
    # rotary-style angles: positions times inverse frequencies, then sin and cos
    inv_freq = 1.0 / (10000 ** (torch.arange(0, 4, 2).float() / 4))
    angles = torch.outer(torch.arange(3).float(), inv_freq)
    noise = torch.randn_like(scores, dtype=torch.float64)  # (different numbers: shape only)
    return [filled, torch.softmax(filled, -1), limits, angles.sin(), angles.cos(),
            scores.is_floating_point(), torch.is_floating_point(torch.tensor([1])),
            list(noise.shape), str(torch.rand_like(scores).dtype).split(".")[-1],
            scores.flip(-1), torch.amin(scores, 0), scores.index_select(0, torch.tensor([1, 1]))]  # fmt: skip


@snippet
def autograd_grad_for_an_input_saliency(torch):
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    with torch.no_grad():  # the same weights in both libraries
        for p in net.parameters():
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
    x = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    score = net(x)[0, 1]
    (saliency,) = torch.autograd.grad(score, x, retain_graph=True)
    params = list(net.parameters())
    grads = torch.autograd.grad(net(x).pow(2).sum(), params)
    return [saliency, *grads, [p.grad is None for p in params]]


@snippet
def a_small_classifier_with_flatten_and_leaky_relu(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 5), nn.LeakyReLU(0.1), nn.Linear(5, 3),
                          nn.Unflatten(1, (3, 1)))  # fmt: skip
    with torch.no_grad():  # the same weights in both libraries
        for p in model.parameters():
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
    x = torch.arange(24.0).reshape(2, 3, 4) / 10
    out = model(x)
    emb = torch.nn.functional.normalize(out.squeeze(-1), dim=1)
    (emb @ emb.T).sum().backward()
    print(model)
    return [out, emb, model[1].weight.grad]


@snippet
def division_modes_and_keyword_sizes(torch):
    a, b = torch.tensor([7, -7, 6, -6, 0]), torch.tensor([2, 2, -4, -4, 3])
    f = torch.tensor([7.5, -7.5, 2.0])
    pos = torch.arange(6)
    return [torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"),
            a.div(2, rounding_mode="trunc"), torch.div(f, 2, rounding_mode="trunc"), torch.div(a, b),
            torch.div(pos, 2, rounding_mode="floor"), f.new_full((2,), 3), a.new_full((2,), 3.7),
            list(f.new_empty(2, 1).shape), torch.zeros(size=(2, 3)), torch.ones(size=(2,)),
            list(torch.randn(size=(3,)).shape)]  # fmt: skip


@snippet
def shape_methods_with_keyword_arguments(torch):
    x = torch.arange(6.0).reshape(2, 3)
    return [x.view(size=(3, 2)), x.expand(size=(2, 2, 3)), x.permute(dims=(1, 0)),
            x.reshape(shape=(3, 2)), x.repeat(repeats=(2, 1)), x.flip(dims=(0,)),
            torch.reshape(x, shape=(6,)), torch.permute(x, dims=(1, 0))]  # fmt: skip


@snippet
def index_assignment_inside_the_graph(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[0] = 0.0
    y[1:] = x[1:] * 3
    y.sum().backward()
    return [y, x.grad]


@snippet
def reductions_with_dim_and_keepdim(torch):
    x = torch.tensor(randn(1, 3, 4, 5))
    m = x.max(dim=1)
    print(m.values.shape, m.indices.dtype)
    return [x.sum(), x.sum(dim=0), x.sum(dim=(0, 2)), x.sum(-1, keepdim=True), x.mean(1),
            x.mean(dim=[1, 2], keepdim=True), x.max(), x.min(), m.values, m.indices, m[0],
            x.argmax(), x.argmax(dim=2), x.argmin(dim=0, keepdim=True), x.var(), x.var(dim=1),
            x.std(dim=2, keepdim=True), x.var(unbiased=False), x.amax(dim=(1, 2)), x.norm(),
            torch.sum(x, 1), torch.mean(x), torch.max(x, 2)[1],
            x.min(dim=-1, keepdim=True)[0]]  # fmt: skip


@snippet
def reductions_with_numpy_spellings(torch):
    # makemore part 1: P = N.float(); P /= P.sum(1, keepdims=True)
    x = torch.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    return [x.sum(1, keepdims=True), torch.sum(x, axis=0), x.mean(axis=1, keepdims=True),
            x.max(axis=0).values, x.min(1, keepdims=True)[0], x.amax(axis=1), x.argmax(axis=1),
            x.argmin(axis=0, keepdims=True), x.std(axis=0), torch.var(x, axis=1, keepdims=True),
            torch.max(x, axis=1).indices]  # fmt: skip


@snippet
def reduction_dtype_rules(torch):
    b = torch.tensor([True, False, True])
    i = torch.tensor([1, 2, 3], dtype=torch.int32)
    outs = [b.sum(), i.sum(), i.max(), i.float().mean(), b.any(), b.all(), i.argmax(),
            i.sum(dim=0, keepdim=True), i.sum(dtype=torch.float32)]  # fmt: skip
    for o in outs:
        print(o.dtype, o.shape)
    return outs


@snippet
def view_reshape_permute_transpose(torch):
    x = torch.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    e = x.transpose(0, 2)
    f = e.contiguous().view(4, 6)
    g = x.unsqueeze(0).unsqueeze(-1)
    outs = [x.view(6, 4), x.view(-1), x.reshape(4, -1), x.permute(2, 0, 1), e, f, g, g.squeeze(),
            x.flatten(1), x.mT, torch.flatten(x), x[:, :1].expand(2, 3, 4), x.view(2, 12).t(),
            x.view(-1, 3, 1).squeeze(-1), x[:, :1].repeat(1, 2, 1), torch.permute(x, (1, 0, 2)),
            torch.transpose(x, 0, 1), torch.unsqueeze(x, 0)]  # fmt: skip
    print(e.is_contiguous(), f.is_contiguous(), x.size(), x.size(-1), len(x))
    print(x.shape == (2, 3, 4), x.shape == torch.Size([2, 3, 4]), tuple(x.shape), list(x.shape))
    return outs


@snippet
def views_share_memory(torch):
    x = torch.zeros(2, 3)
    v = x.view(6)
    v[0] = 1.0
    t = x.t()
    t[2, 1] = 5.0
    s = x[0]
    s += 2
    d = x.detach()
    d[1, 0] = 7.0
    c = x.clone()
    c.fill_(0)
    return [x, x.reshape(3, 2), c]


@snippet
def cat_stack_split_chunk(torch):
    a = torch.tensor(np.ones((2, 3), dtype=np.float32))
    b = torch.tensor(np.zeros((1, 3), dtype=np.float32))
    g = torch.arange(10).split(3)
    print([t.shape for t in g], len(torch.arange(10).chunk(3)))
    return [torch.cat([a, b]), torch.cat((a, a), dim=1), torch.cat([a, a], dim=-1),
            torch.stack([a, a]), torch.stack([a, a], dim=-1), list(g),
            list(torch.arange(10).split([2, 8])), list(torch.arange(10).chunk(3)),
            list(torch.arange(12).view(3, 4).chunk(2, dim=1)),
            torch.cat([torch.tensor([1, 2]), torch.tensor([0.5])])]  # fmt: skip


@snippet
def masked_fill_tril_softmax(torch):
    T = 4
    att = torch.tensor(randn(2, 2, T, T), requires_grad=True)
    tril = torch.tril(torch.ones(T, T))
    w = att.masked_fill(tril == 0, float("-inf"))
    w = torch.softmax(w, dim=-1)
    upper = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    w2 = att.masked_fill(upper, -1e9).softmax(-1)
    (w * w2).sum().backward()
    return [tril, w, w2, att.grad]


@snippet
def softmax_and_log_softmax(torch):
    F = torch.nn.functional
    x = torch.tensor(randn(3, 3, 5, scale=10.0), requires_grad=True)
    a = F.softmax(x, dim=1)
    b = F.log_softmax(x, dim=-1)
    c = torch.softmax(x, 0)
    d = x.softmax(dim=-1)
    e = torch.log_softmax(x, dim=1)
    (a[:, 0].sum() + b[1, 2] + c.sum() + (d * e).sum()).backward()
    return [a, b, c, d, e, x.grad, a.sum(dim=1)]


@snippet
def softmax_without_dim_uses_pytorchs_legacy_choice(torch):
    F = torch.nn.functional
    x3 = torch.tensor(randn(4, 2, 3, 4))  # 3-d: PyTorch picks dim 0 (and warns)
    x2 = torch.tensor(randn(5, 3, 4))  # 2-d: dim 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [F.softmax(x3), F.log_softmax(x3), F.softmax(x2), torch.nn.Softmax()(x3)]


@snippet
def cross_entropy_variants(torch):
    F = torch.nn.functional
    logits = torch.tensor(randn(6, 6, 5), requires_grad=True)
    targets = torch.tensor([0, 4, -100, 2, 1, -100])
    loss = F.cross_entropy(logits, targets, ignore_index=-100)
    loss.backward()
    y = torch.tensor([1, 2, 3, 4, 0, 1])
    B, T, C = 2, 3, 5
    lg = logits.view(B, T, C)
    yt = torch.tensor([[1, 2, 3], [0, 0, 4]])
    outs = [loss, logits.grad, F.cross_entropy(logits, y, reduction="sum"),
            F.cross_entropy(logits, y, reduction="none"),
            F.cross_entropy(lg.view(B * T, C), yt.view(-1)), F.cross_entropy(lg.transpose(1, 2), yt),
            F.cross_entropy(logits, y, label_smoothing=0.1), torch.nn.CrossEntropyLoss()(logits, y),
            F.nll_loss(F.log_softmax(logits, dim=1), y)]  # fmt: skip
    print(loss.item() > 0, loss.shape, outs[3].shape)
    return outs


@snippet
def layer_norm_functional_and_module(torch):
    F = torch.nn.functional
    x = torch.tensor(randn(7, 2, 3, 8), requires_grad=True)
    w = torch.tensor(randn(8, 8), requires_grad=True)
    b = torch.tensor(randn(9, 8), requires_grad=True)
    y = F.layer_norm(x, (8,), w, b, eps=1e-5)
    ln = torch.nn.LayerNorm(8)
    z = ln(x)
    y2 = F.layer_norm(x, [3, 8])
    (y * z).sum().backward()
    (y2**2).mean().backward()
    print(ln)
    return [y, z, y2, x.grad, w.grad, b.grad, ln.weight.grad, ln.bias.grad]


@snippet
def embedding_lookup(torch):
    emb = torch.nn.Embedding(10, 4)
    with torch.no_grad():
        emb.weight.copy_(torch.tensor(randn(10, 10, 4)))
    out = emb(torch.tensor([[1, 2, 1], [9, 0, 1]]))
    out.pow(2).sum().backward()
    print(out.shape, emb.weight.shape, emb)
    return [out, emb.weight.grad, torch.nn.functional.embedding(torch.tensor([3, 3]), emb.weight)]


@snippet
def activations(torch):
    nn, F = torch.nn, torch.nn.functional
    x = torch.tensor(np.linspace(-3, 3, 7).astype(np.float32), requires_grad=True)
    outs = [F.gelu(x), F.gelu(x, approximate="tanh"), nn.GELU()(x), nn.GELU(approximate="tanh")(x),
            nn.ReLU()(x), nn.Tanh()(x), nn.Sigmoid()(x), F.silu(x), nn.Softmax(dim=0)(x),
            torch.tanh(x), F.relu(x), torch.relu(x), torch.sigmoid(x), x.exp(), (x.abs() + 1).log(),
            (x.abs() + 1).sqrt(), torch.where(x > 0, x, 0.0), x.clamp(-0.5, 0.5),
            torch.maximum(x, torch.tensor(0.0))]  # fmt: skip
    sum(o.sum() for o in outs).backward()
    return outs + [x.grad]


@snippet
def linear_layers_in_a_module(torch):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 3, bias=False)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))

    net = Net()
    load_numpy_weights(torch, net, 7)
    y = net(torch.tensor(randn(8, 5, 4)))
    y.sum().backward()
    print(net)
    print([n for n, _ in net.named_parameters()], sum(p.numel() for p in net.parameters()))
    print([tuple(p.shape) for p in net.parameters()], list(net.state_dict().keys()))
    return [y, net.fc1.weight.grad, net.fc1.bias.grad, net.fc2.weight.grad]


@snippet
def module_containers_buffers_and_apply_init(torch):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(n, n) for _ in range(3)])
            self.heads = nn.ModuleDict({"a": nn.Linear(n, 2), "b": nn.Linear(n, 1)})
            self.register_buffer("mask", torch.tril(torch.ones(n, n)))

        def forward(self, x):
            for layer in self.layers:
                x = layer(x).relu()
            return self.heads["a"](x), self.heads["b"](x)

    def init(module):
        if isinstance(module, nn.Linear):
            nn.init.ones_(module.weight)
            if module.bias is not None:
                nn.init.zeros_(module.bias)

    m = Block(4)
    m.apply(init)
    a, b = m(torch.ones(2, 4) * 0.1)
    print([n for n, _ in m.named_modules()])
    print([n for n, _ in m.named_parameters()])
    print(list(m.state_dict().keys()))
    print([n for n, _ in m.named_buffers()], len(list(m.children())), len(list(m.modules())))
    return [a, b, m.mask]


@snippet
def weight_tying(torch):
    nn = torch.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(5, 3)
            self.lm_head = nn.Linear(3, 5, bias=False)
            self.wte.weight = self.lm_head.weight

    m = M()
    print(len(list(m.parameters())), list(m.state_dict().keys()), m.wte.weight is m.lm_head.weight)
    print(sum(p.numel() for p in m.parameters()))


@snippet
def module_repr_and_dtype_moves(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Linear(2, 3, bias=False), nn.LayerNorm(3), nn.Dropout(0.1), nn.GELU(),
                      nn.Embedding(5, 3), nn.Softmax(dim=-1))  # fmt: skip
    print(m)
    print(nn.ModuleList([nn.ReLU(), nn.Tanh()]), nn.LayerNorm(4, bias=False))
    lin = nn.Linear(2, 2).double()
    y = lin(torch.ones(1, 2, dtype=torch.float64))
    lin.to(torch.float32)
    print(y.dtype, lin.weight.dtype, next(lin.parameters()).dtype, lin.weight.device)
    print(lin.state_dict()["weight"].requires_grad)


@snippet(rtol=1e-4, atol=1e-5)
def sequential_mlp_with_sgd_momentum(torch):
    nn = torch.nn
    model = nn.Sequential(
        nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1)
    )
    load_numpy_weights(torch, model, 8, scale=0.3)
    x, y = torch.tensor(randn(11, 32, 3)), torch.tensor(randn(12, 32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for _ in range(20):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(model)
    print(model[0], len(model))
    return [losses, model[0].weight, model[4].bias]


@snippet(rtol=1e-4, atol=1e-5)
def classifier_with_adam_and_accuracy(torch):
    nn, F = torch.nn, torch.nn.functional
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 3))
    load_numpy_weights(torch, model, 9, scale=0.5)
    X = torch.tensor(randn(13, 16, 4))
    Y = torch.tensor(np.random.default_rng(14).integers(0, 3, 16))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(15):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(X), Y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        pred = model(X).argmax(dim=1)
    acc = (pred == Y).float().mean()
    correct = (pred == Y).sum().item()
    print(type(correct).__name__, ((pred == Y).sum() / len(Y)).dtype, f"{acc:.3f}")
    return [losses, list(model.parameters()), acc]


@snippet(rtol=1e-4, atol=1e-5)
def adamw_param_groups_cosine_schedule_and_clipping(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(5, 5), nn.LayerNorm(5), nn.Linear(5, 2))
    load_numpy_weights(torch, model, 10)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    x = torch.tensor(randn(15, 8, 5))
    lrs, norms = [], []
    for _ in range(10):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
        norms.append(norm.item())
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    print(norm.dim(), norm.dtype)
    return [lrs, norms, list(model.parameters())]


@snippet
def warmup_then_cosine_with_lambda_lr(torch):
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.AdamW([p], lr=1.0)
    warmup, total = 3, 10

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1 + math.cos(math.pi * progress))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    lrs = [sched.get_last_lr()[0]]
    for _ in range(total):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    cos = torch.optim.lr_scheduler.CosineAnnealingLR(
        torch.optim.SGD([p], lr=0.1), T_max=5, eta_min=0.01
    )
    lrs2 = []
    for _ in range(7):
        cos.optimizer.step()
        cos.step()
        lrs2.append(cos.get_last_lr()[0])
    return [lrs, lrs2, sched.state_dict()["last_epoch"]]


@snippet
def setting_lr_by_hand_in_the_loop(torch):
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=1.0, weight_decay=0.1)
    for it in range(3):
        for group in opt.param_groups:
            group["lr"] = 0.1 * (it + 1)
        p.grad = torch.ones(2)
        opt.step()
    print(p.requires_grad, opt.param_groups[0]["lr"], len(opt.param_groups[0]["params"]))
    return [p]


@snippet
def freezing_layers(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    load_numpy_weights(torch, model, 30)
    for p in model[0].parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    model(torch.tensor(randn(31, 5, 3))).pow(2).mean().backward()
    opt.step()
    for name, p in model.named_parameters():
        print(name, tuple(p.shape), p.requires_grad, p.grad is None)
    model.zero_grad()
    print([p.grad is None for p in model.parameters()])
    return [model[0].weight, model[2].weight]


@snippet
def gradient_clipping_utilities(torch):
    nn = torch.nn
    p = nn.Parameter(torch.tensor([3.0, -4.0]))
    p.grad = torch.tensor([3.0, -4.0])
    n = nn.utils.clip_grad_norm_([p], max_norm=1.0)
    q = nn.Parameter(torch.tensor([1.0, 2.0]))
    q.grad = torch.tensor([0.5, -2.0])
    nn.utils.clip_grad_value_([q], clip_value=1.0)
    r = nn.Parameter(torch.ones(3))
    r.grad = torch.tensor([1.0, 2.0, 2.0])
    return [n, p.grad, q.grad, nn.utils.clip_grad_norm_(r, 10.0), r.grad]


@snippet
def checkpoint_round_trip(torch, tmp_path):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    load_numpy_weights(torch, model, 11)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    x = torch.tensor(randn(12, 4, 3))
    model(x).sum().backward()
    opt.step()
    path = os.path.join(tmp_path, "ckpt.pt")
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": 1}, path)
    ckpt = torch.load(path, map_location="cpu")
    model2 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    model2.load_state_dict(ckpt["model"])
    opt2 = torch.optim.Adam(model2.parameters(), lr=0.01)
    opt2.load_state_dict(ckpt["optimizer"])
    with torch.no_grad():
        same = torch.equal(model(x), model2(x))
    print(ckpt["step"], sorted(ckpt.keys()), list(ckpt["model"].keys()))
    print(sorted(ckpt["optimizer"].keys()), sorted(ckpt["optimizer"]["state"][0].keys()))
    torch.save(model.state_dict(), path)
    model2.load_state_dict(torch.load(path, weights_only=True, map_location=torch.device("cpu")))
    return [same, model2(x), ckpt["optimizer"]["param_groups"][0]["lr"]]


@snippet(rtol=1e-4, atol=1e-5)
def optimizer_resume_continues_exactly(torch, tmp_path):
    nn = torch.nn
    w0 = randn(26, 2, 3)

    def make():
        m = nn.Linear(3, 2)
        m.load_state_dict({"weight": torch.tensor(w0), "bias": torch.zeros(2)})
        return m

    def steps(m, opt, n):
        for _ in range(n):
            opt.zero_grad()
            m(x).pow(2).sum().backward()
            opt.step()

    x = torch.tensor(randn(27, 5, 3))
    m = make()
    opt = torch.optim.AdamW(m.parameters(), lr=0.1, weight_decay=0.01)
    steps(m, opt, 3)
    path = os.path.join(tmp_path, "c.pt")
    torch.save({"m": m.state_dict(), "o": opt.state_dict()}, path)
    steps(m, opt, 2)
    ckpt = torch.load(path)
    m2 = make()
    m2.load_state_dict(ckpt["m"])
    opt2 = torch.optim.AdamW(m2.parameters(), lr=0.1, weight_decay=0.01)
    opt2.load_state_dict(ckpt["o"])
    steps(m2, opt2, 2)
    print(torch.equal(m.weight, m2.weight))
    return [m2.weight, m2.bias]


@snippet
def no_grad_inference_and_eval(torch):
    nn = torch.nn
    lin = nn.Linear(3, 2)
    x = torch.ones(4, 3)
    with torch.no_grad():
        y = lin(x)
    print(y.requires_grad, y.grad_fn is None, lin.weight.requires_grad)
    lin.eval()
    print(lin.training, torch.is_grad_enabled())

    @torch.no_grad()
    def predict(v):
        return lin(v)

    w = lin(x)
    print(predict(x).requires_grad, w.requires_grad, w.grad_fn is not None)
    with torch.set_grad_enabled(False):
        a = x * 2
    with torch.no_grad():
        with torch.enable_grad():
            b = lin(x)
    print(a.requires_grad, b.requires_grad, torch.is_grad_enabled())
    d = nn.Dropout(0.5)
    d.eval()
    e = d(torch.ones(100))
    d.train()
    z = d(torch.ones(100))
    print(d.training, bool(((z == 0) | (z == 2)).all()))
    return [y.shape, e]


@snippet
def inference_mode_and_bare_no_grad_decorator(torch):
    lin = torch.nn.Linear(2, 2)
    x = torch.ones(1, 2)

    @torch.no_grad
    def f(v):
        return lin(v)

    @torch.inference_mode()
    def g(v):
        return lin(v)

    with torch.inference_mode():
        y = lin(x)
    with torch.inference_mode(False):
        z = lin(x)
    print(f(x).requires_grad, g(x).requires_grad, y.requires_grad, z.requires_grad)
    print(torch.is_grad_enabled())


@snippet
def custom_layer_with_the_legacy_tensor_constructor(torch):
    nn = torch.nn

    class MyLinear(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = nn.Parameter(torch.Tensor(out_features, in_features))
            self.bias = nn.Parameter(torch.Tensor(out_features))
            nn.init.ones_(self.weight)
            nn.init.zeros_(self.bias)

        def forward(self, x):
            return x @ self.weight.t() + self.bias

    layer = MyLinear(3, 2)
    y = layer(torch.Tensor([[1, 2, 3]]))
    print(
        layer.weight.shape, layer.weight.dtype, torch.Tensor(np.ones(2)).dtype, torch.Tensor().shape
    )
    return [y, torch.Tensor((2, 3)), torch.Tensor([True, False])]


@snippet
def shape_slices_and_comparison_methods(torch):
    # PyTorch's MNIST example: correct += pred.eq(target.view_as(pred)).sum().item()
    output = torch.tensor(randn(28, 6, 4))
    target = torch.tensor([0, 1, 2, 3, 0, 1])
    pred = output.argmax(dim=1, keepdim=True)
    correct = pred.eq(target.view_as(pred)).sum().item()
    x = torch.zeros(2, 3, 4)
    print(x.shape[-2:], x.shape[:1] + (5,), (7,) + x.shape[1:], x.shape[0], x.size()[1:])
    return [correct, target.ne(1), target.lt(2), target.le(2), target.gt(0), target.ge(3)]


@snippet
def estimate_loss_like_nanogpt(torch):
    nn, F = torch.nn, torch.nn.functional
    model = nn.Linear(4, 3)
    load_numpy_weights(torch, model, 21)
    rng = np.random.default_rng(22)
    batches = [(randn(23 + k, 8, 4), rng.integers(0, 3, 8)) for k in range(5)]

    @torch.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ["train", "val"]:
            losses = torch.zeros(len(batches))
            for k, (X, Y) in enumerate(batches):
                losses[k] = F.cross_entropy(model(torch.tensor(X)), torch.tensor(Y)).item()
            out[split] = losses.mean()
        model.train()
        return out

    losses = estimate_loss()
    print(losses["train"].shape, losses["train"].dtype, model.training, losses["val"].requires_grad)
    print(f"step 0: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    return losses


@snippet
def get_batch_from_a_character_corpus(torch):
    text = "hello world, this is a tiny corpus of text for a tiny test."
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = int(0.9 * len(data))
    train_data, val_data = data[:n], data[n:]
    block_size, batch_size = 8, 4
    ix = torch.tensor(np.array([0, 5, 17, 30]))
    x = torch.stack([train_data[i : i + block_size] for i in ix])
    y = torch.stack([train_data[i + 1 : i + block_size + 1] for i in ix])
    ix2 = torch.randint(len(data) - block_size, (batch_size,))
    x2 = torch.stack([data[i : i + block_size] for i in ix2])
    print(data.shape, data.dtype, x.shape, y.shape, x2.shape, x2.dtype, ix2.dtype)
    return [x, y, train_data.shape, val_data]


@snippet(rtol=1e-4, atol=1e-5)
def single_attention_head_from_lets_build_gpt(torch):
    nn, F = torch.nn, torch.nn.functional
    B, T, C, head_size = 2, 5, 8, 4
    x = torch.tensor(randn(14, B, T, C))
    key = nn.Linear(C, head_size, bias=False)
    query = nn.Linear(C, head_size, bias=False)
    value = nn.Linear(C, head_size, bias=False)
    for i, lin in enumerate((key, query, value)):
        with torch.no_grad():
            lin.weight.copy_(torch.tensor(randn(15 + i, head_size, C)))
    k, q, v = key(x), query(x), value(x)
    wei = q @ k.transpose(-2, -1) * head_size**-0.5
    tril = torch.tril(torch.ones(T, T))
    wei = wei.masked_fill(tril[:T, :T] == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    out = wei @ v
    out.mean().backward()
    y = F.scaled_dot_product_attention(
        q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1), is_causal=True
    )
    print(out.shape, y.shape)
    return [wei, out, key.weight.grad, y.squeeze(1)]


@snippet
def generate_with_topk_and_sampling(torch):
    F = torch.nn.functional
    emb = torch.nn.Embedding(6, 6)
    with torch.no_grad():
        emb.weight.copy_(torch.tensor(randn(25, 6, 6, scale=5.0)))
    idx = torch.zeros((1, 1), dtype=torch.long)
    for _ in range(8):
        logits = emb(idx[:, -4:])[:, -1, :] / 1.0
        v, _ = torch.topk(logits, 3)
        logits[logits < v[:, [-1]]] = -float("Inf")
        probs = F.softmax(logits, dim=-1)
        idx_next = torch.argmax(probs, dim=-1, keepdim=True)
        sampled = torch.multinomial(probs, num_samples=1)
        assert probs[0, sampled[0, 0]] > 0  # only the top 3 can be drawn
        idx = torch.cat((idx, idx_next), dim=1)
    one_hot_draw = torch.multinomial(
        torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), num_samples=1
    )
    draws = torch.multinomial(torch.tensor([0.2, 0.3, 0.5]), 10, replacement=True)
    print(idx.shape, idx.dtype, idx[0].tolist(), draws.shape, draws.dtype)
    return [idx, one_hot_draw, logits, logits.topk(2, dim=-1)]


@snippet
def generator_objects_as_in_makemore(torch):
    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((27, 27), generator=g, requires_grad=True)
    p = torch.rand(3, generator=g)
    p = p / p.sum()
    s = torch.multinomial(p, num_samples=20, replacement=True, generator=g)
    ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
    torch.manual_seed(42)
    a = torch.randn(3, 4, requires_grad=True)
    torch.manual_seed(42)
    b = torch.randn(3, 4)
    c = torch.randint(0, 10, (4, 8))
    print(W.shape, W.requires_grad, s.shape, s.dtype, type(ix).__name__, torch.equal(a, b))
    print(c.dtype, bool(((c >= 0) & (c < 10)).all()), sorted(torch.randperm(5).tolist()))


@snippet(rtol=1e-4, atol=1e-5)
def bigram_with_one_hot_and_manual_updates(torch):
    F = torch.nn.functional
    xs = torch.tensor([0, 1, 2, 3, 1, 0])
    ys = torch.tensor([1, 2, 3, 0, 0, 2])
    W = torch.tensor(randn(15, 4, 4), requires_grad=True)
    losses = []
    for _ in range(10):
        xenc = F.one_hot(xs, num_classes=4).float()
        counts = (xenc @ W).exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(6), ys].log().mean() + 0.01 * (W**2).mean()
        W.grad = None
        loss.backward()
        W.data += -0.5 * W.grad
        losses.append(loss.item())
    print(xenc.dtype, xenc.shape)
    return [losses, W]


@snippet(rtol=1e-4, atol=1e-5)
def mlp_with_embedding_table_as_in_makemore(torch):
    F = torch.nn.functional
    rng = np.random.default_rng(16)
    C, W1, b1 = (
        torch.tensor(randn(16, 27, 2)),
        torch.tensor(randn(17, 6, 10)),
        torch.tensor(randn(18, 10)),
    )
    W2, b2 = torch.tensor(randn(19, 10, 27)), torch.tensor(randn(20, 27))
    parameters = [C, W1, b1, W2, b2]
    for p in parameters:
        p.requires_grad = True
    X, Y = torch.tensor(rng.integers(0, 27, (32, 3))), torch.tensor(rng.integers(0, 27, 32))
    for _ in range(5):
        emb = C[X]
        h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
        loss = F.cross_entropy(h @ W2 + b2, Y)
        for p in parameters:
            p.grad = None
        loss.backward()
        for p in parameters:
            p.data += -0.1 * p.grad
    print(emb.shape, sum(p.nelement() for p in parameters))
    return [loss, C, W1.grad]


@snippet
def manual_batchnorm(torch):
    h = torch.tensor(randn(22, 32, 10), requires_grad=True)
    bngain = torch.ones((1, 10), requires_grad=True)
    bnbias = torch.zeros((1, 10), requires_grad=True)
    bnmean = h.mean(0, keepdim=True)
    bnstd = h.std(0, keepdim=True)
    out = bngain * (h - bnmean) / bnstd + bnbias
    out2 = (h - bnmean) * (h.var(0, keepdim=True, unbiased=True) + 1e-5) ** -0.5
    (out.tanh().sum() + out2.pow(3).mean()).backward()
    with torch.no_grad():
        running = 0.999 * torch.zeros((1, 10)) + 0.001 * bnmean
    return [out, out2, h.grad, bngain.grad, bnbias.grad, running]


@snippet
def manual_sgd_under_no_grad(torch):
    w = torch.tensor(randn(23, 3), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    x, y = torch.tensor(randn(24, 10, 3)), torch.tensor(randn(25, 10))
    for _ in range(5):
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            b -= 0.1 * b.grad
            w.grad.zero_()
            b.grad.zero_()
    return [w, b, loss]


@snippet
def losses_mse_nll_and_manual_bce(torch):
    F, nn = torch.nn.functional, torch.nn
    p = torch.tensor(randn(24, 4, 2), requires_grad=True)
    t = torch.tensor(randn(25, 4, 2))
    y = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    q = torch.sigmoid(p.view(-1))
    bce = -(y * torch.log(q + 1e-7) + (1 - y) * torch.log(1 - q + 1e-7)).mean()
    outs = [F.mse_loss(p, t), nn.MSELoss()(p, t), F.mse_loss(p, t, reduction="sum"),
            F.nll_loss(F.log_softmax(p, dim=1), torch.tensor([0, 1, 1, 0])), bce]  # fmt: skip
    sum(outs).backward()
    return outs + [p.grad]


@snippet
def gather_and_one_hot(torch):
    F = torch.nn.functional
    logp = torch.tensor(np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], dtype=np.float32)))
    y = torch.tensor([2, 0])
    oh2 = F.one_hot(torch.tensor([[0, 1], [2, 2]]))
    print(F.one_hot(y, 3).dtype, oh2.shape)
    return [
        logp.gather(1, y.unsqueeze(1)).squeeze(1),
        logp[torch.arange(2), y],
        F.one_hot(y, 3),
        oh2,
    ]


@snippet
def inplace_methods(torch):
    x = torch.ones(3)
    x.add_(2).mul_(3)
    y = torch.zeros(2, 2)
    y.fill_(4.0)
    y.zero_()
    y += 1
    y *= torch.tensor([2.0, 3.0])
    z = torch.arange(4.0)
    z.clamp_(min=1, max=2)
    w = torch.ones(2, 3)
    w.masked_fill_(torch.tensor([[True, False, True], [False, False, False]]), 0.0)
    c = torch.empty(3).copy_(torch.tensor([1, 2, 3]))
    return [x, y, z, w, c]


@snippet
def autograd_accumulation_retain_graph_and_hooks(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    print(x.grad is None, x.grad_fn is None)
    y = (x**2).sum()
    print(y.requires_grad, y.is_leaf, y.grad_fn is not None)
    y.backward(retain_graph=True)
    g1 = x.grad.clone()
    y.backward()  # gradients add up
    h = x * 3
    h.retain_grad()
    h.sum().backward()
    seen = []
    z = torch.tensor([1.0, -1.0], requires_grad=True)
    z.register_hook(lambda g: seen.append(g.clone()))
    (z * z).sum().backward()
    return [g1, x.grad, h.grad, seen, z.grad]


@snippet
def requires_grad_detach_clone_item_tolist_numpy(torch):
    a = torch.tensor(randn(12, 3))
    a.requires_grad_()
    b = a * 2
    c = b.detach()
    d = a.clone()
    e = (d * c).sum()
    e.backward()
    print(a.is_leaf, b.is_leaf, c.requires_grad, d.requires_grad, d.grad_fn is not None)
    print(type(e.item()).__name__, type(a.tolist()).__name__, type(torch.tensor(5).item()).__name__)
    print(f"{torch.tensor(2.5):.2f} {torch.tensor(7)} {torch.tensor(3):>3d}")
    n = a.detach().numpy()
    return [a.grad, c, n, torch.tensor([[1, 2], [3, 4]]).tolist(), n.dtype.name,
            torch.tensor(2.5).item(), float(e.detach()), int(torch.tensor(3))]  # fmt: skip


@snippet
def dtype_and_device_conversions(torch):
    x = torch.tensor([1.5, 2.5, -1.5])
    outs = [x.long(), x.int(), x.double(), x.to(torch.float64), x.to("cpu"), x.to(dtype=torch.int64),
            x.bool(), x.to(torch.tensor([1])), torch.tensor([1, 0]).float(), x.half(), x.half() * 2,
            x.type_as(torch.tensor([1], dtype=torch.int32))]  # fmt: skip
    for o in outs:
        print(o.dtype, o.device)
    print(x.device, str(x.device), torch.float32, torch.long, torch.int64 == torch.long)
    return outs


@snippet
def padding_new_tensors_and_where(torch):
    F = torch.nn.functional
    x = torch.arange(6).view(2, 3)
    c = torch.tensor([0.0, 1.5, 0.0, 2.0])
    outs = [F.pad(x.float(), (1, 2)), F.pad(x.float(), (1, 0, 0, 1), value=-1.0), x.new_zeros(2),
            x.new_ones((1, 2)), x.unsqueeze(1).expand(-1, 4, -1), torch.where(c > 0, 1, 0),
            torch.where(c > 0, 1.0, 0.0), torch.where(c > 0, c, torch.tensor(-1.0))]  # fmt: skip
    for o in outs:
        print(o.dtype, o.shape)
    return outs


@snippet(rtol=1e-4, atol=1e-5)
def custom_autograd_function_tutorial(torch):
    # the PyTorch tutorial's "Defining new autograd Functions": a Legendre polynomial fit
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    x = torch.linspace(-math.pi, math.pi, 200)
    y = torch.sin(x)
    a, b, c, d = (torch.full((), v, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3))
    losses = []
    for _ in range(50):
        y_pred = a + b * LegendrePolynomial3.apply(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= 5e-5 * p.grad
                p.grad = None
    print(f"loss {losses[0]:.2f} -> {losses[-1]:.2f}")
    return [torch.tensor(losses), a, b, c, d]


@snippet
def custom_function_with_setup_context_and_a_constant(torch):
    class ScaledTanh(torch.autograd.Function):
        @staticmethod
        def forward(x, scale):
            return torch.tanh(x) * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.scale = inputs[1]
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad):
            (out,) = ctx.saved_tensors
            return grad * (ctx.scale - out * out / ctx.scale), None  # no gradient for scale

    x = torch.tensor(randn(7, 2, 3), requires_grad=True)
    y = ScaledTanh.apply(x * 2, 3.0)
    (y * torch.tensor(randn(8, 2, 3))).sum().backward()
    return [y, x.grad]


@snippet
def keyword_arguments_of_tensor_methods(torch):
    x = torch.tensor([[7.0, -7.0], [2.5, 3.0]])
    d = x.clone()
    d.div_(2, rounding_mode="floor")
    buf = torch.zeros(2, 2)
    buf.copy_(x, non_blocking=True)
    w = x.new_zeros(2, requires_grad=True)
    (w * 2).sum().backward()
    outs = [torch.tensor([1, 2]).mean(dtype=torch.float64), x.mean(0, dtype=torch.float64), d,
            buf, w.grad, x.new_full((2,), 3.0, requires_grad=True), x.new_tensor([1.0]),
            x.repeat_interleave(2, dim=0, output_size=4), torch.tensor(x.numpy(force=True))]  # fmt: skip
    for o in outs:
        print(o.dtype, o.shape, o.requires_grad)
    return outs


@snippet(rtol=1e-4, atol=1e-5)
def transformer_encoder_language_model_as_in_the_pytorch_tutorial(torch):
    nn = torch.nn

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=64):
            super().__init__()
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(max_len, 1, d_model)
            pe[:, 0, 0::2] = torch.sin(position * div_term)
            pe[:, 0, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe, persistent=False)

        def forward(self, x):
            return x + self.pe[: x.size(0)]

    class TransformerModel(nn.Module):
        def __init__(self, ntoken, d_model, nhead, d_hid, nlayers):
            super().__init__()
            self.pos_encoder = PositionalEncoding(d_model)
            layers = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout=0.0)
            self.transformer_encoder = nn.TransformerEncoder(
                layers, nlayers, enable_nested_tensor=False
            )
            self.embedding = nn.Embedding(ntoken, d_model)
            self.d_model = d_model
            self.linear = nn.Linear(d_model, ntoken)

        def forward(self, src, src_mask):
            src = self.embedding(src) * math.sqrt(self.d_model)
            src = self.pos_encoder(src)
            return self.linear(self.transformer_encoder(src, src_mask))

    model = TransformerModel(ntoken=11, d_model=8, nhead=2, d_hid=16, nlayers=2)
    load_numpy_weights(torch, model, 20, scale=0.3)
    data = torch.tensor(np.random.default_rng(21).integers(0, 11, (7, 3)))  # (length, batch)
    src, targets = data[:-1], data[1:].reshape(-1)
    mask = nn.Transformer.generate_square_subsequent_mask(src.size(0))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.95)
    losses = []
    for _ in range(4):
        output = model(src, mask)
        loss = nn.CrossEntropyLoss()(output.view(-1, 11), targets)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    print(output.shape, scheduler.get_last_lr())
    return [losses, model.linear.weight, model.transformer_encoder.layers[1].norm2.weight]


@snippet(rtol=1e-4, atol=1e-5)
def dataloader_and_a_binary_classifier(torch):
    DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
    nn = torch.nn
    X = torch.tensor(randn(22, 10, 3))
    y = torch.tensor((randn(23, 10, 1) > 0).astype(np.float32))
    loader = DataLoader(TensorDataset(X, y), batch_size=4)
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
    load_numpy_weights(torch, model, 24, scale=0.5)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _epoch in range(2):
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    probs = torch.sigmoid(model(X)).detach()
    print(len(loader), len(losses), xb.shape, nn.BCELoss()(probs, y).dtype)
    return [losses, probs, nn.L1Loss()(probs, y), nn.SmoothL1Loss(beta=0.5)(probs, y)]


@snippet
def multihead_attention_with_a_padding_mask(torch):
    nn = torch.nn
    mha = nn.MultiheadAttention(embed_dim=6, num_heads=2, batch_first=True)
    load_numpy_weights(torch, mha, 25, scale=0.4)
    x = torch.tensor(randn(26, 2, 4, 6))
    pad = torch.tensor([[False, False, False, True], [False, False, True, True]])
    out, weights = mha(x, x, x, key_padding_mask=pad)
    out2, _ = mha(x, x, x, key_padding_mask=pad, need_weights=False)
    print(out.shape, weights.shape)
    return [out, weights, out2]


@snippet
def chained_learning_rate_schedulers(torch):
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=1.0)
    warmup = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    decay = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    lrs = []
    for _ in range(6):
        opt.step()
        warmup.step()
        decay.step()
        lrs.append(opt.param_groups[0]["lr"])
    return lrs


# ------------------------------------------------------------------ running and comparing
def run(fn: Callable[..., Any], module: Any, tmp_path: Any) -> tuple[Any, str]:
    """Call the snippet with ``module`` as ``torch``; return its result and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        needs_dir = "tmp_path" in fn.__code__.co_varnames[: fn.__code__.co_argcount]
        result = fn(module, tmp_path) if needs_dir else fn(module)
    return result, out.getvalue()


def summary(value: Any) -> Any:
    """What gets compared: a tensor becomes (dtype name, shape, values, requires_grad)."""
    if hasattr(value, "requires_grad") and hasattr(value, "detach"):
        array = value.detach().cpu().numpy().copy()
        return (
            "tensor",
            str(value.dtype).split(".")[-1],
            tuple(value.shape),
            array,
            value.requires_grad,
        )
    if isinstance(value, (list, tuple)):  # also torch.Size and (values, indices) pairs
        return [summary(v) for v in value]
    if isinstance(value, dict):
        return {k: summary(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.name, value.shape, value)
    return value


def assert_same(ours: Any, theirs: Any, rtol: float, atol: float, where: str = "result") -> None:
    if isinstance(ours, list) or isinstance(theirs, list):
        assert isinstance(ours, list) and isinstance(theirs, list), f"{where}: {ours} vs {theirs}"
        assert len(ours) == len(theirs), f"{where}: {len(ours)} items vs {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, rtol, atol, f"{where}[{i}]")
    elif isinstance(ours, dict):
        assert isinstance(theirs, dict) and list(ours) == list(theirs), f"{where}: keys differ"
        for k in ours:
            assert_same(ours[k], theirs[k], rtol, atol, f"{where}[{k!r}]")
    elif isinstance(ours, tuple) and ours and ours[0] in ("tensor", "ndarray"):
        assert ours[:3] == theirs[:3], f"{where}: (kind, dtype, shape) {ours[:3]} vs {theirs[:3]}"
        assert ours[-1] is theirs[-1] or ours[0] == "ndarray", f"{where}: requires_grad differs"
        a, b = ours[3], theirs[3]
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=where)
        else:
            np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(ours, float):
        assert type(theirs) is float and math.isclose(ours, theirs, rel_tol=rtol, abs_tol=atol), (
            f"{where}: {ours} vs {theirs}"
        )
    else:
        assert type(ours) is type(theirs) and ours == theirs, f"{where}: {ours!r} vs {theirs!r}"


# snippets that print a norm layer, which PyTorch before 2.13 prints without bias=
PRINTS_NORM_LAYERS = {"layer_norm_functional_and_module", "module_repr_and_dtype_moves"}


@pytest.mark.parametrize("fn", SNIPPETS, ids=[f.__name__ for f in SNIPPETS])
def test_snippet_runs_on_microtorch_and_matches_pytorch(fn, tmp_path) -> None:
    ours, printed = run(fn, microtorch, tmp_path)
    torch = pytest.importorskip("torch")
    theirs, torch_printed = run(fn, torch, tmp_path)
    if not (fn.__name__ in PRINTS_NORM_LAYERS and torch_before((2, 13))):
        assert printed.replace("microtorch.", "torch.") == torch_printed
    assert_same(summary(ours), summary(theirs), *TOLERANCE[fn.__name__])


def test_there_are_enough_snippets() -> None:
    assert len(SNIPPETS) >= 25


# ------------------------------------------------------------------ warnings a learner should see
def test_softmax_without_dim_warns_like_pytorch() -> None:
    x = microtorch.ones(2, 3, 4)
    with pytest.warns(UserWarning, match="softmax: implicit dimension choice.*pass dim="):
        y = microtorch.nn.functional.softmax(x)
    np.testing.assert_allclose(y.numpy(), np.full((2, 3, 4), 0.5))  # over dim 0, as PyTorch


def test_var_without_degrees_of_freedom_warns_like_pytorch() -> None:
    """correction >= the number of elements reduced: the variance divides by 0, giving inf
    (or nan where every element is equal), as in PyTorch, with a warning at the user's line."""

    def user_warnings(compute: Callable[[], Any]) -> tuple:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            result = compute()
        return result, [w for w in record if w.category is UserWarning]

    x = microtorch.tensor([[1.0, 3.0], [2.0, 2.0]])
    v, record = user_warnings(lambda: x.var(dim=1, correction=2))
    assert len(record) == 1 and "var/std: degrees of freedom is <= 0" in str(record[0].message)
    assert record[0].filename == __file__  # the user's line, not one inside microtorch
    assert v.tolist()[0] == float("inf") and np.isnan(v.tolist()[1])
    s, record = user_warnings(lambda: microtorch.std(microtorch.tensor([2.0])))  # 1 element
    assert len(record) == 1 and record[0].filename == __file__ and np.isnan(s.item())


def test_legacy_size_average_and_reduce_flags_warn_and_mean_what_they_mean_in_pytorch() -> None:
    a, b = microtorch.tensor([1.0, 2.0]), microtorch.tensor([0.0, 0.0])
    with pytest.warns(UserWarning, match=r"mse_loss: size_average and reduce are deprecated"):
        assert microtorch.nn.functional.mse_loss(a, b, size_average=False).item() == 5.0
    with pytest.warns(UserWarning, match=r"use reduction='none'"):
        assert microtorch.nn.MSELoss(reduce=False)(a, b).tolist() == [1.0, 4.0]
    with pytest.raises(ValueError, match=r"mse_loss: reduction must be 'mean', 'sum' or 'none'"):
        microtorch.nn.functional.mse_loss(a, b, reduction="avg")  # a typo gave the mean


def test_mse_loss_warns_when_shapes_broadcast() -> None:
    pred, target = microtorch.zeros(3, 1), microtorch.tensor([1.0, 2.0, 3.0])
    with pytest.warns(
        UserWarning, match=r"mse_loss: target of shape \(3,\) differs from input of shape \(3, 1\)"
    ):
        loss = microtorch.nn.MSELoss()(pred, target)
    assert loss.item() == pytest.approx(14 / 3)  # the (3, 3) broadcast PyTorch also computes
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        microtorch.nn.functional.mse_loss(pred, target.unsqueeze(-1))  # same shapes: silent


# ------------------------------------------------------------------ errors a learner hits
F = microtorch.nn.functional
nn = microtorch.nn


def backward_twice() -> None:
    x = microtorch.ones(3, requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    loss.backward()


def modify_a_saved_tensor() -> None:
    x = microtorch.ones(2, 3, requires_grad=True)
    y = x.exp()
    y.mul_(2)  # exp saved its output for backward
    y.sum().backward()


LEARNER_ERRORS = {
    "matmul_shapes": (lambda: microtorch.ones(3, 4) @ microtorch.ones(5, 6), RuntimeError,
                      r"matmul: shapes \(3, 4\) and \(5, 6\) cannot be multiplied \(4 != 5\)"),
    "linear_in_features": (lambda: nn.Linear(4, 3)(microtorch.ones(2, 5)), RuntimeError,
                           r"linear: input of shape \(2, 5\).*weight shape \(3, 4\) \(5 != 4\)"),
    "linear_int_input": (lambda: nn.Linear(4, 3)(microtorch.ones(2, 4, dtype=microtorch.long)),
                         RuntimeError, r"linear: .*same dtype, got microtorch\.int64, microtorch\.float32"),
    "linear_0d_input": (lambda: F.linear(microtorch.tensor(1.0), microtorch.ones(3, 4)),
                        RuntimeError, r"linear: input must have at least 1 dimension.*0-d"),
    "cross_entropy_float_target": (lambda: F.cross_entropy(microtorch.ones(4, 3), microtorch.ones(4)),
                                   RuntimeError, r"cross_entropy: target is microtorch\.float32 of shape \(4,\): class indices must have dtype long"),
    "cross_entropy_batch": (lambda: F.cross_entropy(microtorch.ones(4, 3), microtorch.zeros(5, dtype=microtorch.long)),
                            ValueError, r"cross_entropy: input of shape \(4, 3\) and target of shape \(5,\) have different batch sizes"),
    "cross_entropy_btc": (lambda: F.cross_entropy(microtorch.ones(2, 5, 3), microtorch.zeros(2, 5, dtype=microtorch.long)),
                          RuntimeError, r"\(2, 5, 3\).*expected target shape \(2, 3\).*logits\.view\(-1, C\)"),
    "cross_entropy_class_range": (lambda: F.cross_entropy(microtorch.ones(4, 3), microtorch.tensor([0, 1, 3, 2])),
                                  IndexError, r"cross_entropy: target 3 is out of range for 3 classes"),
    "layer_norm_shape": (lambda: nn.LayerNorm(4)(microtorch.ones(2, 5)), RuntimeError,
                         r"layer_norm: input of shape \(2, 5\) does not end in normalized_shape \[4\]"),
    "embedding_float_indices": (lambda: nn.Embedding(10, 3)(microtorch.tensor([1.0, 2.0])),
                                RuntimeError, r"embedding: indices must be an int64 \(long\) or int32 tensor, got microtorch.float32"),
    "embedding_range": (lambda: nn.Embedding(10, 3)(microtorch.tensor([1, 10])), IndexError,
                        r"embedding: index 10 is out of range for an embedding of 10 rows"),
    "int_requires_grad": (lambda: microtorch.tensor([1, 2], requires_grad=True), RuntimeError,
                          r"floating point dtype can require gradients, got microtorch\.int64.*\.float\(\)"),
    "int_mean": (lambda: microtorch.tensor([1, 2]).mean(), RuntimeError,
                 r"mean\(\).*got microtorch\.int64; use \.float\(\)"),
    "backward_twice": (backward_twice, RuntimeError,
                       r"MulBackward0: trying to backward through the graph a second time.*retain_graph=True"),
    "modified_saved_tensor": (modify_a_saved_tensor, RuntimeError,
                              r"ExpBackward0: .*modified by an inplace operation: the float32 tensor of shape \(2, 3\)"),
    "numpy_of_requires_grad": (lambda: microtorch.ones(3, requires_grad=True).numpy(), RuntimeError,
                               r"numpy\(\) on Tensor that requires grad \(shape \(3,\), microtorch\.float32\).*detach\(\)"),
    "view_after_transpose": (lambda: microtorch.ones(2, 3).t().view(6), RuntimeError,
                             r"view: .*not contiguous.*\.reshape\(\.\.\.\)"),
    "ragged_nested_list": (lambda: microtorch.tensor([[1, 2], [3]]), ValueError,
                           r"tensor: nested lists must be rectangular"),
    "list_of_tensors": (lambda: microtorch.tensor([microtorch.ones(2), microtorch.ones(2)]), ValueError,
                        r"tensor: a list of tensors works only when each has one element.*stack"),
    "unknown_reduction_keyword": (lambda: microtorch.ones(2).sum(0, keepdimz=True), TypeError,
                                  r"sum\(\) got an unexpected keyword argument 'keepdimz'"),
    "format_of_a_vector": (lambda: f"{microtorch.ones(2):.2f}", TypeError,
                           r"unsupported format string passed to Tensor.__format__"),
    "missing_tensor_method": (lambda: microtorch.ones(2).cumsum(0), AttributeError,
                              r"'Tensor' object has no attribute 'cumsum': .*docs/adding_an_op\.md"),
    "missing_function": (lambda: microtorch.stft, AttributeError,
                         r"module 'microtorch' has no attribute 'stft': .*docs/adding_an_op\.md"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(LEARNER_ERRORS))
def test_learner_errors_name_the_op_and_what_is_involved(name: str) -> None:
    bad, error, pattern = LEARNER_ERRORS[name]
    with pytest.raises(error, match=pattern):
        bad()


@pytest.mark.skipif(cuda_available(), reason="this machine has CUDA")
@pytest.mark.parametrize(
    "ask",
    [
        lambda: microtorch.ones(2, device="cuda"),
        lambda: microtorch.ones(2).cuda(),
        lambda: microtorch.ones(2).to("cuda"),
        lambda: nn.Linear(2, 2).to("cuda"),
        lambda: microtorch.tensor(np.ones(2), device="cuda"),
    ],  # fmt: skip
    ids=["factory", "cuda()", "to", "module.to", "tensor"],
)
def test_cuda_without_a_gpu_says_how_to_install(ask) -> None:
    with pytest.raises(RuntimeError, match=re.escape('pip install -e ".[cuda]"')):
        ask()
    assert not microtorch.cuda.is_available()


def test_tensor_from_numpy_follows_the_default_device(device: str) -> None:
    microtorch.set_default_device(device)
    try:  # torch.tensor(array) lands on the default device, like every factory
        assert microtorch.tensor(np.ones(2)).device == device
        with pytest.warns(UserWarning, match="copy construct"):
            assert microtorch.tensor(microtorch.ones(2, device="cpu")).device == device
        assert microtorch.tensor(np.ones(2), device="cpu").device == "cpu"
    finally:
        microtorch.set_default_device(None)
    assert microtorch.tensor(np.ones(2)).device == "cpu"
