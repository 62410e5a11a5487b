"""microtorch.utils.data: datasets, random_split, default_collate and the DataLoader, checked
by hand and, where PyTorch is installed, batch for batch against torch.utils.data."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import microtorch
from microtorch.utils.data import (
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    default_collate,
    default_convert,
    random_split,
)

Pair = namedtuple("Pair", "a b")


def test_tensor_dataset_batches_in_order_with_a_short_last_batch(device: str) -> None:
    x = microtorch.arange(10.0, device=device).view(5, 2)
    y = microtorch.arange(5, device=device)
    loader = DataLoader(TensorDataset(x, y), batch_size=2)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    xb, yb = batches[0]
    assert xb.shape == (2, 2) and xb.device == device and yb.tolist() == [0, 1]
    assert batches[2][1].tolist() == [4]  # the rest
    dropped = DataLoader(TensorDataset(x, y), batch_size=2, drop_last=True)
    assert len(dropped) == 2 and [b[1].tolist() for b in dropped] == [[0, 1], [2, 3]]


def test_shuffle_follows_manual_seed_and_covers_every_sample() -> None:
    data = TensorDataset(microtorch.arange(7))

    def epoch() -> list:
        return [
            i for (batch,) in DataLoader(data, batch_size=3, shuffle=True) for i in batch.tolist()
        ]

    microtorch.manual_seed(1)
    first, second = epoch(), epoch()
    microtorch.manual_seed(1)
    assert epoch() == first  # repeatable
    assert sorted(first) == list(range(7)) and first != second  # a new order each epoch
    generator = microtorch.Generator().manual_seed(5)
    own = DataLoader(data, batch_size=7, shuffle=True, generator=generator)
    assert sorted(next(iter(own))[0].tolist()) == list(range(7))


def test_default_collate_by_kind_of_sample() -> None:
    assert default_collate([1, 2]).dtype is microtorch.int64
    assert default_collate([0.5, 1.0]).dtype is microtorch.float64  # as in PyTorch
    assert default_collate([True, False]).dtype is microtorch.bool
    assert default_collate([np.ones(3), np.zeros(3)]).shape == (2, 3)
    assert default_collate(["a", "b"]) == ["a", "b"]
    fields = default_collate([(microtorch.ones(2), 1), (microtorch.zeros(2), 2)])
    assert isinstance(fields, list) and fields[0].shape == (2, 2) and fields[1].tolist() == [1, 2]
    batch = default_collate([{"x": 1, "y": np.ones(2)}, {"x": 2, "y": np.ones(2)}])
    assert batch["x"].tolist() == [1, 2] and batch["y"].shape == (2, 2)
    pair = default_collate([Pair(1, 2.0), Pair(3, 4.0)])
    assert isinstance(pair, Pair) and pair.a.tolist() == [1, 3]
    with pytest.raises(TypeError, match="found NoneType"):
        default_collate([None, None])


@pytest.mark.parametrize(
    "batch, dtype, values",
    [
        ([1, 2.5], "float32", [1.0, 2.5]),  # an int first, a float later: not truncated
        ([True, 2], "int64", [1, 2]),
        ([True, 2.5], "float32", [1.0, 2.5]),
        ([1.0, 2], "float64", [1.0, 2.0]),
    ],
)
def test_default_collate_of_mixed_numbers_takes_the_whole_batchs_dtype(batch, dtype, values):
    collated = default_collate(batch)
    assert str(collated.dtype) == f"microtorch.{dtype}" and collated.tolist() == values
    try:
        import torch
    except ImportError:
        return
    theirs = torch.utils.data.default_collate(batch)
    assert str(theirs.dtype) == f"torch.{dtype}" and theirs.tolist() == values


def test_collate_and_convert_keep_a_defaultdict_and_other_mappings() -> None:
    """defaultdict(int) cannot be built from a dict (TypeError before); PyTorch copies
    the first sample's mapping and updates it, so the default_factory stays."""
    from collections import OrderedDict, defaultdict

    samples = [defaultdict(int, a=1), defaultdict(int, a=2)]
    batch = default_collate(samples)
    assert type(batch) is defaultdict and batch.default_factory is int
    assert batch["a"].tolist() == [1, 2] and batch["missing"] == 0
    converted = default_convert(defaultdict(list, x=np.zeros(2)))
    assert type(converted) is defaultdict and isinstance(converted["x"], microtorch.Tensor)
    ordered = default_collate([OrderedDict(b=1.0, a=2.0)] * 2)
    assert type(ordered) is OrderedDict and list(ordered) == ["b", "a"]
    torch = pytest.importorskip("torch")
    theirs = torch.utils.data.default_collate(samples)
    assert type(theirs) is defaultdict and theirs.default_factory is int


def test_samplers_batch_samplers_collate_fn_and_no_batching() -> None:
    data = TensorDataset(microtorch.arange(5))
    picked = DataLoader(data, batch_size=2, sampler=[4, 0, 2])
    assert [b[0].tolist() for b in picked] == [[4, 0], [2]] and len(picked) == 2
    grouped = DataLoader(data, batch_sampler=[[1, 3], [0]])
    assert [b[0].tolist() for b in grouped] == [[1, 3], [0]]
    assert list(DataLoader(data, batch_size=2, collate_fn=len)) == [2, 2, 1]
    one_by_one = list(DataLoader(data, batch_size=None))
    assert len(one_by_one) == 5 and one_by_one[2][0].shape == ()


