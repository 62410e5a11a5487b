"""Checkpoints microtorch writes in PyTorch's zip format: torch.load reads them (with its
default weights_only=True), microtorch reads them back, and the npz files of earlier
microtorch versions still load."""

from __future__ import annotations

import collections
import pickletools
import zipfile

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn, optim

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _values(dtype: str) -> np.ndarray:
    raw = np.array([[0, 1, -2], [3, -100, 7]])
    if dtype == "bool":
        return raw > 0
    if dtype == "uint8":
        return (raw % 256).astype(np.uint8)
    return raw.astype(dtype) / (4 if dtype.startswith("float") else 1)


def _everything() -> dict:
    """One of each thing a checkpoint holds."""
    base = torch.arange(12.0).reshape(3, 4)
    linear = nn.Linear(3, 2)
    sd = linear.state_dict()
    sd._metadata = collections.OrderedDict({"": {"version": 1}})  # as PyTorch's state_dict has
    obj = {f"t_{d}": torch.tensor(_values(d), dtype=getattr(torch, d)) for d in DTYPES}
    obj.update(
        {
            "model": sd,
            "tied": sd["weight"],
            "base": base,
            "transposed": base.t(),
            "row": base[1],
            "column": base[:, 2],
            "zero_d": torch.tensor(2.5),
            "zero_d_int": torch.tensor(7),
            "empty": torch.zeros(0, 3),
            "grad": torch.ones(2, requires_grad=True),
            "param": nn.Parameter(torch.full((2,), 3.0)),
            "frozen": nn.Parameter(torch.ones(1), requires_grad=False),
            "numbers": [1, -7, 70000, 2**40, 2**80, 2.5, float("inf"), True, False, None],
            "nested": {"a": [(1, "x"), {"b": ()}], 3: "int key", (1, 2): "tuple key"},
            "text": "héllo ☃",
            "dtype": torch.float16,
            "cpu": torch.device("cpu"),
            "cuda1": torch.device("cuda", 1),
            "size": torch.Size([2, 3]),
        }
    )
    return obj


def _assert_tensor_equal(ours, theirs, pt, key) -> None:
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}", key
    assert tuple(theirs.shape) == tuple(ours.shape), key
    assert theirs.requires_grad == ours.requires_grad, key
    assert isinstance(theirs, pt.nn.Parameter) == isinstance(ours, nn.Parameter), key
    np.testing.assert_array_equal(theirs.detach().numpy(), ours.detach().numpy(), err_msg=key)


@pytest.mark.parametrize("weights_only", [True, False])
def test_torch_load_reads_what_microtorch_saves(tmp_path, weights_only: bool) -> None:
    pt = pytest.importorskip("torch")
    obj = _everything()
    torch.save(obj, tmp_path / "all.pt")
    back = pt.load(tmp_path / "all.pt", weights_only=weights_only)
    assert list(back) == list(obj)
    for key, value in obj.items():
        if isinstance(value, torch.Tensor):
            _assert_tensor_equal(value, back[key], pt, key)
    assert type(back["model"]) is collections.OrderedDict
    assert back["model"]._metadata == obj["model"]._metadata  # the modules' versions
    assert back["tied"] is back["model"]["weight"]  # the same tensor: one object, as saved
    # views share their base's storage, with their offsets and strides
    storage = back["base"].untyped_storage().data_ptr()
    for key, offset, stride in [("transposed", 0, (1, 4)), ("row", 4, (1,)), ("column", 2, (4,))]:
        assert back[key].untyped_storage().data_ptr() == storage, key
        assert back[key].storage_offset() == offset and back[key].stride() == stride, key
    back["base"][1, 2] = -1.0  # one memory, as in PyTorch
    assert back["transposed"][2, 1] == -1.0 and back["row"][2] == -1.0
    assert back["numbers"] == obj["numbers"] and back["nested"] == obj["nested"]
    assert back["text"] == "héllo ☃" and back["dtype"] is pt.float16
    assert back["cpu"] == pt.device("cpu") and back["cuda1"] == pt.device("cuda", 1)
    assert isinstance(back["size"], pt.Size) and back["size"] == (2, 3)
    assert back["zero_d"].shape == () and back["zero_d_int"].dtype is pt.int64


