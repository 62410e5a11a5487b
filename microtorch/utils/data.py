"""Datasets and the DataLoader that batches them, as in ``torch.utils.data``.

A *dataset* maps an index to one sample (``dataset[i]``, with ``len(dataset)``); an
*iterable dataset* just yields samples. A ``DataLoader`` walks a dataset in order or
shuffled, groups samples into batches and *collates* each batch: a list of samples becomes
one sample of stacked tensors.

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
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy

from .. import factories
from .. import functional as F
from .._tensor import Tensor
from ..random import Generator, randperm


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(index)`` and ``__len__()``."""

    def __getitem__(self, index: int) -> Any:
        raise TypeError(f"{type(self).__name__} must define __getitem__()")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that yields its samples (``__iter__``) instead of being indexed."""

    def __iter__(self) -> Iterator:
        raise TypeError(f"{type(self).__name__} must define __iter__()")


class TensorDataset(Dataset):
    """Sample i is ``(t[i] for t in tensors)``; the tensors share their first dim."""

    def __init__(self, *tensors: Tensor) -> None:
        sizes = [t.shape[0] if t.ndim else None for t in tensors]
        if not tensors or None in sizes or len(set(sizes)) != 1:
            raise ValueError(
                f"TensorDataset: the tensors must have one first dim in common, got shapes "
                f"{[tuple(t.shape) for t in tensors]}"
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

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after the other (``a + b`` makes one)."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        self.cumulative_sizes = []  # the index where each dataset ends
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support an IterableDataset")
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
    become int64, float64 and bool tensors, strings stay a list, and tuples, lists and
    dicts are collated field by field (a tuple's fields come back as a list, as in
    PyTorch; ``x, y = batch`` reads either)."""
    first = batch[0]
    if isinstance(first, Tensor):
        return F.stack(batch)
    if isinstance(first, numpy.ndarray):
        return F.stack([factories.as_tensor(a) for a in batch])
    if isinstance(first, (numpy.number, numpy.bool_)):
        return factories.as_tensor(numpy.array(batch))
    if isinstance(first, bool):
        return factories.tensor(batch)
    if isinstance(first, int):
        return factories.tensor(batch, dtype="int64")
    if isinstance(first, float):
        return factories.tensor(batch, dtype="float64")
    if isinstance(first, (str, bytes)):
        return batch  # as it came: the list, or a tuple field of tuple samples
    if isinstance(first, Mapping):
        return type(first)({key: default_collate([d[key] for d in batch]) for key in first})
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


class DataLoader:
    """Batches of a dataset: ``for batch in DataLoader(dataset, batch_size=..., shuffle=...)``.

    ``shuffle=True`` draws a new order each epoch from ``generator`` (by default the global
    one, so ``microtorch.manual_seed`` makes it repeatable). ``drop_last`` leaves out a last
    batch smaller than ``batch_size``. ``batch_size=None`` yields the samples one by one,
    uncollated. ``collate_fn`` replaces ``default_collate``."""

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Iterable | None = None, batch_sampler: Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, generator: Generator | None = None,
                 **pytorch_options: Any) -> None:  # fmt: skip
        worker_options = {
            "prefetch_factor",
            "persistent_workers",
            "pin_memory_device",
            "multiprocessing_context",
            "in_order",
        }  # (there are no workers)
        unknown = sorted(set(pytorch_options) - worker_options)
        if unknown:
            raise TypeError(f"DataLoader: unexpected arguments {unknown}")
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(
                f"DataLoader: batch_size should be a positive integer, got {batch_size!r}"
            )
        iterable = isinstance(dataset, IterableDataset)
        if iterable and (shuffle or sampler is not None or batch_sampler is not None):
            raise ValueError(
                "DataLoader with an IterableDataset: shuffle, sampler and batch_sampler do not "
                "apply (the dataset decides the order); leave them unset"
            )
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (
            batch_size != 1 or shuffle or sampler is not None or drop_last
        ):
            raise ValueError(
                "DataLoader: batch_sampler option is mutually exclusive with batch_size, "
                "shuffle, sampler, and drop_last"
            )
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.shuffle, self.sampler, self.batch_sampler = bool(shuffle), sampler, batch_sampler
        self.generator, self.num_workers, self.pin_memory = generator, num_workers, pin_memory
        batching = batch_size is not None or batch_sampler is not None
        self.collate_fn = collate_fn or (default_collate if batching else _no_collate)

    def _indices(self) -> Iterable[int]:
        """One epoch's sample indices, in order (or shuffled, or from the sampler)."""
        if self.sampler is not None:
            return self.sampler
        n = len(self.dataset)
        if self.shuffle:
            return randperm(n, generator=self.generator).tolist()
        return range(n)

    def __iter__(self) -> Iterator:
        stream = isinstance(self.dataset, IterableDataset)
        if self.batch_size is None and self.batch_sampler is None:  # samples one by one
            samples = self.dataset if stream else (self.dataset[i] for i in self._indices())
            for sample in samples:
                yield self.collate_fn(sample)
        elif stream:
            for batch in _in_batches(self.dataset, self.batch_size, self.drop_last):
                yield self.collate_fn(batch)
        else:
            batches = self.batch_sampler
            if batches is None:
                batches = _in_batches(self._indices(), self.batch_size, self.drop_last)
            for indices in batches:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self) -> int:
        """Batches per epoch (for an IterableDataset, from its own len(), if it has one)."""
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


def _in_batches(items: Iterable, size: int, drop_last: bool) -> Iterator[list]:
    """Lists of ``size`` consecutive items; the last one shorter, unless ``drop_last``."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


def _no_collate(sample: Any) -> Any:
    """batch_size=None: samples come out one by one; NumPy arrays become tensors, as in
    PyTorch's default_convert."""
    if isinstance(sample, (numpy.ndarray, numpy.number, numpy.bool_)):
        return factories.as_tensor(sample)
    if isinstance(sample, Mapping):
        return type(sample)({key: _no_collate(value) for key, value in sample.items()})
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):  # a namedtuple
        return type(sample)(*(_no_collate(value) for value in sample))
    if isinstance(sample, (tuple, list)):
        return [_no_collate(value) for value in sample]  # (a list, as in PyTorch)
    return sample


__all__ = [
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "Subset",
    "TensorDataset",
    "default_collate",
    "random_split",
]
