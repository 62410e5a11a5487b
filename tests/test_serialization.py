"""Checkpoints: round trips, devices, refusing unsafe or broken files, atomic writes."""

from __future__ import annotations

import collections
import dataclasses
import io
import os
import signal
import subprocess
import sys
import textwrap
import time
import zipfile

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn, optim


def _model() -> nn.Module:
    model = nn.Sequential(nn.Embedding(11, 4), nn.LayerNorm(4), nn.Linear(4, 11, bias=False))
    model[2].weight = model[0].weight  # tied
    model.register_buffer("scale", torch.tensor([2.0]))
    return model


def test_nested_round_trip_keeps_types_and_values(tmp_path) -> None:
    obj = {
        "f32": torch.randn(3, 2),
        "f64": torch.randn(2, dtype=torch.float64),
        "f16": torch.randn(4).half(),
        "i64": torch.tensor([1, -2, 3]),
        "bool": torch.tensor([True, False]),
        "scalar": torch.tensor(1.5),
        "grad": torch.ones(2, requires_grad=True),
        "param": nn.Parameter(torch.zeros(2)),
        "array": np.arange(6, dtype=np.int32).reshape(2, 3),
        "numbers": [1, 2.5, -3, True, None, float("inf")],
        "tuple": (1, "two", (3.0,)),
        "int_keys": {0: "a", 7: "b"},
        "tuple_key": {(1, 2): "c"},
        "text": "héllo",
        "np_scalar": np.float64(0.25),
        "dtype": torch.float64,
        "device": torch.device("cpu"),
        "empty": {},
        "size": torch.zeros(2, 3).shape,
        "empty_tensor": torch.zeros(0, 3),
    }
    torch.save(obj, tmp_path / "x.ckpt")
    back = torch.load(tmp_path / "x.ckpt")
    assert list(back) == list(obj)
    for key in ("f32", "f64", "f16", "i64", "bool", "scalar"):
        assert back[key].dtype is obj[key].dtype and back[key].shape == obj[key].shape
        np.testing.assert_array_equal(back[key].numpy(), obj[key].numpy())
    assert back["grad"].requires_grad and not back["f32"].requires_grad
    assert isinstance(back["param"], nn.Parameter) and back["param"].requires_grad
    assert back["array"].dtype == np.int32 and back["array"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert back["numbers"] == obj["numbers"]
    assert back["tuple"] == (1, "two", (3.0,)) and isinstance(back["tuple"][2], tuple)
    assert back["int_keys"] == {0: "a", 7: "b"} and back["tuple_key"] == {(1, 2): "c"}
    assert back["text"] == "héllo" and back["np_scalar"] == 0.25 and back["empty"] == {}
    assert back["dtype"] is torch.float64 and back["device"] == torch.device("cpu")
    assert isinstance(back["size"], torch.Size) and back["size"] == (2, 3)
    assert back["empty_tensor"].shape == (0, 3)


def test_an_ordered_dict_such_as_a_state_dict_comes_back_as_one(tmp_path) -> None:
    sd = nn.Linear(3, 2).state_dict()
    nested = {"model": sd, "plain": {"b": 1, "a": 2}, "list": [collections.OrderedDict(z=1)]}
    torch.save(nested, tmp_path / "s.pt")
    back = torch.load(tmp_path / "s.pt")
    assert type(back) is dict and type(back["plain"]) is dict
    assert type(back["model"]) is collections.OrderedDict and list(back["model"]) == list(sd)
    assert type(back["list"][0]) is collections.OrderedDict and back["list"][0] == {"z": 1}


def test_model_and_optimizer_round_trip_bit_exact(tmp_path) -> None:
    model = _model()
    opt = optim.AdamW(model.parameters(), lr=0.01)
    model(torch.tensor([[1, 5, 9]])).sum().backward()
    opt.step()
    torch.save(
        {"model": model.state_dict(), "optimizer": opt.state_dict(), "step": 1}, tmp_path / "ck.pt"
    )
    ck = torch.load(tmp_path / "ck.pt")
    # tied weights are stored once and come back as one tensor
    assert ck["model"]["0.weight"] is ck["model"]["2.weight"]
    with zipfile.ZipFile(tmp_path / "ck.pt") as z:
        # model: tied weight once, LayerNorm weight and bias, buffer; optimizer: m, v and the
        # step count (a 0-d tensor in a state dict, as in PyTorch) each
        assert len([n for n in z.namelist() if "/data/" in n]) == 4 + 3 * 3
    torch.manual_seed(99)
    fresh = _model()
    fresh.load_state_dict(ck["model"])
    for (k, a), (_, b) in zip(model.state_dict().items(), fresh.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    assert fresh[2].weight is fresh[0].weight
    opt2 = optim.AdamW(fresh.parameters(), lr=0.5)
    opt2.load_state_dict(ck["optimizer"])
    assert opt2.param_groups[0]["lr"] == 0.01
    for p, q in zip(model.parameters(), fresh.parameters()):
        for name in ("exp_avg", "exp_avg_sq"):
            np.testing.assert_array_equal(opt.state[p][name].numpy(), opt2.state[q][name].numpy())


def test_file_objects(tmp_path) -> None:
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(5)}, buffer)
    buffer.seek(0)
    assert torch.load(buffer)["w"].tolist() == [0, 1, 2, 3, 4]


