"""The regression, binary and KL losses (nn.functional and their modules): NumPy reference
values, gradients against finite differences, PyTorch parity where it is installed, and
errors. (Cross-entropy and NLL have their own tests in test_ops and test_layers.)"""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch import nn
from microtorch.autograd import gradcheck
from microtorch.nn import functional as F

from ..torch_reference import needs_torch

RNG = np.random.default_rng(0)
X, Y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
P, T = 1 / (1 + np.exp(-X)), RNG.random((3, 4))  # probabilities and soft targets


def _t(a, grad: bool = False, device: str = "cpu") -> microtorch.Tensor:
    return microtorch.tensor(a, dtype=microtorch.float64, device=device, requires_grad=grad)


def _np_smooth_l1(d, beta):
    d = np.abs(d)
    return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def _np_bce(p, t):
    return -(t * np.maximum(np.log(p), -100) + (1 - t) * np.maximum(np.log(1 - p), -100))


CASES = {
    "l1": (lambda x, y: F.l1_loss(x, y, reduction="none"), X, Y, np.abs(X - Y)),
    "smooth_l1": (
        lambda x, y: F.smooth_l1_loss(x, y, reduction="none", beta=0.5),
        X, Y, _np_smooth_l1(X - Y, 0.5),
    ),
    "huber": (
        lambda x, y: F.huber_loss(x, y, reduction="none", delta=0.5),
        X, Y, 0.5 * _np_smooth_l1(X - Y, 0.5),
    ),
    "bce": (lambda p, t: F.binary_cross_entropy(p, t, reduction="none"), P, T, _np_bce(P, T)),
    "bce_with_logits": (
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"),
        X, T, _np_bce(P, T),
    ),
    "kl_div": (
        lambda logq, p: F.kl_div(logq, p, reduction="none"),
        np.log(P), T, T * (np.log(T) - np.log(P)),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients(name: str, device: str) -> None:
    fn, a, b, expected = CASES[name]
    out = fn(_t(a, device=device), _t(b, device=device))
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-10, atol=1e-12)
    assert gradcheck(fn, [_t(a, grad=True), _t(b, grad=True)])


def test_reductions_and_modules() -> None:
    x, y = _t(X), _t(Y)
    assert F.l1_loss(x, y).item() == pytest.approx(np.abs(X - Y).mean())
    assert F.l1_loss(x, y, reduction="sum").item() == pytest.approx(np.abs(X - Y).sum())
    assert nn.L1Loss()(x, y).item() == pytest.approx(np.abs(X - Y).mean())
    assert nn.SmoothL1Loss(beta=0.5)(x, y).item() == pytest.approx(_np_smooth_l1(X - Y, 0.5).mean())
    assert nn.SmoothL1Loss(beta=0.0)(x, y).item() == pytest.approx(np.abs(X - Y).mean())
    assert nn.HuberLoss(delta=2.0)(x, y).item() == pytest.approx(
        2.0 * _np_smooth_l1(X - Y, 2.0).mean()
    )
    w = _t(RNG.random((3, 4)))
    assert nn.BCELoss(weight=w)(_t(P), _t(T)).item() == pytest.approx(
        (w.numpy() * _np_bce(P, T)).mean()
    )
    assert nn.BCEWithLogitsLoss(reduction="sum")(x, _t(T)).item() == pytest.approx(
        _np_bce(P, T).sum()
    )
    kl = nn.KLDivLoss(reduction="batchmean")(_t(np.log(P)), _t(T)).item()
    assert kl == pytest.approx((T * (np.log(T) - np.log(P))).sum() / 3)


def test_binary_cross_entropy_edges_as_in_pytorch() -> None:
    # a certainty that is wrong costs 100 (the log is clamped), and its gradient is finite
    p = _t([0.0, 1.0, 0.5], grad=True)
    loss = F.binary_cross_entropy(p, _t([1.0, 0.0, 1.0]), reduction="none")
    assert loss.tolist()[:2] == [100.0, 100.0]
    loss.sum().backward()
    assert np.isfinite(p.grad.numpy()).all()
    # on logits: no overflow for large ones, and the gradient at 0 is sigmoid(0) - y
    x = _t([0.0, 800.0, -800.0], grad=True)
    y = _t([1.0, 0.0, 1.0])
    out = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    assert out.tolist() == pytest.approx([np.log(2), 800.0, 800.0])
    out.sum().backward()
    assert x.grad.tolist() == pytest.approx([-0.5, 1.0, -1.0])
    pos = F.binary_cross_entropy_with_logits(_t([0.0]), _t([1.0]), pos_weight=_t([3.0]))
    assert pos.item() == pytest.approx(3 * np.log(2))


def test_kl_div_with_zero_targets_and_log_targets() -> None:
    logq = _t(np.log([0.5, 0.25, 0.25]))
    assert F.kl_div(logq, _t([1.0, 0.0, 0.0]), reduction="sum").item() == pytest.approx(np.log(2))
    log_p = _t(np.log([0.5, 0.5, 1e-9]))
    same = F.kl_div(logq, log_p, reduction="sum", log_target=True).item()
    assert same == pytest.approx(F.kl_div(logq, log_p.exp(), reduction="sum").item())
    with pytest.warns(UserWarning, match="'batchmean' divides by the batch size only"):
        F.kl_div(logq, _t([1.0, 0.0, 0.0]))


def test_kl_div_of_a_negative_target_is_nan_as_in_pytorch() -> None:
    """A negative "probability" has no log: PyTorch's loss there is nan (and only there),
    where ours used to be a finite number that hid the bad target."""
    logq = _t(np.log([0.5, 0.25, 0.25]))
    losses = F.kl_div(logq, _t([0.5, 0.0, -0.2]), reduction="none").numpy()
    assert losses[0] == pytest.approx(0.5 * (np.log(0.5) - np.log(0.5)))
    assert losses[1] == 0.0 and np.isnan(losses[2])


def test_kl_div_refuses_integer_inputs() -> None:
    """PyTorch raises "kl_div: Integral inputs not supported" for an integer or bool input
    or target; ours used to compute with them."""
    logq = _t(np.log([0.5, 0.5]))
    for target in (microtorch.tensor([1, 0]), microtorch.tensor([True, False])):
        with pytest.raises(
            RuntimeError, match="kl_div: integer inputs are not supported, got target"
        ):
            F.kl_div(logq, target, reduction="sum")
    with pytest.raises(RuntimeError, match="got input of dtype microtorch.int64"):
        F.kl_div(microtorch.tensor([-1, -1]), _t([0.5, 0.5]), reduction="sum")


def test_loss_errors_say_what_is_wrong() -> None:
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(_t([1.5]), _t([1.0]))
    with pytest.raises(
        ValueError, match=r"target of shape \(2,\) must have the same shape as input \(3,\)"
    ):
        F.binary_cross_entropy_with_logits(_t([0.0, 0.0, 0.0]), _t([1.0, 0.0]))
    with pytest.raises(RuntimeError, match="must be floating point, got .*int64"):
        F.binary_cross_entropy_with_logits(_t([0.0]), microtorch.tensor([1]))
    with pytest.raises(RuntimeError, match="floating point of one dtype.*float32"):
        F.binary_cross_entropy(_t([0.5]), _t([1.0]).float())  # PyTorch refuses this mix too
    with pytest.raises(RuntimeError, match="beta must not be negative"):
        F.smooth_l1_loss(_t([0.0]), _t([1.0]), beta=-1.0)
    with pytest.raises(RuntimeError, match="delta must be positive"):
        F.huber_loss(_t([0.0]), _t([1.0]), delta=0.0)
    with pytest.warns(UserWarning, match="they broadcast together"):
        F.l1_loss(_t(np.zeros((3, 1))), _t(np.zeros(3)))


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
def test_smooth_l1_and_huber_compute_in_floating_types_only_as_pytorch(name: str) -> None:
    # (a DQN's SmoothL1Loss fed integer rewards): no integer kernel, NotImplementedError;
    # huber_loss writes into the input's dtype, so an integer input with a float target is
    # a RuntimeError; a float on either side of smooth_l1_loss computes in float
    pairs = [([1, 2], [2, 2]), ([True], [False]), ([1, 2], [2.0, 2.0]), ([1.0, 2.0], [2, 2])]

    def answers(lib):
        row = []
        for a, b in pairs:
            try:
                row.append(getattr(lib.nn.functional, name)(lib.tensor(a), lib.tensor(b)).item())
            except (NotImplementedError, RuntimeError) as e:
                row.append(type(e).__name__)
        return row

    into_input = "RuntimeError" if name == "huber_loss" else 0.25
    assert answers(microtorch) == ["NotImplementedError", "NotImplementedError", into_input, 0.25]
    torch = pytest.importorskip("torch")
    assert answers(microtorch) == answers(torch)


def test_soft_margin_loss_of_an_integer_input_raises_as_pytorch() -> None:
    for lib in (microtorch, pytest.importorskip("torch")):
        F_ = lib.nn.functional
        for target in ([1, -1], [1.0, -1.0]):
            with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
                F_.soft_margin_loss(lib.tensor([1, 2]), lib.tensor(target))
        loss = F_.soft_margin_loss(lib.tensor([1.0, 2.0]), lib.tensor([1, -1]))
        assert loss.item() == pytest.approx(1.2201, abs=1e-4)


@needs_torch((2, 13), "HuberLoss's check of delta at construction")
@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_huber_loss_module_refuses_a_delta_that_is_not_a_number(lib_name: str) -> None:
    """HuberLoss(delta=...) must be a float or int (PyTorch's TypeError at construction,
    one of its ModuleInfo error samples); before, it failed only in forward, or not at all."""
    lib = microtorch if lib_name == "microtorch" else pytest.importorskip("torch")
    for delta in (1 + 0j, "1.0", None):
        with pytest.raises(TypeError, match="delta must be a float or int, got: <class"):
            lib.nn.HuberLoss(delta=delta)
    assert lib.nn.HuberLoss(delta=2).delta == 2


def test_class_losses_raise_value_error_for_a_batch_size_mismatch() -> None:
    """As in PyTorch: a target whose batch size (dim 0) differs from the input's is a
    ValueError, so is a 0-d input to nll_loss; other shape mismatches are RuntimeErrors."""
    ids = microtorch.tensor([0, 1, 2])
    for loss in (F.cross_entropy, F.nll_loss):
        with pytest.raises(ValueError, match=r"\(4, 5\) and target of shape \(3,\) have different"):
            loss(_t(np.zeros((4, 5))), ids)
        with pytest.raises(ValueError, match="different batch sizes"):
            loss(_t(np.zeros((2, 5, 3))), ids)
        with pytest.raises(ValueError, match="different batch sizes"):
            loss(_t(np.zeros(5)), ids)  # one sample, three targets
        with pytest.raises(RuntimeError, match=r"expected target shape \(2, 3\)"):
            loss(_t(np.zeros((2, 5, 3))), microtorch.tensor([[0, 1], [2, 3]]))
    with pytest.raises(ValueError, match="nll_loss: input must have a dim of classes"):
        F.nll_loss(_t(1.0), microtorch.tensor(0))


def test_nll_loss2d_is_the_deprecated_nll_loss_with_pytorchs_future_warning() -> None:
    with pytest.warns(FutureWarning, match="NLLLoss2d` has been deprecated"):
        loss = nn.NLLLoss2d(ignore_index=1, reduction="sum")
    assert isinstance(loss, nn.NLLLoss) and nn.modules.loss.NLLLoss2d is nn.NLLLoss2d
    logp = microtorch.tensor(np.log(np.full((2, 3, 2, 2), 1 / 3)))
    target = microtorch.tensor([[[0, 1], [2, 1]], [[0, 0], [1, 2]]])
    assert loss(logp, target).item() == pytest.approx(-5 * np.log(1 / 3))
    assert repr(loss) == "NLLLoss2d()"


def test_cross_entropy_refuses_ignore_index_with_class_probabilities() -> None:
    """PyTorch raises for a non-negative ignore_index with a probability target (ours
    used to ignore it silently); a negative one, like the default -100, is accepted."""
    logits, probs = _t(np.zeros((3, 4))), _t(np.full((3, 4), 0.25))
    with pytest.raises(RuntimeError, match=r"ignore_index \(1\) is not supported"):
        F.cross_entropy(logits, probs, ignore_index=1)
    expected = F.cross_entropy(logits, probs).item()
    assert F.cross_entropy(logits, probs, ignore_index=-1).item() == pytest.approx(expected)


def test_cross_entropy_with_probabilities_promotes_the_dtypes() -> None:
    """float32 logits with a float64 probability target give a float64 loss, as PyTorch's
    type promotion does (ours used to cast the target down to float32)."""
    logits = microtorch.tensor(np.arange(12.0).reshape(3, 4) / 7, dtype=microtorch.float32)
    probs = microtorch.tensor(np.full((3, 4), 0.25))
    for kwargs in ({}, {"label_smoothing": 0.1}, {"reduction": "none"}):
        assert F.cross_entropy(logits, probs, **kwargs).dtype is microtorch.float64
    assert F.cross_entropy(logits.double(), probs.float()).dtype is microtorch.float64


@pytest.mark.parametrize("dtype", ["int32", "int16", "bool"])
def test_class_losses_take_long_or_uint8_targets_only(dtype: str) -> None:
    """PyTorch's cross_entropy and nll_loss take int64 or uint8 class ids and raise for
    int32, int16 or bool ones ("expected target dtype to be Long or Byte")."""
    logits = _t(np.zeros((3, 4)))
    ids = microtorch.tensor([0, 1, 0]).to(getattr(microtorch, dtype))
    for loss in (F.cross_entropy, F.nll_loss):
        with pytest.raises(
            RuntimeError, match=f"long \\(int64\\) or uint8, got microtorch.{dtype}"
        ):
            loss(logits, ids)
        assert loss(logits, ids.to(microtorch.uint8)).shape == ()


def test_bce_with_logits_promotes_mixed_float_dtypes() -> None:
    """float32 logits with float64 labels (e.g. from NumPy): PyTorch computes in float64;
    ours used to refuse the mix. Gradients come back in each input's own dtype."""
    logits = microtorch.tensor([0.5, -1.0, 2.0], dtype=microtorch.float32, requires_grad=True)
    labels = _t([1.0, 0.0, 1.0])
    loss = F.binary_cross_entropy_with_logits(logits, labels, pos_weight=_t([2.0]))
    assert loss.dtype is microtorch.float64
    x = np.array([0.5, -1.0, 2.0], dtype=np.float32).astype(np.float64)
    y = np.array([1.0, 0.0, 1.0])
    log_sig, log_one_minus = -np.log1p(np.exp(-x)), -np.log1p(np.exp(x))
    assert loss.item() == pytest.approx(-(2 * y * log_sig + (1 - y) * log_one_minus).mean())
    loss.backward()
    assert logits.grad.dtype is microtorch.float32


def test_bce_with_logits_pos_weight_that_does_not_broadcast_says_so() -> None:
    """PyTorch raises RuntimeError; ours used to fail inside NumPy with a ValueError."""
    logits, labels = _t(np.zeros((3, 4))), _t(np.ones((3, 4)))
    with pytest.raises(RuntimeError, match=r"binary_cross_entropy_with_logits: pos_weight"):
        F.binary_cross_entropy_with_logits(logits, labels, pos_weight=_t(np.ones(3)))
    with pytest.raises(RuntimeError, match=r"pos_weight of shape \(2, 3, 4\) does not broadcast"):
        F.binary_cross_entropy_with_logits(logits, labels, pos_weight=_t(np.ones((2, 3, 4))))
    per_row = F.binary_cross_entropy_with_logits(logits, labels, pos_weight=_t(np.ones((3, 1))))
    assert per_row.item() == pytest.approx(np.log(2))


def test_class_weight_of_another_dtype_than_the_input_is_an_error() -> None:
    """PyTorch raises 'expected scalar type Double but found Float' for float64 logits with
    a float32 class weight (the usual CrossEntropyLoss(weight=torch.tensor([...])) after
    model.double()); ours used to cast the weight silently."""
    logits, ids = _t(np.zeros((3, 4))), microtorch.tensor([0, 1, 2])
    weight = microtorch.ones(4, dtype=microtorch.float32)
    for loss in (F.cross_entropy, F.nll_loss):
        with pytest.raises(RuntimeError, match="weight is microtorch.float32 but input is"):
            loss(logits, ids, weight=weight)
        assert loss(logits, ids, weight=weight.double()).dtype is microtorch.float64


def test_cross_entropy_label_smoothing_above_1_is_an_error_below_0_none() -> None:
    """PyTorch refuses label_smoothing above 1 for both kinds of target, and applies none
    at all for a negative one (ours used to compute with the negative value)."""
    logits = _t(np.arange(12.0).reshape(3, 4) / 5)
    for target in (microtorch.tensor([0, 1, 2]), _t(np.eye(4)[[0, 1, 2]])):  # ids, one-hot
        with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
            F.cross_entropy(logits, target, label_smoothing=1.5)
        plain = F.cross_entropy(logits, target).item()
        assert F.cross_entropy(logits, target, label_smoothing=-0.1).item() == plain


def test_losses_match_pytorch() -> None:
    pt = pytest.importorskip("torch")
    pos_weight = RNG.random(4) + 0.5
    calls = [
        ("l1_loss", X, Y, {}),
        ("smooth_l1_loss", X, Y, {"beta": 0.3}),
        ("huber_loss", X, Y, {"delta": 0.7}),
        ("binary_cross_entropy", P, T, {"weight": RNG.random((3, 4))}),
        ("binary_cross_entropy_with_logits", X, T, {"pos_weight": pos_weight}),
        ("kl_div", np.log(P), T, {"reduction": "batchmean"}),
        ("kl_div", np.log(P), np.log(T), {"reduction": "sum", "log_target": True}),
    ]
    for name, a, b, options in calls:
        results = []
        for lib in (microtorch, pt):
            x = lib.tensor(a, requires_grad=True)
            y = lib.tensor(b, requires_grad=True)
            kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in options.items()}
            out = getattr(lib.nn.functional, name)(x, y, **kw)
            out.backward()
            results.append((out.item(), x.grad.numpy(), y.grad.numpy()))
        (ours, gx, gy), (theirs, tx, ty) = results
        assert ours == pytest.approx(theirs, rel=1e-10), name
        np.testing.assert_allclose(gx, tx, rtol=1e-9, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(gy, ty, rtol=1e-9, atol=1e-12, err_msg=name)


# ----------------------------------------------------------------------------- the ranking,
# margin and likelihood losses: modules, reductions, errors, and PyTorch at the kinks
S = np.where(RNG.random((3, 4)) < 0.5, -1.0, 1.0)  # targets of 1 and -1
LABELS = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 0, 0, 0]])


