"""How far a training run got, for a run that may have been stopped early (gpu_check.sh's
timed run): its last evaluation, its best val loss, and how long the preset's max_iters
would take at the speed it went.

    python benchmarks/run_progress.py OUT_DIR [PRESET]      (PRESET: default shakespeare)

OUT_DIR is a ``python -m models.train --out`` directory; its metrics.jsonl has one row per
evaluation (iter, val_loss, elapsed_s, tokens_per_s). The projection scales the elapsed time
at the last evaluation, evaluations included, to max_iters."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def progress(out_dir: Path, preset: str) -> str:
    from models.presets import preset_config
    from models.train import read_metrics

    metrics = out_dir / "metrics.jsonl"
    rows = read_metrics(metrics) if metrics.exists() else []
    if not rows:
        return f"no evaluation in {metrics}"
    last, max_iters = rows[-1], preset_config(preset).max_iters
    best = min(r["val_loss"] for r in rows)
    text = (f"iter {last['iter']}/{max_iters}: val loss {last['val_loss']:.4f} (best {best:.4f}), "
            f"{last['tokens_per_s']:,.0f} tokens/s")  # fmt: skip
    if 0 < last["iter"] < max_iters:
        projected = last["elapsed_s"] / last["iter"] * max_iters
        text += f"; {max_iters} iterations would take about {projected / 60:.1f} min"
    return text


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    print(progress(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) == 3 else "shakespeare"))
