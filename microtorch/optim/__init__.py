"""Optimizers (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``) and learning-rate schedules (``lr_scheduler``)."""

from . import lr_scheduler
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
