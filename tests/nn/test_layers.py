"""Layers: forward values, gradients (gradcheck in float64), PyTorch parity, devices."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn
from microtorch.autograd import gradcheck


def _params(module: nn.Module) -> list:
    return list(module.parameters())


LAYERS = {
    "linear": (lambda: nn.Linear(4, 3), (2, 5, 4)),
    "linear_no_bias": (lambda: nn.Linear(4, 3, bias=False), (6, 4)),
    "layer_norm": (lambda: nn.LayerNorm(5), (3, 5)),
    "layer_norm_no_bias": (lambda: nn.LayerNorm(5, bias=False), (2, 3, 5)),
    "layer_norm_no_affine": (lambda: nn.LayerNorm(5, elementwise_affine=False), (3, 5)),
    "layer_norm_2d": (lambda: nn.LayerNorm((2, 3)), (4, 2, 3)),
    "gelu": (lambda: nn.GELU(), (3, 4)),
    "gelu_tanh": (lambda: nn.GELU(approximate="tanh"), (3, 4)),
    "relu": (lambda: nn.ReLU(), (3, 4)),
    "tanh": (lambda: nn.Tanh(), (3, 4)),
    "sigmoid": (lambda: nn.Sigmoid(), (3, 4)),
    "silu": (lambda: nn.SiLU(), (3, 4)),
    "softmax": (lambda: nn.Softmax(dim=-1), (3, 4)),
    "log_softmax": (lambda: nn.LogSoftmax(dim=1), (3, 4)),
    "softmax2d": (lambda: nn.Softmax2d(), (2, 3, 4, 2)),
    "softmax2d_unbatched": (lambda: nn.Softmax2d(), (3, 4, 2)),
    "relu6": (lambda: nn.ReLU6(), (3, 4)),
    "hardtanh": (lambda: nn.Hardtanh(-0.4, 0.6), (3, 4)),  # 0.5 is where |a| < 0.1 goes
    "elu": (lambda: nn.ELU(0.5), (3, 4)),
    "selu": (lambda: nn.SELU(), (3, 4)),
    "celu": (lambda: nn.CELU(2.0), (3, 4)),
    "softsign": (lambda: nn.Softsign(), (3, 4)),
    "logsigmoid": (lambda: nn.LogSigmoid(), (3, 4)),
    "mish": (lambda: nn.Mish(), (3, 4)),
    "hardswish": (lambda: nn.Hardswish(), (3, 4)),
    "hardsigmoid": (lambda: nn.Hardsigmoid(), (3, 4)),
    "glu": (lambda: nn.GLU(dim=1), (3, 4)),
    "softmin": (lambda: nn.Softmin(dim=-1), (3, 4)),
    "threshold": (lambda: nn.Threshold(0.2, -1.0), (3, 4)),
    "tanhshrink": (lambda: nn.Tanhshrink(), (3, 4)),
    "softshrink": (lambda: nn.Softshrink(0.3), (3, 4)),
    "hardshrink": (lambda: nn.Hardshrink(0.3), (3, 4)),
    "prelu": (lambda: nn.PReLU(), (3, 4)),
    "prelu_per_channel": (lambda: nn.PReLU(4, init=0.1), (2, 4, 3)),
    "rrelu_eval": (lambda: nn.RReLU().eval(), (3, 4)),
    "identity": (lambda: nn.Identity(7, key="ignored"), (3, 4)),
    "sequential": (
        lambda: nn.Sequential(nn.Linear(4, 6), nn.GELU(), nn.LayerNorm(6), nn.Linear(6, 2)),
        (3, 4),
    ),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_gradcheck(name: str) -> None:
    make, shape = LAYERS[name]
    layer = make().double()
    a = np.random.default_rng(0).standard_normal(shape)
    a[np.abs(a) < 0.1] = 0.5  # away from ReLU's kink at 0, where finite differences fail
    x = torch.tensor(a, requires_grad=True)
    assert gradcheck(lambda x, *params: layer(x), [x, *_params(layer)])


def test_embedding_gradcheck() -> None:
    emb = nn.Embedding(6, 3).double()
    idx = torch.tensor([[0, 2, 5], [5, 1, 2]])
    assert gradcheck(lambda w: emb(idx), [emb.weight])
    # padding_idx: by design its row gets no gradient (so no gradcheck there)
    emb = nn.Embedding(6, 3, padding_idx=2)
    out = emb(idx)
    out.sum().backward()
    assert np.all(emb.weight.grad.numpy()[2] == 0)  # the padding row learns nothing
    assert np.all(emb.weight.detach().numpy()[2] == 0)  # and starts at zero
    np.testing.assert_array_equal(emb.weight.grad.numpy()[5], 2.0)  # id 5 used twice


@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_embedding_saves_its_ids_as_pytorch_does(lib_name: str) -> None:
    """A second backward through a lookup raises (its ids were freed), and so does a backward
    after the ids changed in place (TripletMarginWithDistanceLoss's docstring example)."""
    lib = torch if lib_name == "microtorch" else pytest.importorskip("torch")
    emb, ids = lib.nn.Embedding(10, 3), lib.tensor([1, 2])
    out = emb(ids)
    (out * 2).sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        (out * 3).sum().backward()
    out = emb(ids)
    ids.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_linear_shapes_and_math() -> None:
    layer = nn.Linear(3, 2)
    x = torch.randn(4, 5, 3)
    y = layer(x)
    assert tuple(y.shape) == (4, 5, 2)
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ w.T + b, rtol=1e-6, atol=1e-6)
    with pytest.raises(RuntimeError, match="linear"):
        layer(torch.randn(2, 4))


