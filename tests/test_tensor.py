"""The Tensor API, factories, dtype rules, repr, and the seeded random functions
(manual_seed, randn, rand, randint, multinomial) plus topk and argmax."""

from __future__ import annotations

import copy
import importlib
import warnings
from typing import Any

import numpy as np
import pytest

import microtorch
from microtorch import Tensor

from .torch_reference import needs_torch, torch_before


# ------------------------------------------------------------------ dtypes of new tensors
@pytest.mark.parametrize(
    "data, dtype",
    [
        (1.5, microtorch.float32),
        ([1.0, 2.0], microtorch.float32),
        ([1, 2.5], microtorch.float32),
        (3, microtorch.int64),
        ([[1, 2], [3, 4]], microtorch.int64),
        (True, microtorch.bool),
        ([True, False], microtorch.bool),
        ([], microtorch.float32),
        (np.zeros(2, dtype=np.float64), microtorch.float64),
        (np.zeros(2, dtype=np.float16), microtorch.float16),
        (np.zeros(2, dtype=np.int32), microtorch.int32),
        (np.zeros(2, dtype=np.uint8), microtorch.uint8),
        (np.float64(2.0), microtorch.float64),
        (np.int32(2), microtorch.int32),
    ],
)
def test_tensor_dtype_follows_pytorch(data, dtype) -> None:
    assert microtorch.tensor(data).dtype is dtype


def test_python_numbers_must_fit_an_integer_dtype() -> None:
    """As in PyTorch: an unsigned dtype takes negatives down to -max (they wrap around), a
    number outside the range raises; a NumPy array is cast as NumPy casts."""
    assert microtorch.tensor([-1, 255], dtype=microtorch.uint8).tolist() == [255, 255]
    assert microtorch.tensor([127, -128], dtype=microtorch.int8).tolist() == [127, -128]
    with pytest.raises(RuntimeError, match="value 256 cannot be converted"):
        microtorch.tensor([1, 256], dtype=microtorch.uint8)
    with pytest.raises(RuntimeError, match="value -129 cannot be converted"):
        microtorch.tensor([-129], dtype=microtorch.int8)
    assert microtorch.tensor(np.array([300]), dtype=microtorch.uint8).tolist() == [44]


def test_tensor_from_tensors_and_explicit_dtype() -> None:
    assert microtorch.tensor([microtorch.tensor(1.0), microtorch.tensor(2.0)]).dtype is (
        microtorch.float32
    )
    assert microtorch.tensor([1, 2], dtype=microtorch.float64).dtype is microtorch.float64
    assert microtorch.tensor([1.7, -1.7], dtype=microtorch.long).tolist() == [1, -1]
    assert microtorch.tensor(np.ones(2), dtype=microtorch.float32).dtype is microtorch.float32


def test_tensor_of_a_list_takes_each_elements_dtype_promoted_as_in_pytorch() -> None:
    assert microtorch.tensor([np.int8(1), np.int8(2)]).dtype is microtorch.int8
    assert microtorch.tensor([np.float16(1.5)]).dtype is microtorch.float16
    assert microtorch.tensor([np.float16(1), 0.5]).dtype is microtorch.float32
    assert microtorch.tensor([np.int8(1), 3]).dtype is microtorch.int64
    assert microtorch.tensor([np.float64(0.5), 1.0]).dtype is microtorch.float64
    assert microtorch.tensor([True, 2]).dtype is microtorch.int64
    assert microtorch.tensor([[]]).dtype is microtorch.float32
    with pytest.raises(RuntimeError, match="value nan cannot be converted to type"):
        microtorch.tensor([float("nan")], dtype=microtorch.int64)


def test_arange_takes_0d_tensors_and_refuses_a_step_truncating_to_0_for_integers() -> None:
    assert microtorch.arange(microtorch.tensor(3)).tolist() == [0, 1, 2]
    assert microtorch.arange(microtorch.tensor(3)).dtype is microtorch.int64
    assert microtorch.arange(np.int64(2), 5).dtype is microtorch.int64
    assert microtorch.arange(0, 1, 0.1)[9].item() == np.float32(0.9)  # the nearest float32
    with pytest.raises(ValueError, match="the step 0.5 truncates to 0 \\(step must be nonzero"):
        microtorch.arange(0, 3, 0.5, dtype=microtorch.int64)


def test_stacking_tiling_and_axis_helpers_as_numpy_does_them(device: str) -> None:
    a = np.arange(6.0).reshape(2, 3)
    t = microtorch.tensor(a, device=device, requires_grad=True)
    v = microtorch.tensor([1.0, 2.0, 3.0], device=device)
    host = lambda x: x.detach().cpu().numpy()  # noqa: E731
    np.testing.assert_array_equal(host(microtorch.hstack([t, t])), np.hstack([a, a]))
    np.testing.assert_array_equal(host(microtorch.vstack([t, v])), np.vstack([a, v.cpu().numpy()]))
    np.testing.assert_array_equal(
        host(microtorch.column_stack([v, v])), np.column_stack([[1, 2, 3]] * 2)
    )
    np.testing.assert_array_equal(host(t.tile(2)), np.tile(a, 2))
    np.testing.assert_array_equal(host(microtorch.tile(t, (2, 1, 1))), np.tile(a, (2, 1, 1)))
    assert t.movedim(0, 1).shape == (3, 2) and microtorch.moveaxis(t, [0, 1], [1, 0]).shape == (
        3,
        2,
    )
    assert t.swapaxes(0, 1).shape == (3, 2) and t.swapdims(1, 0).shape == (3, 2)
    assert microtorch.dot(v, v).item() == 14.0 and t.mv(v.double()).tolist() == [8.0, 26.0]
    x, y = microtorch.broadcast_tensors(t, v)
    assert x.shape == y.shape == (2, 3)
    assert microtorch.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    with pytest.raises(RuntimeError, match=r"broadcast_shapes: shapes \[\(2,\), \(3,\)\] cannot"):
        microtorch.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError, match="dot: inconsistent tensor size"):
        microtorch.dot(v, microtorch.ones(2, device=device))
    microtorch.hstack([t, t]).sum().backward()
    assert host(t.grad).tolist() == [[2.0] * 3] * 2


def test_is_cpu_and_data_ptr(device: str) -> None:
    x = microtorch.arange(6.0, device=device).reshape(2, 3)
    assert x.is_cpu == (device == "cpu") and x.is_cpu != x.is_cuda
    assert x.data_ptr() == x.view(-1).data_ptr() == x.detach().data_ptr()  # same memory
    assert x[1].data_ptr() == x.data_ptr() + 3 * x.element_size()  # a view further in
    assert x.clone().data_ptr() != x.data_ptr()
    if device == "cpu":
        assert x.data_ptr() == x.numpy().ctypes.data


# ------------------------------------- dense-tensor predicates, memory and rarer methods
DENSE_PREDICATES = ["is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_mkldnn",
                    "is_nested", "is_mps", "is_xla", "is_xpu", "is_ipu", "is_vulkan", "is_maia",
                    "is_mtia", "is_distributed"]  # fmt: skip


def test_layout_and_device_predicates_are_false_as_pytorchs(device: str) -> None:
    x = microtorch.ones(2, device=device)
    for name in DENSE_PREDICATES:
        answer = getattr(x, name)
        assert (answer() if name == "is_distributed" else answer) is False, name
    torch = pytest.importorskip("torch")
    t = torch.ones(2)
    for name in DENSE_PREDICATES:  # properties where PyTorch's are, methods where its are
        assert callable(getattr(x, name)) == callable(getattr(t, name)), name
        assert (getattr(x, name)() if callable(getattr(x, name)) else getattr(x, name)) is False


def _layouts(T) -> list:
    """Tensors laid out in many ways: permuted, sliced, expanded, size-1 and empty dims."""
    base = T.arange(120.0).reshape(2, 3, 4, 5)
    return [T.ones(()), T.ones(3), base, base.permute(0, 2, 3, 1), base.transpose(1, 2),
            base.permute(3, 1, 0, 2), base[:, ::2], base[:, :1], base[..., 1], T.ones(1, 3, 1, 4),
            T.ones(1, 3, 1, 4).permute(0, 2, 3, 1), T.ones(3, 1).expand(3, 4), T.ones(0, 3, 2).mT,
            T.ones(2, 3).as_strided((2, 3), (1, 1)), base.contiguous(memory_format=T.channels_last),
            T.ones(2, 1, 2, 2).contiguous(memory_format=T.channels_last)]  # fmt: skip


def test_dim_order_matches_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    checks = [False, True, "formats"]
    for ours, theirs in zip(_layouts(microtorch), _layouts(torch), strict=True):
        for check in checks:
            answers = []
            for x, T in ((ours, microtorch), (theirs, torch)):
                how = [T.contiguous_format, T.channels_last] if check == "formats" else check
                try:
                    answers.append(x.dim_order(ambiguity_check=how))
                except RuntimeError:
                    answers.append("ambiguous")
            assert answers[0] == answers[1], (tuple(theirs.shape), theirs.stride(), check)
    assert microtorch.ones(2, 3).t().dim_order() == (1, 0)
    with pytest.raises(TypeError, match="ambiguity_check"):
        microtorch.ones(2).dim_order(ambiguity_check="ILLEGAL")


def test_is_set_to_and_const_data_ptr_as_pytorchs(device: str) -> None:
    torch = pytest.importorskip("torch")
    for T, where in ((microtorch, device), (torch, "cpu")):
        x = T.arange(6.0, device=where).reshape(2, 3)
        assert x.is_set_to(x) and x.is_set_to(x.view(2, 3)) and x.is_set_to(x.detach())
        assert not x.is_set_to(x.view(6))  # other sizes
        assert not x.is_set_to(x.clone())  # other memory
        assert not x.is_set_to(x.t().t()[:, 1:]) and x[1].is_set_to(x[1])
        if T is microtorch or hasattr(x, "const_data_ptr"):  # (PyTorch 2.13 has it, 2.11 not)
            assert x.const_data_ptr() == x.data_ptr()
            assert x[1].const_data_ptr() == x[1].data_ptr()


def test_as_strided_in_place_as_pytorchs(device: str) -> None:
    torch = pytest.importorskip("torch")
    results = []
    for T, where in ((microtorch, device), (torch, "cpu")):
        v = T.arange(6.0, device=where)[1:]
        same = v.as_strided_((2, 2), (1, 2))
        assert same is v and v.storage_offset() == 1
        w = T.arange(6.0, device=where)[1:]
        w.as_strided_((2,), (3,), 0)  # an offset into all the memory, as as_strided
        a = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True, device=where)
        y = a * 1
        y.as_strided_((2,), (2,), 1)
        (y * T.tensor([3.0, 5.0], device=where)).sum().backward()  # the gradient follows
        results.append([v.tolist(), w.tolist(), y.tolist(), a.grad.tolist()])
        with pytest.raises(RuntimeError, match="leaf Variable"):
            T.ones(3, requires_grad=True).as_strided_((2,), (1,))
    assert results[0] == results[1]
    x = microtorch.ones(3)
    assert microtorch.as_strided_(x, (2,), (1,)) is x and x.shape == (2,)


def test_conj_physical_and_to_dense_give_the_tensor_itself_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        x = T.arange(3)
        assert x.conj_physical() is x and T.conj_physical(x) is x and x.to_dense() is x
        assert x.conj_physical_() is x and T.conj_physical_(x) is x and x.tolist() == [0, 1, 2]
        assert x.to_dense(T.int64) is x
        copy64 = x.to_dense(T.float64)
        assert copy64 is not x and copy64.dtype == T.float64 and copy64.tolist() == [0, 1, 2]
        with pytest.raises(RuntimeError, match="leaf Variable"):
            T.ones(2, requires_grad=True).conj_physical_()


def test_out_of_place_resize_warns_keeps_the_count_and_carries_gradients() -> None:
    torch = pytest.importorskip("torch")
    results = []
    for T in (microtorch, torch):
        x = T.arange(6.0).reshape(2, 3)
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            r = x.resize(3, 2)
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            t = x.t().resize_as(T.ones(6))  # a transposed tensor: its values in C order
        a = T.ones(2, 3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (a.resize(6) * T.arange(6.0)).sum().backward()
            with pytest.raises(RuntimeError, match="resize"):
                x.resize(2, 2)  # 4 elements, not 6: only resize_ may change the count
            with pytest.raises(RuntimeError):
                x.resize()  # no sizes: one element
        assert x.shape == (2, 3)  # out of place
        results.append([r.tolist(), list(r.shape), t.tolist(), a.grad.tolist()])
    assert results[0] == results[1]


def test_set_shares_another_tensors_memory_as_pytorch(device: str) -> None:
    torch = pytest.importorskip("torch")
    results = []
    for T, where in ((microtorch, device), (torch, "cpu")):
        x = T.arange(6.0, device=where).reshape(2, 3)
        y = T.zeros(4, device=where)
        assert y.set_(x) is y and y.is_set_to(x) and y.stride() == (3, 1)
        y[0, 0] = 9.0  # one memory
        z = T.zeros(1, device=where).set_(x.t())  # source's sizes and strides
        pieces = T.zeros(1, device=where).set_(x.view(6), 1, (2, 2))  # contiguous strides
        spaced = T.zeros(1, device=where).set_(x.view(6), 1, (2,), (2,))
        empty = T.zeros(3, device=where).set_()
        results.append([x.tolist(), z.stride(), pieces.tolist(), pieces.stride(), spaced.tolist(),
                        spaced.storage_offset(), list(empty.shape)])  # fmt: skip
        with pytest.raises(RuntimeError):
            T.zeros(2, dtype=T.int64, device=where).set_(x)  # another dtype
        with pytest.raises(RuntimeError, match="leaf Variable"):
            T.zeros(2, requires_grad=True, device=where).set_(x)
        with pytest.raises(TypeError):
            T.zeros(2, device=where).set_(x, 1)  # an offset without sizes
    assert results[0] == results[1]
    a = microtorch.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    loss = (x * x).sum()  # saves x
    with microtorch.no_grad():
        microtorch.zeros(2).set_(x).add_(1.0)  # changes x's memory
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()  # caught: the tensor set to x shares x's version counter


@pytest.mark.parametrize(
    "data, size, fill_value",
    [([[1, 0], [3, 2]], 4, -1), ([[1, 0], [3, 2]], 2, -1), ([[1, 0], [3, 2]], 5, 7), ([10], 0, -1),
     (10, 2, -1), ([True, False, True], 3, 0), ([0.0, 0.5], 1, -1), ([], 2, -1)],
)  # fmt: skip
def test_nonzero_static_matches_pytorch(data: Any, size: int, fill_value: int) -> None:
    torch = pytest.importorskip("torch")
    ours = microtorch.nonzero_static(microtorch.tensor(data), size=size, fill_value=fill_value)
    theirs = torch.nonzero_static(torch.tensor(data), size=size, fill_value=fill_value)
    assert ours.dtype == microtorch.int64 and ours.shape == theirs.shape
    assert ours.tolist() == theirs.tolist()
    assert microtorch.tensor(data).nonzero_static(size=size, fill_value=fill_value).tolist() == (
        theirs.tolist()
    )


def test_nonzero_static_refuses_what_pytorch_refuses() -> None:
    with pytest.raises(RuntimeError, match="non-negative"):
        microtorch.nonzero_static(microtorch.tensor([1]), size=-1)
    with pytest.raises(TypeError):
        microtorch.tensor([1]).nonzero_static(2)  # size is keyword-only


def test_unsafe_split_with_sizes_and_slice_inverse_as_pytorchs(device: str) -> None:
    torch = pytest.importorskip("torch")
    results = []
    for T, where in ((microtorch, device), (torch, "cpu")):
        x = T.arange(6.0, device=where).reshape(2, 3)
        pieces = x.unsafe_split_with_sizes([1, 2], 1) + T.unsafe_split_with_sizes(x, [1, 1])
        with pytest.raises(RuntimeError, match="split"):
            x.unsafe_split_with_sizes([1, 3], 1)
        base = T.arange(10.0, device=where) * 10
        sliced = base[2:8:2]
        whole = sliced.slice_inverse(T.zeros(10, device=where), 0, 2, 8, 2)  # base again
        other = T.slice_inverse(sliced, T.zeros(3, 2, device=where).t(), 0)
        results.append([[p.tolist() for p in pieces], whole.tolist(), other.tolist()])
    assert results[0] == results[1]


def test_map2_as_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    results = []
    for T in (microtorch, torch):
        y = T.ones(2, 3)
        same = y.map2_(
            T.tensor([1.0, 2.0, 3.0]), T.tensor([[10.0], [20.0]]), lambda a, b, c: a + b * c
        )
        assert same is y
        results.append(y.tolist())
        with pytest.raises(TypeError):
            T.ones(3).map2_(T.ones(3), T.ones(3, dtype=T.int64), lambda a, b, c: a)
        with pytest.raises(TypeError):
            T.ones(3).map_(T.ones(3, dtype=T.int64), lambda a, b: a)
        with pytest.raises(RuntimeError):
            T.ones(3).map2_(T.ones(2, 3), T.ones(3), lambda a, b, c: a)  # not broadcastable to self
    assert results[0] == results[1]


def test_map2_and_record_stream_on_device(device: str) -> None:
    x = microtorch.ones(3, device=device)
    if device == "cpu":
        with pytest.raises(RuntimeError):  # PyTorch on the CPU refuses too
            x.record_stream(None)
        return
    assert x.record_stream(None) is None  # one stream: nothing to record
    with pytest.raises(TypeError, match="CPU"):
        x.map2_(x, x, lambda a, b, c: a)


def test_module_load_as_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        p = T.nn.Parameter(T.zeros(2))
        saved = T.tensor([1.0, 2.0], requires_grad=True)
        with T.no_grad():
            copied = p.module_load(saved)
        assert copied is not p and copied.tolist() == [1.0, 2.0] == p.tolist()
        assert not copied.requires_grad and copied.data_ptr() == p.data_ptr()
        taken = p.module_load(saved, assign=True)
        assert taken is not saved and taken.data_ptr() == saved.data_ptr()
        assert not taken.requires_grad


@pytest.mark.filterwarnings("ignore:torch.asarray. unspecified requires_grad")  # (PyTorch's own)
def test_asarray_shares_memory_where_it_can_as_in_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        t = T.tensor([1.0, 2.0])
        assert T.asarray(t) is t
        assert T.asarray(t, copy=True).data_ptr() != t.data_ptr()
        a = np.array([1.0, 2.0])
        shared = T.asarray(a)
        a[0] = 5.0  # the tensor sees the change: one memory
        assert shared[0].item() == 5.0 and shared.data_ptr() == a.ctypes.data
        assert T.asarray(a, dtype=T.float32)[0].item() == 5.0  # (a converted copy)
        leaf = T.tensor([1.0, 2.0], requires_grad=True)
        copied = T.asarray(leaf, copy=True)  # a copy in the graph, as clone
        if T is microtorch or not torch_before((2, 13)):  # (older PyTorch detaches it)
            (copied * 3).sum().backward()
            assert leaf.grad.tolist() == [3.0, 3.0]
        made = T.asarray(T.tensor([1.0]), requires_grad=True)
        assert made.requires_grad and made.is_leaf


def test_unfold_is_a_view_as_in_pytorch(device: str) -> None:
    x = microtorch.arange(5.0, device=device)
    windows = x.unfold(0, 2, 1)  # [[0, 1], [1, 2], [2, 3], [3, 4]]: overlapping windows
    windows[0, 1] = 9.0  # x[1], which windows[1, 0] shows too
    assert x.tolist() == [0.0, 9.0, 2.0, 3.0, 4.0] and windows[1, 0].item() == 9.0
    x.mul_(2)
    assert windows[:, 0].tolist() == [0.0, 18.0, 4.0, 6.0]
    leaf = microtorch.arange(6.0, device=device).reshape(2, 3).requires_grad_()
    y = leaf * 1
    w = y.unfold(1, 2, 1)
    y.mul_(3)  # the base changes after the view was made: the view follows it
    (w * w).sum().backward()
    assert leaf.grad.tolist() == [[0.0, 36.0, 36.0], [54.0, 144.0, 90.0]]
    with pytest.raises(RuntimeError, match="in-place op on a view: this tensor was made by Unfold"):
        w.add_(1)  # the write would need an overlapping scatter in the graph


def test_unfold_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for lib_name, results in (("microtorch", []), ("torch", [])):
        lib = microtorch if lib_name == "microtorch" else torch
        x = lib.arange(24.0).reshape(2, 3, 4)
        for args in ((2, 2, 1), (1, 2, 2), (0, 1, 1), (2, 3, 3), (-1, 0, 2)):
            u = x.unfold(*args)
            results.append((tuple(u.shape), u.stride(), u.tolist()))
        with lib.no_grad():
            x.unfold(2, 2, 2).fill_(-1.0)[0, 0, 0] = 5.0  # through a view: writes x
        results.append(x.tolist())
        if lib_name == "microtorch":
            ours = results
        else:
            assert ours == results


def _as_strided_programs(lib) -> list:
    """as_strided views in ``lib``: values, strides, writes, a base changed in place, and
    gradients where the view shows elements twice or leaves some out."""
    out = []
    x = lib.arange(12.0)
    out.append(x.as_strided((3, 3), (1, 2)).tolist())
    out.append(x[2:].as_strided((2, 2), (1, 1)).tolist())  # from where x[2:] starts
    out.append(x[2:].as_strided((2, 2), (1, 1), 0).tolist())  # from the memory's start
    out.append(lib.as_strided(x.reshape(3, 4).t(), (2, 2), (4, 1)).stride())
    with lib.no_grad():
        x.as_strided((2, 2), (3, 1), 4).fill_(-1.0)
    out.append(x.tolist())
    w = lib.arange(6.0, requires_grad=True)
    y = w * 1
    z = y.as_strided((3, 2), (1, 1), 1)  # overlapping windows
    y.mul_(2)  # the view follows its base
    (z * lib.arange(6.0).reshape(3, 2)).sum().backward()
    out += [z.tolist(), w.grad.tolist()]
    for bad in (((5, 5), (2, 2)), ((2,), (-1,)), ((2, 2), (1,))):
        try:
            x.as_strided(*bad)
        except RuntimeError as error:
            out.append(str(error).removeprefix("as_strided: ").split(":")[0])
    return out


def test_as_strided_views_memory_as_in_pytorch() -> None:
    ours = _as_strided_programs(microtorch)
    assert ours[0] == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]
    torch = pytest.importorskip("torch")
    theirs = _as_strided_programs(torch)
    assert ours == theirs


