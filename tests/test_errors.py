"""Bad input gets a clear error that names the op and the shapes, dtypes or devices involved
(and says what to do), never a bare NumPy traceback from deep inside."""

from __future__ import annotations

import math
import re
import sys
import types

import numpy as np
import pytest

import microtorch
import microtorch.nn.functional as F
from microtorch import backend

from .conftest import cuda_available, requires_cuda
from .torch_reference import needs_torch


def test_matmul_shape_mismatch_message() -> None:
    with pytest.raises(RuntimeError) as info:
        microtorch.ones(3, 4) @ microtorch.ones(5, 6)
    assert str(info.value) == "matmul: shapes (3, 4) and (5, 6) cannot be multiplied (4 != 5)"


def test_matmul_other_errors() -> None:
    with pytest.raises(RuntimeError, match=r"matmul: shapes \(4,\) and \(3, 2\).*\(4 != 3\)"):
        microtorch.ones(4) @ microtorch.ones(3, 2)
    with pytest.raises(RuntimeError, match="matmul: both arguments need at least 1 dimension"):
        microtorch.ones(3) @ microtorch.tensor(2.0)
    with pytest.raises(RuntimeError, match=r"matmul \(batch dims\).*\(2,\) and \(3,\)"):
        microtorch.ones(2, 3, 4) @ microtorch.ones(3, 4, 5)


def test_mm_bmm_mv_name_themselves_when_the_shapes_do_not_fit() -> None:
    with pytest.raises(RuntimeError, match=r"^mm: shapes \(3, 4\) and \(3, 4\) .*\(4 != 3\)"):
        microtorch.mm(microtorch.ones(3, 4), microtorch.ones(3, 4))
    with pytest.raises(RuntimeError, match=r"^bmm: shapes \(1, 3, 4\) and \(1, 3, 4\)"):
        microtorch.bmm(microtorch.ones(1, 3, 4), microtorch.ones(1, 3, 4))
    with pytest.raises(RuntimeError, match=r"^mv: shapes \(3, 4\) and \(3,\) .*\(4 != 3\)"):
        microtorch.ones(3, 4).mv(microtorch.ones(3))


def test_requires_grad_on_an_integer_tensor() -> None:
    message = "only Tensors of floating point dtype can require gradients, got microtorch.int64"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        microtorch.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"floating point.*\.float\(\)"):
        microtorch.arange(3).requires_grad_()


def test_setting_requires_grad_makes_the_same_checks_as_requires_grad_() -> None:
    # PyTorch checks the attribute too: `t.requires_grad = True` on an int tensor used to
    # pass here silently and give the tensor a flag no op could honour
    ints = microtorch.arange(3)
    with pytest.raises(RuntimeError, match=r"floating point.*got microtorch\.int64"):
        ints.requires_grad = True
    assert not ints.requires_grad
    x = microtorch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False
    assert y.requires_grad
    y.requires_grad = True  # already so: allowed, as in PyTorch
    with pytest.raises(RuntimeError, match="requires_grad must be a bool, got int"):
        x.requires_grad = 1
    x.requires_grad = False  # a leaf may be switched off and on
    assert not x.requires_grad and x.is_leaf
    x.requires_grad = True
    assert x.requires_grad


def test_cross_entropy_target_out_of_range() -> None:
    with pytest.raises(IndexError, match=r"cross_entropy: target 7 is out of range for 5 classes"):
        F.cross_entropy(microtorch.zeros(3, 5), microtorch.tensor([0, 7, 1]))
    with pytest.raises(IndexError, match=r"target -3 is out of range.*ignore_index=-100"):
        F.cross_entropy(microtorch.zeros(3, 5), microtorch.tensor([0, -3, 1]))


def test_out_of_range_indices_are_reported_on_every_device(device: str) -> None:
    """On a GPU the checks stay on the device and raise at the next sync (.item(), .cpu())."""
    weight = microtorch.ones(3, 2, device=device)
    with pytest.raises(IndexError, match="out of range for an embedding of 3 rows"):
        F.embedding(microtorch.tensor([0, 5], device=device), weight).sum().item()
    assert F.embedding(microtorch.tensor([2], device=device), weight).sum().item() == 2.0
    logits = microtorch.zeros(3, 5, device=device)
    with pytest.raises(IndexError, match=r"out of range for 5 classes"):
        F.cross_entropy(logits, microtorch.tensor([0, 7, 1], device=device)).item()
    with pytest.raises(RuntimeError, match=r"gather: an index is out of bounds for dimension 1"):
        microtorch.gather(logits, 1, microtorch.tensor([[0], [5], [1]], device=device)).cpu()
    loss = F.cross_entropy(logits, microtorch.tensor([0, -100, 4], device=device))
    assert loss.item() == pytest.approx(math.log(5))  # ignore_index is not out of range


def test_out_of_range_tensor_indices_are_reported_on_every_device(device: str) -> None:
    """CuPy wraps an index past the end around; microtorch must still report it."""
    x = microtorch.arange(6, device=device).reshape(2, 3)
    index = microtorch.tensor([1, 3], device=device)
    with pytest.raises(IndexError, match=r"out of bounds for (dimension|axis) 1 with size 3"):
        x[:, index].tolist()
    with pytest.raises(IndexError, match=r"out of bounds for (dimension|axis) 1 with size 3"):
        x[..., index].tolist()
    with pytest.raises(IndexError, match=r"out of bounds for (dimension|axis) 0 with size 2"):
        x[microtorch.tensor([-3], device=device)].tolist()
    with pytest.raises(IndexError, match=r"out of bounds for (dimension|axis) 1 with size 3"):
        x[0, index] = 7
        x.cpu()
    assert x[microtorch.tensor([-2, 1], device=device), 2].tolist() == [
        2,
        5,
    ]  # negatives count back
    # the dim named is the user's, also where the index is applied in two steps (an int
    # first, as in PyTorch) or where a mask and an Ellipsis come before the index
    cube = microtorch.zeros(2, 3, 4, device=device)
    with pytest.raises(IndexError, match=r"dimension 2 with size 4 \(indexing a tensor of shape"):
        cube[1, :, microtorch.tensor([0, 4], device=device)].tolist()
    rows = microtorch.tensor([[True, False, False], [False, False, True]], device=device)
    with pytest.raises(IndexError, match=r"dimension 2 with size 4 \(indexing a tensor of shape"):
        cube[rows, ..., microtorch.tensor([0, 4], device=device)].tolist()


def test_einsum_does_not_promote_mixed_dtypes() -> None:
    """einsum of a float32 and an int64 (or float16 and float32) operand raises, as in
    PyTorch; we promoted them and returned a result PyTorch code never sees."""
    a = microtorch.tensor([1.0, 2.0])
    for other in (microtorch.tensor([1, 2]), a.to(microtorch.float64)):
        with pytest.raises(RuntimeError, match=r"einsum: .*operands\[1\] is microtorch"):
            microtorch.einsum("i,i->", a, other)
    assert microtorch.einsum("i,i->", a, a).item() == 5.0
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.einsum("i,i->", torch.tensor([1.0, 2.0]), torch.tensor([1, 2]))


