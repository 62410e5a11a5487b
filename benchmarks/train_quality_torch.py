"""The PyTorch side of train_quality.py: the same 2000-step baby run in PyTorch eager, for a
side-by-side wall time and validation loss.

    python benchmarks/train_quality_torch.py ../shared/data/tinyshakespeare.txt --json q.json

Everything but the framework is shared with ``python -m models.train``: the preset's
settings, the tokenizer and 90/10 split (models/data.py), the batch generator and its seed,
the learning-rate schedule (models.train.get_lr), the evaluation batches, and the initial
weights (the seeded microtorch GPT's, loaded into the PyTorch model of bench_train.py, which
has the same architecture and parameter names). With dropout 0 the two runs see the same
numbers and differ only by floating-point rounding.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

sys.path.insert(0, str(_common.REPO))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="the Tiny Shakespeare text file (or any UTF-8 text)")
    parser.add_argument("--preset", default="baby", choices=["tiny", "baby"])
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads (default 2)")
    parser.add_argument("--final-eval-iters", type=int, default=200)
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args(argv)

    import numpy
    import torch
    from bench_train import torch_gpt

    import microtorch
    from models.data import CharDataset, load_text
    from models.presets import preset_config
    from models.train import EVAL_SEED_OFFSET, get_lr
    from models.transformer import GPT, GPTConfig

    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    cfg = preset_config(args.preset, data=str(Path(args.data).resolve()))
    text, _ = load_text(cfg.data)
    microtorch.manual_seed(cfg.seed)  # as models.train.train: seed, data, then the model
    dataset = CharDataset(text, cfg.block_size, seed=cfg.seed)
    model_cfg = dict(vocab_size=dataset.tokenizer.vocab_size, block_size=cfg.block_size,
                     n_layer=cfg.n_layer, n_head=cfg.n_head, n_embd=cfg.n_embd,
                     dropout=cfg.dropout, bias=cfg.bias)  # fmt: skip
    init = GPT(GPTConfig(**model_cfg)).state_dict()
    model = torch_gpt(model_cfg)
    model.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy()) for k, v in init.items()})
    params = [p for p in model.parameters()]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": cfg.weight_decay},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]  # fmt: skip
    optimizer = torch.optim.AdamW(groups, lr=cfg.learning_rate, betas=(cfg.beta1, cfg.beta2))

    def batch(split: str, rng: numpy.random.Generator) -> tuple:
        data = dataset.train if split == "train" else dataset.val
        starts = rng.integers(0, len(data) - cfg.block_size, size=cfg.batch_size)
        rows = starts[:, None] + numpy.arange(cfg.block_size)
        return torch.from_numpy(data[rows]), torch.from_numpy(data[rows + 1])

    @torch.no_grad()
    def evaluate(iters: int, seed: int) -> dict:
        model.eval()
        out = {}
        for split in ("train", "val"):
            rng = numpy.random.Generator(numpy.random.PCG64(seed))
            out[split] = sum(model(*batch(split, rng))[1].item() for _ in range(iters)) / iters
        model.train()
        return out

    evals = []
    train_start = time.perf_counter()
    for it in range(cfg.max_iters + 1):
        if it % cfg.eval_interval == 0 or it == cfg.max_iters:
            losses = evaluate(cfg.eval_iters, cfg.seed + EVAL_SEED_OFFSET)
            evals.append({"iter": it, "train_loss": losses["train"], "val_loss": losses["val"]})
            print(
                f"eval at iter {it}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}"
            )
        if it == cfg.max_iters:
            break
        lr = get_lr(it, cfg)
        for group in optimizer.param_groups:
            group["lr"] = lr
        x, y = batch("train", dataset.rng)
        loss = model(x, y)[1]
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        optimizer.step()
    train_s = time.perf_counter() - train_start
    wall_s = time.perf_counter() - start
    precise = evaluate(args.final_eval_iters, 12345)["val"]  # as train_quality.py

    report = {
        "benchmark": "train_quality_torch",
        "framework": f"torch {torch.__version__}",
        "preset": args.preset,
        "iterations": cfg.max_iters,
        "val_loss": round(evals[-1]["val_loss"], 4),
        "train_loss": round(evals[-1]["train_loss"], 4),
        "val_loss_precise": round(precise, 4),
        "wall_s": round(wall_s, 1),
        "train_s": round(train_s, 1),
        "tokens_per_s": round(cfg.max_iters * cfg.tokens_per_step / train_s, 1),
        "threads": args.threads,
        "threads_env": {k: os.environ.get(k) for k in _common.THREAD_ENV_VARS},
        "evals": evals,
    }
    print(json.dumps({k: v for k, v in report.items() if k != "evals"}, indent=2))
    _common.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