def test_memory_details_legacy_type_names_and_none_comparison() -> None:
    x = microtorch.arange(6.0).reshape(2, 3)
    assert x[1].storage_offset() == 3 and x[:, 1].storage_offset() == 1
    assert (x * 1).storage_offset() == 0 and x.t()[2].storage_offset() == 2
    assert x.nbytes == 24 and x.itemsize == 4 and x.ndimension() == 2 and not x.is_complex()
    assert x.type() == "torch.FloatTensor" and x.long().type() == "torch.LongTensor"
    assert x.type("torch.LongTensor").dtype is microtorch.int64
    assert x.type(microtorch.float64).dtype is microtorch.float64
    assert (x == None) is False and (x != None) is True  # noqa: E711 (what PyTorch gives)
    assert x.clone().clamp_min_(2.0)[0].tolist() == [2.0, 2.0, 2.0]
    assert x.clone().clamp_max_(1.0)[1].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_type_names_are_pytorchs_strings(lib_name: str) -> None:
    """x.type() gave "microtorch.FloatTensor", so `x.type() == "torch.FloatTensor"` in code
    written for PyTorch was False; it is PyTorch's string now, and the names code passes
    back (with "torch.", a dtype or a legacy type) convert as PyTorch's do."""
    lib = microtorch if lib_name == "microtorch" else pytest.importorskip("torch")
    x = lib.ones(2)
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
             "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
             "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}  # fmt: skip
    for dtype_name, name in names.items():
        converted = x.to(getattr(lib, dtype_name))
        assert converted.type() == "torch." + name == lib.typename(converted)
        assert x.type("torch." + name).dtype is getattr(lib, dtype_name)
        assert x.type(converted.type()).dtype is getattr(lib, dtype_name)
    assert x.type(lib.float64).dtype is lib.float64
    assert x.type(lib.DoubleTensor).dtype is lib.float64
    assert x.type("torch.FloatTensor") is x and x.type(dtype=None) == "torch.FloatTensor"
    for bad in ("DoubleTensor", "torch.float64", "torch.Float"):
        with pytest.raises(ValueError):
            x.type(bad)
    with pytest.raises(TypeError):
        x.type(5)


def test_tensor_class_constructor_makes_float() -> None:
    t = Tensor([1, 2])
    assert t.dtype is microtorch.float32 and t.tolist() == [1.0, 2.0]


def test_default_dtype_can_be_float64() -> None:
    microtorch.set_default_dtype(microtorch.float64)
    try:
        assert microtorch.tensor(1.5).dtype is microtorch.float64
        assert microtorch.zeros(2).dtype is microtorch.float64
        assert microtorch.get_default_dtype() is microtorch.float64
    finally:
        microtorch.set_default_dtype(microtorch.float32)
    assert microtorch.tensor(1.5).dtype is microtorch.float32


def test_unsupported_data_is_rejected_clearly() -> None:
    with pytest.raises(TypeError, match="could not make a tensor"):
        microtorch.tensor(["a", "b"])
    with pytest.raises(TypeError, match="no dtype for"):
        microtorch.tensor(np.zeros(2, dtype=np.complex64))


# ------------------------------------------------------------------ dtype promotion in ops
def _t(values, dtype=None) -> Tensor:
    return microtorch.tensor(values, dtype=dtype)


@pytest.mark.parametrize(
    "make, dtype",
    [
        (lambda: _t([1, 2]) + 1, microtorch.int64),
        (lambda: _t([1, 2]) * 1.5, microtorch.float32),
        (lambda: 2.5 - _t([1, 2]), microtorch.float32),
        (lambda: _t([1, 2]) / _t([2, 4]), microtorch.float32),  # true division
        (lambda: _t([1, 2]) / 2, microtorch.float32),
        (lambda: _t([1, 2]) ** 0.5, microtorch.float32),
        (lambda: 2 ** _t([1, 2]), microtorch.int64),
        (lambda: _t([1, 2]) + _t([0.5, 1.5]), microtorch.float32),
        (lambda: _t([1.0], microtorch.float32) + _t([1.0], microtorch.float64), microtorch.float64),
        # a 0-d tensor acts like a Python number: it never widens a tensor with dims
        (lambda: _t([1.0, 2.0]) * _t(np.float64(2.0)), microtorch.float32),
        (lambda: _t([1, 2], microtorch.int32) + _t(1), microtorch.int32),
        (lambda: _t([1, 2]) + _t(1.5, microtorch.float64), microtorch.float64),  # kind rises
        (lambda: _t([True, False]) + 1, microtorch.int64),
        (lambda: _t([True]) + _t([2]), microtorch.int64),
        (lambda: _t([1.0]) * np.float64(3.0), microtorch.float32),
        (lambda: _t([1, 2]).sum(), microtorch.int64),
        (lambda: _t([True, True]).sum(), microtorch.int64),
        (lambda: _t([1, 2]).clamp(min=0.5), microtorch.float32),
        (lambda: _t([1.0, 2.0]).exp(), microtorch.float32),
        (lambda: microtorch.exp(_t([1, 2])), microtorch.float32),  # ints become float32
        (lambda: microtorch.where(_t([True, False]), 1.0, 0.0), microtorch.float32),
        (lambda: _t([1.0]) < 2, microtorch.bool),
    ],
)
def test_result_dtypes(make, dtype) -> None:
    assert make().dtype is dtype


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_arithmetic_with_python_numbers_rounds_as_pytorch(dtype: str) -> None:
    """Bit for bit PyTorch's: float16 * or / a Python number is computed in float32 with the
    number itself (a third of the float16 results were an ulp off when the number was first
    rounded to float16), + and - round the number first; number / tensor is PyTorch's
    reciprocal(tensor) * number (a quarter of the last bits differ from one division)."""
    torch = pytest.importorskip("torch")
    x = (np.random.default_rng(6).standard_normal(2000) * 3).astype(dtype)
    x[:3] = [0.0, -0.0, 1.0]
    calls = [lambda t: t * 0.1, lambda t: 0.1 * t, lambda t: t / 3.3, lambda t: 3.3 / t,
             lambda t: t + 0.1, lambda t: 1 / 3 - t, lambda t: t.clone().mul_(0.7),
             lambda t: t.clone().div_(0.3), lambda t: 2 / t]  # fmt: skip
    for i, call in enumerate(calls):
        for grad in (False, True):
            ours_in = microtorch.tensor(x, requires_grad=grad)
            theirs_in = torch.tensor(x, requires_grad=grad)
            ours, theirs = call(ours_in), call(theirs_in)
            np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy(),
                                          err_msg=f"call {i}")  # fmt: skip
            if grad and i < 3:  # the scaling's gradient: the same product / quotient
                ours.sum().backward()
                theirs.sum().backward()
                np.testing.assert_array_equal(ours_in.grad.numpy(), theirs_in.grad.numpy())


# ------------------------------------------------------------------ what a tensor is
def test_shape_size_dim_numel(device: str) -> None:
    t = microtorch.zeros(2, 3, 4, device=device)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, microtorch.Size)
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.dim() == 3 and t.ndim == 3
    assert t.numel() == 24 and microtorch.numel(t) == 24 and t.shape.numel() == 24
    assert len(t) == 2
    assert repr(t.shape) == "microtorch.Size([2, 3, 4])"
    assert isinstance(t.shape * 2, microtorch.Size) and t.shape[1:] == (3, 4)
    assert microtorch.Size([microtorch.tensor(2), 3]) == (2, 3)  # one-element tensors: ints
    assert t.device == microtorch.device(device) and t.device == device
    scalar = microtorch.tensor(3.0, device=device)
    assert scalar.shape == () and scalar.dim() == 0 and scalar.numel() == 1


def test_size_with_bad_dim_raises() -> None:
    with pytest.raises(IndexError, match="out of range"):
        microtorch.zeros(2, 3).size(2)


def test_item_tolist_bool_and_iteration() -> None:
    t = microtorch.tensor([[1.5, 2.0], [3.0, 4.0]])
    assert t[0, 0].item() == 1.5 and isinstance(t[0, 0].item(), float)
    assert microtorch.tensor([7]).item() == 7 and isinstance(microtorch.tensor([7]).item(), int)
    assert t.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert [row.tolist() for row in t] == [[1.5, 2.0], [3.0, 4.0]]
    assert bool(microtorch.tensor([1.0])) and not bool(microtorch.tensor(0))
    assert float(microtorch.tensor(2.5)) == 2.5 and int(microtorch.tensor(3)) == 3
    with pytest.raises(RuntimeError, match="cannot be converted to a Python scalar"):
        t.item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(t)
    with pytest.raises(TypeError, match="0-d"):
        len(microtorch.tensor(1.0))


def test_numpy_shares_memory_and_refuses_tensors_that_require_grad() -> None:
    t = microtorch.zeros(3)
    a = t.numpy()
    a[0] = 5.0
    assert t[0].item() == 5.0
    with pytest.raises(RuntimeError, match=r"detach\(\)\.numpy\(\)"):
        microtorch.zeros(2, requires_grad=True).numpy()
    assert np.asarray(microtorch.ones(2)).tolist() == [1.0, 1.0]


def test_from_numpy_shares_memory_and_tensor_copies() -> None:
    a = np.zeros(3, dtype=np.float32)
    shared, copied = microtorch.from_numpy(a), microtorch.tensor(a)
    a[1] = 4.0
    assert shared.tolist() == [0.0, 4.0, 0.0]
    assert copied.tolist() == [0.0, 0.0, 0.0]
    original = microtorch.ones(2)
    with pytest.warns(UserWarning, match=r"copy construct from a tensor.*detach\(\).clone\(\)"):
        again = microtorch.tensor(original)  # PyTorch warns too
    again.add_(1)
    assert original.tolist() == [1.0, 1.0]


def test_nonzero_where_and_legacy_empty_cat(device: str) -> None:
    x = microtorch.tensor([[0.0, 1.5], [2.0, 0.0]], device=device)
    assert x.nonzero().tolist() == [[0, 1], [1, 0]] and x.nonzero().dtype is microtorch.int64
    rows, cols = microtorch.where(x > 1.7)
    assert rows.tolist() == [1] and cols.tolist() == [0] and rows.device == x.device
    assert x[microtorch.where(x > 1.7)].tolist() == [2.0]  # the tuple form indexes x
    assert microtorch.nonzero(microtorch.zeros(2, 3, device=device)).shape == (0, 2)
    start = microtorch.tensor([], device=device)
    grown = microtorch.cat([start, x, start])
    assert grown.shape == (2, 2) and grown.device == x.device


def test_detach_shares_memory_and_clone_copies(device: str) -> None:
    a = microtorch.tensor([1.0, 2.0], device=device, requires_grad=True)
    d, c, f = a.detach(), a.clone(), microtorch.detach(a)
    assert not d.requires_grad and d.is_leaf and not f.requires_grad
    assert c.requires_grad and c.grad_fn is not None
    with microtorch.no_grad():
        a.mul_(10)
    assert d.tolist() == [10.0, 20.0] and f.tolist() == [10.0, 20.0]
    assert c.tolist() == [1.0, 2.0]


def test_deepcopy_copies_leaves_and_refuses_graph_nodes() -> None:
    x = microtorch.ones(2, requires_grad=True)
    x.grad = microtorch.full((2,), 3.0)
    y = copy.deepcopy(x)
    assert y is not x and y.requires_grad and y.is_leaf and y.grad.tolist() == [3.0, 3.0]
    y.detach().add_(1)
    assert x.tolist() == [1.0, 1.0]  # its own memory
    both = copy.deepcopy({"a": x, "b": x})
    assert both["a"] is both["b"]  # shared stays shared
    with pytest.raises(RuntimeError, match="graph leaves.*made by MulBackward0"):
        copy.deepcopy(x * 2)  # as in PyTorch


def test_allclose_and_equal_as_functions_and_methods(device: str) -> None:
    a = microtorch.tensor([1.0, float("nan")], device=device)
    b = microtorch.tensor([1.0 + 1e-7, float("nan")], device=device)
    assert not a.allclose(b) and not microtorch.allclose(a, b)  # nan is not close to nan...
    assert a.allclose(b, equal_nan=True) and microtorch.allclose(a, b, equal_nan=True)  # ...unless
    assert not a.equal(a)  # nan != nan, as in PyTorch
    assert a[:1].equal(microtorch.ones(1, device=device))


def test_contiguous() -> None:
    t = microtorch.arange(6).reshape(2, 3).T
    assert not t.is_contiguous()
    c = t.contiguous()
    assert c.is_contiguous() and c.tolist() == t.tolist()
    assert c.contiguous() is c


def test_stride_counts_elements_as_in_pytorch(device: str) -> None:
    x = microtorch.arange(12.0, device=device).view(3, 4)
    assert x.stride() == (4, 1) and x.stride(0) == 4 and x.stride(-1) == 1
    assert x.t().stride() == (1, 4) and x[:, ::2].stride() == (4, 2)
    assert x[0:1].expand(5, 4).stride() == (0, 1)
    assert microtorch.zeros(2, 3, dtype=microtorch.float16, device=device).stride() == (3, 1)
    # a dim x[None] inserts has the stride unsqueeze gives it (NumPy says 0)
    assert x[None].stride() == (12, 4, 1) and x[:, None].stride() == (4, 4, 1)
    assert x[..., None].stride() == (4, 1, 1) and x.t()[None, None].stride() == (4, 4, 1, 4)
    # a new empty tensor is contiguous, a size 0 counting as 1 (NumPy says 0s)
    assert microtorch.zeros(2, 0, 3, device=device).stride() == (3, 3, 1)
    assert microtorch.zeros(3, 0, device=device).stride() == (1, 1) and x[:0].stride() == (4, 1)
    with pytest.raises(IndexError, match="stride"):
        x.stride(2)


def test_to_dtype_and_device(device: str) -> None:
    t = microtorch.tensor([1.5, 2.5])
    assert t.to(microtorch.float32) is t and t.to("cpu") is t and t.cpu() is t
    assert t.to(microtorch.float64).dtype is microtorch.float64
    assert t.to(dtype=microtorch.int64).tolist() == [1, 2]
    assert t.double().dtype is microtorch.float64
    assert t.long().dtype is microtorch.int64
    assert t.long().float().dtype is microtorch.float32
    assert t.to(int).dtype is microtorch.int64 and t.to(float).dtype is microtorch.float64
    moved = t.to(device)
    assert moved.device == device and moved.tolist() == [1.5, 2.5]
    both = t.to(device, microtorch.float64)
    assert both.device == device and both.dtype is microtorch.float64
    like = microtorch.zeros(1, dtype=microtorch.float64, device=device)
    assert t.to(like).dtype is microtorch.float64 and t.to(like).device == device
    assert moved.cpu().device == "cpu"


def test_reductions_over_dim_empty_tuple_reduce_everything_as_in_pytorch() -> None:
    x = microtorch.arange(6.0).view(2, 3)
    assert x.sum(()).item() == 15.0 and x.mean([]).item() == 2.5 and x.amax(()).item() == 5.0
    assert x.sum((), keepdim=True).shape == (1, 1)
    assert x.std(()).item() == pytest.approx(1.8708287)
    assert x.bool().any(()).shape == (2, 3)  # any and all reduce nothing, as in PyTorch
    with pytest.raises(RuntimeError, match="sum: dim 1 appears multiple times"):
        x.sum((1, -1))


def test_view_dtype_reads_the_same_bytes_as_in_pytorch(device: str) -> None:
    x = microtorch.tensor([1.0, -2.0], device=device)
    bits = x.view(microtorch.int32)
    assert bits.dtype is microtorch.int32 and bits.tolist() == [1065353216, -1073741824]
    assert x.view(dtype=microtorch.int16).shape == (4,)  # smaller elements: more of them
    assert microtorch.zeros(2, 4, dtype=microtorch.int16, device=device).view(
        microtorch.float64
    ).shape == (2, 1)
    bits[0] = 0  # one memory
    assert x.tolist() == [0.0, -2.0] and x._version == bits._version == 1
    assert x.view(microtorch.float32) is not None and not bits.requires_grad
    with pytest.raises(RuntimeError, match="last dim must be divisible by 2, but got 3"):
        microtorch.ones(3, device=device).view(microtorch.float64)
    with pytest.raises(RuntimeError, match="last dim must have stride 1"):
        microtorch.ones(2, 3, device=device).t().view(microtorch.float16)
    with pytest.raises(RuntimeError, match="a 0-d tensor cannot view"):
        microtorch.ones((), device=device).view(microtorch.float16)


def test_to_with_copy_true_always_copies() -> None:
    t = microtorch.tensor([1.5, 2.5], requires_grad=True)
    for copied in (t.to("cpu", copy=True), t.to(copy=True), t.to(microtorch.float32, False, True)):
        assert copied is not t and copied.tolist() == [1.5, 2.5]
        assert copied.grad_fn is not None  # still in the graph, as PyTorch's copy is
    assert t.to(microtorch.float32, True) is t  # (non_blocking=True alone copies nothing)
    with pytest.raises(TypeError, match="Module.to\\(\\) does not take copy="):
        microtorch.nn.Linear(2, 2).to("cpu", copy=True)


def test_to_unknown_device_is_rejected() -> None:
    with pytest.raises(RuntimeError, match="unknown device 'tpu'"):
        microtorch.ones(1).to("tpu")


@pytest.mark.parametrize("spec", ["tpu", "cuda:x", "cuda:-1", "cpu:-1", "cuda:", "gpu:0"])
def test_bad_device_strings_raise_runtime_error_as_in_pytorch(spec: str) -> None:
    with pytest.raises(RuntimeError, match=r"device: (unknown device|invalid device string)"):
        microtorch.device(spec)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.device(spec)


def test_a_negative_device_index_raises_runtime_error_as_in_pytorch() -> None:
    with pytest.raises(RuntimeError, match="device index must not be negative, got -2"):
        microtorch.device("cuda", -2)
    assert microtorch.device("cuda", 1) == "cuda:1" and microtorch.device("cuda:1").index == 1
    assert microtorch.device("cpu") != "gpu"  # a bad string compares unequal, no error
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.device("cuda", -2)