def test_float16_linear_and_addmm_family_round_once_as_pytorch() -> None:
    """F.linear, addmm, addmv and baddbmm on float16 (CPU autocast's linear): the product
    and the bias computed in float32 and rounded once, bit for bit PyTorch's; rounding the
    product and then the sum was an ulp off in 1 of 5 entries."""
    rng = np.random.default_rng(3)
    a, w = rng.standard_normal((6, 64)).astype(np.float16), rng.standard_normal((5, 64))
    w, b = w.astype(np.float16), rng.standard_normal(5).astype(np.float16)
    f = lambda x: x.astype(np.float32)  # noqa: E731
    once = (f(a) @ f(w).T + f(b)).astype(np.float16)

    def results(lib):
        T = lib.tensor
        return [lib.nn.functional.linear(T(a), T(w), T(b)),
                lib.addmm(T(b), T(a), T(w).T), lib.baddbmm(T(b), T(a)[None], T(w).T[None])[0],
                lib.addmv(T(b[0]).expand(6), T(a), T(w[0])).unsqueeze(1),
                lib.addmm(T(b), T(a), T(w).T, beta=0.5, alpha=2.0)]  # fmt: skip

    ours = [r.numpy() for r in results(torch)]
    assert all(r.dtype == np.float16 for r in ours)
    for got, want in zip(ours[:4], [once, once, once, once[:, :1]]):
        np.testing.assert_array_equal(got, want)
    pt = pytest.importorskip("torch")
    for got, want in zip(ours, results(pt)):
        np.testing.assert_array_equal(got, want.numpy())
    for lib in (torch, pt):  # CPU autocast lowers float32 inputs to these float16 products
        with lib.autocast("cpu", dtype=lib.float16):
            a32, w32, b32 = lib.tensor(f(a)), lib.tensor(f(w)), lib.tensor(f(b))
            got = [lib.nn.functional.linear(a32, w32, b32), lib.addmm(b32, a32, w32.T)]
        for r in got:
            np.testing.assert_array_equal(r.numpy(), once)


@pytest.mark.parametrize("name", ["layer_norm", "group_norm", "sdpa", "sdpa_causal_mask"])
def test_float16_layer_norm_and_attention_are_computed_in_float32_as_pytorch(name: str) -> None:
    """float16 layer_norm (group_norm uses it) and scaled_dot_product_attention: computed
    in float32 and rounded once, as PyTorch's kernels; their float16 steps had 3x (the norms)
    and 5x (attention) PyTorch's error. The gradients come back in float16."""
    pt = pytest.importorskip("torch")
    fn = {
        "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (66,)),
        "group_norm": lambda lib, x: lib.nn.functional.group_norm(x.reshape(4, 8, 33), 4),
        "sdpa": lambda lib, x: lib.nn.functional.scaled_dot_product_attention(
            x[None, :6, :32], x[None, 6:12, :32], x[None, 10:16, :32]),
        "sdpa_causal_mask": lambda lib, x: lib.nn.functional.scaled_dot_product_attention(
            x[None, :6, :32], x[None, 6:12, :32], x[None, 10:16, :32], is_causal=True),
    }[name]  # fmt: skip
    x = (np.random.default_rng(4).standard_normal((16, 66)) * 3).astype(np.float16)
    results = []
    for lib, dtype in (
        (torch, np.float16),
        (torch, np.float32),
        (pt, np.float16),
        (pt, np.float64),
    ):
        t = lib.tensor(x.astype(dtype), requires_grad=True)
        y = fn(lib, t)
        (y * y.detach()).sum().backward()
        results.append((y.detach().numpy(), t.grad.numpy()))
    (ours, grad), (wide, _), (theirs, their_grad), (exact, exact_grad) = results
    assert ours.dtype == grad.dtype == np.float16
    np.testing.assert_array_equal(ours, wide.astype(np.float16))
    assert np.abs(ours - exact).max() <= 1.05 * np.abs(theirs - exact).max() + 1e-6
    assert np.abs(grad - exact_grad).max() <= 2 * np.abs(their_grad - exact_grad).max() + 1e-3


def test_layer_norm_math() -> None:
    ln = nn.LayerNorm(6, eps=1e-5)
    x = torch.randn(3, 6) * 3 + 1
    with torch.no_grad():
        ln.weight.copy_(torch.randn(6))
        ln.bias.copy_(torch.randn(6))
    a = x.numpy().astype(np.float64)
    expected = (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)
    expected = expected * ln.weight.detach().numpy() + ln.bias.detach().numpy()
    np.testing.assert_allclose(ln(x).detach().numpy(), expected, rtol=1e-5, atol=1e-5)