def _save_and_load_with_pytorchs_options(T, tmp_path) -> list:
    buffer = io.BytesIO()
    T.save({"w": T.arange(3)}, buffer, pickle_protocol=2, _use_new_zipfile_serialization=True)
    buffer.seek(0)
    loaded = [T.load(buffer, map_location="cpu", pickle_module=None, weights_only=True)]
    T.save(T.ones(2), tmp_path / "o.pt", _disable_byteorder_record=False)
    loaded.append(T.load(tmp_path / "o.pt", None, encoding="utf-8", weights_only=False))
    return [loaded[0]["w"].tolist(), loaded[1].tolist()]


def test_save_and_load_accept_pytorchs_pickle_options(tmp_path) -> None:
    assert _save_and_load_with_pytorchs_options(torch, tmp_path) == [[0, 1, 2], [1.0, 1.0]]
    pt = pytest.importorskip("torch")
    assert _save_and_load_with_pytorchs_options(pt, tmp_path) == [[0, 1, 2], [1.0, 1.0]]


def _load_options(T, tmp_path) -> dict:
    """What torch.load does with each value of its options: 'ok', or the error type (and
    whether it warned)."""
    import pickle
    import warnings

    T.save({"w": T.arange(3)}, tmp_path / "w.pt")
    path, raw = tmp_path / "w.pt", (tmp_path / "w.pt").read_bytes()
    calls = {
        **{f"weights_only={v!r}": ({}, {"weights_only": v}) for v in (None, True, 0, 1, "x")},
        "pickle_module": ({}, {"pickle_module": pickle}),
        "pickle_module, weights_only=True": ({}, {"pickle_module": pickle, "weights_only": True}),
        "pickle_module, weights_only=False": ({}, {"pickle_module": pickle, "weights_only": 0}),
        "encoding=": ({}, {"encoding": "latin1"}),
        "encoding=, weights_only=False": ({}, {"encoding": "latin1", "weights_only": False}),
        "errors=": ({}, {"errors": "strict"}),
        "errors=, weights_only=False": ({}, {"errors": "strict", "weights_only": False}),
        "unknown keyword": ({}, {"bogus": 1, "weights_only": False}),
        "mmap=True": ({}, {"mmap": True}),
        "mmap=True, a buffer": ({"f": io.BytesIO(raw)}, {"mmap": True}),
        "mmap=False, a buffer": ({"f": io.BytesIO(raw)}, {"mmap": False}),
        **{f"map_location={v!r}": ({}, {"map_location": v}) for v in ("cpu", {"cpu": "cpu"})},
        "map_location=device": ({}, {"map_location": T.device("cpu")}),
        "map_location=function": ({}, {"map_location": lambda storage, location: storage}),
        "map_location=int": ({}, {"map_location": 3}),
    }
    answers = {}
    for label, (source, options) in calls.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                assert T.load(source.get("f", path), **options)["w"].tolist() == [0, 1, 2]
                answers[label] = "ok"
            except (TypeError, ValueError, RuntimeError) as error:
                answers[label] = type(error).__name__
        answers[label] += " (warns)" if caught else ""
    return answers


def test_load_takes_and_refuses_its_options_as_pytorch(tmp_path) -> None:
    """load(weights_only=...) took anything and mmap=True never; other keywords were ignored.
    Now each option is taken or refused as torch.load does (with its error types)."""
    ours = _load_options(torch, tmp_path)
    assert ours["pickle_module, weights_only=True"] == "RuntimeError"
    assert ours["unknown keyword"] == "TypeError" and ours["mmap=True"] == "ok"
    assert ours["encoding="] == "ok (warns)"
    pt = pytest.importorskip("torch")
    assert ours == _load_options(pt, tmp_path)