def test_requires_grad_flag() -> None:
    t = microtorch.zeros(2)
    assert not t.requires_grad
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad_(False)
    assert not t.requires_grad
    assert microtorch.ones(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        microtorch.tensor([1, 2]).requires_grad_()


def test_output_nr_is_the_position_among_its_nodes_outputs() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        x = T.randn(4, 3, requires_grad=True)
        assert x.output_nr == (x * 2).output_nr == T.randn(3).output_nr == 0
        assert [p.output_nr for p in x.split(2)] == [p.output_nr for p in x.chunk(2)] == [0, 1]
        assert [p.output_nr for p in x.split([1, 1, 1], 1)] == [0, 1, 2]
        with pytest.raises(AttributeError):
            x.output_nr = 1


def test_grad_dtype_casts_the_gradients_backward_gives_a_leaf() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        assert x.grad_dtype is T.float32 and T.ones(2, dtype=T.long).grad_dtype is T.int64
        x.grad_dtype = T.float64
        assert x.grad_dtype is T.float64
        (x * 2).sum().backward()
        (x * 3).sum().backward()  # accumulated in float64
        assert x.grad.dtype is T.float64 and x.grad.tolist() == [5.0, 5.0]
        y = T.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="dtype"):
            y.grad = T.ones(3, dtype=T.float64)  # must match grad_dtype (its dtype by default)
        y.grad_dtype = None  # any dtype
        y.grad = T.ones(3, dtype=T.float64)
        assert y.grad_dtype is None and y.grad.dtype is T.float64
        with pytest.raises(RuntimeError, match="grad_dtype can only be accessed on leaf"):
            (x * 2).grad_dtype  # noqa: B018
        with pytest.raises(RuntimeError, match="grad_dtype can only be set on leaf"):
            (x * 2).grad_dtype = T.float64
        with pytest.raises(RuntimeError, match="must be a torch.dtype or None"):
            y.grad_dtype = 3


def test_as_subclass_is_a_view_of_the_same_memory_and_history() -> None:
    torch = pytest.importorskip("torch")

    for T in (microtorch, torch):

        class Mine(T.Tensor):
            pass

        x = T.randn(3, requires_grad=True)
        s = x.as_subclass(Mine)
        assert type(s) is Mine and s.requires_grad and not s.is_leaf and s.shape == x.shape
        (s * s).sum().backward()
        assert T.allclose(x.grad, 2 * x.detach())
        z = T.zeros(3)
        view = z.as_subclass(Mine)
        view[0] = 5.0
        assert z.tolist() == [5.0, 0.0, 0.0] and not view.requires_grad
        assert type(z.as_subclass(T.Tensor)) is T.Tensor
        with pytest.raises(TypeError, match="does not inherit from Tensor"):
            z.as_subclass(int)


# ------------------------------------------------------------------ repr
def test_repr_shows_values_dtype_device_and_grad_fn() -> None:
    plain = repr(microtorch.tensor([1.5, 2.0]))
    assert "1.5" in plain and "2." in plain
    assert "dtype=microtorch.float32" in plain and "device='cpu'" in plain
    assert "grad_fn" not in plain
    leaf = microtorch.tensor([1.0], requires_grad=True)
    assert "requires_grad=True" in repr(leaf)
    assert "grad_fn=<MulBackward0>" in repr(leaf * 2)
    assert "grad_fn=<SumBackward0>" in repr((leaf * 2).sum())
    assert "dtype=microtorch.int64" in repr(microtorch.tensor([1, 2]))
    assert repr(microtorch.tensor(3.25)).startswith("tensor(3.25")
    # an empty tensor of several dims says its shape, as PyTorch's does ("[]" alone hides it)
    assert repr(microtorch.zeros(0, 3)).startswith("tensor([], size=(0, 3), dtype=")
    assert "size=" not in repr(microtorch.zeros(0))


# ------------------------------------------------------------------ factories
def test_factories(device: str) -> None:
    assert microtorch.zeros(2, 3, device=device).tolist() == [[0.0] * 3] * 2
    assert microtorch.zeros((2, 3)).shape == (2, 3)
    assert microtorch.ones(2, dtype=microtorch.int64, device=device).tolist() == [1, 1]
    assert microtorch.empty(3, 2, device=device).shape == (3, 2)
    full = microtorch.full((2,), 7, device=device)
    assert full.dtype is microtorch.int64 and full.tolist() == [7, 7]
    assert microtorch.full((2,), 0.5).dtype is microtorch.float32
    assert microtorch.full((1,), True).dtype is microtorch.bool
    assert microtorch.arange(4, device=device).tolist() == [0, 1, 2, 3]
    assert microtorch.arange(4).dtype is microtorch.int64
    assert microtorch.arange(1, 7, 2).tolist() == [1, 3, 5]
    r = microtorch.arange(0, 1, 0.25)
    assert r.dtype is microtorch.float32 and r.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert microtorch.eye(2, device=device).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert microtorch.eye(2, 3).shape == (2, 3)
    assert microtorch.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    z = microtorch.zeros(3, requires_grad=True, device=device)
    assert z.requires_grad and z.is_leaf and z.device == device


def test_like_factories_keep_dtype_and_device(device: str) -> None:
    base = microtorch.tensor([[1, 2], [3, 4]], device=device)
    for made in (
        microtorch.zeros_like(base),
        microtorch.ones_like(base),
        microtorch.empty_like(base),
        microtorch.full_like(base, 9),
    ):
        assert made.shape == (2, 2) and made.dtype is microtorch.int64 and made.device == device
    assert microtorch.ones_like(base).tolist() == [[1, 1], [1, 1]]
    assert microtorch.zeros_like(base, dtype=microtorch.float32).dtype is microtorch.float32
    assert base.new_zeros(3).dtype is microtorch.int64
    assert microtorch.ones(2).type_as(base).dtype is microtorch.int64


def test_factories_reject_integer_requires_grad() -> None:
    with pytest.raises(RuntimeError, match="floating point"):
        microtorch.zeros(2, dtype=microtorch.int64, requires_grad=True)


# ------------------------------------------------------------------ random numbers
def test_manual_seed_gives_the_same_numbers_every_time() -> None:
    microtorch.manual_seed(123)
    first = (microtorch.randn(5), microtorch.rand(3), microtorch.randint(0, 10, (4,)))
    microtorch.manual_seed(123)
    second = (microtorch.randn(5), microtorch.rand(3), microtorch.randint(0, 10, (4,)))
    for a, b in zip(first, second):
        assert a.tolist() == b.tolist()
    microtorch.manual_seed(124)
    assert microtorch.randn(5).tolist() != first[0].tolist()


def test_seeded_numbers_are_stable_across_runs_and_machines() -> None:
    # the generator is NumPy's PCG64 seeded with manual_seed's value: these numbers are fixed
    microtorch.manual_seed(7)
    expected = np.random.Generator(np.random.PCG64(7)).standard_normal(4).astype(np.float32)
    np.testing.assert_array_equal(microtorch.randn(4).numpy(), expected)
    assert microtorch.initial_seed() == 7


def test_rng_state_resumes_exactly() -> None:
    microtorch.manual_seed(0)
    microtorch.randn(3)
    state = microtorch.get_rng_state()
    a = microtorch.randn(4).tolist()
    microtorch.randn(10)
    microtorch.set_rng_state(state)
    assert microtorch.randn(4).tolist() == a


def test_generator_api_as_pytorchs() -> None:
    """manual_seed(-1) raised NumPy's ValueError; Generator had no seed() or device,
    set_state returned None, microtorch.default_generator was missing and a wrong
    generator= gave an AttributeError."""
    assert microtorch.manual_seed(-1).initial_seed() == 2**64 - 1  # modulo 2**64, as PyTorch
    assert microtorch.Generator().manual_seed(-(2**63)).initial_seed() == 2**63
    with pytest.raises(ValueError):
        microtorch.manual_seed(2**64)
    g = microtorch.Generator()
    fresh = g.seed()
    assert isinstance(fresh, int) and g.initial_seed() == fresh and g.device.type == "cpu"
    state = g.get_state()
    first = microtorch.rand(3, generator=g).tolist()
    assert g.set_state(state) is g and microtorch.rand(3, generator=g).tolist() == first
    assert microtorch.default_generator is microtorch.random.default_generator
    assert microtorch.manual_seed(5) is microtorch.default_generator
    with pytest.raises(TypeError, match="generator must be a microtorch.Generator"):
        microtorch.rand(2, generator=3)
    microtorch.manual_seed(0)
    torch = pytest.importorskip("torch")
    assert torch.manual_seed(-1).initial_seed() == 2**64 - 1
    assert torch.Generator().set_state(torch.get_rng_state()) is not None
    with pytest.raises(TypeError):
        torch.rand(2, generator=3)
    torch.manual_seed(0)


@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_fork_rng_restores_the_global_stream_after_the_block(lib_name: str) -> None:
    """microtorch.random.fork_rng was missing (PyTorch code using it raised)."""
    lib = microtorch if lib_name == "microtorch" else pytest.importorskip("torch")
    lib.manual_seed(1)
    expected = lib.rand(3).tolist()
    lib.manual_seed(1)
    with lib.random.fork_rng():
        lib.rand(5)  # draws inside do not move the stream outside
    assert lib.rand(3).tolist() == expected
    with lib.random.fork_rng(enabled=False):
        inside = lib.rand(1).tolist()
    assert lib.rand(1).tolist() != inside  # not restored
    lib.manual_seed(0)


@needs_torch((2, 13), "torch.random.thread_safe_generator")
@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_thread_safe_generator_is_none_outside_thread_workers(lib_name: str) -> None:
    lib = microtorch if lib_name == "microtorch" else pytest.importorskip("torch")
    from_module = importlib.import_module(f"{lib_name}.random").thread_safe_generator
    assert from_module is lib.random.thread_safe_generator and from_module() is None
    assert tuple(lib.randint(0, 10, (5,), generator=from_module()).shape) == (5,)


def test_generator_objects_are_independent() -> None:
    g1 = microtorch.Generator().manual_seed(5)
    g2 = microtorch.Generator().manual_seed(5)
    microtorch.randn(3)  # the global stream does not disturb them
    assert microtorch.randn(3, generator=g1).tolist() == microtorch.randn(3, generator=g2).tolist()


def test_random_floats_refuse_integer_dtypes() -> None:
    """rand(2, dtype=long) would be all zeros, randn's samples truncated: PyTorch refuses."""
    for draw in (lambda: microtorch.rand(2, dtype=microtorch.long),
                 lambda: microtorch.randn(2, dtype=microtorch.int32),
                 lambda: microtorch.randn_like(microtorch.ones(2, dtype=microtorch.long)),
                 lambda: microtorch.ones(2, dtype=microtorch.long).normal_(),
                 lambda: microtorch.ones(2, dtype=microtorch.long).uniform_()):  # fmt: skip
        with pytest.raises(RuntimeError, match="need a floating point dtype, got microtorch.int"):
            draw()
    perm = microtorch.randperm(5, dtype=microtorch.int32)
    assert perm.dtype is microtorch.int32 and sorted(perm.tolist()) == [0, 1, 2, 3, 4]


def test_uniform_and_normal_take_pytorchs_keywords() -> None:
    """uniform_'s bounds were named a and b (PyTorch: from, to), so uniform_(to=3.0)
    raised TypeError; generator= is keyword-only in both, as in PyTorch."""
    x = microtorch.zeros(1000).uniform_(to=3.0)
    assert 0.0 <= float(x.min()) and float(x.max()) < 3.0 and float(x.max()) > 2.0
    y = microtorch.zeros(1000).uniform_(2.0, to=3.0)
    assert 2.0 <= float(y.min()) and float(y.max()) < 3.0
    assert abs(float(microtorch.zeros(1000).normal_(std=0.1).std()) - 0.1) < 0.02
    with pytest.raises(TypeError):
        microtorch.zeros(3).uniform_(0.0, 1.0, microtorch.Generator())
    torch = pytest.importorskip("torch")
    assert float(torch.zeros(1000).uniform_(to=3.0).max()) > 2.0
    with pytest.raises(TypeError):
        torch.zeros(3).uniform_(0.0, 1.0, torch.Generator())


RANDOM_ARGUMENT_ERRORS = {
    "normal_ with std < 0": lambda T: T.zeros(2).normal_(0.0, -1.0),
    "uniform_ with from > to": lambda T: T.zeros(2).uniform_(3.0, 2.0),
    "normal with a negative std element": lambda T: T.normal(T.zeros(2), T.tensor([1.0, -1.0])),
    "normal of shapes that do not broadcast": lambda T: T.normal(T.zeros(2), T.ones(3)),
    "rand into int64": lambda T: T.rand(2, dtype=T.int64),
    "normal_ of an int64 tensor": lambda T: T.zeros(2, dtype=T.int64).normal_(),
}


@pytest.mark.parametrize("name", list(RANDOM_ARGUMENT_ERRORS))
def test_random_argument_errors_have_pytorchs_types(name: str) -> None:
    """PyTorch raises RuntimeError (NotImplementedError for an integer dtype); NumPy's
    ValueError leaked out before, and normal() took a negative std element."""
    expected = NotImplementedError if "int64" in name else RuntimeError
    with pytest.raises(expected) as ours:
        RANDOM_ARGUMENT_ERRORS[name](microtorch)
    assert type(ours.value) is expected
    torch = pytest.importorskip("torch")
    with pytest.raises(expected) as theirs:
        RANDOM_ARGUMENT_ERRORS[name](torch)
    assert type(theirs.value) is expected


BERNOULLI_ERRORS = {
    "of a list": (lambda T: T.bernoulli([0.5]), TypeError),  # AttributeError before
    "of a number": (lambda T: T.bernoulli(0.5), TypeError),
    "of int64 probabilities": (
        lambda T: T.bernoulli(T.ones(2, dtype=T.int64)),
        NotImplementedError,
    ),
    "of bool probabilities": (lambda T: T.bernoulli(T.ones(2, dtype=T.bool)), NotImplementedError),
    "with a tensor p": (lambda T: T.zeros(2).bernoulli(T.ones(2) / 2), TypeError),  # RuntimeError
}


@pytest.mark.parametrize("name", list(BERNOULLI_ERRORS))
def test_bernoulli_refuses_what_pytorch_refuses(name: str) -> None:
    make, error = BERNOULLI_ERRORS[name]
    with pytest.raises(error) as ours:
        make(microtorch)
    assert type(ours.value) is error and "bernoulli" in str(ours.value)
    ints = microtorch.bernoulli(microtorch.ones(3, dtype=microtorch.int64), p=0.5)
    assert ints.dtype is microtorch.int64  # p= into an integer tensor's shape still works
    torch = pytest.importorskip("torch")
    with pytest.raises(error) as theirs:
        make(torch)
    assert type(theirs.value) is error


def test_normal_and_bernoulli_of_parameters_that_require_grad_give_gradient_zero(device):
    """PyTorch records normal(mean, std) and bernoulli(p) with gradient 0 to the parameters,
    so loss.backward() through a draw works; ours recorded nothing and backward raised."""
    mean = microtorch.zeros(2, 1, device=device, requires_grad=True)
    std = microtorch.ones(3, device=device, requires_grad=True)
    p = microtorch.full((3,), 0.5, device=device, requires_grad=True)
    draws = (microtorch.normal(mean, std), microtorch.normal(0.0, std), microtorch.bernoulli(p))
    assert all(d.requires_grad for d in draws)
    sum(d.sum() for d in draws).backward()
    assert mean.grad.shape == (2, 1) and not mean.grad.cpu().numpy().any()
    assert not std.grad.cpu().numpy().any() and not p.grad.cpu().numpy().any()
    assert not microtorch.normal(microtorch.zeros(2, device=device), 1.0).requires_grad
    torch = pytest.importorskip("torch")
    t_std = torch.ones(3, requires_grad=True)
    torch.normal(0.0, t_std).sum().backward()
    assert t_std.grad.tolist() == [0.0, 0.0, 0.0]


def test_random_shapes_dtypes_and_ranges(device: str) -> None:
    n = microtorch.randn(2, 3, device=device)
    assert n.shape == (2, 3) and n.dtype is microtorch.float32 and n.device == device
    assert microtorch.randn((4,), dtype=microtorch.float64).dtype is microtorch.float64
    u = microtorch.rand(1000, device=device).cpu().numpy()
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.05
    big = microtorch.randn(10_000).numpy()
    assert abs(big.mean()) < 0.05 and abs(big.std() - 1.0) < 0.05
    ri = microtorch.randint(3, 7, (1000,), device=device)
    assert ri.dtype is microtorch.int64 and ri.device == device
    assert set(ri.cpu().tolist()) == {3, 4, 5, 6}
    assert set(microtorch.randint(4, (200,)).tolist()) == {0, 1, 2, 3}  # randint(high, size)
    assert microtorch.randn(3, requires_grad=True).requires_grad
    perm = microtorch.randperm(6)
    assert sorted(perm.tolist()) == list(range(6)) and perm.dtype is microtorch.int64


# method, args, dtype, (mean, tolerance) of 20,000 draws, (smallest, largest) allowed
IN_PLACE_SAMPLERS = [
    ("exponential_", (), "float32", (1.0, 0.05), (0, None)),
    ("exponential_", (4.0,), "float64", (0.25, 0.01), (0, None)),
    ("geometric_", (0.25,), "float32", (4.0, 0.15), (1, None)),
    ("geometric_", (0.5,), "int64", (2.0, 0.05), (1, None)),
    ("log_normal_", (0.0, 0.5), "float32", (np.exp(0.125), 0.03), (0, None)),
    ("random_", (10,), "float32", (4.5, 0.1), (0, 9)),
    ("random_", (-3, 4), "int8", (0.0, 0.1), (-3, 3)),
    ("random_", (), "bool", (0.5, 0.03), (0, 1)),
    ("random_", (), "uint8", (127.5, 3.0), (0, 255)),
    ("bernoulli_", (), "float32", (0.5, 0.03), (0, 1)),
    ("bernoulli_", (0.2,), "int64", (0.2, 0.03), (0, 1)),
]


@pytest.mark.parametrize("method, args, dtype, mean, bounds", IN_PLACE_SAMPLERS)
def test_in_place_samplers_fill_self_keeping_its_dtype(method, args, dtype, mean, bounds, device):
    microtorch.manual_seed(0)
    x = microtorch.zeros(20_000, dtype=getattr(microtorch, dtype), device=device)
    assert getattr(x, method)(*args) is x and x.dtype.name == dtype and x.device == device
    values = x.cpu().numpy().astype(np.float64)
    assert abs(values.mean() - mean[0]) < mean[1]
    low, high = bounds
    assert values.min() >= low and (high is None or values.max() == high)
    assert values.min() == low or low == 0  # integer ranges are reached at both ends


def test_cauchy_and_tensor_probabilities_and_generators(device: str) -> None:
    x = microtorch.zeros(20_000, device=device).cauchy_(2.0, 0.5)
    assert abs(float(x.median()) - 2.0) < 0.05  # (a Cauchy draw has no mean)
    p = microtorch.tensor([0.0, 1.0, 0.0, 1.0], device=device)
    assert microtorch.zeros(3, 4, device=device).bernoulli_(p).tolist() == [[0, 1, 0, 1]] * 3
    twice = [
        microtorch.zeros(5).exponential_(generator=microtorch.Generator().manual_seed(4)).tolist()
        for _ in range(2)
    ]
    assert twice[0] == twice[1]
    base = microtorch.zeros(2, 5, device=device)
    base[1].random_(to=3)  # through a view, as every in-place op
    assert base[0].tolist() == [0] * 5 and set(base[1].tolist()) <= {0, 1, 2}


IN_PLACE_SAMPLER_ERRORS = [
    ("exponential_", (0.0,), "float32", RuntimeError),  # lambda > 0
    ("exponential_", (), "int64", RuntimeError),  # a continuous distribution
    ("geometric_", (1.0,), "float32", RuntimeError),  # p in (0, 1)
    ("geometric_", (0.5,), "bool", NotImplementedError),
    ("cauchy_", (0.0, -1.0), "float32", RuntimeError),
    ("cauchy_", (), "int64", RuntimeError),
    ("log_normal_", (1.0, 0.0), "float32", RuntimeError),
    ("log_normal_", (), "int64", NotImplementedError),
    ("random_", (5, 2), "float32", RuntimeError),  # from < to
    ("random_", (0, 300), "uint8", RuntimeError),  # to - 1 out of bounds
    ("random_", (-1, 3), "uint8", RuntimeError),  # from out of bounds
    ("random_", (10,), "bool", RuntimeError),
    ("bernoulli_", (1.5,), "float32", RuntimeError),
]


@pytest.mark.parametrize("method, args, dtype, error", IN_PLACE_SAMPLER_ERRORS)
def test_in_place_samplers_refuse_what_pytorch_refuses(method, args, dtype, error) -> None:
    with pytest.raises(error) as ours:
        getattr(microtorch.zeros(3, dtype=getattr(microtorch, dtype)), method)(*args)
    assert method.rstrip("_") in str(ours.value)  # the message names the op
    torch = pytest.importorskip("torch")
    with pytest.raises(error) as theirs:
        getattr(torch.zeros(3, dtype=getattr(torch, dtype)), method)(*args)
    assert type(ours.value) is type(theirs.value)


