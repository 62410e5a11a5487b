"""F.ctc_loss and nn.CTCLoss against PyTorch: random batches (repeated labels, empty targets,
alignments that cannot fit), every reduction, zero_infinity, the target and length forms,
unbatched input and the argument errors."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import microtorch
from microtorch import nn
from microtorch.nn import functional as F

torch = pytest.importorskip("torch")


def _pair(log_probs: np.ndarray) -> tuple:
    """The same log-probabilities as a torch leaf and a microtorch leaf."""
    theirs = torch.tensor(log_probs, requires_grad=True)
    ours = microtorch.tensor(log_probs, requires_grad=True)
    return theirs, ours


def _random_case(rng: np.random.Generator) -> dict:
    T, N, C, S = (int(v) for v in (rng.integers(1, 9), rng.integers(1, 4), rng.integers(2, 5),
                                   rng.integers(0, 5)))  # fmt: skip
    blank = int(rng.integers(0, C))
    targets = (blank + rng.integers(1, C, size=(N, S))) % C  # labels, never the blank
    if S > 1:
        targets[:, 1] = targets[:, 0]  # a repeated label: it needs a blank between
    return {
        "log_probs": np.log(rng.dirichlet(np.ones(C), size=(T, N))),
        "targets": targets,
        "input_lengths": rng.integers(0, T + 1, size=N),
        "target_lengths": rng.integers(0, S + 1, size=N),  # long ones often cannot fit
        "blank": blank,
    }


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_random_batches_match_pytorch_forward_and_backward(reduction: str,
                                                           zero_infinity: bool) -> None:  # fmt: skip
    rng = np.random.default_rng(zlib.crc32(f"{reduction}{zero_infinity}".encode()))
    infeasible = 0
    for _ in range(40):
        case = _random_case(rng)
        theirs, ours = _pair(case["log_probs"])
        kw = {"blank": case["blank"], "reduction": reduction, "zero_infinity": zero_infinity}
        lengths = [case["targets"], case["input_lengths"], case["target_lengths"]]
        expected = torch.nn.functional.ctc_loss(theirs, *map(torch.tensor, lengths), **kw)
        got = F.ctc_loss(ours, *map(microtorch.tensor, lengths), **kw)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10)
        infeasible += int(np.isinf(expected.detach().numpy()).any())
        weight = rng.uniform(0.5, 2.0, expected.shape)  # positive: inf * weight stays inf
        (expected * torch.tensor(weight)).sum().backward()
        (got * microtorch.tensor(weight)).sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-8,
                                   atol=1e-12)  # fmt: skip
    assert zero_infinity or infeasible > 0  # the infinite losses (and nan gradients) were met


def test_float32_gradient_of_long_inputs_rounds_once() -> None:
    # 50 frames of 20 classes (PyTorch's OpInfo sample): summing that many log-probabilities
    # in float32 left microtorch's gradient 1e-4 off, as PyTorch's; it now rounds once
    rng = np.random.default_rng(0)
    logits = rng.uniform(-9, 9, size=(50, 16, 20))
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets = rng.integers(1, 20, size=(16, 30))
    lengths = np.full(16, 50), rng.integers(12, 30, size=16)
    grads = {}
    for name, lib, fn, dtype in (("exact", torch, torch.nn.functional.ctc_loss, "float64"),
                                 ("ours", microtorch, F.ctc_loss, "float32")):  # fmt: skip
        x = lib.tensor(log_probs.astype(dtype), requires_grad=True)
        loss = fn(x, lib.tensor(targets), *map(lib.tensor, lengths), reduction="sum")
        loss.backward()
        grads[name] = x.grad.numpy().astype(np.float64)
    assert x.grad.dtype is microtorch.float32 and loss.dtype is microtorch.float32
    ours = np.abs(grads["ours"] - grads["exact"]).max()
    assert ours <= 1e-6  # (PyTorch's own float32 gradient is 1e-4 off here)


def test_an_impossible_alignment_is_inf_with_nan_gradient_or_zero_with_zero_infinity() -> None:
    log_probs = np.log(np.full((2, 1, 3), 1 / 3))
    targets, lengths = [[1, 1]], ([2], [2])  # 1, 1 needs a blank between: 3 frames
    for zero_infinity in (False, True):
        theirs, ours = _pair(log_probs)
        expected = torch.nn.functional.ctc_loss(theirs, torch.tensor(targets), *lengths,
                                                reduction="sum", zero_infinity=zero_infinity)  # fmt: skip
        got = F.ctc_loss(ours, microtorch.tensor(targets), *lengths, reduction="sum",
                         zero_infinity=zero_infinity)  # fmt: skip
        expected.backward(), got.backward()
        assert got.item() == expected.item() == (0.0 if zero_infinity else np.inf)
        np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


def test_target_and_length_forms_and_unbatched_input_agree_with_pytorch() -> None:
    rng = np.random.default_rng(3)
    log_probs = np.log(rng.dirichlet(np.ones(5), size=(6, 3)))
    padded, flat, il, tl = [[1, 1, 2], [3, 0, 0], [2, 4, 2]], [1, 1, 2, 2, 4], (6, 5, 4), (3, 0, 2)
    expected = torch.nn.functional.ctc_loss(torch.tensor(log_probs), torch.tensor(padded),
                                            il, tl, reduction="none").numpy()  # fmt: skip
    ours = microtorch.tensor(log_probs)
    for targets in (padded, flat):
        for lengths in ((il, tl), (microtorch.tensor(il), microtorch.tensor(tl)),
                        (microtorch.tensor(il, dtype=microtorch.int32), list(tl))):  # fmt: skip
            got = F.ctc_loss(ours, microtorch.tensor(targets), *lengths, reduction="none")
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)
    for reduction in ("none", "mean"):
        one = F.ctc_loss(ours[:, 0], microtorch.tensor(padded[0]), microtorch.tensor(6),
                         microtorch.tensor(3), reduction=reduction)  # fmt: skip
        theirs = torch.nn.functional.ctc_loss(torch.tensor(log_probs[:, 0]),
                                              torch.tensor(padded[0]), torch.tensor(6),
                                              torch.tensor(3), reduction=reduction)  # fmt: skip
        assert one.shape == () and one.item() == pytest.approx(theirs.item(), rel=1e-12)
    f32 = F.ctc_loss(ours.float(), microtorch.tensor(padded), il, tl)
    assert f32.dtype is microtorch.float32


def test_the_module_matches_pytorch_and_its_repr() -> None:
    rng = np.random.default_rng(4)
    log_probs = np.log(rng.dirichlet(np.ones(4), size=(5, 2)))
    args = ([[1, 2], [3, 3]], [5, 5], [2, 2])
    ours = nn.CTCLoss(blank=0, reduction="sum", zero_infinity=True)
    theirs = torch.nn.CTCLoss(blank=0, reduction="sum", zero_infinity=True)
    got = ours(microtorch.tensor(log_probs), *map(microtorch.tensor, args))
    expected = theirs(torch.tensor(log_probs), *map(torch.tensor, args))
    assert got.item() == pytest.approx(expected.item(), rel=1e-12)
    assert repr(ours) == repr(theirs) == "CTCLoss()"
    assert (ours.blank, ours.reduction, ours.zero_infinity) == (0, "sum", True)
    assert isinstance(ours, nn.modules.loss._Loss)


def test_bad_arguments_raise_pytorchs_error_types() -> None:
    lp = microtorch.tensor(np.log(np.full((4, 2, 3), 1 / 3)))
    targets = microtorch.tensor([[1, 2], [2, 1]])
    with pytest.raises(RuntimeError, match="input_lengths must be in"):
        F.ctc_loss(lp, targets, (5, 4), (2, 2))
    with pytest.raises(RuntimeError, match="at most the padded"):
        F.ctc_loss(lp, targets, (4, 4), (3, 2))
    with pytest.raises(RuntimeError, match="target_lengths must be at least 0"):
        F.ctc_loss(lp, targets, (4, 4), (2, -1))
    with pytest.raises(RuntimeError, match="batch_size"):
        F.ctc_loss(lp, targets, (4, 4, 4), (2, 2))
    with pytest.raises(RuntimeError, match="blank"):
        F.ctc_loss(lp, targets, (4, 4), (2, 2), blank=3)
    with pytest.raises(RuntimeError, match="must not be empty"):
        F.ctc_loss(lp[:0], targets, (0, 0), (0, 0))
    for label in (3, -1):  # (PyTorch reads memory past the classes there)
        with pytest.raises(IndexError, match=f"index {label} is out of range for log_probs"):
            F.ctc_loss(lp, microtorch.tensor([[1, label], [2, 1]]), (4, 4), (2, 2))
    F.ctc_loss(lp, microtorch.tensor([[1, 7], [2, 1]]), (4, 4), (1, 2))  # padding: any value
    with pytest.raises(ValueError, match="reduction"):
        F.ctc_loss(lp, targets, (4, 4), (2, 2), reduction="avg")


def test_autocast_on_the_cpu_computes_it_in_float32_as_pytorch() -> None:
    log_probs = np.log(np.full((3, 1, 3), 1 / 3))
    args = ([[1]], [3], [1])
    with torch.autocast("cpu", dtype=torch.float16):
        theirs = torch.nn.functional.ctc_loss(torch.tensor(log_probs).half(),
                                              *map(torch.tensor, args))  # fmt: skip
    with microtorch.autocast("cpu", dtype=microtorch.float16):
        ours = F.ctc_loss(microtorch.tensor(log_probs).half(), *map(microtorch.tensor, args))
    assert theirs.dtype == torch.float32 and ours.dtype is microtorch.float32
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-6)
