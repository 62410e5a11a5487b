"""Finding the op an exercise test checks: yours in microtorch, or the reference solution.

    pytest docs/exercises/test_ex1_softplus.py        # checks microtorch.nn.functional.softplus
                                                      # (skipped until you have written it)
    MICROTORCH_EXERCISE_SOLUTIONS=1 pytest docs/exercises   # checks docs/exercises/solutions/

The project's own test suite runs the second form (tests/docs/test_exercises.py), so the
exercise tests are known to pass against a correct op."""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SOLUTIONS_ENV = "MICROTORCH_EXERCISE_SOLUTIONS"
HERE = Path(__file__).resolve().parent

# exercise -> (module where your op lives, its name, the exercise page, the solution file)
EXERCISES = {
    "softplus": ("microtorch.nn.functional", "softplus", "01_softplus.md", "softplus.py"),
    "logsumexp": ("microtorch", "logsumexp", "02_logsumexp.md", "logsumexp.py"),
    "cumsum": ("microtorch", "cumsum", "03_cumsum.md", "cumsum.py"),
    "max_pool1d": ("microtorch.nn.functional", "max_pool1d", "04_max_pool1d.md", "max_pool1d.py"),
    "rms_norm": ("microtorch.nn.functional", "rms_norm", "05_rms_norm.md", "rms_norm.py"),
}


def load_solution(name: str) -> Callable[..., Any]:
    """The reference solution's function, loaded from its file (the package never imports
    these files)."""
    _, attr, _, filename = EXERCISES[name]
    path = HERE / "solutions" / filename
    spec = importlib.util.spec_from_file_location(f"exercise_solution_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, attr)


def get_op(name: str) -> Callable[..., Any]:
    """The op under test: the reference solution when MICROTORCH_EXERCISE_SOLUTIONS is set,
    else yours from microtorch; skips the test (saying what to do) while it does not exist."""
    module_name, attr, page, _ = EXERCISES[name]
    if os.environ.get(SOLUTIONS_ENV):
        return load_solution(name)
    op = getattr(importlib.import_module(module_name), attr, None)
    if op is None:
        pytest.skip(
            f"{module_name}.{attr} does not exist yet: docs/exercises/{page} says how to add it"
        )
    return op