def test_einsum_errors_name_the_equation() -> None:
    a = microtorch.ones(2, 3)
    with pytest.raises(
        RuntimeError, match=r"einsum: the equation 'ij,jk->ik' names 2 operands, got 1"
    ):
        microtorch.einsum("ij,jk->ik", a)
    with pytest.raises(
        RuntimeError, match=r"einsum: 'ijk' names 3 dims for an operand of shape \(2, 3\)"
    ):
        microtorch.einsum("ijk->i", a)
    with pytest.raises(
        RuntimeError,
        match=r"einsum: .*label 'j'.*equation 'ij,jk', operand shapes \(2, 3\), \(4, 2\)",
    ):
        microtorch.einsum("ij,jk", a, microtorch.ones(4, 2))
    with pytest.raises(RuntimeError, match=r"einsum: '\.\.\.ijk' names 3 dims besides '\.\.\.'"):
        microtorch.einsum("...ijk->i", a)


def test_arange_with_a_step_that_never_reaches_the_end() -> None:
    with pytest.raises(RuntimeError, match=r"arange: start 0, end -1 and step 0.3 give no range"):
        microtorch.arange(0, -1, 0.3)
    with pytest.raises(RuntimeError, match=r"the step must be non-zero"):
        microtorch.arange(0, 5, 0)
    assert microtorch.arange(5, 5).shape == (0,)  # an empty range is fine


def test_in_place_ops_never_cast_a_result_down_a_kind() -> None:
    """As in PyTorch: x += 0.5 on an integer tensor, or mask += 1 on a bool one, raises
    instead of silently truncating the result into the tensor's dtype."""
    counts, mask = microtorch.tensor([1, 2]), microtorch.tensor([True, False])
    with pytest.raises(RuntimeError, match=r"result type microtorch.float32 can't be cast to"):
        counts += 0.5
    with pytest.raises(RuntimeError, match=r"result type microtorch.int64 can't be cast to the "):
        mask += 1
    with pytest.raises(RuntimeError, match=r"desired output type microtorch.bool"):
        mask.mul_(microtorch.tensor([2, 3]))
    counts += microtorch.tensor([True, False])  # up a kind is fine: bool into int64
    mask &= microtorch.tensor([False, True])  # and bool into bool
    assert counts.tolist() == [2, 2] and mask.tolist() == [False, False]


def test_a_bool_tensor_to_a_python_bool_power_stays_bool_as_in_pytorch() -> None:
    mask = microtorch.tensor([True, False])
    assert (mask**True).dtype is microtorch.bool and (mask**True).tolist() == [True, False]
    assert (mask**False).tolist() == [True, True]
    assert (mask**2).dtype is microtorch.int64 and (mask**2).tolist() == [1, 0]


def test_sign_of_bools_is_themselves_and_floor_refuses_them_as_in_pytorch() -> None:
    mask = microtorch.tensor([True, False])
    assert mask.sign().dtype is microtorch.bool and mask.sign().tolist() == [True, False]
    with pytest.raises(NotImplementedError, match="floor: not supported for bool tensors"):
        mask.floor()
    for how in ("ceil", "round", "trunc"):  # NotImplementedError, PyTorch's type, for all four
        with pytest.raises(NotImplementedError, match=f"{how}: not supported for bool"):
            getattr(mask, how)()
    torch = pytest.importorskip("torch")
    for how in ("floor", "ceil", "round", "trunc"):
        with pytest.raises(NotImplementedError):
            getattr(torch.tensor([True, False]), how)()


