"""Trace one forward pass of the GPT and print every op with its shapes.

    python -m models.trace                         # the default (tiny) model
    python -m models.trace --preset baby --context 20

Sizes are written by name, so the table reads like the comments in models/transformer.py:

    B  batch            T   context (time)      C   n_embd (channels)
    nh heads            hs  head size = C / nh  V   vocabulary

and the attention rows show (B, T, C) -> (B, T, nh, hs) -> (B, nh, T, hs): the split into
heads, attention per head with a causal mask and scale 1/sqrt(hs), and the way back. The
weights are freshly initialised: shapes do not depend on training.
"""

from __future__ import annotations

import argparse
import sys

import microtorch as torch

from .presets import DEFAULT_PRESET, PRESETS, preset_config
from .sample import HelpWithDefaults
from .transformer import GPT, GPTConfig


def size_names(config: GPTConfig, batch: int, context: int) -> tuple[dict[str, int], list[str]]:
    """{name: size} for the table, and notes on sizes that have two names (the first name
    in the order below is used, so the note matters: with block_size = C = 64 the position
    embedding's (block_size, C) weight reads (C, C))."""
    c, nh = config.n_embd, config.n_head
    wanted = {"B": batch, "T": context, "C": c, "nh": nh, "hs": c // nh, "V": config.vocab_size,
              "3C": 3 * c, "4C": 4 * c, "block_size": config.block_size}  # fmt: skip
    names: dict[str, int] = {}
    by_size: dict[int, str] = {}
    notes = []
    for name, size in wanted.items():
        if size in by_size:
            notes.append(f"{name} = {by_size[size]} = {size} is written {by_size[size]}")
            continue
        by_size[size] = name
        names[name] = size
    return names, notes


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # --lr must not quietly mean --lr-decay-iters
        prog="python -m models.trace",
        description="Print every op of one GPT forward pass with its input and output shapes.",
        formatter_class=HelpWithDefaults,
    )
    parser.add_argument("--preset", choices=sorted(PRESETS), default=DEFAULT_PRESET,
                        help="model size (see models/presets.py)")  # fmt: skip
    parser.add_argument("--batch-size", type=int, default=2, help="B: sequences in the batch")
    parser.add_argument("--context", type=int, default=12,
                        help="T: characters per sequence (at most the preset's block_size)")  # fmt: skip
    parser.add_argument("--vocab-size", type=int, default=65,
                        help="V: distinct characters (65 for Tiny Shakespeare)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="random seed (weights and tokens)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    cfg = preset_config(args.preset)
    config = GPTConfig(vocab_size=args.vocab_size, block_size=cfg.block_size,
                       n_layer=cfg.n_layer, n_head=cfg.n_head, n_embd=cfg.n_embd,
                       dropout=0.0, bias=cfg.bias)  # fmt: skip
    if not 1 <= args.context <= config.block_size or args.batch_size < 1:
        print(
            f"error: --context must be in 1..{config.block_size} (the block_size of preset "
            f"{args.preset!r}) and --batch-size at least 1",
            file=sys.stderr,
        )
        return 2
    torch.manual_seed(args.seed)
    model = GPT(config)
    idx = torch.randint(0, config.vocab_size, (args.batch_size, args.context))  # (B, T)
    targets = torch.randint(0, config.vocab_size, (args.batch_size, args.context))

    names, notes = size_names(config, args.batch_size, args.context)
    print(
        f"# preset {args.preset!r}: {config.n_layer} blocks, {config.n_head} heads, n_embd "
        f"{config.n_embd}, vocabulary {config.vocab_size}; one forward pass of a batch of "
        f"{args.batch_size} x {args.context} characters, with targets (so the loss is traced too)"
    )
    print("# sizes: " + ", ".join(f"{n}={s}" for n, s in names.items()))
    for note in notes:
        print(f"# {note}")
    print()
    with torch.trace(names=names) as t:
        model(idx, targets)

    attention = [r for r in t if r.op == "ScaledDotProductAttention"]
    if attention:
        first = attention[0]
        hs = config.n_embd // config.n_head
        print()
        print(
            f"# attention, in each of the {len(attention)} blocks: q, k, v of shape "
            f"{first.input_shapes[0]} = (B, nh, T, hs) each, mask {first.details['mask']}, scale "
            f"1/sqrt(hs) = 1/sqrt({hs}) = {first.details['scale']}; output {first.output}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