def test_random_numbers_do_not_depend_on_the_device(device: str) -> None:
    microtorch.manual_seed(3)
    on_cpu = (microtorch.randn(4), microtorch.rand(2), microtorch.randint(0, 9, (3,)))
    microtorch.manual_seed(3)
    on_dev = (
        microtorch.randn(4, device=device),
        microtorch.rand(2, device=device),
        microtorch.randint(0, 9, (3,), device=device),
    )
    for a, b in zip(on_cpu, on_dev):
        assert a.tolist() == b.cpu().tolist()


def test_normal_with_numbers_or_tensors(device: str) -> None:
    microtorch.manual_seed(0)
    assert microtorch.normal(2.0, 3.0, size=(2, 3), device=device).shape == (2, 3)
    mean = microtorch.full((20000,), 5.0, dtype=microtorch.float64, device=device)
    samples = microtorch.normal(mean, microtorch.full((20000,), 2.0, device=device))
    assert samples.dtype is microtorch.float64 and samples.device == device
    assert samples.mean().item() == pytest.approx(5.0, abs=0.1)
    assert samples.std().item() == pytest.approx(2.0, abs=0.1)
    assert microtorch.normal(microtorch.zeros(2, 1), microtorch.ones(3)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        microtorch.normal(0.0, -1.0, size=(2,))
    with pytest.raises(TypeError, match="give the size= of the result"):
        microtorch.normal(0.0, 1.0)


def test_bernoulli_masked_select_and_take_along_dim(device: str) -> None:
    microtorch.manual_seed(0)
    probs = microtorch.full((20000,), 0.3, device=device)
    draws = microtorch.bernoulli(probs)
    assert draws.dtype is microtorch.float32 and draws.device == device
    assert set(draws.cpu().numpy().tolist()) == {0.0, 1.0}
    assert draws.mean().item() == pytest.approx(0.3, abs=0.02)
    assert probs.bernoulli(0.9).mean().item() == pytest.approx(0.9, abs=0.02)
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        microtorch.bernoulli(microtorch.tensor([1.5], device=device))
    x = microtorch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    picked = microtorch.masked_select(x, microtorch.tensor([True, False], device=device))
    assert picked.tolist() == [1.0, 3.0]  # the mask broadcasts over the rows
    order = microtorch.tensor([[1], [0]], device=device)
    assert x.take_along_dim(order, dim=1).tolist() == [[2.0], [3.0]]
    assert microtorch.take_along_dim(x, microtorch.tensor([3, 0], device=device)).tolist() == [
        4.0,
        1.0,
    ]
    picked.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0], [1.0, 0.0]]


def test_randint_errors() -> None:
    with pytest.raises(RuntimeError, match="low < high"):
        microtorch.randint(5, 5, (2,))
    with pytest.raises(TypeError, match="size"):
        microtorch.randint(0, 5)


def test_multinomial() -> None:
    probs = microtorch.tensor([0.0, 3.0, 1.0])  # unnormalised is fine
    draws = microtorch.multinomial(probs, 4000, replacement=True)
    assert draws.dtype is microtorch.int64 and draws.shape == (4000,)
    counts = np.bincount(draws.numpy(), minlength=3)
    assert counts[0] == 0  # zero probability is never drawn
    assert abs(counts[1] / 4000 - 0.75) < 0.03
    without = probs.multinomial(2)
    assert sorted(without.tolist()) == [1, 2]  # no repeats without replacement
    rows = microtorch.multinomial(microtorch.tensor([[1.0, 0.0], [0.0, 1.0]]), 1)
    assert rows.shape == (2, 1) and rows.tolist() == [[0], [1]]
    microtorch.manual_seed(9)
    a = microtorch.multinomial(microtorch.ones(10), 5).tolist()
    microtorch.manual_seed(9)
    assert microtorch.multinomial(microtorch.ones(10), 5).tolist() == a
    # without replacement, more draws than possible categories: the impossible ones come last
    for _ in range(20):
        drawn = microtorch.multinomial(microtorch.tensor([0.0, 2.0, 0.0, 1.0]), 4).tolist()
        assert sorted(drawn[:2]) == [1, 3] and sorted(drawn[2:]) == [0, 2]


def test_multinomial_errors() -> None:
    with pytest.raises(RuntimeError, match="cannot sample 3 > 2"):
        microtorch.multinomial(microtorch.ones(2), 3)
    with pytest.raises(RuntimeError, match="inf, nan or an element < 0"):
        microtorch.multinomial(microtorch.tensor([1.0, -1.0]), 1)
    with pytest.raises(RuntimeError, match="expects floating-point probabilities"):
        microtorch.multinomial(microtorch.tensor([1, 2]), 1)
    with pytest.raises(RuntimeError, match="cannot sample 0 <= 0 samples"):
        microtorch.multinomial(microtorch.ones(2), 0)


# ------------------------------------------------------------------ topk, argmax, max
def test_topk_and_argmax(device: str) -> None:
    t = microtorch.tensor([[1.0, 5.0, 3.0], [9.0, 2.0, 4.0]], device=device)
    values, indices = t.topk(2)
    assert values.tolist() == [[5.0, 3.0], [9.0, 4.0]] and indices.tolist() == [[1, 2], [0, 2]]
    assert indices.dtype is microtorch.int64
    low = microtorch.topk(t, 1, dim=0, largest=False)
    assert low.values.tolist() == [[1.0, 2.0, 3.0]] and low.indices.tolist() == [[0, 1, 0]]
    assert t.argmax().item() == 3
    assert t.argmax(dim=1).tolist() == [1, 0]
    assert microtorch.argmax(t, dim=0, keepdim=True).tolist() == [[1, 0, 1]]
    assert t.argmin(1).tolist() == [0, 1]
    result = t.max(dim=1)
    assert result.values.tolist() == [5.0, 9.0] and result.indices.tolist() == [1, 0]
    values, indices = t.min(1)
    assert values.tolist() == [1.0, 2.0] and indices.tolist() == [0, 1]
    with pytest.raises(RuntimeError, match="out of range"):
        t.topk(4)


