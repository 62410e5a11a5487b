"""Train a character-level GPT.

    python -m models.train                                   # tiny preset, built-in text
    python -m models.train --preset baby --data shakespeare  # nanoGPT's baby GPT on a CPU
    python -m models.train --preset shakespeare --data shakespeare --device cuda
    python -m models.train --out out/tiny --resume           # continue an interrupted run

Each step: draw a batch, forward, backward, clip the gradient norm, AdamW step with the
learning rate of this step (linear warmup, then cosine decay). Every ``eval_interval`` steps
the mean train and val losses over ``eval_iters`` batches go to DIR/metrics.jsonl and a
checkpoint (model, optimizer, configs, tokenizer, step, random states) to DIR/latest.pt, and
to DIR/best.pt when the val loss is the lowest so far. Ctrl-C or SIGTERM finishes the
current step, saves DIR/latest.pt and exits; ``--resume`` then continues exactly where it
stopped: the remaining losses are the ones an uninterrupted run gives.

The loop reads nothing back from the device except the loss at each log interval.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TextIO

import numpy

import microtorch as torch
from microtorch import backend, nn

from .checkpoint import BEST, LATEST, CheckpointError, copy_atomic, load_checkpoint, save_atomic
from .data import CharDataset, CharTokenizer, DataError, load_text
from .presets import DEFAULT_PRESET, MODEL_FIELDS, PRESETS, TrainConfig, preset_config
from .transformer import GPT, GPTConfig

EVAL_SEED_OFFSET = 7919  # eval batches come from their own generator: the same ones every time


@dataclass
class TrainResult:
    """What a call to ``train`` did (the CLI prints it; tests inspect it)."""

    out_dir: Path
    iters: int = 0  # the step count reached
    losses: dict[int, float] = field(default_factory=dict)  # step -> logged training loss
    evals: list[dict] = field(default_factory=list)  # the metrics.jsonl rows of this process
    best_val_loss: float = math.inf
    interrupted: bool = False
    stop_signal: int | None = None
    elapsed_s: float = 0.0  # this process's training time
    tokens_per_s: float = 0.0
    sample: str = ""


# ------------------------------------------------------------------------- schedule
def get_lr(it: int, cfg: TrainConfig) -> float:
    """Linear warmup to learning_rate, cosine decay to min_lr at lr_decay_iters, then flat."""
    if it < cfg.warmup_iters:
        return cfg.learning_rate * (it + 1) / (cfg.warmup_iters + 1)
    if it >= cfg.lr_decay_iters:
        return cfg.min_lr
    progress = (it - cfg.warmup_iters) / max(1, cfg.lr_decay_iters - cfg.warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * progress))  # 1 -> 0
    return cfg.min_lr + coeff * (cfg.learning_rate - cfg.min_lr)


@torch.no_grad()
def estimate_loss(model: GPT, dataset: CharDataset, cfg: TrainConfig) -> dict[str, float]:
    """Mean loss over ``eval_iters`` batches of each split, in eval mode (no dropout). The
    batches come from a generator seeded afresh each time, so every evaluation of a run
    scores the same text and the training batches are not disturbed."""
    was_training = model.training
    model.eval()
    out = {}
    for split in ("train", "val"):
        rng = numpy.random.Generator(numpy.random.PCG64(cfg.seed + EVAL_SEED_OFFSET))
        total = None
        for _ in range(cfg.eval_iters):
            x, y = dataset.get_batch(split, cfg.batch_size, cfg.device, rng=rng)
            _, loss = model(x, y)
            total = loss if total is None else total + loss
        out[split] = total.item() / cfg.eval_iters  # one host sync per split
    model.train(was_training)
    return out


# ------------------------------------------------------------------------- reporting
def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """A one-line progress bar redrawn in place on a terminal; plain log lines otherwise
    (a file, a pipe, CI). ``say`` prints a message above the bar."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream, self.total = stream, total
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.bar_shown = False

    def say(self, message: str) -> None:
        if self.bar_shown:
            self.stream.write("\r\033[K")  # clear the bar; it is redrawn on the next update
            self.bar_shown = False
        self.stream.write(message + "\n")
        self.stream.flush()

    def update(self, it: int, loss: float, lr: float, tokens_per_s: float, elapsed: float,
               eta: float) -> None:  # fmt: skip
        stats = (
            f"loss {loss:.4f} | {tokens_per_s:,.0f} tok/s | {_clock(elapsed)} elapsed | "
            f"ETA {_clock(eta)}"
        )
        if not self.tty:
            self.say(f"iter {it:>{len(str(self.total))}}/{self.total} | {stats} | lr {lr:.2e}")
            return
        width = 24
        done = int(width * it / max(1, self.total))
        bar = "#" * done + "-" * (width - done)
        self.stream.write(f"\r\033[K{it}/{self.total} [{bar}] {stats}")
        self.stream.flush()
        self.bar_shown = True

    def close(self) -> None:
        if self.bar_shown:
            self.stream.write("\n")
            self.stream.flush()
            self.bar_shown = False


