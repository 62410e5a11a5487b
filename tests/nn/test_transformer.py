"""nn.Transformer and its encoder/decoder layers: PyTorch's parameter names, the causal mask,
properties that need no reference (post-LN outputs are normalized; a causal encoder never
looks ahead), and, where PyTorch is installed, outputs and gradients against torch.nn given
the same parameters."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch import nn


def test_square_subsequent_mask() -> None:
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype is microtorch.float32
    assert mask.tolist() == [[0.0, -np.inf, -np.inf], [0.0, 0.0, -np.inf], [0.0, 0.0, 0.0]]


def test_parameter_names_are_pytorchs() -> None:
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    assert sorted(layer.state_dict()) == [
        "linear1.bias", "linear1.weight", "linear2.bias", "linear2.weight",
        "norm1.bias", "norm1.weight", "norm2.bias", "norm2.weight",
        "self_attn.in_proj_bias", "self_attn.in_proj_weight",
        "self_attn.out_proj.bias", "self_attn.out_proj.weight",
    ]  # fmt: skip
    model = nn.Transformer(8, 2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16)
    names = set(model.state_dict())
    assert {"encoder.layers.1.norm2.weight", "encoder.norm.weight",
            "decoder.layers.0.multihead_attn.in_proj_weight", "decoder.norm.bias"} <= names  # fmt: skip
    stack = nn.TransformerEncoder(layer, num_layers=2)
    a, b = (stack.layers[i].linear1.weight for i in range(2))
    assert a is not b and a is not layer.linear1.weight  # copies with their own parameters


def test_post_ln_outputs_are_normalized_and_causal_encoding_never_looks_ahead(device: str) -> None:
    microtorch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=2).to(device)
    x = microtorch.randn(2, 5, 8, device=device)
    mask = nn.Transformer.generate_square_subsequent_mask(5, device=device)
    out = encoder(x, mask=mask)
    assert out.shape == (2, 5, 8)
    values = out.detach().cpu().numpy()
    np.testing.assert_allclose(values.mean(-1), 0.0, atol=1e-5)  # the last step is LayerNorm
    later = x.detach().clone()
    later[:, 3:] = microtorch.randn(2, 2, 8, device=device)  # change only positions 3 and 4
    changed = encoder(later, mask=mask).detach().cpu().numpy()
    np.testing.assert_allclose(changed[:, :3], values[:, :3], rtol=1e-5, atol=1e-6)
    assert not np.allclose(changed[:, 3:], values[:, 3:])


def test_decoder_and_transformer_shapes() -> None:
    model = nn.Transformer(8, 2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                           dropout=0.0, norm_first=True)  # fmt: skip
    src, tgt = microtorch.randn(6, 2, 8), microtorch.randn(4, 2, 8)  # (length, batch, d_model)
    out = model(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4))
    assert out.shape == (4, 2, 8)
    with pytest.raises(RuntimeError, match="batch number of src and tgt must be equal"):
        model(src, microtorch.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")  # PyTorch's own, about its speed
@pytest.mark.parametrize("norm_first", [False, True])
def test_matches_pytorch(norm_first: bool) -> None:
    pt = pytest.importorskip("torch")
    options = dict(dim_feedforward=12, dropout=0.0, activation="gelu", norm_first=norm_first)
    theirs = pt.nn.Transformer(6, 2, 1, 2, **options, dtype=pt.float64)
    ours = nn.Transformer(6, 2, 1, 2, **options, dtype=microtorch.float64)
    ours.load_state_dict(
        {k: microtorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    )
    rng = np.random.default_rng(0)
    src, tgt = rng.standard_normal((5, 2, 6)), rng.standard_normal((3, 2, 6))
    pad = np.array([[False, False, False, False, True], [False, True, False, False, False]])
    results = []
    for lib, model in ((microtorch, ours), (pt, theirs)):
        s, t = lib.tensor(src, requires_grad=True), lib.tensor(tgt, requires_grad=True)
        out = model(s, t, tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(3, dtype=lib.float64),
                    src_key_padding_mask=lib.tensor(pad), memory_key_padding_mask=lib.tensor(pad))  # fmt: skip
        out.sum().backward()
        weight = model.encoder.layers[0].linear1.weight.grad
        results.append((out.detach().numpy(), s.grad.numpy(), t.grad.numpy(), weight.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def _encoders(pt: object, **options: object) -> tuple[object, object]:
    """The same two-layer encoder (d_model 8, 2 heads, a final LayerNorm) in both libraries."""
    layer_options = dict(dim_feedforward=16, dropout=0.0, batch_first=True)
    layer_options.update({k: options.pop(k) for k in ("norm_first", "batch_first") if k in options})
    pt.manual_seed(0)
    theirs = pt.nn.TransformerEncoder(
        pt.nn.TransformerEncoderLayer(8, 2, **layer_options), 2, norm=pt.nn.LayerNorm(8),
        **options,
    ).double()  # fmt: skip
    ours = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, **layer_options), 2, norm=nn.LayerNorm(8), **options
    ).double()
    ours.load_state_dict({k: microtorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")  # PyTorch's own, about its speed
@pytest.mark.parametrize(
    ("options", "evaluate", "pads", "zeroed"),
    [
        ({}, "no_grad", "end", True),  # PyTorch's nested-tensor path
        ({}, "eval", "end", False),  # eval mode with gradients on: not taken...
        ({}, "frozen", "end", True),  # ...unless no weight of the first layer requires grad
        ({}, "train", "end", False),  # training mode never takes it
        ({}, "no_grad", "middle", False),  # mask_check: padding not only at the end
        ({"mask_check": False}, "no_grad", "end", True),
        ({"enable_nested_tensor": False}, "no_grad", "end", False),
        ({"norm_first": True}, "no_grad", "end", False),
        ({"batch_first": False}, "no_grad", "end", False),
        ({}, "fastpath off", "end", False),  # torch.backends.mha.set_fastpath_enabled(False)
        ({}, "float mask", "end", True),
    ],
)
def test_encoder_zeroes_padded_positions_where_pytorchs_fast_path_does(
    options: dict, evaluate: str, pads: str, zeroed: bool
) -> None:
    pt = pytest.importorskip("torch")
    ours, theirs = _encoders(pt, **options)
    batch_first = options.get("batch_first", True)
    x = np.random.default_rng(0).standard_normal((3, 5, 8))
    pad = np.arange(5)[None, :] >= np.array([5, 3, 2])[:, None]
    if pads == "middle":
        pad[0, 1] = True
    results = []
    for lib, model in ((microtorch, ours), (pt, theirs)):
        model.train(evaluate == "train")
        src = lib.tensor(x if batch_first else x.transpose(1, 0, 2).copy())
        mask = lib.tensor(pad)
        if evaluate == "float mask":
            mask = lib.zeros(pad.shape, dtype=lib.float64).masked_fill(mask, float("-inf"))
        if evaluate == "frozen":
            model.requires_grad_(False)
        lib.backends.mha.set_fastpath_enabled(evaluate != "fastpath off")
        try:
            with lib.enable_grad() if evaluate in ("eval", "frozen") else lib.no_grad():
                out = model(src, src_key_padding_mask=mask)
        finally:
            lib.backends.mha.set_fastpath_enabled(True)
        out = out.detach().numpy()
        results.append(out if batch_first else out.transpose(1, 0, 2))
    ours_out, theirs_out = results
    np.testing.assert_allclose(ours_out, theirs_out, rtol=1e-10, atol=1e-12)
    bias = theirs.norm.bias.detach().numpy()  # padded positions: the final norm of zeros
    assert np.allclose(theirs_out[1, 3:], bias) is zeroed