def test_integer_division_by_zero_raises_as_in_pytorch() -> None:
    t = microtorch.tensor([5, -7])
    with pytest.raises(RuntimeError, match=r"floor_divide: integer division by zero"):
        t // 0
    with pytest.raises(RuntimeError, match=r"remainder: integer division by zero"):
        t % microtorch.tensor([3, 0])
    with pytest.raises(RuntimeError, match=r"floor_divide: integer division by zero"):
        7 // microtorch.tensor([0, 1])
    # float division by zero is inf or nan, as in PyTorch (and NumPy)
    assert (t.float() // 0).tolist() == [float("inf"), float("-inf")]
    assert (t // 2.5).tolist() == [2.0, -3.0]
    # an empty result divides nothing, so nothing raises (as in PyTorch)
    assert (microtorch.zeros(0, dtype=microtorch.int64) // 0).shape == (0,)
    empty = microtorch.zeros(1, 0, dtype=microtorch.int16)
    assert microtorch.fmod(empty, microtorch.tensor(False)).shape == (1, 0)


@pytest.mark.parametrize(
    "op, call, error",
    [
        (
            "lerp",
            lambda: microtorch.lerp(microtorch.ones(3), microtorch.ones(4), 0.5),
            RuntimeError,
        ),
        (  # end and weight each broadcast with input, but not with each other
            "lerp",
            lambda: microtorch.lerp(
                microtorch.ones(1, 5), microtorch.ones(3, 1, 5), microtorch.ones(2, 1, 1)
            ),
            RuntimeError,
        ),
        (
            "ldexp",
            lambda: microtorch.ldexp(microtorch.ones(3), microtorch.ones(4).long()),
            RuntimeError,
        ),
        (
            "float_power",
            lambda: microtorch.float_power(microtorch.ones(3), microtorch.ones(2)),
            RuntimeError,
        ),
        ("nansum", lambda: microtorch.nansum(microtorch.ones(3), 2), IndexError),
        ("var_mean", lambda: microtorch.var_mean(microtorch.ones(3), 1), IndexError),
        ("std_mean", lambda: microtorch.std_mean(microtorch.ones(2, 3), -3), IndexError),
        ("aminmax", lambda: microtorch.aminmax(microtorch.ones(3), dim=1), IndexError),
        ("nanmedian", lambda: microtorch.nanmedian(microtorch.tensor([1, 2]), 1), IndexError),
        ("std", lambda: microtorch.std(microtorch.ones(3), 2), IndexError),
        ("nanmean", lambda: microtorch.nanmean(microtorch.ones(3), 2), IndexError),
        ("norm", lambda: microtorch.norm(microtorch.ones(3), dim=2), IndexError),
        ("aminmax", lambda: microtorch.aminmax(microtorch.ones(3, 0), dim=1), IndexError),
        ("take", lambda: microtorch.take(microtorch.ones(3), microtorch.tensor([3])), IndexError),
        (
            "take_along_dim",
            lambda: microtorch.take_along_dim(
                microtorch.ones(3, 4), microtorch.zeros(2, 4, dtype=microtorch.long), 1
            ),
            RuntimeError,
        ),
        (
            "masked_select",
            lambda: microtorch.masked_select(
                microtorch.ones(3, 4), microtorch.zeros(5, 1, dtype=microtorch.bool)
            ),
            RuntimeError,
        ),  # fmt: skip
        # a bool input: the dim is checked first, as in PyTorch (then NotImplementedError)
        ("median", lambda: microtorch.median(microtorch.tensor([False]), 1), IndexError),
        (
            "nanmedian",
            lambda: microtorch.nanmedian(microtorch.zeros(3, 0, 2, dtype=microtorch.bool), -2),
            IndexError,
        ),  # fmt: skip
        ("add_", lambda: microtorch.ones(3).add_(microtorch.ones(2, 3)), RuntimeError),
        ("mul_", lambda: microtorch.ones(3, dtype=microtorch.int8).mul_(1.5), RuntimeError),
    ],
)
def test_errors_of_ops_built_on_others_name_the_op_called(op, call, error) -> None:
    """An op made of others (nansum of sum, lerp of sub...) reports its own name, and
    raises the error type PyTorch does."""
    with pytest.raises(error, match=op):
        call()


def test_cross_entropy_other_errors() -> None:
    logits = microtorch.zeros(3, 5)
    with pytest.raises(ValueError, match=r"cross_entropy: input of shape \(3, 5\) and target of "
                       r"shape \(2,\) have different batch sizes"):  # fmt: skip
        F.cross_entropy(logits, microtorch.tensor([0, 1]))  # a ValueError in PyTorch too
    with pytest.raises(RuntimeError, match=r"probabilities must have the input's shape \(3, 5\)"):
        F.cross_entropy(logits, microtorch.tensor([0.0, 1.0, 1.0]))  # floats: probabilities
    with pytest.raises(RuntimeError, match="nll_loss: expected target of class indices"):
        F.nll_loss(logits, microtorch.tensor([0.0, 1.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"cross_entropy: input must have a dim of classes"):
        F.cross_entropy(microtorch.tensor(1.0), microtorch.tensor(0))
    with pytest.raises(ValueError, match=r"\(5,\) and target of shape \(2,\) have different"):
        F.nll_loss(logits[0], microtorch.tensor([0, 1]))  # one sample: a 0-d target
    assert F.nll_loss(logits[0], microtorch.tensor([3])).shape == ()  # (1,): PyTorch takes it
    with pytest.raises(ValueError, match="cross_entropy: reduction must be"):
        F.cross_entropy(logits, microtorch.tensor([0, 1, 1]), reduction="avg")
    with pytest.raises(
        RuntimeError, match=r"weight must be a float tensor of shape \(5,\).*\(4,\)"
    ):
        F.cross_entropy(logits, microtorch.tensor([0, 1, 1]), weight=microtorch.ones(4))
    with pytest.raises(RuntimeError, match=r"layer_norm: .*same dtype, got .*float32, .*float64"):
        F.layer_norm(logits, (5,), weight=microtorch.ones(5, dtype=microtorch.float64))


def test_view_of_incompatible_size() -> None:
    with pytest.raises(
        RuntimeError, match=re.escape("view: shape '[4, 4]' is invalid for input of size 6")
    ):
        microtorch.ones(2, 3).view(4, 4)
    with pytest.raises(
        RuntimeError, match=r"reshape: shape '\[5, -1\]' is invalid for input of size 6"
    ):
        microtorch.ones(2, 3).reshape(5, -1)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        microtorch.ones(2, 3).view(-1, -1)


@pytest.mark.skipif(cuda_available(), reason="this machine has CUDA")
@pytest.mark.parametrize(
    "ask",
    [
        lambda: microtorch.zeros(2, device="cuda"),
        lambda: microtorch.tensor([1.0], device="cuda"),
        lambda: microtorch.randn(2, device="cuda"),
        lambda: microtorch.ones(2).to("cuda"),
        lambda: microtorch.ones(2).cuda(),
        lambda: microtorch.set_default_device("cuda"),
        lambda: microtorch.arange(3, device=microtorch.device("cuda")),
    ],
    ids=["zeros", "tensor", "randn", "to", "cuda", "set_default_device", "arange"],
)
def test_cuda_without_cupy_says_how_to_install(ask) -> None:
    with pytest.raises(RuntimeError, match=re.escape('pip install -e ".[cuda]"')):
        ask()
    assert microtorch.get_default_device() == "cpu"  # no silent switch, no silent fallback
    assert not microtorch.cuda.is_available()


def test_cuda_with_cupy_but_no_gpu_also_says_how_to_install(monkeypatch) -> None:
    fake_cupy = types.ModuleType("cupy")
    fake_cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 0))
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(backend, "_cupy", None)
    monkeypatch.setattr(backend, "_cupy_error", None)
    with pytest.raises(RuntimeError, match=r"sees no CUDA GPU.*pip install -e \"\.\[cuda\]\""):
        microtorch.zeros(1, device="cuda")


class _FakeGpuArray(np.ndarray):
    """A NumPy array that says it lives on cuda:0: lets the CPU-only test suite check the
    mixed-device errors (the real thing runs in test_mixed_devices_on_a_real_gpu)."""


@pytest.fixture
def on_fake_gpu(monkeypatch):
    real_device_of = backend.device_of

    def device_of(array):
        if isinstance(array, _FakeGpuArray):
            return backend.device("cuda:0")
        return real_device_of(array)

    monkeypatch.setattr(backend, "device_of", device_of)
    return lambda t: microtorch.Tensor._make(t.array.view(_FakeGpuArray))


def test_ops_mixing_devices_name_the_op_and_both_devices(on_fake_gpu) -> None:
    cpu = microtorch.ones(2, 2)
    gpu = on_fake_gpu(microtorch.ones(2, 2))
    assert gpu.device == "cuda:0"
    for op, name in [
        (lambda: cpu + gpu, "Add"),
        (lambda: gpu * cpu, "Mul"),
        (lambda: cpu @ gpu, "Matmul"),
        (lambda: microtorch.cat([cpu, gpu]), "Cat"),
        (lambda: microtorch.maximum(cpu, gpu), "Maximum"),
    ]:
        with pytest.raises(RuntimeError) as info:
            op()
        message = str(info.value)
        assert message.startswith(name) and "same device" in message
        assert "cpu" in message and "cuda:0" in message


def test_indexing_and_masks_on_other_devices(on_fake_gpu) -> None:
    t = microtorch.ones(3)
    gpu_index = on_fake_gpu(microtorch.tensor([0, 1]))
    gpu_mask = on_fake_gpu(microtorch.tensor([True, False, True]))
    with pytest.raises(
        RuntimeError, match="index: indices are on cuda:0 but the indexed tensor is on cpu"
    ):
        t[gpu_index]
    with pytest.raises(
        RuntimeError, match="masked_fill: mask is on cuda:0 but the input is on cpu"
    ):
        t.masked_fill(gpu_mask, 0.0)
    with pytest.raises(RuntimeError, match="setitem: value is on cuda:0 but the tensor is on cpu"):
        t[0:2] = on_fake_gpu(microtorch.zeros(2))
    with pytest.raises(
        RuntimeError, match="embedding: indices are on cuda:0 but the weight is on cpu"
    ):
        F.embedding(gpu_index, microtorch.ones(3, 2))


def test_cpu_index_tensors_index_a_gpu_tensor_as_in_pytorch(device: str) -> None:
    """PyTorch copies CPU index tensors to the indexed tensor's GPU (the other way round is
    an error, above); reading, writing and the gradient all work."""
    x = microtorch.arange(5.0, device=device, requires_grad=True)
    index, mask = microtorch.tensor([4, 0, 0]), microtorch.tensor([True, False, True, False, True])
    picked = x[index]
    assert picked.device == x.device and picked.tolist() == [4.0, 0.0, 0.0]
    assert x[mask].tolist() == [0.0, 2.0, 4.0]
    picked.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 0.0, 0.0, 1.0]
    y = microtorch.zeros(5, device=device)
    y[index] = 7.0
    y[mask & (microtorch.arange(5) > 0)] = 1.0
    assert y.tolist() == [7.0, 0.0, 1.0, 0.0, 1.0]


@requires_cuda
def test_mixed_devices_on_a_real_gpu() -> None:
    with pytest.raises(RuntimeError, match=r"Add: .*same device.*cpu.*cuda:0"):
        microtorch.ones(2) + microtorch.ones(2, device="cuda")


def test_unknown_device() -> None:
    # RuntimeError, as PyTorch's device parser raises
    with pytest.raises(
        RuntimeError, match="unknown device 'gpu'; microtorch knows 'cpu' and 'cuda'"
    ):
        microtorch.zeros(2, device="gpu")


@pytest.mark.parametrize(
    "bad, error, pattern",
    [
        (
            lambda: microtorch.ones(2, 3) + microtorch.ones(4),
            RuntimeError,
            r"add: shapes \(2, 3\) and \(4,\) cannot be broadcast together \(3 != 4",
        ),
        (
            lambda: microtorch.ones(2).pow(microtorch.ones(3)),
            RuntimeError,
            r"pow: shapes \(2,\) and \(3,\)",
        ),
        (
            lambda: microtorch.where(
                microtorch.ones(5, dtype=microtorch.bool), microtorch.ones(2, 3), 0.0
            ),
            RuntimeError,
            r"where: shapes \(5,\) and \(2, 3\)",
        ),
        (
            lambda: microtorch.where(microtorch.ones(2), microtorch.ones(2), 0.0),
            RuntimeError,  # as in PyTorch
            "where: condition must be a bool tensor",
        ),
        (
            lambda: microtorch.ones(2, 3).sum(dim=5),
            IndexError,
            r"sum: dimension 5 is out of range for a tensor of 2 dims \(expected to be in range of \[-2, 1\]\)",
        ),
        (
            lambda: microtorch.ones(2, 3).transpose(0, 2),
            IndexError,
            "transpose: dimension 2 is out of range",
        ),
        (
            lambda: microtorch.ones(2, 3).softmax(3),
            IndexError,
            "softmax: dimension 3 is out of range",
        ),
        (lambda: microtorch.ones(3)[5], IndexError, r"index 5 is out of bounds.*shape \(3,\)"),
        (
            lambda: microtorch.ones(3)[microtorch.tensor([0.0])],
            IndexError,
            "tensors used as indices must be long, int, byte or bool tensors",
        ),
        (
            lambda: microtorch.ones(3)[microtorch.tensor([0], dtype=microtorch.int16)],
            IndexError,  # as in PyTorch, which takes int64, int32, uint8 (a mask) and bool
            "tensors used as indices must be long, int, byte or bool tensors, got .*int16",
        ),
        (
            lambda: microtorch.ones(2, 3).gather(1, microtorch.tensor([[5], [0]])),
            RuntimeError,  # as in PyTorch (x[index] raises IndexError)
            r"gather: an index is out of bounds for dimension 1 with size 3",
        ),
        (
            lambda: microtorch.stack([microtorch.ones(2), microtorch.ones(3)]),
            RuntimeError,
            r"stack: expects each tensor to be equal size, but got \(2,\) at entry 0 and \(3,\) at entry 1",
        ),
        (
            lambda: microtorch.cat([microtorch.ones(2, 3), microtorch.ones(2, 4)]),
            RuntimeError,
            r"cat: sizes of tensors must match except in dimension 0.*\(2, 3\).*\(2, 4\)",
        ),
        (
            lambda: microtorch.cat([microtorch.tensor(1.0)]),
            RuntimeError,
            "cat: zero-dimensional tensor",
        ),
        (
            lambda: microtorch.ones(2, 3).expand(4, 3),
            RuntimeError,
            "expand: the expanded size of the tensor",
        ),
        (
            lambda: microtorch.ones(2, 3).permute(0, 0),
            RuntimeError,
            "permute: dims .* are not a permutation",
        ),
        (lambda: microtorch.ones(2, 3).split([1, 1], dim=1), RuntimeError, "split: split sizes"),
        (
            lambda: microtorch.ones(3).tril(),
            RuntimeError,
            "tril: input tensor must have at least 2 dimensions",
        ),
        (
            lambda: microtorch.ones(2).masked_fill(microtorch.ones(2), 0.0),
            RuntimeError,
            "masked_fill: expected a bool mask",
        ),
        (lambda: microtorch.tensor([1, 2]).mean(), RuntimeError, "mean.*floating point.*float"),
        (lambda: -microtorch.tensor([True]), RuntimeError, "neg: .*bool tensor.*logical_not"),
        (lambda: 1 - microtorch.tensor([True]), RuntimeError, "sub: .*bool tensor.*logical_not"),
        (lambda: True - microtorch.ones(2), RuntimeError, "sub: .*bool.*logical_not"),
        (lambda: microtorch.ones(2) - True, RuntimeError, "sub: .*bool.*logical_not"),
        (
            lambda: microtorch.tensor([True]) ** microtorch.tensor([True]),
            RuntimeError,
            r"pow: not implemented for bool operands.*\.long\(\)",
        ),
        (lambda: True ** microtorch.tensor([True]), RuntimeError, "pow: not implemented for bool"),
        (
            lambda: microtorch.tensor([True]) // True,
            RuntimeError,
            "floor_divide: not implemented for bool",
        ),
        (
            lambda: microtorch.tensor(True) % microtorch.tensor([True]),
            RuntimeError,
            "remainder: not implemented for bool",
        ),
        (
            lambda: microtorch.div(
                microtorch.tensor([True]), microtorch.tensor([True]), rounding_mode="trunc"
            ),
            RuntimeError,
            "div: not implemented for bool",
        ),
        (
            lambda: microtorch.ones(2) & microtorch.tensor([True, False]),
            NotImplementedError,  # PyTorch's type; ~ on floats is its TypeError, as here
            "bitwise_and: `&` works on integer and bool tensors, got microtorch.float32.*"
            r"logical_and\(\)",
        ),
        (
            lambda: microtorch.tensor([3]) | 1.5,
            NotImplementedError,
            "bitwise_or: .*a Python float",
        ),
        (lambda: ~microtorch.ones(2), TypeError, "bitwise_not: `~` .*logical_not"),
        (
            lambda: microtorch.ones(2) + None,
            TypeError,
            "add: unsupported operand types Tensor and NoneType",
        ),
        (
            lambda: microtorch.ones(2, 3).item(),
            RuntimeError,
            "a Tensor with 6 elements cannot be converted",
        ),
        (
            lambda: microtorch.ones(3).add_(microtorch.ones(2, 3)),
            RuntimeError,
            r"in-place op: output with shape \[3\] doesn't match the broadcast shape \[2, 3\]",
        ),
        (
            lambda: microtorch.ones(3, dtype=microtorch.long).add_(1.5),
            RuntimeError,
            "in-place op: result type microtorch.float32 can't be cast",
        ),
        (lambda: microtorch.zeros(0).max(), RuntimeError, "max\\(\\): expected a non-empty tensor"),
        (
            lambda: microtorch.mm(microtorch.ones(2, 3, 4), microtorch.ones(4, 2)),
            RuntimeError,
            r"mm: both arguments must be 2-D matrices, got shapes \(2, 3, 4\) and \(4, 2\); matmul",
        ),
        (
            lambda: microtorch.ones(2, 3, 4).bmm(microtorch.ones(1, 4, 5)),
            RuntimeError,
            r"bmm: the batch sizes differ: shapes \(2, 3, 4\) and \(1, 4, 5\)",
        ),
        (
            lambda: microtorch.ones(2, 3, 4).t(),
            RuntimeError,
            r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D.*\.mT",
        ),
        (
            lambda: microtorch.ones(6).reshape(2, 3.5),  # not silently (2, 3)
            TypeError,
            r"reshape\(\): argument 'shape' must be a tuple of ints, but found element of type "
            r"float at pos 1 \(shape \(2, 3.5\)\)",
        ),
        (
            lambda: microtorch.ones(2, 3).sum(dim=1.0),
            TypeError,
            r"sum: dim must be an int, got float 1.0",
        ),
        (
            lambda: microtorch.ones(4, 2).chunk(2.0),
            TypeError,
            r"chunk\(\): argument 'chunks' must be a tuple of ints",
        ),
        (
            lambda: microtorch.ones(3, 3).tril(0.5),  # not silently tril(0)
            TypeError,
            r"tril\(\): argument 'diagonal' must be int, not float",
        ),
        (
            lambda: microtorch.tensor([3e9], dtype=microtorch.int32),  # not silently wrapped
            RuntimeError,
            r"tensor: value 3000000000.0 cannot be converted to type microtorch.int32 without "
            "overflow",
        ),
        (
            lambda: microtorch.tensor([2**63], dtype=microtorch.int64),
            ValueError,  # PyTorch's type here: "Overflow when unpacking long long"
            r"tensor: the Python int 9223372036854775808 does not fit int64",
        ),
        (
            lambda: microtorch.zeros(2.5),
            TypeError,
            r"zeros\(\): argument 'size' must be a tuple of ints, but found element of type float",
        ),
        (
            lambda: microtorch.randn(2, -3),
            RuntimeError,
            r"randn\(\): dimension sizes must be non-negative, got \(2, -3\)",
        ),
        (
            lambda: microtorch.trace(microtorch.ones(3)),  # with a tensor: PyTorch's trace
            RuntimeError,
            r"trace: expected a matrix, got shape \(3,\)",
        ),
        (
            lambda: microtorch.addmm(
                microtorch.ones(3, 3), microtorch.ones(2, 2), microtorch.ones(2, 2)
            ),
            RuntimeError,
            r"addmm: input of shape \(3, 3\) cannot be broadcast to the shape of the product, \(2, 2\)",
        ),
        (
            lambda: microtorch.addcdiv(
                microtorch.ones(2), microtorch.arange(2), microtorch.arange(2)
            ),
            RuntimeError,
            r"addcdiv: integer division is not supported \(tensor1 is microtorch.int64",
        ),
        (
            lambda: microtorch.tensordot(microtorch.ones(2, 3), microtorch.ones(2, 2), ([1], [0])),
            RuntimeError,
            r"tensordot: contracted dims must match in size, but dim 1 of a has 3 and dim 0 of b has 2",
        ),
        (
            lambda: microtorch.cross(microtorch.ones(2, 4), microtorch.ones(2, 4), dim=1),
            RuntimeError,
            r"cross: dim 1 must have size 3, got shapes \(2, 4\) and \(2, 4\)",
        ),
        (
            lambda: microtorch.hsplit(microtorch.ones(2, 3), 2),
            RuntimeError,
            r"hsplit: cannot split dim 1 of size 3 into 2 equal pieces",
        ),
        (
            lambda: microtorch.rot90(microtorch.ones(2, 3), 1, [0, -2]),
            RuntimeError,
            r"rot90: the rotation dims must differ, got dims=\[0, -2\]",
        ),
        (
            lambda: microtorch.kthvalue(microtorch.ones(2, 3), 4),
            RuntimeError,
            r"kthvalue: k \(4\) is out of range for dim 1 of size 3",
        ),
        (
            lambda: microtorch.searchsorted(microtorch.ones(2, 3), microtorch.ones(3, 1)),
            RuntimeError,
            r"searchsorted: sorted_sequence must be 1-D or share all but the last dim with input, "
            r"got shapes \(2, 3\) and \(3, 1\)",
        ),
        (
            lambda: microtorch.ones(2, 3).index_fill(1, microtorch.tensor([3]), 0.0),
            IndexError,
            r"index_fill: an index is out of bounds for dimension 1 with size 3",
        ),
        (
            lambda: microtorch.ones(2, 3).index_copy(
                1, microtorch.tensor([0]), microtorch.ones(2, 2)
            ),
            IndexError,
            r"index_copy: source of shape \(2, 2\) does not fit: .* it must be \(2, 1\)",
        ),
        (
            lambda: microtorch.ones(2, 3).select(1, 3),
            IndexError,
            r"select: index 3 is out of range for dim 1 of size 3 \(shape \(2, 3\)\)",
        ),
        (
            lambda: microtorch.meshgrid(microtorch.arange(2), microtorch.ones(2), indexing="ij"),
            RuntimeError,
            r"meshgrid: all tensors must have the same dtype and device",
        ),
        (
            lambda: microtorch.zeros(2, 3).scatter(
                1, microtorch.tensor([[0], [5]]), microtorch.ones(2, 1)
            ),
            RuntimeError,  # as in PyTorch
            "scatter: an index is out of bounds for dimension 1 with size 3",
        ),
        (
            lambda: microtorch.zeros(2, 3).scatter(
                1, microtorch.tensor([0, 1]), microtorch.ones(2)
            ),
            RuntimeError,
            r"scatter: index of shape \(2,\) must have as many dims as input \(2, 3\)",
        ),
        (
            lambda: microtorch.zeros(2, 3).index_add(
                1, microtorch.tensor([0, 1]), microtorch.ones(2, 3)
            ),
            RuntimeError,
            r"index_add: source of shape \(2, 3\) does not fit.*it must be \(2, 2\)",
        ),
    ],
)
def test_core_errors(bad, error, pattern) -> None:
    with pytest.raises(error, match=pattern):
        bad()


@pytest.mark.parametrize(
    "bad, error, pattern",
    [
        (
            lambda: F.embedding(microtorch.tensor([5]), microtorch.ones(3, 2)),
            IndexError,
            r"embedding: index 5 is out of range for an embedding of 3 rows",
        ),
        (
            lambda: F.embedding(microtorch.tensor([1.0]), microtorch.ones(3, 2)),
            RuntimeError,
            r"embedding: indices must be an int64 \(long\) or int32 tensor",
        ),
        (
            lambda: F.embedding(microtorch.tensor([1]).to(microtorch.uint8), microtorch.ones(3, 2)),
            RuntimeError,  # PyTorch too: "one of the following scalar types: Long, Int"
            r"embedding: indices must be an int64 \(long\) or int32 tensor, got microtorch.uint8",
        ),
        (
            lambda: F.layer_norm(microtorch.ones(2, 3), (4,)),
            RuntimeError,
            r"layer_norm: input of shape \(2, 3\) does not end in normalized_shape \[4\]",
        ),
        (
            lambda: F.layer_norm(microtorch.ones(2, 3), (3,), microtorch.ones(4)),
            RuntimeError,
            r"layer_norm: weight of shape \(4,\) does not match",
        ),
        (
            lambda: F.linear(microtorch.ones(2, 3), microtorch.ones(4, 5)),
            RuntimeError,
            r"linear: input of shape \(2, 3\) cannot be multiplied by weight\^T of weight shape \(4, 5\)",
        ),
        (
            lambda: F.linear(microtorch.ones(2, 3), microtorch.ones(4, 3), microtorch.ones(3)),
            RuntimeError,
            r"linear: bias of shape \(3,\)",
        ),
        (
            lambda: F.linear(
                microtorch.ones(2, 3), microtorch.ones(4, 3, dtype=microtorch.float64)
            ),
            RuntimeError,
            "linear: input, weight and bias must have the same dtype",
        ),
        (
            lambda: F.dropout(microtorch.ones(2), 1.5),
            ValueError,
            "dropout: probability has to be between 0 and 1",
        ),
        (
            lambda: F.gelu(microtorch.ones(2), approximate="fast"),
            RuntimeError,
            "gelu: approximate must be",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(2, 3), microtorch.ones(2, 4), microtorch.ones(2, 3)
            ),
            RuntimeError,
            r"scaled_dot_product_attention: query \(2, 3\), key \(2, 4\) and value \(2, 3\) do not fit",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(2, 3),
                microtorch.ones(2, 3),
                microtorch.ones(2, 3),
                attn_mask=microtorch.ones(3, 3, dtype=microtorch.bool),
            ),
            RuntimeError,
            r"attn_mask: shapes \(2, 2\) and \(3, 3\)",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(2, 3),
                microtorch.ones(2, 3),
                microtorch.ones(2, 3),
                attn_mask=microtorch.ones(2, 2, dtype=microtorch.bool),
                is_causal=True,
            ),
            RuntimeError,
            "pass either attn_mask or is_causal",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(2, 3),
                microtorch.ones(2, 3, dtype=microtorch.float64),
                microtorch.ones(2, 3),
            ),
            RuntimeError,
            "query, key and value must have the same dtype",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(2, 3, dtype=microtorch.int64),
                microtorch.ones(2, 3, dtype=microtorch.int64),
                microtorch.ones(2, 3, dtype=microtorch.int64),
            ),
            RuntimeError,
            "scaled_dot_product_attention: query, key and value must be floating point, got "
            "microtorch.int64",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(2, 3),
                microtorch.ones(2, 3),
                microtorch.ones(2, 3),
                attn_mask=microtorch.ones(2, 2, dtype=microtorch.int64),
            ),
            RuntimeError,
            "attn_mask must be bool .* or floating point .*, got microtorch.int64",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(1, 5, 2),
                microtorch.ones(1, 3, 2),
                microtorch.ones(1, 3, 2),
                attn_mask=microtorch.ones(2, 5, 3, dtype=microtorch.bool),  # would grow batch
            ),
            RuntimeError,
            r"attn_mask of shape \(2, 5, 3\) does not broadcast to the scores' shape \(1, 5, 3\)",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(2, 6, 3, 4),
                microtorch.ones(2, 2, 3, 4),
                microtorch.ones(2, 2, 3, 4),
            ),
            RuntimeError,
            r"batch dims of query \(2, 6, 3, 4\), key \(2, 2, 3, 4\).*pass enable_gqa=True",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                microtorch.ones(6, 3, 4),
                microtorch.ones(4, 3, 4),
                microtorch.ones(4, 3, 4),
                enable_gqa=True,
            ),
            RuntimeError,
            r"enable_gqa=True: key \(4, 3, 4\) needs a heads dim \(-3\) whose size divides query's 6",
        ),
        (
            lambda: F.pad(microtorch.ones(2, 3), (1, 1, 1)),
            RuntimeError,
            r"pad: \(1, 1, 1\) must be \(left, right\) pairs, at most one per dim.*\(2, 3\)",
        ),
        (
            lambda: F.pad(microtorch.ones(2, 3), (-2, -2)),
            RuntimeError,
            r"pad: \(-2, -2\) takes more than the 3 elements of dim 1 away",
        ),
        (
            lambda: F.one_hot(microtorch.tensor([0, 3]), 3),  # not a row of zeros
            RuntimeError,  # (PyTorch's type)
            r"one_hot: index 3 is out of range for one_hot with num_classes=3 \(expected 0..2\)",
        ),
        (
            lambda: F.one_hot(microtorch.tensor([0.0, 1.0])),
            RuntimeError,
            r"one_hot: expects an index tensor of dtype long \(int64\), got microtorch.float32",
        ),
    ],
)
def test_nn_functional_errors(bad, error, pattern) -> None:
    with pytest.raises(error, match=pattern):
        bad()


