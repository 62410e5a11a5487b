"""nn.RNN / LSTM / GRU, their cells, and nn.utils.rnn: against PyTorch given the same
weights (outputs, final states, every parameter's gradient), parameter names, repr,
seeded init, argument errors, packed sequences, and a float64 gradcheck."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch import nn
from microtorch.autograd.gradcheck import gradcheck
from microtorch.nn.utils import rnn as rnn_utils

F64 = microtorch.float64


def _np(t):
    return t.detach().cpu().numpy()


def _pair(pt, name: str, *args, device: str = "cpu", **kwargs):
    """The same module in PyTorch and in microtorch (float64), PyTorch's weights copied in."""
    theirs = getattr(pt.nn, name)(*args, **kwargs).double()
    ours = getattr(nn, name)(*args, **kwargs, dtype=F64)
    ours.load_state_dict(
        {k: microtorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    )
    return ours.to(device), theirs


def _flat(x):
    """The tensors of a result: output, h_n or (h_n, c_n), nested tuples flattened."""
    if isinstance(x, (tuple, list)):
        return [t for item in x for t in _flat(item)]
    return [x]


def _assert_same(ours, theirs, ours_out, theirs_out, rtol: float = 1e-9) -> None:
    """Equal outputs, and equal gradients of every parameter after the same backward."""
    ours_flat, theirs_flat = _flat(ours_out), _flat(theirs_out)
    assert len(ours_flat) == len(theirs_flat)
    for a, b in zip(ours_flat, theirs_flat):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=rtol, atol=1e-12)
    # a loss that weighs every element differently, so any misplaced value shows
    ours_loss = sum(((a * a).sum() + a.sum() * (k + 1)) for k, a in enumerate(ours_flat))
    theirs_loss = sum(((b * b).sum() + b.sum() * (k + 1)) for k, b in enumerate(theirs_flat))
    ours_loss.backward()
    theirs_loss.backward()
    ours_params = dict(ours.named_parameters())
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(
            _np(ours_params[name].grad), p.grad.numpy(), rtol=1e-8, atol=1e-11, err_msg=name
        )


LAYER_CASES = [
    ("RNN", dict()),
    ("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True)),
    ("RNN", dict(bias=False, batch_first=True, num_layers=2)),
    ("LSTM", dict()),
    ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(bias=False, num_layers=3)),
    ("LSTM", dict(proj_size=2, num_layers=2, bidirectional=True)),
    ("GRU", dict()),
    ("GRU", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(bias=False, batch_first=True, bidirectional=True)),
]


def _h0(pt, name: str, kwargs: dict, batch: int | None, hidden: int):
    """Random initial states in PyTorch's shapes ((L * D, [B,] H) and, for LSTM, c0)."""
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    lead = (layers,) if batch is None else (layers, batch)
    h = pt.randn(*lead, kwargs.get("proj_size", 0) or hidden, dtype=pt.float64)
    if name != "LSTM":
        return h
    return h, pt.randn(*lead, hidden, dtype=pt.float64)


def _to_ours(x, device: str):
    if isinstance(x, tuple):
        return tuple(_to_ours(t, device) for t in x)
    return microtorch.tensor(x.numpy(), device=device)


@pytest.mark.parametrize("name,kwargs", LAYER_CASES)
@pytest.mark.parametrize("with_h0", [False, True])
def test_layers_match_pytorch(name: str, kwargs: dict, with_h0: bool, device: str) -> None:
    pt = pytest.importorskip("torch")
    pt.manual_seed(0)
    ours, theirs = _pair(pt, name, 3, 4, **kwargs, device=device)
    T, B = 5, 2
    x = pt.randn(*((B, T) if kwargs.get("batch_first") else (T, B)), 3, dtype=pt.float64)
    h0 = _h0(pt, name, kwargs, B, 4) if with_h0 else None
    ours_out = ours(_to_ours(x, device), None if h0 is None else _to_ours(h0, device))
    theirs_out = theirs(x, h0)
    _assert_same(ours, theirs, ours_out, theirs_out)


