"""nn.MultiheadAttention: a NumPy reference, PyTorch's parameter names and mask
conventions, shapes for every layout, errors, and, where PyTorch is installed, outputs,
weights and gradients against torch.nn.MultiheadAttention given the same parameters."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import microtorch
from microtorch import nn

from ..torch_reference import needs_torch


def _np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _np_mha(m, q, k, v, blocked=None):
    """Self-contained reference for (L, N, E) inputs and a bool (L, S) mask (True: blocked)."""
    E, H = m.embed_dim, m.num_heads
    D = E // H
    w, b = m.in_proj_weight.detach().cpu().numpy(), m.in_proj_bias.detach().cpu().numpy()
    qp, kp, vp = (
        x @ w[i * E : (i + 1) * E].T + b[i * E : (i + 1) * E] for i, x in enumerate((q, k, v))
    )
    L, N, _ = q.shape
    S = k.shape[0]
    split = lambda t, n: t.reshape(n, N, H, D).transpose(1, 2, 0, 3)  # noqa: E731
    scores = split(qp, L) @ split(kp, S).transpose(0, 1, 3, 2) / np.sqrt(D)
    if blocked is not None:
        scores = np.where(blocked, -np.inf, scores)
    weights = _np_softmax(scores)  # (N, H, L, S)
    out = (weights @ split(vp, S)).transpose(2, 0, 1, 3).reshape(L, N, E)
    ow, ob = m.out_proj.weight.detach().cpu().numpy(), m.out_proj.bias.detach().cpu().numpy()
    return out @ ow.T + ob, weights.mean(axis=1)


def test_matches_a_numpy_reference_with_a_causal_mask(device: str) -> None:
    microtorch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dtype=microtorch.float64).to(device)
    rng = np.random.default_rng(0)
    q, kv = rng.standard_normal((4, 3, 8)), rng.standard_normal((5, 3, 8))
    blocked = np.triu(np.ones((4, 5), dtype=bool), 1)
    t = lambda a: microtorch.tensor(a, device=device)  # noqa: E731
    out, weights = m(t(q), t(kv), t(kv), attn_mask=t(blocked))
    ref_out, ref_weights = _np_mha(m, q, kv, kv, blocked)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights.detach().cpu().numpy(), ref_weights, rtol=1e-10, atol=1e-12)
    assert (weights.detach().cpu().numpy()[:, 0, 1:] == 0).all()  # the first query sees one key
    fused, none = m(t(q), t(kv), t(kv), attn_mask=t(blocked), need_weights=False)
    assert none is None
    np.testing.assert_allclose(fused.detach().cpu().numpy(), ref_out, rtol=1e-9, atol=1e-12)


def test_parameters_and_shapes_as_in_pytorch() -> None:
    m = nn.MultiheadAttention(6, 3, batch_first=True)
    assert sorted(m.state_dict()) == [
        "in_proj_bias",
        "in_proj_weight",
        "out_proj.bias",
        "out_proj.weight",
    ]
    assert m.in_proj_weight.shape == (18, 6) and (m.in_proj_bias.detach().numpy() == 0).all()
    x = microtorch.randn(2, 4, 6)
    out, w = m(x, x, x)
    assert out.shape == (2, 4, 6) and w.shape == (2, 4, 4)
    _, per_head = m(x, x, x, average_attn_weights=False)
    assert per_head.shape == (2, 3, 4, 4)
    single, w1 = m(x[0], x[0], x[0])  # unbatched (L, E)
    assert single.shape == (4, 6) and w1.shape == (4, 4)
    other = nn.MultiheadAttention(
        4, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True, bias=False
    )
    names = sorted(other.state_dict())
    assert names == [
        "bias_k",
        "bias_v",
        "k_proj_weight",
        "out_proj.weight",
        "q_proj_weight",
        "v_proj_weight",
    ]
    out, w = other(microtorch.randn(3, 2, 4), microtorch.randn(5, 2, 3), microtorch.randn(5, 2, 5))
    assert out.shape == (3, 2, 4) and w.shape == (2, 3, 7)  # 5 keys + a learned one + a zero one


@needs_torch((2, 13), "LayerNorm's repr with bias=")
def test_out_proj_prints_under_pytorchs_class_name() -> None:
    """out_proj is a NonDynamicallyQuantizableLinear (a plain Linear), so the attention
    modules print as PyTorch's; before, repr said Linear there."""
    pt = pytest.importorskip("torch")
    m = nn.MultiheadAttention(4, 2, bias=False)
    assert isinstance(m.out_proj, nn.Linear)
    assert type(m.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert repr(m) == repr(pt.nn.MultiheadAttention(4, 2, bias=False))
    layer = (4, 2, 8, 0.0)
    assert repr(nn.TransformerEncoderLayer(*layer)) == repr(pt.nn.TransformerEncoderLayer(*layer))


def test_key_padding_mask_hides_keys_and_errors() -> None:
    m = nn.MultiheadAttention(4, 2, batch_first=True)
    x = microtorch.randn(2, 3, 4)
    pad = microtorch.tensor([[False, False, True], [False, True, True]])
    _, w = m(x, x, x, key_padding_mask=pad)
    assert (w.detach().numpy()[0, :, 2] == 0).all() and (w.detach().numpy()[1, :, 1:] == 0).all()
    with pytest.raises(
        ValueError, match=r"embed_dim \(5\) must be a positive multiple of num_heads \(2\)"
    ):
        nn.MultiheadAttention(5, 2)
    with pytest.raises(RuntimeError, match="is_causal is a hint that attn_mask is causal"):
        m(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match=r"key_padding_mask should have shape \(2, 3\)"):
        m(x, x, x, key_padding_mask=pad[:, :2])
    with pytest.raises(RuntimeError, match=r"need one batch size, key and value one length"):
        m(x, microtorch.randn(1, 3, 4), microtorch.randn(1, 3, 4))


@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_mask_dtypes_integer_refused_mismatched_warned_as_in_pytorch(lib_name: str) -> None:
    """An integer mask is an AssertionError; a bool key_padding_mask with a float attn_mask
    (or a float one with a bool attn_mask) works but warns PyTorch's deprecation."""
    lib = microtorch if lib_name == "microtorch" else pytest.importorskip("torch")
    m = lib.nn.MultiheadAttention(4, 2)
    x = lib.ones(3, 2, 4)
    bool_pad, float_mask = lib.zeros(2, 3, dtype=lib.bool), lib.zeros(3, 3)
    for kwargs in ({"key_padding_mask": lib.zeros(2, 3, dtype=lib.long)},
                   {"attn_mask": lib.zeros(3, 3, dtype=lib.int32)}):  # fmt: skip
        with pytest.raises(AssertionError, match="only bool and floating types of"):
            m(x, x, x, **kwargs)
    for pad, mask in ((bool_pad, float_mask), (float_mask[:2], bool_pad[0].expand(3, 3))):
        with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
            m(x, x, x, key_padding_mask=pad, attn_mask=mask)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m(x, x, x, key_padding_mask=bool_pad, attn_mask=bool_pad[0].expand(3, 3))


def test_query_key_value_of_the_wrong_number_of_dims_say_so() -> None:
    """A 1-D or 4-D query, or a batched query with unbatched key and value (PyTorch
    refuses all three): one message with the shapes, not a failed tuple unpacking."""
    m = nn.MultiheadAttention(4, 2)
    shapes = [((4,), (4,)), ((2, 3, 2, 4), (2, 3, 2, 4)), ((3, 2, 4), (5, 4)), ((3, 4), (5, 2, 4))]
    for q_shape, kv_shape in shapes:
        q, kv = microtorch.randn(*q_shape), microtorch.randn(*kv_shape)
        with pytest.raises(RuntimeError, match="must all be 3-D .batched. or all 2-D"):
            m(q, kv, kv)


@pytest.mark.parametrize("batch_first", [False, True])
def test_matches_pytorch(batch_first: bool) -> None:
    pt = pytest.importorskip("torch")
    theirs = pt.nn.MultiheadAttention(6, 2, dropout=0.0, batch_first=batch_first, dtype=pt.float64)
    ours = nn.MultiheadAttention(6, 2, batch_first=batch_first, dtype=microtorch.float64)
    ours.load_state_dict(
        {k: microtorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    )
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((3, 2, 6)), rng.standard_normal((4, 2, 6))  # (length, batch, E)
    if batch_first:
        q, k = q.transpose(1, 0, 2), k.transpose(1, 0, 2)
    attn = rng.standard_normal((3, 4))  # a float mask: added to the scores
    pad = np.array([[0.0, -np.inf, 0.0, 0.0], [0.0, 0.0, 0.0, -np.inf]])  # float, as attn
    for need_weights in (True, False):
        results = []
        for lib, m in ((microtorch, ours), (pt, theirs)):
            tq, tk = (lib.tensor(a, requires_grad=True) for a in (q, k))
            out, w = m(tq, tk, tk, attn_mask=lib.tensor(attn), key_padding_mask=lib.tensor(pad),
                       need_weights=need_weights)  # fmt: skip
            out.sum().backward()
            grads = [tq.grad.numpy(), tk.grad.numpy(), m.in_proj_weight.grad.numpy()]
            m.zero_grad()
            results.append((out.detach().numpy(), None if w is None else w.detach().numpy(), grads))
        (o1, w1, g1), (o2, w2, g2) = results
        np.testing.assert_allclose(o1, o2, rtol=1e-9, atol=1e-12)
        if need_weights:
            np.testing.assert_allclose(w1, w2, rtol=1e-9, atol=1e-12)
        for a, b in zip(g1, g2):
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"use_separate_proj_weight": True, "need_weights": False},
        {"bias_kv": True, "add_zero_attn": True, "average_attn_weights": False},
        {"masks": True, "static_kv": True},
        {"masks": True, "unbatched": True},
    ],
)
def test_functional_multi_head_attention_forward_matches_pytorch(options: dict) -> None:
    """F.multi_head_attention_forward (what MultiheadAttention runs) with every optional
    input, against torch's, forward and backward, on the same arrays."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(options))
    L, S, N, E, H, kdim = 3, 4, 2, 6, 2, 5
    separate = options.get("use_separate_proj_weight", False)
    arrays = {
        "query": rng.standard_normal((L, N, E)),
        "key": rng.standard_normal((S, N, kdim if separate else E)),
        "value": rng.standard_normal((S, N, kdim if separate else E)),
        "in_proj_bias": rng.standard_normal(3 * E),
        "out_proj_weight": rng.standard_normal((E, E)),
        "out_proj_bias": rng.standard_normal(E),
    }
    if separate:
        arrays |= {"q_proj_weight": rng.standard_normal((E, E)),
                   "k_proj_weight": rng.standard_normal((E, kdim)),
                   "v_proj_weight": rng.standard_normal((E, kdim))}  # fmt: skip
    else:
        arrays["in_proj_weight"] = rng.standard_normal((3 * E, E))
    if options.get("bias_kv"):
        arrays |= {"bias_k": rng.standard_normal((1, 1, E)),
                   "bias_v": rng.standard_normal((1, 1, E))}  # fmt: skip
    if options.get("static_kv"):
        arrays |= {"static_k": rng.standard_normal((N * H, S, E // H)),
                   "static_v": rng.standard_normal((N * H, S, E // H))}  # fmt: skip
    fixed = {}
    if options.get("masks"):
        fixed["attn_mask"] = np.triu(np.ones((L, S), dtype=bool), 2)
        fixed["key_padding_mask"] = np.array([[False] * (S - 1) + [True], [False] * S])
    if options.get("unbatched"):
        for name in ("query", "key", "value"):
            arrays[name] = arrays[name][:, 0]
        fixed["key_padding_mask"] = fixed["key_padding_mask"][0]
    flags = {k: v for k, v in options.items() if k in ("use_separate_proj_weight",
             "need_weights", "add_zero_attn", "average_attn_weights")}  # fmt: skip

    def run(lib: object, F: object) -> tuple:
        leaves = {k: lib.tensor(v, requires_grad=True) for k, v in arrays.items()}
        given = dict(leaves)
        masks = {k: lib.tensor(v) for k, v in fixed.items()}
        out, weights = F.multi_head_attention_forward(
            given.pop("query"), given.pop("key"), given.pop("value"), E, H,
            given.get("in_proj_weight"), given.get("in_proj_bias"), given.get("bias_k"),
            given.get("bias_v"), flags.get("add_zero_attn", False), 0.0,
            given.get("out_proj_weight"), given.get("out_proj_bias"),
            **{k: given.get(k) for k in ("q_proj_weight", "k_proj_weight", "v_proj_weight",
                                         "static_k", "static_v")},
            **masks, **{k: v for k, v in flags.items() if k != "add_zero_attn"},
        )  # fmt: skip
        total = out.sum() if weights is None else out.sum() + (weights * weights).sum()
        total.backward()
        return [out, weights] + [leaves[k].grad for k in sorted(leaves)]

    theirs = run(torch, torch.nn.functional)
    ours = run(microtorch, microtorch.nn.functional)
    assert len(ours) == len(arrays) + 2
    for got, expected in zip(ours, theirs):
        assert (got is None) == (expected is None)
        if got is not None:
            np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(),
                                       rtol=1e-10, atol=1e-12)  # fmt: skip
