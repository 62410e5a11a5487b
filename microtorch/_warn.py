"""``warn_user(message)``: a UserWarning reported at the user's own line of code.

A fixed ``stacklevel`` points at the right line only for one call path: ``x.var()`` reaches
``functional.var`` one frame deeper than ``microtorch.var(x)`` does. So the warning is
reported at the first frame outside the microtorch package, whichever way it was reached."""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def warn_user(message: str) -> None:
    frame, stacklevel = sys._getframe(1), 2  # stacklevel 2: warn_user's caller
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, stacklevel = frame.f_back, stacklevel + 1
    warnings.warn(message, UserWarning, stacklevel=stacklevel)
