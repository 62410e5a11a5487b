"""Text in, batches of token ids out.

    text  --CharTokenizer-->  ids (one int per character)  --split 90/10-->  train, val
    train --CharDataset.get_batch-->  x (B, T), y (B, T)   with y[b, t] = x[b, t + 1]

Where the text comes from (``load_text``):
    None / "python-docs"  the standard library's own documentation (``pydoc_data.topics``,
                          about 465,000 characters of English): every Python has it, so the
                          first command works offline with no file and no download;
    "shakespeare"         Tiny Shakespeare, downloaded once into a cache directory
                          ($MICROTORCH_CACHE, or ~/.cache/microtorch);
    any other string      the path of a UTF-8 text file.

Batches are drawn by a seeded NumPy generator whose state goes into every checkpoint, so a
resumed run sees exactly the batches an uninterrupted run would have seen.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy

import microtorch as torch

BUILTIN_SOURCE = "python-docs"
SHAKESPEARE_URL = (
    "https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt"
)
SHAKESPEARE_FILE = "tinyshakespeare.txt"
VAL_FRACTION = 0.1  # the last 10% of the text is the validation split
DOWNLOAD_TIMEOUT_S = 30


class DataError(Exception):
    """The training text cannot be used (missing, empty, too short, not UTF-8, offline...).
    The message says what is wrong and what to do instead."""


# ------------------------------------------------------------------------- tokenizer
class CharTokenizer:
    """One token per character. The vocabulary is the sorted set of characters in the
    training text; a checkpoint stores it (``to_dict``) so sampling decodes the same way."""

    def __init__(self, chars: Iterable[str]) -> None:
        self.chars = sorted(set(chars))
        if not self.chars:
            raise DataError("CharTokenizer: the vocabulary is empty (the text has no characters)")
        if any(len(c) != 1 for c in self.chars):
            raise DataError("CharTokenizer: every vocabulary entry must be a single character")
        self.stoi = {c: i for i, c in enumerate(self.chars)}

    @classmethod
    def from_text(cls, text: str) -> CharTokenizer:
        return cls(set(text))

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        """Characters -> ids. A character the training text never had is an error naming it."""
        try:
            return [self.stoi[c] for c in text]
        except KeyError as error:
            char = error.args[0]
            position = text.index(char)
            raise DataError(
                f"CharTokenizer.encode: character {char!r} (U+{ord(char):04X}) at position "
                f"{position} is not in the vocabulary: the model only knows the "
                f"{self.vocab_size} characters of its training text ({self._preview()}); "
                "remove or replace it"
            ) from None

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> characters."""
        n = self.vocab_size
        out = []
        for i in ids:
            i = int(i)
            if not 0 <= i < n:
                raise DataError(f"CharTokenizer.decode: id {i} is out of range 0..{n - 1}")
            out.append(self.chars[i])
        return "".join(out)

    def to_dict(self) -> dict:
        return {"kind": "char", "chars": "".join(self.chars)}

    @classmethod
    def from_dict(cls, state: dict) -> CharTokenizer:
        if not isinstance(state, dict) or state.get("kind") != "char":
            raise DataError(f"CharTokenizer.from_dict: not a character tokenizer: {state!r:.80}")
        return cls(state["chars"])

    def _preview(self, limit: int = 40) -> str:
        shown = "".join(self.chars[:limit])
        return repr(shown) + (" ..." if self.vocab_size > limit else "")

    def __repr__(self) -> str:
        return f"CharTokenizer(vocab_size={self.vocab_size}, chars={self._preview()})"