@pytest.mark.parametrize("name,kwargs", LAYER_CASES[1::3])
@pytest.mark.parametrize("with_h0", [False, True])
def test_unbatched_layers_match_pytorch(name: str, kwargs: dict, with_h0: bool,
                                        device: str) -> None:  # fmt: skip
    pt = pytest.importorskip("torch")
    pt.manual_seed(1)
    ours, theirs = _pair(pt, name, 3, 4, **kwargs, device=device)
    x = pt.randn(6, 3, dtype=pt.float64)  # (T, input): batch_first does not apply
    h0 = _h0(pt, name, kwargs, None, 4) if with_h0 else None
    ours_out = ours(_to_ours(x, device), None if h0 is None else _to_ours(h0, device))
    _assert_same(ours, theirs, ours_out, theirs(x, h0))


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("RNNCell", dict()),
        ("RNNCell", dict(nonlinearity="relu", bias=False)),
        ("LSTMCell", dict()),
        ("LSTMCell", dict(bias=False)),
        ("GRUCell", dict()),
        ("GRUCell", dict(bias=False)),
    ],  # fmt: skip
)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_hx", [False, True])
def test_cells_match_pytorch(name: str, kwargs: dict, batched: bool, with_hx: bool,
                             device: str) -> None:  # fmt: skip
    pt = pytest.importorskip("torch")
    pt.manual_seed(2)
    ours, theirs = _pair(pt, name, 3, 5, **kwargs, device=device)
    lead = (4,) if batched else ()
    x = pt.randn(*lead, 3, dtype=pt.float64)
    hx = None
    if with_hx:
        hx = pt.randn(*lead, 5, dtype=pt.float64)
        if name == "LSTMCell":
            hx = (hx, pt.randn(*lead, 5, dtype=pt.float64))
    ours_out = ours(_to_ours(x, device), None if hx is None else _to_ours(hx, device))
    _assert_same(ours, theirs, ours_out, theirs(x, hx))


def test_a_cell_unrolled_equals_the_one_layer_module(device: str) -> None:
    """LSTMCell stepped by hand gives nn.LSTM's output (same weights, renamed)."""
    lstm = nn.LSTM(3, 4, dtype=F64).to(device)
    cell = nn.LSTMCell(3, 4, dtype=F64).to(device)
    cell.load_state_dict({k[: -len("_l0")]: v for k, v in lstm.state_dict().items()})
    x = microtorch.randn(5, 2, 3, dtype=F64, device=device)
    out, (h_n, c_n) = lstm(x)
    h = c = microtorch.zeros(2, 4, dtype=F64, device=device)
    for t in range(5):
        h, c = cell(x[t], (h, c))
        np.testing.assert_allclose(_np(out[t]), _np(h), rtol=1e-12)
    np.testing.assert_allclose(_np(h_n[0]), _np(h), rtol=1e-12)
    np.testing.assert_allclose(_np(c_n[0]), _np(c), rtol=1e-12)


def test_state_dict_keys_and_repr_are_pytorchs() -> None:
    pt = pytest.importorskip("torch")
    cases = [
        ("RNN", (3, 4), dict(nonlinearity="relu", num_layers=2, bidirectional=True)),
        ("LSTM", (10, 20), dict(num_layers=2, batch_first=True, dropout=0.1, bidirectional=True)),
        ("LSTM", (3, 4), dict(proj_size=2, num_layers=2, bidirectional=True, bias=False)),
        ("GRU", (3, 4), dict(bias=False)),
        ("RNNCell", (3, 4), dict(nonlinearity="relu")),
        ("LSTMCell", (3, 4), dict(bias=False)),
        ("GRUCell", (3, 4), dict()),
    ]
    for name, args, kwargs in cases:
        theirs = getattr(pt.nn, name)(*args, **kwargs)
        ours = getattr(nn, name)(*args, **kwargs)
        assert list(ours.state_dict()) == list(theirs.state_dict()), name
        for k, v in theirs.state_dict().items():
            assert tuple(ours.state_dict()[k].shape) == tuple(v.shape), (name, k)
        assert repr(ours) == repr(theirs)
    lstm, pt_lstm = nn.LSTM(3, 4, 2), pt.nn.LSTM(3, 4, 2)
    assert [[tuple(p.shape) for p in ws] for ws in lstm.all_weights] == [
        [tuple(p.shape) for p in ws] for ws in pt_lstm.all_weights
    ]
    assert lstm.all_weights[1][0] is lstm.weight_ih_l1
    lstm.flatten_parameters()  # accepted, does nothing


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"])
def test_seeded_init_in_range(name: str) -> None:
    microtorch.manual_seed(5)
    m = getattr(nn, name)(3, 16)
    microtorch.manual_seed(5)
    again = getattr(nn, name)(3, 16)
    bound = 1 / 4  # 1 / sqrt(hidden_size)
    for (k, p), q in zip(m.named_parameters(), again.parameters()):
        values = _np(p)
        assert np.abs(values).max() <= bound, k
        assert np.abs(values).max() > 0.8 * bound, k  # drawn from the whole range
        np.testing.assert_array_equal(values, _np(q))
        assert p.dtype is microtorch.float32


