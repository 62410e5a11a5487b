"""python -m models.attention: per-head attention maps of a trained checkpoint."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

import microtorch as torch
from models import attention
from models import train as train_mod
from models.presets import preset_config
from models.transformer import GPT, GPTConfig

TEXT = "the cat sat on the mat. the dog sat on the log.\n" * 30


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A real (tiny, briefly trained) run directory with best.pt."""
    folder = tmp_path_factory.mktemp("attention_run")
    text = folder / "text.txt"
    text.write_text(TEXT)
    cfg = preset_config(
        "tiny", data=str(text), n_layer=2, n_head=2, n_embd=16, block_size=16, batch_size=4,
        max_iters=2, eval_interval=2, eval_iters=1, warmup_iters=1, sample_length=0,
    )  # fmt: skip
    with open(os.devnull, "w") as devnull:
        train_mod.train(cfg, folder / "run", stream=devnull)
    return folder / "run"


def test_weights_are_causal_rows_of_a_softmax():
    model = GPT(GPTConfig(vocab_size=9, block_size=8, n_layer=2, n_head=3, n_embd=12)).eval()
    idx = torch.randint(0, 9, (2, 6))
    weights = attention.attention_weights(model, idx)
    assert len(weights) == 2 and all(w.shape == (2, 3, 6, 6) for w in weights)
    for w in weights:
        np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-5)
        assert (np.triu(w, 1) == 0).all()  # no weight on the future
        assert (w[..., np.tril(np.ones((6, 6), bool))] > 0).all()  # the past all gets some
    assert not model.h[0].attn._forward_hooks  # the hooks are removed afterwards


def test_weights_reproduce_the_models_attention_output():
    """weights @ v, through the output projection, is exactly what the model computed."""
    model = GPT(GPTConfig(vocab_size=9, block_size=8, n_layer=1, n_head=2, n_embd=8)).eval()
    idx = torch.randint(0, 9, (1, 7))
    seen = {}
    attn = model.h[0].attn
    handle = attn.register_forward_hook(lambda m, args, out: seen.update(x=args[0], out=out))
    (weights,) = attention.attention_weights(model, idx)
    handle.remove()
    x = seen["x"]
    B, T, C = x.shape
    with torch.no_grad():
        v = attn.c_attn(x).split(C, dim=2)[2].view(B, T, 2, C // 2).transpose(1, 2)
        y = torch.tensor(weights) @ v  # (B, nh, T, hs)
        out = attn.c_proj(y.transpose(1, 2).reshape(B, T, C))
    np.testing.assert_allclose(out.numpy(), seen["out"].numpy(), rtol=1e-5, atol=1e-6)


def test_cli_draws_one_png_per_layer(run_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    dest = tmp_path / "pictures"
    code = attention.main(["--out", str(run_dir), "--prompt", "the cat sat", "--dest", str(dest)])
    assert code == 0
    out = capsys.readouterr().out
    assert "2 layers x 2 heads on 'the cat sat'" in out and "layer 1 head 1: looks" in out
    pngs = sorted(dest.glob("*.png"))
    assert [p.name for p in pngs] == ["layer0.png", "layer1.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_cli_text_maps_show_the_causal_triangle(run_dir, capsys):
    assert attention.main(["--out", str(run_dir), "--prompt", "the dog", "--text"]) == 0
    out = capsys.readouterr().out
    block = out.split("layer 0 head 0   ")[1].splitlines()
    assert block[1] == "    the␣dog"
    rows = [line[4:] for line in block[2:9]]
    for t, row in enumerate(rows):
        assert row[t + 1 :] == "/" * (6 - t)  # the future is masked
        assert "/" not in row[: t + 1]
    assert rows[0][0] == "@"  # the first character can only look at itself


def test_without_matplotlib_says_how_to_install(run_dir, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    assert attention.main(["--out", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert "needs matplotlib" in err and 'pip install -e ".[plot]"' in err and "--text" in err


def test_errors_are_clear(run_dir, tmp_path, capsys):
    assert attention.main(["--out", str(tmp_path / "nothing"), "--text"]) == 2
    assert "no checkpoint directory" in capsys.readouterr().err
    assert attention.main(["--out", str(run_dir), "--prompt", "ZZZ", "--text"]) == 2
    err = capsys.readouterr().err
    assert "'Z'" in err and "not in the vocabulary" in err
    long_prompt = "the cat sat on the mat. " * 3
    assert attention.main(["--out", str(run_dir), "--prompt", long_prompt, "--text"]) == 0
    assert "using its last 16 characters" in capsys.readouterr().out
