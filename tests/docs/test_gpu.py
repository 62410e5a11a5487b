"""docs/gpu.md stays true: the files, functions and code it quotes exist as it says."""

from __future__ import annotations

import re
from pathlib import Path

import microtorch
import microtorch.optim  # noqa: F401  (declares the Adam kernel)
from microtorch import backend

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "gpu.md").read_text()


def test_every_file_it_names_exists() -> None:
    names = set(re.findall(r"`([\w/]+\.(?:py|sh|md))`", PAGE))
    names |= {m for m in re.findall(r"\(([\w/]+\.md)\)", PAGE)}
    assert len(names) > 10
    places = [ROOT, ROOT / "microtorch", ROOT / "docs"]
    missing = [n for n in sorted(names) if not any((p / n).exists() for p in places)]
    assert not missing, f"docs/gpu.md names files that do not exist: {missing}"


def test_every_function_it_names_exists() -> None:
    modules = {"backend": backend, "random": microtorch.random, "microtorch.cuda": microtorch.cuda}
    named = [(m, n) for m, n in re.findall(r"`(backend|random|microtorch\.cuda)\.(\w+)", PAGE)
             if n != "py"]  # fmt: skip
    cuda = re.findall(r"`(memory_allocated|memory_reserved|empty_cache)\(\)`", PAGE)
    named += [("microtorch.cuda", name) for name in cuda]
    assert len(named) > 8
    missing = [f"{m}.{n}" for m, n in named if not hasattr(modules[m], n)]
    assert not missing, f"docs/gpu.md names functions that do not exist: {missing}"
    assert f"`ROW_BLOCK` ({backend.ROW_BLOCK})" in PAGE


def test_the_quoted_code_is_the_code() -> None:
    quoted = re.search(r"```python\n    if _use_cuda_rows.*?```", PAGE, re.S).group(0)
    source = (ROOT / "microtorch" / "ops" / "softmax.py").read_text()
    block = "\n".join(quoted.splitlines()[1:-1])
    assert block in source


def test_the_kernel_list_is_every_file_with_a_kernel() -> None:
    """Section 2 lists where the fused kernels are; each file it lists declares one, and
    every kernel in backend.CUDA_SOURCES is declared in one of them."""
    section = PAGE.split("## 2.")[1].split("Each kernel sits")[0]
    listed = set(re.findall(r"`([\w/]+\.py)`", section))
    sources = {f: (ROOT / "microtorch" / f).read_text() for f in listed}
    for name in backend.CUDA_SOURCES:  # (GELU's names are made with an f-string)
        stem = name if "gelu" not in name else "microtorch_gelu_{"
        assert any(stem in text for text in sources.values()), (
            f"kernel {name} is not in any file docs/gpu.md lists: {sorted(listed)}"
        )
    for f, text in sources.items():
        assert "backend.elementwise_source" in text or "backend.row_source" in text, f
