"""The "done when" test for nn/optim: a small GPT written in ordinary PyTorch style runs
unchanged on microtorch, and matches PyTorch on the same weights.

``build_gpt(torch)`` holds the model source. It only uses the module it is given, so the
very same code builds a microtorch model (``build_gpt(microtorch)``) and a PyTorch model
(``build_gpt(torch)``). The microtorch run always happens; the comparison with PyTorch
(loss, every gradient, every parameter after a few AdamW steps) skips without torch."""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

import numpy as np
import pytest

import microtorch


@dataclass
class Config:
    vocab_size: int = 37
    block_size: int = 16
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 32
    dropout: float = 0.0
    bias: bool = True


def build_gpt(torch):  # noqa: ANN001, ANN201  (torch is microtorch or PyTorch)
    nn = torch.nn
    F = torch.nn.functional

    class SelfAttention(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            assert cfg.n_embd % cfg.n_head == 0
            self.qkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd, bias=cfg.bias)  # q, k, v at once
            self.proj = nn.Linear(cfg.n_embd, cfg.n_embd, bias=cfg.bias)
            self.drop = nn.Dropout(cfg.dropout)
            self.n_head, self.n_embd, self.dropout = cfg.n_head, cfg.n_embd, cfg.dropout

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.qkv(x).split(self.n_embd, dim=2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(
                q,
                k,
                v,
                attn_mask=None,
                dropout_p=self.dropout if self.training else 0.0,
                is_causal=True,
            )
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.drop(self.proj(y))

    class FeedForward(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.fc = nn.Linear(cfg.n_embd, 4 * cfg.n_embd, bias=cfg.bias)
            self.gelu = nn.GELU()
            self.proj = nn.Linear(4 * cfg.n_embd, cfg.n_embd, bias=cfg.bias)
            self.drop = nn.Dropout(cfg.dropout)

        def forward(self, x):
            return self.drop(self.proj(self.gelu(self.fc(x))))

    class Block(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.ln_1 = nn.LayerNorm(cfg.n_embd, bias=cfg.bias)
            self.attn = SelfAttention(cfg)
            self.ln_2 = nn.LayerNorm(cfg.n_embd, bias=cfg.bias)
            self.mlp = FeedForward(cfg)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.cfg = cfg
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(cfg.vocab_size, cfg.n_embd),
                wpe=nn.Embedding(cfg.block_size, cfg.n_embd),
                drop=nn.Dropout(cfg.dropout),
                h=nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)]),
                ln_f=nn.LayerNorm(cfg.n_embd, bias=cfg.bias),
            ))  # fmt: skip
            self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying
            self.apply(self._init_weights)
            for name, p in self.named_parameters():
                if name.endswith("proj.weight"):  # scaled init of the residual projections
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * cfg.n_layer))

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            assert t <= self.cfg.block_size
            pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is None:
                return self.lm_head(x[:, [-1], :]), None
            logits = self.lm_head(x)
            loss = F.cross_entropy(
                logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
            )
            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
            params = {n: p for n, p in self.named_parameters() if p.requires_grad}
            decay = [p for n, p in params.items() if p.dim() >= 2]
            no_decay = [p for n, p in params.items() if p.dim() < 2]
            groups = [
                {"params": decay, "weight_decay": weight_decay},
                {"params": no_decay, "weight_decay": 0.0},
            ]
            fused_ok = "fused" in inspect.signature(torch.optim.AdamW).parameters
            extra = dict(fused=True) if fused_ok and device_type == "cuda" else dict()
            return torch.optim.AdamW(groups, lr=learning_rate, betas=betas, **extra)

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            for _ in range(max_new_tokens):
                cond = idx if idx.size(1) <= self.cfg.block_size else idx[:, -self.cfg.block_size :]
                logits, _ = self(cond)
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float("Inf")
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    return GPT


def _batch(cfg: Config, batch: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, cfg.vocab_size, size=(batch, cfg.block_size + 1))
    return data[:, :-1].astype(np.int64), data[:, 1:].astype(np.int64)


STEPS = 3


def _train_microtorch(model, opt, cfg: Config, device: str) -> list:
    losses = []
    for step in range(STEPS):
        x, y = _batch(cfg, seed=step)
        _, loss = model(microtorch.tensor(x, device=device), microtorch.tensor(y, device=device))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        microtorch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return losses


