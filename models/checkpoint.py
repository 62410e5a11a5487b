"""Checkpoints of a char-GPT training run: what is in one, atomic saving, and clear errors.

A run directory holds
    latest.pt      written at every evaluation (and when training is interrupted)
    best.pt        a copy of latest.pt from the evaluation with the lowest validation loss
    metrics.jsonl  one JSON object per evaluation
    loss.png       the loss curves (when matplotlib is installed)

A checkpoint is a dict saved with ``microtorch.save``:
    format, version      "microtorch-char-gpt", 1 (so a foreign file is recognised)
    model, optimizer     the two state dicts
    model_config         GPTConfig fields;   train_config: TrainConfig fields
    tokenizer            the vocabulary (CharTokenizer.to_dict)
    iter                 the next training step to run; evaluated: whether its eval is done
    best_val_loss, elapsed_s, data_source
    rng_state            microtorch's generator (dropout);  batch_rng_state: the batch sampler
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import microtorch as torch

FORMAT = "microtorch-char-gpt"
VERSION = 1
LATEST, BEST = "latest.pt", "best.pt"


class CheckpointError(Exception):
    """A checkpoint is missing, unreadable or not one of ours; the message says what to do."""


def save_atomic(obj: Any, path: str | os.PathLike) -> None:
    """``microtorch.save`` to a path is atomic already: it writes a temporary file beside
    ``path`` and renames it into place, so a crash or Ctrl-C mid-write leaves the previous
    checkpoint intact instead of half a file."""
    torch.save(obj, path)


def copy_atomic(source: str | os.PathLike, path: str | os.PathLike) -> None:
    """Copy ``source`` to ``path`` the same way: into a temporary file, then rename."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    shutil.copyfile(source, tmp)
    os.replace(tmp, path)


def find_checkpoint(out_dir: str | os.PathLike, which: str = "best") -> Path:
    """The path of ``best.pt`` or ``latest.pt`` in ``out_dir`` (``best`` falls back to
    ``latest`` when no evaluation has finished yet), or a CheckpointError saying why not."""
    folder = Path(out_dir)
    if which not in ("best", "latest"):
        raise CheckpointError(f"--checkpoint must be 'best' or 'latest', got {which!r}")
    if not folder.exists():
        raise CheckpointError(
            f"no checkpoint directory {str(folder)!r}: train a model first with "
            f"`python -m models.train --out {folder}` or pass the --out of an earlier run"
        )
    if not folder.is_dir():
        raise CheckpointError(f"{str(folder)!r} is a file, not a training output directory")
    names = [BEST, LATEST] if which == "best" else [LATEST]
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise CheckpointError(
        f"{str(folder)!r} holds no {' or '.join(names)}: it is not the --out directory of a "
        f"`python -m models.train` run (or that run stopped before its first evaluation)"
    )


def load_checkpoint(path: str | os.PathLike, map_location: Any = "cpu") -> dict:
    """Read a checkpoint and check that it is a char-GPT training checkpoint."""
    try:
        ckpt = torch.load(path, map_location=map_location)
    except Exception as error:  # a truncated or foreign file: say which one, and why
        raise CheckpointError(
            f"cannot read checkpoint {str(path)!r} ({type(error).__name__}: {error})"
        ) from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise CheckpointError(
            f"{str(path)!r} is not a microtorch char-GPT checkpoint (written by "
            "`python -m models.train`): it has no format marker "
            f"{FORMAT!r}"
        )
    if ckpt.get("version") != VERSION:
        raise CheckpointError(
            f"{str(path)!r} is a version {ckpt.get('version')} checkpoint; this code reads "
            f"version {VERSION}"
        )
    return ckpt
