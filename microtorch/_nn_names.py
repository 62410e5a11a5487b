"""The nn functions PyTorch also has as torch.xxx with a signature of their own
(torch.batch_norm, torch.layer_norm, torch.dropout, torch.kl_div...). Those are PyTorch's
internal entry points: weight and bias come before the running statistics, flags such as
``training`` and ``cudnn_enabled`` are required positionals, and a loss's ``reduction`` is a
number (0 none, 1 mean, 2 sum). Left out, it is 0, as PyTorch's torch.xxx gives it: the
per-element losses (F.xxx's default is "mean"). Each one here reorders its arguments and calls the function
of microtorch.nn.functional; microtorch/__init__.py exports them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import dtypes as _dtypes
from ._out import write_out
from ._tensor import Tensor
from .amp import autocast_mode
from .nn import functional as F

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}  # PyTorch's enum of a loss's reduction


def _reduced(losses: Tensor, reduction: int, op: str) -> Tensor:
    """The per-element ``losses`` reduced as torch.xxx's number ``reduction`` says."""
    if isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise TypeError(
            f"{op}: reduction must be 0 (none), 1 (mean) or 2 (sum) in torch.{op}, got "
            f"{reduction!r}; torch.nn.functional.{op} takes the names"
        )
    kind = _REDUCTIONS[reduction]
    return losses if kind == "none" else losses.mean() if kind == "mean" else losses.sum()


def _check_probability(p: float, op: str) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"{op}: dropout probability has to be between 0 and 1, but got {p}")


# ----- normalisation: weight and bias first, then the running statistics -----------------
def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """F.batch_norm with torch.batch_norm's order of arguments (cudnn_enabled is ignored)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """F.instance_norm with torch.instance_norm's order of arguments."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)  # fmt: skip


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:  # fmt: skip
    """F.layer_norm (torch.layer_norm adds cudnn_enable, ignored)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:  # fmt: skip
    """F.group_norm (torch.group_norm adds cudnn_enabled, ignored)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


# ----- the native_ forms: the normalised output and the statistics it used ---------------
# (mean and 1 / sqrt(var + eps), as PyTorch saves them for backward: plain tensors, outside
# the graph; gradients flow through the first output only, as in PyTorch)
def _statistics(input: Tensor, dims: tuple, eps: float) -> tuple[Tensor, Tensor]:
    """The mean and reciprocal standard deviation (biased variance) over ``dims``, kept."""
    from .autograd import grad_mode

    with grad_mode.no_grad():
        x = input.detach()
        mean = x.mean(dim=dims, keepdim=True)
        rstd = (x.var(dim=dims, correction=0, keepdim=True) + eps).rsqrt()
    return mean, rstd


def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None,
                      bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """(layer_norm's output, mean, rstd): the statistics over the last
    len(normalized_shape) dims, shaped like input with those dims of size 1."""
    out = F.layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    return (out, *_statistics(input, dims, eps))


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                      momentum: float, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """(batch_norm's output, save_mean, save_invstd): in training the batch's per-channel
    mean and 1 / sqrt(biased var + eps) (and the running statistics are updated); in
    evaluation two empty tensors, as PyTorch returns them."""
    from .factories import empty

    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        none = empty(0, dtype=input.dtype, device=input.device)
        return out, none, none.clone()
    dims = (0, *range(2, input.ndim))
    mean, rstd = _statistics(input, dims, eps)
    return out, mean.reshape(-1), rstd.reshape(-1)


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int,
                      HxW: int, group: int,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """(group_norm's output, mean, rstd), the statistics of each (sample, group) as (N, group);
    N, C and HxW must describe input (N samples of C channels of HxW values each)."""
    if input.numel() != N * C * HxW or input.shape[0] != N or input.shape[1] != C:
        raise RuntimeError(
            f"native_group_norm: Expected X.numel() == N * C * HxW, but input of shape "
            f"{tuple(input.shape)} is not N={N} samples of C={C} channels of HxW={HxW} values"
        )
    out = F.group_norm(input, group, weight, bias, eps)
    mean, rstd = _statistics(input.reshape(N, group, -1), (2,), eps)
    return out, mean.reshape(N, group), rstd.reshape(N, group)


# ----- embedding: weight first; padding_idx -1 (any negative) means none -----------------
def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # fmt: skip
    """F.embedding(indices, weight): the rows of weight that indices pick. Unlike
    F.embedding's, a negative padding_idx here means no padding row."""
    padding = None if padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, padding, scale_grad_by_freq=scale_grad_by_freq,
                       sparse=sparse)  # fmt: skip


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float,
                      norm_type: float) -> Tensor:  # fmt: skip
    """In place: each row of ``input`` (an embedding weight) that ``indices`` pick and whose
    norm is above max_norm is scaled down to max_norm (what F.embedding(max_norm=) does
    first); returns input."""
    if indices.dtype.is_floating_point or indices.dtype is _dtypes.bool:
        raise RuntimeError(
            f"embedding_renorm_: Expected tensor for argument #2 'indices' to have one of the "
            f"following scalar types: Long, Int; but got {indices.dtype} instead"
        )
    if input.requires_grad and input.is_leaf:
        raise RuntimeError(
            "embedding_renorm_: a leaf Variable that requires grad is being used in an "
            "in-place operation."
        )
    F._renorm_rows(input, indices, max_norm, norm_type)
    return input


