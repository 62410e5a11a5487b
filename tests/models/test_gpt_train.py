"""Training: the schedule, the CLI, checkpoints, exact resume after Ctrl-C / SIGTERM, and no
leaks over many steps."""

from __future__ import annotations

import gc
import io
import json
import math
import os
import signal
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import numpy
import pytest

import microtorch as torch
from microtorch.autograd.function import Function
from models import train as train_mod
from models.checkpoint import BEST, LATEST, load_checkpoint
from models.data import CharDataset
from models.presets import PRESETS, TrainConfig, preset_config
from models.transformer import GPT, GPTConfig

TEXT = (
    "The quick brown fox jumps over the lazy dog. A stitch in time saves nine.\n"
    "All that glitters is not gold; fortune favours the bold.\n"
) * 20  # 2,600 characters


@pytest.fixture
def text_file(tmp_path: Path) -> Path:
    path = tmp_path / "text.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def small_flags(text_file: Path, out: Path, **extra: object) -> list[str]:
    values = dict(
        data=text_file, n_layer=1, n_head=2, n_embd=16, block_size=16, batch_size=4,
        max_iters=6, eval_interval=3, eval_iters=2, log_interval=2, warmup_iters=2,
        sample_length=20,
    )  # fmt: skip
    values.update(extra)
    flags = ["--out", str(out)]
    for key, value in values.items():
        flags += ["--" + key.replace("_", "-"), str(value)]
    return flags


def small_config(text_file: Path, **extra: object) -> TrainConfig:
    values = dict(
        data=str(text_file), n_layer=1, n_head=2, n_embd=16, block_size=16, batch_size=4,
        max_iters=12, eval_interval=4, eval_iters=2, log_interval=1, warmup_iters=2,
        dropout=0.1, sample_length=0,
    )  # fmt: skip
    values.update(extra)
    return preset_config("tiny", **values)


def test_lr_schedule_warms_up_then_decays_to_min():
    cfg = preset_config("baby")
    lrs = [train_mod.get_lr(it, cfg) for it in range(cfg.max_iters + 1)]
    assert lrs[0] < lrs[50] < lrs[99] <= cfg.learning_rate
    assert max(lrs) == pytest.approx(cfg.learning_rate, rel=1e-3)
    assert lrs[-1] == pytest.approx(cfg.min_lr)
    assert all(a >= b for a, b in zip(lrs[100:], lrs[101:]))  # monotone decay after warmup


def test_presets_match_the_issue():
    baby = preset_config("baby")
    assert (baby.n_layer, baby.n_head, baby.n_embd, baby.block_size, baby.batch_size) == (
        4,
        4,
        128,
        64,
        12,
    )
    assert (baby.max_iters, baby.learning_rate, baby.min_lr, baby.warmup_iters) == (
        2000,
        1e-3,
        1e-4,
        100,
    )
    assert (baby.beta1, baby.beta2, baby.weight_decay, baby.grad_clip, baby.dropout) == (
        0.9,
        0.99,
        0.1,
        1.0,
        0.0,
    )
    big = preset_config("shakespeare")
    assert (big.n_layer, big.n_head, big.n_embd, big.block_size, big.batch_size) == (
        6,
        6,
        384,
        256,
        64,
    )
    assert (big.dropout, big.max_iters) == (0.2, 5000)
    assert set(PRESETS) == {"tiny", "baby", "shakespeare"}


def test_help_documents_every_flag(capsys):
    with pytest.raises(SystemExit):
        train_mod.main(["--help"])
    text = capsys.readouterr().out
    for f in TrainConfig.__dataclass_fields__:
        assert "--" + f.replace("_", "-") in text
    for flag in (
        "--preset",
        "--out",
        "--resume",
        "--device",
        "--seed",
        "--eval-interval",
        "--eval-iters",
    ):
        assert flag in text


def test_cli_trains_checkpoints_and_samples(text_file, tmp_path, capsys):
    out = tmp_path / "run"
    assert train_mod.main(small_flags(text_file, out)) == 0
    printed = capsys.readouterr().out
    assert "eval at iter 6" in printed and "a sample" in printed
    assert "iter 2/6 | loss" in printed  # plain log lines when not on a terminal
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["iter"] for r in rows] == [0, 3, 6]
    assert set(rows[0]) == {"iter", "train_loss", "val_loss", "lr", "elapsed_s", "tokens_per_s"}
    assert rows[0]["val_loss"] == pytest.approx(math.log(len(set(TEXT))), abs=0.3)
    assert (out / LATEST).is_file() and (out / BEST).is_file()
    assert not list(out.glob("*.tmp"))  # atomic saves leave no temporary files


