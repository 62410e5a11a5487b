"""microtorch.compile: PyTorch 2's torch.compile, without a compiler."""

from __future__ import annotations

import pytest

import microtorch


def test_torch_compile_returns_the_model_and_function_unchanged() -> None:
    """Training scripts written for PyTorch 2 call torch.compile; microtorch has no compiler,
    so, as PyTorch's torch.compile(..., disable=True), it hands back what it was given."""
    model = microtorch.nn.Linear(2, 3)
    assert microtorch.compile(model) is model
    assert microtorch.compile(model, mode="max-autotune", fullgraph=True) is model
    assert model.compile() is None  # Module.compile(): in place, nothing to do

    @microtorch.compile
    def double(x):
        return 2 * x

    @microtorch.compile(dynamic=False)
    def triple(x):
        return 3 * x

    assert double(microtorch.ones(2)).tolist() == [2.0, 2.0]
    assert triple(microtorch.ones(1)).tolist() == [3.0]
    with pytest.raises(RuntimeError, match="compile: expected a module or a function"):
        microtorch.compile(3)
