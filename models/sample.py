"""Write text with a trained char-GPT.

    python -m models.sample                      # from out/tiny, the default training run
    python -m models.sample --out out/baby --prompt "ROMEO:" --num-samples 2 --temperature 0.7

Loads DIR/best.pt (or --checkpoint latest), rebuilds the model from the configuration and
vocabulary stored in it, and prints --num-samples continuations of --prompt.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import microtorch as torch
from microtorch import backend

from .checkpoint import CheckpointError, find_checkpoint, load_checkpoint
from .data import CharTokenizer, DataError
from .train import default_prompt
from .transformer import GPT, GPTConfig


def load_model(out_dir: str | Path, which: str = "best", device: str = "cpu") -> tuple:
    """The model (in eval mode, on ``device``), its tokenizer and the checkpoint path."""
    path = find_checkpoint(out_dir, which)
    ckpt = load_checkpoint(path)
    model = GPT(GPTConfig(**ckpt["model_config"]))
    model.load_state_dict(ckpt["model"])
    model.to(device).eval()
    return model, CharTokenizer.from_dict(ckpt["tokenizer"]), path, ckpt


def add_checkpoint_args(parser: argparse.ArgumentParser) -> None:
    """--out and --checkpoint: which saved model ``load_model`` loads (shared by the CLIs)."""
    parser.add_argument("--out", default="out/tiny", help="the --out directory of a training run")
    parser.add_argument("--checkpoint", choices=["best", "latest"], default="best",
                        help="best: lowest validation loss; latest: the last one saved")  # fmt: skip


class HelpWithDefaults(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default after its help, except where the help already says what no
    value means (a default of None)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # --lr must not quietly mean --lr-decay-iters
        prog="python -m models.sample",
        description="Sample text from a char-GPT trained with `python -m models.train`.",
        formatter_class=HelpWithDefaults,
    )
    add_checkpoint_args(parser)
    parser.add_argument("--prompt", default=None,
                        help="text to continue (default: a newline); every character must be in "
                        "the training text's vocabulary")  # fmt: skip
    parser.add_argument("--num-samples", type=int, default=3, help="how many samples to print")
    parser.add_argument("--max-new-tokens", type=int, default=500, help="characters per sample")
    parser.add_argument("--temperature", type=float, default=0.8,
                        help="below 1: safer, more repetitive; above 1: wilder; 0: always the "
                        "most likely character")  # fmt: skip
    parser.add_argument("--top-k", type=int, default=None,
                        help="sample only among the k most likely characters (default: all)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1337, help="random seed for sampling")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="cpu or cuda")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.num_samples < 1 or args.max_new_tokens < 0:
            raise ValueError("--num-samples must be at least 1 and --max-new-tokens at least 0")
        backend.as_device(args.device)  # a clear error now if CUDA is asked for and missing
        model, tokenizer, path, ckpt = load_model(args.out, args.checkpoint, args.device)
        prompt = default_prompt(tokenizer) if args.prompt is None else args.prompt
        if not prompt:
            raise ValueError("--prompt must not be empty (leave it out to start from a newline)")
        ids = tokenizer.encode(prompt)
        if args.top_k is not None and args.top_k < 1:
            raise ValueError(f"--top-k must be at least 1, got {args.top_k}")
    except (CheckpointError, DataError, ValueError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(
        f"# {path} (iteration {ckpt['iter']}, best val loss {ckpt['best_val_loss']:.4f}); "
        f"temperature {args.temperature}, top_k {args.top_k}, seed {args.seed}",
        file=sys.stderr,
    )
    torch.manual_seed(args.seed)
    idx = torch.tensor([ids], dtype=torch.long, device=args.device)  # (1, T)
    for n in range(args.num_samples):
        out = model.generate(idx, args.max_new_tokens, args.temperature, args.top_k)
        if n:
            print("-" * 40)
        print(tokenizer.decode(out[0].tolist()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
