"""torch.nn.modules.*: PyTorch code imports classes from PyTorch's module paths
(``from torch.nn.modules.loss import _Loss``, ``torch.nn.modules.batchnorm._BatchNorm`` in
isinstance checks, ``from torch.nn.modules.utils import _pair``); those paths exist here and
name the same classes as ``nn``."""

from __future__ import annotations

import collections
import importlib
import inspect

import pytest

import microtorch
from microtorch import nn


def test_the_common_paths_name_nn_classes() -> None:
    from microtorch.nn.modules.batchnorm import _BatchNorm
    from microtorch.nn.modules.conv import _ConvNd
    from microtorch.nn.modules.loss import _Loss, _WeightedLoss
    from microtorch.nn.modules.module import Module

    assert Module is nn.Module and nn.modules.Linear is nn.Linear
    assert isinstance(nn.BatchNorm2d(3), _BatchNorm) and not isinstance(nn.LayerNorm(3), _BatchNorm)
    assert isinstance(nn.Conv1d(1, 1, 1), _ConvNd)
    assert isinstance(nn.CrossEntropyLoss(), _WeightedLoss) and isinstance(nn.MSELoss(), _Loss)
    assert not isinstance(nn.MSELoss(), _WeightedLoss)
    assert nn.modules.sparse.Embedding is nn.Embedding and nn.modules.fold.Fold is nn.Fold


def test_every_class_pytorch_keeps_under_a_path_is_there_when_nn_has_it() -> None:
    """For each torch.nn.modules.<file>, each class microtorch.nn has by the same name is
    importable from microtorch.nn.modules.<file> (and is nn's class)."""
    torch = pytest.importorskip("torch")
    checked = 0
    for name in dir(microtorch.nn.modules):
        ours = getattr(microtorch.nn.modules, name)
        if not inspect.ismodule(ours) or name == "utils":
            continue
        theirs = importlib.import_module(f"torch.nn.modules.{name}")
        for cls_name, cls in vars(theirs).items():
            if not inspect.isclass(cls) or cls.__module__ != theirs.__name__:
                continue
            if hasattr(nn, cls_name):
                assert getattr(ours, cls_name) is getattr(nn, cls_name), (name, cls_name)
                checked += 1
    assert checked > 100
    assert torch.nn.modules.loss._WeightedLoss  # (the reference has the bases we mirror)


def test_a_custom_loss_on_the_base_class_gets_reduction_as_in_pytorch() -> None:
    from microtorch.nn.modules.loss import _Loss, _WeightedLoss

    class Squared(_Loss):
        def forward(self, a: microtorch.Tensor, b: microtorch.Tensor) -> microtorch.Tensor:
            d = (a - b) ** 2
            return d.sum() if self.reduction == "sum" else d.mean()

    assert Squared().reduction == "mean" and Squared(reduction="sum").reduction == "sum"
    with pytest.warns(UserWarning, match="Squared: size_average and reduce are deprecated"):
        assert Squared(size_average=False).reduction == "sum"
    weighted = _WeightedLoss(microtorch.ones(3))
    assert [name for name, _ in weighted.named_buffers()] == ["weight"]
    assert _WeightedLoss().weight is None
    assert nn.KLDivLoss(reduction="batchmean").reduction == "batchmean"


def test_the_utils_match_pytorch() -> None:
    from microtorch.nn.modules.utils import (
        _ntuple,
        _pair,
        _reverse_repeat_tuple,
        _single,
        _triple,
        consume_prefix_in_state_dict_if_present,
    )

    assert (_single(2), _pair(3), _triple(1), _pair((4, 5)), _pair([1, 2])) == (
        (2,), (3, 3), (1, 1, 1), (4, 5), (1, 2),
    )  # fmt: skip
    assert _ntuple(4)(0) == (0, 0, 0, 0) and _reverse_repeat_tuple((2, 3), 2) == (3, 3, 2, 2)
    state = collections.OrderedDict([("module.a", 1), ("b", 2), ("module.c", 3)])
    state._metadata = {"": 1, "module": 2, "module.x": 3, "y": 4}
    consume_prefix_in_state_dict_if_present(state, "module.")
    assert list(state.items()) == [("b", 2), ("a", 1), ("c", 3)]
    assert state._metadata == {"": 2, "y": 4, "x": 3}
    torch = pytest.importorskip("torch")
    theirs = collections.OrderedDict([("module.a", 1), ("b", 2), ("module.c", 3)])
    theirs._metadata = {"": 1, "module": 2, "module.x": 3, "y": 4}
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(theirs, "module.")
    assert list(theirs.items()) == list(state.items()) and theirs._metadata == state._metadata
    assert torch.nn.modules.utils._pair("ab") == _pair("ab")


def test_common_types_has_pytorchs_aliases() -> None:
    """nn.common_types: the aliases PyTorch code annotates with, the same unions."""
    import typing

    from microtorch.nn.common_types import _ratio_2_t, _size_2_opt_t, _size_2_t, _size_any_t

    assert typing.get_args(_size_2_t) == (int, tuple[int, int])
    assert typing.get_args(_size_any_t) == (int, tuple[int, ...])
    assert typing.get_args(_ratio_2_t) == (float, tuple[float, float])
    assert tuple[int | None, int | None] in typing.get_args(_size_2_opt_t)
    torch = pytest.importorskip("torch")
    theirs = {n for n in vars(torch.nn.common_types) if n.startswith("_") and n.endswith("_t")}
    assert theirs and theirs <= set(vars(nn.common_types))
    for name in theirs - {"_tensor_list_t", "_maybe_indices_t"}:  # (those name torch.Tensor)
        assert repr(getattr(nn.common_types, name)) == repr(getattr(torch.nn.common_types, name))
