"""``AdaptiveLogSoftmaxWithLoss``: a softmax over many classes, cheap for the frequent ones
(Grave et al., "Efficient softmax approximation for GPUs").

The classes, sorted by frequency, are split by ``cutoffs`` into a shortlist [0, cutoffs[0])
and clusters [cutoffs[i], cutoffs[i+1]). The ``head`` (a Linear) scores the shortlist plus
one entry per cluster; cluster i has its own ``tail[i]``, a Linear down to
``in_features // div_value**(i+1)`` features and a Linear up to the cluster's size. So

    log p(c) = head_logprob[c]                                    (c in the shortlist)
    log p(c) = head_logprob[shortlist + i] + tail_i_logprob[c - cutoffs[i]]  (c in cluster i)

``forward(input, target)`` computes the tail only for the rows whose target is in that
cluster, and returns ``(output, loss)``: each row's log p(target) and the mean of -output.
``log_prob`` gives the full (N, n_classes) log-probabilities, ``predict`` the argmax (both
take a batch only, as in PyTorch). The
parameter names are PyTorch's (``head.weight``, ``tail.0.0.weight``...), so a PyTorch state
dict loads as it is.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

from .. import functional as _functional
from .._tensor import Tensor
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):  # fmt: skip
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                f"increasing order, where each value is between 1 and n_classes-1; got "
                f"{cutoffs} for n_classes={n_classes}"
            )
        make = {"device": device, "dtype": dtype}
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **make)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **make),
                                        Linear(hidden, size, bias=False, **make)))  # fmt: skip

    def reset_parameters(self) -> None:
        """Each Linear's own initialisation, again."""
        self.head.reset_parameters()
        for down, up in self.tail:
            down.reset_parameters()
            up.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """(output, loss): log p(target) per row (N,), and the mean negative log-likelihood.
        input (N, in_features) with target (N,), or unbatched (in_features,) with a 0-d
        target. (PyTorch's keywords are input_ and target_.)"""
        input, target = input_, target_
        if target.ndim == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension, got "
                    f"input {tuple(input.shape)} and target {tuple(target.shape)}"
                )
            if input.ndim != 2:
                raise RuntimeError(
                    f"1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{tuple(input.shape)}"
                )
        elif target.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError(
                    f"0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{tuple(input.shape)}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target.ndim > 0
        if not batched:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        if target.numel() and (int(target.min()) < 0 or int(target.max()) >= self.n_classes):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{int(target.min())}, {int(target.max())}] were found."
            )
        # the head's entry for each row: its class, or its cluster's entry
        head_index = target.clone()
        output = input.new_zeros(target.shape[0])
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            rows = ((target >= low) & (target < high)).nonzero()[:, 0]
            if rows.numel() == 0:
                continue
            head_index = head_index.index_fill(0, rows, self.shortlist_size + i)
            cluster_logprob = self.tail[i](input.index_select(0, rows)).log_softmax(1)
            inside = (target.index_select(0, rows) - low).unsqueeze(1)
            output = output.index_add(0, rows, cluster_logprob.gather(1, inside).squeeze(1))
        head_logprob = self.head(input).log_softmax(1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """log p of every class (N, n_classes), from the head's scores and every tail."""
        head_logprob = head_output.log_softmax(1)
        pieces = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = self.tail[i](input).log_softmax(1)
            pieces.append(cluster_logprob + head_logprob[:, self.shortlist_size + i : self.shortlist_size + i + 1])  # fmt: skip
        return _functional.cat(pieces, dim=1)

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probabilities of all classes, (N, n_classes), of input (N, in_features)."""
        _check_rows(input, "log_prob")
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row of input (N, in_features): the head's argmax,
        and where that is a cluster, the argmax of the full log_prob (the tails run only for
        those rows)."""
        _check_rows(input, "predict")
        head_output = self.head(input)
        best = head_output.argmax(1)
        in_tail = (best >= self.shortlist_size).nonzero()[:, 0]
        if in_tail.numel():
            full = self._full_log_prob(input.index_select(0, in_tail),
                                       head_output.index_select(0, in_tail))  # fmt: skip
            best = best.index_copy(0, in_tail, full.argmax(1))
        return best


def _check_rows(input: Tensor, method: str) -> None:
    """log_prob and predict take a batch (N, in_features) only, as in PyTorch (an
    IndexError there, from log_softmax's dim 1)."""
    if input.ndim != 2:
        raise IndexError(
            f"AdaptiveLogSoftmaxWithLoss.{method}: input must be (N, in_features), got shape "
            f"{tuple(input.shape)}; use input.unsqueeze(0) for one row"
        )