def test_cli_errors_are_clear(text_file, tmp_path, capsys):
    assert train_mod.main(["--data", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "o")]) == 2
    assert "does not exist" in capsys.readouterr().err
    short = tmp_path / "short.txt"
    short.write_text("abc" * 10)
    assert train_mod.main(small_flags(short, tmp_path / "o")) == 2
    assert "too short" in capsys.readouterr().err
    assert train_mod.main(["--resume", "--out", str(tmp_path / "empty")]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    assert train_mod.main(small_flags(text_file, tmp_path / "bad", n_head=3)) == 2
    assert "multiple of --n-head" in capsys.readouterr().err
    assert train_mod.main(small_flags(text_file, tmp_path / "bad", learning_rate=-1.0)) == 2
    assert "--learning-rate must not be negative" in capsys.readouterr().err
    assert train_mod.main(small_flags(text_file, tmp_path / "bad", dropout=1.0)) == 2
    assert "--dropout must be in [0, 1)" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # no prefix matching: --lr is not --lr-decay-iters
        train_mod.main(["--lr", "-1", "--out", str(tmp_path / "o")])
    assert "unrecognized arguments: --lr" in capsys.readouterr().err


def test_resume_cannot_change_the_model(text_file, tmp_path, capsys):
    out = tmp_path / "run"
    assert train_mod.main(small_flags(text_file, out, max_iters=3, sample_length=0)) == 0
    assert train_mod.main(["--out", str(out), "--resume", "--n-layer", "2"]) == 2
    assert "cannot change --n-layer" in capsys.readouterr().err


def test_checkpoint_round_trip(text_file, tmp_path):
    cfg = small_config(text_file, max_iters=4, dropout=0.0)
    train_mod.train(cfg, tmp_path, stream=open(os.devnull, "w"))
    ckpt = load_checkpoint(tmp_path / LATEST)
    assert ckpt["iter"] == 4 and ckpt["evaluated"] and ckpt["train_config"]["max_iters"] == 4
    assert ckpt["tokenizer"]["chars"] == "".join(sorted(set(TEXT)))
    model = GPT(GPTConfig(**ckpt["model_config"]))
    model.load_state_dict(ckpt["model"])
    for name, value in ckpt["model"].items():
        numpy.testing.assert_array_equal(
            numpy.asarray(model.state_dict()[name]), numpy.asarray(value)
        )
    optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.99))
    optimizer.load_state_dict(ckpt["optimizer"])  # the optimizer state fits the model
    ds = CharDataset(TEXT, 16)
    x, y = ds.get_batch("val", 2)
    assert math.isfinite(model(x, y)[1].item())


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_resume_after_signal_equals_uninterrupted(text_file, tmp_path, monkeypatch, sig):
    devnull = open(os.devnull, "w")
    cfg = small_config(text_file)  # dropout 0.1: the global RNG state must be restored too
    full = train_mod.train(cfg, tmp_path / "full", stream=devnull)
    assert sorted(full.losses) == list(range(1, 13))

    # Interrupt the second run with a real signal while it draws the batch of step 5.
    calls = {"n": 0}
    original = CharDataset.get_batch

    def get_batch(self, split, *args, **kwargs):
        if split == "train" and kwargs.get("rng") is None:
            calls["n"] += 1
            if calls["n"] == 6:
                os.kill(os.getpid(), sig)
        return original(self, split, *args, **kwargs)

    monkeypatch.setattr(CharDataset, "get_batch", get_batch)
    part = train_mod.train(cfg, tmp_path / "part", stream=devnull)
    monkeypatch.setattr(CharDataset, "get_batch", original)
    assert part.interrupted and part.stop_signal == sig and part.iters == 6  # step 6 finished
    assert load_checkpoint(tmp_path / "part" / LATEST)["iter"] == 6

    resumed_cfg, ckpt = train_mod.resume_config(tmp_path / "part", {})
    rest = train_mod.train(resumed_cfg, tmp_path / "part", resume=ckpt, stream=devnull)
    assert rest.iters == 12
    assert {**part.losses, **rest.losses} == full.losses  # bit for bit
    metrics = lambda d: [  # noqa: E731
        (r["iter"], r["train_loss"], r["val_loss"])
        for r in train_mod.read_metrics(d / "metrics.jsonl")
    ]
    assert metrics(tmp_path / "part") == metrics(tmp_path / "full")


