"""Training settings: one dataclass holding every knob, and the named presets.

    tiny         the default: a small model that learns recognisable words from the built-in
                 corpus in about two minutes on a 2-core laptop CPU
    baby         nanoGPT's "baby GPT" for a CPU (4 layers, 4 heads, 128 wide, context 64);
                 on Tiny Shakespeare it reaches a validation loss of about 1.88 in 2000 steps
    shakespeare  nanoGPT's shakespeare_char configuration (6 layers, 6 heads, 384 wide,
                 context 256, dropout 0.2): the GPU run, about 10.7M parameters

Every field can also be set from the command line (``--n-layer 6``, ``--learning-rate 3e-4``...);
``python -m models.train --help`` lists them with the help text written here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def _knob(default: Any, help: str, group: str) -> Any:
    return field(default=default, metadata={"help": help, "group": group})


@dataclass
class TrainConfig:
    # --- the model (fixed once training has started)
    n_layer: int = _knob(4, "number of transformer blocks", "model")
    n_head: int = _knob(4, "attention heads per block (must divide --n-embd)", "model")
    n_embd: int = _knob(128, "width of the residual stream (channels per position)", "model")
    block_size: int = _knob(64, "context length: characters the model sees at once", "model")
    dropout: float = _knob(0.0, "dropout probability while training (0 = none)", "model")
    bias: bool = _knob(True, "biases in the Linear and LayerNorm layers", "model")
    # --- optimisation
    batch_size: int = _knob(12, "sequences per training step", "optimisation")
    max_iters: int = _knob(2000, "training steps in total", "optimisation")
    learning_rate: float = _knob(1e-3, "peak learning rate (after warmup)", "optimisation")
    min_lr: float = _knob(1e-4, "learning rate at the end of the cosine decay", "optimisation")
    warmup_iters: int = _knob(
        100, "steps of linear warmup from 0 to --learning-rate", "optimisation"
    )
    lr_decay_iters: int = _knob(
        0, "step where the cosine decay reaches --min-lr (0 = --max-iters)", "optimisation"
    )
    beta1: float = _knob(0.9, "AdamW beta1 (momentum of the gradient average)", "optimisation")
    beta2: float = _knob(
        0.99, "AdamW beta2 (momentum of the squared-gradient average)", "optimisation"
    )
    weight_decay: float = _knob(
        0.1, "AdamW weight decay, applied to weight matrices only", "optimisation"
    )
    grad_clip: float = _knob(
        1.0, "clip the global gradient norm to this (0 = no clipping)", "optimisation"
    )
    # --- evaluation and logging
    eval_interval: int = _knob(
        250, "evaluate, log metrics and save checkpoints every N steps", "evaluation"
    )
    eval_iters: int = _knob(20, "batches averaged for each train/val loss estimate", "evaluation")
    log_interval: int = _knob(10, "report the training loss every N steps", "evaluation")
    sample_length: int = _knob(
        300, "characters to sample at the end of training (0 = none)", "evaluation"
    )
    # --- the run
    data: str = _knob(
        "python-docs",
        "training text: a UTF-8 file path, 'shakespeare' (downloaded once and cached), or "
        "'python-docs' (the Python documentation built into every Python)",
        "run",
    )
    seed: int = _knob(1337, "random seed (model init, batches, dropout)", "run")
    device: str = _knob("cpu", "cpu or cuda", "run")
    tf32: bool = _knob(
        False,
        "on a GPU with TF32 tensor cores (compute capability 8.0+), let the Linear layers' "
        "float32 products round their inputs to TF32: several times faster, ~3 significant "
        "digits per input instead of ~7 (set_float32_matmul_precision('high'))",
        "run",
    )

    def __post_init__(self) -> None:
        for name in ("learning_rate", "min_lr", "weight_decay", "grad_clip", "lr_decay_iters"):
            if not getattr(self, name) >= 0:  # (also catches nan)
                raise ValueError(
                    f"--{name.replace('_', '-')} must not be negative, got {getattr(self, name)}"
                )
        for name in ("dropout", "beta1", "beta2"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(
                    f"--{name.replace('_', '-')} must be in [0, 1), got {getattr(self, name)}"
                )
        if self.lr_decay_iters == 0:
            self.lr_decay_iters = self.max_iters
        for name in ("batch_size", "eval_interval", "eval_iters", "log_interval"):
            if getattr(self, name) < 1:
                raise ValueError(
                    f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}"
                )
        if self.n_head < 1 or self.n_embd % self.n_head:
            raise ValueError(
                f"--n-embd ({self.n_embd}) must be a multiple of --n-head ({self.n_head}): "
                "every attention head gets n_embd / n_head channels"
            )
        if self.max_iters < 0 or self.warmup_iters < 0:
            raise ValueError("--max-iters and --warmup-iters must not be negative")

    @property
    def tokens_per_step(self) -> int:
        return self.batch_size * self.block_size


MODEL_FIELDS = ("n_layer", "n_head", "n_embd", "block_size", "bias")  # fixed by a checkpoint

# fmt: off
PRESETS: dict[str, dict[str, Any]] = {
    "tiny": dict(
        n_layer=2, n_head=4, n_embd=64, block_size=64, dropout=0.0,
        batch_size=16, max_iters=3000, learning_rate=2e-3, min_lr=2e-4, warmup_iters=50,
        eval_interval=500, eval_iters=10,
    ),
    "baby": dict(
        n_layer=4, n_head=4, n_embd=128, block_size=64, dropout=0.0,
        bias=False,  # as nanoGPT, whose published losses these presets reproduce
        batch_size=12, max_iters=2000, learning_rate=1e-3, min_lr=1e-4, warmup_iters=100,
        beta2=0.99, weight_decay=0.1, grad_clip=1.0, eval_interval=250, eval_iters=20,
    ),
    "shakespeare": dict(
        n_layer=6, n_head=6, n_embd=384, block_size=256, dropout=0.2,
        bias=False,  # as nanoGPT, whose published losses these presets reproduce
        batch_size=64, max_iters=5000, learning_rate=1e-3, min_lr=1e-4, warmup_iters=100,
        beta2=0.99, weight_decay=0.1, grad_clip=1.0, eval_interval=250, eval_iters=200,
    ),
}
# fmt: on
DEFAULT_PRESET = "tiny"


def preset_config(name: str = DEFAULT_PRESET, **overrides: Any) -> TrainConfig:
    """The preset's settings with ``overrides`` (field=value) on top."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    known = {f.name for f in fields(TrainConfig)}
    unknown = set(overrides) - known
    if unknown:
        raise ValueError(f"unknown training settings {sorted(unknown)}")
    return TrainConfig(**{**PRESETS[name], **overrides})
