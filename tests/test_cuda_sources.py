"""Every CUDA kernel microtorch declares compiles, for float and double.

The kernels only run on a GPU, but their CUDA C++ can be compiled anywhere nvcc is
installed, so a typo is caught here instead of on a user's GPU. Elementwise kernels are
wrapped the way CuPy's ElementwiseKernel wraps them (each named parameter becomes a value,
each output a reference into an array, ``i`` the element index); row kernels are compiled
exactly as backend.row_kernel builds them. Skipped where nvcc is absent."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import microtorch  # noqa: F401  (imports every op module, which declare their kernels)
import microtorch.optim  # noqa: F401
from microtorch import backend

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc (the CUDA compiler) is not installed")

C_TYPES = {"float32": "float", "float64": "double", "uint64": "unsigned long long",
           "int64": "long long", "bool": "bool"}  # fmt: skip


def _declare(params: str, ctype: str, reference: bool) -> list[str]:
    out = []
    for param in filter(None, (p.strip() for p in params.split(","))):
        type_name, name = param.split()
        c_type = "T" if type_name == "T" else C_TYPES[type_name]
        out.append((c_type, name))
    if reference:
        return [f"{t}* {n}_array" for t, n in out], [f"{t}& {n} = {n}_array[i];" for t, n in out]
    return [f"{t} {n}" for t, n in out], []


def elementwise_code(name: str, in_params: str, out_params: str, body: str, ctype: str) -> str:
    ins, _ = _declare(in_params, ctype, reference=False)
    outs, bind = _declare(out_params, ctype, reference=True)
    args = ", ".join(ins + outs + ["long long n"])
    return (
        f'extern "C" __global__ void {name}({args}) {{\n'
        "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i >= n) return;\n  " + "\n  ".join(bind) + "\n" + body + "\n}\n"
    )


def _compile(code: str, path: Path) -> None:
    path.write_text(code)
    result = subprocess.run(
        [NVCC, "--ptx", "-arch=sm_90", "-o", str(path.with_suffix(".ptx")), str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, f"{path.name} does not compile:\n{result.stderr}\n{code}"


def test_kernels_are_declared() -> None:
    kinds = {name: spec[0] for name, spec in backend.CUDA_SOURCES.items()}
    for name in ("microtorch_softmax_forward", "microtorch_layer_norm_forward",
                 "microtorch_gelu_forward_none", "microtorch_adam_step",
                 "microtorch_dropout_mask"):  # fmt: skip
        assert name in kinds


@pytest.mark.slow
@pytest.mark.parametrize("ctype", ["float", "double"])
def test_every_cuda_kernel_compiles(ctype: str, tmp_path: Path) -> None:
    elementwise, row_sources = [], []
    for name, spec in sorted(backend.CUDA_SOURCES.items()):
        if spec[0] == "elementwise":
            elementwise.append(elementwise_code(name, *spec[1:], ctype))
        elif spec[1] not in row_sources:
            row_sources.append(spec[1])
    _compile(f"typedef {ctype} T;\n" + "\n".join(elementwise), tmp_path / "elementwise.cu")
    for k, source in enumerate(row_sources):
        _compile(backend.row_kernel_code(source, ctype), tmp_path / f"rows{k}.cu")