def test_the_file_holds_only_what_weights_only_allows(tmp_path) -> None:
    """The pickle names PyTorch's rebuilders and plain types, nothing else; every storage's
    bytes start at a multiple of 64 (so torch.load(mmap=True) works too)."""
    torch.save(_everything(), tmp_path / "all.pt")
    with zipfile.ZipFile(tmp_path / "all.pt") as archive:
        names = archive.namelist()
        assert {"archive/data.pkl", "archive/version", "archive/byteorder"} <= set(names)
        assert archive.read("archive/byteorder") == b"little"
        globals_named = {
            arg.replace(" ", ".")
            for op, arg, _ in pickletools.genops(archive.read("archive/data.pkl"))
            if op.name == "GLOBAL"
        }
        with open(tmp_path / "all.pt", "rb") as f:
            raw = f.read()
        for info in archive.infolist():
            start = info.header_offset + 30 + len(info.filename) + len(info.extra)
            assert start % 64 == 0 and raw[start : start + info.file_size] == archive.read(info)
    assert globals_named == {
        "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
        "collections.OrderedDict", "torch.device", "torch.Size", "torch.float16",
        *(f"torch.{n}Storage" for n in
          ["Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"]),
    }  # fmt: skip
    pt = pytest.importorskip("torch")
    assert pt.load(tmp_path / "all.pt", mmap=True)["row"].tolist() == [4.0, 5.0, 6.0, 7.0]


def test_microtorch_reads_back_what_it_saves(tmp_path) -> None:
    obj = _everything()
    torch.save(obj, tmp_path / "all.pt")
    back = torch.load(tmp_path / "all.pt")
    assert list(back) == list(obj)
    for key, value in obj.items():
        if isinstance(value, torch.Tensor):
            assert back[key].dtype is value.dtype and back[key].shape == value.shape, key
            assert back[key].requires_grad == value.requires_grad, key
            assert isinstance(back[key], nn.Parameter) == isinstance(value, nn.Parameter), key
            np.testing.assert_array_equal(back[key].detach().numpy(), value.detach().numpy())
        elif key != "model":
            assert back[key] == value, key
    assert back["tied"] is back["model"]["weight"]
    assert back["model"]._metadata == obj["model"]._metadata
    assert isinstance(back["size"], torch.Size) and back["dtype"] is torch.float16


def test_numpy_arrays_are_pickled_as_numpy_pickles_them(tmp_path) -> None:
    arrays = {"f16": np.arange(6, dtype=np.float16).reshape(2, 3), "b": np.array([True]),
              "t": np.arange(6.0).reshape(2, 3).T, "big": np.arange(3, dtype=">i4"),
              "text": np.array(["ab", "héllo"]), "time": np.array(["2020-01-01"], "M8[s]"),
              "zero_d": np.array(3.5), "empty": np.zeros((0, 2), np.int16)}  # fmt: skip
    torch.save(arrays, tmp_path / "np.pt")
    for back in [torch.load(tmp_path / "np.pt")]:
        for key, value in arrays.items():
            assert (
                back[key].dtype == value.dtype.newbyteorder("=") and back[key].shape == value.shape
            )
            np.testing.assert_array_equal(back[key], value)
    with pytest.raises(TypeError, match=r"obj\['o'\], a NumPy array of dtype object"):
        torch.save({"o": np.array([1, None])}, tmp_path / "objects.pt")
    pt = pytest.importorskip("torch")
    theirs = pt.load(tmp_path / "np.pt", weights_only=False)  # as for torch.save's own file
    for key, value in arrays.items():
        np.testing.assert_array_equal(theirs[key], value)


