"""``MultiheadAttention``: PyTorch's attention module, with its parameters and masks.

    out, weights = mha(query, key, value)      # self-attention: mha(x, x, x)

Each of query, key and value is projected to ``embed_dim`` channels, split into
``num_heads`` heads of ``embed_dim // num_heads``, attended (softmax(q k^T / sqrt(d)) v per
head), joined again and projected by ``out_proj``. The parameters are PyTorch's, under its
names (``in_proj_weight`` holds the query, key and value projections stacked, or
``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when key and value have other widths),
so a PyTorch state dict loads as it is.

Masks follow PyTorch's convention for this module, which is the opposite of
scaled_dot_product_attention's: in a bool ``attn_mask`` (L, S) or (N * num_heads, L, S), or
a bool ``key_padding_mask`` (N, S), True means "may NOT attend"; float masks are added to
the scores. The computation itself is ``multi_head_attention_forward`` below (PyTorch's
``F.multi_head_attention_forward``, with every weight passed in), which the module calls.
models/attention.py is the char-LM's own, smaller causal attention.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dtypes
from .. import factories
from .. import functional as _functional
from .._tensor import Tensor
from .._warn import warn_user
from . import functional as F
from . import init
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from .parameter import Parameter


class MultiheadAttention(Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise ValueError(
                f"MultiheadAttention: embed_dim ({embed_dim}) must be a positive multiple of "
                f"num_heads ({num_heads})"
            )
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.batch_first, self.add_zero_attn = batch_first, add_zero_attn
        make = {"device": device, "dtype": dtype}
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(factories.empty(3 * embed_dim, embed_dim, **make))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.register_parameter("in_proj_weight", None)
            self.q_proj_weight = Parameter(factories.empty(embed_dim, embed_dim, **make))
            self.k_proj_weight = Parameter(factories.empty(embed_dim, self.kdim, **make))
            self.v_proj_weight = Parameter(factories.empty(embed_dim, self.vdim, **make))
        if bias:
            self.in_proj_bias = Parameter(factories.empty(3 * embed_dim, **make))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **make)
        if add_bias_kv:
            self.bias_k = Parameter(factories.empty(1, 1, embed_dim, **make))
            self.bias_v = Parameter(factories.empty(1, 1, embed_dim, **make))
        else:
            self.bias_k = self.bias_v = None
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """PyTorch's initialisation: Xavier-uniform projections, zero biases."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:  # fmt: skip
        """(attention output, attention weights or None). Inputs are (L, N, E), or (N, L, E)
        with ``batch_first``, or unbatched (L, E). The weights, with ``need_weights``, are
        (N, L, S), averaged over the heads, or (N, num_heads, L, S)."""
        batched_first = self.batch_first and query.ndim == 3
        if batched_first:  # work in (L, N, E), as PyTorch does
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )  # fmt: skip
        return (out.transpose(0, 1) if batched_first else out), weights

    def extra_repr(self) -> str:
        return ""  # PyTorch prints only out_proj


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
    bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
    out_proj_bias: Tensor | None, training: bool = True,
    key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:  # fmt: skip
    """Multi-head attention with the weights given (MultiheadAttention's forward, as
    PyTorch's functional form): query (L, N, E), key and value (S, N, kdim / vdim), or
    unbatched (L, E)...; returns (output (L, N, E), weights (N, L, S) or per head, or None).
    ``static_k`` / ``static_v`` (N * num_heads, S, E / num_heads) replace the projected keys
    and values."""
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "MultiheadAttention: is_causal is a hint that attn_mask is causal; pass the "
            "causal attn_mask itself (True above the diagonal)"
        )
    if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise RuntimeError(
            f"MultiheadAttention: query, key and value must all be 3-D (batched) or all "
            f"2-D (one sequence), got shapes {tuple(query.shape)}, {tuple(key.shape)} and "
            f"{tuple(value.shape)}"
        )
    _check_mask_types(key_padding_mask, attn_mask)
    unbatched = query.ndim == 2
    if unbatched:  # one sequence: a batch of one, taken away again at the end
        query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    S = key.shape[0]
    if use_separate_proj_weight:
        kdim, vdim = k_proj_weight.shape[1], v_proj_weight.shape[1]
    else:
        kdim = vdim = E
    expected = ((L, N, embed_dim_to_check), (S, N, kdim), (S, N, vdim))
    if any(tuple(t.shape) != want for t, want in zip((query, key, value), expected)):
        raise RuntimeError(
            f"MultiheadAttention: query, key and value of shapes {tuple(query.shape)}, "
            f"{tuple(key.shape)}, {tuple(value.shape)} (as (length, batch, channels)) do "
            f"not fit: they need one batch size, key and value one length, and "
            f"{embed_dim_to_check}, {kdim} and {vdim} channels"
        )
    if E % num_heads:
        raise RuntimeError(
            f"MultiheadAttention: embed_dim {E} is not divisible by num_heads {num_heads}"
        )
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias,
                       (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight
                       else None)  # fmt: skip
    if bias_k is not None:  # one more key and value: learned ones
        k = _functional.cat([k, bias_k.expand(1, N, E)])
        v = _functional.cat([v, bias_v.expand(1, N, E)])
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    H, D = num_heads, E // num_heads
    q, k, v = (t.reshape(t.shape[0], N, H, D).permute(1, 2, 0, 3) for t in (q, k, v))
    if static_k is not None:  # keys given already split into heads: (N * H, S, D)
        k = static_k.reshape(N, H, static_k.shape[1], D)
    if static_v is not None:
        v = static_v.reshape(N, H, static_v.shape[1], D)
    if add_zero_attn:  # one more key and value: zeros
        zeros = factories.zeros(N, H, 1, D, dtype=q.dtype, device=q.device)
        k, v = _functional.cat([k, zeros], dim=2), _functional.cat([v, zeros], dim=2)
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    # q (N, H, L, D), k and v (N, H, S, D)
    mask = _scores_mask(attn_mask, key_padding_mask, N, H, k.shape[2], q.dtype)
    p = dropout_p if training else 0.0
    if need_weights:
        scores = (q * D**-0.5) @ k.transpose(-2, -1)  # (N, H, L, S)
        if mask is not None:
            scores = scores + mask
        weights = F.dropout(_functional.softmax(scores, dim=-1), p)
        out = weights @ v  # (N, H, L, D)
    else:  # one fused op; a query that may see no key gets 0 there (PyTorch's too)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
        weights = None
    out = F.linear(out.permute(2, 0, 1, 3).reshape(L, N, E), out_proj_weight, out_proj_bias)
    if weights is not None and average_attn_weights:
        weights = weights.mean(dim=1)  # (N, L, S)
    if unbatched:
        return out.squeeze(1), None if weights is None else weights.squeeze(0)
    return out, weights


