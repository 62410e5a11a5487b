"""Datasets, as in ``torch.utils.data.dataset``: a dataset maps an index to one sample
(``dataset[i]``, with ``len(dataset)``); an iterable dataset just yields samples."""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from ..._tensor import Tensor
from ...random import Generator, randperm

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


def _fetch(dataset: Dataset, indices: list[int]) -> list:
    """The samples at ``indices``: from ``dataset.__getitems__`` when it has one, as in
    PyTorch, else one ``dataset[i]`` each."""
    getitems = getattr(dataset, "__getitems__", None)
    if callable(getitems):
        return getitems(indices)
    return [dataset[i] for i in indices]