def test_progress_bar_on_a_terminal():
    class Terminal:
        def __init__(self):
            self.parts = []

        def isatty(self):
            return True

        def write(self, s):
            self.parts.append(s)

        def flush(self):
            pass

    term = Terminal()
    progress = train_mod.Progress(term, 100)
    progress.update(50, 1.2345, 1e-3, 12345.0, 61.0, 61.0)
    progress.say("eval")
    progress.update(60, 1.1, 1e-3, 12000.0, 70.0, 50.0)
    progress.close()
    text = "".join(term.parts)
    assert "\r" in text and "50/100 [############------------]" in text
    assert "loss 1.2345" in text and "12,345 tok/s" in text and "1:01 elapsed" in text
    assert "ETA 0:50" in text and text.endswith("\n")


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _live_nodes() -> int:
    gc.collect()
    with warnings.catch_warnings():  # isinstance() on some of torch's objects warns
        warnings.simplefilter("ignore", FutureWarning)
        return sum(1 for o in gc.get_objects() if isinstance(o, Function))


def test_training_steps_do_not_leak(device):
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=20, block_size=16, n_layer=2, n_head=2, n_embd=32)).to(device)
    optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.99), device)
    data = CharDataset("".join(chr(97 + i % 20) for i in range(3000)), 16, seed=0)
    nodes, rss = {}, {}
    for step in range(1, 201):
        x, y = data.get_batch("train", 4, device)
        logits, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step in (20, 200):
            with_loss = _live_nodes()  # the last step's graph nodes (their arrays are freed)
            del logits, loss
            nodes[step], rss[step] = (with_loss, _live_nodes()), _rss_bytes()
    assert nodes[200] == nodes[20]  # the same count every step: nothing accumulates
    assert nodes[200][1] == 0  # and without the loss, no graph node is left at all
    assert rss[200] - rss[20] < 8 * 2**20, f"RSS grew by {(rss[200] - rss[20]) / 2**20:.1f} MiB"


def _write_metrics(folder: Path) -> None:
    rows = [{"iter": i, "train_loss": 3.0 - i / 10, "val_loss": 3.1 - i / 10, "lr": 1e-3,
             "elapsed_s": i, "tokens_per_s": 1.0} for i in range(4)]  # fmt: skip
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_loss_curve_png(tmp_path):
    pytest.importorskip("matplotlib")
    _write_metrics(tmp_path)
    path = train_mod.plot_losses(tmp_path)
    assert path == tmp_path / "loss.png" and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_loss_curve_skipped_without_matplotlib(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    _write_metrics(tmp_path)
    assert train_mod.plot_losses(tmp_path) is None
    text_file = tmp_path / "t.txt"
    text_file.write_text(TEXT)
    train_mod.train(small_config(text_file, max_iters=1), tmp_path / "run")
    assert "matplotlib is not installed: no loss.png" in capsys.readouterr().out
    assert not (tmp_path / "run" / "loss.png").exists()


def test_train_resume_and_sample_on_device(text_file, tmp_path, device):
    """The whole loop on each device: train, stop, resume, sample (CUDA skips without a GPU)."""
    devnull = open(os.devnull, "w")
    cfg = small_config(text_file, device=device, max_iters=6, eval_interval=3)
    log = io.StringIO()
    full = train_mod.train(cfg, tmp_path / "full", stream=log)
    if device == "cuda":  # the GPU's name, and the memory CuPy's pool kept
        assert f"on cuda:0 ({torch.cuda.get_device_name()})" in log.getvalue()
    assert ("GPU memory held by CuPy's pool:" in log.getvalue()) == (device == "cuda")
    half = train_mod.train(replace(cfg, max_iters=3), tmp_path / "half", stream=devnull)
    resumed_cfg, ckpt = train_mod.resume_config(tmp_path / "half", {"max_iters": 6})
    rest = train_mod.train(resumed_cfg, tmp_path / "half", resume=ckpt, stream=devnull)
    assert {**half.losses, **rest.losses} == full.losses
    model = GPT(GPTConfig(**ckpt["model_config"])).to(device)
    text = train_mod.sample_text(model, CharDataset(TEXT, 16).tokenizer, 12, device)
    assert len(text) == 13  # the newline prompt and 12 new characters


def test_tf32_flag_sets_the_matmul_precision_for_the_run(text_file, tmp_path, device, capsys):
    """--tf32 is set_float32_matmul_precision("high") for the run (a GPU's Linear products
    in TF32; tests/test_backends.py checks what that does); without it, float32 products."""
    try:
        flags = small_flags(text_file, tmp_path / "run", max_iters=2, device=device)
        assert train_mod.main([*flags, "--tf32"]) == 0
        assert torch.get_float32_matmul_precision() == "high"
        assert ("TF32 products" in capsys.readouterr().out) == (device == "cuda")
        assert train_mod.main([*small_flags(text_file, tmp_path / "run2", max_iters=2)]) == 0
        assert torch.get_float32_matmul_precision() == "highest"
    finally:
        torch.set_float32_matmul_precision("highest")
