"""Samplers, as in ``torch.utils.data.sampler``: which indices a DataLoader reads, in which
order (Sequential, Random, SubsetRandom, Weighted), and how they are grouped into batches
(BatchSampler)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

from ... import factories
from ...random import Generator, multinomial, randint, randperm

T_co = TypeVar("T_co", covariant=True)


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
