"""PyTorch's transformer modules: ``TransformerEncoderLayer``, ``TransformerEncoder``,
``TransformerDecoderLayer``, ``TransformerDecoder`` and ``Transformer`` (the encoder-decoder
of "Attention Is All You Need"), with PyTorch's parameters, names and defaults.

An encoder layer is self-attention then a feed-forward block (linear, activation, linear),
each added back to its input (a residual) with dropout, and layer-normed: after the
residual (``norm_first=False``, PyTorch's default, the original paper's "post-LN") or
before the block (``norm_first=True``, "pre-LN", what GPT-2 and models/transformer.py do).
A decoder layer adds attention over the encoder's output (``memory``) between the two.

Masks are MultiheadAttention's (True or -inf: may not attend); for a language model's
causal mask use ``Transformer.generate_square_subsequent_mask(length)``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .. import factories
from .._tensor import Tensor
from ..amp import is_autocast_enabled
from ..autograd import grad_mode
from ..backends import mha
from . import functional as F
from . import init
from .activation import GELU, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .multihead_attention import MultiheadAttention
from .normalization import LayerNorm


def _activation(activation: str | Callable) -> Callable:
    if callable(activation):
        return activation
    if activation in ("relu", "gelu"):
        return F.relu if activation == "relu" else F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class _TransformerLayer(Module):
    """What encoder and decoder layers share: self-attention and the feed-forward block,
    under PyTorch's module names, in PyTorch's order. A decoder layer also has attention
    over the memory (``multihead_attn``), a third norm and a third dropout."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float,
                 activation: str | Callable, layer_norm_eps: float, batch_first: bool,
                 norm_first: bool, bias: bool, device: Any, dtype: Any, decoder: bool) -> None:  # fmt: skip
        super().__init__()
        make = {"device": device, "dtype": dtype}
        attention = dict(dropout=dropout, bias=bias, batch_first=batch_first, **make)
        self.self_attn = MultiheadAttention(d_model, nhead, **attention)
        if decoder:
            self.multihead_attn = MultiheadAttention(d_model, nhead, **attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **make)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **make)
        self.norm_first = norm_first
        norm = dict(eps=layer_norm_eps, bias=bias, **make)
        self.norm1, self.norm2 = LayerNorm(d_model, **norm), LayerNorm(d_model, **norm)
        if decoder:
            self.norm3 = LayerNorm(d_model, **norm)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        if decoder:
            self.dropout3 = Dropout(dropout)
        self._feed_forward_dropout = "dropout3" if decoder else "dropout2"
        self.activation = _activation(activation)

    def _self_attention(self, x: Tensor, mask: Any, padding: Any, is_causal: bool) -> Tensor:
        out = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=padding,
                             need_weights=False, is_causal=is_causal)[0]  # fmt: skip
        return self.dropout1(out)

    def _feed_forward(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return getattr(self, self._feed_forward_dropout)(x)


class TransformerEncoderLayer(_TransformerLayer):
    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                         batch_first, norm_first, bias, device, dtype, decoder=False)  # fmt: skip
        # PyTorch's note of a fused activation (1 relu, 2 gelu, 0 other): its fast path's test
        act = self.activation
        gelu = act is F.gelu or isinstance(act, GELU)
        self.activation_relu_or_gelu = 1 if act is F.relu or isinstance(act, ReLU) else 2 * gelu

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False) -> Tensor:  # fmt: skip
        x = src
        if self.norm_first:  # pre-LN: x + block(norm(x))
            x = x + self._self_attention(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._feed_forward(self.norm2(x))
        else:  # post-LN: norm(x + block(x))
            x = self.norm1(x + self._self_attention(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._feed_forward(x))
        return x


class TransformerDecoderLayer(_TransformerLayer):
    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                         batch_first, norm_first, bias, device, dtype, decoder=True)  # fmt: skip

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        x = tgt
        if self.norm_first:
            x = x + self._self_attention(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)  # fmt: skip
            x = x + self._cross_attention(self.norm2(x), memory, memory_mask,
                                          memory_key_padding_mask, memory_is_causal)  # fmt: skip
            x = x + self._feed_forward(self.norm3(x))
        else:
            x = self.norm1(x + self._self_attention(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))  # fmt: skip
            x = self.norm2(x + self._cross_attention(x, memory, memory_mask,
                                                     memory_key_padding_mask, memory_is_causal))  # fmt: skip
            x = self.norm3(x + self._feed_forward(x))
        return x

    def _cross_attention(self, x: Tensor, memory: Tensor, mask: Any, padding: Any,
                         is_causal: bool) -> Tensor:  # fmt: skip
        out = self.multihead_attn(x, memory, memory, attn_mask=mask, key_padding_mask=padding,
                                  need_weights=False, is_causal=is_causal)[0]  # fmt: skip
        return self.dropout2(out)


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (each with its own parameters), one after
    the other, then ``norm`` if given.

    ``enable_nested_tensor`` is PyTorch's fast inference path, which packs the real tokens
    of a padded batch into a nested tensor and unpacks them again at the end, so that the
    padded positions come out as zeros (then ``norm`` of zeros). microtorch computes every
    position, then zeroes the padded ones whenever PyTorch would take that path: in eval
    mode or without gradients, batch-first post-LN layers with a relu or gelu activation,
    a ``src_key_padding_mask`` that pads only at the end (``mask_check``) and no ``mask``
    (see ``_pads_come_out_zero``)."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int,
                 norm: Module | None = None, enable_nested_tensor: bool = True,
                 mask_check: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        self.use_nested_tensor = enable_nested_tensor and _can_nest(encoder_layer)

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool | None = None) -> Tensor:  # fmt: skip
        zero_pads = self._pads_come_out_zero(src, mask, src_key_padding_mask)
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))  # fmt: skip
        if zero_pads:
            x = x.masked_fill(_padding(src_key_padding_mask).unsqueeze(-1), 0.0)
        return x if self.norm is None else self.norm(x)

    def _pads_come_out_zero(self, src: Tensor, mask: Any, padding: Any) -> bool:
        """Whether PyTorch would run this call through nested tensors (its conditions)."""
        first = self.layers[0]
        if not (mha.get_fastpath_enabled() and self.use_nested_tensor) or first.training:
            return False
        if src.ndim != 3 or padding is None or mask is not None or is_autocast_enabled():
            return False
        if self.mask_check and not _pads_at_the_end(padding):
            return False
        weights = (src, *first.parameters())
        return not (grad_mode.is_grad_enabled() and any(t.requires_grad for t in weights))