def test_nanmean_of_an_all_nan_row_has_nan_gradient_as_pytorch() -> None:
    """nansum's gradient is grad times "not nan" (PyTorch's formula), so nanmean of a row of
    nans, grad / 0 there, gives nan gradients, and an inf grad into nansum gives nan at a nan
    (it gave 0: where() dropped them)."""
    torch = pytest.importorskip("torch")
    nan = float("nan")
    results = []
    for lib in (microtorch, torch):
        x = lib.tensor([[nan, nan], [1.0, nan], [2.0, 4.0]], requires_grad=True)
        lib.nanmean(x, 1).backward(lib.tensor([1.0, 2.0, 3.0]))
        z = lib.tensor([nan, 1.0, nan], requires_grad=True)
        lib.nansum(z).backward(lib.tensor(float("inf")))
        results.append((x.grad.numpy(), z.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)
    assert np.isnan(results[0][0][0]).all()


def test_topk_of_unsigned_integers_nan_and_0d_as_in_pytorch(device: str) -> None:
    # largest first was found by negating, which wraps around for unsigned integers
    small = microtorch.tensor([1, 2, 0, 2], dtype=microtorch.uint8, device=device)
    assert small.topk(2).values.tolist() == [2, 2] and small.topk(2).indices.tolist() == [1, 3]
    with_nan = microtorch.tensor([1.0, float("nan"), 3.0], device=device)
    assert with_nan.topk(1).indices.tolist() == [1]  # nan counts as the largest
    assert with_nan.topk(1, largest=False).indices.tolist() == [0]
    scalar = microtorch.tensor(2.0, device=device)
    assert scalar.topk(1).values.item() == 2.0 and scalar.topk(1).indices.item() == 0
    mask = microtorch.tensor([True, False], device=device)
    for bad in (lambda: mask.topk(1), lambda: mask.argmax(), lambda: mask.argmin(0)):
        with pytest.raises(RuntimeError, match="bool tensors are not supported.*long"):
            bad()


# ------------------------------------------------ shape, reduction, product and index ops
# Edge cases (integer and bool inputs, 0-d and empty tensors, out-of-range arguments), each
# run with microtorch and with PyTorch: the same values and dtypes, or the same error type.
NAN = float("nan")

EDGE_CASES = {
    "softmax_of_ints_refused": lambda T: T.softmax(T.tensor([1, 2]), 0),
    "log_softmax_of_bools_refused": lambda T: T.log_softmax(T.tensor([True, False]), 0),
    "trace_int32_gives_int64": lambda T: T.trace(T.tensor([[1, 2], [3, 4]], dtype=T.int32)),
    "trace_of_bools_refused": lambda T: T.trace(T.eye(2, dtype=T.bool)),
    "trace_of_bools_refused_before_the_shape": lambda T: T.trace(T.ones(3, dtype=T.bool)),
    "tensordot_of_bools_refused": lambda T: T.tensordot(T.ones(2, 3).bool(), T.ones(3).bool(), 1),
    "tensordot_mixed_dtypes_refused": lambda T: T.tensordot(T.ones(2, 3), T.ones(3).long(), 1),
    "tensordot_repeated_dims_refused": lambda T: T.tensordot(
        T.ones(2, 3, 4), T.ones(4, 4, 5), dims=([2, 2], [0, 1])
    ),
    "tensordot_repeated_wrapped_dims_refused": lambda T: T.tensordot(
        T.ones(2, 3, 3), T.ones(3, 3, 5), dims=([1, 2], [-3, 0])
    ),
    "inner_of_bools_refused": lambda T: T.inner(T.ones(3).bool(), T.ones(3).bool()),
    "inner_mixed_dtypes_refused": lambda T: T.inner(T.ones(2, 3), T.ones(3).double()),
    "cdist_with_no_coordinates_is_0_for_every_p": lambda T: tuple(
        T.cdist(T.ones(3, 0), T.ones(2, 0), p=p) for p in (0.0, 1.0, 2.0, 3.0, float("inf"))
    ),
    "dist_in_the_promoted_dtype": lambda T: (
        T.dist(T.ones(3), T.tensor([1, 2, 3])),
        T.dist(T.ones(3), T.ones(3, dtype=T.float64), 1),
        T.dist(T.ones(3, dtype=T.float16), T.tensor(3.0, dtype=T.float64)),
    ),
    "dist_of_integers_refused": lambda T: T.dist(T.tensor([1, 2]), T.tensor([3, 4])),
    "dist_p_kinds": lambda T: tuple(
        T.dist(T.ones(3), T.tensor([0.0, 2.0, 4.0]), p) for p in (True, float("inf"), T.tensor(2.0))
    ),
    "dist_p_string_refused": lambda T: T.dist(T.ones(3), T.zeros(3), "fro"),
    "dot_of_a_number_refused": lambda T: T.dot(T.ones(2, 3), 2.0),  # (a matrix first, too)
    "vdot_of_a_list_refused": lambda T: T.vdot(T.ones(2, 3), [1.0, 2.0, 3.0]),
    "outer_of_none_refused": lambda T: T.outer(T.ones(2, 3), None),
    "ger_of_a_number_refused": lambda T: T.ger(T.ones(2, 3), 2.0),
    "mv_of_a_list_refused": lambda T: T.mv(T.ones(3), [1.0, 2.0, 3.0]),
    "inner_with_a_0d_operand_multiplies": lambda T: (
        T.inner(T.ones(2, 3).bool(), T.tensor(True)),
        T.inner(T.tensor(2), T.arange(3.0)),
    ),
    "median_ints_lower_middle": lambda T: T.median(T.tensor([3, 1, 2, 4])),
    "median_dim_ints": lambda T: T.median(T.tensor([[3, 1], [2, 4]]), 0),
    "median_of_empty_is_nan": lambda T: T.median(T.tensor([])),
    "median_0d": lambda T: (T.median(T.tensor(5.0)), *T.median(T.tensor(5.0), 0)),
    "median_nan_wins": lambda T: (
        T.median(T.tensor([1.0, float("nan"), 0.0])),
        *T.median(T.tensor([[1.0, float("nan"), 0.0], [3.0, 1.0, 2.0]]), 1),
    ),
    "median_of_empty_ints": lambda T: (T.median(T.zeros(0, dtype=T.int64)), T.median(T.zeros(0))),
    "median_empty_rows": lambda T: T.median(T.zeros(0, 3), 1),
    "median_over_an_empty_dim": lambda T: T.median(T.zeros(0, 3), 0),
    "kthvalue_ints_and_0d": lambda T: (
        *T.kthvalue(T.tensor([3, 1, 2]), 2),
        *T.kthvalue(T.tensor(3.0), 1),
    ),  # fmt: skip
    "kthvalue_nan_is_largest_dim_none_refused": lambda T: T.kthvalue(
        T.tensor([[1.0, float("nan"), 0.0]]), 3, None
    ),
    "kthvalue_over_an_empty_dim": lambda T: T.kthvalue(T.zeros(3, 0), 1),
    "kthvalue_over_an_empty_dim_before_k": lambda T: T.kthvalue(T.zeros(3, 0), 0),
    "kthvalue_of_bools_refused": lambda T: T.kthvalue(T.tensor([True, False]), 1),
    "median_of_bools_refused": lambda T: T.median(T.tensor([True, False, True])),
    "median_dim_of_bools_refused": lambda T: T.tensor([[True, False]]).median(1),
    "nanmedian_of_bools_refused": lambda T: T.nanmedian(T.tensor([True, False, True])),
    "kthvalue_k_out_of_range": lambda T: T.kthvalue(T.tensor([3.0, 1.0]), 3),
    "kthvalue_nan_is_largest": lambda T: T.kthvalue(T.tensor([1.0, float("nan"), 0.0]), 3),
    "sum_to_an_integer_dtype_refused_with_grad": lambda T: T.ones(3, requires_grad=True).sum(
        dtype=T.int64
    ),
    "prod_to_an_integer_dtype_refused_with_grad": lambda T: T.prod(
        T.ones(3, requires_grad=True), 0, dtype=T.int32
    ),
    "sum_to_an_integer_dtype_without_grad": lambda T: (
        T.ones(3).sum(dtype=T.int64),
        T.ones(3, requires_grad=True).detach().nansum(dtype=T.int32),
        T.ones(3, requires_grad=True).sum(dtype=T.float64),
    ),
    "nansum_ints_and_bools": lambda T: (
        T.nansum(T.tensor([1, 2], dtype=T.int32)),
        T.nansum(T.tensor([True, True])),
    ),
    "nan_reductions_and_where_of_0d_predicates": lambda T: (
        T.nansum(T.tensor(1.5)),
        T.nanmean(T.tensor(2.0), 0),
        T.where(T.logical_not(T.tensor(True)), T.tensor(1.0), T.tensor(2.0)),
        T.where(T.isinf(T.tensor(1.0)) | T.isfinite(T.tensor(1.0)), T.tensor(0.0), 3.0),
        T.where(~T.tensor(False), T.tensor(4), T.tensor(5)),
    ),
    "argmax_argmin_keepdim_without_dim": lambda T: (
        T.argmax(T.tensor([[1, 5, 5], [0, 2, 3]]), keepdim=True),
        T.argmin(T.tensor([[3.0, 1.0], [0.0, 5.0]]).t(), None, True),
        T.tensor([[2.0, 2.0]]).argmax(dim=None, keepdim=True),
        T.argmax(T.tensor(2.0), None, True),
        T.argmin(T.zeros(0, 3), 1, keepdim=True),
    ),
    "argmax_of_empty_refused": lambda T: T.argmax(T.zeros(0, 3)),
    "argmin_over_an_empty_dim_refused": lambda T: T.argmin(T.zeros(0, 3), 0),
    "all_any_of_uint8_give_uint8": lambda T: (
        T.tensor([[1, 0], [2, 3]], dtype=T.uint8).all(),
        T.any(T.tensor([[1, 0], [0, 0]], dtype=T.uint8), 1),
        T.all(T.tensor([[1, 0], [2, 3]], dtype=T.int32), 0, keepdim=True),
    ),
    "nanmean_all_nan": lambda T: T.nanmean(T.tensor([float("nan")])),
    "nanmean_ints": lambda T: T.nanmean(T.tensor([1, 2])),
    "nanmean_to_an_integer_dtype_refused": lambda T: T.nanmean(T.ones(3), dtype=T.int64),
    "nanmean_integer_dtype_refused_before_dim": lambda T: T.nanmean(T.ones(3), 3, dtype=T.int64),
    "nanmean_ints_with_a_float_dtype_refused": lambda T: T.nanmean(
        T.tensor([1, 2], dtype=T.uint8), dtype=T.float32
    ),
    "var_ints_refused": lambda T: T.var(T.tensor([1, 2])),
    "std_bools_refused": lambda T: T.tensor([True, False]).std(0),
    "var_mean_ints": lambda T: T.var_mean(T.tensor([1, 2])),
    "var_mean_std_mean": lambda T: (
        *T.var_mean(T.tensor([1.0, 2.0, 4.0], dtype=T.float64), 0, keepdim=True),
        *T.var_mean(T.tensor([1.0, 2.0, 4.0], dtype=T.float64), None, keepdim=True),
        *T.std_mean(T.tensor([1.0, 2.0, 4.0], dtype=T.float64), unbiased=False),
    ),
    "count_nonzero_0d_bool_empty": lambda T: (
        T.count_nonzero(T.tensor(0.0)),
        T.count_nonzero(T.tensor([True, False])),
        T.count_nonzero(T.zeros(2, 0), 0),
    ),
    "aminmax_ints_0d_bools": lambda T: (
        *T.aminmax(T.tensor([1, 5, 2])),
        *T.aminmax(T.tensor(3.0)),
        *T.aminmax(T.tensor([True, False])),
    ),
    "amax_of_empty_without_dim_refused": lambda T: T.amax(T.zeros(0, 3)),
    "amin_of_empty_over_all_dims_refused": lambda T: T.zeros(0, 3).amin(()),
    "amax_over_an_empty_dim_refused": lambda T: T.amax(T.zeros(0, 3), 0),
    "amax_amin_of_empty_over_full_dims": lambda T: (
        T.amax(T.zeros(0, 3), 1),
        T.amin(T.zeros(2, 0), 0),
    ),
    "aminmax_empty": lambda T: T.aminmax(T.tensor([])),
    "roll_0d_and_empty": lambda T: (T.roll(T.tensor(3.0), 1), T.roll(T.zeros(0, 2), 1, 0)),
    "roll_0d_with_dims": lambda T: T.roll(T.tensor(3.0), 1, 0),
    "roll_shifts_without_dims": lambda T: T.roll(T.arange(6).reshape(2, 3), [1, 1]),
    "roll_fewer_shifts_than_dims": lambda T: T.roll(T.arange(6).reshape(2, 3), 1, [0, 1]),
    "diff_n_past_the_length_and_0": lambda T: (
        T.diff(T.tensor([1, 4, 9]), n=5),
        T.diff(T.tensor([1, 4, 9]), n=0),
        T.diff(T.ones(2, 2), n=0, dim=0, prepend=T.zeros(1, 2), append=T.zeros(3, 2)),
    ),
    "diff_n_0_still_checks_prepend": lambda T: T.diff(T.ones(2, 2), n=0, append=T.ones(3, 3)),
    "diff_bools_and_uint8": lambda T: (
        T.diff(T.tensor([True, False, False])),
        T.diff(T.tensor([1, 2], dtype=T.uint8)),
    ),
    "diff_n_0_leaves_prepend_and_append_out": lambda T: (
        T.diff(T.ones(2, 3), n=0, dim=0, prepend=T.zeros(1, 3), append=T.zeros(2, 3)),
        T.diff(T.tensor([1, 4]), n=0, append=T.tensor([2.5])),
    ),
    "diff_promotes_with_append": lambda T: T.diff(T.tensor([1, 4, 9]), append=T.tensor([1.5])),
    "diff_0d": lambda T: T.diff(T.tensor(1.0)),
    "diff_negative_n": lambda T: T.diff(T.tensor([1.0, 4.0]), n=-1),
    "diff_prepend_of_other_ndim": lambda T: T.diff(T.tensor([[1.0, 4.0]]), prepend=T.tensor([0.0])),
    "rot90_same_dims": lambda T: T.rot90(T.ones(2, 3), 1, [0, 0]),
    "rot90_1d": lambda T: T.rot90(T.ones(2), 1),
    "rot90_k0": lambda T: T.rot90(T.arange(6).reshape(2, 3), 0),
    "flip_0d_and_no_dims": lambda T: (
        T.tensor(2.0).flip(0),
        T.flip(T.tensor(3), (-1,)),
        T.flip(T.arange(3.0), ()),
    ),
    "flip_0d_dim_out_of_range": lambda T: T.flip(T.tensor(2.0), (1,)),
    "sort_0d": lambda T: (*T.sort(T.tensor(2.0), -1), T.argsort(T.tensor(3), 0)),
    "sort_0d_dim_out_of_range": lambda T: T.sort(T.tensor(2.0), 1),
    "argsort_0d_dim_out_of_range": lambda T: T.argsort(T.tensor(2.0), dim=-2),
    "flatten_0d": lambda T: (T.flatten(T.tensor(2.0)), T.tensor(3).flatten(-1, 0)),
    "flatten_0d_dim_out_of_range": lambda T: T.flatten(T.tensor(2.0), 1),
    "unflatten_0d_refused": lambda T: T.unflatten(T.tensor(2.0), 0, (1,)),
    "unflatten_minus_one_from_the_dim_alone": lambda T: (
        T.zeros(1, 0, 2).unflatten(0, (-1, 1)),
        T.arange(12).reshape(3, 4).unflatten(-1, (4, 1, -1)),
    ),
    "unflatten_sizes_not_the_dims_refused": lambda T: T.zeros(3, 4).unflatten(1, (3,)),
    "unflatten_no_sizes_refused": lambda T: T.zeros(3, 4).unflatten(1, ()),
    "unflatten_two_minus_ones_refused": lambda T: T.zeros(3, 4).unflatten(1, (-1, -1)),
    "unflatten_ambiguous_minus_one_refused": lambda T: T.zeros(1, 0, 2).unflatten(1, (0, -1)),
    "split_0d_refused": lambda T: T.split(T.tensor(2.0), 1),
    "chunk_0d_refused": lambda T: T.tensor(2.0).chunk(1),
    "narrow_start_out_of_range": lambda T: T.narrow(T.ones(3, 4), 1, -5, 1),
    "narrow_length_too_long": lambda T: T.ones(3, 4).narrow(1, 3, 2),
    "narrow_from_the_end": lambda T: (T.arange(4).narrow(0, -1, 1), T.arange(4).narrow(0, 4, 0)),
    "narrow_0d_refused": lambda T: T.narrow(T.tensor(2.0), 0, 0, 1),
    "movedim_numpy_int_dims": lambda T: (
        T.ones(2, 3, 4).movedim(np.int64(0), 2),
        T.movedim(T.ones(2, 3), np.int32(-1), 0),
        T.moveaxis(T.ones(2, 3, 4), [np.int64(0)], [np.int64(1)]),
    ),
    "movedim_0d": lambda T: (T.movedim(T.tensor(2.0), 0, 0), T.tensor(3).moveaxis(-1, 0)),
    "movedim_0d_dim_out_of_range": lambda T: T.movedim(T.tensor(2.0), 0, 1),
    "split_negative_size_refused": lambda T: T.split(T.arange(5), [-1, 6]),
    "expand_minus_one_keeps_a_dim": lambda T: (
        T.ones(3, 1).expand(2, -1, 4),
        T.tensor(2.0).expand(3),
        T.ones(1).expand(-1),
    ),
    "expand_minus_one_in_a_new_dim_refused": lambda T: T.ones(3, 1).expand(-1, 3, 4),
    "expand_0d_minus_one_refused": lambda T: T.tensor(2.0).expand(-1),
    "repeat_interleave_of_counts_alone": lambda T: (
        T.repeat_interleave(T.tensor([2, 0, 1])),
        T.repeat_interleave(T.tensor([1, 2], dtype=T.int32)),
        T.repeat_interleave(T.tensor([], dtype=T.int64)),
        T.repeat_interleave(T.tensor([2, 1]), output_size=3),
        T.repeat_interleave(T.ones(2), T.tensor([1, 2], dtype=T.int32)),
    ),
    "repeat_interleave_counts_alone_2d_refused": lambda T: T.repeat_interleave(T.tensor([[1]])),
    "repeat_interleave_float_counts_refused": lambda T: T.repeat_interleave(
        T.ones(2), T.tensor([1.0, 2.0])
    ),
    "repeat_interleave_2d_counts_refused": lambda T: T.repeat_interleave(
        T.ones(2), T.tensor([[1, 2]])
    ),
    "repeat_interleave_python_float_refused": lambda T: T.repeat_interleave(T.ones(2), 2.0),
    "mT_of_a_batch": lambda T: T.arange(6.0).reshape(1, 2, 3).mT,
    "mT_of_1d_refused": lambda T: T.arange(3.0).mT,
    "H_mH_adjoint_of_ints": lambda T: (
        T.arange(6).reshape(2, 3).H,
        T.arange(6).reshape(1, 2, 3).mH,
        T.adjoint(T.ones(2, 1)),
    ),
    "H_mH_adjoint_of_0d": lambda T: (T.tensor(2.0).H, T.tensor(2.0).mH, T.tensor(2).adjoint()),
    "H_of_1d_refused": lambda T: T.arange(3.0).H,
    "H_of_a_batch_refused": lambda T: T.ones(2, 3, 4).H,
    "mH_of_1d_refused": lambda T: T.arange(3.0).mH,
    "adjoint_of_1d_refused": lambda T: T.adjoint(T.arange(3.0)),
    "msort_ints_and_0d": lambda T: (T.msort(T.tensor([[3, 1], [2, 4]])), T.tensor(2.0).msort()),
    "msort_of_empty": lambda T: T.msort(T.zeros(0, 2)),
    "sum_to_size_of_ints_and_bools": lambda T: (
        T.arange(6).reshape(2, 3).sum_to_size(1, 3),
        T.tensor([[True, True]]).sum_to_size(1, 1),
        T.tensor([[True, True]]).sum_to_size(1, 2),
    ),
    "sum_to_size_forms": lambda T: (
        T.arange(6.0).reshape(2, 3).sum_to_size(3),
        T.arange(6.0).reshape(2, 3).sum_to_size(T.Size([1, 1])),
        T.arange(6.0).reshape(2, 3).sum_to_size([2, 1]),
        T.tensor(3.0).sum_to_size(()),
        T.zeros(0, 3).sum_to_size(1, 3),
    ),
    "sum_to_size_to_0d_is_a_plain_sum": lambda T: (  # int64 for ints and bools
        T.tensor(True).sum_to_size(()),
        T.tensor([[1, 2]]).sum_to_size(()),
        T.tensor([True, True]).sum_to_size(T.Size([])),
    ),
    "sum_to_size_not_expandable_refused": lambda T: T.ones(2, 3).sum_to_size(2, 2),
    "sum_to_size_too_many_dims_refused": lambda T: T.ones(2, 3).sum_to_size(1, 2, 3),
    "dstack_promotes_and_lifts_0d": lambda T: (
        T.dstack([T.tensor(1.0), T.tensor(2)]),
        T.dstack([T.ones(2, 3), T.ones(2, 3, dtype=T.int64)]),
        T.stack([T.ones(2), T.zeros(2)], axis=1),
    ),
    "dstack_of_a_lone_tensor_refused": lambda T: T.dstack(T.ones(2, 3)),
    "cat_of_nothing_refused": lambda T: T.cat([]),
    "cat_of_a_lone_tensor_refused": lambda T: T.cat(T.ones(2, 3)),
    "stack_of_a_lone_tensor_refused": lambda T: T.stack(T.ones(2, 3)),
    "stack_of_nothing_refused": lambda T: T.stack(()),
    "hstack_of_nothing_refused": lambda T: T.hstack([]),
    "vstack_of_a_lone_tensor_refused": lambda T: T.vstack(T.ones(2, 3)),
    "column_stack_of_nothing_refused": lambda T: T.column_stack([]),
    "pytorch_keyword_names": lambda T: (
        T.max(T.tensor([1.0, 5.0]), other=T.tensor([3.0, 2.0])),
        T.min(input=T.tensor([1.0, 5.0]), other=T.tensor([3.0, 2.0])),
        *T.split(tensor=T.arange(5), split_size_or_sections=2),
        T.arange(3).tile(dims=(2,)),
    ),
    "numpy_axis_keepdims_names": lambda T: (
        T.nansum(T.tensor([[1.0, NAN], [2.0, 3.0]]), axis=1),
        T.tensor([[1.0, NAN], [2.0, 3.0]]).nanmean(axis=0, keepdims=True),
        T.arange(1, 7).reshape(2, 3).prod(axis=1, keepdims=True),
        T.tensor([[True, False], [True, True]]).all(axis=1),
        T.any(T.tensor([[True, False], [False, False]]), axis=0, keepdims=True),
    ),
    "squeeze_method_forms": lambda T: (
        T.ones(1, 3, 1).squeeze(0, 2),
        T.ones(1, 3, 1).squeeze((0, 1)),
        T.ones(1, 3, 1).squeeze(dim=-1),
        T.ones(1, 3, 1).squeeze(),
    ),
    "broadcast_tensors_of_a_number_refused": lambda T: T.broadcast_tensors(T.ones(2), 2.0),
    "broadcast_shapes_negative_refused": lambda T: T.broadcast_shapes((-1,), (3,)),
    "vector_norm_of_empty_dims": lambda T: (
        T.linalg.vector_norm(T.zeros(0, 3), 2, dim=0),
        T.linalg.vector_norm(T.zeros(0, 3), float("inf"), dim=1),
        T.norm(T.zeros(0, 3), 1),
    ),
    "vector_norm_negative_ord_of_empty_refused": lambda T: T.linalg.vector_norm(T.zeros(0, 3), -1),
    "vector_norm_inf_over_an_empty_dim_refused": lambda T: T.linalg.vector_norm(
        T.zeros(0, 3), float("inf"), dim=0
    ),
    "norm_minus_inf_of_empty_refused": lambda T: T.norm(T.zeros(0, 3), float("-inf")),
    "flipud_0d": lambda T: T.flipud(T.tensor(1.0)),
    "fliplr_1d": lambda T: T.fliplr(T.ones(3)),
    "diag_0d": lambda T: T.diag(T.tensor(1.0)),
    "diag_3d": lambda T: T.diag(T.ones(2, 2, 2)),
    "diag_offset_past_the_matrix": lambda T: T.diag(T.arange(6).reshape(2, 3), 5),
    "diagonal_1d": lambda T: T.diagonal(T.ones(3), 0),
    "diagonal_same_dims": lambda T: T.diagonal(T.ones(2, 3), 0, 1, 1),
    "diagonal_empty": lambda T: T.diagonal(T.arange(6).reshape(2, 3), -5),
    "diag_embed_0d": lambda T: T.diag_embed(T.tensor(1.0)),
    "diag_embed_same_dims": lambda T: T.diag_embed(T.arange(3), 0, 1, 1),
    "tensor_split_0d": lambda T: T.tensor_split(T.tensor(1.0), 2),
    "tensor_split_0_sections": lambda T: T.tensor_split(T.arange(5), 0),
    "tensor_split_more_sections_than_elements": lambda T: T.tensor_split(T.arange(2), 4),
    "tensor_split_tensor_arguments": lambda T: (
        *T.tensor_split(T.arange(5), T.tensor(2)),
        *T.tensor_split(T.arange(5), T.tensor([1, 3])),
    ),
    "tensor_split_decreasing_indices": lambda T: T.tensor_split(T.arange(5), (3, 1)),
    "tensor_split_float_sections": lambda T: T.tensor_split(T.arange(5), 2.0),
    "tensor_split_keyword_forms": lambda T: (
        *T.tensor_split(T.arange(7), sections=3),
        *T.arange(7).tensor_split(indices=(1, 5)),
        *T.tensor_split(T.arange(6).reshape(2, 3), indices=[1], dim=1),
    ),
    "tensor_split_sections_keyword_list_refused": lambda T: T.tensor_split(
        T.arange(7), sections=[1, 2]
    ),
    "tensor_split_indices_keyword_int_refused": lambda T: T.tensor_split(T.arange(7), indices=2),
    "tensor_split_both_forms_refused": lambda T: T.tensor_split(T.arange(7), 3, sections=2),
    "tensor_split_no_cuts_refused": lambda T: T.tensor_split(T.arange(7)),
    "hsplit_uneven": lambda T: T.hsplit(T.ones(2, 3), 2),
    "hsplit_0d": lambda T: T.hsplit(T.tensor(1.0), 1),
    "vsplit_1d": lambda T: T.vsplit(T.ones(3), 1),
    "dsplit_2d": lambda T: T.dsplit(T.ones(2, 2), 1),
    "hsplit_0_sections": lambda T: T.hsplit(T.ones(2, 4), 0),
    "ravel_and_atleast_of_0d": lambda T: (
        T.ravel(T.tensor(2.0)),
        T.atleast_2d(T.tensor(2.0)),
        *T.atleast_1d([T.tensor(2.0)]),
        T.atleast_3d(T.ones(1, 2, 3, 4)),
    ),
    "matmul_dtypes_differ_refused": lambda T: T.matmul(T.ones(2, 3), T.ones(3, dtype=T.float64)),
    "mm_int_and_float_refused": lambda T: T.mm(T.ones(2, 3, dtype=T.int64), T.ones(3, 2)),
    "dot_dtypes_differ_refused": lambda T: T.dot(T.ones(3), T.ones(3, dtype=T.float64)),
    "inner_ints_and_empty": lambda T: (
        T.inner(T.arange(6).reshape(2, 3), T.arange(3)),
        T.inner(T.ones(2, 0), T.ones(3, 0)),
    ),
    "inner_last_dims_differ_refused": lambda T: T.inner(T.ones(2, 3), T.ones(2, 4)),
    "matmul_of_bools_refused": lambda T: T.ones(2, 3, dtype=T.bool) @ T.ones(3, dtype=T.bool),
    "vdot_ints": lambda T: T.vdot(T.tensor([1, 2]), T.tensor([3, 4])),
    "vdot_2d_refused": lambda T: T.vdot(T.ones(2, 2), T.ones(2, 2)),
    "vdot_sizes_differ_refused": lambda T: T.vdot(T.ones(2), T.ones(3)),
    "vdot_dtypes_differ_refused": lambda T: T.vdot(T.ones(3), T.ones(3, dtype=T.float64)),
    "chain_matmul_of_one_matrix": lambda T: T.chain_matmul(T.arange(6.0).reshape(2, 3)),
    "chain_matmul_of_ints": lambda T: T.chain_matmul(
        T.ones(2, 3, dtype=T.int64), T.ones(3, 1, dtype=T.int64)
    ),
    "chain_matmul_of_a_vector_refused": lambda T: T.chain_matmul(T.ones(3), T.ones(3, 2)),
    "chain_matmul_of_nothing_refused": lambda T: T.chain_matmul(),
    "chain_matmul_of_a_list_refused": lambda T: T.chain_matmul([T.ones(2, 2), T.ones(2, 2)]),
    "dot_of_bools_refused": lambda T: T.dot(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool)),
    "einsum_sums_of_ints_and_bools_are_int64": lambda T: (
        T.einsum("ij->j", T.ones(2, 3, dtype=T.int8)),
        T.einsum("ii", T.tensor([[True, False], [True, True]])),
        T.einsum("ij->", T.full((2, 3), 100, dtype=T.int8)),  # no int8 overflow
        T.einsum("ii->i", T.ones(2, 2, dtype=T.int8)),  # nothing summed: stays int8
        T.einsum("ij->ji", T.tensor([[True, False]])),
        T.einsum("ij,jk", T.ones(2, 3, dtype=T.int32), T.ones(3, 2, dtype=T.int32)),
    ),
    "ger_is_outer": lambda T: (T.ger(T.arange(3), T.arange(2)), T.arange(2.0).ger(T.ones(2))),
    "matmul_of_ints": lambda T: T.arange(6).reshape(2, 3) @ T.arange(3),
    "addmm_ints": lambda T: T.addmm(
        T.ones(2, 2, dtype=T.int64),
        T.ones(2, 2, dtype=T.int64),
        T.ones(2, 2, dtype=T.int64),
        beta=2,
        alpha=3,
    ),  # fmt: skip
    "addmm_family_truncates_float_scales_for_ints": lambda T: (
        T.addmm(
            T.arange(2).reshape(2, 1),
            T.ones(2, 3, dtype=T.int64),
            T.ones(3, 2, dtype=T.int64),
            beta=1.7,
            alpha=2.9,
        ),
        T.addmv(
            T.arange(2), T.ones(2, 3, dtype=T.int64), T.ones(3, dtype=T.int64), beta=-1.7, alpha=0.6
        ),
        T.addbmm(
            T.arange(2).reshape(2, 1),
            T.ones(4, 2, 3, dtype=T.int64),
            T.ones(4, 3, 2, dtype=T.int64),
            beta=0.2,
            alpha=-2.5,
        ),
        T.baddbmm(
            T.arange(2).reshape(2, 1),
            T.ones(4, 2, 3, dtype=T.int64),
            T.ones(4, 3, 2, dtype=T.int64),
            beta=2.99,
            alpha=1.5,
        ),
        T.arange(2).addmv_(T.ones(2, 3, dtype=T.int64), T.ones(3, dtype=T.int64), alpha=1.9),
    ),  # fmt: skip
    "addmm_input_larger_than_the_product": lambda T: T.addmm(
        T.ones(3, 3), T.ones(2, 2), T.ones(2, 2)
    ),  # fmt: skip
    "addmm_mismatched_matrices": lambda T: T.addmm(T.ones(2), T.ones(2, 3), T.ones(2, 2)),
    "addmv_beta0_addbmm_addr_ints": lambda T: (
        T.addmv(T.ones(2), T.ones(2, 3), T.ones(3), beta=0),
        T.addr(T.ones(2, 3, dtype=T.int64), T.arange(2), T.arange(3)),
    ),
    "addbmm_mismatched_batches": lambda T: T.addbmm(
        T.ones(2, 2), T.ones(3, 2, 4), T.ones(2, 4, 2)
    ),  # fmt: skip
    "addmm_input_of_another_dtype_refused": lambda T: T.addmm(
        T.zeros(2, 2, dtype=T.float64), T.ones(2, 3), T.ones(3, 2)
    ),
    "addmm_0d_input_of_another_dtype_refused": lambda T: T.addmm(
        T.tensor(1), T.ones(2, 3), T.ones(3, 2)
    ),
    "addmv_input_of_another_dtype_refused": lambda T: T.addmv(
        T.zeros(2, dtype=T.float64), T.ones(2, 3), T.ones(3)
    ),
    "baddbmm_input_of_another_dtype_refused": lambda T: T.baddbmm(
        T.zeros(2, 2, dtype=T.float64), T.ones(1, 2, 3), T.ones(1, 3, 2)
    ),
    "addbmm_input_of_another_dtype_refused": lambda T: T.addbmm(
        T.zeros(2, 2, dtype=T.int64), T.ones(1, 2, 3), T.ones(1, 3, 2)
    ),
    "addr_promotes": lambda T: T.addr(T.zeros(2, 3, dtype=T.float64), T.ones(2), T.ones(3)),
    "addr_of_bools_is_logical": lambda T: (
        T.addr(T.zeros(2, 3).bool(), T.tensor([True, False]), T.tensor([True, True, False])),
        T.addr(
            T.ones(2, 3).bool(),
            T.tensor([True, False]),
            T.tensor([True, False, True]),
            beta=0,
            alpha=3,
        ),
        T.addr(
            T.ones(2, 3).bool(), T.tensor([True, False]), T.tensor([True, True, False]), alpha=0
        ),
    ),  # fmt: skip
    "addr_float_beta_for_ints_refused": lambda T: T.addr(
        T.ones(2, 3, dtype=T.int64), T.arange(2), T.arange(3), beta=0.5
    ),
    "addr_float_alpha_for_bools_refused": lambda T: T.addr(
        T.ones(2, 3).bool(), T.tensor([True, False]), T.tensor([True, True, False]), alpha=2.0
    ),
    "addr_bool_beta_for_floats_refused": lambda T: T.addr(
        T.ones(2, 3), T.ones(2), T.ones(3), beta=True
    ),
    "addcmul_ints_and_promotion": lambda T: (
        T.addcmul(T.ones(2, dtype=T.int64), T.arange(2), T.arange(2), value=2),
        T.addcmul(T.ones(2), T.arange(2), T.arange(2), value=0.5),
        T.addcdiv(T.ones(2), T.arange(2), T.arange(1, 3), value=2),
    ),
    "addcdiv_integer_division": lambda T: T.addcdiv(
        T.ones(2, dtype=T.int64), T.arange(2), T.arange(1, 3)
    ),  # fmt: skip
    "addcdiv_result_cannot_be_int": lambda T: T.addcdiv(
        T.ones(2, dtype=T.int64), T.arange(2.0), T.arange(1, 3)
    ),  # fmt: skip
    "tensordot_ints_and_all_dims": lambda T: (
        T.tensordot(T.arange(6).reshape(2, 3), T.arange(6).reshape(3, 2), dims=([1], [0])),
        T.tensordot(T.ones(3, 2), T.ones(3, 2), dims=([0, 1], [0, 1])),
    ),
    "tensordot_too_many_dims": lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), 3),
    "tensordot_sizes_differ": lambda T: T.tensordot(T.ones(2, 3), T.ones(2, 2), ([1], [0])),
    "tensordot_lists_of_two_lengths": lambda T: T.tensordot(
        T.ones(2, 3), T.ones(3, 2), ([1], [0, 1])
    ),  # fmt: skip
    "tensordot_negative_dims": lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), -1),
    "kron_0d_and_ints": lambda T: (
        T.kron(T.tensor(2.0), T.tensor([1.0, 3.0])),
        T.kron(T.arange(2), T.arange(3)),
    ),  # fmt: skip
    "cross_first_dim_of_size_3": lambda T: T.cross(T.ones(3, 3, 4), T.ones(3, 3, 4) * 2),
    "cross_ints": lambda T: T.cross(T.arange(3), T.arange(3) + 1, dim=0),
    "cross_no_dim_of_size_3": lambda T: T.cross(T.ones(2, 4), T.ones(2, 4)),
    "cross_dim_not_of_size_3": lambda T: T.cross(T.ones(2, 4), T.ones(2, 4), 1),
    "cartesian_prod_2d": lambda T: T.cartesian_prod(T.ones(2, 2)),
    "cartesian_prod_dtypes_differ": lambda T: T.cartesian_prod(T.arange(2), T.tensor([])),
    "meshgrid_0d_and_one_tensor": lambda T: (
        *T.meshgrid(T.tensor(1.0), T.arange(2.0), indexing="ij"),
        *T.meshgrid(T.arange(2), indexing="xy"),
    ),
    "meshgrid_unknown_indexing": lambda T: T.meshgrid(T.arange(2), T.arange(3), indexing="ji"),
    "meshgrid_2d": lambda T: T.meshgrid(T.ones(2, 2), indexing="ij"),
    "meshgrid_dtypes_differ": lambda T: T.meshgrid(T.arange(2), T.arange(3.0), indexing="ij"),
    "tril_triu_indices_edges": lambda T: (
        T.tril_indices(0, 3),
        T.tril_indices(3, 3, dtype=T.int32),
        T.triu_indices(3, 5, 10),
    ),
    "tril_indices_negative_row": lambda T: T.tril_indices(-1, 3),
    "tril_indices_float_dtype_refused": lambda T: T.tril_indices(3, 3, dtype=T.float32),
    "diag_float_offset_refused": lambda T: T.diag(T.ones(3, 3), 1.5),
    "diagonal_float_offset_refused": lambda T: T.ones(3, 3).diagonal(1.0),
    "diag_embed_float_offset_refused": lambda T: T.diag_embed(T.ones(3), 1.0),
    "tril_bool_diagonal_refused": lambda T: T.tril(T.ones(3, 3), True),
    "triu_bool_diagonal_refused": lambda T: T.ones(3, 3).triu_(False),
    "diag_offsets_of_integer_kinds": lambda T: (
        T.diag(T.ones(3, 3), T.tensor(1)),
        T.tril(T.ones(3, 3), np.int64(-1)),
        T.diag_embed(T.ones(2), np.int32(1)),
    ),
    "triu_indices_int16_dtype_refused": lambda T: T.triu_indices(3, 3, dtype=T.int16),
    "searchsorted_scalars_int32_sorter": lambda T: (
        T.searchsorted(T.tensor([1, 3, 5]), T.tensor([3]), out_int32=True),
        T.searchsorted(T.tensor([1, 3, 5]), 3.5),
        T.searchsorted(T.tensor([5, 1, 3]), T.tensor([3, 4]), sorter=T.tensor([1, 2, 0])),
        T.searchsorted(T.tensor([1.0, 3.0]), T.tensor([[2.0, 4.0]])),
        T.bucketize(3, T.tensor([1, 3, 5])),
        T.bucketize(T.tensor([[3, 6], [0, 1]]), T.tensor([1, 3, 5]), right=True, out_int32=True),
    ),
    "searchsorted_unknown_side": lambda T: T.searchsorted(
        T.tensor([1, 3]), T.tensor([3]), side="middle"
    ),  # fmt: skip
    "searchsorted_side_contradicts_right": lambda T: T.searchsorted(
        T.tensor([1, 3]), T.tensor([3]), right=True, side="left"
    ),
    "searchsorted_leading_dims_differ": lambda T: T.searchsorted(
        T.tensor([[1, 3, 5]]), T.tensor([3, 4])
    ),  # fmt: skip
    "searchsorted_0d_sequence": lambda T: T.searchsorted(T.tensor(1), T.tensor([3, 4])),
    "bucketize_2d_boundaries": lambda T: T.bucketize(T.tensor([3, 6]), T.tensor([[1, 3, 5]])),
    "unique_nan_0d_bools_empty": lambda T: (
        T.unique(T.tensor([2.0, float("nan"), float("nan"), 1.0])),
        T.unique(T.tensor(3)),
        *T.unique(T.tensor([True, False, True]), return_counts=True),
        *T.unique(T.tensor([], dtype=T.int64), return_inverse=True),
    ),
    "einsum_sublist_subscript_out_of_range": lambda T: T.einsum(T.ones(2, 3), [0, 52]),
    "einsum_sublist_negative_subscript": lambda T: T.einsum(T.ones(2, 3), [0, -1]),
    "unique_dim_slices_nan_bools_empty": lambda T: (
        *T.unique(
            T.tensor([[3, 1], [1, 2], [3, 1]]), dim=0, return_inverse=True, return_counts=True
        ),
        T.unique(T.tensor([[3, 1], [1, 2], [3, 1]]), sorted=False, dim=-2),
        *T.unique(T.tensor([[2.0, float("nan")], [2.0, float("nan")]]), dim=0, return_counts=True),
        *T.unique(T.tensor([True, False, True]), dim=0, return_inverse=True),
        *T.unique(T.zeros(0, 2), dim=0, return_inverse=True, return_counts=True),
        *T.unique(T.arange(24).reshape(2, 3, 4) % 2, dim=2, return_inverse=True),
    ),
    "unique_dim_of_0d_refused": lambda T: T.unique(T.tensor(5), dim=0),
    "unique_dim_out_of_range": lambda T: T.unique(T.ones(2, 2), dim=2),
    "unique_dim_with_other_empty_dims_refused": lambda T: T.unique(T.zeros(3, 0), dim=0),
    "index_fill_ints_negative_index_0d": lambda T: (
        T.index_fill(T.arange(4), 0, T.tensor([1]), 9),
        T.index_fill(T.arange(4), 0, T.tensor([1]), 2.7),
        T.index_fill(T.ones(2, 3), 1, T.tensor([-1]), 0),
        T.index_fill(T.ones(2, 3), 1, T.tensor(0), 0),
        T.index_fill(T.tensor(1.0), 0, T.tensor([-1]), 5),
    ),
    "index_fill_index_out_of_range": lambda T: T.index_fill(T.ones(2, 3), 1, T.tensor([3]), 0),
    "index_fill_2d_index": lambda T: T.index_fill(T.ones(2, 3), 1, T.tensor([[0]]), 0),
    "index_fill_float_index": lambda T: T.index_fill(T.ones(2, 3), 1, T.tensor([0.0]), 0),
    "index_fill_int32_index": lambda T: T.index_fill(
        T.ones(2, 3), 1, T.tensor([0], dtype=T.int32), 0
    ),  # fmt: skip
    "index_copy_0d_and_rows": lambda T: (
        T.index_copy(T.tensor(1.0), 0, T.tensor([0]), T.tensor(5.0)),
        T.index_copy(T.ones(2, 3), 0, T.tensor([1, 0]), T.arange(6.0).reshape(2, 3)),
    ),
    "index_copy_source_shape": lambda T: T.index_copy(
        T.ones(2, 3), 1, T.tensor([0]), T.zeros(2, 2)
    ),  # fmt: skip
    "index_copy_source_dtype": lambda T: T.index_copy(
        T.ones(2, 3), 1, T.tensor([0]), T.zeros(2, 1, dtype=T.float64)
    ),  # fmt: skip
    "index_copy_negative_index": lambda T: T.index_copy(
        T.ones(2, 3), 1, T.tensor([-1]), T.zeros(2, 1)
    ),  # fmt: skip
    "gather_scatter_0d_count_as_1d": lambda T: (
        T.gather(T.arange(3.0), 0, T.tensor(1)),
        T.gather(T.tensor(5.0), -1, T.tensor([0, 0])),
        T.tensor(5.0).gather(0, T.tensor(0), sparse_grad=False),
        T.scatter(T.tensor(5.0), 0, T.tensor(0), T.tensor(2.0)),
        T.scatter(T.zeros(3), 0, T.tensor(1), T.tensor(2.0)),
        T.scatter_add(T.zeros(3), 0, T.tensor([1]), T.tensor(2.0)),
        T.zeros(3).scatter(0, T.tensor(2), 7.0),
    ),
    "scatter_reduce_add_and_multiply": lambda T: (  # (the older reduce= form of scatter)
        T.full((2, 4), 2.0).scatter_(1, T.tensor([[2], [3]]), 1.23, reduce="multiply"),
        T.full((2, 4), 2.0).scatter(1, T.tensor([[2], [3]]), value=1.5, reduce="add"),
        T.ones(2, 3).scatter(
            1, T.tensor([[2, 2], [0, 1]]), T.tensor([[1.5, 3.0], [2.0, 4.0]]), reduce="multiply"
        ),
        T.ones(2, 3).scatter(1, T.tensor([[2, 2], [0, 1]]), T.full((2, 3), 5.0), reduce="add"),
        T.tensor([[1, 2]]).scatter(1, T.tensor([[0]]), 3, reduce="add"),
        T.tensor([[1, 2]]).scatter(1, T.tensor([[0]]), 2, reduce="multiply"),
    ),
    "scatter_reduce_mean_refused": lambda T: T.ones(2).scatter(
        0, T.tensor([0]), 1.0, reduce="mean"
    ),
    "gather_int16_index_refused": lambda T: T.gather(T.ones(2), 0, T.tensor([0], dtype=T.int16)),
    "gather_of_an_empty_index_checks_nothing_more": lambda T: (
        T.gather(T.ones(5), 0, T.ones(0, dtype=T.uint8)),
        T.gather(T.ones(5), 0, T.ones(2, 0, dtype=T.int64)),
        T.gather(T.ones(5, 2), 0, T.ones(2, 0, 3, dtype=T.int64)),
    ),
    "take_along_dim_negative_indices_along_a_dim": lambda T: (
        T.take_along_dim(T.arange(10.0).reshape(2, 5), T.tensor([[-1], [-5]]), 1),
        T.arange(10).reshape(2, 5).take_along_dim(T.tensor([[-1, 0]]), dim=0),
    ),
    "take_along_dim_negative_flat_index_refused": lambda T: T.take_along_dim(
        T.arange(10.0), T.tensor([-1])
    ),
    "gather_int32_index": lambda T: T.gather(T.arange(3.0), 0, T.tensor([2], dtype=T.int32)),
    "gather_0d_index_of_2d_input_refused": lambda T: T.gather(T.ones(2, 3), 0, T.tensor(0)),
    "gather_index_wider_than_input_refused": lambda T: T.gather(
        T.ones(3, 4), 1, T.zeros(4, 1, dtype=T.int64)
    ),
    "where_int_condition_refused": lambda T: T.where(T.tensor([1, 0]), T.ones(2), 0.0),
    "where_uint8_condition_taken": lambda T: T.where(
        T.tensor([1, 0], dtype=T.uint8), T.ones(2), 0.0
    ),
    "take_0d_index_and_0d_input": lambda T: (
        T.take(T.arange(6).reshape(2, 3), T.tensor(4)),
        T.take(T.tensor(3.0), T.tensor([0, 0])),
    ),
    "take_out_of_range": lambda T: T.take(T.arange(6).reshape(2, 3), T.tensor([6])),
    "take_out_of_range_negative": lambda T: T.take(T.arange(6).reshape(2, 3), T.tensor([-7])),
    "take_float_index": lambda T: T.take(T.arange(6), T.tensor([0.0])),
    "put_ints_0d_and_empty": lambda T: (
        T.put(T.arange(6).reshape(2, 3), T.tensor([[0, -1]]), T.tensor([[7, 8]])),
        T.tensor(3.0).put_(T.tensor(0), T.tensor(5.0)),
        T.zeros(0).put(T.tensor([], dtype=T.int64), T.tensor([])),
        T.tensor([True, False]).put_(T.tensor([1]), T.tensor([True]), accumulate=True),
    ),
    "put_returns_a_copy": lambda T: (lambda a: (a.put(T.tensor([0]), T.tensor([9])), a))(
        T.zeros(2, dtype=T.int64)
    ),
    "put_out_of_range": lambda T: T.zeros(2, 3).put_(T.tensor([6]), T.tensor([1.0])),
    "put_out_of_range_negative": lambda T: T.zeros(2, 3).put_(T.tensor([-7]), T.tensor([1.0])),
    "put_sizes_differ": lambda T: T.zeros(2, 3).put_(T.tensor([0, 1]), T.tensor([1.0])),
    "put_dtypes_differ": lambda T: T.zeros(3).put_(T.tensor([0]), T.tensor([1.0], dtype=T.float64)),
    "put_int32_index_refused": lambda T: T.zeros(3).put_(
        T.tensor([0], dtype=T.int32), T.tensor([1.0])
    ),
    "put_float_index_refused": lambda T: T.zeros(3).put_(T.tensor([0.0]), T.tensor([1.0])),
    "put_python_source_refused": lambda T: T.zeros(3).put_(T.tensor([0]), 1.0),
    "select_negative": lambda T: T.select(T.arange(6).reshape(2, 3), 1, -3),
    "select_out_of_range": lambda T: T.select(T.arange(6).reshape(2, 3), 1, 3),
    "select_0d": lambda T: T.select(T.tensor(1.0), 0, 0),
    "select_dim_out_of_range": lambda T: T.select(T.arange(6).reshape(2, 3), 2, 0),
    # cummax/cummin: a tie takes the later index; a nan stays, each new nan takes its index
    "cummax_ties_and_nan": lambda T: T.cummax(T.tensor([[1.0, 3, 3, 2, NAN, 5, NAN, 1]]), 1),
    "cummin_ties_and_nan": lambda T: T.cummin(T.tensor([[1.0, 3, 1, 2, NAN, 0, NAN, 1]]), -1),
    "cummax_ints_dim0": lambda T: T.cummax(T.tensor([[2, 2], [1, 3], [2, 3]]), 0),
    "cummin_0d_and_empty": lambda T: (*T.cummin(T.tensor(2.0), 0), *T.cummin(T.zeros(0, 3), 0)),
    "cummax_dim_out_of_range": lambda T: T.cummax(T.zeros(2), 1),
    # mode: the smallest of the most frequent values, at its last index; nan is never equal
    "mode_ties": lambda T: T.mode(T.tensor([[3.0, 1, 1, 3, 2], [NAN, NAN, 1, 2, 2]])),
    "mode_dim0_keepdim_ints": lambda T: T.mode(T.tensor([[1, 2, 2], [3, 3, 1]]), 0, True),
    "mode_all_nan": lambda T: T.mode(T.tensor([NAN, NAN])),
    "mode_nan_and_a_number": lambda T: T.mode(T.tensor([1.0, NAN, NAN])),
    "mode_0d": lambda T: T.mode(T.tensor(3)),
    "mode_empty_dim": lambda T: T.mode(T.zeros(2, 0)),
    "nanmedian_all_and_rows": lambda T: (
        T.nanmedian(T.tensor([NAN, NAN, 1.0, 3, 2, 4])),
        *T.nanmedian(T.tensor([[NAN, NAN, 3], [2.0, NAN, 1], [4.0, 0, 1]]), 1),
    ),
    "nanmedian_ints_as_median": lambda T: (
        T.nanmedian(T.tensor([3, 1, 2, 4])),
        *T.nanmedian(T.tensor([[3, 1], [2, 4]]), 0),
    ),
    "nanmedian_all_nan_empty_0d": lambda T: (
        T.nanmedian(T.tensor([NAN, NAN])),
        T.nanmedian(T.tensor([])),
        *T.nanmedian(T.tensor(NAN), 0),
    ),
    "nanmedian_empty_dim": lambda T: T.nanmedian(T.zeros(2, 0), 1),
    "quantile_keepdim_without_dim": lambda T: (
        T.quantile(T.arange(12.0).reshape(3, 4), 0.3, keepdim=True),
        T.quantile(T.arange(12.0).reshape(3, 4), T.tensor([0.3, 0.9]), keepdim=True),
        T.quantile(T.arange(5.0), T.tensor(0.5)),  # a 0-d q: no leading dim
    ),
    "quantile_0d_input": lambda T: (
        T.quantile(T.tensor(3.0), 0.5),
        T.quantile(T.tensor(3.0), T.tensor([0.2, 0.5]), 0, keepdim=True),
    ),
    "quantile_row_with_nan_is_nan": lambda T: T.quantile(
        T.tensor([[1.0, 2, 3], [1, NAN, 2]]), 0.5, 1
    ),
    "quantile_nearest_rounds_half_to_even": lambda T: T.quantile(
        T.arange(5.0), T.tensor([0.125, 0.375, 0.625]), interpolation="nearest"
    ),
    "nanquantile_all_nan_row": lambda T: T.nanquantile(T.tensor([[NAN, NAN], [1.0, NAN]]), 0.3, 1),
    "quantile_with_infinities": lambda T: T.quantile(
        T.tensor([-float("inf"), 1.0, float("inf")]), T.tensor([0.25, 0.5, 0.75])
    ),  # lerp from the end's side when the weight is >= 0.5, as PyTorch
    "lerp_rounds_from_the_nearer_end": lambda T: (
        T.lerp(T.tensor([0.1, 1.0, 2.0]), T.tensor([0.3, float("inf"), 3.0]), 1.0),
        T.lerp(T.tensor([0.1, 1.0]), T.tensor([0.7, float("inf")]), T.tensor([0.9, 0.75])),
        T.lerp(T.tensor([0.1, -float("inf")]), T.tensor([0.7, 1.0]), T.tensor([0.1, 0.25])),
    ),
    "quantile_q_out_of_range": lambda T: T.quantile(T.arange(5.0), 1.5),
    "quantile_q_tensor_out_of_range": lambda T: T.quantile(T.arange(5.0), T.tensor([0.5, -0.1])),
    "quantile_bad_interpolation": lambda T: T.quantile(T.arange(5.0), 0.5, interpolation="mean"),
    "quantile_ints_refused": lambda T: T.quantile(T.arange(5), 0.5),
    "quantile_empty_refused": lambda T: T.quantile(T.zeros(0, 2), 0.5, 1),
    "quantile_q_dtype_must_match": lambda T: T.quantile(
        T.arange(5.0), T.tensor([0.5], dtype=T.float64)
    ),
    "quantile_q_2d_refused": lambda T: T.quantile(T.arange(5.0), T.tensor([[0.5]])),
    "histc_ranges": lambda T: (
        T.histc(T.tensor([1.0, 2, 1, 0, 5, 2.5]), bins=4),  # the data's own range
        T.histc(T.tensor([1.0, 2, 1, 0, 5, 7, -1]), bins=5, min=0, max=5),  # max in the last
        T.histc(T.tensor([1.0, 1]), bins=4),  # one value: widened by 1 each way
        T.histc(T.tensor([]), 3),
        T.histc(T.tensor([0.1, 0.2, 0.3, 0.7], dtype=T.float64), 10, 0, 1),
        T.histc(T.tensor([1.0, NAN, 2.0]), 2, 0, 4),  # nan is not counted
    ),
    "histc_ints_refused": lambda T: T.histc(T.tensor([1, 2])),
    "histc_nan_range": lambda T: T.histc(T.tensor([1.0, NAN])),
    "histc_min_above_max": lambda T: T.histc(T.tensor([1.0, 2]), 4, 3, 1),
    "histc_no_bins": lambda T: T.histc(T.tensor([1.0, 2]), 0),
    "bincount_weights_and_minlength": lambda T: (
        T.bincount(T.tensor([0, 2, 2]), minlength=5),
        T.bincount(T.tensor([0, 2, 2]), T.tensor([1.0, 2, 3])),  # float32 weights: float32
        T.bincount(T.tensor([0, 2, 2]), T.tensor([1, 2, 3])),  # others: float64
        T.bincount(T.tensor([], dtype=T.int64)),
        T.bincount(T.tensor([1, 1], dtype=T.uint8)),
    ),
    "bincount_negative": lambda T: T.bincount(T.tensor([-1, 2])),
    "bincount_2d": lambda T: T.bincount(T.tensor([[1, 2]])),
    "bincount_floats": lambda T: T.bincount(T.tensor([1.0, 2])),
    "bincount_bools": lambda T: T.bincount(T.tensor([True, False])),
    "cummax_mode_bools": lambda T: (
        *T.cummax(T.tensor([True, False, True]), 0),
        *T.mode(T.tensor([True, False, True])),
    ),
    "block_diag_promotes_and_reshapes": lambda T: (
        T.block_diag(T.tensor(2), T.tensor([1.0, 2]), T.ones(2, 2, dtype=T.float64)),
        T.block_diag(),
        T.block_diag(T.ones(2, 0), T.ones(1, 1)),
        T.block_diag(T.tensor([[1, 2]]), T.tensor([3])),
    ),
    "block_diag_3d_refused": lambda T: T.block_diag(T.ones(2, 2, 2)),
    "renorm_values": lambda T: (
        T.renorm(T.tensor([[1.0, 2], [3, 4]]), 2, 0, 3),
        T.arange(24.0).reshape(2, 3, 4).renorm(1, 1, 20),
        T.renorm(T.arange(24.0).reshape(2, 3, 4), float("inf"), -1, 10),
    ),
    "renorm_ints_refused": lambda T: T.renorm(T.tensor([[1, 2], [3, 4]]), 2, 0, 1),
    "renorm_negative_p": lambda T: T.renorm(T.tensor([[1.0, 2], [3, 4]]), -1, 0, 3),
    "renorm_negative_maxnorm": lambda T: T.renorm(T.tensor([[1.0, 2], [3, 4]]), 2, 0, -3),
    "renorm_1d_refused": lambda T: T.renorm(T.tensor([1.0, 2]), 2, 0, 1),
    "vander_dtypes_and_sizes": lambda T: (
        T.vander(T.tensor([1, 2, 3], dtype=T.int32)),  # integers and bools: int64
        T.vander(T.tensor([True, False])),
        T.vander(T.tensor([1.0, 2]), N=0),
        T.vander(T.tensor([1.0, 2, 0]), N=4, increasing=True),
        T.vander(T.tensor([], dtype=T.float64)),
    ),
    "vander_0d_refused": lambda T: T.vander(T.tensor(2.0)),
    "asarray_kinds": lambda T: (
        T.asarray([1, 2]),
        T.asarray(3.5),
        T.asarray(np.array([1, 2], dtype=np.int32)),
        T.asarray(np.float64(2)),
        T.asarray([1.0, 2], dtype=T.float64),
        T.asarray(T.tensor([1, 2]), dtype=T.float32),
    ),
    "asarray_copy_false_sequence": lambda T: T.asarray([1, 2], copy=False),
    "asarray_copy_false_dtype": lambda T: T.asarray(T.tensor([1.0]), dtype=T.float64, copy=False),
    "unfold_windows": lambda T: (
        T.arange(7.0).unfold(0, 3, 2),
        T.arange(24.0).reshape(2, 3, 4).unfold(1, 2, 1),
        T.arange(7.0).unfold(0, 0, 1),
        T.tensor(5.0).unfold(0, 1, 1),
        T.arange(7).unfold(-1, 3, 3),
    ),
    "unfold_size_too_big": lambda T: T.arange(7.0).unfold(0, 8, 1),
    "unfold_step_zero": lambda T: T.arange(7.0).unfold(0, 3, 0),
    "unfold_empty": lambda T: T.zeros(0).unfold(0, 1, 1),
    "scatter_reduce_ints": lambda T: tuple(
        T.arange(1, 13)
        .reshape(2, 6)
        .scatter_reduce(
            1,
            T.tensor([[0, 1, 0, 2], [2, 2, 1, 0]]),
            T.tensor([[5, -1, 2, 3], [7, 8, 9, 1]]),
            reduce,
            include_self=include_self,
        )
        for reduce in ("sum", "prod", "mean", "amax", "amin")  # mean of integers: floor
        for include_self in (True, False)
    ),  # fmt: skip
    "scatter_reduce_bools": lambda T: tuple(
        T.tensor([[True, False, True]]).scatter_reduce(
            1, T.tensor([[0, 0, 2]]), T.tensor([[False, True, False]]), reduce, include_self=inc
        )
        for reduce in ("sum", "prod", "amax", "amin")
        for inc in (True, False)
    ),
    "scatter_reduce_mean_of_bools_refused": lambda T: T.tensor([True]).scatter_reduce(
        0, T.tensor([0]), T.tensor([False]), "mean"
    ),
    "scatter_reduce_mean_dim0": lambda T: T.zeros(3, 2).scatter_reduce(
        0, T.tensor([[0, 1], [0, 0]]), T.ones(2, 2) * 3, "mean", include_self=False
    ),
    "scatter_family_int32_index": lambda T: (
        T.ones(3).scatter_reduce(0, T.tensor([1, 1], dtype=T.int32), T.ones(2) * 2, "prod"),
        T.ones(3).scatter_add(0, T.tensor([1], dtype=T.int32), T.ones(1)),
        T.ones(3).scatter(0, T.tensor([2], dtype=T.int32), T.zeros(1)),
    ),
    "scatter_int16_index_refused": lambda T: T.ones(3).scatter_add(
        0, T.tensor([1], dtype=T.int16), T.ones(1)
    ),
    "scatter_reduce_0d": lambda T: T.tensor(1.0).scatter_reduce(
        0, T.tensor(0), T.tensor(3.0), "prod"
    ),
    "index_put_shape_mismatch": lambda T: T.zeros(3, 3).index_put(
        (T.tensor([0, 1]),), T.ones(2, 2)
    ),
    "index_put_accumulate_shape_mismatch": lambda T: T.zeros(3, 3).index_put(
        (T.tensor([0, 1]),), T.ones(2, 2), True
    ),
    "scatter_reduce_bad_reduce": lambda T: T.zeros(3).scatter_reduce(
        0, T.tensor([0]), T.ones(1), "add"
    ),
    "scatter_reduce_max_min_spellings": lambda T: tuple(
        T.arange(1.0, 4).scatter_reduce(0, T.tensor([0, 0]), T.tensor([5.0, -7]), reduce)
        for reduce in ("max", "min")
    ),
    "scatter_reduce_src_dtype": lambda T: T.zeros(3).scatter_reduce(
        0, T.tensor([0]), T.ones(1, dtype=T.int64), "sum"
    ),
    "index_put_kinds": lambda T: (
        T.zeros(3, 3).index_put(
            (T.tensor([0, 2, 0]), T.tensor([1, 1, 1])), T.tensor([1.0, 2, 3]), True
        ),
        T.zeros(3, 3).index_put((T.tensor([0, 2]),), T.tensor([1.0, 2, 3])),
        T.zeros(3, 3).index_put((T.tensor([0, 0]),), T.tensor([1.0, 2, 3]), accumulate=True),
        T.zeros(3, 2).index_put((T.tensor([True, False, True]),), T.tensor(5.0), True),
        T.zeros(3).index_put((T.tensor([-1]),), T.tensor(5.0), True),
        T.zeros(3, dtype=T.int64).index_put((T.tensor([1, 1]),), T.tensor(2), True),
    ),  # fmt: skip
    "index_put_dtype_must_match": lambda T: T.zeros(3).index_put(
        (T.tensor([0]),), T.tensor([1.0], dtype=T.float64)
    ),
    "index_put_out_of_range": lambda T: T.zeros(3).index_put(
        (T.tensor([3]),), T.tensor([1.0]), True
    ),
    "masked_scatter_kinds": lambda T: (
        T.zeros(2, 3).masked_scatter(
            T.tensor([[True, False, True], [False, True, True]]), T.arange(10.0)
        ),
        T.zeros(2, 3).masked_scatter(T.tensor([True, False, True]), T.arange(10.0)),
        T.zeros(3).masked_scatter(
            T.tensor([[True, False, True], [False, True, True]]), T.arange(10.0)
        ),
        T.zeros(2, dtype=T.int64).masked_scatter(T.tensor([False, True]), T.tensor([[7, 8]])),
    ),  # fmt: skip
    "masked_scatter_short_source": lambda T: T.zeros(3).masked_scatter(
        T.tensor([True, True, True]), T.arange(2.0)
    ),
    "masked_fill_negative_float_into_uint8_refused": lambda T: T.zeros(
        2, dtype=T.uint8
    ).masked_fill(T.tensor([True, False]), -1.5),
    "masked_fill_negative_int_into_uint8_wraps": lambda T: T.zeros(2, dtype=T.uint8).masked_fill(
        T.tensor([True, False]), -3
    ),
    "masked_scatter_int_mask": lambda T: T.zeros(3).masked_scatter(
        T.tensor([1, 1, 1]), T.arange(3.0)
    ),
    "masked_scatter_dtype": lambda T: T.zeros(3).masked_scatter(
        T.tensor([True, True, True]), T.arange(3)
    ),
}


