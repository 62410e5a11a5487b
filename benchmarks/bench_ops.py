"""Forward + backward time of each op, microtorch vs PyTorch, at three sizes; and the per-op
overhead on tiny tensors (a chain of small ops, where Python bookkeeping is all that counts).

    python benchmarks/bench_ops.py                       # all ops, cpu, 2 threads, 3 repeats
    python benchmarks/bench_ops.py --ops linear gelu --sizes medium --repeats 5
    python benchmarks/bench_ops.py --device cuda --json ops_cuda.json

Each op case is written once against the PyTorch API (``lib`` is ``torch`` or ``microtorch``,
``F`` its ``nn.functional``), so both frameworks run exactly the same code. Every
measurement runs in a fresh process importing one framework; the two alternate and repeat
(see benchmarks/_common.py). Time = median seconds per call of ``out = op(inputs);
out.backward(G)`` with leaves' ``.grad`` cleared each call; "fwd" is the forward alone (with
the graph recorded). PyTorch is optional: without it, its columns are skipped with a note.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

SIZES = ("small", "medium", "large")


# ----------------------------------------------------------------------------- the op cases
# Each case: inputs(size) -> list of (numpy array, requires_grad), and run(lib, F, *tensors)
# -> the output tensor. Shapes are chosen around the GPT presets: "medium" is the baby
# model's (B*T = 768 tokens, width 128, MLP 512), "large" nears the shakespeare model's.
def _rng():
    import numpy

    return numpy.random.default_rng(0)


def _randn(*shape):
    import numpy

    return _rng().standard_normal(shape, dtype=numpy.float32)


ELEMENTWISE = {"small": (64, 64), "medium": (768, 512), "large": (4096, 1536)}
ROWS = {"small": (64, 64), "medium": (768, 128), "large": (16384, 384)}


def _unary(size):
    return [(_randn(*ELEMENTWISE[size]), True)]


def _positive(size):
    import numpy

    return [(numpy.abs(_randn(*ELEMENTWISE[size])) + 0.1, True)]


def _binary_broadcast(size):
    n, m = ELEMENTWISE[size]
    return [(_randn(n, m), True), (_randn(m), True)]


def _binary(size):
    n, m = ELEMENTWISE[size]
    return [(_randn(n, m), True), (_randn(n, m) + 3.0, True)]


def _rows(size):
    return [(_randn(*ROWS[size]), True)]


def _layer_norm_inputs(size):
    import numpy

    n, c = ROWS[size]
    return [(_randn(n, c), True), (numpy.ones(c, numpy.float32), True),
            (numpy.zeros(c, numpy.float32), True)]  # fmt: skip


LINEAR = {"small": (64, 64, 64), "medium": (768, 128, 512), "large": (4096, 384, 1536)}


def _linear_inputs(size):
    n, k, m = LINEAR[size]
    return [(_randn(n, k), True), (_randn(m, k) * 0.05, True), (_randn(m), True)]


def _linear_half_inputs(size):
    """linear's inputs in float16 (what autocast gives a Linear layer's product)."""
    import numpy

    return [(a.astype(numpy.float16), grad) for a, grad in _linear_inputs(size)]


MATMUL = {"small": 64, "medium": 256, "large": 1024}


def _matmul_inputs(size):
    n = MATMUL[size]
    return [(_randn(n, n), True), (_randn(n, n), True)]


BMM = {"small": (8, 16, 16), "medium": (48, 64, 32), "large": (48, 256, 64)}


def _bmm_inputs(size):
    b, t, k = BMM[size]
    return [(_randn(b, t, k), True), (_randn(b, k, t), True)]


ATTENTION = {"small": (1, 2, 16, 16), "medium": (12, 4, 64, 32), "large": (8, 6, 256, 64)}


def _attention_inputs(size):
    shape = ATTENTION[size]
    return [(_randn(*shape), True), (_randn(*shape), True), (_randn(*shape), True)]


CLASSES = {"small": (64, 65), "medium": (768, 65), "large": (16384, 65)}


def _cross_entropy_inputs(size):
    n, c = CLASSES[size]
    return [(_randn(n, c), True), (_rng().integers(0, c, n), False)]


EMBEDDING = {"small": (64, 65, 64), "medium": (768, 65, 128), "large": (16384, 65, 384)}


def _embedding_inputs(size):
    n, v, c = EMBEDDING[size]
    return [(_rng().integers(0, v, n), False), (_randn(v, c), True)]


def _index_inputs(size):
    n, m = ELEMENTWISE[size]
    return [(_randn(n, m), True), (_rng().integers(0, n, n // 2), False)]


def _mask_inputs(size):
    n, m = ELEMENTWISE[size]
    return [(_randn(n, m), True), (_rng().random((n, m)) < 0.5, False)]


def _where_inputs(size):
    n, m = ELEMENTWISE[size]
    return [(_rng().random((n, m)) < 0.5, False), (_randn(n, m), True), (_randn(n, m), True)]


CASES: dict[str, tuple] = {
    # name: (inputs, run)
    "add (bcast)": (_binary_broadcast, lambda lib, F, a, b: a + b),
    "mul": (_binary, lambda lib, F, a, b: a * b),
    "div": (_binary, lambda lib, F, a, b: a / b),
    "exp": (_unary, lambda lib, F, x: x.exp()),
    "log": (_positive, lambda lib, F, x: x.log()),
    "tanh": (_unary, lambda lib, F, x: x.tanh()),
    "sigmoid": (_unary, lambda lib, F, x: x.sigmoid()),
    "relu": (_unary, lambda lib, F, x: F.relu(x)),
    "gelu": (_unary, lambda lib, F, x: F.gelu(x)),
    "gelu (tanh)": (_unary, lambda lib, F, x: F.gelu(x, approximate="tanh")),
    "sum (dim=-1)": (_unary, lambda lib, F, x: x.sum(dim=-1)),
    "mean": (_unary, lambda lib, F, x: x.mean()),
    "max (dim=-1)": (_unary, lambda lib, F, x: x.max(dim=-1).values),
    "var (dim=-1)": (_unary, lambda lib, F, x: x.var(dim=-1)),
    "softmax": (_rows, lambda lib, F, x: F.softmax(x, dim=-1)),
    "log_softmax": (_rows, lambda lib, F, x: F.log_softmax(x, dim=-1)),
    "layer_norm": (
        _layer_norm_inputs,
        lambda lib, F, x, w, b: F.layer_norm(x, (x.shape[-1],), w, b),
    ),
    "linear": (_linear_inputs, lambda lib, F, x, w, b: F.linear(x, w, b)),
    "linear (float16)": (_linear_half_inputs, lambda lib, F, x, w, b: F.linear(x, w, b)),
    "matmul": (_matmul_inputs, lambda lib, F, a, b: a @ b),
    "bmm": (_bmm_inputs, lambda lib, F, a, b: a @ b),
    "sdpa (causal)": (
        _attention_inputs,
        lambda lib, F, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    ),
    "cross_entropy": (_cross_entropy_inputs, lambda lib, F, x, t: F.cross_entropy(x, t)),
    "embedding": (_embedding_inputs, lambda lib, F, i, w: F.embedding(i, w)),
    "transpose+contig": (_unary, lambda lib, F, x: x.transpose(0, 1).contiguous()),
    "cat (dim=-1)": (_binary, lambda lib, F, a, b: lib.cat([a, b], dim=-1)),
    "slice x[:, ::2]": (_unary, lambda lib, F, x: x[:, ::2]),
    "index x[idx]": (_index_inputs, lambda lib, F, x, i: x[i]),
    "masked_fill": (_mask_inputs, lambda lib, F, x, m: x.masked_fill(m, 0.0)),
    "where": (_where_inputs, lambda lib, F, c, a, b: lib.where(c, a, b)),
    "dropout (p=0.1)": (_unary, lambda lib, F, x: F.dropout(x, 0.1)),
}


# ----------------------------------------------------------------------------- the worker
def _load(framework: str, threads: int) -> tuple:
    if framework == "torch":
        import torch

        torch.set_num_threads(threads)
        torch.manual_seed(0)
        return torch, torch.nn.functional
    import microtorch
    import microtorch.nn.functional

    microtorch.manual_seed(0)
    return microtorch, microtorch.nn.functional


def _sync_for(lib: Any, device: str):
    if device == "cuda":
        return lib.cuda.synchronize
    return lambda: None


def time_case(lib: Any, F: Any, name: str, size: str, device: str, min_time: float) -> dict:
    make_inputs, run = CASES[name]
    sync = _sync_for(lib, device)
    tensors, leaves = [], []
    for array, grad in make_inputs(size):
        t = lib.tensor(array, device=device)
        if grad:
            t.requires_grad_(True)
            leaves.append(t)
        tensors.append(t)
    out = run(lib, F, *tensors)
    gradient = lib.ones(tuple(out.shape), dtype=out.dtype, device=device)

    def forward():
        run(lib, F, *tensors)

    def forward_backward():
        run(lib, F, *tensors).backward(gradient)
        for leaf in leaves:
            leaf.grad = None

    return {
        "shapes": [list(t.shape) for t in tensors],
        "fwd_s": _common.time_call(forward, sync, min_time),
        "fwd_bwd_s": _common.time_call(forward_backward, sync, min_time),
    }


def time_overhead(lib: Any, device: str, chain: int = 200) -> dict:
    """Microseconds per op for a chain of ``chain`` small ops (4x4 tensors): mul, add, tanh,
    sub repeated, then sum; forward (recording the graph) and backward timed apart."""
    import time

    import numpy

    sync = _sync_for(lib, device)
    rng = numpy.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 4), dtype=numpy.float32), device=device)
    w = lib.tensor(rng.standard_normal((4, 4), dtype=numpy.float32), device=device)
    x.requires_grad_(True)
    w.requires_grad_(True)

    def build():
        y = x
        for _ in range(chain // 4):
            y = y * w
            y = y + x
            y = y.tanh()
            y = y - 0.5
        return y.sum()

    fwd, bwd = [], []
    for i in range(60):
        sync()
        start = time.perf_counter()
        loss = build()
        sync()
        middle = time.perf_counter()
        loss.backward()
        sync()
        end = time.perf_counter()
        x.grad = w.grad = None
        if i >= 10:  # warm-up
            fwd.append(middle - start)
            bwd.append(end - middle)
    n_ops = chain + 1
    f, b = statistics.median(fwd) / n_ops * 1e6, statistics.median(bwd) / n_ops * 1e6
    return {"fwd_us_per_op": f, "bwd_us_per_op": b, "total_us_per_op": f + b, "ops": n_ops}


def worker(args: argparse.Namespace) -> dict:
    import json

    lib, F = _load(args.framework, args.threads)
    results: dict[str, Any] = {"overhead": time_overhead(lib, args.device), "ops": {}}
    for name in args.ops:
        for size in args.sizes:
            results["ops"][f"{name}|{size}"] = time_case(
                lib, F, name, size, args.device, args.min_time
            )
    Path(args.worker_json).write_text(json.dumps(results))
    return results


# ----------------------------------------------------------------------------- the parent
def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    _common.add_comparison_args(parser)
    parser.add_argument(
        "--ops", nargs="+", default=list(CASES), help="op cases to run (default: all)"
    )
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=SIZES)
    parser.add_argument("--min-time", type=float, default=0.05, help="seconds per timing batch")
    parser.add_argument("--framework", choices=["microtorch", "torch"], help=argparse.SUPPRESS)
    parser.add_argument("--worker-json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    unknown = [op for op in args.ops if op not in CASES]
    if unknown:
        parser.error(f"unknown op cases {unknown}; known: {list(CASES)}")
    if args.worker_json:
        worker(args)
        return

    frameworks, info = _common.frameworks_and_machine(args)

    script = Path(__file__).resolve()
    base = ["--device", args.device, "--threads", str(args.threads), "--min-time",
            str(args.min_time), "--ops", *args.ops, "--sizes", *args.sizes]  # fmt: skip
    runs: dict[str, list] = {f: [] for f in frameworks}
    for r in range(args.repeats):
        order = frameworks if r % 2 == 0 else frameworks[::-1]
        for f in order:
            print(f"  repeat {r + 1}/{args.repeats}: {f} ...", flush=True)
            runs[f].append(_common.run_worker(script, [*base, "--framework", f], args.threads))

    summary = summarize(runs, args)
    print_summary(summary, frameworks)
    _common.write_json(args.json, {"machine": info, "args": vars(args), "summary": summary,
                                   "raw": runs})  # fmt: skip


def summarize(runs: dict, args: argparse.Namespace) -> dict:
    out: dict[str, Any] = {"ops": {}, "overhead": {}}
    for f, reps in runs.items():
        out["overhead"][f] = {
            key: _common.median_spread([rep["overhead"][key] for rep in reps])
            for key in ("fwd_us_per_op", "bwd_us_per_op", "total_us_per_op")
        }
        for key in reps[0]["ops"]:
            entry = out["ops"].setdefault(key, {"shapes": reps[0]["ops"][key]["shapes"]})
            entry[f] = {
                m: _common.median_spread([rep["ops"][key][m] for rep in reps])
                for m in ("fwd_s", "fwd_bwd_s")
            }
    return out


def print_summary(summary: dict, frameworks: list[str]) -> None:
    has_torch = "torch" in frameworks
    headers = ["op", "size", "shapes", "mt fwd ms", "mt fwd+bwd ms"]
    if has_torch:
        headers += ["torch fwd ms", "torch fwd+bwd ms", "mt/torch"]
    rows = []
    ratios = []
    for key, entry in summary["ops"].items():
        name, size = key.split("|")
        shapes = " ".join("x".join(map(str, s)) or "()" for s in entry["shapes"])
        mt = entry["microtorch"]
        row = [name, size, shapes, _common.fmt(mt["fwd_s"]["median"] * 1e3, 3),
               _common.fmt(mt["fwd_bwd_s"]["median"] * 1e3, 3)]  # fmt: skip
        if has_torch:
            th = entry["torch"]
            ratio = mt["fwd_bwd_s"]["median"] / th["fwd_bwd_s"]["median"]
            ratios.append(ratio)
            row += [_common.fmt(th["fwd_s"]["median"] * 1e3, 3),
                    _common.fmt(th["fwd_bwd_s"]["median"] * 1e3, 3), _common.fmt(ratio)]  # fmt: skip
        rows.append(row)
    print()
    _common.print_table(headers, rows)
    if ratios:
        geo = statistics.geometric_mean(ratios)
        print(f"\ngeometric mean of mt/torch (fwd+bwd) over {len(ratios)} cases: {geo:.2f}")

    print("\nPer-op overhead, chain of tiny (4x4) ops, microseconds per op (median over repeats, "
          "min..max):")  # fmt: skip
    rows = []
    for f in frameworks:
        o = summary["overhead"][f]
        rows.append([f] + [f"{o[k]['median']:.2f} ({o[k]['min']:.2f}..{o[k]['max']:.2f})"
                           for k in ("fwd_us_per_op", "bwd_us_per_op", "total_us_per_op")])  # fmt: skip
    _common.print_table(["framework", "fwd us/op", "bwd us/op", "fwd+bwd us/op"], rows)


if __name__ == "__main__":
    main()
