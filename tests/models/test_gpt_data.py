"""Tokenizer, text sources (file errors, built-in corpus, download cache) and batches."""

from __future__ import annotations

import numpy
import pytest

import microtorch
from models import data
from models.data import CharDataset, CharTokenizer, DataError


def test_tokenizer_round_trip_and_sorted_vocab():
    tok = CharTokenizer.from_text("hello world")
    assert tok.chars == sorted(set("hello world"))
    assert tok.vocab_size == 8
    ids = tok.encode("hold the door"[:4])
    assert ids == [tok.stoi[c] for c in "hold"]
    assert tok.decode(ids) == "hold"
    again = CharTokenizer.from_dict(tok.to_dict())
    assert again.chars == tok.chars


def test_tokenizer_unknown_character_is_named():
    tok = CharTokenizer.from_text("abc")
    with pytest.raises(DataError, match=r"'z' \(U\+007A\) at position 2"):
        tok.encode("abz")
    with pytest.raises(DataError, match="out of range"):
        tok.decode([3])
    with pytest.raises(DataError, match="empty"):
        CharTokenizer("")
    with pytest.raises(DataError, match="not a character tokenizer"):
        CharTokenizer.from_dict({"kind": "bpe"})


def test_builtin_corpus_is_large_and_deterministic():
    text = data.builtin_text()
    assert len(text) > 100_000
    assert text == data.builtin_text()
    assert data.load_text(None)[0] == text


def test_file_errors(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        data.read_text_file(tmp_path / "missing.txt")
    with pytest.raises(DataError, match="is a directory"):
        data.read_text_file(tmp_path)
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match="is empty"):
        data.read_text_file(empty)
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("caf\xe9 au lait".encode("latin-1"))
    with pytest.raises(DataError, match=r"not UTF-8 text: byte 0xe9 at offset 3"):
        data.read_text_file(latin1)
    good = tmp_path / "good.txt"
    good.write_text("\ufeffna\u00efve text", encoding="utf-8")
    assert data.read_text_file(good) == "na\u00efve text"  # byte-order mark dropped


def test_too_short_text_names_the_minimum():
    with pytest.raises(DataError, match=r"too short: 100 characters.*at least 170"):
        CharDataset("x" * 100, block_size=16)
    CharDataset("x" * 170, block_size=16)  # exactly enough


def test_download_cache_uses_local_url_once(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("to be or not to be", encoding="utf-8")
    cache = tmp_path / "cache"
    path = data.download_cached(source.as_uri(), "copy.txt", cache)
    assert path == cache / "copy.txt" and path.read_text() == "to be or not to be"
    source.unlink()  # a second call must not fetch again
    assert data.download_cached(source.as_uri(), "copy.txt", cache).read_text().startswith("to be")
    assert [p.name for p in cache.iterdir()] == ["copy.txt"]  # no partial files left


def test_download_failure_names_url_and_alternative(tmp_path):
    url = (tmp_path / "nowhere.txt").as_uri()
    with pytest.raises(DataError) as info:
        data.download_cached(url, "x.txt", tmp_path / "cache")
    message = str(info.value)
    assert url in message and "--data PATH" in message
    assert list((tmp_path / "cache").iterdir()) == []  # nothing half-written


def test_cache_dir_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROTORCH_CACHE", str(tmp_path))
    assert data.cache_dir() == tmp_path
    monkeypatch.delenv("MICROTORCH_CACHE")
    assert data.cache_dir().parts[-2:] == (".cache", "microtorch")


def test_shakespeare_source_reads_the_cached_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROTORCH_CACHE", str(tmp_path))
    (tmp_path / data.SHAKESPEARE_FILE).write_text("First Citizen:\nBefore we proceed", "utf-8")
    text, where = data.load_text("shakespeare")
    assert text.startswith("First Citizen") and "Shakespeare" in where


def test_split_and_batches(device):
    text = "".join(chr(ord("a") + i % 26) for i in range(1000))
    ds = CharDataset(text, block_size=8, seed=3)
    assert len(ds.train) == 900 and len(ds.val) == 100
    x, y = ds.get_batch("train", 4, device)
    assert x.shape == (4, 8) and y.shape == (4, 8) and x.device == microtorch.device(device)
    xs, ys = numpy.asarray(x.cpu()), numpy.asarray(y.cpu())
    assert (xs[:, 1:] == ys[:, :-1]).all()  # targets are the inputs shifted by one
    assert ((ys - xs) % 26 == 1).all()  # ... and each is the next character of the text
    with pytest.raises(ValueError, match="'train' or 'val'"):
        ds.get_batch("test", 2)


def test_batch_rng_state_restores_exactly():
    ds = CharDataset("abcdefghij" * 50, block_size=5, seed=1)
    ds.get_batch("train", 3)
    state = ds.get_rng_state()
    first = [numpy.asarray(t) for t in ds.get_batch("train", 3)]
    ds.set_rng_state(state)
    second = [numpy.asarray(t) for t in ds.get_batch("train", 3)]
    assert all((a == b).all() for a, b in zip(first, second))
