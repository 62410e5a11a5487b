"""A GPT (decoder-only transformer) for characters, built only from microtorch.

    idx (B, T) token ids
     -> token embedding (B, T, C) + position embedding (T, C)
     -> n_layer blocks, each:   x = x + attention(LayerNorm(x))     (pre-LayerNorm)
                                x = x + MLP(LayerNorm(x))
     -> final LayerNorm -> logits (B, T, vocab) = x @ token_embedding^T  (tied weights)

B = batch, T = time (positions), C = n_embd (channels), nh = n_head, hs = C // nh (head size).
The code reads like PyTorch because it is written against microtorch's PyTorch-shaped API:
swap the first import for ``import torch`` and it runs unchanged (except the key/value cache,
which uses only ordinary tensor indexing too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import microtorch as torch
import microtorch.nn.functional as F
from microtorch import nn


@dataclass
class GPTConfig:
    vocab_size: int = 65
    block_size: int = 64  # the longest context the model sees (positions it has embeddings for)
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    dropout: float = 0.0
    bias: bool = True  # biases in the Linear and LayerNorm layers

    def __post_init__(self) -> None:
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"GPTConfig: {name} must be at least 1, got {getattr(self, name)}")
        if self.n_embd % self.n_head:
            raise ValueError(
                f"GPTConfig: n_embd ({self.n_embd}) must be a multiple of n_head ({self.n_head}) "
                "so that every head gets the same number of channels"
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"GPTConfig: dropout must be in [0, 1), got {self.dropout}")


class KVCache:
    """The keys and values of every position seen so far, for every layer, so that generating
    one more token only computes that token's position.

    Buffers of shape (B, nh, block_size, hs) are filled left to right; ``length`` positions
    are valid. The cache is for inference: what is written into it is detached from the graph."""

    def __init__(self, config: GPTConfig, batch_size: int, device: Any, dtype: Any) -> None:
        head_size = config.n_embd // config.n_head
        shape = (batch_size, config.n_head, config.block_size, head_size)
        self.keys = [torch.zeros(shape, device=device, dtype=dtype) for _ in range(config.n_layer)]
        self.values = [
            torch.zeros(shape, device=device, dtype=dtype) for _ in range(config.n_layer)
        ]
        self.block_size = config.block_size
        self.length = 0  # positions already cached (set by GPT.forward after all layers ran)

    def update(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> tuple:
        """Store this step's k, v (B, nh, T, hs) after the cached ones and return all of
        them: (B, nh, length + T, hs) each."""
        start, end = self.length, self.length + k.shape[2]
        with torch.no_grad():
            self.keys[layer][:, :, start:end] = k.detach()
            self.values[layer][:, :, start:end] = v.detach()
        return self.keys[layer][:, :, :end], self.values[layer][:, :, :end]


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention where position t only sees positions <= t."""

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.n_head, self.n_embd, self.dropout = config.n_head, config.n_embd, config.dropout
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)  # q, k, v
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.resid_dropout = nn.Dropout(config.dropout)

    def forward(
        self, x: torch.Tensor, cache: KVCache | None = None, layer: int = 0
    ) -> torch.Tensor:
        B, T, C = x.shape
        nh, hs = self.n_head, C // self.n_head
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)  # (B, T, 3C) -> 3 x (B, T, C)
        q = q.view(B, T, nh, hs).transpose(1, 2)  # (B, T, C) -> (B, nh, T, hs)
        k = k.view(B, T, nh, hs).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, nh, hs).transpose(1, 2)  # (B, nh, T, hs)
        past = 0
        if cache is not None:
            past = cache.length
            k, v = cache.update(layer, k, v)  # (B, nh, past + T, hs)
        # Which keys may each query see? With nothing cached: the usual causal mask. One new
        # position after cached ones: all of them (no mask). T new positions after `past`
        # cached ones: query i sees keys 0 .. past + i (an explicit (T, past + T) mask).
        causal, mask = past == 0, None
        if past > 0 and T > 1:
            mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(past)
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, is_causal=causal,
            dropout_p=self.dropout if self.training else 0.0,
        )  # fmt: skip  # (B, nh, T, hs)
        y = y.transpose(1, 2).reshape(B, T, C)  # (B, nh, T, hs) -> (B, T, C): heads side by side
        return self.resid_dropout(self.c_proj(y))  # (B, T, C)


class MLP(nn.Module):
    """Per position: widen to 4C, GELU, project back to C."""

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.gelu(self.c_fc(x))  # (B, T, C) -> (B, T, 4C)
        return self.dropout(self.c_proj(h))  # (B, T, 4C) -> (B, T, C)