# calls from PyTorch's OpInfo error inputs (tests/test_opinfo_errors_torch.py), and from
# op_db's valid samples given wrong dtypes, that microtorch answered with another error
# type, none, or a message naming another op:
# (the call with T for the library and x = T.ones(2, 3), the error, microtorch's message)
PYTORCH_ERRORS = [
    ("T.nn.functional.gelu(x, approximate='fast')", RuntimeError, "gelu: approximate must"),
    ("T.nn.functional.adaptive_avg_pool2d(T.ones(2, 2), (2, 2))", ValueError, "at least 3 dims"),
    ("T.nn.functional.adaptive_avg_pool3d(x, (1, 1, 1))", ValueError, "at least 4 dims"),
    ("T.masked_fill(x, T.tensor(True), 1j)", RuntimeError, "masked_fill: value 1j cannot be"),
    ("x.fill_(1j)", RuntimeError, "fill_: value 1j cannot be converted"),
    ("T.narrow(x, 1, T.tensor([0, 1]), 1)", RuntimeError, "narrow: start must be an 0-dim"),
    ("T.narrow(x, 1, T.tensor(True), 1)", RuntimeError, "narrow: start must be an 0-dim"),
    ("T.narrow_copy(x, 2, 0, 1)", RuntimeError, "narrow_copy: dim 2 is out of range"),
    ("T.unbind(T.tensor(1.0))", IndexError, "unbind: dimension 0 specified, but a 0-d"),
    ("T.hsplit(x, 'abc')", TypeError, "hsplit.*indices_or_sections must be an int"),
    (
        "T.nn.functional.embedding(T.tensor([0]), T.tensor(1.0))",
        RuntimeError,
        "'weight' must be 2-D",
    ),
    ("T.linalg.cross(T.ones(5, 3), T.ones(5, 1))", RuntimeError, "cross: dim 1 must have size 3"),
    ("T.vdot(T.ones(1), T.ones(3))", RuntimeError, "^vdot: inconsistent tensor size"),
    ("T.hstack([T.ones(5), T.ones(5, 5)])", RuntimeError, "^hstack: sizes of tensors must match"),
    ("T.dstack([x, T.ones(4, 3)])", RuntimeError, "^dstack: sizes of tensors must match"),
    ("T.linspace(T.ones(2), 1, 3)", RuntimeError, "linspace only supports 0-dimensional start"),
    ("T.logspace(0, T.ones(1, 1), 3)", RuntimeError, "logspace only supports 0-dimensional"),
    ("T.nn.functional.l1_loss(T.ones(5, 4), T.ones(5))", RuntimeError, "^l1_loss: shapes"),
    ("T.nn.functional.poisson_nll_loss(T.ones(5), T.ones(5, 4))", RuntimeError, "^poisson_nll"),
    ("T.nn.functional.gaussian_nll_loss(x, T.ones(2, 2), x)", RuntimeError, "^gaussian_nll_loss"),
    (
        "T.nn.functional.triplet_margin_loss(x, T.ones(2, 4), x)",
        RuntimeError,
        r"^triplet_margin_loss \(anchor and positive\): shapes",
    ),
    (
        "T.nn.functional.nll_loss(T.ones(0, 0), T.zeros(0, dtype=T.long), T.ones(0).half())",
        RuntimeError,
        "nll_loss: weight is microtorch.float16 but input is microtorch.float32",
    ),
    ("T.as_strided_scatter(x, x, (2, 2), (200, 200))", RuntimeError, "as_strided_scatter: size"),
    ("T.take(x, T.tensor([0, 1]), out=T.zeros(1).expand(2))", RuntimeError, r"take\(\): out="),
    ("T.nn.HuberLoss(delta=1j)", TypeError, "HuberLoss: delta must be a float or int"),
    ("T.nn.Embedding(-1, 3)", RuntimeError, "Embedding: num_embeddings and embedding_dim must"),
    ("T.nn.RNN(3, 5, bias=0)", TypeError, "RNN: bias should be of type bool, got: int"),
    ("T.nn.GRU(3, 5, batch_first='False')", TypeError, "GRU: batch_first should be of type bool"),
    ("T.nn.LSTM(-1, 5)", ValueError, "LSTM: input_size must be greater than zero"),
    ("T.nn.RNNCell(3, 2)(T.ones(4, 3), T.ones(4, 1, 1, 2))", ValueError, "RNNCell: Expected"),
    ("T.nn.GRUCell(3, 2)(T.ones(4, 3), T.ones(4, 5))", RuntimeError, "GRUCell: hidden0 has"),
    # wrong dtypes: PyTorch has no kernel for them, or can't hold the result
    ("T.cov(x.bool())", RuntimeError, r"cov\(\): bool dtype is not supported"),
    ("T.corrcoef(x.bool())", RuntimeError, r"cov\(\): bool dtype"),
    ("T.gradient(x.bool())", RuntimeError, "gradient: bool tensors are not supported"),
    ("T.trapezoid(x.bool())", RuntimeError, "trapezoid: received a bool input"),
    ("T.trapezoid(x, x.bool())", RuntimeError, "trapezoid: received a bool input"),
    ("T.quantile(x, 'abc')", TypeError, r"quantile\(\): argument 'q' must be float or Tensor"),
    ("T.full_like(x, 'abc')", TypeError, r"full_like\(\): argument 'fill_value' must be"),
    ("T.full((2,), 'abc')", TypeError, r"full\(\): argument 'fill_value' must be Number"),
    ("T.index_copy(x, 0, T.tensor([0.0]), T.ones(1, 3))", RuntimeError, "index_copy: index"),
    ("T.index_fill(x, 0, T.tensor([0.0]), 1.0)", IndexError, "index_fill: index must be"),
    ("T.nn.functional.pairwise_distance(x.bool(), x)", RuntimeError, "pairwise_distance: x1"),
    ("T.nn.functional.nll_loss(x.long(), T.tensor([0, 1]))", NotImplementedError, "^nll_loss"),
    ("T.nn.functional.huber_loss(x.long(), x)", RuntimeError, "^huber_loss: result type"),
    ("T.nn.functional.mse_loss(x.long(), x.long())", NotImplementedError, "^mse_loss: not"),
    ("T.nn.functional.smooth_l1_loss(x.long(), x.long())", NotImplementedError, "^smooth_l1"),
    ("T.nn.functional.soft_margin_loss(x.long(), x)", RuntimeError, "^soft_margin_loss: result"),
    ("T.nn.functional.avg_pool1d(x[None].bool(), 1)", NotImplementedError, "^avg_pool1d: not"),
    ("T.nn.functional.unfold(T.ones(1, 1, 2, 2).long(), 1)", NotImplementedError, "^unfold: not"),
    ("T.nn.functional.fold(T.ones(1, 1, 4).long(), (2, 2), 1)", NotImplementedError, "^fold: not"),
    ("T.mm(x.long(), x.T)", RuntimeError, "^mm: expected both arguments to have the same dtype"),
    ("T.bmm(x[None].long(), x.T[None])", RuntimeError, "^bmm: expected both arguments"),
    ("T.mv(x.long(), x[0])", RuntimeError, "^mv: expected both arguments to have the same"),
    ("T.dot(x[0].long(), x[0])", RuntimeError, "^dot: expected both arguments to have the same"),
    ("T.nn.functional.conv1d(x[None].bool(), T.ones(1, 2, 1))", NotImplementedError, "^conv1d"),
    (
        "T.nn.functional.binary_cross_entropy_with_logits(x.long(), x)",
        NotImplementedError,
        "^binary_cross_entropy_with_logits: not implemented",
    ),
    (
        "T.nn.functional.ctc_loss(T.ones(3, 1, 2).long(), T.ones(1, 1).long(), [3], [1])",
        NotImplementedError,
        "^ctc_loss: log_probs must be floating point",
    ),
    (
        "T.nn.functional.grid_sample(T.ones(1, 1, 2, 2).long(), T.ones(1, 1, 1, 2))",
        NotImplementedError,
        r"^grid_sampler\(\): not implemented",
    ),
    ("T.take_along_dim(x, T.zeros(1, 3).int(), 0)", RuntimeError, "^take_along_dim: dtype"),
    ("T.nn.functional.one_hot(T.tensor([3]), 2)", RuntimeError, "^one_hot: index 3 is out"),
    ("T.nn.functional.one_hot(T.tensor([-1]), 3)", RuntimeError, "^one_hot: index -1 is out"),
    ("T.round(x, decimals=1.5)", TypeError, r"^round\(\): argument 'decimals' must be int"),
    ("T.index_fill(x, 0, T.tensor([1]), T.ones(1))", RuntimeError, "^index_fill only supports a 0"),
    # shapes that do not broadcast, or a dim out of range: the error names the op called
    ("T.addcmul(T.ones(2, 4), x, x)", RuntimeError, "^addcmul: shapes"),
    ("T.addcdiv(x, T.ones(2, 4), x)", RuntimeError, "^addcdiv: shapes"),
    ("T.cross(T.ones(2, 3), T.ones(2, 4), dim=1)", RuntimeError, "^cross: shapes"),
    ("T.select_scatter(x, T.ones(3), 5, 0)", IndexError, "^select_scatter: dimension 5"),
    ("T.nn.functional.softmin(x, dim=3)", IndexError, "^softmin: dimension 3 is out of range"),
    ("T.nn.functional.normalize(x, dim=4)", IndexError, "^normalize: dimension 4 is out"),
    ("T.nn.functional.normalize(x.long())", RuntimeError, "^normalize: expected a floating"),
    (
        "T.nn.functional.local_response_norm(T.ones(1, 2, 3).bool(), 2)",
        NotImplementedError,
        "^local_response_norm: not implemented for bool",
    ),
    ("T.select_scatter(x, T.ones(2), 1, 7)", IndexError, "^select_scatter: index 7"),
    ("T.cartesian_prod(T.ones(2).long(), T.ones(2))", RuntimeError, "^cartesian_prod: expected"),
    ("T.nn.functional.cosine_similarity(x, T.ones(2, 4))", RuntimeError, "^cosine_similarity"),
    ("T.nn.functional.kl_div(T.ones(3), T.ones(2), reduction='sum')", RuntimeError, "^kl_div"),
    (
        "T.nn.functional.cosine_embedding_loss(x, T.ones(2, 4), T.ones(2))",
        RuntimeError,
        "^cosine_embedding_loss: shapes",
    ),
]


