"""The benchmark scripts run end to end (tiny settings, microtorch only) and write the JSON
that benchmarks/RESULTS.md is made from."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _run(args: list[str]) -> str:
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, check=False,
        cwd=BENCH.parent,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def test_bench_ops_runs_and_writes_json(tmp_path):
    out = tmp_path / "ops.json"
    text = _run([str(BENCH / "bench_ops.py"), "--ops", "mul", "sdpa (causal)", "--sizes",
                 "small", "--repeats", "1", "--min-time", "0.001", "--no-torch",
                 "--json", str(out)])  # fmt: skip
    assert "Per-op overhead" in text and "sdpa (causal)" in text
    result = json.loads(out.read_text())
    entry = result["summary"]["ops"]["mul|small"]["microtorch"]
    assert entry["fwd_bwd_s"]["median"] > 0
    assert result["summary"]["overhead"]["microtorch"]["total_us_per_op"]["median"] > 0
    assert result["machine"]["cores"] >= 1 and "blas_env" in result["machine"]


def test_bench_ops_rejects_unknown_op():
    proc = subprocess.run([sys.executable, str(BENCH / "bench_ops.py"), "--ops", "nope"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode != 0 and "unknown op cases" in proc.stderr


def test_bench_train_tiny_runs_and_counts_flops(tmp_path):
    out = tmp_path / "train.json"
    _run([str(BENCH / "bench_train.py"), "--preset", "tiny", "--steps", "2", "--warmup", "1",
          "--repeats", "1", "--no-torch", "--json", str(out)])  # fmt: skip
    result = json.loads(out.read_text())["results"]["tiny"]
    cfg = result["config"]
    tokens = cfg["batch_size"] * cfg["block_size"]
    attention = 12 * cfg["n_layer"] * cfg["n_embd"] * cfg["block_size"]
    assert result["flop_per_step"] == tokens * (6 * result["n_matmul_params"] + attention)
    mt = result["microtorch"]
    assert mt["ms_per_step"]["median"] > 0 and mt["peak_rss_mb"]["median"] > 0
    assert len(mt["losses"]) == 3 and all(loss > 0 for loss in mt["losses"])


def test_run_progress_reports_a_stopped_run(tmp_path):
    """gpu_check.sh's timed training run: what it reached and the projected full time."""
    out = tmp_path / "run"
    _run(["-m", "models.train", "--preset", "tiny", "--max-iters", "4", "--eval-interval", "2",
          "--eval-iters", "1", "--sample-length", "0", "--out", str(out)])  # fmt: skip
    text = _run([str(BENCH / "run_progress.py"), str(out), "tiny"])
    # the preset runs 3000 iterations; this one stopped (here: ended) after 4
    assert text.startswith("iter 4/3000: val loss ") and "tokens/s" in text
    assert "3000 iterations would take about" in text
    assert _run([str(BENCH / "run_progress.py"), str(tmp_path)]).startswith("no evaluation")