def _module_calls(lib: object) -> list:
    """(module, inputs) pairs: each loss module with options, on the same arrays."""
    nn_, f64 = lib.nn, (lambda a: lib.tensor(a, dtype=lib.float64))
    x, y, s = f64(X), f64(Y), f64(S)
    return [
        (nn_.PoissonNLLLoss(log_input=False, full=True), (f64(P), f64(T * 3))),
        (nn_.GaussianNLLLoss(full=True, eps=0.1, reduction="sum"), (x, y, f64(T[:, 0]))),
        (nn_.MarginRankingLoss(margin=0.2, reduction="none"), (x, y, s)),
        (nn_.HingeEmbeddingLoss(margin=0.5), (x, s)),
        (nn_.CosineEmbeddingLoss(margin=0.1, reduction="sum"), (x, y, s[:, 0])),
        (nn_.SoftMarginLoss(reduction="none"), (x, s)),
        (nn_.MultiLabelSoftMarginLoss(weight=f64(T[0])), (x, f64(S > 0))),
        (nn_.MultiMarginLoss(p=2, margin=0.5, weight=f64(T[0])), (x, lib.tensor([0, 3, 1]))),
        (nn_.MultiLabelMarginLoss(reduction="none"), (x, lib.tensor(LABELS))),
        (nn_.TripletMarginLoss(margin=0.5, p=1, swap=True), (x, y, f64(P))),
        (
            nn_.TripletMarginWithDistanceLoss(
                distance_function=nn_.PairwiseDistance(p=3), margin=2.0, reduction="sum"
            ),
            (x, y, f64(P)),
        ),  # fmt: skip
    ]