def test_dropout_train_and_eval() -> None:
    drop = nn.Dropout(p=0.25)
    x = torch.ones(200, 200)
    y = drop(x).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.01
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    drop.eval()
    assert drop(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_dropout_gradient_uses_the_same_mask() -> None:
    drop = nn.Dropout(0.5)
    x = torch.randn(50, 40, requires_grad=True)
    y = drop(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy() != 0, y.detach().numpy() != 0)


INPLACE_LAYERS = {
    "ReLU": lambda inplace: nn.ReLU(inplace=inplace),
    "LeakyReLU": lambda inplace: nn.LeakyReLU(0.1, inplace=inplace),
    "SiLU": lambda inplace: nn.SiLU(inplace=inplace),
    "Dropout": lambda inplace: nn.Dropout(0.5, inplace=inplace),
    "Dropout1d": lambda inplace: nn.Dropout1d(0.5, inplace=inplace),  # (C, L): unbatched
    "AlphaDropout": lambda inplace: nn.AlphaDropout(0.5, inplace=inplace),
    "FeatureAlphaDropout": lambda inplace: nn.FeatureAlphaDropout(0.5, inplace=inplace),
    "ReLU6": lambda inplace: nn.ReLU6(inplace=inplace),
    "Hardtanh": lambda inplace: nn.Hardtanh(-0.5, 0.5, inplace=inplace),
    "ELU": lambda inplace: nn.ELU(0.5, inplace=inplace),
    "SELU": lambda inplace: nn.SELU(inplace=inplace),
    "CELU": lambda inplace: nn.CELU(2.0, inplace=inplace),
    "Mish": lambda inplace: nn.Mish(inplace=inplace),
    "Hardswish": lambda inplace: nn.Hardswish(inplace=inplace),
    "Hardsigmoid": lambda inplace: nn.Hardsigmoid(inplace=inplace),
    "Threshold": lambda inplace: nn.Threshold(0.2, -1.0, inplace=inplace),
    "RReLU": lambda inplace: nn.RReLU(0.1, 0.3, inplace=inplace),  # training: random slopes
}


@pytest.mark.parametrize("name", INPLACE_LAYERS)
def test_inplace_layers_write_into_their_input(name: str) -> None:
    """inplace=True, as in PyTorch: the result is the input tensor itself, now holding the
    new values; values and gradients are those of the out-of-place layer."""
    x = torch.randn(4, 6, requires_grad=True)
    weights = torch.arange(24.0).view(4, 6)
    results = []
    for inplace in (True, False):
        torch.manual_seed(2)  # the same dropout mask both times
        h = x * 1
        out = INPLACE_LAYERS[name](inplace)(h)
        assert (out is h) == inplace
        (out * weights).sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy().copy()))
        x.grad = None
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_inplace_dropout_in_eval_mode_leaves_the_input_alone() -> None:
    x = torch.ones(3, 3)
    assert torch.nn.functional.dropout(x, 0.5, training=False, inplace=True) is x
    assert x.tolist() == [[1.0] * 3] * 3
    with pytest.raises(RuntimeError, match="leaf Variable"):  # as in PyTorch
        nn.ReLU(inplace=True)(torch.ones(2, requires_grad=True))


CHANNEL_DROPOUTS = [  # (layer, input shape, shape of one mask entry per channel)
    (nn.Dropout1d, (40, 50, 3), (40, 50, 1)),
    (nn.Dropout1d, (2000, 3), (2000, 1)),  # unbatched (C, L)
    (nn.Dropout2d, (40, 50, 2, 3), (40, 50, 1, 1)),
    (nn.Dropout3d, (40, 50, 2, 1, 3), (40, 50, 1, 1, 1)),
    (nn.Dropout3d, (2000, 2, 1, 3), (2000, 1, 1, 1)),  # unbatched (C, D, H, W)
]


@pytest.mark.parametrize("layer, shape, per_channel", CHANNEL_DROPOUTS)
def test_channel_dropout_zeroes_whole_channels(device: str, layer, shape, per_channel) -> None:
    """Dropout1d/2d/3d: every element of a channel is kept or zeroed together, kept ones
    scaled by 1/(1-p), about 1-p of the channels kept; the gradient uses the same mask; the
    dtype is kept; eval mode (and p=0) returns the input itself."""
    drop = layer(p=0.3)
    x = torch.randn(*shape, device=device, dtype=torch.float64, requires_grad=True)
    y = drop(x)
    y.backward(torch.ones_like(y))
    scale = (y / x).detach().cpu().numpy()
    first = scale[tuple(slice(0, n) for n in per_channel)]  # one value per channel
    np.testing.assert_allclose(scale, np.broadcast_to(first, shape), rtol=1e-12)
    assert set(np.unique(np.round(first, 12))) <= {0.0, round(1 / 0.7, 12)}
    assert abs((first != 0).mean() - 0.7) < 0.05
    np.testing.assert_allclose(x.grad.cpu().numpy(), scale, rtol=1e-12)
    assert drop(x.detach().float()).dtype == torch.float32
    drop.eval()
    assert drop(x) is x
    assert layer(p=0.0)(x) is x