@needs_torch((2, 13), "the error types of its OpInfo error inputs")
@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
@pytest.mark.parametrize(
    "call, error, message", PYTORCH_ERRORS, ids=[c for c, *_ in PYTORCH_ERRORS]
)
def test_calls_pytorch_refuses_fail_with_its_error_type(library_name, call, error, message):
    """The type is PyTorch's (checked against it); microtorch's message names the op."""
    T = pytest.importorskip(library_name)
    with pytest.raises(error) as info:
        eval(call, {"T": T, "x": T.ones(2, 3)})
    if library_name == "microtorch":
        assert re.search(message, str(info.value)), str(info.value)


@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
def test_index_fill_casts_a_0d_tensor_value_to_the_input_dtype(library_name):
    """As a number is cast (-8.5 into int64 is -8), so is a 0-d tensor value (it was refused
    as a dtype mismatch); found by the op_db probe."""
    T = pytest.importorskip(library_name)
    filled = T.index_fill(T.zeros(3, dtype=T.int64), 0, T.tensor([1]), T.tensor(-8.5))
    assert filled.dtype == T.int64 and filled.tolist() == [0, -8, 0]
    value = T.tensor(2.0, dtype=T.float64, requires_grad=True)
    T.index_fill(T.zeros(3), 0, T.tensor([1, 2]), value).sum().backward()
    assert value.grad.item() == 2.0 and value.grad.dtype == T.float64