def plot_losses(out_dir: Path) -> Path | None:
    """Draw DIR/loss.png from DIR/metrics.jsonl (None when matplotlib is not installed)."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # draw into a file; no window needed
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = read_metrics(out_dir / "metrics.jsonl")
    fig, ax = plt.subplots(figsize=(7, 4))
    steps = [r["iter"] for r in rows]
    ax.plot(steps, [r["train_loss"] for r in rows], label="train", marker=".")
    ax.plot(steps, [r["val_loss"] for r in rows], label="val", marker=".")
    ax.set_xlabel("iteration")
    ax.set_ylabel("cross-entropy loss (nats per character)")
    ax.set_title(f"char-GPT: {out_dir.name}")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = out_dir / "loss.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def read_metrics(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ------------------------------------------------------------------------- Ctrl-C / SIGTERM
class StopRequest:
    """Turns the first SIGINT (Ctrl-C) or SIGTERM into a flag the training loop checks after
    each step, so it can save a checkpoint and exit cleanly. A second Ctrl-C stops at once."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if self.signal is not None:
            raise KeyboardInterrupt
        self.signal = signum

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():  # signals need the main thread
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


# ------------------------------------------------------------------------- the run
def _checkpoint_state(model: GPT, optimizer: Any, cfg: TrainConfig, tokenizer: CharTokenizer,
                      dataset: CharDataset, it: int, evaluated: bool, best_val_loss: float,
                      elapsed_s: float, data_source: str) -> dict:  # fmt: skip
    from .checkpoint import FORMAT, VERSION

    return {
        "format": FORMAT,
        "version": VERSION,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "model_config": asdict(model.config),
        "train_config": asdict(cfg),
        "tokenizer": tokenizer.to_dict(),
        "iter": it,
        "evaluated": evaluated,
        "best_val_loss": best_val_loss,
        "elapsed_s": elapsed_s,
        "data_source": data_source,
        "rng_state": torch.get_rng_state(),
        "batch_rng_state": dataset.get_rng_state(),
    }


def resume_config(out_dir: Path, overrides: dict[str, Any]) -> tuple[TrainConfig, dict]:
    """The saved run's settings with the command line's explicit ``overrides`` on top (the
    model's shape cannot change), and the checkpoint itself."""
    ckpt = load_checkpoint(_latest(out_dir))
    cfg = TrainConfig(**ckpt["train_config"])
    changed = [k for k in MODEL_FIELDS if k in overrides and overrides[k] != getattr(cfg, k)]
    if changed:
        flags = ", ".join("--" + k.replace("_", "-") for k in changed)
        raise CheckpointError(
            f"cannot change {flags} when resuming: the checkpoint's model has "
            + ", ".join(f"{k}={getattr(cfg, k)}" for k in changed)
        )
    return replace(cfg, **overrides), ckpt