# ------------------------------------------------------------------------- sources
def cache_dir() -> Path:
    """Where downloads are kept: $MICROTORCH_CACHE, else ~/.cache/microtorch."""
    override = os.environ.get("MICROTORCH_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "microtorch"


def builtin_text() -> str:
    """The Python documentation topics that ship with every Python (``pydoc_data``)."""
    try:
        from pydoc_data.topics import topics
    except ImportError:  # some stripped-down Pythons leave it out
        raise DataError(
            "the built-in corpus (the standard library's pydoc_data.topics) is missing from this "
            "Python installation; pass a text file with --data PATH instead"
        ) from None
    return "\n\n".join(topics[name] for name in sorted(topics))


def read_text_file(path: str | os.PathLike) -> str:
    """The contents of a UTF-8 text file, or a DataError saying why it cannot be used."""
    p = Path(path).expanduser()
    if not p.exists():
        raise DataError(
            f"data file {str(p)!r} does not exist; pass the path of a UTF-8 text file with "
            f"--data PATH, or --data shakespeare, or leave --data out for the built-in corpus"
        )
    if p.is_dir():
        raise DataError(f"data path {str(p)!r} is a directory; pass a UTF-8 text file")
    raw = p.read_bytes()
    if not raw:
        raise DataError(f"data file {str(p)!r} is empty; it needs some text to learn from")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DataError(
            f"data file {str(p)!r} is not UTF-8 text: byte 0x{raw[error.start]:02x} at offset "
            f"{error.start} cannot be decoded ({error.reason}); convert it first, e.g. with "
            f"`iconv -f latin1 -t utf-8 {p.name} > {p.stem}.utf8.txt`"
        ) from None
    return text.removeprefix("\ufeff")  # a byte-order mark is not part of the text


def download_cached(url: str, filename: str, directory: str | os.PathLike | None = None) -> Path:
    """Return ``directory/filename``, downloading it from ``url`` the first time.

    The download goes to a temporary file that is renamed into place only when complete,
    so an interrupted download never leaves a truncated file in the cache."""
    folder = Path(directory) if directory is not None else cache_dir()
    target = folder / filename
    if target.exists() and target.stat().st_size > 0:
        return target
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=filename + ".", suffix=".part")
    try:
        with (
            os.fdopen(fd, "wb") as out,
            urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as r,
        ):
            shutil.copyfileobj(r, out)
        os.replace(tmp_name, target)
    except (urllib.error.URLError, OSError, ValueError) as error:
        Path(tmp_name).unlink(missing_ok=True)
        reason = getattr(error, "reason", error)
        raise DataError(
            f"could not download {url} ({reason}). If this machine is offline, fetch the file "
            f"elsewhere and pass it with --data PATH, or put it at {target}; or leave --data "
            "out to train on the built-in corpus"
        ) from None
    return target


def load_text(source: str | None = None) -> tuple[str, str]:
    """The training text and a short description of where it came from."""
    if source in (None, "", BUILTIN_SOURCE):
        return builtin_text(), "the Python documentation (pydoc_data.topics, built in)"
    if source == "shakespeare":
        path = download_cached(SHAKESPEARE_URL, SHAKESPEARE_FILE)
        return read_text_file(path), f"Tiny Shakespeare ({path})"
    return read_text_file(source), str(Path(source).expanduser())


# ------------------------------------------------------------------------- batches
class CharDataset:
    """Encoded text split into train (first 90%) and val (last 10%), with random batches.

    ``get_batch`` draws its start positions from ``self.rng`` (a NumPy PCG64 generator
    seeded with ``seed``); ``get_rng_state`` / ``set_rng_state`` save and restore it."""

    def __init__(self, text: str, block_size: int, seed: int = 0,
                 tokenizer: CharTokenizer | None = None, name: str = "the text") -> None:  # fmt: skip
        self.tokenizer = tokenizer or CharTokenizer.from_text(text)
        self.block_size = int(block_size)
        if self.block_size < 1:
            raise DataError(f"block_size must be at least 1, got {block_size}")
        ids = numpy.asarray(self.tokenizer.encode(text), dtype=numpy.int64)
        n_val = int(len(ids) * VAL_FRACTION)
        self.train, self.val = ids[: len(ids) - n_val], ids[len(ids) - n_val :]
        # each split needs one window of block_size + 1 characters (inputs plus the next char)
        needed = self.block_size + 1
        if len(self.val) < needed:
            minimum = int(numpy.ceil(needed / VAL_FRACTION))
            raise DataError(
                f"{name} is too short: {len(ids)} characters, but with block_size "
                f"{self.block_size} the 10% validation split needs at least {needed} characters, "
                f"so the text needs at least {minimum}; use a longer text or a smaller "
                "--block-size"
            )
        self.rng = numpy.random.Generator(numpy.random.PCG64(seed))
        self._offsets = numpy.arange(self.block_size)

    def get_batch(self, split: str, batch_size: int, device: Any = "cpu",
                  rng: numpy.random.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
        """``batch_size`` random windows of the split: inputs x (B, T) and targets y (B, T),
        int64, where y is x shifted left by one character."""
        data = self._split(split)
        rng = self.rng if rng is None else rng
        starts = rng.integers(0, len(data) - self.block_size, size=batch_size)  # (B,)
        rows = starts[:, None] + self._offsets  # (B, T) positions in the text
        x = torch.from_numpy(data[rows])  # (B, T)
        y = torch.from_numpy(data[rows + 1])  # (B, T)
        return x.to(device), y.to(device)

    def _split(self, split: str) -> numpy.ndarray:
        if split == "train":
            return self.train
        if split == "val":
            return self.val
        raise ValueError(f"get_batch: split must be 'train' or 'val', got {split!r}")

    def get_rng_state(self) -> dict:
        return self.rng.bit_generator.state

    def set_rng_state(self, state: dict) -> None:
        self.rng.bit_generator.state = state
