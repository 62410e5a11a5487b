"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step ``RNNCell``,
``LSTMCell``, ``GRUCell``, with PyTorch's parameters, names and gate order.

    lstm = nn.LSTM(input_size=8, hidden_size=16, num_layers=2)
    output, (h_n, c_n) = lstm(x)          # x (T, B, 8) -> output (T, B, 16)

Everything is built from ordinary differentiable ops (linear, sigmoid, tanh, cat,
narrow), so backpropagation through time is just autograd over the unrolled loop; there
is no recurrent Function. For each layer and direction the input's projection
W_ih x_t + b_ih is computed for all time steps in one matmul before the loop; the loop
then adds W_hh h_{t-1} + b_hh step by step.

One step of each cell (x the input, h the previous hidden state, c the cell state; the
gates are stacked in the weights in this order):

    RNN:  h' = tanh(W_ih x + b_ih + W_hh h + b_hh)        (or relu)
    LSTM: i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (W_ih x + b_ih + W_hh h + b_hh)
          c' = f * c + i * g;  h' = o * tanh(c')           (h' = W_hr h' with proj_size)
    GRU:  r, z = sigmoid(W_i{r,z} x + b_i{r,z} + W_h{r,z} h + b_h{r,z})
          n = tanh(W_in x + b_in + r * (W_hn h + b_hn))     (r scales W_hn h + b_hn)
          h' = (1 - z) * n + z * h

Packed input (``nn.utils.rnn.PackedSequence``) runs the same loop over the sorted batch:
at time t only the first batch_sizes[t] rows take a step, the others keep their state (a
finished sequence its last state, one not yet started in the reverse direction its h0).
"""

from __future__ import annotations

import math
from typing import Any

from .. import factories
from .. import functional as _functional
from .._tensor import Tensor
from .._warn import warn_user
from ..amp.autocast_mode import autocast_inputs
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence


# ------------------------------------------------------------------ one time step
# ``xw`` is the input's projection W_ih x + b_ih (B, gates * H), ``h`` (B, H_out).
def _rnn_step(xw: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None,
              nonlinearity: str) -> Tensor:  # fmt: skip
    pre = xw + F.linear(h, w_hh, b_hh)
    return _functional.tanh(pre) if nonlinearity == "tanh" else _functional.relu(pre)


def _lstm_step(xw: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None,
               w_hr: Tensor | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    i, f, g, o = (xw + F.linear(h, w_hh, b_hh)).chunk(4, -1)  # each (B, H)
    c = _functional.sigmoid(f) * c + _functional.sigmoid(i) * _functional.tanh(g)
    h = _functional.sigmoid(o) * _functional.tanh(c)
    if w_hr is not None:
        h = F.linear(h, w_hr)  # (B, H) -> (B, proj_size)
    return h, c


def _gru_step(xw: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    x_r, x_z, x_n = xw.chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = _functional.sigmoid(x_r + h_r)
    z = _functional.sigmoid(x_z + h_z)
    n = _functional.tanh(x_n + r * h_n)
    return (1 - z) * n + z * h


def _check_sizes(input_size: int, hidden_size: int, module: str) -> None:
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{module}: {name} should be of type int, got: {type(value).__name__}")
    if hidden_size <= 0:
        raise ValueError(f"{module}: hidden_size must be greater than zero, got {hidden_size}")


def _init_uniform(module: Module) -> None:
    """PyTorch's recurrent init: every parameter from U(-1/sqrt(hidden), 1/sqrt(hidden)),
    drawn from the seeded generator."""
    bound = 1.0 / math.sqrt(module.hidden_size)
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


# ------------------------------------------------------------------ cells
class RNNCellBase(Module):
    """weight_ih (gates * hidden, input), weight_hh (gates * hidden, hidden), bias_ih and
    bias_hh (gates * hidden,), all from U(-1/sqrt(hidden), 1/sqrt(hidden))."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        _check_sizes(input_size, hidden_size, type(self).__name__)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        make = {"device": device, "dtype": dtype}
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(factories.empty(gates, input_size, **make))
        self.weight_hh = Parameter(factories.empty(gates, hidden_size, **make))
        if bias:
            self.bias_ih = Parameter(factories.empty(gates, **make))
            self.bias_hh = Parameter(factories.empty(gates, **make))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        _init_uniform(self)

    def _batched_input(self, input: Tensor) -> tuple[Tensor, bool]:
        """(input as (B, input_size), whether it came with a batch dim)."""
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"{name}: input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        batched = input.ndim == 2
        return (input if batched else input.unsqueeze(0)), batched  # (B, input_size)

    def _batched_state(self, hx: Tensor | None, input: Tensor, batched: bool,
                       which: str = "hidden0", label: str = "hidden") -> Tensor:  # fmt: skip
        """A state as (B, hidden_size): ``hx`` checked against the (B, input_size) input, or
        zeros when it is None. ``label`` names it in the dimension error (PyTorch's words)."""
        if hx is None:
            return factories.zeros(
                input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device
            )
        if hx.ndim not in (1, 2):  # a ValueError, as PyTorch's own check in forward
            raise ValueError(
                f"{type(self).__name__}: Expected {label} to be 1D or 2D, got {hx.ndim}D instead"
            )
        if hx.ndim != (2 if batched else 1):
            raise RuntimeError(
                f"{type(self).__name__}: {which} must be {1 + batched}D like the input, got "
                f"{hx.ndim}D (shape {tuple(hx.shape)})"
            )
        hx = hx if batched else hx.unsqueeze(0)  # (B, hidden_size)
        if hx.shape[0] != input.shape[0]:
            raise RuntimeError(
                f"{type(self).__name__}: Input batch size {input.shape[0]} doesn't match {which} "
                f"batch size {hx.shape[0]}"
            )
        if hx.shape[1] != self.hidden_size:
            raise RuntimeError(
                f"{type(self).__name__}: {which} has inconsistent hidden_size: got "
                f"{hx.shape[1]}, expected {self.hidden_size}"
            )
        return hx

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu).
    input (B, input_size) or (input_size,); hx like it with hidden_size (zeros if None)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"RNNCell: unknown nonlinearity {nonlinearity!r}; select from 'tanh' or 'relu'"
            )
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, batched = self._batched_input(input)
        hx = self._batched_state(hx, input, batched)
        cell = "rnn_tanh_cell" if self.nonlinearity == "tanh" else "rnn_relu_cell"
        input, hx = autocast_inputs(cell, input, hx)
        xw = F.linear(input, self.weight_ih, self.bias_ih)
        h = _rnn_step(xw, hx, self.weight_hh, self.bias_hh, self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (gates i, f, g, o): returns (h', c'). input (B, input_size) or
    (input_size,); hx = (h, c), each (B, hidden_size) or (hidden_size,) (zeros if None)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor,
                hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError("LSTMCell: hx must be a tuple (h, c) of two tensors, or None")
        h, c = (None, None) if hx is None else hx
        input, batched = self._batched_input(input)
        h = self._batched_state(h, input, batched, "hidden0", "hx[0]")
        c = self._batched_state(c, input, batched, "hidden1", "hx[1]")
        input, h, c = autocast_inputs("lstm_cell", input, h, c)
        xw = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = _lstm_step(xw, h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n): returns h'. input (B, input_size) or (input_size,);
    hx like it with hidden_size (zeros if None)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, batched = self._batched_input(input)
        hx = self._batched_state(hx, input, batched)
        input, hx = autocast_inputs("gru_cell", input, hx)
        xw = F.linear(input, self.weight_ih, self.bias_ih)
        h = _gru_step(xw, hx, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)


# ------------------------------------------------------------------ layers
class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU: parameters, argument checks, the layer
    and direction loops, and the time loop. Subclasses give ``_step`` (one cell step)."""

    _gates = 1  # how many gates are stacked in weight_ih / weight_hh

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        module = type(self).__name__
        _check_sizes(input_size, hidden_size, module)
        for name, flag in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(flag, bool):  # (0, 1 or "True" would be taken silently)
                raise TypeError(
                    f"{module}: {name} should be of type bool, got: {type(flag).__name__}"
                )
        if input_size <= 0:
            raise ValueError(f"{module}: input_size must be greater than zero, got {input_size}")
        if (
            isinstance(dropout, bool)
            or not isinstance(dropout, (int, float))
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"{module}: num_layers must be greater than zero, got {num_layers}")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if dropout > 0 and num_layers == 1:
            warn_user(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}"
            )
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        num_directions = 2 if bidirectional else 1
        out_size = proj_size or hidden_size  # the width of h
        gates = self._gates * hidden_size
        make = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else out_size * num_directions
            for suffix in ("", "_reverse")[:num_directions]:
                shapes = {
                    f"weight_ih_l{layer}{suffix}": (gates, layer_input),
                    f"weight_hh_l{layer}{suffix}": (gates, out_size),
                }
                if bias:
                    shapes[f"bias_ih_l{layer}{suffix}"] = (gates,)
                    shapes[f"bias_hh_l{layer}{suffix}"] = (gates,)
                if proj_size:
                    shapes[f"weight_hr_l{layer}{suffix}"] = (proj_size, hidden_size)
                for name, shape in shapes.items():
                    self.register_parameter(name, Parameter(factories.empty(shape, **make)))
                self._flat_weights_names.extend(shapes)
                self._all_weights.append(list(shapes))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        _init_uniform(self)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction: [[w_ih, w_hh, b_ih, b_hh, (w_hr)], ...]."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    @property
    def _flat_weights(self) -> list[Parameter]:
        return [getattr(self, name) for name in self._flat_weights_names]

    def flatten_parameters(self) -> None:
        """A no-op: PyTorch packs the weights for cuDNN here; microtorch has nothing to pack."""

    def _weights(self, layer: int, suffix: str) -> tuple:
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of one layer and direction (None where absent)."""
        return tuple(
            getattr(self, f"{kind}_l{layer}{suffix}", None)
            for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        )

    def _state_sizes(self) -> tuple[int, ...]:
        """The width of each state tensor: (hidden,) for RNN/GRU, (h, c) widths for LSTM."""
        return (self.hidden_size,)

    def _step(self, xw: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None,
              w_hr: Tensor | None) -> tuple:  # fmt: skip
        raise NotImplementedError(f"{type(self).__name__} must define _step (one time step)")

    def _check_input(self, input: Any) -> None:
        name = type(self).__name__
        if isinstance(input, PackedSequence):
            input = input.data
            if input.ndim != 2:
                raise ValueError(
                    f"{name}: packed data must be 2D (N, input_size), got {input.ndim}D"
                )
        elif not isinstance(input, Tensor):
            raise TypeError(
                f"{name}: expected a Tensor or PackedSequence, got {type(input).__name__}"
            )
        elif input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        weight_dtype = self.weight_ih_l0.dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"{name}: input dtype ({input.dtype}) does not match weight dtype "
                f"({weight_dtype}). Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"{name}: input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.shape[-1]}"
            )

    def _initial_state(self, hx: Any, input: Tensor, batch: int, batched: bool) -> tuple:
        """The initial states as a tuple of (num_layers * directions, B, width) tensors:
        the given hx (checked), or zeros."""
        name, sizes = type(self).__name__, self._state_sizes()
        layers = self.num_layers * (2 if self.bidirectional else 1)
        if hx is None:
            return tuple(
                factories.zeros(layers, batch, w, dtype=input.dtype, device=input.device)
                for w in sizes
            )
        if len(sizes) == 2 and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError(
                f"{name}: hx must be a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}"
            )
        states = tuple(hx) if len(sizes) == 2 else (hx,)
        for s in states:
            if not isinstance(s, Tensor):
                raise TypeError(
                    f"{type(self).__name__}: hx must be a Tensor, got {type(s).__name__}"
                )
        want = 3 if batched else 2
        if any(s.ndim != want for s in states):
            given = ", ".join(f"{s.ndim}-D" for s in states)
            kind = "batched 3-D" if batched else "unbatched 2-D"
            raise RuntimeError(
                f"{name}: for {kind} input, hx should also be {want}-D but got ({given})"
            )
        if not batched:
            states = tuple(s.unsqueeze(1) for s in states)  # (L * D, H) -> (L * D, 1, H)
        for k, (s, w) in enumerate(zip(states, sizes)):
            expected = (layers, batch, w)
            if tuple(s.shape) != expected:
                which = "hidden" if len(sizes) == 1 else f"hidden[{k}]"
                raise RuntimeError(f"{name}: Expected {which} size {expected}, got {list(s.shape)}")
            if s.dtype != input.dtype:
                raise RuntimeError(
                    f"{name}: input and hidden tensors are not the same dtype ({input.dtype} and "
                    f"{s.dtype})"
                )
        return states

    def _run_direction(self, xw: Tensor, batch_sizes: list[int], state: tuple, weights: tuple,
                       reverse: bool) -> tuple[Tensor, tuple]:  # fmt: skip
        """The time loop of one layer and direction. xw (N, gates * H) holds W_ih x_t + b_ih
        for every time step, one after another (batch_sizes[t] rows for step t); state a
        tuple of (B, width). Returns (outputs (N, H_out), final state)."""
        _, w_hh, _, b_hh, w_hr = weights
        # one piece per time step, (batch_sizes[t], gates * H) each; split's backward joins
        # the pieces' gradients in one go, where narrowing T times would build T full-size ones
        xw_steps = xw.split(batch_sizes, 0)
        full = batch_sizes[0]
        outputs: list[Tensor] = [None] * len(batch_sizes)  # type: ignore[list-item]
        steps = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
        for t in steps:
            n = batch_sizes[t]
            if n < full:  # the first n sequences take this step; the rest keep their state
                running, waiting = zip(*(s.split([n, full - n], 0) for s in state))
            else:
                running, waiting = state, None
            new = self._step(xw_steps[t], tuple(running), w_hh, b_hh, w_hr)
            outputs[t] = new[0]  # (n, H_out)
            if waiting is not None:
                new = tuple(_functional.cat([a, w], 0) for a, w in zip(new, waiting))
            state = new
        return _functional.cat(outputs, 0), state

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, Any]:
        """(output, h_n), or (output, (h_n, c_n)) for LSTM. input (T, B, input_size)
        ((B, T, input_size) with batch_first), (T, input_size) unbatched, or a
        PackedSequence; output (T, B, D * H_out) in the same layout; h_n (num_layers * D,
        B, H_out) (D = 2 if bidirectional else 1; H_out = proj_size or hidden_size)."""
        self._check_input(input)
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes_t, sorted_indices, unsorted_indices = input
            batch_sizes = [int(n) for n in batch_sizes_t.tolist()]
            batched = True
        else:
            batched = input.ndim == 3
            x = input
            if not batched:
                x = x.unsqueeze(1)  # (T, input) -> (T, 1, input)
            elif self.batch_first:
                x = x.transpose(0, 1)  # (B, T, input) -> (T, B, input)
            T, B = x.shape[0], x.shape[1]
            if T == 0:
                raise RuntimeError(
                    f"{type(self).__name__}: Expected sequence length to be larger than 0"
                )
            batch_sizes = [B] * T
            data = x.reshape(T * B, self.input_size)  # time steps one after another
        state = self._initial_state(hx, data, batch_sizes[0], batched)
        if packed and sorted_indices is not None:  # hx is in the caller's order
            state = tuple(s.index_select(1, sorted_indices) for s in state)
        num_directions = 2 if self.bidirectional else 1
        layer_input = data  # (N, input_size), N = sum(batch_sizes)
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(("", "_reverse")[:num_directions]):
                k = layer * num_directions + direction
                weights = self._weights(layer, suffix)
                xw = F.linear(layer_input, weights[0], weights[2])  # all steps: (N, gates * H)
                out, final = self._run_direction(
                    xw, batch_sizes, tuple(s[k] for s in state), weights, direction == 1
                )
                outputs.append(out)
                finals.append(final)
            # (N, H_out) per direction -> (N, D * H_out)
            layer_input = outputs[0] if num_directions == 1 else _functional.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        # final states: (num_layers * D, B, width) each
        h_n = tuple(_functional.stack([f[i] for f in finals], 0) for i in range(len(state)))
        if packed:
            if unsorted_indices is not None:
                h_n = tuple(s.index_select(1, unsorted_indices) for s in h_n)
            output = PackedSequence(layer_input, batch_sizes_t, sorted_indices, unsorted_indices)
        else:
            output = layer_input.reshape(T, B, layer_input.shape[-1])  # (T, B, D * H_out)
            if not batched:
                output = output.squeeze(1)
                h_n = tuple(s.squeeze(1) for s in h_n)
            elif self.batch_first:
                output = output.transpose(0, 1)
        return output, (h_n if len(h_n) == 2 else h_n[0])

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """A multi-layer Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) (or relu).
    Returns (output, h_n); see ``RNNBase.forward`` for the shapes."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(
            mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
            0, device, dtype,
        )  # fmt: skip
        self.nonlinearity = nonlinearity

    def _step(self, xw: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None,
              w_hr: Tensor | None) -> tuple:  # fmt: skip
        return (_rnn_step(xw, state[0], w_hh, b_hh, self.nonlinearity),)


class LSTM(RNNBase):
    """A multi-layer LSTM (gates i, f, g, o; ``proj_size`` > 0 projects h by weight_hr).
    Returns (output, (h_n, c_n)); c_n is (num_layers * D, B, hidden_size)."""

    _gates = 4

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(
            "LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
            bidirectional, proj_size, device, dtype,
        )  # fmt: skip

    def _state_sizes(self) -> tuple[int, ...]:
        return (self.proj_size or self.hidden_size, self.hidden_size)

    def _step(self, xw: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None,
              w_hr: Tensor | None) -> tuple:  # fmt: skip
        return _lstm_step(xw, state[0], state[1], w_hh, b_hh, w_hr)


class GRU(RNNBase):
    """A multi-layer GRU (gates r, z, n; r scales W_hn h + b_hn, as in PyTorch).
    Returns (output, h_n)."""

    _gates = 3

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(
            "GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
            bidirectional, 0, device, dtype,
        )  # fmt: skip

    def _step(self, xw: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None,
              w_hr: Tensor | None) -> tuple:  # fmt: skip
        return (_gru_step(xw, state[0], w_hh, b_hh),)
