"""Pictures of attention: what each head of a trained char-GPT looks at, on a prompt.

    python -m models.attention --out out/tiny                       # PNGs in out/tiny/attention/
    python -m models.attention --out out/tiny --prompt "ROMEO:" --text    # in the terminal

``--out`` is the directory of a ``python -m models.train`` run (as for ``models.sample``).
For every layer one PNG holds a heatmap per head: row t is where the character at
position t (the query) puts its attention, a softmax over positions 0..t (the keys). The
upper triangle is empty: the causal mask keeps every position from seeing the future.
Drawing needs matplotlib (``pip install -e ".[plot]"``); ``--text`` prints the same maps
with characters and needs nothing.

How the weights are found: the model calls the fused ``scaled_dot_product_attention``,
which returns only its output. A forward hook on each attention module sees the module's
input x (B, T, C) and recomputes, exactly as the op does,

    q, k = split(c_attn(x))          (B, nh, T, hs) each
    weights = softmax(q k^T / sqrt(hs), causal mask)      (B, nh, T, T)
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy

import microtorch as torch
import microtorch.nn.functional as F
from microtorch import backend

from .checkpoint import CheckpointError
from .data import DataError
from .sample import HelpWithDefaults, add_checkpoint_args, load_model
from .transformer import GPT

DEFAULT_PROMPT = "To be, or not to be, that is the question."
SHADES = " .:-=+*#%@"  # --text: weight 0 ... 1
PLOT_HINT = 'pip install -e ".[plot]" (or pip install matplotlib)'


def attention_weights(model: GPT, idx: torch.Tensor) -> list[numpy.ndarray]:
    """One array (B, nh, T, T) per layer: the attention weights of every head on ``idx``."""
    captured: list[numpy.ndarray] = []

    def hook(module: Any, args: tuple, output: Any) -> None:
        x = args[0]  # (B, T, C): the LayerNorm-ed input of the attention module
        B, T, C = x.shape
        nh = module.n_head
        hs = C // nh
        q, k, _ = module.c_attn(x).split(C, dim=2)  # (B, T, C) each
        q = q.view(B, T, nh, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, nh, hs).transpose(1, 2)  # (B, nh, T, hs)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))  # (B, nh, T, T)
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        weights = F.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        captured.append(backend.to_numpy(weights.array))

    handles = [block.attn.register_forward_hook(hook) for block in model.h]
    try:
        with torch.no_grad():
            model(idx)
    finally:
        for handle in handles:
            handle.remove()
    return captured


def char_label(c: str) -> str:
    """A visible label for a character on an axis."""
    return {" ": "␣", "\n": "↵", "\t": "⇥"}.get(c, c)


def draw(weights: list[numpy.ndarray], prompt: str, dest: Path) -> list[Path]:
    """One PNG per layer with a heatmap per head; returns the paths. Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")  # draw into files; no window needed
    import matplotlib.pyplot as plt

    dest.mkdir(parents=True, exist_ok=True)
    labels = [char_label(c) for c in prompt]
    paths = []
    for layer, w in enumerate(weights):
        maps = w[0]  # (nh, T, T): the first (only) sequence
        nh, T = maps.shape[0], maps.shape[1]
        cols = min(nh, 4)
        rows = math.ceil(nh / cols)
        size = max(3.0, 0.16 * T + 1.5)
        fig, axes = plt.subplots(
            rows,
            cols,
            figsize=(size * cols + 1, size * rows + 0.6),
            squeeze=False,
            layout="constrained",
        )
        for h in range(rows * cols):
            ax = axes[h // cols][h % cols]
            if h >= nh:
                ax.axis("off")
                continue
            image = ax.imshow(maps[h], cmap="viridis", vmin=0.0, vmax=1.0)
            ax.set_title(f"head {h}")
            ax.set_xticks(range(T), labels, fontsize=7)
            ax.set_yticks(range(T), labels, fontsize=7)
            ax.set_xlabel("key: attended to")
            ax.set_ylabel("query: attending")
        fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="attention weight")
        fig.suptitle(f"layer {layer}: attention of each head on {prompt!r}")
        path = dest / f"layer{layer}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def as_text(weights: list[numpy.ndarray], prompt: str) -> str:
    """Every head's map with characters: ' ' for 0 up to '@' for 1; '/' above the diagonal
    marks positions the causal mask hides."""
    lines = []
    labels = [char_label(c) for c in prompt]
    for layer, w in enumerate(weights):
        for h, m in enumerate(w[0]):
            lines.append(f"layer {layer} head {h}   (rows: query, columns: key; {SHADES!r} = 0..1)")
            lines.append("    " + "".join(labels))
            for t, row in enumerate(m):
                cells = [
                    "/" if s > t else SHADES[min(int(v * len(SHADES)), len(SHADES) - 1)]
                    for s, v in enumerate(row)
                ]
                lines.append(f"  {labels[t]} " + "".join(cells))
            lines.append("")
    return "\n".join(lines)


def summary(weights: list[numpy.ndarray]) -> list[str]:
    """Per head: how far back it looks on average, and how much weight stays on the
    position itself."""
    lines = []
    for layer, w in enumerate(weights):
        maps = w[0]  # (nh, T, T)
        T = maps.shape[-1]
        distance = numpy.arange(T)[:, None] - numpy.arange(T)[None, :]  # t - s
        for h, m in enumerate(maps):
            back = float((m * distance).sum(axis=-1).mean())
            self_weight = float(numpy.diagonal(m).mean())
            lines.append(
                f"layer {layer} head {h}: looks {back:.1f} characters back on average, "
                f"{self_weight:.0%} of its weight on the character itself"
            )
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # --lr must not quietly mean --lr-decay-iters
        prog="python -m models.attention",
        description="Draw the attention weights of every head of a trained char-GPT on a prompt.",
        formatter_class=HelpWithDefaults,
    )
    add_checkpoint_args(parser)
    parser.add_argument("--prompt", default=DEFAULT_PROMPT,
                        help="the text to look at (its last block_size characters are used)")  # fmt: skip
    parser.add_argument("--dest", default=None,
                        help="folder for the PNGs (default: OUT/attention)")  # fmt: skip
    parser.add_argument("--text", action="store_true",
                        help="print the maps with characters instead of drawing PNGs")  # fmt: skip
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="cpu or cuda")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.text:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(
                f"error: drawing the heatmaps needs matplotlib, which is not installed: "
                f"{PLOT_HINT}; or add --text to print them in the terminal",
                file=sys.stderr,
            )
            return 2
    try:
        backend.as_device(args.device)
        model, tokenizer, path, ckpt = load_model(args.out, args.checkpoint, args.device)
        if not args.prompt:
            raise ValueError("--prompt must not be empty")
        prompt = args.prompt[-model.config.block_size :]
        ids = tokenizer.encode(prompt)
    except (CheckpointError, DataError, ValueError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if len(prompt) < len(args.prompt):
        print(f"# the prompt is longer than block_size: using its last {len(prompt)} characters")
    idx = torch.tensor([ids], dtype=torch.long, device=args.device)  # (1, T)
    weights = attention_weights(model, idx)
    print(f"# {path} (iteration {ckpt['iter']}): {len(weights)} layers x {model.config.n_head} "
          f"heads on {prompt!r}")  # fmt: skip
    for line in summary(weights):
        print(line)
    if args.text:
        print()
        print(as_text(weights, prompt))
        return 0
    dest = Path(args.dest) if args.dest else Path(args.out) / "attention"
    for png in draw(weights, prompt, dest):
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