def test_map_location_and_devices(tmp_path, device: str) -> None:
    t = torch.randn(3, device=device)
    torch.save({"t": t}, tmp_path / "d.pt")
    default = torch.load(tmp_path / "d.pt")["t"]
    assert default.device.type == device  # back where it was saved
    on_cpu = torch.load(tmp_path / "d.pt", map_location="cpu")["t"]
    assert on_cpu.device.type == "cpu"
    np.testing.assert_array_equal(on_cpu.numpy(), t.cpu().numpy())
    mapped = torch.load(tmp_path / "d.pt", map_location={str(t.device): "cpu"})["t"]
    assert mapped.device.type == "cpu"
    moved = torch.load(tmp_path / "d.pt", map_location=device, weights_only=True)["t"]
    assert moved.device.type == device
    with pytest.raises(TypeError, match="map_location"):
        torch.load(tmp_path / "d.pt", map_location=3)


def test_map_location_as_a_function_of_storage_and_location(tmp_path, device: str) -> None:
    t = torch.randn(3, device=device)
    torch.save({"t": t, "n": 1}, tmp_path / "f.pt")
    seen = []

    def keep_on_cpu(storage, location):  # PyTorch's idiom: load everything onto the CPU
        seen.append((storage.device.type, location))
        return storage

    loaded = torch.load(tmp_path / "f.pt", map_location=keep_on_cpu)
    assert seen == [("cpu", str(t.device))]  # it gets the tensor on the CPU and where it was
    assert loaded["t"].device.type == "cpu" and loaded["n"] == 1
    np.testing.assert_array_equal(loaded["t"].numpy(), t.cpu().numpy())
    back = torch.load(tmp_path / "f.pt", map_location=lambda storage, loc: storage.to(device))
    assert back["t"].device.type == device
    default = torch.load(tmp_path / "f.pt", map_location=lambda storage, loc: None)
    assert default["t"].device.type == device  # None: where it was saved
    with pytest.raises(TypeError, match=r"map_location\(storage, '.*returned int"):
        torch.load(tmp_path / "f.pt", map_location=lambda storage, loc: 0)


def test_model_saved_on_device_loads_into_cpu_model(tmp_path, device: str) -> None:
    model = _model().to(device)
    torch.save(model.state_dict(), tmp_path / "m.pt")
    cpu_model = _model()
    cpu_model.load_state_dict(torch.load(tmp_path / "m.pt", map_location="cpu"))
    for a, b in zip(model.parameters(), cpu_model.parameters()):
        np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().numpy())


def test_unsupported_objects_are_refused_with_their_path(tmp_path) -> None:
    class Config:
        pass

    with pytest.raises(TypeError, match=r"obj\['cfg'\] of type Config"):
        torch.save({"cfg": Config()}, tmp_path / "bad.pt")
    with pytest.raises(TypeError, match="keys must be"):
        torch.save({torch.ones(1): 1}, tmp_path / "bad.pt")
    # torch.save(model, path), which pickles the object: refused, saying what to save instead
    with pytest.raises(TypeError, match=r"a whole Linear .*obj\.state_dict\(\)"):
        torch.save(torch.nn.Linear(2, 3), tmp_path / "bad.pt")
    assert not os.listdir(tmp_path)  # nothing written, no temporary file left behind


def _load_error(path) -> str:
    with pytest.raises(RuntimeError) as info:
        torch.load(path)
    assert str(path) in str(info.value)  # the error names the file
    return str(info.value)


