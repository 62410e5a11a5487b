"""The example from the project's brief: PyTorch code that runs on microtorch once the two
imports are changed, prints the shape [1, 1, 3, 8], and gives PyTorch's result on the same
q, k, v arrays."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

PYTORCH_CODE = """\
import torch
import torch.nn.functional as F

torch.manual_seed(7)
q = torch.randn(1, 1, 3, 8); k = torch.randn(1, 1, 3, 8); v = torch.randn(1, 1, 3, 8)
context = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.0)
print(context.shape)
"""

IMPORTS = {
    "import torch\n": "import microtorch as torch\n",
    "import torch.nn.functional as F\n": "import microtorch.nn.functional as F\n",
}


def microtorch_code() -> str:
    """The example with only its two import lines changed."""
    lines = [IMPORTS.get(line, line) for line in PYTORCH_CODE.splitlines(keepends=True)]
    changed = [a for a, b in zip(PYTORCH_CODE.splitlines(True), lines) if a != b]
    assert changed == list(IMPORTS)  # nothing else was touched
    return "".join(lines)


def test_example_runs_and_prints_the_shape() -> None:
    result = subprocess.run(
        [sys.executable, "-c", microtorch_code()],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "microtorch.Size([1, 1, 3, 8])"
    assert "[1, 1, 3, 8]" in result.stdout


def test_example_is_reproducible_and_matches_pytorch_on_the_same_arrays() -> None:
    namespace: dict = {}
    exec(microtorch_code(), namespace)
    again: dict = {}
    exec(microtorch_code(), again)  # manual_seed(7): the same numbers every run
    np.testing.assert_array_equal(namespace["context"].numpy(), again["context"].numpy())

    torch = pytest.importorskip("torch")
    q, k, v = (torch.from_numpy(namespace[name].numpy().copy()) for name in "qkv")
    expected = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True, dropout_p=0.0
    )
    context = namespace["context"]
    assert tuple(context.shape) == tuple(expected.shape) == (1, 1, 3, 8)
    assert context.dtype.name == "float32"
    np.testing.assert_allclose(context.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