def test_new_loss_modules_match_pytorch() -> None:
    pt = pytest.importorskip("torch")
    for (ours, ours_in), (theirs, theirs_in) in zip(_module_calls(microtorch), _module_calls(pt)):
        name = type(ours).__name__
        assert name == type(theirs).__name__
        first, first_t = ours_in[0].requires_grad_(), theirs_in[0].requires_grad_()
        out, expected = ours(*ours_in), theirs(*theirs_in)
        np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=name)  # fmt: skip
        out.sum().backward()
        expected.sum().backward()
        np.testing.assert_allclose(first.grad.numpy(), first_t.grad.numpy(), rtol=1e-9,
                                   atol=1e-12, err_msg=name)  # fmt: skip


def test_new_losses_reduce_as_asked_and_take_the_deprecated_flags() -> None:
    x, y, s = _t(X), _t(Y), _t(S)
    per_element = F.margin_ranking_loss(x, y, s, reduction="none")
    assert tuple(per_element.shape) == (3, 4)
    assert F.margin_ranking_loss(x, y, s).item() == pytest.approx(per_element.mean().item())
    assert F.margin_ranking_loss(x, y, s, reduction="sum").item() == pytest.approx(
        per_element.sum().item()
    )
    with pytest.warns(UserWarning, match="use reduction='sum'"):
        summed = F.soft_margin_loss(x, s, size_average=False)
    assert summed.item() == pytest.approx(np.log1p(np.exp(-S * X)).sum())
    with pytest.warns(UserWarning, match="use reduction='none'"):
        assert tuple(nn.HingeEmbeddingLoss(reduce=False)(x, s).shape) == (3, 4)
    # one loss per sample for the class losses, a 0-d one for an unbatched sample
    assert tuple(F.multi_margin_loss(x, microtorch.tensor([0, 1, 2]), reduction="none").shape) == (
        3,
    )
    assert F.multi_margin_loss(x[0], microtorch.tensor(1), reduction="none").shape == ()
    assert tuple(
        F.multilabel_margin_loss(x, microtorch.tensor(LABELS), reduction="none").shape
    ) == (3,)
    assert tuple(F.multilabel_soft_margin_loss(x, _t(S > 0), reduction="none").shape) == (3,)
    assert tuple(F.cosine_embedding_loss(x, y, s[:, 0], reduction="none").shape) == (3,)
    assert tuple(F.triplet_margin_loss(x, y, _t(P), reduction="none").shape) == (3,)
    ints = microtorch.tensor([1, 2, 3]), microtorch.tensor([3, 2, 1]), microtorch.tensor([1, -1, 1])
    ranked = F.margin_ranking_loss(*ints)  # a float margin: a float loss, as in PyTorch
    assert ranked.dtype is microtorch.float32 and ranked.item() == pytest.approx(2 / 3)
    for fn, args in ((F.poisson_nll_loss, (x, _t(T))), (F.margin_ranking_loss, (x, y, s))):
        with pytest.raises(ValueError, match="reduction must be"):
            fn(*args, reduction="batchmean")


