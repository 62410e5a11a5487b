"""Reverse-mode automatic differentiation: the graph (Function), the walk (engine),
grad mode switches, and the gradient checker."""

from .anomaly import AnomalyError, detect_anomaly, is_anomaly_enabled
from .function import Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck


def backward(tensors, grad_tensors=None, retain_graph=None):
    """``autograd.backward(loss)``: the same as ``loss.backward()``."""
    tensors = tensors if isinstance(tensors, (list, tuple)) else [tensors]
    grads = (
        grad_tensors if isinstance(grad_tensors, (list, tuple)) else [grad_tensors] * len(tensors)
    )
    for t, g in zip(tensors, grads):
        t.backward(g, retain_graph=retain_graph)


__all__ = [
    "AnomalyError",
    "Function",
    "GradcheckError",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "gradcheck",
    "inference_mode",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
