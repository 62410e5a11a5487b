"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch: a PyTorch state dict loads under the same
names and gives the same output, loss, gradients, log_prob and predict; unbatched input, the
namedtuple, the cutoffs checks and out-of-range targets."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch import nn

torch = pytest.importorskip("torch")


def _twins(in_features: int, n_classes: int, cutoffs: list, **kw: object) -> tuple:
    torch.manual_seed(0)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, **kw).double()
    ours = nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, **kw).double()
    ours.load_state_dict({k: microtorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize(("cutoffs", "div_value", "head_bias"),
                         [([3, 6], 2.0, False), ([5], 4.0, True), ([2, 4, 9], 1.5, True)])  # fmt: skip
def test_output_loss_gradients_log_prob_and_predict_match_pytorch(cutoffs: list, div_value: float,
                                                                  head_bias: bool) -> None:  # fmt: skip
    ours, theirs = _twins(8, 12, cutoffs, div_value=div_value, head_bias=head_bias)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(len(cutoffs))
    x = rng.standard_normal((7, 8)) * 3
    target = np.array([0, 11, 4, 7, 2, 9, 5])
    got = ours(microtorch.tensor(x), microtorch.tensor(target))
    expected = theirs(torch.tensor(x), torch.tensor(target))
    assert type(got).__name__ == "_ASMoutput" and got._fields == ("output", "loss")
    np.testing.assert_allclose(got.output.detach().numpy(), expected.output.detach().numpy(),
                               rtol=1e-12)  # fmt: skip
    assert got.loss.item() == pytest.approx(expected.loss.item(), rel=1e-12)
    (got.loss + got.output[2]).backward()
    (expected.loss + expected.output[2]).backward()
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-14,
                                   err_msg=name)  # fmt: skip
    np.testing.assert_allclose(ours.log_prob(microtorch.tensor(x)).detach().numpy(),
                               theirs.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-12)  # fmt: skip
    np.testing.assert_array_equal(ours.predict(microtorch.tensor(x)).numpy(),
                                  theirs.predict(torch.tensor(x)).numpy())  # fmt: skip
    full = ours.log_prob(microtorch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0, rtol=1e-12)


def test_predict_runs_the_tails_only_where_the_head_points_at_a_cluster() -> None:
    ours, theirs = _twins(4, 10, [2, 5], div_value=1.0)
    x = np.random.default_rng(2).standard_normal((50, 4)) * 4
    picked = ours.predict(microtorch.tensor(x)).numpy()
    np.testing.assert_array_equal(picked, theirs.predict(torch.tensor(x)).numpy())
    assert (picked >= 2).any() and (picked < 2).any()  # both kinds of rows were met


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
def test_unbatched_input_and_errors_as_pytorch() -> None:
    ours, theirs = _twins(6, 8, [4])
    x = np.random.default_rng(3).standard_normal(6)
    got = ours(microtorch.tensor(x), microtorch.tensor(5))
    expected = theirs(torch.tensor(x), torch.tensor(5))
    assert got.output.shape == () and got.output.item() == pytest.approx(expected.output.item())
    for method in ("log_prob", "predict"):  # a batch only, in PyTorch too
        with pytest.raises(IndexError):
            getattr(theirs, method)(torch.tensor(x))
        with pytest.raises(IndexError, match=f"{method}: input must be"):
            getattr(ours, method)(microtorch.tensor(x))
    empty = ours(
        microtorch.zeros(0, 6, dtype=microtorch.float64),
        microtorch.tensor([], dtype=microtorch.int64),
    )
    assert empty.output.shape == (0,) and np.isnan(empty.loss.item())
    for bad in ([], [4, 2], [0, 3], [3, 8], [3, 3], [2.5]):
        with pytest.raises(ValueError, match="cutoffs should be"):
            nn.AdaptiveLogSoftmaxWithLoss(6, 8, bad)
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 7\]"):
        ours(microtorch.tensor(np.stack([x, x])), microtorch.tensor([1, 8]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        ours(microtorch.tensor(np.stack([x, x])), microtorch.tensor([1]))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        ours(microtorch.tensor(np.stack([x, x])), microtorch.tensor([[1], [2]]))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input"):
        ours(microtorch.tensor(np.stack([x, x])), microtorch.tensor(1))