@pytest.mark.parametrize("value", [1.15, -0.3])
def test_margin_losses_of_a_0d_input_have_one_class_as_pytorch(value: float) -> None:
    pt = pytest.importorskip("torch")
    for lib in (microtorch, pt):
        fn = lib.nn.functional
        for reduction in ("mean", "none"):
            for loss in (fn.multi_margin_loss, fn.multilabel_margin_loss):
                out = loss(lib.tensor(value), lib.tensor(0), reduction=reduction)
                assert out.shape == () and out.item() == 0.0
        with pytest.raises(RuntimeError):
            fn.multi_margin_loss(lib.tensor(value), lib.tensor(1))


def test_gaussian_nll_loss_variance_shapes_clamp_and_errors() -> None:
    pt = pytest.importorskip("torch")
    var = np.array([[0.5, 1e-9, 2.0, 1.0], [1.0, 1.0, 0.3, 0.0], [2.0, 2.0, 2.0, 2.0]])
    for v in (var, var[:, 0], var[:, :1], var[:1], 0.25):  # full, a dim fewer, a 1 in one dim
        results = []
        for lib in (microtorch, pt):
            x = lib.tensor(X, requires_grad=True)
            vt = lib.tensor(v, requires_grad=True) if isinstance(v, np.ndarray) else v
            out = lib.nn.functional.gaussian_nll_loss(x, lib.tensor(Y), vt, eps=1e-3)
            out.backward()
            var_grad = vt.grad.numpy() if isinstance(v, np.ndarray) else None
            results.append((out.item(), x.grad.numpy(), var_grad))
        (ours, gx, gv), (theirs, tx, tv) = results
        assert ours == pytest.approx(theirs, rel=1e-10)
        np.testing.assert_allclose(gx, tx, rtol=1e-9)
        if gv is not None:  # below eps the value is clamped, the gradient is not: as there
            np.testing.assert_allclose(gv, tv, rtol=1e-9)
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(_t(X), _t(Y), _t(-var))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(_t(X), _t(Y), -1.0)
    with pytest.raises(ValueError, match=r"var of shape \(2, 4\) is of incorrect size"):
        F.gaussian_nll_loss(_t(X), _t(Y), _t(var[:2]))
    with pytest.raises(ValueError, match=r"var of shape \(1, 1\) is of incorrect size"):
        F.gaussian_nll_loss(_t(X), _t(Y), _t(var[:1, :1]))  # two dims differ
    with pytest.raises(ValueError, match="bad is not valid"):
        F.gaussian_nll_loss(_t(X), _t(Y), _t(var), reduction="bad")


