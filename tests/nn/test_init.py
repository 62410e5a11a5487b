"""Initialisation: the statistics PyTorch documents for each default, and nn.init."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn

from ..torch_reference import torch_before


def test_linear_default_init_is_uniform_one_over_sqrt_fan_in() -> None:
    layer = nn.Linear(256, 512)
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    bound = 1 / math.sqrt(256)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.99 * bound  # really reaches out to the bound
    # U(-a, a): mean 0, variance a^2 / 3
    assert abs(w.mean()) < 0.01 * bound
    assert w.var() == pytest.approx(bound**2 / 3, rel=0.02)
    assert b.var() == pytest.approx(bound**2 / 3, rel=0.2)


def test_embedding_and_layer_norm_defaults() -> None:
    w = nn.Embedding(300, 200).weight.detach().numpy()
    assert abs(w.mean()) < 0.01
    assert w.std() == pytest.approx(1.0, rel=0.01)
    ln = nn.LayerNorm(7)
    np.testing.assert_array_equal(ln.weight.detach().numpy(), np.ones(7, np.float32))
    np.testing.assert_array_equal(ln.bias.detach().numpy(), np.zeros(7, np.float32))


def test_init_functions_statistics() -> None:
    t = torch.empty(400, 300)
    nn.init.normal_(t, mean=1.0, std=0.02)
    assert t.numpy().mean() == pytest.approx(1.0, abs=1e-3)
    assert t.numpy().std() == pytest.approx(0.02, rel=0.01)
    nn.init.uniform_(t, -2.0, 3.0)
    assert t.numpy().min() >= -2.0 and t.numpy().max() < 3.0
    assert t.numpy().mean() == pytest.approx(0.5, abs=0.02)
    nn.init.xavier_uniform_(t)
    bound = math.sqrt(6 / (400 + 300))
    assert np.abs(t.numpy()).max() <= bound
    assert t.numpy().var() == pytest.approx(bound**2 / 3, rel=0.02)
    nn.init.kaiming_uniform_(t, nonlinearity="relu")
    bound = math.sqrt(2) * math.sqrt(3 / 300)
    assert np.abs(t.numpy()).max() <= bound
    assert t.numpy().var() == pytest.approx(bound**2 / 3, rel=0.02)
    nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    assert t.numpy().std() == pytest.approx(math.sqrt(2 / 400), rel=0.02)
    nn.init.xavier_normal_(t, gain=2.0)
    assert t.numpy().std() == pytest.approx(2 * math.sqrt(2 / 700), rel=0.02)
    nn.init.trunc_normal_(t, std=1.0, a=-0.5, b=0.5)
    assert t.numpy().min() >= -0.5 and t.numpy().max() <= 0.5
    nn.init.zeros_(t)
    assert not t.numpy().any()
    nn.init.ones_(t)
    assert (t.numpy() == 1).all()
    nn.init.constant_(t, 0.25)
    assert (t.numpy() == 0.25).all()


def test_calculate_gain() -> None:
    assert nn.init.calculate_gain("linear") == 1.0
    for name in ("linear", "conv2d", "conv_transpose1d", "sigmoid"):  # PyTorch's int 1
        assert type(nn.init.calculate_gain(name)) is int
    assert type(nn.init.calculate_gain("tanh")) is float
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert nn.init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert nn.init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    with pytest.raises(ValueError, match="unsupported nonlinearity"):
        nn.init.calculate_gain("swish")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(torch.empty(3))


def test_init_is_in_place_without_a_graph_and_counts_versions() -> None:
    p = nn.Parameter(torch.zeros(3, 4))
    before = p._version_counter.value
    out = nn.init.normal_(p, std=0.02)
    assert out is p and p.grad_fn is None and p.requires_grad
    assert p._version_counter.value > before
    with pytest.raises(NotImplementedError, match="floating point"):  # as in PyTorch
        nn.init.normal_(torch.zeros(3, dtype=torch.long))


def test_seeded_init_is_identical_on_every_device(device: str) -> None:
    torch.manual_seed(123)
    cpu = nn.Linear(5, 4)
    torch.manual_seed(123)
    dev = nn.Linear(5, 4, device=device)
    assert dev.weight.device.type == device
    np.testing.assert_array_equal(dev.weight.detach().cpu().numpy(), cpu.weight.detach().numpy())
    np.testing.assert_array_equal(dev.bias.detach().cpu().numpy(), cpu.bias.detach().numpy())


def test_init_dtype_argument() -> None:
    layer = nn.Linear(3, 2, dtype=torch.float64)
    assert layer.weight.dtype is torch.float64 and layer.bias.dtype is torch.float64


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 2), (5, 5)])
def test_orthogonal_rows_or_columns_are_orthonormal_times_gain(shape: tuple, device: str) -> None:
    w = nn.init.orthogonal_(torch.empty(*shape, device=device), gain=2.0)
    q = w.cpu().numpy().reshape(shape[0], -1)
    gram = q @ q.T if q.shape[0] <= q.shape[1] else q.T @ q  # the fewer of rows and columns
    np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-5)
    torch.manual_seed(3)
    again = nn.init.orthogonal_(torch.empty(*shape))
    torch.manual_seed(3)
    np.testing.assert_array_equal(again.numpy(), nn.init.orthogonal_(torch.empty(*shape)).numpy())


def test_eye_and_the_errors_of_matrix_inits() -> None:
    assert nn.init.eye_(torch.empty(2, 3)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    with pytest.raises(ValueError, match=r"orthogonal_: needs 2 or more dims, got shape \(3,\)"):
        nn.init.orthogonal_(torch.empty(3))
    with pytest.raises(ValueError, match=r"eye_: only 2-D tensors"):
        nn.init.eye_(torch.empty(2, 2, 2))


def test_orthogonal_is_the_sign_fixed_q_of_the_seeded_normal_matrix() -> None:
    # PyTorch's recipe: QR of a normal (rows, cols) matrix (transposed when wide), Q's columns
    # multiplied by the signs of R's diagonal; the normal numbers come from the host generator
    for shape in [(5, 3), (3, 5)]:
        torch.manual_seed(11)
        w = nn.init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=1.5).numpy()
        sample = np.random.Generator(np.random.PCG64(11)).normal(0.0, 1.0, size=shape)
        wide = shape[0] < shape[1]
        q, r = np.linalg.qr(sample.T if wide else sample)
        fixed = q * np.sign(np.diag(r))
        np.testing.assert_allclose(w, 1.5 * (fixed.T if wide else fixed), atol=1e-12)
        assert not np.allclose(w, 1.5 * (q.T if wide else q))  # the sign fix changed it


@pytest.mark.parametrize("shape, groups", [((4, 2, 3), 2), ((6, 6, 3, 3), 3), ((3, 5, 2, 2, 3), 1)])
def test_dirac_matches_pytorch(shape: tuple, groups: int, device: str) -> None:
    pt = pytest.importorskip("torch")
    w = nn.init.dirac_(torch.randn(*shape, device=device), groups=groups)
    expected = pt.nn.init.dirac_(pt.randn(*shape), groups=groups).numpy()
    np.testing.assert_array_equal(w.cpu().numpy(), expected)
    assert w.device.type == device


def test_dirac_keeps_a_conv_input_as_it_is_and_its_errors() -> None:
    w = nn.init.dirac_(torch.empty(3, 3, 3))
    x = np.random.randn(3, 7)
    # the identity 1-D convolution (padding 1): out[o, t] = sum_i,k w[o, i, k] x[i, t + k - 1]
    padded = np.pad(x, ((0, 0), (1, 1)))
    out = sum(np.einsum("oi,it->ot", w.numpy()[:, :, k], padded[:, k : k + 7]) for k in range(3))
    np.testing.assert_allclose(out, x)
    assert nn.init.dirac_(torch.empty(2, 2, 1, dtype=torch.int64)).tolist() == [
        [[1], [0]],
        [[0], [1]],
    ]
    with pytest.raises(ValueError, match="3, 4, or 5 dimensions"):
        nn.init.dirac_(torch.empty(3, 3))
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.init.dirac_(torch.empty(4, 3, 3), groups=3)


def test_sparse_zeros_the_same_number_of_entries_in_every_column() -> None:
    t = nn.init.sparse_(torch.empty(200, 30), sparsity=0.1, std=0.5)
    w = t.numpy()
    np.testing.assert_array_equal((w == 0).sum(0), math.ceil(0.1 * 200))  # 20 per column
    assert w[w != 0].std() == pytest.approx(0.5, rel=0.05)
    torch.manual_seed(7)
    a = nn.init.sparse_(torch.empty(10, 4), 0.35).numpy()
    torch.manual_seed(7)
    np.testing.assert_array_equal(a, nn.init.sparse_(torch.empty(10, 4), 0.35).numpy())
    assert ((a == 0).sum(0) == 4).all()  # ceil(0.35 * 10)
    with pytest.raises(ValueError, match="2 dimensions"):
        nn.init.sparse_(torch.empty(4, 3, 3), 0.1)
    with pytest.raises(NotImplementedError, match="floating point"):
        nn.init.sparse_(torch.empty(4, 3, dtype=torch.int64), 0.1)


DEPRECATED_INITS = [
    ("uniform", (-1.0, 1.0)),
    ("normal", (0.0, 0.1)),
    ("constant", (0.5,)),
    ("eye", ()),
    ("xavier_uniform", ()),
    ("xavier_normal", ()),
    ("kaiming_uniform", ()),
    ("kaiming_normal", ()),
    ("orthogonal", ()),
    ("sparse", (0.5,)),
]


@pytest.mark.parametrize("name, args", DEPRECATED_INITS)
def test_deprecated_names_warn_as_pytorch_and_do_what_the_underscore_name_does(
    name: str, args: tuple
) -> None:
    with pytest.warns(FutureWarning) as record:
        torch.manual_seed(1)
        old = getattr(nn.init, name)(torch.empty(4, 3), *args)
    assert (
        str(record[0].message)
        == f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."
    )
    assert record[0].filename == __file__  # reported at the caller's line
    torch.manual_seed(1)
    new = getattr(nn.init, name + "_")(torch.empty(4, 3), *args)
    np.testing.assert_array_equal(old.numpy(), new.numpy())


def test_deprecated_dirac_and_the_message_pytorch_gives() -> None:
    pt = pytest.importorskip("torch")
    with pytest.warns(FutureWarning) as ours:
        w = nn.init.dirac(torch.empty(2, 2, 3))
    with pytest.warns(FutureWarning) as theirs:
        pt.nn.init.dirac(pt.empty(2, 2, 3))
    assert str(ours[0].message) == str(theirs[0].message)
    assert w.tolist() == nn.init.dirac_(torch.empty(2, 2, 3)).tolist()


INTEGER_INITS = [
    ("constant_", (2.7,)),  # truncated to 2
    ("zeros_", ()),
    ("ones_", ()),
    ("eye_", ()),
    ("dirac_", ()),
    ("uniform_", ()),
    ("normal_", ()),
    ("trunc_normal_", ()),
    ("xavier_uniform_", ()),
    ("kaiming_normal_", ()),
    ("orthogonal_", ()),
    ("sparse_", (0.5,)),
]


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("name, args", INTEGER_INITS)
def test_integer_and_bool_tensors_as_in_pytorch(name: str, args: tuple, dtype: str) -> None:
    """The fills write any dtype; the random draws raise NotImplementedError."""
    pt = pytest.importorskip("torch")
    shape = (4, 3, 3) if name == "dirac_" else (4, 3)
    outcomes = []
    for lib in (torch, pt):
        t = lib.full(shape, 5, dtype=getattr(lib, dtype))
        try:
            getattr(lib.nn.init, name)(t, *args)
        except Exception as e:  # noqa: BLE001 - the error type is what is compared
            outcomes.append(type(e).__name__)
        else:
            outcomes.append(t.numpy().tolist())
    assert outcomes[0] == outcomes[1]


def _truncated_normal_mean(a: float, b: float) -> float:
    """The mean of N(0, 1) restricted to [a, b]: (pdf(a) - pdf(b)) / (cdf(b) - cdf(a))."""
    if b < 0:  # the mirror image of [-b, -a], where erfc does not round away the mass
        return -_truncated_normal_mean(-b, -a)
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    mass = (math.erfc(a / math.sqrt(2)) - math.erfc(b / math.sqrt(2))) / 2
    return (pdf(a) - pdf(b)) / mass


@pytest.mark.parametrize("a, b", [(5.0, 6.0), (10.0, 11.0), (-8.0, -7.0), (-0.1, 0.1), (-0.5, 3.0)])
def test_trunc_normal_far_in_a_tail_or_narrow_finishes_and_is_right(a: float, b: float) -> None:
    # drawing normals again until they land in [5, 6] takes ~3.5 million draws each: ours
    # never finished; PyTorch draws uniformly on [a, b] and keeps x with pdf(x) / pdf(peak)
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = nn.init.trunc_normal_(torch.empty(20000, dtype=torch.float64), 0.0, 1.0, a, b)
    far = any("more than 2 std from [a, b]" in str(w.message) for w in caught)
    assert far == (a > 2 or b < -2)  # PyTorch's warning
    values = t.numpy()
    assert values.min() >= a and values.max() <= b
    assert values.mean() == pytest.approx(_truncated_normal_mean(a, b), abs=0.01)
    pt = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pt.nn.init.trunc_normal_(pt.empty(20000, dtype=pt.float64), 0.0, 1.0, a, b)
    if not torch_before((2, 13)):  # (2.11's trunc_normal_ put every draw on a, far in a tail)
        assert values.std() == pytest.approx(theirs.numpy().std(), rel=0.05)


BAD_RANDOM_ARGUMENTS = [
    lambda T: T.nn.init.uniform_(T.empty(3), 2.0, 1.0),  # NumPy's ValueError here before
    lambda T: T.nn.init.normal_(T.empty(3), 0.0, -1.0),
    lambda T: T.nn.init.trunc_normal_(T.empty(3), 0.0, 1.0, 2.0, 1.0),
    lambda T: T.nn.init.uniform_(T.empty(3), float("inf"), float("inf")),  # OverflowError
    lambda T: T.empty(3).uniform_(2.0, 1.0),
    lambda T: T.empty(3).normal_(0.0, -1.0),
]


@pytest.mark.parametrize("call", BAD_RANDOM_ARGUMENTS)
def test_bad_random_fill_arguments_raise_runtime_error_as_pytorch(call: object) -> None:
    with pytest.raises(RuntimeError):
        call(torch)
    pt = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        call(pt)


def test_trunc_normal_with_a_equal_to_b_fills_with_a() -> None:
    assert nn.init.trunc_normal_(torch.empty(4), 0.0, 1.0, 0.5, 0.5).tolist() == [0.5] * 4
