"""Training quality: train the baby preset on Tiny Shakespeare and report the validation loss,
wall time and tokens/s.

    python benchmarks/train_quality.py ../shared/data/tinyshakespeare.txt
    python benchmarks/train_quality.py FILE --json quality.json --out out/quality
    python benchmarks/train_quality.py FILE --preset shakespeare --device cuda

The target is nanoGPT's published figure for this exact configuration in PyTorch (its README,
"baby GPT" on a CPU: n_layer 4, n_head 4, n_embd 128, block_size 64, batch_size 12, 2000
iterations, lr 1e-3 with 100 warmup steps and cosine decay to 1e-4, eval_iters 20): a
validation loss of about 1.88 at iteration 2000.

Reported (printed, and written with --json):
  val_loss           the run's own evaluation at the last iteration (--eval-iters batches of
                     the validation split; the preset's 20, as in nanoGPT's figure)
  val_loss_precise   the final model on --final-eval-iters (default 200) validation batches,
                     a less noisy estimate of the same number
  train_loss         the last evaluation's training-split loss
  wall_s             the whole run (data, model, training, evaluations, checkpoints)
  train_s            the training loop (with its periodic evaluations and checkpoints), and
                     tokens_per_s = tokens trained / train_s
The training run itself is ``models.train.train`` (the same code as ``python -m models.train``),
writing its checkpoints and metrics.jsonl to --out (a temporary directory by default).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

sys.path.insert(0, str(_common.REPO))

TARGET_VAL_LOSS = 1.88  # nanoGPT README, baby GPT on Tiny Shakespeare, iteration 2000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="the Tiny Shakespeare text file (or any UTF-8 text)")
    parser.add_argument("--preset", default="baby", choices=["tiny", "baby", "shakespeare"])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--max-iters", type=int, default=None, help="override the preset's")
    parser.add_argument("--final-eval-iters", type=int, default=200,
                        help="validation batches for the precise final loss")  # fmt: skip
    parser.add_argument("--out", default=None, help="keep the run here (default: a temp dir)")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args(argv)

    import numpy

    import microtorch as torch
    from models import train as train_mod
    from models.data import CharDataset
    from models.presets import preset_config
    from models.transformer import GPT, GPTConfig

    overrides = {
        "data": str(Path(args.data).resolve()),
        "device": args.device,
        "sample_length": 200,
    }
    if args.max_iters is not None:
        overrides["max_iters"] = args.max_iters
    cfg = preset_config(args.preset, **overrides)

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out or tmp)
        result = train_mod.train(cfg, out)
        wall_s = time.perf_counter() - start
        last = result.evals[-1]

        # A steadier estimate: the final model on many more validation batches.
        ckpt = torch.load(out / "latest.pt")
        model = GPT(GPTConfig(**ckpt["model_config"])).to(args.device)
        model.load_state_dict(ckpt["model"])
        model.eval()
        text = Path(cfg.data).read_text(encoding="utf-8")
        data = CharDataset(text, cfg.block_size)
        rng = numpy.random.Generator(numpy.random.PCG64(12345))
        losses = []
        with torch.no_grad():
            for _ in range(args.final_eval_iters):
                x, y = data.get_batch("val", cfg.batch_size, args.device, rng=rng)
                losses.append(model(x, y)[1])
        precise = float(sum(loss.item() for loss in losses) / len(losses))

    report = {
        "benchmark": "train_quality",
        "preset": args.preset,
        "data": str(args.data),
        "device": args.device,
        "iterations": result.iters,
        "tokens_per_step": cfg.tokens_per_step,
        "eval_iters": cfg.eval_iters,
        "val_loss": last["val_loss"],
        "train_loss": last["train_loss"],
        "val_loss_precise": round(precise, 4),
        "final_eval_iters": args.final_eval_iters,
        "target_val_loss": TARGET_VAL_LOSS if args.preset == "baby" else None,
        "wall_s": round(wall_s, 1),
        "train_s": round(result.elapsed_s, 1),
        "tokens_per_s": round(result.tokens_per_s, 1),
        "threads_env": {k: os.environ.get(k) for k in _common.THREAD_ENV_VARS},
        "machine": _common.machine_info(),
        "sample": result.sample,
    }
    print(
        "\n"
        + json.dumps({k: v for k, v in report.items() if k not in ("machine", "sample")}, indent=2)
    )
    _common.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
