"""``torch.autograd.anomaly_mode``: PyTorch's module path for the anomaly switches, which
live in anomaly.py here."""

from .anomaly import detect_anomaly, set_detect_anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly"]