def test_truncated_and_corrupted_files_give_clear_errors(tmp_path) -> None:
    path = tmp_path / "good.pt"
    torch.save({"w": torch.randn(1000), "n": 3}, path)
    data = path.read_bytes()
    for size in (0, 10, len(data) // 2, len(data) - 30):
        broken = tmp_path / f"cut{size}.pt"
        broken.write_bytes(data[:size])
        assert "truncated or corrupted" in _load_error(broken)
    # flip bytes inside the tensor data: the zip's CRC check catches it
    flipped = bytearray(data)
    for i in range(1000, 1010):
        flipped[i] ^= 0xFF
    (tmp_path / "flip.pt").write_bytes(bytes(flipped))
    assert "truncated or corrupted" in _load_error(tmp_path / "flip.pt")
    (tmp_path / "junk.pt").write_bytes(b"this is not a checkpoint at all" * 10)
    _load_error(tmp_path / "junk.pt")
    with pytest.raises(FileNotFoundError, match="no such file"):
        torch.load(tmp_path / "missing.pt")


def test_foreign_archives_are_refused(tmp_path) -> None:
    np.savez(tmp_path / "plain.npz", a=np.ones(2))
    assert "without microtorch's manifest" in _load_error(tmp_path / "plain.npz")
    np.save(tmp_path / "one.npy", np.ones(2))
    assert "single .npy array" in _load_error(tmp_path / "one.npy")


# ---------------------------------------------------------------- PyTorch's .pt files
PYTORCH_CHECKPOINT = os.path.join(os.path.dirname(__file__), "data", "pytorch_checkpoint.pt")


def test_a_checkpoint_written_by_pytorch_loads_without_pytorch() -> None:
    """tests/data/pytorch_checkpoint.pt was written by torch.save in PyTorch 2.13: a
    Linear(3, 2)'s state dict (weight arange(6)/4, bias [-1, 0.5]), the weight again under
    "tied", an int, a 0-d tensor, a dict of plain values, float16 and bfloat16 tensors, a
    strided view and a torch.Size."""
    with pytest.warns(UserWarning, match="bfloat16 tensors; .* loaded as float32"):
        ckpt = torch.load(PYTORCH_CHECKPOINT)
    model = nn.Linear(3, 2)
    assert str(model.load_state_dict(ckpt["model"])) == "<All keys matched successfully>"
    assert model.weight.tolist() == [[0.0, 0.25, 0.5], [0.75, 1.0, 1.25]]
    assert model(torch.ones(1, 3)).tolist() == [[-0.25, 3.5]]
    assert isinstance(ckpt["model"], collections.OrderedDict)
    assert ckpt["tied"] is ckpt["model"]["weight"]  # one tensor, as it was saved
    assert ckpt["iter_num"] == 7 and ckpt["config"] == {
        "n_layer": 2,
        "dropout": 0.0,
        "name": "tiny",
    }
    assert ckpt["best_val_loss"].item() == 1.25 and ckpt["best_val_loss"].shape == ()
    assert ckpt["half"].dtype is torch.float16 and ckpt["half"].tolist() == [1.5, -2.0]
    assert ckpt["bf16"].dtype is torch.float32
    assert ckpt["bf16"].tolist() == [0.10009765625, 3.0]  # bfloat16's nearest to 0.1, exactly
    assert ckpt["steps"].dtype is torch.int64 and ckpt["steps"].tolist() == [0, 2]
    assert isinstance(ckpt["shape"], torch.Size) and ckpt["shape"] == (2, 3)
    with open(PYTORCH_CHECKPOINT, "rb") as f, pytest.warns(UserWarning, match="bfloat16"):
        assert torch.load(io.BytesIO(f.read()), map_location="cpu")["iter_num"] == 7  # a file


def test_pytorch_files_load_with_the_values_pytorch_saved(tmp_path) -> None:
    pt = pytest.importorskip("torch")
    net = pt.nn.Sequential(pt.nn.Linear(3, 4), pt.nn.GELU(), pt.nn.LayerNorm(4))
    opt = pt.optim.AdamW(net.parameters())
    net(pt.randn(2, 3)).sum().backward()
    opt.step()
    saved = {"model": net.state_dict(), "optimizer": opt.state_dict(), "x": pt.randn(3, 4).t(),
             "p": pt.nn.Parameter(pt.ones(2)), "ints": pt.arange(5, dtype=pt.int32),
             "mask": pt.tensor([True, False]), "arr": np.arange(3.0), "dev": pt.device("cpu"),
             "dtype": pt.float64}  # fmt: skip
    pt.save(saved, tmp_path / "ckpt.pt")
    ours = torch.load(tmp_path / "ckpt.pt")
    mine = nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.LayerNorm(4))
    mine.load_state_dict(ours["model"])
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(mine(torch.tensor(x)).detach().numpy(),
                               net(pt.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)  # fmt: skip
    state = ours["optimizer"]["state"][0]
    np.testing.assert_array_equal(
        state["exp_avg"].numpy(), saved["optimizer"]["state"][0]["exp_avg"]
    )
    assert ours["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert ours["x"].tolist() == saved["x"].tolist() and tuple(ours["x"].shape) == (4, 3)
    assert isinstance(ours["p"], nn.Parameter) and ours["p"].requires_grad
    assert ours["ints"].dtype is torch.int32 and ours["mask"].tolist() == [True, False]
    assert ours["arr"].tolist() == [0.0, 1.0, 2.0] and ours["dtype"] is torch.float64
    assert ours["dev"] == torch.device("cpu")


@dataclasses.dataclass
class TrainConfig:
    """A config saved inside a PyTorch checkpoint (by the test below)."""

    n_layer: int = 2
    name: str = "tiny"


def test_classes_the_caller_allows_load_from_pytorch_files(tmp_path) -> None:
    pt = pytest.importorskip("torch")
    pt.save({"config": TrainConfig(6, "big"), "w": pt.ones(2)}, tmp_path / "ck.pt")
    assert "TrainConfig, which microtorch does not load" in _load_error(tmp_path / "ck.pt")
    with torch.serialization.safe_globals([TrainConfig]):
        assert torch.load(tmp_path / "ck.pt")["config"] == TrainConfig(6, "big")
    assert torch.serialization.get_safe_globals() == []  # only inside the block
    torch.serialization.add_safe_globals([TrainConfig])
    try:
        assert torch.load(tmp_path / "ck.pt")["config"].n_layer == 6
    finally:
        torch.serialization.clear_safe_globals()
    assert "does not load" in _load_error(tmp_path / "ck.pt")


def test_pytorch_files_never_run_code_from_the_file(tmp_path) -> None:
    """A pickle may name any function to call; only the rebuilders of tensors and plain
    values are resolved, everything else is refused before anything runs."""
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    path = tmp_path / "evil.pt"
    with zipfile.ZipFile(path, "w") as archive:  # the layout torch.save writes
        archive.writestr("evil/data.pkl", __import__("pickle").dumps({"w": Payload()}, protocol=2))
        archive.writestr("evil/version", "3\n")
    error = _load_error(path)
    assert "system, which microtorch does not load" in error and "weights_only" in error
    assert not marker.exists()
    pt = pytest.importorskip("torch")
    pt.save(pt.nn.Linear(2, 2), tmp_path / "module.pt")  # a whole module: its class is code
    assert "torch.nn.modules.linear.Linear, which microtorch does not load" in _load_error(
        tmp_path / "module.pt"
    )
    pt.save({"w": pt.ones(2)}, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    assert "format before PyTorch 1.6" in _load_error(tmp_path / "legacy.pt")


def test_save_replaces_the_old_file_and_keeps_its_permissions(tmp_path) -> None:
    path = tmp_path / "ck.pt"
    torch.save({"v": 1}, path)
    os.chmod(path, 0o640)
    torch.save({"v": 2}, path)
    assert torch.load(path) == {"v": 2}
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["ck.pt"]


def _run_writer(script: str, tmp_path) -> subprocess.Popen:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])
    )
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, text=True)  # fmt: skip