def test_dropout_between_layers_only_while_training() -> None:
    pt = pytest.importorskip("torch")
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.5)
    ours, theirs = _pair(pt, "LSTM", 3, 4, num_layers=2, dropout=0.5)
    ours.eval()
    theirs.eval()
    x = pt.randn(5, 2, 3, dtype=pt.float64)
    _assert_same(ours, theirs, ours(_to_ours(x, "cpu")), theirs(x))
    ours.train()
    mx = _to_ours(x, "cpu")
    microtorch.manual_seed(3)
    first = _np(ours(mx)[0])
    microtorch.manual_seed(3)
    second = _np(ours(mx)[0])
    np.testing.assert_array_equal(first, second)  # drawn from the seeded generator
    assert not np.allclose(first, _np(ours.eval()(mx)[0]))


def test_gradcheck_small_lstm_and_gru() -> None:
    """Backprop through time, in float64, against finite differences: input, h0, c0 and
    every weight."""
    x = microtorch.randn(3, 2, 2, dtype=F64, requires_grad=True)
    h0 = microtorch.randn(4, 2, 3, dtype=F64, requires_grad=True)
    c0 = microtorch.randn(4, 2, 3, dtype=F64, requires_grad=True)
    lstm = nn.LSTM(2, 3, num_layers=2, bidirectional=True, dtype=F64)

    def run_lstm(x, h0, c0, *weights):
        out, (h_n, c_n) = lstm(x, (h0, c0))
        return out.sum() + (h_n * h_n).sum() + (c_n * c_n).sum()

    assert gradcheck(run_lstm, [x, h0, c0, *lstm.parameters()])
    gru = nn.GRU(2, 3, num_layers=2, bidirectional=True, dtype=F64)

    def run_gru(x, h0, *weights):
        out, h_n = gru(x, h0)
        return (out * out).sum() + h_n.sum()

    assert gradcheck(run_gru, [x, h0, *gru.parameters()])


def test_gradcheck_catches_a_wrong_gate_order() -> None:
    """The parity tests can fail: swapping LSTM's f and i gates changes the output."""
    pt = pytest.importorskip("torch")
    ours, theirs = _pair(pt, "LSTM", 3, 4)
    with microtorch.no_grad():
        w = ours.weight_ih_l0
        w.copy_(microtorch.cat([w[4:8], w[0:4], w[8:]], 0))
    x = pt.randn(5, 2, 3, dtype=pt.float64)
    with pytest.raises(AssertionError):
        _assert_same(ours, theirs, ours(_to_ours(x, "cpu")), theirs(x))


