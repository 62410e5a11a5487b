"""The exercises in docs/exercises: their tests pass against the reference solutions and
skip cleanly (saying what to do) while a learner has not written the op yet."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import microtorch

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "docs" / "exercises"


def run_exercise_tests(solutions: bool) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k != "MICROTORCH_EXERCISE_SOLUTIONS"}
    if solutions:
        env["MICROTORCH_EXERCISE_SOLUTIONS"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(EXERCISES), "-o", "addopts=", "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def counts(output: str) -> dict[str, int]:
    summary = output.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|error)", summary)}


def load_support():
    spec = importlib.util.spec_from_file_location(
        "exercise_support_under_test", EXERCISES / "exercise_support.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_at_least_five_exercises_each_with_page_test_and_solution():
    support = load_support()
    assert len(support.EXERCISES) >= 5
    for i, (name, (_, _, page, solution)) in enumerate(support.EXERCISES.items(), start=1):
        assert (EXERCISES / page).is_file(), page
        assert (EXERCISES / "solutions" / solution).is_file(), solution
        assert len(list(EXERCISES.glob(f"test_ex{i}_*.py"))) == 1, name
        assert name in (EXERCISES / "README.md").read_text()


@pytest.mark.slow  # a pytest subprocess (and PyTorch for the parity tests): about 7 s
def test_exercise_tests_pass_against_the_solutions():
    code, output = run_exercise_tests(solutions=True)
    found = counts(output)
    assert code == 0, output
    # only the PyTorch parity tests may skip, and only where torch is not installed
    no_torch = sum(
        int(n) for n in re.findall(r"SKIPPED \[(\d+)\] .*could not import 'torch'", output)
    )
    assert found.get("passed", 0) >= 25 and "failed" not in found, output
    assert found.get("skipped", 0) == no_torch, output


@pytest.mark.slow  # a pytest subprocess: about 4 s
def test_exercise_tests_skip_or_pass_without_solutions():
    """With the package as it is: every test either skips with instructions (op absent) or
    passes (the op exists in microtorch); none fails or errors."""
    code, output = run_exercise_tests(solutions=False)
    found = counts(output)
    assert code == 0, output
    assert "failed" not in found and "error" not in found, output
    for reason in re.findall(r"SKIPPED \[\d+\] [^:]+:\d+: (.*)", output):
        assert re.fullmatch(r"microtorch(\.nn\.functional)?\.\w+ does not exist yet: "
                            r"docs/exercises/0\d_\w+\.md says how to add it", reason), reason  # fmt: skip


@pytest.mark.parametrize("name", ["softplus", "logsumexp", "cumsum", "max_pool1d", "rms_norm"])
def test_get_op_skips_while_the_op_is_absent(name, monkeypatch):
    support = load_support()
    monkeypatch.delenv(support.SOLUTIONS_ENV, raising=False)
    module_name, attr, page, _ = support.EXERCISES[name]
    module = sys.modules[module_name]
    monkeypatch.delattr(module, attr, raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"docs/exercises/{page}"):
        support.get_op(name)
    monkeypatch.setattr(module, attr, lambda *a: "yours", raising=False)
    assert support.get_op(name)() == "yours"  # once it exists, the learner's op is tested


def test_solutions_are_not_imported_by_the_package():
    code = (
        "import sys, microtorch, microtorch.nn.functional, models.transformer; "
        "print([m.__name__ for m in list(sys.modules.values()) "
        "if 'exercises' in (getattr(m, '__file__', None) or '')])"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
    for path in Path(microtorch.__file__).parent.rglob("*.py"):
        assert "exercises" not in path.read_text(), f"{path} refers to the exercises"
