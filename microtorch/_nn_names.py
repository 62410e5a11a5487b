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

from ._tensor import Tensor
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


# ----- embedding: weight first; padding_idx -1 (any negative) means none -----------------
def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # fmt: skip
    """F.embedding(indices, weight): the rows of weight that indices pick. Unlike
    F.embedding's, a negative padding_idx here means no padding row."""
    padding = None if padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, padding, scale_grad_by_freq=scale_grad_by_freq,
                       sparse=sparse)  # fmt: skip


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
def constant_pad_nd(input: Tensor, pad: Sequence[int], value: Any = 0) -> Tensor:
    """F.pad(input, pad, "constant", value): (left, right) widths from the last dim on;
    negative widths take elements away."""
    return F.pad(input, pad, "constant", value)