# calls PyTorch's argument parser refuses with TypeError: a number for a Tensor input, None
# for a dim typed int, out= on the form without a dim, keywords the function does not take
PARSER_REFUSED = [
    "T.max(x, dim=None)",
    "T.min(x, None, True)",
    "T.median(x, dim=None)",
    "T.nanmedian(x, None)",
    "T.prod(x, dim=None)",
    "x.max(dim=None)",
    "x.prod(dim=None)",
    "x.median(dim=None)",
    "T.prod(x, out=T.empty(0))",
    "T.median(x, out=T.empty(0))",
    "T.nanmedian(x, out=T.empty(0))",
    "T.eq(2, x)",
    "T.ne(2.0, x)",
    "T.lt(True, x)",
    "T.le(2, x)",
    "T.gt(2, x)",
    "T.ge(2, x)",
    "T.greater(2, x)",
    "T.less_equal(2, x)",
    "T.not_equal(2, x)",
    "T.linalg.pinv(x, None, True)",
    "T.linalg.pinv(x, rcond=None)",
    "x.new_tensor([1.0], pin_memory=False)",
]


@needs_torch((2, 13), "its argument parser's refusals")
@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
@pytest.mark.parametrize("call", PARSER_REFUSED)
def test_what_pytorchs_argument_parser_refuses_is_a_type_error(library_name, call):
    T = pytest.importorskip(library_name)
    with pytest.raises(TypeError):
        eval(call, {"T": T, "x": T.tensor([[1.0, 2.0], [3.0, 0.5]])})


@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
def test_the_forms_beside_the_refused_ones_still_work(library_name):
    T = pytest.importorskip(library_name)
    x = T.tensor([[1.0, 2.0], [3.0, 0.5]])
    assert T.max(x).item() == 3.0 and x.min().item() == 0.5 and T.prod(x).item() == 3.0
    assert T.median(x).item() == 1.0 and T.max(x, 1).indices.tolist() == [1, 0]
    assert T.max(x, out=T.empty(0)).item() == 3.0  # the form without a dim takes out= here
    assert T.eq(x, 2).tolist() == [[False, True], [False, False]] and (2 < x).sum().item() == 1
    assert T.linalg.pinv(x, 1e-3).shape == (2, 2) and T.linalg.pinv(x, hermitian=False) is not None
    assert T.prod(x, 0, out=T.empty(0)).tolist() == [3.0, 1.0]
    with pytest.raises(TypeError, match="input"):  # (PyTorch lists its overloads' inputs)
        T.eq(2, x)