def test_iterable_dataset_is_batched_as_it_streams() -> None:
    class Counting(IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in DataLoader(Counting(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(list(DataLoader(Counting(), batch_size=3, drop_last=True))) == 2
    with pytest.raises(ValueError, match="IterableDataset: shuffle, sampler and batch_sampler"):
        DataLoader(Counting(), shuffle=True)


def test_subset_concat_and_random_split() -> None:
    data = TensorDataset(microtorch.arange(5))
    assert [s[0].item() for s in Subset(data, [4, 0])] == [4, 0]
    both = data + data
    assert isinstance(both, ConcatDataset) and len(both) == 10 and both[7][0].item() == 2
    assert both[-1][0].item() == 4
    train, val = random_split(data, [3, 2], generator=microtorch.Generator().manual_seed(0))
    assert sorted(train.indices + val.indices) == list(range(5))
    assert [len(p) for p in random_split(range(11), [0.5, 0.3, 0.2])] == [6, 3, 2]


def test_bad_arguments_say_what_is_wrong() -> None:
    data = TensorDataset(microtorch.arange(5))
    with pytest.raises(AssertionError, match=r"first dim in common, got shapes \[\(2,\), \(3,\)\]"):
        TensorDataset(microtorch.ones(2), microtorch.ones(3))
    with pytest.raises(ValueError, match=r"sum of input lengths \(4\) does not equal .* \(5\)"):
        random_split(data, [2, 2])
    with pytest.raises(ValueError, match="batch_size should be a positive integer, got 0"):
        DataLoader(data, batch_size=0)
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(data, shuffle=True, sampler=[0])
    with pytest.raises(TypeError, match=r"unexpected arguments \['batchsize'\]"):
        DataLoader(data, batchsize=2)
    with pytest.raises(NotImplementedError, match="must define __getitem__"):
        Dataset()[0]  # (a TypeError before; PyTorch's is NotImplementedError)


DATASET_ERRORS = {  # PyTorch's error types (its asserts, and tensors[0].size(0))
    "TensorDataset of sizes 3 and 4": (
        lambda d, T: d.TensorDataset(T.zeros(3), T.zeros(4)), AssertionError),
    "TensorDataset of a 0-d tensor": (lambda d, T: d.TensorDataset(T.tensor(1.0)), IndexError),
    "len of a TensorDataset of no tensors": (lambda d, T: len(d.TensorDataset()), IndexError),
    "ConcatDataset of nothing": (lambda d, T: d.ConcatDataset([]), AssertionError),
    "ConcatDataset of an IterableDataset": (
        lambda d, T: d.ConcatDataset([[1], d.ChainDataset([])]), AssertionError),
    "Dataset without __getitem__, indexed": (lambda d, T: d.Dataset()[0], NotImplementedError),
}  # fmt: skip


@pytest.mark.parametrize("name", list(DATASET_ERRORS))
def test_dataset_errors_have_pytorchs_types(name) -> None:
    """These were ValueError / TypeError."""
    make, error = DATASET_ERRORS[name]
    with pytest.raises(error) as ours:
        make(microtorch.utils.data, microtorch)
    assert type(ours.value) is error
    torch = pytest.importorskip("torch")
    with pytest.raises(error) as theirs:
        make(torch.utils.data, torch)
    assert type(theirs.value) is error


def test_batches_match_pytorch() -> None:
    pt = pytest.importorskip("torch")

    def samples(lib, i):
        return {"x": lib.ones(2) * i, "n": i, "f": i / 2, "pair": (np.arange(2) + i, f"s{i}")}

    def describe(value):
        if (
            hasattr(value, "dtype")
            and hasattr(value, "tolist")
            and not isinstance(value, np.ndarray)
        ):
            return ("tensor", str(value.dtype).split(".")[-1], value.tolist())
        if isinstance(value, dict):
            return {k: describe(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return (type(value).__name__, [describe(v) for v in value])
        return value

    for options in ({"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None}):
        seen = []
        for lib in (microtorch, pt):
            data = [samples(lib, i) for i in range(5)]
            seen.append([describe(b) for b in lib.utils.data.DataLoader(data, **options)])
        assert seen[0] == seen[1], options


def test_the_submodules_pytorch_code_imports_from() -> None:
    """``from torch.utils.data.dataloader import default_collate`` and the like: the names
    live in the same submodules as in PyTorch (dataset, sampler, dataloader)."""
    from microtorch.utils.data import dataloader, dataset, sampler

    assert dataloader.DataLoader is microtorch.utils.data.DataLoader
    assert dataloader.default_collate is microtorch.utils.data.default_collate
    assert {"Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split"} <= set(
        dir(dataset)
    )
    assert {"Sampler", "RandomSampler", "BatchSampler", "WeightedRandomSampler"} <= set(
        dir(sampler)
    )
    torch = pytest.importorskip("torch")
    for name in ("dataset", "sampler", "dataloader"):
        theirs = vars(getattr(torch.utils.data, name))
        ours = vars({"dataset": dataset, "sampler": sampler, "dataloader": dataloader}[name])
        for public in microtorch.utils.data.__all__:  # each of ours where PyTorch defines it
            home = getattr(theirs.get(public), "__module__", "")
            if home == f"torch.utils.data.{name}":
                assert public in ours, f"microtorch.utils.data.{name} lacks {public}"
