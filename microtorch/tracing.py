"""``microtorch.trace()``: watch every op run, with its shapes and the line of your code.

    with microtorch.trace() as t:
        logits = model(idx)

prints, when the block ends, one row per op:

      #  op                         inputs                 output      dtype    device  details                     called from
      1  Embedding                  (2, 12) int64, (65, 32) (2, 12, 32) float32  cpu                                 models/transformer.py:97  tok = self.wte(idx)
     ...
     14  ScaledDotProductAttention  (2, 4, 12, 8) x3       (2, 4, 12, 8) float32  cpu   mask=causal, scale=0.3536   models/transformer.py:58  y = F.scaled_dot_product_attention(...)

``t.records`` holds the rows as ``OpRecord`` objects; ``t.table(names={"B": 2, "T": 12})``
writes sizes by name, so ``(2, 12, 32)`` reads ``(B, T, C)``.

Every op is a ``Function`` and every ``Function`` runs through ``Function.apply``, which
calls ``function._trace_hook`` after each op when it is not None. ``trace`` sets that hook
while the block runs, so outside a trace nothing is recorded and nothing is paid. (What
runs outside ``Function.apply`` is not an op and is not listed: comparisons such as
``x > 0``, integer casts, ``argmax``, and making tensors.)

"Your code" is the innermost frame outside the microtorch package: an op run inside
``nn.Linear.forward`` is listed at the line that called the layer.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from .autograd import function
from .autograd.anomaly import SourceLine, chain_hooks, user_line


@dataclass
class OpRecord:
    """One op run inside ``trace()``."""

    index: int  # 1, 2, 3... in the order the ops ran
    op: str  # the Function's class name: "Linear", "Softmax", "ScaledDotProductAttention"
    inputs: list  # per input: a tensor's (shape, dtype name), or the constant itself
    output: tuple  # the output's shape
    dtype: str  # the output's dtype, e.g. "float32"
    device: str  # "cpu" or "cuda:0"
    details: dict = field(default_factory=dict)  # what else shapes the result (dim, mask...)
    source: SourceLine | None = None  # the user line that ran the op
    requires_grad: bool = False  # did the op record a graph node?

    @property
    def input_shapes(self) -> list[tuple]:
        """The shapes of the tensor inputs (constants left out)."""
        return [x[0] for x in self.inputs if isinstance(x, tuple)]


class trace:
    """Context manager recording every op run inside it (see the module docstring).

    ``print_table``: print the table when the block ends (to ``file``, default stdout).
    ``names``: sizes to write by name in the table, e.g. ``{"B": 2, "T": 12, "C": 32}``."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """``microtorch.trace(matrix)``, PyTorch's torch.trace, is the sum of the matrix's
        diagonal (functional.trace); without a tensor, the tracer."""
        if (args and hasattr(args[0], "array")) or "input" in kwargs:
            from .functional import trace as diagonal_sum

            return diagonal_sum(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, print_table: bool = True, file: TextIO | None = None,
                 names: dict[str, int] | None = None) -> None:  # fmt: skip
        self.print_table = print_table
        self.file = file
        self.names = dict(names or {})
        self.records: list[OpRecord] = []

    # --- recording ----------------------------------------------------------------------
    def __enter__(self) -> trace:
        self.records = []
        self._previous = function._trace_hook
        function._trace_hook = chain_hooks(self._previous, self._record)
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        function._trace_hook = self._previous
        if self.print_table and exc_type is None:
            print(self.table(), file=self.file if self.file is not None else sys.stdout)

    def _record(self, fn: Any, inputs: tuple, params: dict, output: Any) -> None:
        """The trace hook: called by Function.apply after each op."""
        described = []
        for x in inputs:
            if hasattr(x, "array"):  # a tensor
                described.append((tuple(x.array.shape), str(x.array.dtype)))
            elif x is not None:  # a constant (None = an absent optional input)
                described.append(x)
        self.records.append(
            OpRecord(
                index=len(self.records) + 1,
                op=type(fn).__name__,
                inputs=described,
                output=tuple(output.array.shape),
                dtype=str(output.array.dtype),
                device=str(output.device),
                details=op_details(type(fn).__name__, params),
                source=user_line(),
                requires_grad=output.grad_fn is fn,
            )
        )

    # --- reading ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[OpRecord]:
        return iter(self.records)

    def __getitem__(self, i: int) -> OpRecord:
        return self.records[i]

    def ops(self) -> list[str]:
        """The op names in the order they ran."""
        return [r.op for r in self.records]

    def table(self, names: dict[str, int] | None = None, code_width: int = 60) -> str:
        """The records as a text table. ``names`` (default: the ones given to ``trace``)
        writes sizes by name; each size must have one name."""
        names = self.names if names is None else names
        by_size: dict[int, str] = {}
        for name, size in names.items():
            if size in by_size:
                raise ValueError(
                    f"trace.table: sizes must be distinct to be named, but {by_size[size]} and "
                    f"{name} are both {size}; pick different sizes"
                )
            by_size[size] = name
        header = ("#", "op", "inputs", "output", "dtype", "device", "details", "called from")
        rows = [header]
        for r in self.records:
            rows.append(
                (
                    str(r.index),
                    r.op,
                    _inputs_text(r.inputs, r.dtype, by_size),
                    format_shape(r.output, by_size),
                    r.dtype,
                    r.device,
                    ", ".join(f"{k}={v}" for k, v in r.details.items()),
                    _source_text(r.source, code_width),
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
        lines = []
        for row in rows:
            cells = [row[0].rjust(widths[0])]
            cells += [cell.ljust(w) for cell, w in zip(row[1:-1], widths[1:])]
            lines.append("  ".join(cells + [row[-1]]).rstrip())
        lines.insert(1, "-" * max(len(line) for line in lines))
        if names:
            legend = ", ".join(f"{n}={s}" for n, s in names.items())
            lines.append(f"sizes: {legend}")
        graph_ops = sum(r.requires_grad for r in self.records)
        lines.append(f"{len(self.records)} ops, {graph_ops} recorded in the autograd graph")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


# --- formatting ---------------------------------------------------------------------------
def format_shape(shape: tuple, names: dict[int, str] | None = None) -> str:
    """``(2, 12, 32)``, or ``(B, T, C)`` when ``names`` maps sizes to names."""
    names = names or {}
    parts = [names.get(s, str(s)) for s in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _inputs_text(inputs: list, out_dtype: str, names: dict[int, str]) -> str:
    """Tensor inputs as shapes (with the dtype when it differs from the output's); identical
    neighbours folded as ``shape x3``; constants as their value."""
    parts: list[list] = []  # [text, count]
    for x in inputs:
        if isinstance(x, tuple):
            shape, dtype = x
            text = format_shape(shape, names) + ("" if dtype == out_dtype else f" {dtype}")
        else:
            text = _short_repr(x)
        if parts and parts[-1][0] == text:
            parts[-1][1] += 1
        else:
            parts.append([text, 1])
    return ", ".join(text if n == 1 else f"{text} x{n}" for text, n in parts)


def _source_text(source: SourceLine | None, width: int) -> str:
    if source is None:
        return ""
    code = source.line
    if len(code) > width and "  #" in code:  # too long: the comment goes first
        code = code[: code.index("  #")]
    if len(code) > width:
        code = code[: width - 3] + "..."
    return f"{source.location}  {code}"


def _index_text(index: Any) -> str:
    """An indexing tuple as it was written: ``[:, :, 0:64]``, ``[..., None]``, ``[idx]``."""
    parts = []
    for i in index if isinstance(index, tuple) else (index,):
        if isinstance(i, slice):
            text = ("" if i.start is None else str(i.start)) + ":"
            text += "" if i.stop is None else str(i.stop)
            parts.append(text + ("" if i.step is None else f":{i.step}"))
        elif i is Ellipsis:
            parts.append("...")
        elif hasattr(i, "shape"):
            parts.append(f"<{i.dtype} array {tuple(i.shape)}>")
        else:
            parts.append(repr(i))
    return "[" + ", ".join(parts) + "]"


def _short_repr(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if hasattr(value, "shape"):  # a raw array passed as a parameter
        return f"array{tuple(value.shape)}"
    if hasattr(value, "name") and not isinstance(value, (str, tuple)):  # a dtype
        return str(value.name)
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def attention_mask_kind(params: dict) -> str:
    """How scaled_dot_product_attention was masked: causal, boolean, additive or none."""
    if params.get("is_causal"):
        return "causal"
    mask = params.get("attn_mask")
    if mask is None:
        return "none"
    return "boolean" if mask.dtype == bool else "additive"


def op_details(op: str, params: dict) -> dict:
    """The parameters worth a column: the softmax dim, the attention mask kind and scale,
    reduction dims... (simple values only; arrays are summarised or left out)."""
    if op == "ScaledDotProductAttention":
        details = {
            "mask": attention_mask_kind(params),
            "scale": _short_repr(params.get("scale", 1.0)),
        }
        if params.get("dropout_p", 0.0) > 0.0:
            details["dropout"] = "on"
        return details
    details = {}
    for key, value in params.items():
        if key == "index":
            details[key] = _index_text(value)
            continue
        if value is None or hasattr(value, "shape") or key == "shape":  # shape: see output
            continue
        if key == "axes":  # reductions call it axes internally; users say dim
            key = "dim"
        details[key] = _short_repr(value)
    return details
