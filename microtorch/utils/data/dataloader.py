"""The DataLoader, as in ``torch.utils.data.dataloader``: it walks a dataset through a
sampler and *collates* each batch, a list of samples becoming one sample of stacked
tensors (``default_collate``)."""

from __future__ import annotations

import copy
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from typing import Any

import numpy

from ... import factories
from ... import functional as F
from ..._tensor import Tensor
from ...random import Generator
from .dataset import Dataset, IterableDataset, _fetch
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _batch_count


def default_collate(batch: Sequence) -> Any:
    """One batch from a list of samples, as PyTorch's default_collate makes it: tensors are
    stacked (a new first dim), NumPy arrays too (as tensors), Python ints, floats and bools
    become int64, float64 and bool tensors (a batch that starts with an int or bool takes
    the dtype the whole list gives: float32 if a float follows), strings stay a list, and
    tuples, lists and dicts are collated field by field (a tuple's fields come back as a
    list, as in PyTorch; ``x, y = batch`` reads either)."""
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
