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

from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

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