def _outcome(fn, lib) -> Any:
    """The error type raised, or each output's dtype name and values."""
    try:
        result = fn(lib)
    except Exception as error:  # noqa: BLE001 (which error is what is compared)
        return type(error).__name__
    outputs = result if isinstance(result, tuple) else (result,)
    return [(str(o.dtype).rsplit(".", 1)[-1], np.asarray(o.detach().numpy())) for o in outputs]


# edge cases where older PyTorch releases raised another error type
EDGE_CASES_SINCE = {
    "kthvalue_nan_is_largest_dim_none_refused": (2, 13),
    "sum_to_an_integer_dtype_without_grad": (2, 13),  # 2.11: NotImplementedError
    "addmv_input_of_another_dtype_refused": (2, 13),  # 2.11 took it
    "nanmean_to_an_integer_dtype_refused": (2, 13),  # 2.11: another error type
    "nanmean_integer_dtype_refused_before_dim": (2, 13),
}


@pytest.mark.filterwarnings("ignore::UserWarning")  # cross without dim warns in both
@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_new_ops_at_their_edges_match_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch")
    if torch_before(EDGE_CASES_SINCE.get(name, (0, 0))):
        pytest.skip(f"{name}: the installed PyTorch raised another error type here")
    expected, got = _outcome(EDGE_CASES[name], torch), _outcome(EDGE_CASES[name], microtorch)
    if isinstance(expected, str) or isinstance(got, str):
        assert got == expected
        return
    assert len(got) == len(expected)
    for (dtype, values), (want_dtype, want) in zip(got, expected):
        assert dtype == want_dtype
        assert values.shape == want.shape
        np.testing.assert_array_equal(values, want)  # (nan equals nan here)


