"""Datasets and the DataLoader that batches them, as in ``torch.utils.data``.

A *dataset* maps an index to one sample (``dataset[i]``, with ``len(dataset)``); an
*iterable dataset* just yields samples. A ``DataLoader`` walks a dataset in order or
shuffled, groups samples into batches and *collates* each batch: a list of samples becomes
one sample of stacked tensors. The order comes from a *sampler*, which yields the indices to
read (SequentialSampler; RandomSampler for ``shuffle=True``; or any iterable of indices),
and a *batch sampler* groups them into lists, one per batch (BatchSampler).

    data = TensorDataset(x, y)                     # sample i is (x[i], y[i])
    loader = DataLoader(data, batch_size=32, shuffle=True)
    for xb, yb in loader:                          # xb: (32, ...), yb: (32, ...)
        ...

Everything runs in the calling process: ``num_workers``, ``pin_memory``, ``timeout``,
``worker_init_fn`` and the other worker options are accepted for PyTorch code and change
nothing about which batches come out (only how fast they would in PyTorch).
"""

from __future__ import annotations

import bisect
import copy
import itertools
import math
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence, Sized
from typing import Any, Generic, TypeVar

import numpy

from .. import factories
from .. import functional as F
from .._tensor import Tensor
from ..random import Generator, multinomial, randint, randperm

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__(index)`` and ``__len__()``
    (``Dataset[int]`` names one of int samples, for type hints, as in PyTorch)."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__()")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A dataset that yields its samples (``__iter__``) instead of being indexed."""

    def __iter__(self) -> Iterator:
        raise TypeError(f"{type(self).__name__} must define __iter__()")

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample i is ``(t[i] for t in tensors)``; the tensors share their first dim."""

    def __init__(self, *tensors: Tensor) -> None:
        shapes = [tuple(t.shape) for t in tensors]
        if () in shapes:  # (PyTorch's error: it reads each tensor's size(0))
            raise IndexError(
                f"TensorDataset: each tensor needs a first dim to index samples by, got shapes "
                f"{shapes}"
            )
        if len({shape[0] for shape in shapes}) > 1:  # an AssertionError, as in PyTorch
            raise AssertionError(
                f"TensorDataset: Size mismatch between tensors: they must have one first dim "
                f"in common, got shapes {shapes}"
            )
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index: int) -> Any:
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list:
        """The samples at several indices at once, through the dataset's own __getitems__
        when it has one (the DataLoader asks for a batch this way), as in PyTorch."""
        return _fetch(self.dataset, [self.indices[i] for i in indices])

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after the other (``a + b`` makes one)."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:  # (AssertionErrors, as in PyTorch)
            raise AssertionError("ConcatDataset: datasets should not be an empty iterable")
        self.cumulative_sizes = []  # the index where each dataset ends
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError(
                    "ConcatDataset does not support IterableDataset; chain iterable datasets "
                    "with ChainDataset"
                )
            end = len(d) + (self.cumulative_sizes[-1] if self.cumulative_sizes else 0)
            self.cumulative_sizes.append(end)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class ChainDataset(IterableDataset):
    """Several IterableDatasets one after the other, streamed as they are read."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator:
        for d in self.datasets:
            _check_iterable(d)
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            _check_iterable(d)
            total += len(d)
        return total


def _check_iterable(dataset: Any) -> None:
    """ChainDataset chains IterableDatasets only (an AssertionError otherwise, as in PyTorch)."""
    if not isinstance(dataset, IterableDataset):
        raise AssertionError(
            f"ChainDataset only supports IterableDataset, got {type(dataset).__name__}; "
            "for map-style datasets use ConcatDataset"
        )


class StackDataset(Dataset):
    """Datasets of one length zipped by index: sample i is ``(a[i], b[i], ...)`` for
    ``StackDataset(a, b)``, or ``{"x": a[i], "y": b[i]}`` for ``StackDataset(x=a, y=b)``."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError(
                "StackDataset: give the datasets either positionally (samples are tuples) or "
                "by keyword (samples are dicts), not both"
            )
        if not args and not kwargs:
            raise ValueError("StackDataset: At least one dataset should be passed")
        self.datasets = args or kwargs
        lengths = [len(d) for d in (args or kwargs.values())]
        if len(set(lengths)) != 1:
            raise ValueError(f"StackDataset: Size mismatch between datasets, lengths {lengths}")
        self._length = lengths[0]

    def __getitem__(self, index: int) -> tuple | dict:
        if isinstance(self.datasets, dict):
            return {key: d[index] for key, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list[int]) -> list:
        """Samples at several indices at once, each dataset asked through its own
        __getitems__ when it has one, as in PyTorch."""
        named = self.datasets if isinstance(self.datasets, dict) else dict(enumerate(self.datasets))
        fields = {}
        for key, dataset in named.items():
            fields[key] = _fetch(dataset, indices)
            if len(fields[key]) != len(indices):
                raise ValueError(
                    f"StackDataset: Nested dataset's output size mismatch. Expected "
                    f"{len(indices)}, got {len(fields[key])}"
                )
        if isinstance(self.datasets, dict):
            return [{key: fields[key][i] for key in named} for i in range(len(indices))]
        return [tuple(fields[key][i] for key in named) for i in range(len(indices))]

    def __len__(self) -> int:
        return self._length


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator: Generator | None = None) -> list[Subset]:  # fmt: skip
    """Split ``dataset`` into non-overlapping random subsets of the given ``lengths``, or of
    the given fractions of it (which must add up to 1; as in PyTorch, the samples that
    rounding down leaves over go one each to the first subsets)."""
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, fraction in enumerate(lengths):
            if not 0 <= fraction <= 1:
                raise ValueError(f"random_split: fraction at index {i} is not between 0 and 1")
        counts = [int(math.floor(n * fraction)) for fraction in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(
            f"random_split: sum of input lengths ({sum(lengths)}) does not equal the length of "
            f"the input dataset ({n})"
        )
    order = randperm(n, generator=generator).tolist()
    subsets, start = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, order[start : start + length]))
        start += length
    return subsets