def _mask_dims(out: np.ndarray) -> int:
    """How many leading dims a dropout mask varies along (the rest are zeroed together)."""
    for k in range(out.ndim + 1):
        if (out == out[(slice(None),) * k + (slice(0, 1),) * (out.ndim - k)]).all():
            return k
    raise AssertionError("unreachable")


def test_channel_dropout_input_ranks_warnings_and_errors_match_pytorch() -> None:
    """Which ranks each of F.dropout1d/2d/3d accepts, warns about (UserWarning) or rejects
    (RuntimeError), the output shape and which dims share one mask entry (e.g. dropout3d
    takes any input that is not 5-D as unbatched), as in PyTorch; bad p: ValueError."""
    import warnings

    pt = pytest.importorskip("torch")
    ranks = {"dropout1d": (1, 2, 3, 4), "dropout2d": (1, 2, 3, 4, 5), "dropout3d": (2, 3, 4, 5, 6)}
    for name, dims in ranks.items():
        for ndim in dims:
            seen = []
            for lib in (torch, pt):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        out = getattr(lib.nn.functional, name)(lib.ones(64, *[2] * (ndim - 1)))
                        seen.append((tuple(out.shape), len(caught), _mask_dims(out.numpy())))
                    except RuntimeError:
                        seen.append(("RuntimeError", len(caught)))
            assert seen[0] == seen[1], (name, ndim)
        for lib in (torch, pt):
            for p in (-0.1, 1.5):
                with pytest.raises(ValueError, match="between 0 and 1"):
                    getattr(lib.nn.functional, name)(lib.ones(2, 2, 2, 2), p)
    for layer in ("Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
        with pytest.raises(ValueError, match="between 0 and 1"):
            getattr(nn, layer)(1.5)
        assert repr(getattr(nn, layer)(0.2)) == repr(getattr(pt.nn, layer)(0.2))


def test_channel_and_alpha_dropout_p_one_integer_inputs_and_defaults() -> None:
    """p=1 zeroes everything (gradient 0); integer inputs raise RuntimeError as in PyTorch;
    F.alpha_dropout and F.feature_alpha_dropout are off unless training=True (PyTorch's
    defaults), F.dropout1d/2d/3d on."""
    F = torch.nn.functional
    for f in (F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout):
        shape = (2, 3, 4) if f is F.dropout1d else (2, 3, 4, 5)
        x = torch.randn(*shape, requires_grad=True)
        y = f(x, 1.0, True)
        y.sum().backward()
        assert not y.detach().numpy().any() and not x.grad.numpy().any()
        with pytest.raises(RuntimeError):
            f(torch.ones(*shape, dtype=torch.int64), 0.5, True)
        assert f(x, 0.0, True) is x
    x = torch.randn(2, 3, 4)
    assert F.alpha_dropout(x) is x and F.feature_alpha_dropout(x) is x
    assert (F.dropout1d(torch.ones(1, 400, 1)).numpy() == 0).any()  # training by default
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        F.feature_alpha_dropout(torch.ones(3), 0.5, True)


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_alpha_dropout_values_match_pytorch_and_keep_mean_and_variance(device: str, p) -> None:
    """AlphaDropout sets dropped elements to one value and maps kept ones by a x + b: those
    values (for inputs 0 and 1) are PyTorch's; a N(0, 1) input keeps mean 0 and variance 1;
    the gradient is a where kept, 0 where dropped. FeatureAlphaDropout drops channels."""
    pt = pytest.importorskip("torch")
    ours, theirs = [], []
    for value in (0.0, 1.0):
        x = torch.full((4000,), value, dtype=torch.float64, device=device)
        ours.append(np.unique(nn.AlphaDropout(p)(x).cpu().numpy()))
        theirs.append(np.unique(pt.nn.AlphaDropout(p)(pt.full((4000,), value).double()).numpy()))
    np.testing.assert_allclose(np.concatenate(ours), np.concatenate(theirs), rtol=1e-12)
    x = torch.randn(400, 500, dtype=torch.float64, device=device, requires_grad=True)
    y = nn.AlphaDropout(p)(x)
    out = y.detach().cpu().numpy()
    assert abs(out.mean()) < 0.01 and abs(out.std() - 1.0) < 0.01
    dropped = out == ours[0].min()  # the dropped value (also that of x = 0 when dropped)
    assert abs(dropped.mean() - p) < 0.01
    y.sum().backward()
    a = ours[1].max() - ours[0].max()  # kept: a * 1 + b minus a * 0 + b
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.where(dropped, 0.0, a), rtol=1e-12)
    feature = nn.FeatureAlphaDropout(p)(torch.ones(40, 50, 3, device=device)).cpu().numpy()
    np.testing.assert_array_equal(feature, np.broadcast_to(feature[:, :, :1], feature.shape))
    assert abs((feature[:, :, 0] == feature.min()).mean() - p) < 0.05
    layer = nn.FeatureAlphaDropout(p).eval()
    assert layer(x) is x