def _latest(out_dir: Path) -> Path:
    path = out_dir / LATEST
    if not path.is_file():
        raise CheckpointError(
            f"--resume: {str(path)!r} does not exist; there is nothing to resume in {str(out_dir)!r} "
            "(leave out --resume to start a new run there)"
        )
    return path


def train(cfg: TrainConfig, out_dir: str | Path, resume: dict | None = None,
          stream: TextIO | None = None) -> TrainResult:  # fmt: skip
    """Run (or, given a loaded checkpoint ``resume``, continue) training into ``out_dir``."""
    stream = stream or sys.stdout
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = TrainResult(out_dir=out_dir)
    device = torch.device(cfg.device)
    torch.manual_seed(cfg.seed)
    torch.set_float32_matmul_precision("high" if cfg.tf32 else "highest")

    # --- data: the tokenizer comes from the checkpoint when resuming
    text, data_source = load_text(cfg.data)
    tokenizer = CharTokenizer.from_dict(resume["tokenizer"]) if resume else None
    dataset = CharDataset(
        text, cfg.block_size, seed=cfg.seed, tokenizer=tokenizer, name=data_source
    )
    tokenizer = dataset.tokenizer

    # --- model and optimizer
    model_config = GPTConfig(
        vocab_size=tokenizer.vocab_size, block_size=cfg.block_size, n_layer=cfg.n_layer,
        n_head=cfg.n_head, n_embd=cfg.n_embd, dropout=cfg.dropout, bias=cfg.bias,
    )  # fmt: skip
    model = GPT(model_config).to(device)
    optimizer = model.configure_optimizers(
        cfg.weight_decay, cfg.learning_rate, (cfg.beta1, cfg.beta2), device.type
    )

    it, evaluated, best_val_loss, elapsed_before = 0, False, math.inf, 0.0
    metrics_path = out_dir / "metrics.jsonl"
    if resume:
        model.load_state_dict(resume["model"])
        optimizer.load_state_dict(resume["optimizer"])
        torch.set_rng_state(resume["rng_state"])
        dataset.set_rng_state(resume["batch_rng_state"])
        it, evaluated = resume["iter"], resume["evaluated"]
        best_val_loss, elapsed_before = resume["best_val_loss"], resume["elapsed_s"]
        # keep the metrics up to the checkpoint (a later crash may have left more lines)
        kept = [
            r
            for r in read_metrics(metrics_path)
            if r["iter"] < it or (evaluated and r["iter"] == it)
        ]
        metrics_path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    else:
        metrics_path.write_text("")
    result.best_val_loss = best_val_loss

    progress = Progress(stream, cfg.max_iters)
    say = progress.say
    say(
        f"data: {data_source}: {len(text):,} characters, {tokenizer.vocab_size} distinct; "
        f"train {len(dataset.train):,} / val {len(dataset.val):,}"
    )
    say(
        f"model: {model.num_params() / 1e6:.2f}M parameters ({cfg.n_layer} layers, {cfg.n_head} "
        f"heads, {cfg.n_embd} wide, context {cfg.block_size}) on {device}"
        + (f" ({torch.cuda.get_device_name()})" if device.type == "cuda" else "")
        + (", TF32 products" if cfg.tf32 and device.type == "cuda" else "")
    )
    say(
        f"{'resuming at' if resume else 'training for'} "
        f"{f'iteration {it} of ' if resume else ''}{cfg.max_iters} iterations of "
        f"{cfg.batch_size} x {cfg.block_size} characters; writing to {out_dir}"
    )

    def save(at: int, evaluated_now: bool, elapsed: float) -> None:
        state = _checkpoint_state(
            model, optimizer, cfg, tokenizer, dataset, at, evaluated_now, best_val_loss,
            elapsed_before + elapsed, data_source,
        )  # fmt: skip
        save_atomic(state, out_dir / LATEST)

    tokens_per_step = cfg.tokens_per_step
    start = time.perf_counter()
    start_it = it
    window_start, window_it = start, it
    loss = None
    with StopRequest() as stop:
        while True:
            # --- evaluate and checkpoint
            if (it % cfg.eval_interval == 0 or it == cfg.max_iters) and not evaluated:
                losses = estimate_loss(model, dataset, cfg)
                elapsed = time.perf_counter() - start
                row = {
                    "iter": it,
                    "train_loss": round(losses["train"], 6),
                    "val_loss": round(losses["val"], 6),
                    "lr": get_lr(it, cfg),  # the rate of the step that starts here
                    "elapsed_s": round(elapsed_before + elapsed, 3),
                    "tokens_per_s": round(
                        (it - start_it) * tokens_per_step / max(elapsed, 1e-9), 1
                    ),
                }
                with metrics_path.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                result.evals.append(row)
                improved = losses["val"] < best_val_loss
                best_val_loss = min(best_val_loss, losses["val"])
                result.best_val_loss = best_val_loss
                save(it, True, elapsed)
                if improved:
                    copy_atomic(out_dir / LATEST, out_dir / BEST)
                say(
                    f"eval at iter {it}: train loss {losses['train']:.4f}, val loss "
                    f"{losses['val']:.4f}" + (" (best so far)" if improved else "")
                )
            evaluated = False
            if it >= cfg.max_iters:
                break
            if stop.signal is not None:
                name = signal.Signals(stop.signal).name
                save(it, False, time.perf_counter() - start)
                say(f"{name}: stopped at iteration {it}; saved {out_dir / LATEST} "
                    f"(continue with --out {out_dir} --resume)")  # fmt: skip
                result.interrupted, result.stop_signal = True, stop.signal
                break

            # --- one training step
            lr = get_lr(it, cfg)
            for group in optimizer.param_groups:
                group["lr"] = lr
            x, y = dataset.get_batch("train", cfg.batch_size, device)
            loss = model(x, y)[1]  # (keeping the logits would keep the whole graph alive)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if cfg.grad_clip > 0:
                nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            optimizer.step()
            it += 1

            # --- report (the only place the loop waits for the device)
            if it % cfg.log_interval == 0 or it == cfg.max_iters:
                loss_value = loss.item()
                result.losses[it] = loss_value
                now = time.perf_counter()
                window_tps = (it - window_it) * tokens_per_step / max(now - window_start, 1e-9)
                window_start, window_it = now, it
                elapsed = now - start
                eta = elapsed / (it - start_it) * (cfg.max_iters - it)
                progress.update(it, loss_value, lr, window_tps, elapsed_before + elapsed, eta)
        loss = None  # let the last graph go

    progress.close()
    result.iters = it
    result.elapsed_s = time.perf_counter() - start
    result.tokens_per_s = (it - start_it) * tokens_per_step / max(result.elapsed_s, 1e-9)
    if it > start_it:
        say(
            f"{it - start_it} iterations in {_clock(result.elapsed_s)} "
            f"({result.tokens_per_s:,.0f} tokens/s); best val loss {best_val_loss:.4f}; "
            f"checkpoints in {out_dir}"
        )
    if device.type == "cuda":  # CuPy's pool keeps what training needed at its peak
        say(f"GPU memory held by CuPy's pool: {torch.cuda.memory_reserved() / 2**30:.2f} GiB")
    if plot_losses(out_dir) is None:
        say("matplotlib is not installed: no loss.png (pip install -e '.[plot]' to get one)")
    else:
        say(f"loss curves: {out_dir / 'loss.png'}")
    if cfg.sample_length > 0 and not result.interrupted:
        result.sample = sample_text(model, tokenizer, cfg.sample_length, device)
        say(f"--- a sample ({cfg.sample_length} characters, temperature 0.8) ---")
        say(result.sample)
        say(f"--- more with: python -m models.sample --out {out_dir}")
    return result


