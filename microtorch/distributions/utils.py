"""Helpers the distributions share: parameters as broadcast tensors, probs <-> logits, and
noise drawn from microtorch's seeded host generator."""

from __future__ import annotations

import math
from functools import cached_property
from numbers import Number
from typing import Any

from .. import dtypes, random
from .. import functional as F
from .._tensor import Tensor
from ..autograd import grad_mode
from ..factories import full, tensor
from ..nn import functional as nnF


class lazy_property(cached_property):
    """A parameter computed from another on first use and then kept (Bernoulli's probs from
    its logits), with gradient recording on, as PyTorch's: a value first read under no_grad
    still carries the graph back to the parameter it came from."""

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        with grad_mode.enable_grad():
            return super().__get__(instance, owner)


def broadcast_all(*values: Any) -> tuple:
    """The values (tensors or numbers) as tensors broadcast to one shape; numbers take the
    first tensor's dtype and device (the default dtype when all are numbers)."""
    for v in values:
        if not isinstance(v, (Tensor, Number)):
            raise ValueError(
                f"Input arguments must all be numbers or tensors, got {type(v).__name__}"
            )
    tensors = [v for v in values if isinstance(v, Tensor)]
    dtype = tensors[0].dtype if tensors else dtypes.get_default_dtype()
    device = tensors[0].device if tensors else None
    as_tensors = [
        v if isinstance(v, Tensor) else tensor(float(v), dtype=dtype, device=device) for v in values
    ]
    return tuple(F.broadcast_tensors(*as_tensors))


def standard_normal(shape: tuple, like: Tensor) -> Tensor:
    """Standard normal noise of ``shape`` in like's dtype and on its device (no gradient)."""
    return Tensor._make(random.normal_array(shape, 0.0, 1.0, like.dtype, like.device))


def standard_uniform(shape: tuple, like: Tensor, low: float = 0.0) -> Tensor:
    """Uniform noise in [low, 1) of ``shape`` in like's dtype and on its device."""
    return Tensor._make(random.uniform_array(shape, low, 1.0, like.dtype, like.device))


def host_draws(host: Any, like: Tensor) -> Tensor:
    """A NumPy array drawn by the host generator as a tensor of like's dtype and device."""
    return tensor(host, dtype=like.dtype, device=like.device)


def filled(shape: tuple, value: float, like: Tensor) -> Tensor:
    """A constant tensor of ``shape`` in like's dtype and on its device (no gradient): a
    mean or variance that is nan or inf whatever the parameters."""
    return full(tuple(shape), value, dtype=like.dtype, device=like.device)


def log_of(value: Any) -> Any:
    """log of a number (math.log) or of a tensor (Tensor.log): temperatures may be either."""
    return value.log() if isinstance(value, Tensor) else math.log(value)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept eps away from 0 and 1 (eps of their dtype), so logs stay finite."""
    eps = dtypes.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds log(p) - log(1 - p) when is_binary, else log(p) (p clamped first)."""
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """sigmoid(logits) when is_binary, else softmax over the last dimension."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def one_of(probs: Any, logits: Any) -> None:
    """ValueError unless exactly one of probs and logits is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class BinaryProbsLogits:
    """The probs and logits of a two-outcome parameter (Bernoulli, Geometric, ...): the one
    not given is computed from the other on first use, sigmoid(logits) or
    log(p / (1 - p)). ``_param`` is the one given."""

    _param: Tensor

    def _set_probs_or_logits(self, probs: Any, logits: Any) -> Tensor:
        """Keep whichever of probs and logits is given (exactly one must be) as a tensor,
        and return it."""
        one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        return self._param

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Any:
        return self._param.shape


def expand_probs_or_logits(source: Any, new: Any, shape: tuple) -> None:
    """Give ``new`` the probs and logits that ``source`` holds (given, or already
    computed) expanded to ``shape``, and as its ``_param`` the expanded one it was given."""
    given_probs = "probs" in source.__dict__ and source._param is source.__dict__["probs"]
    if "probs" in source.__dict__:
        new.probs = source.probs.expand(shape)
    if "logits" in source.__dict__:
        new.logits = source.logits.expand(shape)
    new._param = new.probs if given_probs else new.logits


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """value summed over its last ``dim`` dimensions (value itself when dim is 0)."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1)


def _tril_embedding(n: int, diag: int, like: Tensor) -> Tensor:
    """The 0/1 matrix E (one row per entry with col - row <= diag of an n x n matrix, in
    row order; n * n columns) such that vec @ E is that matrix flattened and
    matrix.flatten(-2) @ E^T its entries as a vector (matrix products of existing ops, so
    the gradients come from autograd)."""
    positions = [r * n + c for r in range(n) for c in range(n) if c - r <= diag]
    index = tensor(positions, dtype=dtypes.int64, device=like.device)
    return nnF.one_hot(index, n * n).to(like.dtype)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of mat's (n x n) lower triangle, row by row, as its last dimension:
    those with col - row <= diag (diag=0 with the diagonal, -1 without)."""
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat.flatten(-2) @ _tril_embedding(n, diag, mat).mT


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The n x n lower-triangular matrix (zeros above col - row = diag) whose triangle,
    row by row, is vec's last dimension: tril_matrix_to_vec's inverse."""
    entries = vec.shape[-1]
    n = 0
    while _tril_count(n, diag) < entries:
        n += 1
    if _tril_count(n, diag) != entries:
        raise ValueError(
            f"The size of last dimension is {entries} which cannot be expressed as the "
            "lower triangular part of a square D x D matrix."
        )
    flat = vec @ _tril_embedding(n, diag, vec)
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))


def _tril_count(n: int, diag: int) -> int:
    """How many entries of an n x n matrix have col - row <= diag."""
    return sum(min(max(r + diag + 1, 0), n) for r in range(n))
