"""The GPT: shapes, causal masking, loss at init, learning, KV cache, optimizer groups."""

from __future__ import annotations

import math

import numpy
import pytest

import microtorch as torch
from models.transformer import GPT, GPTConfig, KVCache


def tiny_config(**changes) -> GPTConfig:
    values = dict(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=16, dropout=0.0)
    values.update(changes)
    return GPTConfig(**values)


def test_shapes_and_tied_head(device):
    model = GPT(tiny_config()).to(device)
    idx = torch.randint(0, 11, (3, 8), device=device)
    logits, loss = model(idx, idx)
    assert logits.shape == (3, 8, 11) and loss.shape == ()
    logits, loss = model(idx[:, :5])
    assert logits.shape == (3, 1, 11) and loss is None  # only the last position
    assert model.lm_head.weight is model.wte.weight
    unique = sum(p.numel() for p in model.parameters())
    assert model.num_params() == unique
    assert model.num_params(non_embedding=True) == unique - 8 * 16


def test_bad_inputs_are_explained():
    model = GPT(tiny_config())
    with pytest.raises(ValueError, match="block_size is 8"):
        model(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(TypeError, match="2-D integer tensor"):
        model(torch.zeros(1, 4))
    with pytest.raises(ValueError, match="multiple of n_head"):
        GPTConfig(n_embd=10, n_head=3)


def test_init_follows_gpt2():
    cfg = tiny_config(n_embd=64, n_layer=4, vocab_size=300, block_size=64)
    model = GPT(cfg)
    std = float(numpy.asarray(model.h[0].attn.c_attn.weight.detach()).std())
    assert abs(std - 0.02) < 0.002
    proj = numpy.asarray(model.h[0].mlp.c_proj.weight.detach()).std()
    assert abs(proj - 0.02 / math.sqrt(2 * 4)) < 0.001
    assert float(numpy.abs(numpy.asarray(model.h[0].attn.c_attn.bias.detach())).max()) == 0.0


def test_future_tokens_do_not_change_earlier_logits(device):
    model = GPT(tiny_config()).to(device)
    idx = torch.randint(0, 11, (2, 8), device=device)
    changed = idx.clone()
    changed[:, 5:] = (changed[:, 5:] + 1) % 11  # change positions 5, 6, 7
    a, _ = model(idx, idx)
    b, _ = model(changed, changed)
    a, b = numpy.asarray(a.detach().cpu()), numpy.asarray(b.detach().cpu())
    numpy.testing.assert_array_equal(a[:, :5], b[:, :5])
    assert not numpy.allclose(a[:, 5:], b[:, 5:])


def test_loss_at_init_is_about_log_vocab():
    model = GPT(tiny_config(vocab_size=65, block_size=32, n_embd=32))
    idx = torch.randint(0, 65, (8, 32))
    _, loss = model(idx, torch.randint(0, 65, (8, 32)))
    assert abs(loss.item() - math.log(65)) < 0.1


def test_overfits_one_batch(device):
    torch.manual_seed(0)
    model = GPT(tiny_config()).to(device)
    optimizer = model.configure_optimizers(0.0, 1e-2, (0.9, 0.99), device)
    x = torch.randint(0, 11, (4, 8), device=device)
    y = torch.randint(0, 11, (4, 8), device=device)
    for _ in range(80):
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.1


def test_optimizer_groups_decay_only_matrices():
    model = GPT(tiny_config())
    optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.95), "cpu")
    decay, no_decay = optimizer.param_groups
    assert decay["weight_decay"] == 0.1 and no_decay["weight_decay"] == 0.0
    assert all(p.ndim == 2 for p in decay["params"]) and all(
        p.ndim == 1 for p in no_decay["params"]
    )
    assert len(decay["params"]) + len(no_decay["params"]) == len(list(model.parameters()))
    assert any(p is model.wte.weight for p in decay["params"])


def test_cached_forward_matches_full_forward(device):
    model = GPT(tiny_config()).to(device).eval()
    idx = torch.randint(0, 11, (2, 8), device=device)
    full, _ = model(idx, idx)  # (2, 8, 11)
    cache = KVCache(model.config, 2, device, torch.float32)
    pieces = [model(idx[:, :3], cache=cache)[0]]  # 3 positions at once
    pieces += [model(idx[:, 3:5], cache=cache)[0]]  # 2 more after 3 cached (explicit mask)
    for t in range(5, 8):
        pieces.append(model(idx[:, t : t + 1], cache=cache)[0])  # one at a time
    assert cache.length == 8
    last = [p.detach().cpu().numpy()[:, -1] for p in pieces]
    expected = full.detach().cpu().numpy()
    for got, t in zip(last, (2, 4, 5, 6, 7)):
        numpy.testing.assert_allclose(got, expected[:, t], atol=1e-5)
    with pytest.raises(ValueError, match="block_size"):
        model(idx[:, :1], cache=cache)  # the cache is full


@pytest.mark.parametrize("top_k", [None, 3])
def test_generate_with_and_without_cache_agree(device, top_k):
    model = GPT(tiny_config()).to(device)
    prompt = torch.tensor([[1, 2, 3], [4, 5, 6]], device=device)
    torch.manual_seed(42)
    with_cache = model.generate(prompt, 20, temperature=1.0, top_k=top_k, use_cache=True)
    torch.manual_seed(42)
    without = model.generate(prompt, 20, temperature=1.0, top_k=top_k, use_cache=False)
    assert with_cache.shape == (2, 23)  # 20 new tokens: well past block_size 8
    assert with_cache.tolist() == without.tolist()
    assert with_cache[:, :3].tolist() == prompt.tolist()
    assert model.training  # generate() restores the mode it found


def test_generate_top_k_and_greedy():
    model = GPT(tiny_config())
    prompt = torch.tensor([[1]])
    greedy = model.generate(prompt, 5, temperature=0)
    assert greedy.tolist() == model.generate(prompt, 5, temperature=0, use_cache=False).tolist()
    logits = torch.tensor([[0.0, 5.0, 4.0, -1.0]])
    picks = {GPT._sample(logits, 1.0, 2).item() for _ in range(50)}
    assert picks <= {1, 2}
    with pytest.raises(ValueError, match="temperature"):
        model.generate(prompt, 1, temperature=-1)
    with pytest.raises(ValueError, match="top_k"):
        model.generate(prompt, 1, top_k=0)


def test_dropout_only_in_training_mode():
    model = GPT(tiny_config(dropout=0.5))
    idx = torch.randint(0, 11, (2, 8))
    model.eval()
    a, b = model(idx, idx)[0], model(idx, idx)[0]
    assert torch.equal(a, b)
    model.train()
    assert not torch.equal(model(idx, idx)[0], model(idx, idx)[0])