def _in_place_views(T) -> list:
    """unsqueeze_/squeeze_/t_/transpose_/swapdims_/swapaxes_: shapes, errors, gradients."""
    out = []
    for make in (
        lambda: T.ones(2, 3, requires_grad=True).unsqueeze_(0),  # a leaf that requires grad
        lambda: T.ones(2, 3, 4).t_(),
        lambda: T.ones(2).unsqueeze_(3),
        lambda: T.ones(2).transpose_(0, 1),
    ):
        try:
            make()
            out.append("ok")
        except (RuntimeError, IndexError) as error:
            out.append(type(error).__name__)
    x = T.ones(2, 3, requires_grad=True)
    y = x * 2
    out.append((y.unsqueeze_(0) is y, tuple(y.shape), tuple(y.swapaxes_(0, 2).shape)))
    y.squeeze_(2).t_().mul_(T.arange(6.0).reshape(2, 3))
    (y * T.arange(6.0).reshape(2, 3)).sum().backward()
    out.append(x.grad.tolist())
    base = T.arange(6.0).reshape(2, 3)
    row = base[0]
    row.unsqueeze_(0).mul_(10)  # still a view of base: the write lands there
    out.append((tuple(row.shape), base.tolist()))
    out.append([tuple(T.ones(1, 3, 1).squeeze_(*d).shape) for d in ((), (0,), ((0, 2),))])
    out.append((tuple(T.ones(1, 3, 1).squeeze_(dim=2).shape), tuple(T.tensor(1.0).t_().shape)))
    with T.no_grad():
        out.append(tuple(T.ones(2, requires_grad=True).unsqueeze_(1).shape))
    return out


def test_in_place_view_methods_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    assert _in_place_views(microtorch) == _in_place_views(torch)