def _project(query: Tensor, key: Tensor, value: Tensor, in_proj_weight: Tensor | None,
             in_proj_bias: Tensor | None, separate: tuple | None) -> tuple:  # fmt: skip
    """The query, key and value projections: thirds of the stacked in_proj_weight (and
    bias), or the ``separate`` (q, k, v) weights."""
    E = query.shape[-1]
    b = in_proj_bias
    bq, bk, bv = (None, None, None) if b is None else (b[:E], b[E : 2 * E], b[2 * E :])
    if separate is None:
        w = in_proj_weight
        wq, wk, wv = w[:E], w[E : 2 * E], w[2 * E :]
    else:
        wq, wk, wv = separate
    return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)


def _check_mask_types(key_padding_mask: Tensor | None, attn_mask: Tensor | None) -> None:
    """Masks are bool or float (PyTorch's AssertionError otherwise); a key_padding_mask of
    another dtype than attn_mask works but warns, as PyTorch's deprecation does."""
    for name, mask in (("key_padding_mask", key_padding_mask), ("attn_mask", attn_mask)):
        if mask is not None and mask.dtype is not _dtypes.bool and not mask.is_floating_point():
            raise AssertionError(
                f"MultiheadAttention: only bool and floating types of {name} are supported, "
                f"got {mask.dtype}"
            )
    if key_padding_mask is not None and attn_mask is not None:
        if key_padding_mask.dtype is not attn_mask.dtype:
            warn_user(
                "Support for mismatched key_padding_mask and attn_mask is deprecated. Use "
                f"same type for both instead (got {key_padding_mask.dtype} and "
                f"{attn_mask.dtype})."
            )


def _pad_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> tuple:
    """One more key: each mask gets a column that lets every query see it."""
    if attn_mask is not None:
        attn_mask = F.pad(attn_mask, (0, 1))
    if key_padding_mask is not None:
        key_padding_mask = F.pad(key_padding_mask, (0, 1))
    return attn_mask, key_padding_mask


def _scores_mask(attn_mask: Tensor | None, key_padding_mask: Tensor | None, N: int, H: int,
                 S: int, dtype: Any) -> Tensor | None:  # fmt: skip
    """Both masks as one float mask to add to the scores (N, H, L, S): -inf where a bool
    mask says True (may not attend), a float mask as it is."""
    total = None
    if attn_mask is not None:
        mask = _as_added(attn_mask, dtype)
        if mask.ndim == 3:  # (N * H, L, S)
            mask = mask.reshape(N, H, mask.shape[1], S)
        total = mask
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (N, S):
            raise RuntimeError(
                f"MultiheadAttention: key_padding_mask should have shape {(N, S)}, got "
                f"{tuple(key_padding_mask.shape)}"
            )
        padding = _as_added(key_padding_mask, dtype).reshape(N, 1, 1, S)
        total = padding if total is None else total + padding
    return total


def _as_added(mask: Tensor, dtype: Any) -> Tensor:
    if mask.dtype is _dtypes.bool:
        return _functional.where(mask, float("-inf"), 0.0).to(dtype)
    return mask.to(dtype)