def test_poisson_nll_loss_full_counts_stirling_only_above_one() -> None:
    rates = _t([0.5, 1.0, 2.0, 4.0])
    counts = _t([0.0, 1.0, 2.0, 5.0])
    out = F.poisson_nll_loss(rates, counts, log_input=False, full=True, reduction="none")
    plain = F.poisson_nll_loss(rates, counts, log_input=False, reduction="none")
    stirling = [0.0, 0.0, 2 * np.log(2) - 2 + 0.5 * np.log(4 * np.pi)]
    stirling.append(5 * np.log(5) - 5 + 0.5 * np.log(10 * np.pi))
    np.testing.assert_allclose((out - plain).numpy(), stirling, rtol=1e-12, atol=1e-12)
    assert F.poisson_nll_loss(_t([0.0]), _t([3.0]), log_input=False).item() == pytest.approx(
        -3 * np.log(1e-8)  # eps keeps log(0) finite
    )


def _grads_at(lib: object, fn: object, arrays: list, grad: list) -> tuple:
    ts = [lib.tensor(np.asarray(a), requires_grad=g) for a, g in zip(arrays, grad)]
    out = fn(lib.nn.functional, *ts)
    out.sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t, g in zip(ts, grad) if g]


KINKS = {  # each loss exactly at its hinge (or margin), where PyTorch picks a gradient
    "margin_ranking_passes": (
        lambda F, a, b, t: F.margin_ranking_loss(a, b, t, margin=0.5, reduction="none"),
        [1.5, 2.0, 0.5], [1.0, 1.0, 1.0], [1.0, 1.0, -1.0], [1, 1, 0],  # 1st, 3rd at 0
    ),
    "hinge_embedding_at_margin": (
        lambda F, a, t: F.hinge_embedding_loss(a, t, reduction="none"),
        [1.0, 0.5, 0.3, 2.0], [-1.0, -1.0, 0.0, 1.0], [1, 0],
    ),
    "cosine_embedding_at_margin": (
        lambda F, a, b, t: F.cosine_embedding_loss(a, b, t, reduction="none"),
        [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]], [[0.0, 1.0], [1.0, 1.0], [1.0, 1.0]],
        [-1.0, -1.0, 1.0], [1, 1, 0],
    ),
    "multi_margin_at_margin": (
        lambda F, a, y: F.multi_margin_loss(a, y),
        [[1.0, 0.0, 0.5], [2.0, 1.0, 3.0]], np.array([0, 2]), [1, 0],
    ),
    "multilabel_margin_at_margin": (
        lambda F, a, y: F.multilabel_margin_loss(a, y),
        [[1.0, 0.0, 0.5], [0.0, 1.0, 1.0]], np.array([[0, -1, 1], [1, 2, -1]]), [1, 0],
    ),
    "triplet_at_zero": (
        lambda F, a, p, n: F.triplet_margin_loss(a, p, n, reduction="none"),
        [[0.0, 0.0], [1.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]], [[0.0, 1.0], [1.0, 2.0]], [1, 1, 1],
    ),
    "triplet_swap_tie": (
        lambda F, a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0, swap=True),
        [[0.0, 0.0]], [[2.0, 0.0]], [[1.0, 0.0]], [1, 1, 1],
    ),
    "soft_margin_overflow": (
        lambda F, a, t: F.soft_margin_loss(a, t, reduction="none"),
        [-1000.0, 1000.0, 0.0, 30.0], [1.0, 1.0, -1.0, -1.0], [1, 0],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(KINKS))