class Block(nn.Module):
    """One transformer block: attention then MLP, each on a LayerNorm-ed copy of x whose
    result is added back to x (the residual stream)."""

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(
        self, x: torch.Tensor, cache: KVCache | None = None, layer: int = 0
    ) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x), cache, layer)  # (B, T, C)
        x = x + self.mlp(self.ln_2(x))  # (B, T, C)
        return x


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)  # token embedding
        self.wpe = nn.Embedding(config.block_size, config.n_embd)  # position embedding
        self.drop = nn.Dropout(config.dropout)
        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd, bias=config.bias)
        # The output head shares its weight with the token embedding ("weight tying"):
        # the same (vocab, C) matrix maps ids to vectors and vectors back to logits.
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight

        # GPT-2 initialisation: N(0, 0.02) weights, zero biases, and the two projections that
        # write into the residual stream scaled down by 1/sqrt(2 * n_layer), so the stream's
        # variance does not grow with depth.
        self.apply(self._init_weights)
        residual_std = 0.02 / math.sqrt(2 * config.n_layer)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=residual_std)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def num_params(self, non_embedding: bool = False) -> int:
        """Number of parameters (the tied head counted once). ``non_embedding`` leaves out the
        position embedding (and the token embedding is only counted as the output head)."""
        n = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n -= self.wpe.weight.numel()
        return n

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None,
                cache: KVCache | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:  # fmt: skip
        """Logits for the next token. With ``targets`` (B, T): logits (B, T, vocab) and the mean
        cross-entropy loss. Without: only the last position's logits (B, 1, vocab) and None.
        With a ``cache``, ``idx`` holds only the new positions that follow the cached ones."""
        if not isinstance(idx, torch.Tensor) or idx.ndim != 2 or idx.dtype.is_floating_point:
            raise TypeError(
                "GPT.forward: idx must be a 2-D integer tensor of token ids (batch, time), got "
                + (f"{idx.dtype} of shape {tuple(idx.shape)}" if isinstance(idx, torch.Tensor) else type(idx).__name__)
            )  # fmt: skip
        B, T = idx.shape
        past = cache.length if cache is not None else 0
        if past + T > self.config.block_size:
            raise ValueError(
                f"GPT.forward: cannot attend over {past + T} positions, the model's block_size is "
                f"{self.config.block_size}; crop the context to the last {self.config.block_size} "
                "tokens (generate() does this)"
            )
        pos = torch.arange(past, past + T, device=idx.device)  # (T,)
        x = self.drop(self.wte(idx) + self.wpe(pos))  # (B, T, C) + (T, C) -> (B, T, C)
        for layer, block in enumerate(self.h):
            x = block(x, cache, layer)  # (B, T, C)
        if cache is not None:
            cache.length += T
        x = self.ln_f(x)  # (B, T, C)

        if targets is None:  # inference: only the next token after the last position matters
            return self.lm_head(x[:, -1:, :]), None  # (B, 1, C) -> (B, 1, vocab)
        logits = self.lm_head(x)  # (B, T, C) -> (B, T, vocab)
        loss = F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(B * T))
        return logits, loss

    def configure_optimizers(self, weight_decay: float, learning_rate: float,
                             betas: tuple[float, float], device_type: str = "cpu") -> Any:  # fmt: skip
        """AdamW where the matrices (Linear weights, embeddings) get weight decay and the
        vectors (biases, LayerNorm gains) do not. ``device_type`` is accepted for the
        nanoGPT-style call and does not change anything here."""
        params = list(dict(self.named_parameters()).values())
        decay = [p for p in params if p.ndim >= 2]
        no_decay = [p for p in params if p.ndim < 2]
        groups = [
            {"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int, temperature: float = 1.0,
                 top_k: int | None = None, use_cache: bool = True) -> torch.Tensor:  # fmt: skip
        """Append ``max_new_tokens`` sampled tokens to ``idx`` (B, T) and return (B, T + new).

        Each token is drawn from softmax(logits / temperature), restricted to the ``top_k``
        most likely ones when given; temperature 0 takes the most likely token.

        With ``use_cache`` the keys and values of earlier positions are kept, so a new token
        costs one position. Once the context holds block_size tokens, the next token must
        see the last block_size tokens at positions 0..block_size-1: every cached key was
        computed at a position that has now shifted, so the cache is rebuilt from the cropped
        window (the same work as without a cache). Both paths see exactly the same contexts
        and so give the same tokens for the same seed."""
        if temperature < 0:
            raise ValueError(f"generate: temperature must be >= 0, got {temperature}")
        if top_k is not None and top_k < 1:
            raise ValueError(f"generate: top_k must be at least 1 (or None), got {top_k}")
        if idx.ndim != 2 or idx.shape[1] < 1:
            raise ValueError(
                f"generate: idx must have shape (batch, time>=1), got {tuple(idx.shape)}"
            )
        was_training = self.training
        self.eval()
        block_size = self.config.block_size
        cache = None
        for _ in range(max_new_tokens):
            if not use_cache:
                logits, _ = self(idx[:, -block_size:])  # the whole (cropped) context every time
            elif cache is None or cache.length == block_size:  # start, or the window moved
                cache = KVCache(self.config, idx.shape[0], idx.device, self.wte.weight.dtype)
                logits, _ = self(idx[:, -block_size:], cache=cache)
            else:
                logits, _ = self(idx[:, -1:], cache=cache)  # just the newest token
            next_id = self._sample(logits[:, -1, :], temperature, top_k)  # (B, 1)
            idx = torch.cat([idx, next_id], dim=1)  # (B, T + 1)
        self.train(was_training)
        return idx

    @staticmethod
    def _sample(logits: torch.Tensor, temperature: float, top_k: int | None) -> torch.Tensor:
        """One token id per row of logits (B, vocab) -> (B, 1)."""
        if temperature == 0:
            return logits.argmax(dim=-1, keepdim=True)
        logits = logits / temperature
        if top_k is not None and top_k < logits.shape[-1]:
            kth_best = torch.topk(logits, top_k).values[:, -1:]  # (B, 1)
            logits = logits.masked_fill(logits < kth_best, float("-inf"))
        probs = F.softmax(logits, dim=-1)  # (B, vocab)
        return torch.multinomial(probs, num_samples=1)  # (B, 1)