def test_activation_values() -> None:
    x = torch.linspace(-3, 3, 13)
    a = x.numpy().astype(np.float64)
    np.testing.assert_allclose(nn.ReLU()(x).numpy(), np.maximum(a, 0), atol=1e-7)
    np.testing.assert_allclose(nn.Tanh()(x).numpy(), np.tanh(a), atol=1e-6)
    np.testing.assert_allclose(nn.Sigmoid()(x).numpy(), 1 / (1 + np.exp(-a)), atol=1e-6)
    soft = nn.Softmax(dim=0)(x).numpy()
    np.testing.assert_allclose(soft, np.exp(a) / np.exp(a).sum(), atol=1e-6)
    with pytest.raises(ValueError, match="approximate"):
        nn.GELU(approximate="fast")


def test_layers_match_pytorch() -> None:
    pt = pytest.importorskip("torch")
    x = torch.randn(2, 3, 8)
    tx = pt.from_numpy(x.numpy().copy())
    cases = [
        (nn.Linear(8, 5), pt.nn.Linear(8, 5)),
        (nn.LayerNorm(8), pt.nn.LayerNorm(8)),
        (nn.LayerNorm(8, bias=False), pt.nn.LayerNorm(8, bias=False)),
        (nn.GELU(), pt.nn.GELU()),
        (nn.GELU("tanh"), pt.nn.GELU("tanh")),
        (nn.Softmax(-1), pt.nn.Softmax(-1)),
        (nn.Softmax2d(), pt.nn.Softmax2d()),  # over dim -3 (x is 3-D: unbatched)
    ]
    for ours, theirs in cases:
        with torch.no_grad():
            for p in ours.parameters():
                p.copy_(torch.randn(*p.shape))
        theirs.load_state_dict(
            {k: pt.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
        )
        np.testing.assert_allclose(
            ours(x).detach().numpy(), theirs(tx).detach().numpy(), rtol=1e-5, atol=1e-6
        )
    emb, temb = nn.Embedding(10, 4), pt.nn.Embedding(10, 4)
    temb.load_state_dict({"weight": pt.from_numpy(emb.weight.detach().numpy().copy())})
    idx = torch.tensor([[1, 9, 3]])
    np.testing.assert_array_equal(
        emb(idx).detach().numpy(), temb(pt.tensor([[1, 9, 3]])).detach().numpy()
    )


@pytest.mark.parametrize(
    "name", ["linear", "layer_norm", "gelu", "sequential", "prelu_per_channel", "elu", "hardswish"]
)
def test_layers_on_device_match_cpu(device: str, name: str) -> None:
    make, shape = LAYERS[name]
    torch.manual_seed(1)
    cpu_layer = make()
    torch.manual_seed(1)
    dev_layer = make().to(device)
    x = torch.randn(*shape)
    xd = x.to(device).requires_grad_(True)
    x.requires_grad_(True)
    y_cpu, y_dev = cpu_layer(x), dev_layer(xd)
    assert y_dev.device.type == device
    np.testing.assert_allclose(
        y_dev.detach().cpu().numpy(), y_cpu.detach().numpy(), rtol=1e-5, atol=1e-6
    )
    y_cpu.sum().backward()
    y_dev.sum().backward()
    np.testing.assert_allclose(xd.grad.cpu().numpy(), x.grad.numpy(), rtol=1e-5, atol=1e-5)
    for p_cpu, p_dev in zip(cpu_layer.parameters(), dev_layer.parameters()):
        np.testing.assert_allclose(
            p_dev.grad.cpu().numpy(), p_cpu.grad.numpy(), rtol=1e-5, atol=1e-5
        )


def test_embedding_on_device(device: str) -> None:
    torch.manual_seed(3)
    emb = nn.Embedding(7, 3).to(device)
    idx = torch.tensor([[0, 6], [6, 6]], device=device)
    out = emb(idx)
    assert out.device.type == device
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.cpu().numpy()[6], 3.0)


def test_embedding_errors() -> None:
    emb = nn.Embedding(4, 2)
    with pytest.raises(IndexError, match="out of range"):
        emb(torch.tensor([4]))
    with pytest.raises(RuntimeError, match=r"int64 \(long\) or int32"):
        emb(torch.tensor([1.0]))
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(4, 2, padding_idx=4)
    frozen = nn.Embedding.from_pretrained(torch.ones(3, 2))
    assert not frozen.weight.requires_grad


def test_functional_re_exports() -> None:
    F = nn.functional
    assert hasattr(F, "scaled_dot_product_attention")
    pt = pytest.importorskip("torch")
    top_level = {n for n in dir(torch) if not n.startswith("_")}
    wanted = {n for n in dir(pt.nn.functional) if not n.startswith("_")} & top_level
    missing = sorted(n for n in wanted if not hasattr(F, n))
    assert not missing, (
        f"microtorch has these ops but nn.functional does not re-export them: {missing}"
    )


