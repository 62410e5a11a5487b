"""nn.Bilinear / F.bilinear, nn.EmbeddingBag / F.embedding_bag and nn.ChannelShuffle /
F.channel_shuffle: PyTorch's weights give PyTorch's outputs and gradients, the seeded
default init, reprs, errors and devices. (Forward/backward of the functions on random inputs
are also in the op table, tests/test_ops.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as torch
import microtorch.nn.functional as F
from microtorch import nn


def _load_from_torch(ours: nn.Module, theirs) -> None:
    """Give ``ours`` the state of the PyTorch module ``theirs`` (through load_state_dict)."""
    state = {k: torch.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    assert repr(ours.load_state_dict(state)) == "<All keys matched successfully>"


def _grads(module) -> dict:
    return {k: p.grad.cpu().numpy() for k, p in module.named_parameters() if p.grad is not None}


# ----------------------------------------------------------------------------- Bilinear
def test_bilinear_loads_pytorch_weights_and_matches_outputs_and_gradients() -> None:
    pt = pytest.importorskip("torch")
    for bias in (True, False):
        theirs = pt.nn.Bilinear(3, 2, 4, bias=bias)
        ours = nn.Bilinear(3, 2, 4, bias=bias)
        _load_from_torch(ours, theirs)
        assert repr(ours) == repr(theirs)
        a, b = np.random.randn(5, 7, 3).astype("f"), np.random.randn(5, 7, 2).astype("f")
        xa, xb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        ta, tb = pt.tensor(a, requires_grad=True), pt.tensor(b, requires_grad=True)
        y, ty = ours(xa, xb), theirs(ta, tb)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
        (y * y).sum().backward()
        (ty * ty).sum().backward()
        np.testing.assert_allclose(xa.grad.numpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(xb.grad.numpy(), tb.grad.numpy(), rtol=1e-4, atol=1e-5)
        their_grads = {k: p.grad.numpy() for k, p in theirs.named_parameters()}
        for k, g in _grads(ours).items():
            np.testing.assert_allclose(g, their_grads[k], rtol=1e-4, atol=1e-5)


def test_bilinear_default_init_is_seeded_uniform_in_one_over_sqrt_in1() -> None:
    torch.manual_seed(5)
    layer = nn.Bilinear(16, 3, 200)
    torch.manual_seed(5)
    again = nn.Bilinear(16, 3, 200)
    np.testing.assert_array_equal(layer.weight.detach().numpy(), again.weight.detach().numpy())
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert w.shape == (200, 16, 3) and b.shape == (200,) and w.dtype == np.float32
    bound = 1 / 4  # 1 / sqrt(in1_features = 16), not sqrt(in1 * in2)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.95 * bound  # spread over the whole interval
    assert abs(w.mean()) < 0.01 and abs(w.std() - bound / np.sqrt(3)) < 0.005


def test_bilinear_errors_as_pytorch() -> None:
    w = torch.randn(4, 2, 3)
    with pytest.raises(RuntimeError, match="batch dimensions do not match"):
        F.bilinear(torch.randn(5, 2), torch.randn(6, 3), w)
    with pytest.raises(RuntimeError, match="batch dimensions do not match"):
        F.bilinear(torch.randn(1, 2), torch.randn(6, 3), w)  # no broadcasting
    with pytest.raises(RuntimeError, match="input2 size does not match weight size"):
        F.bilinear(torch.randn(5, 2), torch.randn(5, 4), w)
    with pytest.raises(RuntimeError, match="bias size does not match"):
        F.bilinear(torch.randn(5, 2), torch.randn(5, 3), w, torch.randn(3))
    with pytest.raises(RuntimeError, match="same dtype"):
        F.bilinear(torch.randn(5, 2).double(), torch.randn(5, 3), w)
    with pytest.raises(ValueError, match="in1_features must be > 0"):
        nn.Bilinear(0, 3, 4)


def test_bilinear_integer_and_empty_inputs_as_pytorch() -> None:
    pt = pytest.importorskip("torch")
    a, b, w = np.arange(6).reshape(3, 2), np.arange(9).reshape(3, 3), np.arange(24).reshape(4, 2, 3)
    ours = F.bilinear(torch.tensor(a), torch.tensor(b), torch.tensor(w))
    theirs = pt.nn.functional.bilinear(pt.tensor(a), pt.tensor(b), pt.tensor(w))
    assert ours.dtype is torch.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    empty = F.bilinear(torch.randn(0, 2), torch.randn(0, 3), torch.randn(4, 2, 3))
    assert tuple(empty.shape) == (0, 4)


def test_bilinear_on_device_matches_cpu(device: str) -> None:
    torch.manual_seed(2)
    cpu_layer = nn.Bilinear(3, 2, 4)
    torch.manual_seed(2)
    dev_layer = nn.Bilinear(3, 2, 4, device=device)
    a, b = torch.randn(5, 3), torch.randn(5, 2)
    y_cpu, y_dev = cpu_layer(a, b), dev_layer(a.to(device), b.to(device))
    assert y_dev.device.type == device
    np.testing.assert_allclose(y_dev.detach().cpu().numpy(), y_cpu.detach().numpy(), rtol=1e-5)
    y_cpu.sum().backward()
    y_dev.sum().backward()
    for k, g in _grads(cpu_layer).items():
        np.testing.assert_allclose(_grads(dev_layer)[k], g, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- EmbeddingBag
BAG_CASES = [  # (input, offsets, keywords)
    ([1, 2, 4, 5, 4, 3], [0, 2, 2], {}),
    ([1, 2, 4, 5, 4, 3], [0, 2, 2, 6], {"mode": "max"}),
    ([1, 2, 4, 5, 4, 3], [0, 3], {"mode": "sum", "padding_idx": 4}),
    ([1, 2, 4, 5, 4, 3], [0, 1, 6], {"include_last_offset": True, "padding_idx": -1}),
    ([[1, 2], [1, 1]], None, {"mode": "max", "padding_idx": 1}),  # a bag of only padding: 0
    ([[1, 2], [1, 1]], None, {"mode": "mean", "padding_idx": 1}),
    (
        [[1, 2, 0], [5, 3, 3]],
        None,
        {"mode": "sum", "per_sample_weights": [[0.5, 2, 1], [3, -1, 2]]},
    ),
    ([], [0, 0], {"mode": "max"}),
]


@pytest.mark.parametrize("case", range(len(BAG_CASES)))
def test_embedding_bag_matches_pytorch_values_and_gradients(case: int, device: str) -> None:
    pt = pytest.importorskip("torch")
    idx, offsets, kw = BAG_CASES[case]
    table = np.random.default_rng(case).standard_normal((6, 3))
    results = []
    for lib, dev in ((torch, device), (pt, "cpu")):
        weight = lib.tensor(table, requires_grad=True, device=dev)
        keywords = dict(kw)
        psw = None
        if "per_sample_weights" in kw:
            psw = lib.tensor(kw["per_sample_weights"], dtype=lib.float64, device=dev)
            keywords["per_sample_weights"] = psw.requires_grad_()
        i = lib.tensor(idx, dtype=lib.int64, device=dev)
        o = None if offsets is None else lib.tensor(offsets, device=dev)
        out = lib.nn.functional.embedding_bag(i, weight, o, **keywords)
        scale = lib.arange(out.numel(), dtype=out.dtype, device=dev).reshape(out.shape)
        (out * scale).sum().backward()
        grads = [weight.grad] + ([] if psw is None else [psw.grad])
        results.append([out.detach().cpu().numpy()] + [g.cpu().numpy() for g in grads])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_embedding_bag_module_loads_pytorch_weights_repr_and_from_pretrained() -> None:
    pt = pytest.importorskip("torch")
    for kw in ({}, {"mode": "max", "padding_idx": -1}, {"mode": "sum", "norm_type": 3.0}):
        theirs, ours = pt.nn.EmbeddingBag(7, 3, **kw), nn.EmbeddingBag(7, 3, **kw)
        assert repr(ours) == repr(theirs)
        _load_from_torch(ours, theirs)
        idx = [[0, 6, 2], [3, 3, 6]]
        np.testing.assert_allclose(
            ours(torch.tensor(idx)).detach().numpy(),
            theirs(pt.tensor(idx)).detach().numpy(),
            rtol=1e-6,
        )
    table = np.random.randn(4, 2).astype("f")
    ours = nn.EmbeddingBag.from_pretrained(torch.tensor(table), mode="sum", padding_idx=0)
    theirs = pt.nn.EmbeddingBag.from_pretrained(pt.tensor(table), mode="sum", padding_idx=0)
    assert repr(ours) == repr(theirs)
    assert not ours.weight.requires_grad
    assert nn.EmbeddingBag.from_pretrained(torch.tensor(table), freeze=False).weight.requires_grad
    bags = ours(torch.tensor([0, 1, 3, 0]), torch.tensor([0, 2]))
    their_bags = theirs(pt.tensor([0, 1, 3, 0]), pt.tensor([0, 2]))
    np.testing.assert_allclose(bags.numpy(), their_bags.numpy(), rtol=1e-6)


def test_embedding_bag_default_init_is_seeded_normal_with_a_zero_padding_row() -> None:
    torch.manual_seed(4)
    bag = nn.EmbeddingBag(400, 50, padding_idx=3)
    w = bag.weight.detach().numpy()
    assert w.dtype == np.float32 and bag.weight.requires_grad
    np.testing.assert_array_equal(w[3], 0.0)
    rest = np.delete(w, 3, axis=0)
    assert abs(rest.mean()) < 0.03 and abs(rest.std() - 1) < 0.02  # (4 standard errors)
    torch.manual_seed(4)
    np.testing.assert_array_equal(
        nn.EmbeddingBag(400, 50, padding_idx=3).weight.detach().numpy(), w
    )


def test_embedding_bag_errors() -> None:
    w = torch.randn(6, 3)
    with pytest.raises(RuntimeError, match=r"offsets\[0\] has to be 0"):
        F.embedding_bag(torch.tensor([1, 2, 4]), w, torch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="non-decreasing"):
        F.embedding_bag(torch.tensor([1, 2, 4]), w, torch.tensor([0, 2, 1]))
    with pytest.raises(RuntimeError, match=r"offsets\[-1\] can not be greater"):
        F.embedding_bag(torch.tensor([1, 2, 4]), w, torch.tensor([0, 4]))
    with pytest.raises(RuntimeError, match="include_last_offset"):
        F.embedding_bag(torch.tensor([1, 2, 4]), w, torch.tensor([0, 2]), include_last_offset=True)
    with pytest.raises(ValueError, match="offsets has to be a 1-D tensor"):
        F.embedding_bag(torch.tensor([1, 2, 4]), w)
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(torch.tensor([[1, 2]]), w, torch.tensor([0]))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        F.embedding_bag(torch.tensor([[[1, 2]]]), w)
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(torch.tensor([[1, 2]]), w, mode="min")
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported"):
        F.embedding_bag(torch.tensor([[1, 2]]), w, mode="max", per_sample_weights=torch.ones(1, 2))
    with pytest.raises(ValueError, match="same shape as the input"):
        F.embedding_bag(torch.tensor([[1, 2]]), w, mode="sum", per_sample_weights=torch.ones(2))
    with pytest.raises(RuntimeError, match="weight's dtype"):
        F.embedding_bag(
            torch.tensor([[1, 2]]), w, mode="sum", per_sample_weights=torch.ones(1, 2).double()
        )
    with pytest.raises(IndexError, match="out of range"):
        F.embedding_bag(torch.tensor([[1, 6]]), w)
    with pytest.raises(RuntimeError, match="int64 .long. or int32"):
        F.embedding_bag(torch.tensor([[1.0, 2.0]]), w)
    with pytest.raises(RuntimeError, match="floating point"):
        F.embedding_bag(torch.tensor([[1, 2]]), w.long())
    with pytest.raises(RuntimeError, match="padding_idx must be within"):
        F.embedding_bag(torch.tensor([[1, 2]]), w, padding_idx=6)
    with pytest.raises(ValueError, match="scale_grad_by_freq"):
        F.embedding_bag(torch.tensor([[1, 2]]), w, scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="sparse"):
        nn.EmbeddingBag(6, 3, sparse=True)
    for dtype in (torch.int16, torch.uint8, torch.int8):  # PyTorch: "Long, Int" only
        with pytest.raises(RuntimeError, match="int64 .long. or int32"):
            F.embedding_bag(torch.tensor([[1, 2]], dtype=dtype), w)
    with pytest.raises(ValueError, match="padding_idx"):
        nn.EmbeddingBag(6, 3, padding_idx=6)


def test_embedding_bag_max_norm_matches_pytorch() -> None:
    """max_norm renorms each row a bag uses (padding rows included, as PyTorch does) in the
    weight itself before the bags are reduced; outputs, weights and gradients match."""
    pt = pytest.importorskip("torch")
    table = np.random.default_rng(1).standard_normal((6, 3)) * 2
    ids, offsets = np.array([0, 2, 2, 5, 1, 3]), np.array([0, 2, 2])
    for mode, norm_type in (("mean", 2.0), ("sum", 1.0), ("max", 3.0)):
        results = []
        for lib in (torch, pt):
            bag = lib.nn.EmbeddingBag(6, 3, max_norm=1.5, norm_type=norm_type, mode=mode,
                                      padding_idx=1).double()  # fmt: skip
            with lib.no_grad():
                bag.weight.copy_(lib.tensor(table))
            out = bag(lib.tensor(ids), lib.tensor(offsets))
            (out * lib.tensor(np.arange(9.0).reshape(3, 3))).sum().backward()
            w = lib.tensor(table.copy())
            plain = lib.nn.functional.embedding_bag(lib.tensor(ids).reshape(2, 3), w, max_norm=1.0)
            results.append([t.detach().numpy() for t in (out, bag.weight, bag.weight.grad, w)])
            results[-1].append(plain.detach().numpy())
            results[-1].append(repr(bag))
        for ours, theirs in zip(*results):
            if isinstance(ours, str):
                assert ours == theirs
            else:
                np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
        assert not np.allclose(results[0][1], table)  # some rows were renormed


def test_embedding_bag_int32_indices_and_empty_bags() -> None:
    w = torch.randn(6, 3)
    out = F.embedding_bag(
        torch.tensor([1, 2, 4], dtype=torch.int32), w, torch.tensor([0, 0, 3], dtype=torch.int32)
    )
    np.testing.assert_array_equal(out.numpy()[[0, 2]], 0.0)  # bags 0 and 2 are empty
    np.testing.assert_allclose(out.numpy()[1], w.numpy()[[1, 2, 4]].mean(0), rtol=1e-6)
    # 2-D input with bags of length 0 (PyTorch fails to build offsets here): zeros
    assert np.array_equal(
        F.embedding_bag(torch.zeros(3, 0, dtype=torch.int64), w).numpy(), 0 * np.ones((3, 3))
    )


# ----------------------------------------------------------------------------- ChannelShuffle
def test_channel_shuffle_matches_pytorch_and_its_errors() -> None:
    pt = pytest.importorskip("torch")
    x = np.arange(2 * 6 * 2).reshape(2, 6, 2)
    for groups in (1, 2, 3, 6):
        np.testing.assert_array_equal(
            nn.ChannelShuffle(groups)(torch.tensor(x)).numpy(),
            pt.nn.ChannelShuffle(groups)(pt.tensor(x)).numpy(),
        )
    assert repr(nn.ChannelShuffle(3)) == repr(pt.nn.ChannelShuffle(3))
    with pytest.raises(RuntimeError, match="divisible by groups"):
        F.channel_shuffle(torch.randn(2, 6, 3), 4)
    with pytest.raises(RuntimeError, match="must be positive"):
        F.channel_shuffle(torch.randn(2, 6, 3), 0)
    with pytest.raises(RuntimeError, match="> 2 dims"):
        F.channel_shuffle(torch.randn(2, 6), 2)
    with pytest.raises(TypeError, match="groups must be int"):
        F.channel_shuffle(torch.randn(2, 6, 3), 2.0)


def test_channel_shuffle_on_device(device: str) -> None:
    x = torch.randn(2, 6, 3, device=device, requires_grad=True)
    y = F.channel_shuffle(x, 2)
    assert y.device.type == device
    np.testing.assert_array_equal(y.detach().cpu().numpy()[:, 1], x.detach().cpu().numpy()[:, 3])
    (y * torch.arange(6.0, device=device).reshape(1, 6, 1)).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy()[0, :, 0], [0, 2, 4, 1, 3, 5])


def test_embedding_from_pretrained_takes_pytorchs_arguments() -> None:
    table = torch.randn(4, 2)
    emb = nn.Embedding.from_pretrained(table, freeze=False, padding_idx=1, norm_type=2.0)
    assert emb.weight.requires_grad and emb.padding_idx == 1
    capped = nn.Embedding.from_pretrained(table * 10, max_norm=1.0)  # rows scaled when used
    assert capped(torch.tensor([0])).norm().item() == pytest.approx(1.0, abs=1e-5)
    assert nn.Embedding.from_pretrained(table, scale_grad_by_freq=True).scale_grad_by_freq