def default_collate(batch: Sequence) -> Any:
    """One batch from a list of samples, as PyTorch's default_collate makes it: tensors are
    stacked (a new first dim), NumPy arrays too (as tensors), Python ints, floats and bools
    become int64, float64 and bool tensors (a batch that starts with an int or bool takes
    the dtype the whole list gives: float32 if a float follows), strings stay a list, and tuples, lists and
    dicts are collated field by field (a tuple's fields come back as a list, as in
    PyTorch; ``x, y = batch`` reads either)."""
    first = batch[0]
    if isinstance(first, Tensor):
        return F.stack(batch)
    if isinstance(first, numpy.ndarray):
        return F.stack([factories.as_tensor(a) for a in batch])
    if isinstance(first, (numpy.number, numpy.bool_)):
        return factories.as_tensor(numpy.array(batch))
    if isinstance(first, int):  # (bools too) the dtype the whole list gives, as in PyTorch:
        return factories.tensor(batch)  # [1, 2] int64, [True, 2] int64, [1, 2.5] float32
    if isinstance(first, float):
        return factories.tensor(batch, dtype="float64")
    if isinstance(first, (str, bytes)):
        return batch  # as it came: the list, or a tuple field of tuple samples
    if isinstance(first, Mapping):
        return _mapping_like(
            first, {key: default_collate([d[key] for d in batch]) for key in first}
        )
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(first, Sequence):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError(
                "default_collate: each element in list of batch should be of equal size"
            )
        return [default_collate(field) for field in zip(*batch)]  # (a list, as in PyTorch)
    raise TypeError(
        f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(first).__name__}"
    )


def _mapping_like(example: Mapping, items: dict) -> Mapping:
    """``items`` in a mapping of example's type, as PyTorch's collate builds it: a copy of
    example updated with them when it is mutable (a defaultdict keeps its default_factory),
    else type(example)(items), or a plain dict when that type cannot be made from one."""
    if isinstance(example, MutableMapping):
        clone = copy.copy(example)
        clone.update(items)
        return clone
    try:
        return type(example)(items)
    except TypeError:
        return dict(items)


class Sampler(Generic[T_co]):
    """Base class of samplers: ``__iter__`` yields dataset indices (or, for a batch
    sampler, lists of them) in the order a DataLoader reads them; ``__len__``, when a
    subclass defines it, says how many it yields. (There is deliberately no default
    ``__len__``: ``len()`` of a sampler without one is a TypeError, as in PyTorch.)"""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")


