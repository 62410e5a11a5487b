"""Helpers shared by the benchmark scripts: machine description, thread settings, timing,
running the two frameworks in separate processes, and printing tables.

Why separate processes: NumPy's OpenBLAS and PyTorch each start their own thread pool;
two pools in one process fight over the same two cores and distort both timings. So every
measurement runs in a fresh worker process that imports only one framework, and the parent
alternates microtorch / PyTorch workers and repeats, quoting the median over repeats and
the spread (min..max of the per-repeat medians).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

# Environment variables that change how fast NumPy's OpenBLAS runs. Some machines set
# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (forcing an older kernel); we report them, never
# change them here.
BLAS_ENV_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_VERBOSE")
THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def thread_env(threads: int) -> dict:
    """A copy of os.environ with every BLAS/OpenMP pool limited to ``threads``."""
    env = dict(os.environ)
    for name in THREAD_ENV_VARS:
        env[name] = str(threads)
    # the worker must import this repository's microtorch and models even from elsewhere
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def numpy_blas() -> dict:
    """Which BLAS NumPy uses and, where threadpoolctl is installed, which kernel it picked
    for this CPU (e.g. OpenBLAS 'Haswell' vs 'SkylakeX')."""
    import numpy

    info: dict[str, Any] = {"numpy": numpy.__version__}
    try:
        import threadpoolctl

        pools = threadpoolctl.threadpool_info()
        info["threadpools"] = [
            {k: p.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
            for p in pools
        ]
    except ImportError:
        info["threadpools"] = "threadpoolctl not installed (pip install threadpoolctl)"
    try:
        config = numpy.show_config(mode="dicts")
        blas = config.get("Build Dependencies", {}).get("blas", {})
        info["blas"] = {k: blas.get(k) for k in ("name", "version", "openblas configuration")}
    except (TypeError, AttributeError):  # numpy < 1.25 has no mode="dicts"
        info["blas"] = "see numpy.show_config()"
    return info


def machine_info() -> dict:
    """Everything needed to read a result: CPU, cores, versions, BLAS and its env vars."""
    info = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "blas_env": {name: os.environ.get(name) for name in BLAS_ENV_VARS},
        "numpy_blas": numpy_blas(),
    }
    info["torch"] = torch_version()
    return info


def torch_version() -> str | None:
    """PyTorch's version without importing it (the parent process stays small)."""
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


def torch_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def torch_has_cuda() -> bool:
    """Does the installed PyTorch see a GPU? Asked in a separate process, so that this one
    neither imports torch nor holds a CUDA context while the workers run."""
    check = [sys.executable, "-c", "import torch; print(torch.cuda.is_available())"]
    result = subprocess.run(check, capture_output=True, text=True, timeout=300)
    return result.stdout.strip() == "True"


def measure_matmul_gflops(n: int = 1024, repeats: int = 10) -> float:
    """float32 GFLOP/s of NumPy's n x n matmul in this process (the machine's BLAS rate;
    run it in a worker with the benchmark's thread count)."""
    import numpy

    rng = numpy.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=numpy.float32)
    b = rng.standard_normal((n, n), dtype=numpy.float32)
    a @ b  # warm up the thread pool
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - start)
    return 2 * n**3 / statistics.median(times) / 1e9


def measure_cuda_matmul_gflops(framework: str, n: int = 4096, repeats: int = 10) -> float:
    """float32 GFLOP/s of an n x n matmul on the GPU, with CuPy (the array library microtorch
    uses there) or PyTorch (TF32 off in both, their defaults)."""
    if framework == "torch":
        import torch

        a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
        matmul, sync = torch.matmul, torch.cuda.synchronize
    else:
        import cupy

        a = cupy.random.standard_normal((n, n), dtype=cupy.float32)
        b = cupy.random.standard_normal((n, n), dtype=cupy.float32)
        matmul, sync = cupy.matmul, cupy.cuda.Device().synchronize
    matmul(a, b)
    sync()
    start = time.perf_counter()
    for _ in range(repeats):
        matmul(a, b)
    sync()
    return 2 * n**3 * repeats / (time.perf_counter() - start) / 1e9


def time_call(fn: Callable[[], Any], sync: Callable[[], None], min_time: float = 0.05,
              max_iters: int = 200, samples: int = 5) -> float:  # fmt: skip
    """Median seconds per call of ``fn``: after a warm-up, ``samples`` batches of calls, each
    batch long enough (about min_time) to make timer resolution irrelevant."""
    fn()
    sync()
    start = time.perf_counter()
    fn()
    sync()
    once = max(time.perf_counter() - start, 1e-7)
    iters = int(min(max_iters, max(1, min_time / once)))
    per_call = []
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        sync()
        per_call.append((time.perf_counter() - start) / iters)
    return statistics.median(per_call)


def run_worker(script: Path, args: list[str], threads: int, timeout: float = 1800) -> Any:
    """Run ``python script args... --worker-json OUT`` in a fresh process and return the JSON
    it wrote (a worker prints nothing on success; its stderr is shown on failure)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "worker.json"
        cmd = [sys.executable, str(script), *args, "--worker-json", str(out)]
        proc = subprocess.run(
            cmd, env=thread_env(threads), capture_output=True, text=True, timeout=timeout
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"worker failed ({' '.join(cmd)}):\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
            )
        return json.loads(out.read_text())


def median_spread(values: list[float]) -> dict:
    """Median over repeats and the spread (min, max) of the values."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}  # fmt: skip


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(str(x).rjust(w) if i else str(x).ljust(w)
                        for i, (x, w) in enumerate(zip(row, widths))))  # fmt: skip


def write_json(path: str | None, payload: dict) -> None:
    if path:
        Path(path).write_text(json.dumps(payload, indent=2, default=str) + "\n")
        print(f"\nwrote {path}")


def frameworks_and_machine(args: Any) -> tuple[list[str], dict]:
    """Which frameworks to run (PyTorch when installed and not --no-torch) and the machine
    description; prints both as the benchmark's header."""
    frameworks = ["microtorch"]
    if args.no_torch:
        print("PyTorch columns skipped (--no-torch)")
    elif torch_available() and args.device == "cuda" and not torch_has_cuda():
        print("PyTorch is installed without CUDA (or sees no GPU): its columns are skipped")
    elif torch_available():
        frameworks.append("torch")
    else:
        print("PyTorch is not installed: its columns are skipped (pip install torch to compare)")
    info = machine_info()
    print(f"{info['date']}  {info['cpu']}, {info['cores']} cores, {args.threads} threads, "
          f"device {args.device}; numpy {info['numpy_blas']['numpy']}, torch {info['torch']}")  # fmt: skip
    print(f"BLAS: {info['numpy_blas'].get('blas')}; BLAS env: {info['blas_env']}")
    return frameworks, info


def add_comparison_args(parser: Any) -> None:
    """The options every side-by-side benchmark takes."""
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument(
        "--threads", type=int, default=2, help="BLAS/OpenMP/torch threads (default 2)"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="worker pairs (alternating frameworks)"
    )
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    parser.add_argument("--json", help="write all results to this JSON file")