def test_pytorch_style_gpt_trains_and_generates_on_microtorch(device: str) -> None:
    microtorch.manual_seed(0)
    cfg = Config()
    model = build_gpt(microtorch)(cfg).to(device)
    assert model.transformer.wte.weight is model.lm_head.weight
    n_params = sum(p.numel() for p in model.parameters())
    assert (
        n_params
        == (cfg.vocab_size + cfg.block_size) * cfg.n_embd
        + cfg.n_layer * (12 * cfg.n_embd**2 + 13 * cfg.n_embd)
        + 2 * cfg.n_embd
    )  # tied head counted once
    opt = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95), device)
    assert opt.defaults["fused"] is (True if device == "cuda" else None)
    assert [len(g["params"]) for g in opt.param_groups] == [
        2 + 4 * cfg.n_layer,
        2 + 8 * cfg.n_layer,
    ]
    # overfit one batch: the loss must fall well below log(vocab)
    x, y = _batch(cfg)
    xs, ys = microtorch.tensor(x, device=device), microtorch.tensor(y, device=device)
    first = None
    for _ in range(30):
        _, loss = model(xs, ys)
        first = first if first is not None else loss.item()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert first == pytest.approx(math.log(cfg.vocab_size), rel=0.05)
    assert loss.item() < 0.6 * first
    model.eval()
    start = microtorch.tensor([[1, 2]], device=device)
    out = model.generate(start, max_new_tokens=cfg.block_size + 4, temperature=0.8, top_k=5)
    assert tuple(out.shape) == (1, cfg.block_size + 6) and out.dtype is microtorch.long
    tokens = out.cpu().numpy()
    assert tokens[0, :2].tolist() == [1, 2] and tokens.min() >= 0 and tokens.max() < cfg.vocab_size
    assert all(p.grad is None or p.grad.grad_fn is None for p in model.parameters())


def test_pytorch_style_gpt_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    cfg = Config()
    microtorch.manual_seed(0)
    ours = build_gpt(microtorch)(cfg)
    theirs = build_gpt(torch)(cfg)
    state = {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(state)
    assert theirs.transformer.wte.weight is theirs.lm_head.weight
    opt_ours = ours.configure_optimizers(0.1, 1e-3, (0.9, 0.95), "cpu")
    opt_theirs = theirs.configure_optimizers(0.1, 1e-3, (0.9, 0.95), "cpu")

    for step in range(STEPS):
        x, y = _batch(cfg, seed=step)
        _, loss = ours(microtorch.tensor(x), microtorch.tensor(y))
        _, tloss = theirs(torch.from_numpy(x), torch.from_numpy(y))
        assert loss.item() == pytest.approx(tloss.item(), rel=1e-5)
        opt_ours.zero_grad()
        opt_theirs.zero_grad()
        loss.backward()
        tloss.backward()
        tparams = dict(theirs.named_parameters())
        for name, p in ours.named_parameters():
            np.testing.assert_allclose(
                p.grad.numpy(), tparams[name].grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name
            )
        norm = microtorch.nn.utils.clip_grad_norm_(ours.parameters(), 1.0)
        tnorm = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 1.0)
        assert norm.item() == pytest.approx(tnorm.item(), rel=1e-5)
        opt_ours.step()
        opt_theirs.step()
        for name, p in ours.named_parameters():
            a, b = p.detach().numpy(), tparams[name].detach().numpy()
            if name.endswith("qkv.bias"):
                # The key bias adds q.b_k to every score of a row, which softmax ignores: its
                # true gradient is 0 and both frameworks compute round-off (~1e-10). Adam
                # normalises that noise to steps of +-lr, so only bound it there.
                key = slice(cfg.n_embd, 2 * cfg.n_embd)
                assert np.abs(a[key] - b[key]).max() <= 2 * 1e-3 * (step + 1)
                a, b = np.delete(a, np.r_[key]), np.delete(b, np.r_[key])
            # Elsewhere the parameters agree to ~1e-7, except where a gradient is tiny (~1e-7,
            # a sum of terms ~1e-3 that nearly cancel): its float32 round-off differs by ~1%,
            # and Adam's g / (|g| + eps) passes that on as up to ~0.1% of one lr step.
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=5e-3 * 1e-3, err_msg=name)