def test_a_tensor_saved_on_cuda_is_read_by_torch_with_map_location(tmp_path, device) -> None:
    t = torch.arange(6.0, device=device).reshape(2, 3)
    torch.save({"t": t, "v": t.t()}, tmp_path / "d.pt")
    with zipfile.ZipFile(tmp_path / "d.pt") as archive:
        pickled = archive.read("archive/data.pkl")
    location = "cpu" if device == "cpu" else "cuda:0"
    assert location.encode() in pickled
    assert torch.load(tmp_path / "d.pt")["v"].device.type == device
    pt = pytest.importorskip("torch")
    back = pt.load(tmp_path / "d.pt", map_location="cpu")
    assert back["v"].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_files_of_the_npz_format_still_load(tmp_path) -> None:
    """Every checkpoint earlier microtorch versions wrote (npz + JSON manifest; written here
    by that code path, which _use_new_zipfile_serialization=False still takes) loads."""
    model = nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 5, bias=False))
    model[1].weight = model[0].weight
    opt = optim.Adam(model.parameters())
    model(torch.tensor([1, 2])).sum().backward()
    opt.step()
    saved = {"model": model.state_dict(), "optimizer": opt.state_dict(), "step": 3,
             "array": np.arange(4), "size": torch.Size([1])}  # fmt: skip
    torch.save(saved, tmp_path / "old.ckpt", _use_new_zipfile_serialization=False)
    with zipfile.ZipFile(tmp_path / "old.ckpt") as archive:
        assert "__manifest__.npy" in archive.namelist()  # the npz format
    back = torch.load(tmp_path / "old.ckpt")
    assert back["model"]["0.weight"] is back["model"]["1.weight"]
    np.testing.assert_array_equal(
        back["model"]["0.weight"].numpy(), model[0].weight.detach().numpy()
    )
    assert back["step"] == 3 and back["array"].tolist() == [0, 1, 2, 3]
    fresh = nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 5, bias=False))
    fresh[1].weight = fresh[0].weight
    fresh.load_state_dict(back["model"])
    optim.Adam(fresh.parameters()).load_state_dict(back["optimizer"])


def _train(T, model, opt, sched, steps: int) -> list:
    rng = np.random.default_rng(1)
    losses = []
    for _ in range(steps):
        x = T.tensor(rng.standard_normal((8, 4)).astype(np.float32))
        y = T.tensor(rng.integers(0, 3, 8))
        loss = T.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


def _net(T):
    return T.nn.Sequential(T.nn.Linear(4, 8), T.nn.GELU(), T.nn.LayerNorm(8), T.nn.Linear(8, 3))


def test_a_training_checkpoint_resumes_in_pytorch_with_the_same_losses(tmp_path) -> None:
    pt = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = _net(torch)
    opt = optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    _train(torch, model, opt, sched, 3)
    ckpt = {"model": model.state_dict(), "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(), "iter": 3}  # fmt: skip
    torch.save(ckpt, tmp_path / "ck.pt")

    loaded = pt.load(tmp_path / "ck.pt")  # weights_only=True, PyTorch's default
    theirs = _net(pt)
    theirs.load_state_dict(loaded["model"])
    their_opt = pt.optim.AdamW(theirs.parameters(), lr=0.5)
    their_opt.load_state_dict(loaded["optimizer"])
    their_sched = pt.optim.lr_scheduler.StepLR(their_opt, step_size=2)
    their_sched.load_state_dict(loaded["scheduler"])
    assert loaded["iter"] == 3 and their_opt.param_groups[0]["lr"] == opt.param_groups[0]["lr"]

    ours = _train(torch, model, opt, sched, 4)
    resumed = _train(pt, theirs, their_opt, their_sched, 4)
    np.testing.assert_allclose(resumed, ours, rtol=1e-5)
    assert their_opt.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