class SequentialSampler(Sampler[int]):
    """The indices 0, 1, ..., len(data_source) - 1, in order, every epoch."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """The indices of ``data_source`` in a new random order each epoch, drawn from
    ``generator`` (by default the global one, so ``microtorch.manual_seed`` repeats it).

    Without replacement every index comes once per permutation; a ``num_samples`` above
    len(data_source) chains permutations (each index then comes once or once more). With
    ``replacement=True``, ``num_samples`` (default len(data_source)) independent uniform
    draws."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None,
                 generator: Generator | None = None) -> None:  # fmt: skip
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"RandomSampler: replacement should be a boolean value, but got "
                f"replacement={replacement!r}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"RandomSampler: num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples!r} (an empty dataset has nothing to sample)"
            )

    @property
    def num_samples(self) -> int:
        """Indices per epoch: the given num_samples, else the dataset's current length."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, wanted = len(self.data_source), self.num_samples
        if self.replacement:
            yield from randint(0, n, (wanted,), generator=self.generator).tolist()
            return
        for _ in range(wanted // n):
            yield from randperm(n, generator=self.generator).tolist()
        if wanted % n:
            yield from randperm(n, generator=self.generator).tolist()[: wanted % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given ``indices`` in a new random order each epoch (each one once)."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices into ``weights``, index i drawn with probability
    weights[i] / sum(weights) (the weights need not sum to 1), as
    ``microtorch.multinomial`` draws them: with replacement by default; without, each
    index comes at most once, and (as in PyTorch) indices of weight 0 come only after all
    the others. Bad weights (negative, inf, nan, all zero) raise a RuntimeError when the
    sampler is iterated, as in PyTorch."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:  # fmt: skip
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"WeightedRandomSampler: num_samples should be a positive integer value, but "
                f"got num_samples={num_samples!r}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"WeightedRandomSampler: replacement should be a boolean value, but got "
                f"replacement={replacement!r}"
            )
        weights = factories.as_tensor(weights, dtype="float64")
        if weights.ndim != 1:
            raise ValueError(
                f"WeightedRandomSampler: weights should be a 1d sequence but given weights have "
                f"shape {tuple(weights.shape)}"
            )
        self.weights, self.num_samples = weights, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Lists of ``batch_size`` consecutive indices from ``sampler`` (any iterable); the last
    list shorter, unless ``drop_last`` leaves it out."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:  # fmt: skip
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"BatchSampler: batch_size should be a positive integer, got {batch_size!r}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"BatchSampler: drop_last should be a boolean value, but got "
                f"drop_last={drop_last!r}"
            )
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        items = iter(self.sampler)
        batch = list(itertools.islice(items, self.batch_size))
        while batch:
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch
            batch = list(itertools.islice(items, self.batch_size))

    def __len__(self) -> int:
        return _batch_count(len(self.sampler), self.batch_size, self.drop_last)


def _batch_count(n: int, batch_size: int, drop_last: bool) -> int:
    """How many batches n items make: the short last one counts unless ``drop_last``."""
    return n // batch_size if drop_last else math.ceil(n / batch_size)


class DataLoader:
    """Batches of a dataset: ``for batch in DataLoader(dataset, batch_size=..., shuffle=...)``.

    As in PyTorch, the order comes from ``sampler`` (by default a SequentialSampler, or a
    RandomSampler drawing a new order each epoch from ``generator`` when ``shuffle=True``;
    by default the global generator, so ``microtorch.manual_seed`` makes it repeatable),
    and the batches from ``batch_sampler`` (by default a BatchSampler over ``sampler``;
    ``drop_last`` leaves out a last batch smaller than ``batch_size``). ``batch_size=None``
    yields the samples one by one through ``default_convert``. ``collate_fn`` replaces
    ``default_collate``. A dataset with ``__getitems__(indices)`` is asked for a batch's
    samples at once."""

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Iterable | None = None, batch_sampler: Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context: Any = None,
                 generator: Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True, **unknown: Any) -> None:  # fmt: skip
        if unknown:
            raise TypeError(f"DataLoader: unexpected arguments {sorted(unknown)}")
        _check_worker_options(
            num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context
        )
        iterable = isinstance(dataset, IterableDataset)
        if iterable and (shuffle or sampler is not None or batch_sampler is not None):
            raise ValueError(
                "DataLoader with an IterableDataset: shuffle, sampler and batch_sampler do not "
                "apply (the dataset decides the order); leave them unset"
            )
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "DataLoader: batch_sampler option is mutually exclusive with batch_size, "
                    "shuffle, sampler, and drop_last"
                )
            batch_size = None  # (the batch sampler decides, as in PyTorch)
        elif batch_size is None and drop_last:
            raise ValueError(
                "DataLoader: batch_size=None option disables auto-batching and is mutually "
                "exclusive with drop_last"
            )
        if sampler is None and not iterable and shuffle:
            sampler = RandomSampler(dataset, generator=generator)
        elif sampler is None and not iterable:
            sampler = SequentialSampler(dataset)
        if batch_size is not None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        elif batch_size is not None:  # (a stream is batched as it is read, in __iter__)
            BatchSampler(dataset, batch_size, drop_last)  # checks batch_size and drop_last now
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn, self.prefetch_factor = worker_init_fn, prefetch_factor
        self.persistent_workers = persistent_workers
        self.collate_fn = collate_fn or (
            default_collate if batch_size is not None or batch_sampler is not None
            else default_convert
        )  # fmt: skip

    def __iter__(self) -> Iterator:
        if isinstance(self.dataset, IterableDataset):
            if self.batch_size is None:
                samples = iter(self.dataset)
            else:
                samples = BatchSampler(self.dataset, self.batch_size, self.drop_last)
            for sample_or_batch in samples:
                yield self.collate_fn(sample_or_batch)
        elif self.batch_sampler is None:  # samples one by one
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
        else:
            for indices in self.batch_sampler:
                yield self.collate_fn(_fetch(self.dataset, indices))

    def __len__(self) -> int:
        """Batches per epoch (for an IterableDataset, from its own len(), if it has one)."""
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            return (
                n if self.batch_size is None else _batch_count(n, self.batch_size, self.drop_last)
            )
        return len(self.sampler)


def _check_worker_options(num_workers: int, timeout: float, prefetch_factor: int | None,
                          persistent_workers: bool, context: Any = None) -> None:  # fmt: skip
    """The worker options PyTorch refuses (here they would change nothing: there are no
    worker processes, every batch is made in the calling one)."""
    if context is not None and num_workers == 0:
        raise ValueError(
            "DataLoader: multiprocessing_context can only be used with multi-process loading "
            "(num_workers > 0), but got num_workers=0"
        )
    if isinstance(context, str) and context not in multiprocessing.get_all_start_methods():
        raise ValueError(
            f"DataLoader: multiprocessing_context option should specify a valid start method "
            f"in {multiprocessing.get_all_start_methods()!r}, but got "
            f"multiprocessing_context={context!r}"
        )
    if num_workers < 0:
        raise ValueError(
            f"DataLoader: num_workers option should be non-negative, got {num_workers}; use "
            "num_workers=0 to disable multiprocessing"
        )
    if timeout < 0:
        raise ValueError(f"DataLoader: timeout option should be non-negative, got {timeout}")
    if prefetch_factor is not None and num_workers == 0:
        raise ValueError(
            "DataLoader: prefetch_factor option could only be specified in multiprocessing; "
            "let num_workers > 0, or set prefetch_factor to None"
        )
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("DataLoader: prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("DataLoader: persistent_workers option needs num_workers > 0")


def _fetch(dataset: Dataset, indices: list[int]) -> list:
    """The samples at ``indices``: from ``dataset.__getitems__`` when it has one, as in
    PyTorch, else one ``dataset[i]`` each."""
    getitems = getattr(dataset, "__getitems__", None)
    if callable(getitems):
        return getitems(indices)
    return [dataset[i] for i in indices]


def default_convert(data: Any) -> Any:
    """One sample as ``batch_size=None`` leaves it: NumPy arrays and scalars become tensors
    (those of strings or objects stay as they are), inside dicts, namedtuples, tuples and
    lists too (a tuple comes back as a list, as in PyTorch); everything else unchanged."""
    if isinstance(data, numpy.ndarray) and data.dtype.kind in "USO":
        return data
    if isinstance(data, (numpy.ndarray, numpy.number, numpy.bool_)):
        return factories.as_tensor(data)
    if isinstance(data, Mapping):
        return _mapping_like(data, {key: default_convert(value) for key, value in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return type(data)(*(default_convert(value) for value in data))
    if isinstance(data, (tuple, list)):
        return [default_convert(value) for value in data]  # (a list, as in PyTorch)
    return data


def get_worker_info() -> None:
    """Information about the current DataLoader worker process: always None, as in the
    main process of PyTorch, since microtorch's DataLoader starts no workers."""
    return None


__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