def test_writer_killed_before_rename_leaves_previous_checkpoint(tmp_path) -> None:
    """The writer dies (SIGKILL) after writing and fsyncing the new archive but before the
    rename: the old checkpoint must still be there, whole."""
    path = tmp_path / "ck.pt"
    torch.save({"version": 1, "w": torch.ones(10)}, path)
    proc = _run_writer(
        """
        import os, signal
        import microtorch as torch
        os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)
        torch.save({"version": 2, "w": torch.zeros(100000)}, "ck.pt")
        """,
        tmp_path,
    )
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    ck = torch.load(path)
    assert ck["version"] == 1 and ck["w"].tolist() == [1.0] * 10


def test_writer_killed_mid_save_never_leaves_a_broken_checkpoint(tmp_path) -> None:
    """A writer saving a large checkpoint over and over is killed at some moment: whatever
    is at the path afterwards is a complete checkpoint (old or new), never a partial one."""
    path = tmp_path / "ck.pt"
    torch.save({"version": 0, "w": torch.zeros(4)}, path)
    proc = _run_writer(
        """
        import microtorch as torch
        w = torch.randn(4_000_000)  # 16 MB: each save takes a while
        for version in range(1, 1000):
            print(version, flush=True)
            torch.save({"version": version, "w": w}, "ck.pt")
        """,
        tmp_path,
    )
    assert proc.stdout.readline().strip() == "1"  # the first save has started
    time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=60)
    ck = torch.load(path)
    assert ck["version"] >= 0 and ck["w"].numel() in (4, 4_000_000)
