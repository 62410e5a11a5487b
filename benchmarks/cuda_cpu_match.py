"""Do the CPU and the GPU train the same model the same way?

Runs the first N training steps of a preset (dropout 0, same seed, so the same host-seeded
initialisation and the same batches) on one device and writes every loss to JSON; with
--compare, reads two such files and reports the largest difference (target: 1e-3).

    python benchmarks/cuda_cpu_match.py --device cpu  --data FILE --json cpu.json
    python benchmarks/cuda_cpu_match.py --device cuda --data FILE --json cuda.json
    python benchmarks/cuda_cpu_match.py --compare cpu.json cuda.json
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def run(args: argparse.Namespace) -> int:
    from models.presets import preset_config
    from models.train import train

    batch = {"batch_size": args.batch_size} if args.batch_size else {}
    cfg = preset_config(
        args.preset, dropout=0.0, max_iters=args.iters, log_interval=1, eval_interval=args.iters,
        eval_iters=1, sample_length=0, device=args.device, data=args.data, seed=args.seed, **batch,
    )  # fmt: skip
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        result = train(cfg, out, stream=io.StringIO())
    seconds = time.perf_counter() - start
    losses = [result.losses[i] for i in range(1, args.iters + 1)]
    report = {"device": args.device, "preset": args.preset, "seed": args.seed,
              "iters": args.iters, "seconds": seconds, "losses": losses}  # fmt: skip
    Path(args.json).write_text(json.dumps(report, indent=1))
    print(f"{args.device}: {args.iters} steps of {args.preset} in {seconds:.1f} s; "
          f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")  # fmt: skip
    return 0


def compare(a_path: str, b_path: str, tolerance: float) -> int:
    a, b = (json.loads(Path(p).read_text()) for p in (a_path, b_path))
    diffs = [abs(x - y) for x, y in zip(a["losses"], b["losses"])]
    worst = max(range(len(diffs)), key=diffs.__getitem__)
    print(f"{'step':>5} {a['device']:>10} {b['device']:>10} {'|diff|':>10}")
    for i in sorted({0, 9, 19, 29, 39, len(diffs) - 1, worst}):
        if i < len(diffs):
            print(f"{i + 1:>5} {a['losses'][i]:>10.6f} {b['losses'][i]:>10.6f} {diffs[i]:>10.2e}")
    ok = diffs[worst] <= tolerance
    print(f"largest difference over {len(diffs)} steps: {diffs[worst]:.2e} at step {worst + 1} "
          f"({'within' if ok else 'OVER'} the {tolerance:g} target)")  # fmt: skip
    return 0 if ok else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--preset", default="shakespeare", help="training preset (default shakespeare)")
    p.add_argument("--iters", type=int, default=50, help="training steps to record (default 50)")
    p.add_argument("--data", default="python-docs", help="training text file (or a built-in name)")
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--batch-size", type=int, help="sequences per step (default: the preset's)")
    p.add_argument("--json", default="losses.json", help="where to write the losses")
    p.add_argument("--compare", nargs=2, metavar=("A_JSON", "B_JSON"), help="compare two runs")
    p.add_argument("--tolerance", type=float, default=1e-3)
    args = p.parse_args()
    if args.compare:
        return compare(*args.compare, args.tolerance)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