def _activation_modules(nn_: object) -> list:
    """The activation modules that nn_ (microtorch.nn or torch.nn) makes, with every
    argument that changes their repr."""
    return [
        nn_.ReLU6(), nn_.ReLU6(inplace=True), nn_.Hardtanh(), nn_.Hardtanh(-2, 3.0, True),
        nn_.ELU(), nn_.ELU(0.5, inplace=True), nn_.SELU(), nn_.SELU(True), nn_.CELU(),
        nn_.CELU(2.0, True), nn_.Softsign(), nn_.LogSigmoid(), nn_.Mish(), nn_.Mish(True),
        nn_.Hardswish(), nn_.Hardswish(True), nn_.Hardsigmoid(), nn_.Hardsigmoid(True),
        nn_.GLU(), nn_.GLU(dim=0), nn_.Softmin(), nn_.Softmin(dim=1), nn_.Threshold(0.1, 20),
        nn_.Threshold(0.1, 20.0, inplace=True), nn_.Tanhshrink(), nn_.Softshrink(),
        nn_.Softshrink(1), nn_.Hardshrink(), nn_.Hardshrink(lambd=0.3), nn_.PReLU(),
        nn_.PReLU(3, 0.1), nn_.RReLU(), nn_.RReLU(0.1, 0.3, inplace=True),
    ]  # fmt: skip


def test_activation_modules_repr_as_pytorch() -> None:
    pt = pytest.importorskip("torch")
    ours = [repr(m) for m in _activation_modules(nn)]
    assert ours == [repr(m) for m in _activation_modules(pt.nn)]
    seq = nn.Sequential(nn.Linear(2, 4), nn.PReLU(4), nn.GLU())
    assert repr(seq) == repr(pt.nn.Sequential(pt.nn.Linear(2, 4), pt.nn.PReLU(4), pt.nn.GLU()))


def test_activation_modules_match_pytorch() -> None:
    """Forward and input gradient of each module (RReLU in eval mode) against PyTorch's, on
    inputs spread across -3.5..3.5 (both sides of every edge; the edges themselves are in
    test_functional_activations.py)."""
    pt = pytest.importorskip("torch")
    a = np.linspace(-3.5, 3.5, 48, dtype=np.float32).reshape(2, 3, 8)
    for ours, theirs in zip(_activation_modules(nn), _activation_modules(pt.nn)):
        if isinstance(ours, nn.Softmin) and ours.dim is None:
            ours.dim = theirs.dim = -1
        ours.eval(), theirs.eval()
        x, tx = torch.tensor(a, requires_grad=True), pt.tensor(a, requires_grad=True)
        y, ty = ours(x * 1), theirs(tx * 1)  # * 1: the inplace ones write into a copy
        np.testing.assert_allclose(
            y.detach().numpy(), ty.detach().numpy(), rtol=1e-6, atol=1e-7, err_msg=repr(ours)
        )
        weights = np.cos(np.arange(y.numel(), dtype=np.float32)).reshape(tuple(y.shape))
        (y * torch.tensor(weights)).sum().backward()
        (ty * pt.tensor(weights)).sum().backward()
        np.testing.assert_allclose(
            x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-7, err_msg=repr(ours)
        )


def test_prelu_state_dict_loads_pytorchs_weights() -> None:
    pt = pytest.importorskip("torch")
    theirs = pt.nn.PReLU(3)
    with pt.no_grad():
        theirs.weight.copy_(pt.tensor([0.1, -0.2, 0.7]))
    ours = nn.PReLU(3)
    assert list(ours.state_dict()) == ["weight"]
    assert tuple(ours.weight.shape) == (3,) and ours.weight.tolist() == [0.25] * 3
    ours.load_state_dict({k: torch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    a = np.random.default_rng(0).standard_normal((2, 3, 5)).astype(np.float32)
    x, tx = torch.tensor(a, requires_grad=True), pt.tensor(a, requires_grad=True)
    y, ty = ours(x), theirs(tx)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-5)
    with pytest.raises(RuntimeError, match="channel"):
        ours(torch.ones(2, 4))  # 4 channels, 3 slopes
    double = nn.PReLU(2, init=0.5, dtype=torch.float64)
    assert double.weight.dtype is torch.float64 and double.weight.tolist() == [0.5, 0.5]


def test_rrelu_module_random_in_training_fixed_in_eval() -> None:
    layer = nn.RReLU(0.1, 0.3)
    x = -torch.ones(1000)
    slopes = -layer(x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() < 0.3 and slopes.std() > 0.03
    assert not np.array_equal(slopes, -layer(x).numpy())  # new slopes on every call
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), -0.2, rtol=1e-6)
    layer.train()
    torch.manual_seed(4)
    first = layer(x).numpy()
    torch.manual_seed(4)
    np.testing.assert_array_equal(layer(x).numpy(), first)  # the seed decides them


def test_layer_norm_of_an_empty_batch_has_empty_gradients() -> None:
    """(0, 5) in, (0, 5) out; backward gives an empty input gradient and zero parameter
    gradients, as PyTorch does (the group size must come from the shape, not from
    counting elements, which are none)."""
    ln = nn.LayerNorm(5).double()
    x = torch.zeros(0, 5, dtype=torch.float64, requires_grad=True)
    ln(x).sum().backward()
    assert tuple(x.grad.shape) == (0, 5)
    np.testing.assert_array_equal(ln.weight.grad.numpy(), np.zeros(5))
    np.testing.assert_array_equal(ln.bias.grad.numpy(), np.zeros(5))


