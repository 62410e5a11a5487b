"""Every CUDA kernel microtorch declares compiles, for float and double.

The kernels only run on a GPU, but their CUDA C++ can be compiled without one, so a typo is
caught here instead of on a user's GPU. Two compilers, each where it is installed:

- NVRTC, the compiler CuPy itself runs when a kernel is first launched. The elementwise
  kernels are wrapped by CuPy's own code generator, with CuPy's headers and compile options,
  so what is compiled here is what CuPy compiles on a GPU. NVRTC includes no header unless
  asked: a kernel that leans on one nvcc adds by itself (``INFINITY`` from math.h, say)
  compiles with nvcc and fails only on the GPU. Needs CuPy and the NVRTC library (``pip
  install cupy-cuda13x nvidia-cuda-nvrtc``); both install and import without a GPU.
- nvcc. Elementwise kernels are wrapped the way CuPy's ElementwiseKernel wraps them (each
  named parameter becomes a value, each output a reference into an array, ``i`` the element
  index); row kernels are compiled exactly as backend.row_kernel builds them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import microtorch  # noqa: F401  (imports every op module, which declare their kernels)
import microtorch.optim  # noqa: F401
from microtorch import backend

NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc (the CUDA compiler) is not installed")

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
@needs_nvcc
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


# ----- NVRTC, as CuPy compiles ---------------------------------------------------------
ARCH = "sm_90"  # the H200's; CuPy compiles to machine code for the GPU it runs on


def _cupy_compiler():
    """(nvrtc, CuPy's kernel module, its core module), or skip where they are absent."""
    cupy = pytest.importorskip("cupy")
    if getattr(cupy, "__version__", "") == "0.0-fake":
        pytest.skip("tests/fake_cupy stands in for CuPy here")
    from cupy._core import _kernel, core
    from cupy.cuda import nvrtc

    try:
        nvrtc.getVersion()
    except Exception as error:  # the library is a separate wheel
        pytest.skip(f"NVRTC is not installed (pip install nvidia-cuda-nvrtc): {error}")
    needed = ("_get_elementwise_kernel_code", "_ArgInfo", "_TypeMap", "_get_param_info")
    if not all(hasattr(_kernel, n) for n in needed) or not hasattr(
        core, "assemble_cupy_compiler_options"
    ):
        pytest.skip(f"CuPy {cupy.__version__} generates its kernels through other internals")
    return nvrtc, _kernel, core


def _nvrtc_compile(code: str, name: str) -> str:
    """Compile as CuPy does (its include paths and C++ standard, flush-to-zero, machine
    code for ARCH); returns "" or NVRTC's error log."""
    nvrtc, _, core = _cupy_compiler()
    options = core.assemble_cupy_compiler_options(()) + (
        "-ftz=true", f"-arch={ARCH}", "--device-as-default-execution-space",
    )  # fmt: skip
    program = nvrtc.createProgram(code, f"{name}.cu", [], [])
    try:
        nvrtc.compileProgram(program, list(options))
        return ""
    except nvrtc.NVRTCError:
        return nvrtc.getProgramLog(program) or "NVRTC failed without a log"
    finally:
        nvrtc.destroyProgram(program)


def cupy_elementwise_code(name: str, in_params: str, out_params: str, body: str,
                          dtype: str, scalar_inputs: bool) -> str:  # fmt: skip
    """The CUDA C++ CuPy generates for ``ElementwiseKernel(in_params, out_params, body,
    name)`` called with C-contiguous arrays of ``dtype`` (the inputs passed as scalars when
    ``scalar_inputs``), its headers first, as cupy._core.core.compile_with_cache adds them."""
    _, kernel, core = _cupy_compiler()  # skips first where CuPy is absent or faked
    import numpy
    from cupy import ndarray
    from cupy._core import _carray, _scalar

    ndarray_kind, indexer_kind, scalar_kind = 1, 2, 3  # cupy/_core/_kernel.pxd's _ArgKind
    ins = kernel._get_param_info(in_params, True)
    outs = kernel._get_param_info(out_params, False)
    params = ins + outs + kernel._get_param_info("CIndexer _ind", False)
    element = numpy.dtype(dtype)
    infos = [
        kernel._ArgInfo(scalar_kind, _scalar.CScalar, p.dtype or element, 0, True, True)
        if scalar_inputs and k < len(ins)
        else kernel._ArgInfo(ndarray_kind, ndarray, p.dtype or element, 1, True, True)
        for k, p in enumerate(ins + outs)
    ]
    infos.append(kernel._ArgInfo(indexer_kind, _carray.Indexer, None, 1, True, True))
    placeholders = sorted({p.ctype for p in ins + outs if p.dtype is None})
    type_map = kernel._TypeMap(tuple((t, element) for t in placeholders))
    code = kernel._get_elementwise_kernel_code(tuple(infos), type_map, params, body, name, "")
    headers = "".join(f"#include <{h}>\n" for h in core._cupy_header_list)
    return headers + code


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(backend.CUDA_SOURCES))
def test_every_cuda_kernel_compiles_with_nvrtc_as_cupy_does(name: str, dtype: str) -> None:
    spec = backend.CUDA_SOURCES[name]
    if spec[0] == "rows":
        variants = {"": backend.row_kernel_code(spec[1], C_TYPES[dtype])}
    else:  # each input an array, then each a scalar (as lr, eps... are passed)
        variants = {
            kind: cupy_elementwise_code(name, *spec[1:], dtype, scalar_inputs=kind == "scalars")
            for kind in ("arrays", "scalars")
        }
    for kind, code in variants.items():
        log = _nvrtc_compile(code, name)
        assert not log, (
            f"{name} ({dtype}{', ' + kind if kind else ''}) fails in NVRTC:\n{log}\n{code}"
        )
        if spec[0] == "rows":
            assert f'extern "C" __global__ void {name}(' in code, f"{name} is not defined"


def test_nvrtc_refuses_what_only_nvcc_would_accept() -> None:
    """The check above can fail: INFINITY comes from math.h, which nvcc includes by itself
    and NVRTC does not (CuPy's own headers define CUDART_INF_F instead)."""
    uses_math_h = 'extern "C" __global__ void k(float* x) { x[0] = INFINITY; }'
    assert "INFINITY" in _nvrtc_compile(uses_math_h, "k")
    code = cupy_elementwise_code("k", "T x", "T y", "y = x < 0 ? CUDART_INF_F : x;",
                                 "float32", scalar_inputs=False)  # fmt: skip
    assert _nvrtc_compile(code, "k") == ""
    broken = cupy_elementwise_code("k", "T x", "T y", "y = undefined_function(x);",
                                   "float32", scalar_inputs=True)  # fmt: skip
    assert "undefined_function" in _nvrtc_compile(broken, "k")