# ----- dropout: (input, p, train), all required -------------------------------------------
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """F.dropout(input, p, train); input itself when train is False."""
    _check_probability(p, "dropout")
    return F.dropout(input, p, train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """F.alpha_dropout(input, p, train)."""
    _check_probability(p, "alpha_dropout")
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """F.feature_alpha_dropout(input, p, train): whole channels (dim 1) at a time."""
    _check_probability(p, "feature_alpha_dropout")
    return F.feature_alpha_dropout(input, p, train)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout of whole channels: each (sample, channel) of an (N, C, *) input zeroed with
    probability p, the rest scaled by 1 / (1 - p); input itself when train is False."""
    _check_probability(p, "feature_dropout")
    if not train or p == 0.0:
        return input
    return F._feature_dropout(input, p, "feature_dropout")


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """(output, mask): in training (train True or None) each element kept with probability
    1 - p and scaled by 1 / (1 - p), the bool mask saying which were kept; otherwise a copy
    of input and a mask of all True."""
    from . import random as _random
    from .factories import ones_like, zeros_like

    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"native_dropout: result type Float can't be cast to the desired output type "
            f"{input.dtype}"
        )
    _check_probability(p, "native_dropout")
    if train is False:
        return input.clone(), ones_like(input, dtype=_dtypes.bool)
    if p == 1.0:  # nothing kept
        mask = zeros_like(input, dtype=_dtypes.bool)
        return input * mask, mask
    # F.dropout's mask: 0 or 1 / (1 - p), from the same generator
    scaled = Tensor._make(
        _random.bernoulli_mask(tuple(input.shape), 1.0 - p, input.array.dtype, input.device)
    )
    return input * scaled, scaled > 0


# ----- rrelu: a generator where F.rrelu has inplace ----------------------------------------
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:  # fmt: skip
    """F.rrelu, its random slopes (in training) drawn by ``generator``."""
    return F._random_leaky_relu(input, lower, upper, training, generator)


# ----- losses: reduction is a number ------------------------------------------------------
def kl_div(
    input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False
) -> Tensor:
    """F.kl_div per element, reduced by the number reduction (1: the mean over every element,
    without F.kl_div's warning about it; 0, the default: not reduced)."""
    losses = F.kl_div(input, target, reduction="none", log_target=log_target)
    return _reduced(losses, reduction, "kl_div")


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: int = 0) -> Tensor:  # fmt: skip
    """F.binary_cross_entropy_with_logits, pos_weight before the number reduction."""
    losses = F.binary_cross_entropy_with_logits(input, target, weight, reduction="none",
                                                pos_weight=pos_weight)  # fmt: skip
    return _reduced(losses, reduction, "binary_cross_entropy_with_logits")


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:  # fmt: skip
    """F.poisson_nll_loss with every argument required, reduction a number."""
    losses = F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction="none")
    return _reduced(losses, reduction, "poisson_nll_loss")


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:  # fmt: skip
    """F.margin_ranking_loss, reduction a number."""
    losses = F.margin_ranking_loss(input1, input2, target, margin, reduction="none")
    return _reduced(losses, reduction, "margin_ranking_loss")


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = 0) -> Tensor:  # fmt: skip
    """F.hinge_embedding_loss, reduction a number."""
    losses = F.hinge_embedding_loss(input, target, margin, reduction="none")
    return _reduced(losses, reduction, "hinge_embedding_loss")


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:  # fmt: skip
    """F.cosine_embedding_loss, reduction a number."""
    losses = F.cosine_embedding_loss(input1, input2, target, margin, reduction="none")
    return _reduced(losses, reduction, "cosine_embedding_loss")


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        reduction: int = 0) -> Tensor:  # fmt: skip
    """F.triplet_margin_loss, reduction a number."""
    losses = F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                   reduction="none")  # fmt: skip
    return _reduced(losses, reduction, "triplet_margin_loss")


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: int = 0, zero_infinity: bool = False) -> Tensor:  # fmt: skip
    """F.ctc_loss, reduction a number; left out it is 0 (one loss per sample), as PyTorch's
    torch.ctc_loss gives it (its signature text says Mean; 1 is the mean over the target
    lengths)."""
    if isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise TypeError(
            f"ctc_loss: reduction must be 0 (none), 1 (mean) or 2 (sum) in torch.ctc_loss, got "
            f"{reduction!r}; torch.nn.functional.ctc_loss takes the names"
        )
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _REDUCTIONS[reduction], zero_infinity)  # fmt: skip


