"""microtorch.utils.data samplers (Sequential, Random, SubsetRandom, WeightedRandom, Batch),
ChainDataset, StackDataset, default_convert, get_worker_info and how DataLoader takes the
samplers: against torch.utils.data wherever the result is deterministic (orders of
sequential samplers, batch structure, lengths, error types, dataset contents), and by
seeded statistics and properties where it is random (PyTorch's generator differs, so the
random orders themselves cannot be compared)."""

from __future__ import annotations

from collections import Counter, namedtuple

import numpy as np
import pytest

import microtorch
from microtorch.utils.data import (
    BatchSampler,
    ChainDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    StackDataset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_convert,
    get_worker_info,
)

Point = namedtuple("Point", "x y")


def _outcome(make, lib) -> tuple:
    """("ok", value) or ("error", its type name): what ``make(lib.utils.data)`` gives."""
    try:
        return ("ok", make(lib.utils.data))
    except Exception as error:  # noqa: BLE001 (the type is what is compared)
        return ("error", type(error).__name__)


# --- deterministic structure, checked against PyTorch -------------------------------------


@pytest.mark.parametrize("n", [0, 1, 7, 9])
@pytest.mark.parametrize("batch_size", [1, 3, 9, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sequential_and_batch_samplers_match_pytorch(n, batch_size, drop_last) -> None:
    pt = pytest.importorskip("torch")
    ours = BatchSampler(SequentialSampler(range(n)), batch_size, drop_last)
    theirs = pt.utils.data.BatchSampler(
        pt.utils.data.SequentialSampler(range(n)), batch_size, drop_last
    )
    assert (
        list(SequentialSampler(range(n))) == list(range(n))
        and len(SequentialSampler(range(n))) == n
    )
    assert list(ours) == list(theirs) and len(ours) == len(theirs)
    assert list(ours) == list(ours)  # every epoch again
    assert all(isinstance(batch, list) for batch in ours)


def test_batch_sampler_takes_any_iterable_and_len_counts_the_short_batch() -> None:
    assert list(BatchSampler([5, 2, 8, 1, 0], 2, False)) == [[5, 2], [8, 1], [0]]
    assert list(BatchSampler([5, 2, 8, 1, 0], 2, True)) == [[5, 2], [8, 1]]
    assert (
        len(BatchSampler(range(10), 3, False)) == 4 and len(BatchSampler(range(10), 3, True)) == 3
    )
    assert list(BatchSampler(iter(range(4)), 2, False)) == [[0, 1], [2, 3]]  # an iterator too


BAD_CALLS = {
    "random replacement not bool": lambda d: d.RandomSampler(range(3), replacement=1),
    "random num_samples 0": lambda d: d.RandomSampler(range(3), num_samples=0),
    "random num_samples float": lambda d: d.RandomSampler(range(3), num_samples=2.0),
    "random empty dataset": lambda d: d.RandomSampler([]),
    "weighted num_samples 0": lambda d: d.WeightedRandomSampler([1.0, 2.0], 0),
    "weighted num_samples bool": lambda d: d.WeightedRandomSampler([1.0, 2.0], True),
    "weighted num_samples float": lambda d: d.WeightedRandomSampler([1.0, 2.0], 1.0),
    "weighted replacement not bool": lambda d: d.WeightedRandomSampler([1.0, 2.0], 1, 1),
    "weighted 2-d weights": lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 1),
    "weighted negative": lambda d: list(d.WeightedRandomSampler([-1.0, 1.0], 1)),
    "weighted inf": lambda d: list(d.WeightedRandomSampler([float("inf"), 1.0], 1)),
    "weighted nan": lambda d: list(d.WeightedRandomSampler([float("nan"), 1.0], 1)),
    "weighted all zero": lambda d: list(d.WeightedRandomSampler([0.0, 0.0], 1)),
    "weighted all zero no replacement": lambda d: list(
        d.WeightedRandomSampler([0.0, 0.0], 1, False)
    ),
    "weighted more than len without replacement": lambda d: list(
        d.WeightedRandomSampler([1.0, 0.0, 0.0], 4, replacement=False)
    ),
    "weighted empty": lambda d: list(d.WeightedRandomSampler([], 1)),
    "batch size 0": lambda d: d.BatchSampler(range(3), 0, False),
    "batch size bool": lambda d: d.BatchSampler(range(3), True, False),
    "batch size float": lambda d: d.BatchSampler(range(3), 2.0, False),
    "batch drop_last not bool": lambda d: d.BatchSampler(range(3), 2, 1),
    "len of a sampler without __len__": lambda d: len(d.Sampler()),
    "iter of the base sampler": lambda d: list(d.Sampler()),
    "stack nothing": lambda d: d.StackDataset(),
    "stack both kinds": lambda d: d.StackDataset(range(2), a=range(2)),
    "stack sizes": lambda d: d.StackDataset(range(2), range(3)),
    "stack keyword sizes": lambda d: d.StackDataset(a=range(2), b=range(3)),
    "chain a map-style dataset": lambda d: list(d.ChainDataset([range(3)])),
    "len of a chain of a map-style dataset": lambda d: len(d.ChainDataset([range(3)])),
    "loader sampler and shuffle": lambda d: d.DataLoader(range(3), sampler=[0], shuffle=True),
    "loader batch_sampler and batch_size": lambda d: d.DataLoader(
        range(3), batch_sampler=[[0]], batch_size=2
    ),
    "loader batch_sampler and batch_size 0": lambda d: d.DataLoader(
        range(3), batch_sampler=[[0]], batch_size=0
    ),
    "loader batch_sampler and shuffle": lambda d: d.DataLoader(
        range(3), batch_sampler=[[0]], shuffle=True
    ),
    "loader batch_sampler and sampler": lambda d: d.DataLoader(
        range(3), batch_sampler=[[0]], sampler=[0]
    ),
    "loader batch_sampler and drop_last": lambda d: d.DataLoader(
        range(3), batch_sampler=[[0]], drop_last=True
    ),
    "loader no batching and drop_last": lambda d: d.DataLoader(
        range(3), batch_size=None, drop_last=True
    ),
    "loader batch_size bool": lambda d: d.DataLoader(range(3), batch_size=True),
    "loader drop_last not bool": lambda d: d.DataLoader(range(3), drop_last=1),
    "loader shuffle of an empty dataset": lambda d: d.DataLoader([], shuffle=True),
    "loader negative workers": lambda d: d.DataLoader(range(3), num_workers=-1),
    "loader negative timeout": lambda d: d.DataLoader(range(3), timeout=-1),
    "loader prefetch without workers": lambda d: d.DataLoader(range(3), prefetch_factor=2),
    "loader persistent without workers": lambda d: d.DataLoader(range(3), persistent_workers=True),
    "loader len of a sampler without len": lambda d: len(d.DataLoader(range(3), sampler=iter([0]))),
    "loader multiprocessing_context without workers": lambda d: d.DataLoader(
        range(3), multiprocessing_context="spawn"
    ),
    "loader unknown start method": lambda d: d.DataLoader(
        range(3), num_workers=1, multiprocessing_context="foo"
    ),
}


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_arguments_raise_what_pytorch_raises(name) -> None:
    pt = pytest.importorskip("torch")
    ours, theirs = (_outcome(BAD_CALLS[name], lib) for lib in (microtorch, pt))
    assert ours[0] == "error" and ours == theirs, (ours, theirs)


def test_error_messages_say_what_is_wrong() -> None:
    with pytest.raises(
        ValueError, match="num_samples should be a positive integer value, but got num_samples=0"
    ):
        RandomSampler([])
    with pytest.raises(ValueError, match=r"weights have shape \(1, 2\)"):
        WeightedRandomSampler([[1.0, 2.0]], 1)
    with pytest.raises(RuntimeError, match="inf, nan or an element < 0"):
        list(WeightedRandomSampler([-1.0, 1.0], 1))
    with pytest.raises(ValueError, match=r"Size mismatch between datasets, lengths \[2, 3\]"):
        StackDataset(range(2), range(3))
    with pytest.raises(AssertionError, match="only supports IterableDataset, got range"):
        list(ChainDataset([range(3)]))
    with pytest.raises(ValueError, match="batch_size=None option disables auto-batching"):
        DataLoader(range(3), batch_size=None, drop_last=True)
    with pytest.raises(
        ValueError, match="drop_last should be a boolean value, but got drop_last=1"
    ):
        BatchSampler(range(3), 2, 1)


def test_chain_and_stack_datasets_match_pytorch() -> None:
    pt = pytest.importorskip("torch")
    seen = []
    for lib in (microtorch, pt):
        d = lib.utils.data

        class Stream(d.IterableDataset):
            def __init__(self, items) -> None:
                self.items = list(items)

            def __iter__(self):
                return iter(self.items)

            def __len__(self) -> int:
                return len(self.items)

        chain = d.ChainDataset([Stream(range(3)), Stream("ab"), Stream([])])
        added = Stream([7]) + Stream([8, 9])  # ``+`` chains IterableDatasets
        by_position = d.StackDataset(range(3), "xyz", [[0], [1], [2]])
        by_name = d.StackDataset(n=range(3), s="xyz")
        seen.append(
            (
                list(chain),
                list(chain),  # a second pass streams it again
                len(chain),
                [by_position[i] for i in range(3)],
                by_position[-1],
                len(by_position),
                [by_name[i] for i in range(3)],
                len(by_name),
                [b for b in d.DataLoader(chain, batch_size=2, collate_fn=list)],
                len(d.DataLoader(chain, batch_size=2)),
                (type(added).__name__, list(added), len(added)),
                [b for b in d.DataLoader(by_position, batch_size=2, collate_fn=list)],
            )
        )
    assert seen[0] == seen[1]
    assert seen[0][0] == [0, 1, 2, "a", "b"] and seen[0][6][1] == {"n": 1, "s": "y"}


def test_stack_dataset_batches_through_default_collate() -> None:
    x, y = microtorch.arange(6.0).view(3, 2), microtorch.arange(3)
    stacked = StackDataset(x=TensorDataset(x), label=y)
    (batch,) = DataLoader(stacked, batch_size=3)
    assert batch["x"][0].shape == (3, 2) and batch["label"].tolist() == [0, 1, 2]
    assert isinstance(StackDataset(x, y)[1], tuple) and StackDataset(x, y)[1][1].item() == 1


def test_dataloader_builds_the_samplers_pytorch_builds() -> None:
    pt = pytest.importorskip("torch")

    def describe(loader) -> tuple:
        def name(obj):
            return type(obj).__name__ if obj is not None else None

        return (
            name(loader.sampler),
            name(loader.batch_sampler),
            loader.batch_size,
            loader.drop_last,
        )

    data = list(range(10))
    for options in (
        {},
        {"batch_size": 3},
        {"batch_size": 3, "shuffle": True},
        {"batch_size": 3, "drop_last": True},
        {"batch_size": None},
        {"batch_size": None, "shuffle": True},
    ):
        loaders = [lib.utils.data.DataLoader(data, **options) for lib in (microtorch, pt)]
        assert describe(loaders[0]) == describe(loaders[1]), options
    for lib in (microtorch, pt):
        grouped = lib.utils.data.DataLoader(data, batch_sampler=[[0, 1]])
        assert grouped.batch_size is None and grouped.drop_last is False
        assert isinstance(grouped.sampler, lib.utils.data.SequentialSampler)
    generator = microtorch.Generator().manual_seed(3)
    shuffled = DataLoader(data, batch_size=2, shuffle=True, generator=generator)
    assert isinstance(shuffled.sampler, RandomSampler) and shuffled.sampler.generator is generator
    assert shuffled.batch_sampler.sampler is shuffled.sampler


def test_dataloader_with_each_sampler_matches_pytorch_where_it_is_deterministic() -> None:
    pt = pytest.importorskip("torch")

    def run(lib) -> list:
        d = lib.utils.data
        data = list(range(10))
        out = []
        for loader in (
            d.DataLoader(data, batch_size=3, sampler=d.SequentialSampler(data)),
            d.DataLoader(data, batch_size=3, drop_last=True, sampler=[9, 1, 4, 4, 0]),
            d.DataLoader(data, batch_sampler=d.BatchSampler(range(10), 4, False)),
            d.DataLoader(data, batch_sampler=d.BatchSampler([3, 1, 2], 2, True)),
            d.DataLoader(data, batch_size=None, sampler=[2, 0]),
        ):
            out.append((len(loader), [b.tolist() if hasattr(b, "tolist") else b for b in loader]))
        # random samplers: the lengths, the batch sizes and (without replacement) which
        # indices appear
        for sampler, every_index in (
            (d.RandomSampler(data), True),
            (d.RandomSampler(data, num_samples=23), True),
            (d.RandomSampler(data, replacement=True, num_samples=37), False),
            (d.SubsetRandomSampler([4, 8, 9]), True),
            (d.WeightedRandomSampler([0.0, 1.0, 2.0, 0.0], 7), False),
            (d.WeightedRandomSampler([0.0, 1.0, 2.0, 0.0], 4, replacement=False), True),
        ):
            for drop_last in (False, True):
                loader = d.DataLoader(data, batch_size=4, sampler=sampler, drop_last=drop_last)
                batches = [b.tolist() for b in loader]
                indices = sorted(set(sum(batches, []))) if every_index and not drop_last else None
                out.append((len(loader), len(sampler), [len(b) for b in batches], indices))
        return out

    assert run(microtorch) == run(pt)


# --- the random samplers: seeded properties -------------------------------------------------


def test_random_sampler_draws_a_new_permutation_every_epoch_repeatably() -> None:
    sampler = RandomSampler(range(50))
    microtorch.manual_seed(4)
    epochs = [list(sampler) for _ in range(4)]
    assert all(sorted(e) == list(range(50)) for e in epochs) and len(sampler) == 50
    assert len({tuple(e) for e in epochs}) == 4  # a new order each epoch
    microtorch.manual_seed(4)
    assert [list(sampler) for _ in range(4)] == epochs  # the global seed repeats it
    a = RandomSampler(range(50), generator=microtorch.Generator().manual_seed(7))
    b = RandomSampler(range(50), generator=microtorch.Generator().manual_seed(7))
    assert list(a) == list(b) and list(a) != epochs[0]


def test_random_sampler_num_samples_chains_permutations_and_follows_the_dataset() -> None:
    drawn = list(RandomSampler(range(10), num_samples=25))
    assert len(drawn) == 25
    assert sorted(drawn[:10]) == sorted(drawn[10:20]) == list(range(10))  # whole permutations
    assert len(set(drawn[20:])) == 5  # then part of one, no repeats
    short = list(RandomSampler(range(10), num_samples=4))
    assert len(short) == 4 == len(set(short))
    data = list(range(3))
    sampler = RandomSampler(data)
    data.append(3)  # the dataset grew: so does the epoch, as in PyTorch
    assert len(sampler) == 4 and sorted(sampler) == [0, 1, 2, 3]


def test_random_sampler_with_replacement_is_uniform_over_many_draws() -> None:
    microtorch.manual_seed(11)
    drawn = list(RandomSampler(range(5), replacement=True, num_samples=20000))
    assert len(drawn) == 20000 and set(drawn) == set(range(5))
    counts = Counter(drawn)
    assert all(abs(counts[i] / 20000 - 0.2) < 0.015 for i in range(5))
    assert len(RandomSampler(range(5), replacement=True)) == 5  # num_samples defaults to len
    assert len(set(RandomSampler(range(1000), replacement=True))) < 1000  # repeats happen


def test_subset_random_sampler_permutes_its_indices_each_epoch() -> None:
    indices = [10, 3, 7, 42, 5, 8]
    sampler = SubsetRandomSampler(indices, generator=microtorch.Generator().manual_seed(2))
    epochs = [list(sampler) for _ in range(5)]
    assert all(sorted(e) == sorted(indices) for e in epochs) and len(sampler) == 6
    assert len({tuple(e) for e in epochs}) > 1
    again = SubsetRandomSampler(indices, generator=microtorch.Generator().manual_seed(2))
    assert [list(again) for _ in range(5)] == epochs


def test_weighted_random_sampler_respects_the_weights(device: str) -> None:
    weights = microtorch.tensor([1.0, 0.0, 3.0, 6.0], device=device)
    sampler = WeightedRandomSampler(weights, 30000, generator=microtorch.Generator().manual_seed(1))
    assert sampler.weights.dtype is microtorch.float64 and len(sampler) == 30000
    counts = Counter(sampler)
    assert counts[1] == 0 and sum(counts.values()) == 30000
    for i, p in ((0, 0.1), (2, 0.3), (3, 0.6)):
        assert abs(counts[i] / 30000 - p) < 0.015, (i, counts)
    microtorch.manual_seed(5)
    first = list(WeightedRandomSampler([1, 2, 3], 10))  # integer weights are fine
    microtorch.manual_seed(5)
    assert list(WeightedRandomSampler([1, 2, 3], 10)) == first


def test_weighted_random_sampler_without_replacement() -> None:
    microtorch.manual_seed(3)
    sampler = WeightedRandomSampler([5.0, 1.0, 0.0, 2.0, 0.0], 5, replacement=False)
    for _ in range(20):
        drawn = list(sampler)
        assert sorted(drawn) == [0, 1, 2, 3, 4]
        # as in PyTorch (no error): the indices of weight 0 come after all the others
        assert sorted(drawn[3:]) == [2, 4]
    firsts = Counter(next(iter(WeightedRandomSampler([9.0, 1.0], 1, False))) for _ in range(2000))
    assert abs(firsts[0] / 2000 - 0.9) < 0.03


def test_weighted_random_sampler_fills_with_zero_weights_as_pytorch_does() -> None:
    pt = pytest.importorskip("torch")
    for lib in (microtorch, pt):
        drawn = list(lib.utils.data.WeightedRandomSampler([1.0, 0.0, 0.0], 3, replacement=False))
        assert drawn[0] == 0 and sorted(drawn) == [0, 1, 2]


# --- Sampler subclasses, default_convert, get_worker_info, __getitems__ -------------------------


def test_a_sampler_subclass_drives_the_dataloader() -> None:
    class Reversed(Sampler[int]):  # (subscripting works, as in PyTorch)
        def __init__(self, n: int) -> None:
            self.n = n

        def __iter__(self):
            return iter(range(self.n - 1, -1, -1))

        def __len__(self) -> int:
            return self.n

    loader = DataLoader(TensorDataset(microtorch.arange(5)), batch_size=2, sampler=Reversed(5))
    assert [b[0].tolist() for b in loader] == [[4, 3], [2, 1], [0]] and len(loader) == 3
    with pytest.raises(TypeError):
        len(Sampler())
    with pytest.raises(NotImplementedError):
        iter(Sampler())


def test_datasets_and_samplers_take_type_parameters_as_in_pytorch() -> None:
    class Squares(Dataset[int]):
        def __getitem__(self, i: int) -> int:
            return i * i

        def __len__(self) -> int:
            return 4

    class Counting(IterableDataset[int]):
        def __iter__(self):
            return iter(range(3))

    assert [b.tolist() for b in DataLoader(Squares(), batch_size=3)] == [[0, 1, 4], [9]]
    assert list(DataLoader(Counting(), batch_size=None)) == [0, 1, 2]
    assert list(BatchSampler(SequentialSampler(Squares()), 2, False)) == [[0, 1], [2, 3]]


def test_default_convert_matches_pytorch() -> None:
    pt = pytest.importorskip("torch")

    def describe(value):
        if hasattr(value, "dtype") and not isinstance(value, (np.ndarray, np.generic)):
            return ("tensor", str(value.dtype).split(".")[-1], value.tolist())
        if isinstance(value, dict):
            return {k: describe(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return (type(value).__name__, [describe(v) for v in value])
        if isinstance(value, np.ndarray):
            return ("ndarray", value.tolist())
        return (type(value).__name__, value)

    samples = [
        np.arange(3),
        np.float32(1.5),
        np.array(["a", "b"]),
        {"a": np.ones(2), "b": "text"},
        (np.int64(1), 2),
        [np.zeros(2), 3.0],
        Point(np.array(1), np.array(2.0)),
        5,
        "word",
    ]
    for sample in samples:
        mine = describe(default_convert(sample))
        theirs = describe(pt.utils.data.default_convert(sample))
        assert mine == theirs, sample
    assert isinstance(default_convert(Point(1, 2)), Point)


def test_get_worker_info_is_none_without_workers() -> None:
    pt = pytest.importorskip("torch")
    assert get_worker_info() is None and pt.utils.data.get_worker_info() is None
    seen = []

    class Asking(IterableDataset):
        def __iter__(self):
            seen.append(get_worker_info())
            return iter(range(2))

    assert len(list(DataLoader(Asking(), num_workers=2))) == 2 and seen == [None]


def _batched_dataset(lib, asked: list) -> type:
    """A dataset class of ``lib`` with __getitems__, noting in ``asked`` how it was read."""

    class Batched(lib.utils.data.Dataset):
        def __getitem__(self, i):
            asked.append(("one", i))
            return i

        def __getitems__(self, indices):
            asked.append(("many", list(indices)))
            return [10 * i for i in indices]

        def __len__(self) -> int:
            return 5

    return Batched


def test_a_dataset_with_getitems_is_asked_for_whole_batches_as_in_pytorch() -> None:
    pt = pytest.importorskip("torch")
    seen = []
    for lib in (microtorch, pt):
        asked = []
        Batched = _batched_dataset(lib, asked)
        batches = [b.tolist() for b in lib.utils.data.DataLoader(Batched(), batch_size=2)]
        one_by_one = list(lib.utils.data.DataLoader(Batched(), batch_size=None))
        seen.append((batches, one_by_one, asked))
    assert seen[0] == seen[1]
    assert seen[0][0] == [[0, 10], [20, 30], [40]]


def test_subset_and_stack_dataset_fetch_batches_through_getitems_as_pytorch() -> None:
    """Subset and StackDataset had no __getitems__, so a DataLoader over them read the
    inner dataset's samples one by one, skipping its batched __getitems__."""

    def batches(lib) -> list:
        data = lib.utils.data

        class Batched(data.Dataset):
            def __getitem__(self, i):
                return i

            def __len__(self):
                return 3

            def __getitems__(self, indices):
                return [("batched", i) for i in indices]

        subset = data.Subset(Batched(), [2, 0, 1])
        stacked = data.StackDataset(Batched(), [7, 8, 9])
        named = data.StackDataset(a=Batched(), b=list(range(3)))
        return [
            list(data.DataLoader(d, batch_size=2, collate_fn=lambda b: b))
            for d in (subset, stacked, named)
        ]

    ours = batches(microtorch)
    assert ours[0] == [[("batched", 2), ("batched", 0)], [("batched", 1)]]
    assert ours[1][0] == [(("batched", 0), 7), (("batched", 1), 8)]
    assert ours[2][1] == [{"a": ("batched", 2), "b": 2}]
    torch = pytest.importorskip("torch")
    assert ours == batches(torch)