def test_in_place_view_methods_bump_the_version_and_refuse_stale_views() -> None:
    """As in PyTorch, x.unsqueeze_() counts as an in-place change: a value saved for backward
    goes stale. A view made before its base changed shape cannot follow it with gradients
    here (PyTorch can): a clear error rather than a wrong gradient."""
    x = microtorch.ones(2, 3, requires_grad=True)
    y = x * 2
    z = y * y  # saves y
    y.unsqueeze_(0)
    assert y._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    for reshape_in_place in (lambda b: b.unsqueeze_(0), lambda b: b.t_()):
        b = microtorch.ones(3, 3, requires_grad=True) * 1
        row = b[0]
        reshape_in_place(b)
        b.mul_(2)
        with pytest.raises(RuntimeError, match="before its base changed shape in place"):
            row.sum().backward()
    a = microtorch.zeros(2, 3)  # without gradients the old view still writes the right place
    row = a[0]
    a.unsqueeze_(0)
    row.add_(1)
    assert a.tolist() == [[[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]]


def _gradients(lib, fn, *values) -> list:
    inputs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    fn(lib, *inputs).sum().backward()
    return [t.grad.numpy() for t in inputs]


@pytest.mark.parametrize(
    "fn, values",
    [
        (lambda T, a: T.median(a), ([[1.0, 1.0], [1.0, 2.0]],)),  # shared by the tied 1s
        (lambda T, a: T.median(a), ([1.0, float("nan"), float("nan")],)),  # by the nans
        (lambda T, a: T.median(a, 1).values, ([[2.0, 1.0, 3.0], [0.0, 5.0, 4.0]],)),
        (lambda T, a: T.kthvalue(a, 3, 0).values, ([[2.0, 1.0], [0.0, 5.0], [3.0, 4.0]],)),
        pytest.param(
            lambda T, a: T.aminmax(a, dim=1).max,
            ([[1.0, 3.0, 3.0], [1.0, 0.0, 2.0]],),
            marks=needs_torch((2, 13), "aminmax has a gradient"),
        ),
        (lambda T, c, a, b: T.addmm(c, a, b, beta=0), ([1.0, 2.0], [[1.0], [2.0]], [[3.0, 4.0]])),
        (lambda T, a: T.nansum(a) + T.nanmean(a), ([1.0, float("nan"), 3.0],)),
        (lambda T, a: T.median(a), (np.zeros((0, 3)),)),  # nan, in the graph: an empty gradient
        (lambda T, a: T.gather(a, 0, T.tensor([0, 0])) * T.tensor([1.0, 2.0]), (5.0,)),
        # p < 1: |x|^p is infinitely steep at 0; PyTorch's gradient there is 0, not nan
        (lambda T, a: T.norm(a, 0.5) + T.linalg.vector_norm(a, -1, 1), ([[1.0, 0], [0, 3]],)),
        (lambda T, a, b: T.scatter(a, 0, T.tensor(1), b) * T.arange(3.0), ([1.0, 2, 3], 4.0)),
        (
            lambda T, a, v: T.index_fill(a, 0, T.tensor([0, 2]), v) * T.arange(3.0),
            ([1.0, 2.0, 3.0], 4.0),
        ),  # fmt: skip
    ],
)
def test_gradients_of_the_new_reductions_match_pytorch(fn, values) -> None:
    """Where finite differences cannot tell (ties, nan, a zero beta), the gradient is
    PyTorch's: median() shares it among the elements equal to the median, median(dim=)
    and kthvalue send it to the index they return, addmm with beta=0 gives input zeros."""
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(_gradients(microtorch, fn, *values), _gradients(torch, fn, *values)):
        np.testing.assert_allclose(ours, theirs)


def _weighted_gradients(lib, fn, *values) -> list:
    """The gradients of sum(fn(...) * (1, 2, 3, ...)): each output element weighs
    differently, so a gradient sent to the wrong element shows."""
    inputs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    out = fn(lib, *inputs)
    weights = lib.arange(1.0, out.numel() + 1, dtype=lib.float64).reshape(tuple(out.shape))
    (out * weights).sum().backward()
    return [t.grad.numpy() for t in inputs]


_INDEX = [[0, 1, 0, 2], [2, 2, 1, 0]]
_TIES = ([[5.0, -1, 9, 4, 5, 6], [7, 7, 9, 1, 1, 1]], [[5.0, 5, 9, 4], [7, 8, 9, 9]])


@pytest.mark.parametrize(
    "fn, values",
    [
        (lambda T, a: T.cummax(a, 1).values, ([[1.0, 3, 3, 2, 0.5, 5, 5, 1]],)),  # ties: latest
        (lambda T, a: T.cummin(a, 0).values, ([[1.0, 0], [1, 2], [0, 0]],)),
        (lambda T, a: T.cummax(a, 0).values, ([1.0, NAN, 2, NAN],)),  # each nan takes over
        (lambda T, a: T.mode(a).values, ([[3.0, 1, 1, 3, 2], [2, 2, 1, 1, 0]],)),
        (lambda T, a: T.nanmedian(a), ([NAN, 2.0, 1, 2, 3],)),  # shared by the tied 2s
        (lambda T, a: T.nanmedian(a, 1).values, ([[NAN, 2.0, 1, 2], [3, NAN, 1, NAN]],)),
        (lambda T, a: T.quantile(a, 0.5, interpolation="midpoint"), ([3.0, 1, 2, 2],)),
        (lambda T, a: T.quantile(a, 0.8), ([float("inf"), 1, 2, 2],)),
        (lambda T, a: T.quantile(a, 0.5, 1), ([[3.0, NAN, 2, 2], [1, 2, 3, 4]],)),  # to the nan
        (lambda T, a: T.nanquantile(a, 0.4, 1, interpolation="nearest"), ([[1.0, NAN, 3, 4]],)),
        (lambda T, a: T.renorm(a, 2, 0, 3), ([[1.0, 2], [3, 4]],)),
        (lambda T, a, b, w: T.lerp(a, b, w), ([1.0, 2], [3.0, float("inf")], [0.3, 0.7])),
        (lambda T, a: a.unfold(1, 3, 2), (np.arange(14.0).reshape(2, 7),)),
        (lambda T, a, b: T.block_diag(a, b), ([[1.0, 2]], 3.0)),
        (
            lambda T, a, v: a.index_put((T.tensor([0, 2, 0]),), v, accumulate=True),
            (np.zeros((3, 3)), [1.0, 2, 3]),
        ),
        (
            lambda T, a, s: a.masked_scatter(
                T.tensor([[True, False, True], [False, True, True]]), s
            ),
            (np.ones(3), np.arange(10.0)),
        ),  # a broadcast input: its gradient summed over the mask's rows
        *[
            (
                lambda T, a, s, r=reduce, inc=include_self: a.scatter_reduce(
                    1, T.tensor(_INDEX), s, r, include_self=inc
                ),
                (np.arange(1.0, 13).reshape(2, 6), [[5.0, -1, 2, 3], [7, 8, 9, 1]]),
            )
            for reduce in ("sum", "prod", "mean", "amax", "amin")
            for include_self in (True, False)
        ],
        (lambda T, a, s: a.scatter_reduce(1, T.tensor(_INDEX), s, "amax"), _TIES),  # shared
        (
            lambda T, a, s: a.scatter_reduce(1, T.tensor(_INDEX), s, "amin", include_self=False),
            _TIES,
        ),  # input's tied value still counts in the share, as in PyTorch
    ],
)
def test_gradients_of_the_selecting_and_scattering_ops_match_pytorch(fn, values) -> None:
    """Ties, nan and infinities, where finite differences cannot tell: the gradient is
    PyTorch's (cummax/cummin/mode/nanmedian(dim=) to the index returned, quantile to the
    two values around its position, amax/amin of scatter_reduce shared by the ties)."""
    torch = pytest.importorskip("torch")
    ours, theirs = (
        _weighted_gradients(microtorch, fn, *values),
        _weighted_gradients(torch, fn, *values),
    )
    for mine, want in zip(ours, theirs):
        np.testing.assert_allclose(mine, want)


def test_diagonal_is_a_view_that_writes_into_its_tensor(device: str) -> None:
    m = microtorch.arange(6.0, device=device).reshape(2, 3).requires_grad_()
    d = m.diagonal(1)
    assert d.tolist() == [1.0, 5.0]
    (d * microtorch.tensor([2.0, 3.0], device=device)).sum().backward()
    assert m.grad.tolist() == [[0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]
    a = microtorch.arange(4.0, device=device).reshape(2, 2)
    a.diagonal().fill_(-1.0)  # the idiom for masking a similarity matrix's diagonal
    assert a.tolist() == [[-1.0, 1.0], [2.0, -1.0]]
    view = a.diagonal()
    a.mul_(2)
    assert view.tolist() == [-2.0, -2.0]  # it shares a's memory
    assert microtorch.diag(a).tolist() == [-2.0, -2.0]  # diag of a matrix is a copy, as
    microtorch.diag(a).zero_()  # in PyTorch
    assert a.tolist() == [[-2.0, 2.0], [4.0, -2.0]]


def _diagonal_view_programs(lib) -> list:
    """Writes through diagonal views with and without gradients, in ``lib``: the values of
    the tensors written into and the gradients that reach the leaves."""
    out = []
    w = lib.arange(24.0).reshape(2, 3, 4)
    x = lib.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 1
    y.diagonal(1).mul_(lib.tensor([2.0, 3.0, 4.0]))  # through the graph: CopySlices
    (y * w[0]).sum().backward()
    out += [y.tolist(), x.grad.tolist()]
    x.grad = None
    y = x * 1
    d = y.diagonal()
    d[1:] = lib.tensor([-1.0, -2.0])  # a view of the view
    y.diagonal(-1).zero_()
    (y * y).sum().backward()
    out += [y.tolist(), x.grad.tolist(), d.tolist()]
    b = lib.zeros(2, 3, 4)
    b.diagonal(0, 0, 2).add_(1)  # dims (0, 2): the diagonal dim goes last
    b.diagonal(1, 2, 1).fill_(7)
    out.append(b.tolist())
    t = lib.arange(9.0).reshape(3, 3)
    t.t().diagonal(1).copy_(lib.tensor([10.0, 20.0]))  # a diagonal of a transposed view
    t[1].unsqueeze(0).diagonal().fill_(-5)
    out.append(t.tolist())
    s = lib.ones(3, 3, requires_grad=True)
    v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = lib.diagonal_scatter(s * 2, v * v)
    (z * w[0, :, :3]).sum().backward()
    out += [z.tolist(), s.grad.tolist(), v.grad.tolist()]
    return out


def test_diagonal_views_write_and_differentiate_as_in_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(_diagonal_view_programs(microtorch), _diagonal_view_programs(torch)):
        np.testing.assert_array_equal(np.array(ours), np.array(theirs))


def test_meshgrid_without_indexing_warns_as_pytorch_and_uses_ij(device: str) -> None:
    a, b = microtorch.arange(2, device=device), microtorch.arange(3, device=device)
    with pytest.warns(UserWarning, match="meshgrid: .*pass indexing='ij'"):
        x, y = microtorch.meshgrid(a, b)
    assert tuple(x.shape) == (2, 3) and y.tolist() == [[0, 1, 2], [0, 1, 2]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, y = microtorch.meshgrid(a, b, indexing="xy")  # no warning when it is given
    assert tuple(x.shape) == (3, 2) and x.tolist() == [[0, 1], [0, 1], [0, 1]]


def test_cross_without_dim_warns_and_takes_the_first_dim_of_size_3(device: str) -> None:
    a = microtorch.randn(3, 3, 2, device=device)
    b = microtorch.randn(3, 3, 2, device=device)
    with pytest.warns(UserWarning, match="cross: .*pass dim="):
        out = microtorch.cross(a, b)
    np.testing.assert_allclose(out.cpu().numpy(), a.cross(b, dim=0).cpu().numpy())


def test_unique_with_dim_keeps_distinct_slices_in_order(device: str) -> None:
    x = microtorch.tensor([[1, 3, 2, 3], [1, 2, 1, 2]], device=device)
    values, inverse, counts = microtorch.unique(x, dim=1, return_inverse=True, return_counts=True)
    assert values.device.type == device
    assert values.tolist() == [[1, 2, 3], [1, 1, 2]]
    assert inverse.tolist() == [0, 2, 1, 2] and counts.tolist() == [1, 1, 2]
    assert x.unique(dim=0).tolist() == [[1, 2, 1, 2], [1, 3, 2, 3]]


def test_unique_values_require_grad_and_refuse_backward_as_in_pytorch() -> None:
    """PyTorch records unique and unique_consecutive in the graph with no derivative: the
    values require grad (inverse and counts do not) and backward raises NotImplementedError."""
    torch = pytest.importorskip("torch")
    for T in (torch, microtorch):
        x = T.tensor([3.0, 1.0, 3.0], requires_grad=True)
        values, inverse, counts = T.unique(x, return_inverse=True, return_counts=True)
        assert values.requires_grad and not inverse.requires_grad and not counts.requires_grad
        for out, op in ((values, "_unique2"), (T.unique_consecutive(x), "unique_consecutive")):
            with pytest.raises(NotImplementedError, match=f"the derivative for '{op}' is not"):
                out.sum().backward()
        assert not T.unique(T.tensor([2.0, 1.0])).requires_grad


def test_in_place_products_and_index_forms_write_into_the_tensor(device: str) -> None:
    t = microtorch.ones(2, 2, device=device)
    same = t.addmm_(microtorch.eye(2, device=device), microtorch.eye(2, device=device), beta=2)
    assert same is t and t.tolist() == [[3.0, 2.0], [2.0, 3.0]]
    t.addcdiv_(t, t, value=-1).index_fill_(1, microtorch.tensor([0], device=device), 0.0)
    assert t.tolist() == [[0.0, 1.0], [0.0, 2.0]]
    t.index_copy_(0, microtorch.tensor([1], device=device), microtorch.ones(1, 2, device=device))
    assert t.tolist() == [[0.0, 1.0], [1.0, 1.0]]


def test_slices_with_a_step_below_one_are_refused_as_in_pytorch(device: str) -> None:
    """x[::-1] reverses in NumPy; PyTorch raises ValueError (flip() reverses), also in setitem
    and on a 0-d tensor, where the step is checked before the dims."""
    x = microtorch.arange(6.0, device=device)
    for index in (slice(None, None, -1), slice(4, 1, -2), (slice(None, None, 0),)):
        with pytest.raises(ValueError, match="step must be greater than zero"):
            x[index]
        with pytest.raises(ValueError, match="step must be greater than zero"):
            x[index] = 1.0
    with pytest.raises(ValueError, match="use .flip"):
        microtorch.tensor(1.0, device=device)[::-1]
    assert x[::2].tolist() == [0.0, 2.0, 4.0] and x.flip(0)[:2].tolist() == [5.0, 4.0]


def test_setitem_refuses_the_values_pytorch_refuses(device: str) -> None:
    """A list or a NumPy array is not converted for you (TypeError); a value that does not
    broadcast to the indexed part is a RuntimeError; with integer-tensor or mask indices
    the value tensor must have the tensor's dtype (index_put), except a one-element value
    with a single mask (masked_fill); basic indexing casts any dtype."""
    x = microtorch.zeros(3, 4, device=device)
    for value in ([1.0, 2.0, 3.0, 4.0], (1.0,) * 4, np.ones(4), np.float32(1.0)):
        with pytest.raises(TypeError, match="setitem: can't assign a"):
            x[0] = value
    with pytest.raises(RuntimeError, match=r"setitem: shape mismatch.*\(5,\)"):
        x[0] = microtorch.ones(5, device=device)
    with pytest.raises(RuntimeError, match="setitem: shape mismatch"):
        x[x == 0] = microtorch.ones(2, 2, device=device)
    long_row = microtorch.ones(4, dtype=microtorch.long, device=device)
    with pytest.raises(RuntimeError, match="source and destination dtypes match"):
        x[[0, 2]] = long_row
    with pytest.raises(RuntimeError, match="source and destination dtypes match"):
        x[:, microtorch.tensor([True, False, True, False], device=device)] = long_row[:2]
    x[1] = long_row * 2  # basic indexing: cast
    x[x == 2] = microtorch.tensor(5, device=device)  # one mask, one element: masked_fill
    x[0, 1] = np.float64(3.0)  # NumPy's float64 and integers are Python-like numbers
    x[2, np.int64(3)] = np.int64(7)
    assert x.tolist() == [[0.0, 3.0, 0.0, 0.0], [5.0] * 4, [0.0, 0.0, 0.0, 7.0]]


@pytest.mark.parametrize(
    "index, value",
    [
        ((0,), [1.0, 2.0, 3.0, 4.0]),
        ((0,), np.ones(4)),
        ((0,), "ones5"),
        ((slice(None), 1), "ones4"),
        (([0, 2],), "long4"),
        (([0, 2],), "double4"),
        (("mask",), "long0d"),
        (("mask",), "double4"),
        ((slice(None), "cols"), "long0d"),
        ((slice(None), [1, 3]), "long0d"),
        ((1,), "long4"),
    ],
)
def test_setitem_values_as_pytorch_takes_or_refuses_them(index, value) -> None:
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (torch, microtorch):
        x = lib.zeros(3, 4)
        named = {
            "ones5": lib.ones(5), "ones4": lib.ones(4), "long4": lib.arange(4),
            "double4": lib.ones(4, dtype=lib.float64), "long0d": lib.tensor(7),
        }  # fmt: skip
        where = {"mask": x[:, 0] == 0, "cols": lib.tensor([True, False, True, False])}
        idx = tuple(where.get(i, i) if isinstance(i, str) else i for i in index)
        try:
            x[idx] = named.get(value, value) if isinstance(value, str) else value
            outcomes.append(x.tolist())
        except (TypeError, RuntimeError, IndexError) as error:
            outcomes.append(type(error))
    assert outcomes[0] == outcomes[1]


def test_masked_fill_and_fill_with_a_tensor_value_as_in_pytorch(device: str) -> None:
    """The value may be a 0-d tensor, and its gradient is the sum of the gradients of the
    places it fills; a tensor with dims is refused (RuntimeError), as is inf into integers."""
    mask = microtorch.tensor([True, False, True], device=device)
    v = microtorch.tensor(2.0, device=device, requires_grad=True)
    x = microtorch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    y = x.masked_fill(mask, v)
    (y * microtorch.tensor([1.0, 10.0, 100.0], device=device)).sum().backward()
    assert y.tolist() == [2.0, 2.0, 2.0] and v.grad.item() == 101.0
    assert x.grad.tolist() == [0.0, 10.0, 0.0]
    v.grad = None
    h = (x * 1).fill_(v)
    h.sum().backward()
    assert h.tolist() == [2.0, 2.0, 2.0] and v.grad.item() == 3.0
    with pytest.raises(RuntimeError, match="masked_fill only supports a 0-dimensional value"):
        x.masked_fill(mask, microtorch.tensor([9.0], device=device))
    with pytest.raises(RuntimeError, match="fill_ only supports a 0-dimensional value"):
        microtorch.zeros(3, device=device).fill_(microtorch.tensor([9.0], device=device))
    with pytest.raises(RuntimeError, match="cannot be converted to type microtorch.int64"):
        microtorch.zeros(3, dtype=microtorch.long, device=device).fill_(float("inf"))
    for value in ("a", None, [1.0]):  # TypeError, as in PyTorch
        with pytest.raises(TypeError, match="value must be a number or a 0-d tensor"):
            x.masked_fill(mask, value)
        with pytest.raises(TypeError, match="value must be a number or a 0-d tensor"):
            microtorch.zeros(3, device=device).fill_(value)


def test_masked_fill_value_gradient_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (torch, microtorch):
        v = lib.tensor(2.0, requires_grad=True)
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x.masked_fill(x > 1.5, v * 3).masked_fill(lib.tensor([True, False]), v)
        (y * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        grads.append((v.grad.item(), x.grad.tolist()))
    assert grads[0] == grads[1]


def test_out_of_range_indices_of_gather_scatter_index_add_and_index_select(device: str) -> None:
    """These raise RuntimeError in PyTorch (x[index] raises IndexError), and index_select
    takes no negative indices."""
    x = microtorch.zeros(3, 4, device=device)
    big, neg = microtorch.tensor([4], device=device), microtorch.tensor([-1], device=device)
    ones = microtorch.ones(3, 1, device=device)
    calls = {
        "gather": lambda i: x.gather(1, i.expand(3, 1)),
        "scatter": lambda i: x.scatter(1, i.expand(3, 1), ones),
        "scatter_add": lambda i: x.scatter_add_(1, i.expand(3, 1), ones),
        "index_add": lambda i: x.index_add(1, i, ones),
        "index_select": lambda i: x.index_select(1, i),
    }
    if device != "cpu":  # the writes run before the check does, on a GPU (and the fake one
        del calls["scatter"], calls["scatter_add"], calls["index_add"]  # refuses them)
    for op, call in calls.items():
        for index in (big, neg):
            with pytest.raises(RuntimeError, match=f"{op}: an index is out of bounds"):
                call(index).cpu()
    with pytest.raises(IndexError, match="out of bounds"):
        x[:, big].cpu()
    assert x[:, neg].shape == (3, 1)  # x[index] counts from the end


def test_index_errors_of_the_index_ops_have_pytorchs_types() -> None:
    torch = pytest.importorskip("torch")
    for make in (
        lambda L, x: x.index_select(1, L.tensor([-1])),
        lambda L, x: x.index_select(1, L.tensor([1.0])),
        lambda L, x: x.index_select(1, L.tensor([[1]])),
        lambda L, x: x.index_add(0, L.tensor([3]), L.ones(1, 4)),
        lambda L, x: x.gather(0, L.tensor([[3, 0, 0, 0]])),
        lambda L, x: x.scatter(0, L.tensor([[-1, 0, 0, 0]]), 1.0),
        # PyTorch's kernels raise IndexError along dim 0, and for a 1-D or 0-d input
        lambda L, x: x.index_select(0, L.tensor([3])),
        lambda L, x: x[0].index_select(0, L.tensor([4])),
        lambda L, x: x[0, 0].index_select(0, L.tensor([1])),
        lambda L, x: x[0].index_add(0, L.tensor([4]), L.ones(1)),
        lambda L, x: x[0, 0].index_add(0, L.tensor([1]), L.tensor(1.0)),
    ):
        kinds = []
        for lib in (torch, microtorch):
            with pytest.raises(Exception) as caught:
                make(lib, lib.zeros(3, 4))
            kinds.append(caught.type.__name__)
        assert kinds[0] == kinds[1]


def test_gather_scatter_and_index_add_take_0d_tensors_as_in_pytorch(device: str) -> None:
    """A 0-d input is one element (index 0), a 0-d index one index; and gather's index may
    be larger than input only along dim."""
    one = microtorch.tensor(1.0, device=device)
    zero, zeros = microtorch.tensor(0, device=device), microtorch.tensor([0, 0], device=device)
    assert one.gather(0, zero).tolist() == 1.0 and one.gather(0, zeros).tolist() == [1.0, 1.0]
    assert one.scatter(0, zero, microtorch.tensor(7.0, device=device)).tolist() == 7.0
    assert one.scatter_add(0, zeros, microtorch.tensor([1.0, 2.0], device=device)).item() == 4.0
    assert one.index_add(0, zero, microtorch.tensor(5.0, device=device)).item() == 6.0
    x = microtorch.zeros(3, 4, device=device)
    assert x.index_add(0, microtorch.tensor(1, device=device), x[:1] + 1)[1].tolist() == [1.0] * 4
    with pytest.raises(IndexError, match="index must be a vector"):
        x.index_add(0, microtorch.tensor([[1]], device=device), x[:1])
    with pytest.raises(RuntimeError, match=r"gather: index of shape \(4, 1\) must be no larger"):
        x.gather(1, microtorch.zeros(4, 1, dtype=microtorch.long, device=device))


def test_index_ops_on_0d_tensors_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for make in (
        lambda L: L.tensor(1.0).gather(0, L.tensor([0, 0])),
        lambda L: L.tensor(1.0).scatter_add(0, L.tensor([0, 0]), L.tensor([1.0, 2.0])),
        lambda L: L.tensor(1.0).scatter(0, L.tensor(0), 3.0),
        lambda L: L.tensor(1.0).index_add(0, L.tensor(0), L.tensor(5.0), alpha=2),
        lambda L: L.zeros(2, 3).index_add(1, L.tensor(2), L.ones(2, 1)),
    ):
        got, want = make(microtorch), make(torch)
        assert got.shape == want.shape and got.tolist() == want.tolist()


def test_expand_refuses_minus_one_for_a_new_leading_dim_as_in_pytorch(device: str) -> None:
    """-1 keeps an existing dim's size; a new leading dim has none to keep."""
    x = microtorch.zeros(4, 6, device=device)
    with pytest.raises(RuntimeError, match=r"size -1 is not allowed in a leading, new dim"):
        x.expand(-1, 4, 6)
    assert x.expand(2, -1, 6).shape == (2, 4, 6) and x[:1].expand(3, -1).shape == (3, 6)


def test_mT_of_a_vector_is_refused_and_of_a_scalar_is_itself_as_in_pytorch() -> None:
    with pytest.raises(RuntimeError, match="mT is only supported on matrices"):
        _ = microtorch.zeros(3).mT
    s = microtorch.tensor(2.0)
    assert s.mT is s and microtorch.zeros(2, 3, 4).mT.shape == (2, 4, 3)


def test_a_0d_integer_tensor_index_gives_a_view_as_an_int_does(device: str) -> None:
    """x[tensor(1)] is x[1] in PyTorch, a view (NumPy copies for a 0-d integer array)."""
    x = microtorch.arange(6.0, device=device).reshape(2, 3)
    row = x[microtorch.tensor(1, device=device)]
    row.mul_(10)
    x[microtorch.tensor(0, device=device), 1:].add_(1)
    assert x.tolist() == [[0.0, 2.0, 3.0], [30.0, 40.0, 50.0]] and row._version == x._version
    a = microtorch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    h = a * 1
    h[microtorch.tensor(2, device=device)].mul_(4)
    h.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 4.0]


def test_index_add_of_bool_tensors_is_an_or_as_in_pytorch(device: str) -> None:
    x = microtorch.tensor([True, False, False], device=device)
    flags = microtorch.tensor([True, True], device=device)
    out = x.index_add(0, microtorch.tensor([1, 1], device=device), flags)
    assert out.tolist() == [True, True, False] and out.dtype is microtorch.bool
    x.index_add_(0, microtorch.tensor([2, 0], device=device), ~flags)
    assert x.tolist() == [True, False, False]


def test_copy_takes_a_tensor_or_a_number_as_in_pytorch(device: str) -> None:
    x = microtorch.zeros(2, 3, device=device)
    for src in ([1.0, 2.0, 3.0], np.ones(3)):
        with pytest.raises(TypeError, match="copy_: src must be a tensor"):
            x.copy_(src)
    assert x.copy_(2.5).tolist() == [[2.5] * 3] * 2
    assert x.copy_(microtorch.arange(3.0, device=device)).tolist() == [[0.0, 1.0, 2.0]] * 2


def test_softmax_and_log_softmax_methods_take_dtype() -> None:
    # x.softmax(-1, dtype=torch.float32), as PyTorch's method takes: a TypeError here
    x = microtorch.tensor([[1, 2, 3], [0, 0, 1]])
    out = x.softmax(1, dtype=microtorch.float64)
    assert out.dtype is microtorch.float64
    np.testing.assert_allclose(out.sum(1).numpy(), 1.0)
    logp = x.log_softmax(dim=0, dtype=microtorch.float32)
    assert logp.dtype is microtorch.float32
    pt = pytest.importorskip("torch")
    theirs = pt.tensor([[1, 2, 3], [0, 0, 1]]).log_softmax(dim=0, dtype=pt.float32)
    np.testing.assert_allclose(logp.numpy(), theirs.numpy(), rtol=1e-6)
    np.testing.assert_allclose(
        out.numpy(), pt.tensor([[1, 2, 3], [0, 0, 1]]).softmax(1, pt.float64).numpy()
    )