def test_losses_at_their_kinks_match_pytorch(name: str) -> None:
    pt = pytest.importorskip("torch")
    fn, *arrays, grad = KINKS[name]
    arrays = [np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else a
              for a in arrays]  # fmt: skip
    grad = [bool(g) for g in grad] + [False] * (len(arrays) - len(grad))
    (ours, ours_grads), (theirs, their_grads) = (_grads_at(lib, fn, arrays, grad)
                                                 for lib in (microtorch, pt))  # fmt: skip
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    for g, tg in zip(ours_grads, their_grads):  # (a zero vector's cosine gradient is ~1e6)
        np.testing.assert_allclose(g, tg, rtol=1e-8, atol=1e-12)


def test_new_loss_errors_say_what_is_wrong() -> None:
    x, y = _t(X), _t(Y)
    with pytest.raises(RuntimeError, match="same number of dimensions, got input1 2D, input2 1D"):
        F.margin_ranking_loss(x, y[0], _t(S))
    with pytest.raises(RuntimeError, match="target .N,., or .D,. with a 0-d target"):
        F.cosine_embedding_loss(x, y, _t(S))
    with pytest.raises(RuntimeError, match="does not broadcast to input's shape"):
        F.soft_margin_loss(_t(X[:, :1]), _t(S))
    with pytest.raises(IndexError, match="needs a dim of classes"):
        F.multilabel_soft_margin_loss(_t(1.0), _t(1.0))
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        F.multi_margin_loss(x, microtorch.tensor([0, 1, 2]), p=3)
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="weight must be one-dimensional"):
        F.multi_margin_loss(x, microtorch.tensor([0, 1, 2]), weight=_t(np.ones((1, 4))))
    with pytest.raises(RuntimeError, match="weight that requires grad"):
        F.multi_margin_loss(x, microtorch.tensor([0, 1, 2]), weight=_t(np.ones(4), grad=True))
    with pytest.raises(RuntimeError, match="inconsistent target size, expected 3"):
        F.multi_margin_loss(x, microtorch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="dtype long"):
        F.multi_margin_loss(x, _t([0.0, 1.0, 2.0]))
    with pytest.raises(RuntimeError, match="non-empty vector or matrix"):
        F.multi_margin_loss(_t(np.zeros((2, 3, 4))), microtorch.tensor([0, 1]))
    with pytest.raises(NotImplementedError, match="not implemented for .*int64"):
        F.multi_margin_loss(microtorch.tensor([[1, 2]]), microtorch.tensor([0]))
    with pytest.raises(NotImplementedError, match="not implemented for .*int64"):
        F.multilabel_margin_loss(microtorch.tensor([[1, 2]]), microtorch.tensor([[0, -1]]))
    with pytest.raises(RuntimeError, match="index 4 is out of range for 4 classes"):
        F.multi_margin_loss(x, microtorch.tensor([0, 4, 1]))
    with pytest.raises(RuntimeError, match="index 7 is out of range for 4 classes"):
        F.multilabel_margin_loss(x, microtorch.tensor([[7, -1, 0, 0]] * 3))
    F.multilabel_margin_loss(x, microtorch.tensor([[0, -1, 7, 9]] * 3))  # after -1: not read
    with pytest.raises(RuntimeError, match="target of the same shape"):
        F.multilabel_margin_loss(x, microtorch.tensor([[0, 1], [1, 0], [2, 3]]))
    with pytest.raises(RuntimeError, match="dtype long"):
        F.multilabel_margin_loss(x, microtorch.tensor(LABELS).int())
    with pytest.raises(RuntimeError, match="anchor 2D, positive 1D, negative 2D"):
        F.triplet_margin_loss(x, y[0], x)
    for margin in (0.0, -1.0):
        with pytest.raises(ValueError, match="margin must be greater than 0"):
            F.triplet_margin_loss(x, y, x, margin=margin)
        with pytest.raises(ValueError, match="margin must be greater than 0"):
            F.triplet_margin_with_distance_loss(x, y, x, margin=margin)
        with pytest.raises(ValueError, match="margin must be greater than 0"):
            nn.TripletMarginLoss(margin=margin)