def test_errors_name_the_problem() -> None:
    lstm, gru = nn.LSTM(3, 4, 2), nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match="Expected 3, got 7"):
        lstm(microtorch.randn(5, 2, 7))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D"):
        lstm(microtorch.randn(5, 2, 3, 1))
    with pytest.raises(RuntimeError, match=r"hidden\[0\] size \(2, 2, 4\), got \[2, 3, 4\]"):
        lstm(microtorch.randn(5, 2, 3), (microtorch.zeros(2, 3, 4), microtorch.zeros(2, 2, 4)))
    with pytest.raises(RuntimeError, match=r"hidden\[1\] size"):
        lstm(microtorch.randn(5, 2, 3), (microtorch.zeros(2, 2, 4), microtorch.zeros(2, 3, 4)))
    with pytest.raises(RuntimeError, match="unbatched 2-D input, hx should also be 2-D"):
        lstm(microtorch.randn(5, 3), (microtorch.zeros(2, 1, 4), microtorch.zeros(2, 1, 4)))
    with pytest.raises(TypeError, match=r"hx must be a tuple \(h_0, c_0\)"):
        nn.LSTM(3, 4, bidirectional=True)(microtorch.randn(5, 2, 3), microtorch.zeros(2, 2, 4))
    with pytest.raises(TypeError, match="hx must be a Tensor"):
        gru(microtorch.randn(5, 2, 3), (microtorch.zeros(1, 2, 4),))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        gru(microtorch.randn(5, 2, 3), microtorch.zeros(1, 3, 4))
    with pytest.raises(RuntimeError, match="not the same dtype"):
        gru(microtorch.randn(5, 2, 3), microtorch.zeros(1, 2, 4, dtype=F64))
    with pytest.raises(ValueError, match="input dtype .*float64.* does not match weight dtype"):
        gru(microtorch.randn(5, 2, 3, dtype=F64))
    with pytest.raises(ValueError, match="input dtype .*int64"):
        gru(microtorch.ones(5, 2, 3, dtype=microtorch.int64))
    with pytest.raises(RuntimeError, match="sequence length"):
        gru(microtorch.randn(0, 2, 3))
    with pytest.raises(ValueError, match="Expected input to be 1D or 2D, got 3D"):
        nn.LSTMCell(3, 4)(microtorch.randn(2, 2, 3))
    with pytest.raises(RuntimeError, match="inconsistent input_size: got 5 expected 3"):
        nn.GRUCell(3, 4)(microtorch.randn(2, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch"):
        nn.RNNCell(3, 4)(microtorch.randn(2, 3), microtorch.zeros(3, 4))
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.RNNBase("GRU", 3, 4, proj_size=2)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.LSTM(3, 0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.LSTM(3, 4, num_layers=0)


@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_layer_arguments_of_the_wrong_type_or_size_raise_as_in_pytorch(lib_name: str) -> None:
    """PyTorch's ModuleInfo error samples: bias and batch_first must be bools (TypeError),
    input_size at least 1 (ValueError); before, bias=0 or input_size=0 built a module."""
    lib = microtorch if lib_name == "microtorch" else pytest.importorskip("torch")
    for cls in (lib.nn.RNN, lib.nn.LSTM, lib.nn.GRU):
        for kwargs, error in (
            (dict(bias=0), "bias should be of type bool, got: int"),
            (dict(bias="True"), "bias should be of type bool, got: str"),
            (dict(batch_first=1), "batch_first should be of type bool, got: int"),
        ):
            with pytest.raises(TypeError, match=error):
                cls(3, 5, **kwargs)
        for input_size in (0, -1):
            with pytest.raises(ValueError, match="input_size must be greater than zero"):
                cls(input_size, 5)


@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_cell_state_of_more_than_two_dims_is_a_value_error(lib_name: str) -> None:
    """As PyTorch: a 3-D or 4-D hidden state given to a cell is a ValueError naming it
    (hidden, or hx[0] / hx[1] for LSTMCell); before, a RuntimeError."""
    lib = microtorch if lib_name == "microtorch" else pytest.importorskip("torch")
    x, h, bad = lib.ones(3, 10), lib.zeros(3, 20), lib.zeros(3, 1, 1, 20)
    for cls in ("RNNCell", "GRUCell"):
        with pytest.raises(ValueError, match=f"{cls}: Expected hidden to be 1D or 2D, got 4D"):
            getattr(lib.nn, cls)(10, 20)(x, bad)
    cell = lib.nn.LSTMCell(10, 20)
    with pytest.raises(ValueError, match=r"LSTMCell: Expected hx\[0\] to be 1D or 2D, got 4D"):
        cell(x, (bad, h))
    with pytest.raises(ValueError, match=r"LSTMCell: Expected hx\[1\] to be 1D or 2D, got 4D"):
        cell(x, (h, bad))


def test_float32_stays_float32(device: str) -> None:
    for module in (nn.LSTM(3, 4, proj_size=2), nn.GRU(3, 4, bidirectional=True), nn.RNN(3, 4)):
        out, h_n = module.to(device)(microtorch.randn(5, 2, 3, device=device))
        assert out.dtype is microtorch.float32
        assert all(t.dtype is microtorch.float32 for t in _flat(h_n))
        out.sum().backward()
        assert all(p.grad.dtype is microtorch.float32 for p in module.parameters())
    h, c = nn.LSTMCell(3, 4).to(device)(microtorch.randn(3, device=device))
    assert h.shape == c.shape == (4,) and h.dtype is microtorch.float32


def test_empty_batch_gives_empty_outputs() -> None:
    out, (h_n, c_n) = nn.LSTM(3, 4, bidirectional=True)(microtorch.randn(5, 0, 3))
    assert out.shape == (5, 0, 8) and h_n.shape == (2, 0, 4) and c_n.shape == (2, 0, 4)


# ------------------------------------------------------------------ nn.utils.rnn
def test_pad_sequence_matches_pytorch() -> None:
    pt = pytest.importorskip("torch")
    seqs = [pt.randn(n, 2, dtype=pt.float64) for n in (3, 5, 1)]
    ours_seqs = [_to_ours(s, "cpu").requires_grad_() for s in seqs]
    for kwargs in (dict(), dict(batch_first=True, padding_value=-1.5),
                   dict(padding_side="left", padding_value=2.0)):  # fmt: skip
        ours = rnn_utils.pad_sequence(ours_seqs, **kwargs)
        np.testing.assert_array_equal(_np(ours), pt.nn.utils.rnn.pad_sequence(seqs, **kwargs))
    ours.sum().backward()
    assert all((_np(s.grad) == 1).all() for s in ours_seqs)
    with pytest.raises(RuntimeError, match="padding_side"):  # PyTorch's error type
        rnn_utils.pad_sequence(ours_seqs, padding_side="middle")
    with pytest.raises(RuntimeError, match="padding_side"):
        pt.nn.utils.rnn.pad_sequence(seqs, padding_side="middle")
    with pytest.raises(RuntimeError, match="Cannot pack empty tensors"):
        rnn_utils.pack_padded_sequence(microtorch.zeros(5, 0, 2), [])  # ValueError before
    with pytest.raises(RuntimeError, match="Cannot pack empty tensors"):
        pt.nn.utils.rnn.pack_padded_sequence(pt.zeros(5, 0, 2), [])
    with pytest.raises(RuntimeError, match="empty list"):
        rnn_utils.pad_sequence([])
    with pytest.raises(RuntimeError, match="same trailing dims"):
        rnn_utils.pad_sequence([microtorch.zeros(2, 3), microtorch.zeros(2, 4)])


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_pad_packed_match_pytorch(enforce_sorted: bool, batch_first: bool,
                                           device: str) -> None:  # fmt: skip
    pt = pytest.importorskip("torch")
    R = pt.nn.utils.rnn
    lengths = [4, 3, 3, 1] if enforce_sorted else [1, 3, 2, 4, 3, 1]
    x = pt.randn(*((len(lengths), 4) if batch_first else (4, len(lengths))), 2)
    ours = rnn_utils.pack_padded_sequence(
        _to_ours(x, device), lengths, batch_first=batch_first, enforce_sorted=enforce_sorted
    )
    theirs = R.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                    enforce_sorted=enforce_sorted)  # fmt: skip
    assert isinstance(ours, rnn_utils.PackedSequence)
    np.testing.assert_array_equal(_np(ours.data), theirs.data.numpy())
    assert ours.batch_sizes.tolist() == theirs.batch_sizes.tolist()
    assert ours.batch_sizes.device.type == "cpu" and ours.batch_sizes.dtype is microtorch.int64
    for a, b in ((ours.sorted_indices, theirs.sorted_indices),
                 (ours.unsorted_indices, theirs.unsorted_indices)):  # fmt: skip
        assert (a is None and b is None) or a.tolist() == b.tolist()
    padded, lens = rnn_utils.pad_packed_sequence(
        ours, batch_first=batch_first, padding_value=-1.0, total_length=6
    )
    their_padded, their_lens = R.pad_packed_sequence(
        theirs, batch_first=batch_first, padding_value=-1.0, total_length=6
    )
    np.testing.assert_array_equal(_np(padded), their_padded.numpy())
    assert lens.tolist() == their_lens.tolist()
    with pytest.raises(ValueError, match="total_length"):
        rnn_utils.pad_packed_sequence(ours, total_length=2)
    seqs = [_to_ours(s, device) for s in R.unpack_sequence(theirs)]
    for a, b in zip(rnn_utils.unpack_sequence(ours), seqs):
        np.testing.assert_array_equal(_np(a), _np(b))
    repacked = rnn_utils.pack_sequence(seqs, enforce_sorted=enforce_sorted)
    np.testing.assert_array_equal(_np(repacked.data), theirs.data.numpy())


def test_packing_passes_gradients_to_the_real_steps_only(device: str) -> None:
    x = microtorch.randn(4, 3, 2, device=device, requires_grad=True)
    lengths = microtorch.tensor([2, 4, 1])  # a tensor of lengths works as a list does
    packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=False)
    padded, out_lengths = rnn_utils.pad_packed_sequence(packed)
    assert out_lengths.tolist() == [2, 4, 1]
    np.testing.assert_array_equal(_np(padded)[:2, 0], _np(x)[:2, 0])
    (padded * 3).sum().backward()
    real = (np.arange(4)[:, None] < np.array([2, 4, 1])[None, :])[..., None]  # (T, B, 1)
    np.testing.assert_array_equal(_np(x.grad), np.broadcast_to(3.0 * real, (4, 3, 2)))


def test_pack_padded_sequence_errors() -> None:
    x = microtorch.randn(4, 3, 2)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        rnn_utils.pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(RuntimeError, match="greater than 0"):
        rnn_utils.pack_padded_sequence(x, [2, 0, 1], enforce_sorted=False)
    with pytest.raises(RuntimeError, match="equal to batch_size"):
        rnn_utils.pack_padded_sequence(x, [4, 2])
    with pytest.raises(RuntimeError, match="longer than the padded input"):
        rnn_utils.pack_padded_sequence(x, [5, 2, 1])


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("LSTM", dict(num_layers=2, bidirectional=True)),
        ("GRU", dict(bidirectional=True)),
        ("RNN", dict(num_layers=2)),
        ("LSTM", dict(proj_size=2, bidirectional=True)),
    ],  # fmt: skip
)
@pytest.mark.parametrize("with_h0", [False, True])
def test_layers_on_packed_sequences_match_pytorch(name: str, kwargs: dict, with_h0: bool,
                                                  device: str) -> None:  # fmt: skip
    pt = pytest.importorskip("torch")
    R = pt.nn.utils.rnn
    pt.manual_seed(4)
    ours, theirs = _pair(pt, name, 3, 4, **kwargs, device=device)
    lengths = [2, 5, 1, 5, 3]
    x = pt.randn(5, len(lengths), 3, dtype=pt.float64)
    h0 = _h0(pt, name, kwargs, len(lengths), 4) if with_h0 else None
    ours_in = rnn_utils.pack_padded_sequence(_to_ours(x, device), lengths, enforce_sorted=False)
    theirs_in = R.pack_padded_sequence(x, lengths, enforce_sorted=False)
    ours_out, ours_h = ours(ours_in, None if h0 is None else _to_ours(h0, device))
    theirs_out, theirs_h = theirs(theirs_in, h0)
    assert isinstance(ours_out, rnn_utils.PackedSequence)
    assert ours_out.batch_sizes.tolist() == theirs_out.batch_sizes.tolist()
    assert ours_out.unsorted_indices.tolist() == theirs_out.unsorted_indices.tolist()
    _assert_same(ours, theirs, (ours_out.data, ours_h), (theirs_out.data, theirs_h))


def test_packed_sequence_casts_its_data_as_pytorch() -> None:
    # .double(), .float(), ... existed on PyTorch's PackedSequence only (AttributeError here)
    packed = rnn_utils.pack_padded_sequence(microtorch.randn(3, 2, 2), [3, 2])
    for name, dtype in [("double", "float64"), ("float", "float32"), ("half", "float16"),
                        ("long", "int64"), ("int", "int32"), ("short", "int16"),
                        ("char", "int8"), ("byte", "uint8")]:  # fmt: skip
        cast = getattr(packed, name)()
        assert isinstance(cast, rnn_utils.PackedSequence) and cast.data.dtype.name == dtype
        assert cast.batch_sizes.tolist() == [2, 2, 1]
    pt = pytest.importorskip("torch")
    theirs = pt.nn.utils.rnn.pack_padded_sequence(pt.randn(3, 2, 2), [3, 2])
    assert str(theirs.half().data.dtype) == "torch.float16"