def _can_nest(layer: Module) -> bool:
    """Whether PyTorch's fast path can take ``layer`` (checked once, when the stack is made)."""
    if not isinstance(layer, TransformerEncoderLayer) or layer.norm_first:
        return False
    attention = layer.self_attn
    return (
        attention.batch_first
        and attention._qkv_same_embed_dim
        and attention.in_proj_bias is not None
        and layer.activation_relu_or_gelu != 0
        and layer.norm1.eps == layer.norm2.eps
        and attention.num_heads % 2 == 0
    )


def _padding(key_padding_mask: Tensor) -> Tensor:
    """(batch, length) bool: True where a token is padding (True, or a nonzero float)."""
    return key_padding_mask != 0


def _pads_at_the_end(key_padding_mask: Tensor) -> bool:
    """Whether every row is real tokens then padding (no real token after a pad)."""
    pad = _padding(key_padding_mask)
    if pad.ndim != 2:
        return False
    return not bool((pad[:, :-1] & ~pad[:, 1:]).any())


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, each attending to ``memory``, then
    ``norm`` if given."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int,
                 norm: Module | None = None) -> None:  # fmt: skip
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)  # fmt: skip
        return x if self.norm is None else self.norm(x)


class Transformer(Module):
    """The encoder-decoder transformer: ``decoder(tgt, encoder(src))``, each a stack of
    layers ending in a LayerNorm; every weight matrix starts Xavier-uniform."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = "relu", custom_encoder: Module | None = None,
                 custom_decoder: Module | None = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        make = {"device": device, "dtype": dtype}
        layer_options = dict(dim_feedforward=dim_feedforward, dropout=dropout,
                             activation=activation, layer_norm_eps=layer_norm_eps,
                             batch_first=batch_first, norm_first=norm_first, bias=bias, **make)  # fmt: skip
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, **layer_options)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **make)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, **layer_options)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **make)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, src_is_causal: bool | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        batch_dim = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("Transformer: the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("Transformer: the feature number of src and tgt must be equal to d_model")  # fmt: skip
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)  # fmt: skip
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)  # fmt: skip

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """(sz, sz) float mask for causal attention: -inf above the diagonal (a position may
        not attend to later ones), 0 elsewhere."""
        return factories.full((sz, sz), float("-inf"), device=device, dtype=dtype).triu(1)
