"""Optimizers (``SGD``, ``Adam``, ``AdamW``) and learning-rate schedules (``lr_scheduler``)."""

from . import lr_scheduler
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "lr_scheduler"]
