"""``nn.utils.rnn``: batches of sequences of different lengths, padded or packed.

    padded = pad_sequence([a, b, c])                  # (T_max, B, *), zeros after each end
    packed = pack_padded_sequence(padded, [5, 3, 2])  # only the real time steps
    output, h_n = rnn(packed)                          # the RNN modules accept it
    padded_out, lengths = pad_packed_sequence(output)

A ``PackedSequence`` holds the time steps one after another: ``data`` (sum of lengths, *)
starts with time step 0 of every sequence, then time step 1 of those at least 2 long, and
so on; ``batch_sizes[t]`` is how many sequences are still running at time t. The sequences
are sorted longest first (``sorted_indices`` says in which order, ``unsorted_indices``
undoes it; both are None when the batch came sorted), so the running ones at time t are
always the first ``batch_sizes[t]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ... import dtypes as _dtypes
from ... import factories
from ... import functional as _functional
from ..._tensor import Tensor


class PackedSequence(NamedTuple):
    """Sequences of different lengths packed time step by time step (see the module doc)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same sequences with ``data`` moved/cast by ``Tensor.to`` (the indices follow
        data's device; batch_sizes stays on the CPU, as in PyTorch)."""
        data = self.data.to(*args, **kwargs)
        sorted_indices, unsorted_indices = self.sorted_indices, self.unsorted_indices
        if sorted_indices is not None:
            sorted_indices = sorted_indices.to(data.device)
            unsorted_indices = unsorted_indices.to(data.device)
        return PackedSequence(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def cuda(self) -> PackedSequence:
        return self.to("cuda")

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    # data cast to a dtype, as Tensor's methods of the same names do
    def double(self) -> PackedSequence:
        return self.to(_dtypes.float64)

    def float(self) -> PackedSequence:
        return self.to(_dtypes.float32)

    def half(self) -> PackedSequence:
        return self.to(_dtypes.float16)

    def long(self) -> PackedSequence:
        return self.to(_dtypes.int64)

    def int(self) -> PackedSequence:
        return self.to(_dtypes.int32)

    def short(self) -> PackedSequence:
        return self.to(_dtypes.int16)

    def char(self) -> PackedSequence:
        return self.to(_dtypes.int8)

    def byte(self) -> PackedSequence:
        return self.to(_dtypes.uint8)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    order = permutation.tolist()
    inverse = [0] * len(order)
    for position, index in enumerate(order):
        inverse[index] = position
    return factories.tensor(inverse, dtype=_dtypes.int64, device=permutation.device)


def _pad_to(x: Tensor, length: int, padding_value: float, at_end: bool = True) -> Tensor:
    """``x`` (n, *) grown to (length, *) with rows of ``padding_value`` after (or before) it."""
    missing = length - x.shape[0]
    if missing == 0:
        return x
    pad = factories.full((missing, *x.shape[1:]), padding_value, dtype=x.dtype, device=x.device)
    return _functional.cat([x, pad] if at_end else [pad, x], 0)


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:  # fmt: skip
    """Stack sequences (L_i, *) into one (T_max, B, *) tensor ((B, T_max, *) with
    batch_first), filling each after its end (before its start with padding_side="left")
    with ``padding_value``."""
    if padding_side not in ("left", "right"):  # a RuntimeError in PyTorch
        raise RuntimeError(
            f"pad_sequence: Expected padding_side to be one of left or right, but got "
            f"{padding_side}."
        )
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    first = sequences[0]
    for i, seq in enumerate(sequences):
        if not isinstance(seq, Tensor) or seq.ndim == 0:
            raise TypeError(
                f"pad_sequence: sequence {i} must be a Tensor of at least 1 dim (length, *), "
                f"got {seq!r}"
            )
        if tuple(seq.shape[1:]) != tuple(first.shape[1:]):
            raise RuntimeError(
                f"pad_sequence: every sequence must have the same trailing dims; sequence 0 "
                f"is {tuple(first.shape)} and sequence {i} is {tuple(seq.shape)}"
            )
    max_len = max(seq.shape[0] for seq in sequences)
    at_end = padding_side == "right"
    padded = [_pad_to(seq.to(first.dtype), max_len, padding_value, at_end) for seq in sequences]
    return _functional.stack(padded, 0 if batch_first else 1)


def _lengths_list(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.is_cuda or lengths.ndim != 1:
            raise RuntimeError(
                f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D "
                f"{lengths.device} tensor"
            )
        return [int(n) for n in lengths.tolist()]
    return [int(n) for n in lengths]


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:  # fmt: skip
    """Pack a padded batch (T, B, *) ((B, T, *) with batch_first) whose sequence b is
    ``lengths[b]`` long. With enforce_sorted=True the lengths must be decreasing; otherwise
    the batch is sorted here (longest first) and the order kept in the result."""
    lengths = _lengths_list(lengths)
    if batch_first:
        input = input.transpose(0, 1)  # (B, T, *) -> (T, B, *)
    T, B = input.shape[0], input.shape[1]
    if B == 0:
        raise RuntimeError(
            f"pack_padded_sequence: Cannot pack empty tensors (input of shape "
            f"{tuple(input.shape)} has no sequences)"
        )
    if len(lengths) != B:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
            f"(batch_size={B})"
        )
    if any(n <= 0 for n in lengths):
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if max(lengths) > T:
        raise RuntimeError(
            f"pack_padded_sequence: a length ({max(lengths)}) is longer than the padded "
            f"input's {T} time steps"
        )
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
    else:
        order = sorted(range(B), key=lambda b: -lengths[b])  # stable: ties keep their order
        sorted_indices = factories.tensor(order, dtype=_dtypes.int64, device=input.device)
        input = input.index_select(1, sorted_indices)
        lengths = [lengths[b] for b in order]
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    # time step t of the first batch_sizes[t] sequences, one step after another: (N, *)
    steps = input.split(1, 0)[: len(batch_sizes)]  # (1, B, *) each
    data = _functional.cat([step[0, :n] for step, n in zip(steps, batch_sizes)], 0)
    return PackedSequence(
        data,
        factories.tensor(batch_sizes, dtype=_dtypes.int64),
        sorted_indices,
        invert_permutation(sorted_indices),
    )


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """Undo ``pack_padded_sequence``: (padded (T, B, *) or (B, T, *), lengths (B,) int64),
    in the batch's original order; ``total_length`` pads T further."""
    batch_sizes = [int(n) for n in sequence.batch_sizes.tolist()]
    T, B = len(batch_sizes), batch_sizes[0]
    if total_length is not None:
        if total_length < T:
            raise ValueError(
                f"Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being {T}"
            )
    # time step t is batch_sizes[t] rows of data, padded to B rows
    steps = [_pad_to(rows, B, padding_value) for rows in sequence.data.split(batch_sizes, 0)]
    padded = _pad_to(_functional.stack(steps, 0), total_length or T, padding_value)  # (T, B, *)
    lengths = [sum(1 for n in batch_sizes if n > b) for b in range(B)]
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = [lengths[b] for b in sequence.unsorted_indices.tolist()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, factories.tensor(lengths, dtype=_dtypes.int64)


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (L_i, *) (longest first unless enforce_sorted=False)."""
    lengths = [seq.shape[0] for seq in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths: Any,
                   batch_first: bool = False) -> list[Tensor]:  # fmt: skip
    """The list of sequences (lengths[b], *) inside a padded batch (T, B, *)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)  # (T, B, *) -> (B, T, *)
    lengths = _lengths_list(lengths)
    rows = padded_sequences.split(1, 0)  # (1, T, *) each
    return [row[0, :n] for row, n in zip(rows, lengths)]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences inside a PackedSequence, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]