@pytest.mark.parametrize("in_features, out_features", [(0, 5), (4, 0)])
def test_linear_with_no_input_or_no_output_features(in_features: int,
                                                    out_features: int) -> None:  # fmt: skip
    """Linear(0, 5) gives zeros (just the bias) and Linear(4, 0) an empty output; backward
    gives gradients of the right shapes, as in PyTorch (bias gradient: the batch size)."""
    layer = nn.Linear(in_features, out_features)
    with torch.no_grad():
        layer.bias.zero_()
    x = torch.zeros(2, 3, in_features, requires_grad=True)
    y = layer(x)
    assert tuple(y.shape) == (2, 3, out_features)
    np.testing.assert_array_equal(y.detach().numpy(), np.zeros((2, 3, out_features)))
    y.sum().backward()
    assert tuple(x.grad.shape) == (2, 3, in_features)
    assert tuple(layer.weight.grad.shape) == (out_features, in_features)
    np.testing.assert_array_equal(layer.bias.grad.numpy(), np.full(out_features, 6.0))


def test_scaled_dot_product_attention_with_no_keys_gives_zeros() -> None:
    """Key length 0: every query sees nothing, so its output is 0 and so are the
    gradients, as in PyTorch (not a reduction over an empty row)."""
    q = torch.randn(2, 2, 3, 4, dtype=torch.float64, requires_grad=True)
    k = torch.randn(2, 2, 0, 4, dtype=torch.float64, requires_grad=True)
    v = torch.randn(2, 2, 0, 6, dtype=torch.float64, requires_grad=True)
    out = nn.functional.scaled_dot_product_attention(q, k, v)
    assert tuple(out.shape) == (2, 2, 3, 6)
    np.testing.assert_array_equal(out.detach().numpy(), np.zeros((2, 2, 3, 6)))
    out.sum().backward()
    np.testing.assert_array_equal(q.grad.numpy(), np.zeros((2, 2, 3, 4)))
    assert tuple(k.grad.shape) == (2, 2, 0, 4) and tuple(v.grad.shape) == (2, 2, 0, 6)


def test_embedding_max_norm_scales_the_used_rows_in_place(device: str) -> None:
    """max_norm: each row the input picks whose norm is above it is scaled down to it in
    the weight itself (PyTorch: max_norm / (norm + 1e-7)); other rows stay as they are."""
    emb = nn.Embedding(4, 2, max_norm=1.0).double().to(device)
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0], [0.0, 9.0]])
    with torch.no_grad():
        emb.weight.copy_(torch.tensor(table, device=device))
    out = emb(torch.tensor([[0, 1], [0, 3]], device=device))
    weight = emb.weight.detach().cpu().numpy()
    scaled = table[[0, 3]] / (np.linalg.norm(table[[0, 3]], axis=1, keepdims=True) + 1e-7)
    np.testing.assert_allclose(weight[[0, 3]], scaled, rtol=1e-12)
    np.testing.assert_array_equal(weight[[1, 2]], table[[1, 2]])
    np.testing.assert_allclose(out.detach().cpu().numpy()[1], scaled, rtol=1e-12)
    out.sum().backward()  # the renorm is not part of the graph: one gradient per use
    np.testing.assert_array_equal(emb.weight.grad.cpu().numpy()[:, 0], [2.0, 1.0, 0.0, 1.0])
    assert repr(emb) == "Embedding(4, 2, max_norm=1.0)"
    assert repr(nn.Embedding(4, 2, norm_type=1.0)) == "Embedding(4, 2, norm_type=1.0)"