def default_prompt(tokenizer: CharTokenizer) -> str:
    """A newline (a fresh paragraph) when the vocabulary has one, else its first character."""
    return "\n" if "\n" in tokenizer.stoi else tokenizer.chars[0]


def sample_text(model: GPT, tokenizer: CharTokenizer, length: int, device: Any,
                prompt: str | None = None, temperature: float = 0.8,
                top_k: int | None = None) -> str:  # fmt: skip
    prompt = default_prompt(tokenizer) if prompt is None else prompt
    idx = torch.tensor([tokenizer.encode(prompt)], dtype=torch.long, device=device)  # (1, T)
    out = model.generate(idx, length, temperature=temperature, top_k=top_k)
    return tokenizer.decode(out[0].tolist())


# ------------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # --lr must not quietly mean --lr-decay-iters
        prog="python -m models.train",
        description=(
            "Train a character-level GPT built from microtorch. With no arguments: the 'tiny' "
            "preset on the Python documentation that ships with Python (about two minutes on "
            "a laptop CPU). A preset sets every value below; any flag overrides it."
        ),
    )
    parser.add_argument(
        "--preset", choices=sorted(PRESETS), default=DEFAULT_PRESET,
        help="starting values: tiny (2-minute CPU demo), baby (nanoGPT's baby GPT, CPU), "
        "shakespeare (nanoGPT's shakespeare_char, GPU); default: tiny",
    )  # fmt: skip
    parser.add_argument(
        "--out", default=None,
        help="output directory for checkpoints, metrics.jsonl and loss.png "
        "(default: out/<preset>)",
    )  # fmt: skip
    parser.add_argument(
        "--resume", action="store_true",
        help="continue the run saved in --out (its settings, unless flags override them)",
    )  # fmt: skip
    groups: dict[str, Any] = {}
    for f in fields(TrainConfig):
        group = groups.get(f.metadata["group"])
        if group is None:
            group = groups[f.metadata["group"]] = parser.add_argument_group(f.metadata["group"])
        flag = "--" + f.name.replace("_", "-")
        preset_values = ", ".join(
            f"{name} {PRESETS[name].get(f.name, f.default)}" for name in PRESETS
        )
        help_text = f"{f.metadata['help']} [presets: {preset_values}]"
        if f.type in ("bool", bool):
            group.add_argument(flag, action=argparse.BooleanOptionalAction, default=None,
                               help=help_text)  # fmt: skip
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            extra = {"choices": ["cpu", "cuda"]} if f.name == "device" else {}
            group.add_argument(flag, type=kind, default=None, help=help_text,
                               metavar=f.name.upper(), **extra)  # fmt: skip
    return parser


def _explicit(args: argparse.Namespace) -> dict[str, Any]:
    """The TrainConfig fields given on the command line."""
    return {
        f.name: getattr(args, f.name)
        for f in fields(TrainConfig)
        if getattr(args, f.name) is not None
    }


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out_dir = Path(args.out or f"out/{args.preset}")
    overrides = _explicit(args)
    try:
        if args.resume:
            cfg, ckpt = resume_config(out_dir, overrides)
        else:
            cfg, ckpt = preset_config(args.preset, **overrides), None
            if (out_dir / LATEST).exists():
                print(f"note: {out_dir} holds an earlier run; starting over "
                      "(use --resume to continue it)")  # fmt: skip
        if cfg.device == "cuda":
            backend.as_device("cuda")  # a clear error now if CuPy or a GPU is missing
        if cfg.device == "cpu" and args.preset == "shakespeare":
            print("note: the shakespeare preset is sized for a GPU; on a CPU expect hours "
                  "(add --device cuda on a machine with an NVIDIA GPU)")  # fmt: skip
    except (DataError, CheckpointError, ValueError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        result = train(cfg, out_dir, resume=ckpt)
    except (DataError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if result.interrupted:
        return 128 + int(result.stop_signal or signal.SIGINT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
