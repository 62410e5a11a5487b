"""docs/adding_an_op.md stays true: its code, pasted where the page says, makes a working op
that passes the real op-table checks and gradcheck."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import microtorch
from microtorch import functional
from microtorch.autograd import gradcheck
from microtorch.ops import elementwise

PAGE = Path(__file__).resolve().parents[2] / "docs" / "adding_an_op.md"


def code_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)


def block_with(text: str) -> str:
    found = [b for b in code_blocks() if text in b]
    assert len(found) == 1, f"docs/adding_an_op.md: expected one code block with {text!r}"
    return found[0]


@pytest.fixture
def log1p(monkeypatch):
    """The page's Function pasted into ops/elementwise.py and its wrapper into
    functional.py, then exported as microtorch.log1p (undone after the test)."""
    ops_ns = dict(vars(elementwise))
    exec(block_with("class Log1p(Function)"), ops_ns)
    monkeypatch.setattr(elementwise, "Log1p", ops_ns["Log1p"], raising=False)
    functional_ns = dict(vars(functional))
    exec(block_with("def log1p(input: Tensor)"), functional_ns)
    monkeypatch.setattr(microtorch, "log1p", functional_ns["log1p"], raising=False)
    return functional_ns["log1p"]


def test_the_pages_op_is_accurate_and_differentiable(log1p):
    x = microtorch.tensor([1e-10, 0.5, 3.0], dtype=microtorch.float64, requires_grad=True)
    out = log1p(x)
    np.testing.assert_allclose(out.detach().numpy(), np.log1p([1e-10, 0.5, 3.0]), rtol=1e-15)
    assert out.grad_fn.name() == "Log1pBackward0"
    assert log1p(microtorch.tensor([1, 2])).dtype is microtorch.float32  # ints -> float


def test_the_pages_gradcheck_snippet_runs(log1p):
    namespace: dict = {}
    exec(block_with("gradcheck(microtorch.log1p, [x])"), namespace)
    assert namespace["gradcheck"](microtorch.log1p, [namespace["x"]])


def test_the_pages_op_table_entry_passes_the_op_table_checks(log1p):
    from tests import test_ops

    line = block_with('C("log1p"').strip().rstrip(",")
    case = eval(line, vars(test_ops))
    test_ops.test_op_case(case, "cpu")
    test_ops.test_op_case_float32(case, "cpu")


def test_the_method_snippet_names_the_functional(log1p):
    method = block_with("def log1p(self)")
    assert "return F.log1p(self)" in method
    x = microtorch.rand(4, dtype=microtorch.float64, requires_grad=True)
    assert gradcheck(log1p, [x])