# ----- shape ----------------------------------------------------------------------------------
def threshold(input: Tensor, threshold: float, value: float, *, out: Any = None) -> Tensor:
    """F.threshold(input, threshold, value): input where input > threshold, else value
    (torch.threshold takes out= where F.threshold takes inplace=)."""
    return write_out(F.threshold(input, threshold, value), out, "threshold")


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: Any = 0) -> Tensor:
    """F.pad(input, pad, "constant", value): (left, right) widths from the last dim on;
    negative widths take elements away."""
    return F.pad(input, pad, "constant", value)


# ----- convolution: the one entry for every kind, all arguments required ------------------
def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
                padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                output_padding: Sequence[int], groups: int) -> Tensor:  # fmt: skip
    """The 1-, 2- or 3-d convolution (transposed or not) that weight's dims call for: F.conv1d
    ... F.conv_transpose3d. Each of stride, padding, dilation and output_padding is a list of
    one value per spatial dim (or of one value for all); output_padding counts only when
    transposed."""
    dims = weight.ndim - 2
    if dims not in (1, 2, 3) or input.ndim != dims + 2:
        raise RuntimeError(
            f"convolution: Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional "
            f"weight {list(weight.shape)}, but got {input.ndim}-dimensional input of size "
            f"{list(input.shape)} instead"
        )
    given = {"stride": stride, "padding": padding, "dilation": dilation,
             "output_padding": output_padding}  # fmt: skip
    sizes = {}
    for name, value in given.items():
        if not isinstance(value, Sequence):
            raise TypeError(f"convolution(): argument '{name}' must be tuple of ints, not "
                            f"{type(value).__name__}")  # fmt: skip
        if len(value) not in (1, dims):
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {dims} values to "
                f"match the convolution dimensions, but got {name}={list(value)}"
            )
        sizes[name] = tuple(value) * dims if len(value) == 1 else tuple(value)
    if autocast_mode.is_autocast_enabled("cpu") and not input.is_cuda:
        # PyTorch's CPU autocast leaves torch.convolution alone (conv2d and the others it
        # lowers to float16, as it does on CUDA): run it with autocast off
        with autocast_mode.autocast("cpu", enabled=False):
            return convolution(input, weight, bias, stride, padding, dilation, transposed,
                               output_padding, groups)  # fmt: skip
    stride, padding, dilation = sizes["stride"], sizes["padding"], sizes["dilation"]
    if transposed:
        conv_transpose = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[dims - 1]
        return conv_transpose(input, weight, bias, stride, padding, sizes["output_padding"],
                              groups, dilation)  # fmt: skip
    conv = (F.conv1d, F.conv2d, F.conv3d)[dims - 1]
    return conv(input, weight, bias, stride, padding, dilation, groups)


# ----- recurrent cells: one time step with the weights passed in --------------------------
def _check_cell(op: str, input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                gates: int) -> None:  # fmt: skip
    """PyTorch's size checks of a cell's arguments (batched (B, *) inputs)."""
    hidden = w_hh.shape[1]
    if w_ih.shape[0] != gates * hidden:
        raise RuntimeError(
            f"{op}: weight_ih first dim must be {gates} * hidden_size = {gates * hidden}, but "
            f"got {w_ih.shape[0]}"
        )
    if input.ndim != 2 or input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(
            f"{op}: input has inconsistent input_size: got shape {tuple(input.shape)} expected "
            f"(batch, {w_ih.shape[1]})"
        )
    if tuple(hx.shape) != (input.shape[0], hidden):
        raise RuntimeError(
            f"{op}: hidden0 has inconsistent hidden_size: got shape {tuple(hx.shape)}, "
            f"expected ({input.shape[0]}, {hidden})"
        )


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """One LSTM step, nn.LSTMCell's, with hx = (h, c) and the weights given: (h', c')."""
    from .nn import rnn

    if isinstance(hx, Tensor) or not isinstance(hx, Sequence):
        raise TypeError(
            f"lstm_cell(): argument 'hx' must be tuple of Tensors, not {type(hx).__name__}"
        )
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    for state in hx:
        _check_cell("lstm_cell", input, state, w_ih, w_hh, 4)
    return rnn._lstm_step(F.linear(input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """One GRU step, nn.GRUCell's, with the weights given: h'."""
    from .nn import rnn

    _check_cell("gru_cell", input, hx, w_ih, w_hh, 3)
    return rnn._gru_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """One Elman RNN step, tanh(W_ih x + b_ih + W_hh h + b_hh), with the weights given."""
    from .nn import rnn

    _check_cell("rnn_tanh_cell", input, hx, w_ih, w_hh, 1)
    return rnn._rnn_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, "tanh")


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """One Elman RNN step with relu, relu(W_ih x + b_ih + W_hh h + b_hh), weights given."""
    from .nn import rnn

    _check_cell("rnn_relu_cell", input, hx, w_ih, w_hh, 1)
    return rnn._rnn_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, "relu")
