"""Exchanging data with NumPy and PyTorch: from_numpy, __array__, DLPack, and state dicts
(a GPT's weights to a PyTorch model and back)."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch import backend, nn
from models.transformer import GPT, GPTConfig


# ---------------------------------------------------------------- NumPy
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_from_numpy_shares_memory_and_keeps_dtype(dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    t = microtorch.from_numpy(a)
    assert t.dtype.name == np.dtype(dtype).name and t.shape == (2, 3)
    assert np.shares_memory(t.numpy(), a)
    if dtype != "bool":
        a[0, 0] = 5
        assert t[0, 0].item() == 5  # a change to one shows in the other
        t.add_(1)
        assert a[1, 2] == 6


def test_from_numpy_errors():
    with pytest.raises(TypeError, match="expected a numpy.ndarray, got list"):
        microtorch.from_numpy([1.0, 2.0])
    with pytest.raises(TypeError):
        microtorch.from_numpy(np.array(["a", "b"]))


def test_array_protocol(device):
    t = microtorch.tensor([[1.5, -2.0], [0.0, 3.25]], device=device)
    if device != "cpu":  # as in PyTorch: the copy to the host is asked for, never implicit
        with pytest.raises(TypeError, match=r"can't convert cuda:0 .* Use Tensor.cpu\(\)"):
            np.asarray(t)
        t = t.cpu()
    a = np.asarray(t)
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    np.testing.assert_array_equal(a, [[1.5, -2.0], [0.0, 3.25]])
    np.testing.assert_array_equal(np.asarray(t, dtype=np.float64), a.astype(np.float64))
    assert np.array(t.long()).dtype == np.int64
    assert np.concatenate([t, t]).shape == (4, 2)  # NumPy functions accept tensors
    w = microtorch.ones(2, requires_grad=True)
    np.testing.assert_array_equal(np.asarray(w.detach()), [1.0, 1.0])
    with pytest.raises(RuntimeError, match=r"requires grad.*Use tensor\.detach\(\)"):
        np.asarray(w)  # as in PyTorch


def test_numpy_method_shares_memory_on_cpu():
    t = microtorch.zeros(3)
    t.numpy()[1] = 7.0
    assert t.tolist() == [0.0, 7.0, 0.0]
    with pytest.raises(RuntimeError, match="detach"):
        microtorch.ones(2, requires_grad=True).numpy()


# ---------------------------------------------------------------- DLPack
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_dlpack_round_trip_with_the_array_library(device, dtype):
    xp = backend.xp_for(backend.as_device(device))
    t = microtorch.tensor(np.arange(6).reshape(2, 3).astype(dtype), device=device)
    try:
        a = xp.from_dlpack(t)  # numpy (or cupy on a GPU) reads the tensor's memory
    except (TypeError, BufferError, ValueError) as error:
        if device == "cuda" and dtype == "bool":  # bool in DLPack needs a recent CuPy
            pytest.skip(f"this CuPy cannot exchange bool arrays through DLPack: {error}")
        raise
    assert a.dtype == np.dtype(dtype) and a.shape == (2, 3)
    back = microtorch.from_dlpack(a)
    assert back.device == t.device and back.dtype is t.dtype
    np.testing.assert_array_equal(back.cpu().numpy(), t.cpu().numpy())
    if dtype != "bool":
        a[0, 1] = 9
        assert t[0, 1].item() == 9 and back[0, 1].item() == 9  # all three share memory


def test_dlpack_of_a_transposed_tensor():
    t = microtorch.arange(6.0).reshape(2, 3).T  # a strided view
    a = np.from_dlpack(t)
    np.testing.assert_array_equal(a, np.arange(6.0).reshape(2, 3).T)


def test_dlpack_capsules_share_memory_as_torch_utils_dlpack():
    """to_dlpack's capsule goes to from_dlpack (here or PyTorch's) and the memory is
    shared; a capsule from torch.utils.dlpack.to_dlpack is read too."""
    from microtorch.utils import dlpack

    t = microtorch.arange(4)
    shared = microtorch.from_dlpack(dlpack.to_dlpack(t))
    shared[0] = -9
    assert t.tolist() == [-9, 1, 2, 3] and shared.device.type == "cpu"
    assert dlpack.from_dlpack is microtorch.from_dlpack and dlpack.DLDeviceType.kDLCUDA == 2
    torch = pytest.importorskip("torch")
    assert {k: int(v) for k, v in dlpack.DLDeviceType.__members__.items()} == {
        k: int(v) for k, v in torch.utils.dlpack.DLDeviceType.__members__.items()
    }
    theirs = torch.from_dlpack(dlpack.to_dlpack(t))
    theirs[1] = -5
    assert t.tolist() == [-9, -5, 2, 3]
    ours = microtorch.from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(3.0)))
    assert ours.dtype is microtorch.float32 and ours.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_dlpack_round_trip_with_torch(dtype):
    torch = pytest.importorskip("torch")
    t = microtorch.tensor(np.arange(12).reshape(3, 4).astype(dtype))
    theirs = torch.from_dlpack(t)  # PyTorch reads microtorch's memory
    assert str(theirs.dtype) == f"torch.{dtype}" and tuple(theirs.shape) == (3, 4)
    ours = microtorch.from_dlpack(theirs)  # and microtorch reads PyTorch's
    assert ours.dtype is t.dtype
    np.testing.assert_array_equal(ours.numpy(), t.numpy())
    if dtype != "bool":
        theirs[2, 3] = 100
        assert t[2, 3].item() == 100 and ours[2, 3].item() == 100


def test_torch_tensor_into_microtorch_by_value():
    torch = pytest.importorskip("torch")
    source = torch.randn(2, 5, dtype=torch.float64)
    copy = microtorch.tensor(source.numpy())  # a copy: later changes do not follow
    source.zero_()
    assert copy.dtype is microtorch.float64 and float(copy.abs().sum()) > 0


# ---------------------------------------------------------------- state dicts
def to_torch_state(state: dict, torch) -> dict:
    """microtorch state dict -> torch tensors (copies, via DLPack)."""
    return {k: torch.from_dlpack(v.detach()).clone() for k, v in state.items()}


def to_microtorch_state(state: dict) -> dict:
    """torch state dict -> microtorch tensors (copies, via DLPack)."""
    return {k: microtorch.from_dlpack(v.detach()).clone() for k, v in state.items()}


def test_mlp_state_dict_round_trip():
    torch = pytest.importorskip("torch")
    ours = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.LayerNorm(8), nn.Linear(8, 3))
    theirs = torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.LayerNorm(8), torch.nn.Linear(8, 3)
    )
    theirs.load_state_dict(to_torch_state(ours.state_dict(), torch))
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    expected = ours(microtorch.tensor(x)).detach().numpy()
    got = theirs(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    with torch.no_grad():  # change every weight on the PyTorch side, then bring them back
        for p in theirs.parameters():
            p.mul_(-0.5).add_(0.1)
    ours.load_state_dict(to_microtorch_state(theirs.state_dict()))
    np.testing.assert_allclose(
        ours(microtorch.tensor(x)).detach().numpy(),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def torch_gpt(config: GPTConfig, torch):
    """The same GPT written with PyTorch, with the same parameter names as models/transformer.py."""
    tnn, F = torch.nn, torch.nn.functional

    class Attention(tnn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = tnn.Linear(config.n_embd, 3 * config.n_embd)
            self.c_proj = tnn.Linear(config.n_embd, config.n_embd)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(x).split(C, dim=2)
            q, k, v = (t.view(B, T, config.n_head, -1).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).reshape(B, T, C))

    class MLP(tnn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = tnn.Linear(config.n_embd, 4 * config.n_embd)
            self.c_proj = tnn.Linear(4 * config.n_embd, config.n_embd)

        def forward(self, x):
            return self.c_proj(F.gelu(self.c_fc(x)))

    class Block(tnn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn = tnn.LayerNorm(config.n_embd), Attention()
            self.ln_2, self.mlp = tnn.LayerNorm(config.n_embd), MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class TorchGPT(tnn.Module):
        def __init__(self):
            super().__init__()
            self.wte = tnn.Embedding(config.vocab_size, config.n_embd)
            self.wpe = tnn.Embedding(config.block_size, config.n_embd)
            self.h = tnn.ModuleList([Block() for _ in range(config.n_layer)])
            self.ln_f = tnn.LayerNorm(config.n_embd)
            self.lm_head = tnn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.lm_head.weight = self.wte.weight

        def forward(self, idx, targets):
            pos = torch.arange(idx.shape[1])
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            return logits, loss

    return TorchGPT()


def test_gpt_weights_to_pytorch_and_back():
    torch = pytest.importorskip("torch")
    config = GPTConfig(vocab_size=17, block_size=12, n_layer=2, n_head=2, n_embd=16)
    ours = GPT(config)
    theirs = torch_gpt(config, torch)
    state = ours.state_dict()
    assert set(state) == set(theirs.state_dict())  # the same names, tied head included
    result = theirs.load_state_dict(to_torch_state(state, torch))
    assert not result.missing_keys and not result.unexpected_keys
    assert theirs.lm_head.weight is theirs.wte.weight  # loading kept PyTorch's tie

    idx = np.random.default_rng(1).integers(0, 17, (3, 12))
    targets = np.random.default_rng(2).integers(0, 17, (3, 12))
    our_logits, our_loss = ours(microtorch.tensor(idx), microtorch.tensor(targets))
    their_logits, their_loss = theirs(torch.tensor(idx), torch.tensor(targets))
    np.testing.assert_allclose(
        our_logits.detach().numpy(), their_logits.detach().numpy(), rtol=1e-4, atol=1e-5
    )
    assert abs(our_loss.item() - their_loss.item()) < 1e-5
    our_loss.backward()
    their_loss.backward()
    for name, p in theirs.named_parameters():  # the gradients agree too
        mine = dict(ours.named_parameters())[name].grad.numpy()
        np.testing.assert_allclose(mine, p.grad.numpy(), rtol=1e-3, atol=1e-5, err_msg=name)

    # one SGD step on the PyTorch side changes every weight; bring them back to microtorch
    with torch.no_grad():
        for p in theirs.parameters():
            p -= 0.5 * p.grad
    ours.load_state_dict(to_microtorch_state(theirs.state_dict()))
    assert ours.lm_head.weight is ours.wte.weight  # still tied after loading
    for name, value in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[name].numpy(), value.numpy())
    with microtorch.no_grad():
        our_logits, our_loss = ours(microtorch.tensor(idx), microtorch.tensor(targets))
    with torch.no_grad():
        their_logits, their_loss = theirs(torch.tensor(idx), torch.tensor(targets))
    np.testing.assert_allclose(our_logits.numpy(), their_logits.numpy(), rtol=1e-4, atol=1e-5)
    assert abs(our_loss.item() - their_loss.item()) < 1e-5
