"""``python -m models.sample``: samples from a trained run, and clear errors otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import microtorch as torch
from models import sample as sample_mod
from models import train as train_mod
from models.checkpoint import BEST, LATEST
from models.presets import preset_config

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("sample_run")
    text = tmp / "text.txt"
    text.write_text("hello there, general kenobi. " * 40, encoding="utf-8")
    cfg = preset_config(
        "tiny", data=str(text), n_layer=1, n_head=2, n_embd=16, block_size=16, batch_size=4,
        max_iters=4, eval_interval=2, eval_iters=1, sample_length=0,
    )  # fmt: skip
    with open(os.devnull, "w") as devnull:
        train_mod.train(cfg, tmp / "out", stream=devnull)
    return tmp / "out"


def test_samples_continue_the_prompt(run_dir, capsys):
    argv = [
        "--out",
        str(run_dir),
        "--prompt",
        "hello",
        "--num-samples",
        "2",
        "--max-new-tokens",
        "30",
    ]
    assert sample_mod.main(argv) == 0
    captured = capsys.readouterr()
    samples = captured.out.split("-" * 40 + "\n")
    assert len(samples) == 2
    assert all(s.startswith("hello") and len(s.rstrip("\n")) >= 35 for s in samples)
    assert set("".join(samples)) <= set("hello there, general kenobi. \n-")
    assert str(run_dir / BEST) in captured.err
    assert sample_mod.main(argv) == 0
    assert capsys.readouterr().out == captured.out  # the same seed gives the same text


def test_sampling_options(run_dir, capsys):
    argv = ["--out", str(run_dir), "--checkpoint", "latest", "--temperature", "0", "--top-k", "1",
            "--max-new-tokens", "10", "--num-samples", "1", "--seed", "3"]  # fmt: skip
    assert sample_mod.main(argv) == 0
    assert str(run_dir / LATEST) in capsys.readouterr().err


def test_unknown_prompt_character_is_named(run_dir, capsys):
    assert sample_mod.main(["--out", str(run_dir), "--prompt", "hello!"]) == 2
    assert "'!'" in capsys.readouterr().err


def test_missing_and_foreign_directories(tmp_path, capsys):
    assert sample_mod.main(["--out", str(tmp_path / "nothing")]) == 2
    assert "train a model first" in capsys.readouterr().err
    assert sample_mod.main(["--out", str(tmp_path)]) == 2  # exists, but no checkpoint in it
    assert "not the --out directory" in capsys.readouterr().err
    torch.save({"weights": torch.zeros(3)}, tmp_path / BEST)  # someone else's file
    assert sample_mod.main(["--out", str(tmp_path)]) == 2
    assert "not a microtorch char-GPT checkpoint" in capsys.readouterr().err
    (tmp_path / BEST).write_bytes(b"garbage")
    assert sample_mod.main(["--out", str(tmp_path)]) == 2
    assert "cannot read checkpoint" in capsys.readouterr().err


def test_command_line_entry_point(run_dir):
    """The real `python -m models.sample` command, as a user runs it."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-m", "models.sample", "--out", str(run_dir), "--num-samples", "1",
         "--max-new-tokens", "5"],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) >= 5


@pytest.mark.parametrize("module", ["models.sample", "models.attention", "models.trace"])
def test_help_gives_each_default_once(module):
    """Options whose help says what no value means are not followed by "(default: None)"."""
    import importlib

    text = importlib.import_module(module).build_parser().format_help()
    assert "(default: None)" not in text
    assert "(default: cpu)" in text or "(default: 0)" in text  # the other defaults still show
