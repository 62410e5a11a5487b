"""nn.utils.prune against PyTorch: the same masks where the method is deterministic (L1,
Ln, custom, global; weights without ties), the same counts where it is random, iterative
pruning through a PruningContainer, the state_dict keys and a state_dict loaded across, the
hook recomputing the weight (and the gradient reaching only what is kept), remove, is_pruned
and the amount checks."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch import nn
from microtorch.nn.utils import prune

torch = pytest.importorskip("torch")
tprune = pytest.importorskip("torch.nn.utils.prune")  # (torch does not import it itself)


def _twins(*shape: int, seed: int = 0) -> tuple:
    """A microtorch and a torch Linear (or Conv2d for 4-D shapes) with the same weights
    (all magnitudes distinct), and the weights as an array."""
    rng = np.random.default_rng(seed)
    w = rng.permutation(np.arange(1, int(np.prod(shape)) + 1)).reshape(shape) / 10.0
    w *= rng.choice([-1.0, 1.0], size=shape)
    if len(shape) == 2:
        ours, theirs = nn.Linear(shape[1], shape[0]), torch.nn.Linear(shape[1], shape[0])
    else:
        ours = nn.Conv2d(shape[1], shape[0], shape[2:])
        theirs = torch.nn.Conv2d(shape[1], shape[0], shape[2:])
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(w, dtype=torch.float32))
        theirs.bias.copy_(torch.arange(shape[0], dtype=torch.float32))
    ours.load_state_dict({k: microtorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _same_mask(ours: nn.Module, theirs: torch.nn.Module, name: str = "weight") -> None:
    np.testing.assert_array_equal(getattr(ours, name + "_mask").numpy(),
                                  getattr(theirs, name + "_mask").numpy())  # fmt: skip
    np.testing.assert_array_equal(getattr(ours, name).detach().numpy(),
                                  getattr(theirs, name).detach().numpy())  # fmt: skip


@pytest.mark.parametrize("amount", [0, 3, 0.3, 0.25, 1.0, 12])
def test_l1_unstructured_prunes_the_smallest_magnitudes_as_pytorch(amount: float) -> None:
    ours, theirs = _twins(3, 4)
    prune.l1_unstructured(ours, "weight", amount=amount)
    tprune.l1_unstructured(theirs, "weight", amount=amount)
    _same_mask(ours, theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight_orig",
                                                                    "weight_mask"]  # fmt: skip
    assert [n for n, _ in ours.named_parameters()] == ["bias", "weight_orig"]
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("n", [1, 2, 3, float("inf"), float("-inf"), "fro"])
@pytest.mark.parametrize("shape", [(4, 3, 2, 2), (5, 4)])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured_prunes_the_channels_of_smallest_norm_as_pytorch(n: object, shape: tuple,
                                                                       dim: int) -> None:  # fmt: skip
    ours, theirs = _twins(*shape, seed=dim + 5)
    if n == "fro" and len(shape) > 2:  # torch.norm's "fro" takes two dims only, as ours
        for lib, module in ((prune, ours), (tprune, theirs)):
            with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
                lib.ln_structured(module, "weight", amount=0.5, n=n, dim=dim)
        return
    prune.ln_structured(ours, "weight", amount=0.5, n=n, dim=dim)
    tprune.ln_structured(theirs, "weight", amount=0.5, n=n, dim=dim)
    _same_mask(ours, theirs)


def test_iterative_pruning_composes_masks_in_a_container_as_pytorch() -> None:
    ours, theirs = _twins(6, 5, seed=2)
    steps = [
        ("l1_unstructured", {"amount": 0.2}),
        ("ln_structured", {"amount": 1, "n": 1, "dim": 0}),
        ("l1_unstructured", {"amount": 5}),
        ("ln_structured", {"amount": 0.4, "n": 2, "dim": 1}),
        ("l1_unstructured", {"amount": 0.5}),
    ]
    for step, kwargs in steps:
        getattr(prune, step)(ours, "weight", **kwargs)
        getattr(tprune, step)(theirs, "weight", **kwargs)
        _same_mask(ours, theirs)
    (hook,) = [entry[0] for entry in ours._forward_pre_hooks.values()]
    assert isinstance(hook, prune.PruningContainer) and len(hook) == len(steps)
    assert [type(m).__name__ for m in hook] == ["L1Unstructured", "LnStructured",
                                                "L1Unstructured", "LnStructured",
                                                "L1Unstructured"]  # fmt: skip
    x = np.random.default_rng(0).standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_allclose(ours(microtorch.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-6)  # fmt: skip


def test_a_pytorch_state_dict_of_a_pruned_layer_loads_and_gives_the_same_numbers() -> None:
    theirs = torch.nn.Linear(5, 3)
    tprune.random_unstructured(theirs, "weight", amount=0.4)
    ours = nn.Linear(5, 3)
    prune.identity(ours, "weight")
    ours.load_state_dict({k: microtorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(ours(microtorch.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-6)  # fmt: skip


def test_the_hook_recomputes_the_weight_and_the_gradient_reaches_only_kept_entries() -> None:
    ours, _ = _twins(3, 4)
    prune.l1_unstructured(ours, "weight", amount=5)
    mask = ours.weight_mask.numpy().copy()
    with microtorch.no_grad():
        ours.weight_orig.add_(1.0)  # the hook sees the change at the next forward
    out = ours(microtorch.ones(2, 4))
    np.testing.assert_array_equal(ours.weight.detach().numpy(),
                                  mask * ours.weight_orig.detach().numpy())  # fmt: skip
    out.sum().backward()
    np.testing.assert_array_equal(ours.weight_orig.grad.numpy(), 2 * mask)
    assert isinstance(ours.weight, microtorch.Tensor) and not isinstance(ours.weight, nn.Parameter)
    assert ours.weight_mask.requires_grad is False and "weight" not in ours._parameters


def test_remove_makes_the_pruning_permanent_as_pytorch() -> None:
    ours, theirs = _twins(3, 4)
    for lib, module in ((prune, ours), (tprune, theirs)):
        lib.random_unstructured(module, "bias", amount=1)
        lib.l1_unstructured(module, "weight", amount=4)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    prune.remove(ours, "weight"), tprune.remove(theirs, "weight")
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias_orig", "weight",
                                                                    "bias_mask"]  # fmt: skip
    assert isinstance(ours.weight, nn.Parameter)
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
    assert prune.is_pruned(ours)
    prune.remove(ours, "bias")
    assert not prune.is_pruned(ours) and not prune.is_pruned(nn.Sequential(nn.Linear(2, 2)))
    assert prune.is_pruned(nn.Sequential(prune.identity(nn.Linear(2, 2), "weight")))
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(ours, "weight")


def test_random_methods_prune_the_right_counts_from_the_seeded_generator() -> None:
    layer = nn.Conv2d(4, 6, 3)
    microtorch.manual_seed(0)
    prune.random_unstructured(layer, "weight", amount=0.3)
    first = layer.weight_mask.numpy().copy()
    assert (first == 0).sum() == round(0.3 * 216)
    prune.random_structured(layer, "weight", amount=2, dim=0)
    mask = layer.weight_mask.numpy()
    gone = (mask.reshape(6, -1) == 0).all(1)
    assert gone.sum() >= 2 and (mask <= first).all()  # two more channels (and the old zeros)
    assert ((mask.reshape(6, -1) == first.reshape(6, -1)) | gone[:, None]).all()
    again = nn.Conv2d(4, 6, 3)
    microtorch.manual_seed(0)
    prune.random_unstructured(again, "weight", amount=0.3)
    np.testing.assert_array_equal(again.weight_mask.numpy(), first)  # the same seed: same mask


def test_global_unstructured_prunes_the_smallest_over_all_parameters_as_pytorch() -> None:
    (a, ta), (b, tb) = _twins(3, 4, seed=3), _twins(2, 3, seed=4)
    prune.l1_unstructured(b, "weight", amount=1)  # one of them pruned before
    tprune.l1_unstructured(tb, "weight", amount=1)
    scores = {(a, "weight"): a.weight.abs() * 2}
    tscores = {(ta, "weight"): ta.weight.abs() * 2}
    prune.global_unstructured([(a, "weight"), (b, "weight"), (b, "bias")],
                              prune.L1Unstructured, importance_scores=scores, amount=7)  # fmt: skip
    tprune.global_unstructured([(ta, "weight"), (tb, "weight"), (tb, "bias")],
                               tprune.L1Unstructured, importance_scores=tscores, amount=7)  # fmt: skip
    for ours, theirs, name in ((a, ta, "weight"), (b, tb, "weight"), (b, tb, "bias")):
        _same_mask(ours, theirs, name)
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE'):
        prune.global_unstructured([(a, "weight")], prune.RandomStructured, amount=1)
    with pytest.raises(TypeError, match="parameters is not an Iterable"):
        prune.global_unstructured(3, prune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match="importance_scores must be of type dict"):
        prune.global_unstructured([(a, "weight")], prune.L1Unstructured, [1], amount=1)


def test_custom_from_mask_and_importance_scores_as_pytorch() -> None:
    ours, theirs = _twins(3, 4)
    keep = np.random.default_rng(5).random((3, 4)) > 0.4
    prune.custom_from_mask(ours, "weight", microtorch.tensor(keep))
    tprune.custom_from_mask(theirs, "weight", torch.tensor(keep))
    _same_mask(ours, theirs)
    assert ours.weight_mask.dtype is microtorch.float32
    scores = np.arange(12.0).reshape(3, 4)[::-1].copy()
    prune.l1_unstructured(ours, "weight", 2, importance_scores=microtorch.tensor(scores))
    tprune.l1_unstructured(theirs, "weight", 2, importance_scores=torch.tensor(scores))
    _same_mask(ours, theirs)
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.l1_unstructured(ours, "weight", 1, importance_scores=microtorch.ones(2))


def test_the_methods_alone_and_the_amount_checks_as_pytorch() -> None:
    t = microtorch.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(prune.L1Unstructured(2).prune(t).numpy(),
                                  [[0, 0, 2], [3, 4, 5]])  # fmt: skip
    ten = microtorch.arange(10.0)
    assert prune.L1Unstructured(0.45).compute_mask(ten, microtorch.ones(10)).sum().item() == 6
    assert prune.L1Unstructured(0.25).compute_mask(ten, microtorch.ones(10)).sum().item() == 8
    assert (prune.Identity.PRUNING_TYPE, prune.LnStructured.PRUNING_TYPE,
            prune.CustomFromMask.PRUNING_TYPE) == ("unstructured", "structured", "global")  # fmt: skip
    layer = nn.Linear(4, 3)
    for amount, error in ((1.5, ValueError), (-1, ValueError), ("a", TypeError),
                          (100, ValueError)):  # fmt: skip
        with pytest.raises(error, match="amount"):
            prune.l1_unstructured(layer, "weight", amount=amount)
    assert "weight" in layer._parameters and not layer._forward_pre_hooks  # nothing changed
    with pytest.raises(ValueError, match="Structured pruning can only be applied"):
        prune.ln_structured(layer, "bias", amount=1, n=1, dim=0)
    with pytest.raises(IndexError, match="Invalid index 2"):
        prune.ln_structured(layer, "weight", amount=1, n=1, dim=2)
    with pytest.raises(AttributeError):
        prune.l1_unstructured(layer, "nothere", amount=1)
    with pytest.raises(ValueError, match="Can only add pruning methods acting on"):
        container = prune.PruningContainer()
        container._tensor_name = "weight"
        other = prune.Identity()
        other._tensor_name = "bias"
        container.add_pruning_method(other)