def test_embedding_max_norm_matches_pytorch() -> None:
    pt = pytest.importorskip("torch")
    table = np.random.default_rng(0).standard_normal((6, 3)) * 2
    ids = np.array([[0, 2, 2], [5, 1, 0]])
    results = []
    for lib in (torch, pt):
        emb = lib.nn.Embedding(6, 3, padding_idx=1, max_norm=1.5, norm_type=1.0).double()
        with lib.no_grad():
            emb.weight.copy_(lib.tensor(table))
        out = emb(lib.tensor(ids))
        (out * lib.tensor(np.arange(18.0).reshape(2, 3, 3))).sum().backward()
        w = lib.tensor(table.copy())
        plain = lib.nn.functional.embedding(lib.tensor(ids), w, None, 1.0)  # positionally
        results.append([t.detach().numpy() for t in (out, emb.weight, emb.weight.grad, plain, w)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_embedding_scale_grad_by_freq_divides_each_rows_gradient_by_its_count(device: str) -> None:
    """scale_grad_by_freq: a row's gradient is the mean, not the sum, of its uses' gradients
    (in the batch passed to this call); unused rows and padding_idx get 0."""
    emb = nn.Embedding(5, 2, padding_idx=4, scale_grad_by_freq=True).double().to(device)
    ids = torch.tensor([[0, 2, 0], [4, 2, 2]], device=device)
    weights = torch.tensor(np.arange(12.0).reshape(2, 3, 2), device=device)
    (emb(ids) * weights).sum().backward()
    expected = [[(0 + 4) / 2, (1 + 5) / 2], [0, 0], [(2 + 8 + 10) / 3, (3 + 9 + 11) / 3], [0, 0],
                [0, 0]]  # fmt: skip
    np.testing.assert_allclose(emb.weight.grad.cpu().numpy(), expected, rtol=1e-15)
    assert repr(emb) == "Embedding(5, 2, padding_idx=4, scale_grad_by_freq=True)"
    with pytest.raises(ValueError, match="sparse=True is not supported"):
        nn.Embedding(5, 2, sparse=True)


def test_embedding_scale_grad_by_freq_matches_pytorch() -> None:
    pt = pytest.importorskip("torch")
    table = np.random.default_rng(1).standard_normal((6, 3))
    ids = np.array([[0, 2, 2, 5], [5, 1, 0, 2]])
    results = []
    for lib in (torch, pt):
        emb = lib.nn.Embedding.from_pretrained(lib.tensor(table), freeze=False, padding_idx=1,
                                               scale_grad_by_freq=True)  # fmt: skip
        out = emb(lib.tensor(ids))
        (out * lib.tensor(np.arange(24.0).reshape(2, 4, 3))).sum().backward()
        w = lib.tensor(table.astype(np.float32), requires_grad=True)
        plain = lib.nn.functional.embedding(lib.tensor(ids[0]), w, scale_grad_by_freq=True)
        plain.pow(2).sum().backward()
        results.append([t.detach().numpy() for t in (out, emb.weight.grad, w.grad)])
        assert w.grad.dtype == lib.float32
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-12)


def test_scaled_dot_product_attention_learned_float_mask_gets_a_gradient(device: str) -> None:
    """A float attn_mask that requires grad (a learned bias, e.g. of relative positions)
    works as in PyTorch and gets the gradient of softmax(q k^T * scale + mask) v; a row of
    -inf still gives 0 (ours used to refuse such a mask)."""
    rng = np.random.default_rng(0)
    q, k, v = (torch.tensor(rng.standard_normal(s), device=device, requires_grad=True)
               for s in ((2, 3, 4), (2, 5, 4), (2, 5, 6)))  # fmt: skip
    bias = rng.standard_normal((3, 5))
    bias[1] = -np.inf
    mask = torch.tensor(bias, device=device, requires_grad=True)
    out = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    w = torch.tensor(rng.standard_normal((2, 3, 6)), device=device)
    (out * w).sum().backward()
    a, b, c = (t.detach().cpu().numpy() for t in (q, k, v))
    scores = a @ b.transpose(0, 2, 1) / 2.0 + bias
    p = np.exp(scores - scores.max(-1, keepdims=True, initial=-1e300))
    total = p.sum(-1, keepdims=True)
    p = np.divide(p, total, out=np.zeros_like(p), where=total > 0)  # the -inf row: 0
    np.testing.assert_allclose(out.detach().cpu().numpy(), p @ c, rtol=1e-10, atol=1e-12)
    dp = w.cpu().numpy() @ c.transpose(0, 2, 1)
    d_scores = p * (dp - (dp * p).sum(-1, keepdims=True))
    np.testing.assert_allclose(mask.grad.cpu().numpy(), d_scores.sum(0), rtol=1e-9, atol=1e-12)


def test_softmax2d_and_leaky_relu_inplace_as_pytorch() -> None:
    pt = pytest.importorskip("torch")
    a = np.random.default_rng(4).standard_normal((2, 3, 4))
    assert repr(nn.Softmax2d()) == repr(pt.nn.Softmax2d()) == "Softmax2d()"
    for shape in [(3, 4), (1, 2, 3, 4, 5)]:
        with pytest.raises(ValueError, match="expected input to be 3D or 4D"):
            nn.Softmax2d()(torch.ones(*shape))
        with pytest.raises(ValueError, match="expected input to be 3D or 4D"):
            pt.nn.Softmax2d()(pt.ones(*shape))
    ours, theirs = torch.tensor(a), pt.tensor(a)
    assert nn.functional.leaky_relu_(ours, 0.2) is ours
    pt.nn.functional.leaky_relu_(theirs, 0.2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-15)


def test_unflatten_keeps_its_size_as_given_and_checks_it_as_pytorch() -> None:
    # a list stays a list in the repr (ours printed it as a tuple); bad sizes: TypeError
    assert repr(nn.Unflatten(1, [3, 1])) == "Unflatten(dim=1, unflattened_size=[3, 1])"
    assert repr(nn.Unflatten(-1, (2, 3))) == "Unflatten(dim=-1, unflattened_size=(2, 3))"
    assert tuple(nn.Unflatten(1, [3, 2])(torch.ones(4, 6)).shape) == (4, 3, 2)
    for size in [3, (3.0, 1)]:
        with pytest.raises(TypeError, match="unflattened_size must be"):
            nn.Unflatten(1, size)
    pt = pytest.importorskip("torch")
    assert repr(nn.Unflatten(1, [3, 1])) == repr(pt.nn.Unflatten(1, [3, 1]))
    for size in [3, (3.0, 1)]:
        with pytest.raises(TypeError, match="unflattened_size must be"):
            pt.nn.Unflatten(1, size)