def test_triplet_margin_with_distance_loss_takes_any_distance() -> None:
    a, p, n = _t(X, grad=True), _t(Y), _t(P)

    def l1(u, v):
        return (u - v).abs().sum(-1)

    out = F.triplet_margin_with_distance_loss(a, p, n, distance_function=l1, margin=0.5,
                                              reduction="none")  # fmt: skip
    expected = np.maximum(0.5 + np.abs(X - Y).sum(-1) - np.abs(X - P).sum(-1), 0)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)
    assert gradcheck(lambda t: F.triplet_margin_with_distance_loss(
        t, p, n, distance_function=l1, margin=0.5), [a])  # fmt: skip


def test_regression_losses_take_a_weight_per_element() -> None:
    """mse_loss, l1_loss and huber_loss take weight= (PyTorch 2.x): each element's loss
    times its weight. "mean" is then PyTorch's: the weighted mean (sum / sum of weights)
    for mse_loss and l1_loss, the plain mean over elements for huber_loss. A weight of any
    other shape than the input's is a ValueError, as in PyTorch."""
    x, y, w = _t([1.0, 2.0, 3.0], grad=True), _t([0.0, 0.0, 0.0]), _t([1.0, 0.0, 4.0])
    assert F.mse_loss(x, y, weight=w).item() == pytest.approx(37 / 5)
    assert F.mse_loss(x, y, weight=w, reduction="sum").item() == pytest.approx(37.0)
    assert F.l1_loss(x, y, weight=w).item() == pytest.approx(13 / 5)
    assert F.huber_loss(x, y, weight=w).item() == pytest.approx(10.5 / 3)
    F.mse_loss(x, y, weight=w).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 / 5, 0.0, 24 / 5])
    for loss in (F.mse_loss, F.l1_loss, F.huber_loss):
        with pytest.raises(ValueError, match=r"weight of shape \(1,\) must have the input's"):
            loss(x, y, weight=_t([2.0]))


def test_weighted_regression_losses_match_pytorch() -> None:
    pt = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.random((3, 4))
    for name in ("mse_loss", "l1_loss", "huber_loss"):
        for reduction in ("mean", "sum", "none"):
            results = []
            for lib in (microtorch, pt):
                x = lib.tensor(a, requires_grad=True)
                loss = getattr(lib.nn.functional, name)(
                    x, lib.tensor(b), reduction=reduction, weight=lib.tensor(w)
                )
                loss.sum().backward()
                results.append((loss.detach().numpy(), x.grad.numpy()))
            for ours, theirs in zip(*results):
                np.testing.assert_allclose(ours, theirs, rtol=1e-12, err_msg=name + reduction)
