"""All parameters as one flat vector, and back (``parameters_to_vector`` /
``vector_to_parameters``), as in PyTorch: for optimizers and analyses that see the model
as a single point in parameter space."""

from __future__ import annotations

from collections.abc import Iterable

from ... import functional as F
from ..._tensor import Tensor
from ...autograd import grad_mode


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters, each flattened, joined in order into one 1-D tensor (it keeps the
    graph: gradients flow back to the parameters)."""
    return F.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Write consecutive slices of the 1-D ``vec`` into the parameters, in order (the
    inverse of parameters_to_vector; it records no gradient)."""
    if not isinstance(vec, Tensor) or vec.ndim != 1:
        raise TypeError(f"vector_to_parameters: expected a 1-D tensor, got {type(vec).__name__}")
    parameters = list(parameters)
    total = sum(p.numel() for p in parameters)
    if vec.numel() != total:
        raise RuntimeError(
            f"vector_to_parameters: the vector has {vec.numel()} elements but the parameters "
            f"have {total}"
        )
    start = 0
    with grad_mode.no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[start : start + n].reshape(p.shape))
            start += n
