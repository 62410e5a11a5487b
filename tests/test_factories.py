"""Making tensors (microtorch/factories.py): the dtype tensor() infers from lists, numbers,
NumPy data and tensors; zeros/ones/full/empty and the *_like forms; arange, linspace,
logspace and eye. Compared with PyTorch when it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch

from .torch_reference import needs_torch


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


# ------------------------------------------------------------------ tensor() from a list
LISTS_OF_TENSORS = [
    (lambda T: [T.tensor(1, dtype=T.int8), T.tensor(2, dtype=T.int8)], "int8"),
    (lambda T: [T.tensor(1, dtype=T.int8), 2], "int64"),
    (lambda T: [T.tensor(1.5, dtype=T.float16), 0.5], "float32"),
    (lambda T: [T.tensor(2.5, dtype=T.float64), 1.5], "float64"),
    (lambda T: [T.tensor(1, dtype=T.int8), 1.5], "float32"),
    (lambda T: [T.tensor(True), 2], "int64"),
    (lambda T: [[T.tensor(1, dtype=T.int8)], [T.tensor(3, dtype=T.int8)]], "int8"),
    (lambda T: [T.tensor(1, dtype=T.int32), np.int8(1)], "int32"),
    (lambda T: [T.tensor(2.5, dtype=T.float64), T.tensor(1.5, dtype=T.float16)], "float64"),
]


@pytest.mark.parametrize("data, dtype", LISTS_OF_TENSORS)
def test_list_of_one_element_tensors_keeps_their_dtypes(data, dtype) -> None:
    """Each tensor counts with its own dtype, as a NumPy scalar does (we used to take its
    Python value, so int8 tensors gave int64)."""
    assert microtorch.tensor(data(microtorch)).dtype.name == dtype
    torch = pytest.importorskip("torch")
    assert _name(torch.tensor(data(torch)).dtype) == dtype


@pytest.mark.parametrize("data", [2**63, [2**63], [-(2**63) - 1], [2**64], [2**63, True]])
def test_python_int_beyond_int64_raises_value_error(data) -> None:
    """As PyTorch ('Overflow when unpacking long long'); [2**63] used to wrap to -2**63."""
    with pytest.raises(ValueError, match="does not fit int64.*dtype=microtorch.float64"):
        microtorch.tensor(data)
    assert microtorch.tensor(data, dtype=microtorch.float64).dtype is microtorch.float64
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        torch.tensor(data)


def test_int64_limits_and_huge_ints_among_floats_still_work() -> None:
    assert microtorch.tensor([2**63 - 1, -(2**63)]).tolist() == [2**63 - 1, -(2**63)]
    assert microtorch.tensor([1.5, 2**63]).tolist() == [1.5, float(2**63)]
    assert microtorch.tensor([np.uint8(3)]).dtype is microtorch.uint8


# ------------------------------------------------------------------ full
FULL_DTYPES = [
    (lambda T: T.full((2,), 3), "int64"),
    (lambda T: T.full((2,), True), "bool"),
    (lambda T: T.full((2,), 1.5), "float32"),
    (lambda T: T.full((2,), T.tensor(True)), "bool"),
    (lambda T: T.full((2,), T.tensor(3, dtype=T.int8)), "int64"),  # an integer tensor: int64
    (lambda T: T.full((2,), T.tensor(1.5, dtype=T.float64)), "float32"),
    (lambda T: T.full((2,), np.int16(3)), "int64"),
    (lambda T: T.full((2,), np.float64(3)), "float32"),
]


@pytest.mark.parametrize("make, dtype", FULL_DTYPES)
def test_full_infers_the_dtype_from_the_fill_value(make, dtype) -> None:
    assert make(microtorch).dtype.name == dtype
    torch = pytest.importorskip("torch")
    assert _name(make(torch).dtype) == dtype


@pytest.mark.parametrize(
    "value, dtype",
    [(300, "uint8"), (-129, "int8"), (2**40, "int32"), (float("nan"), "int32"), (1e10, "int32")],
)
def test_full_with_a_value_the_dtype_cannot_hold_raises(value, dtype) -> None:
    """PyTorch: RuntimeError 'value cannot be converted to type ... without overflow' (we
    raised NumPy's OverflowError, and full_like(int_tensor, nan) gave -2**31)."""
    with pytest.raises(RuntimeError, match=f"full: value .* cannot be converted to type.*{dtype}"):
        microtorch.full((2,), value, dtype=getattr(microtorch, dtype))
    with pytest.raises(RuntimeError, match="full: value .* cannot be converted"):
        microtorch.full_like(microtorch.zeros(2, dtype=getattr(microtorch, dtype)), value)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.full((2,), value, dtype=getattr(torch, dtype))


def test_full_wraps_small_negatives_into_unsigned_and_truncates_floats_as_torch() -> None:
    assert microtorch.full((2,), -1, dtype=microtorch.uint8).tolist() == [255, 255]
    assert microtorch.full((2,), 1.5, dtype=microtorch.int64).tolist() == [1, 1]
    torch = pytest.importorskip("torch")
    assert torch.full((2,), -1, dtype=torch.uint8).tolist() == [255, 255]
    assert torch.full((2,), 1.5, dtype=torch.int64).tolist() == [1, 1]


# ------------------------------------------------------------------ linspace / logspace
SPACED = [
    "torch.linspace(0, 1, 5)",
    "torch.linspace(0, 1, 1)",  # steps=1: just start
    "torch.linspace(0, 1, 0)",
    "torch.linspace(1, 0, 4, dtype=torch.float64)",
    "torch.linspace(-5, 5, 4, dtype=torch.int64)",
    "torch.linspace(start=0, end=1, steps=3, requires_grad=True)",
    "torch.logspace(0, 1, 5)",
    "torch.logspace(0, 1, 1)",
    "torch.logspace(-1, 1, 3, dtype=torch.float64)",
    "torch.logspace(0, 2, 3, base=2)",
    "torch.logspace(0, 3, 4, 0.5)",
    "torch.logspace(0, 9, 4, dtype=torch.int32)",
    "torch.logspace(torch.tensor(1.0), 2, 3, requires_grad=True)",
    # integer dtypes: start and end truncated first, values stepped from both ends
    "torch.linspace(4.3, -3, 10, dtype=torch.int64)",
    "torch.linspace(-7.9, 100.7, 17, dtype=torch.int32)",
    "torch.linspace(4.3, -3, 1, dtype=torch.int64)",
    "torch.logspace(0, 1.2, 4, dtype=torch.int64)",
    "torch.logspace(0, 1.2, 2, 5.0, dtype=torch.int64)",
    "torch.logspace(1.2, 3, 1, dtype=torch.int64)",
]


@pytest.mark.parametrize("snippet", SPACED)
def test_linspace_logspace_match_torch(snippet) -> None:
    ours = eval(snippet, {"torch": microtorch})
    assert ours.requires_grad == ("requires_grad" in snippet)
    if snippet == "torch.logspace(0, 2, 3, base=2)":
        assert ours.tolist() == [1.0, 2.0, 4.0] and ours.dtype is microtorch.float32
    torch = pytest.importorskip("torch")
    theirs = eval(snippet, {"torch": torch})
    assert ours.dtype.name == _name(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int32", "uint8"])
def test_linspace_values_are_pytorchs_bit_for_bit(dtype: str) -> None:
    # PyTorch counts the first half up from start and the second half down from end, each
    # value rounded once (a fused multiply-add), in the result's dtype (an integer dtype:
    # start and end as that dtype holds them, then float64); NumPy's linspace differs in
    # the last bit, which decides e.g. which pixel affine_grid's positions fall on
    torch = pytest.importorskip("torch")
    for steps in (*range(0, 40), 99, 1000):
        for start, end in ((-1, 1), (0, 1), (0.3, 7.1), (-3, -1e-3), (5, -2), (0, 255), (2, 2)):
            if dtype == "uint8" and start < 0:
                continue
            ours = microtorch.linspace(start, end, steps, dtype=getattr(microtorch, dtype))
            theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=f"{start, end}")
            assert ours.dtype.name == _name(theirs.dtype)


@pytest.mark.parametrize("op", ["linspace", "logspace"])
def test_linspace_logspace_bad_steps(op) -> None:
    with pytest.raises(RuntimeError, match=f"{op}\\(\\): number of steps must be non-negative"):
        getattr(microtorch, op)(0, 1, -1)
    with pytest.raises(TypeError, match=f"{op}\\(\\): argument 'steps' must be an int"):
        getattr(microtorch, op)(0, 1, 2.0)


# ------------------------------------------------------------------ arange / eye
def test_arange_takes_end_as_a_keyword() -> None:
    assert microtorch.arange(end=5).tolist() == [0, 1, 2, 3, 4]
    assert microtorch.arange(start=2, end=5).tolist() == [2, 3, 4]
    with pytest.raises(TypeError, match="arange\\(\\) missing its end argument"):
        microtorch.arange()
    torch = pytest.importorskip("torch")
    assert torch.arange(end=5).tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "args", [(0.0, -8.000001, -4.0), (-0.9, 2.1, 2.0), (0, 5, 1.5), (5.9, -3.2, -1.5)]
)
def test_arange_with_an_integer_dtype_truncates_its_arguments(args) -> None:
    ours = microtorch.arange(*args, dtype=microtorch.int64)
    torch = pytest.importorskip("torch")
    assert ours.tolist() == torch.arange(*args, dtype=torch.int64).tolist()
    assert ours.dtype is microtorch.int64


@needs_torch((2, 13), "arange's check of a step that truncates to 0 (2.11 crashes)")
def test_arange_with_an_integer_dtype_refuses_a_step_that_truncates_to_0() -> None:
    with pytest.raises(ValueError, match="step must be nonzero"):
        microtorch.arange(0, 5, 0.5, dtype=microtorch.int64)
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        torch.arange(0, 5, 0.5, dtype=torch.int64)


@pytest.mark.parametrize("args", [(float("inf"),), (0, float("nan")), (float("-inf"), 0, 1)])
def test_arange_of_a_non_finite_range_raises_runtime_error(args) -> None:
    with pytest.raises(RuntimeError, match="arange: unsupported range"):
        microtorch.arange(*args)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.arange(*args)


@pytest.mark.parametrize("args", [(-1,), (2, -1)])
def test_eye_with_a_negative_size_raises_runtime_error(args) -> None:
    with pytest.raises(RuntimeError, match="eye\\(\\): [nm] must be greater or equal to 0"):
        microtorch.eye(*args)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.eye(*args)


# ------------------------------------------------------------------ range (deprecated)
RANGES = [(1, 4), (0, 1, 0.25), (0, 0.3, 0.1), (4, 1, -1), (1, 3.5), (1, 2, 0.3), (0, 1, 0.1),
          (2, 2), (-3, 3, 2)]  # fmt: skip


@pytest.mark.parametrize("args", RANGES, ids=str)
def test_range_includes_its_end_and_is_float_by_default_as_torch(args) -> None:
    torch = pytest.importorskip("torch")
    with pytest.warns(UserWarning, match="torch.range is deprecated") as record:
        mine = microtorch.range(*args)
    assert record[0].filename == __file__  # reported at the caller's line
    with pytest.warns(UserWarning):
        theirs = torch.range(*args)
    assert mine.dtype is microtorch.float32 and mine.tolist() == theirs.tolist()
    with pytest.warns(UserWarning):
        assert (
            microtorch.range(*args, dtype=microtorch.float64).tolist()
            == torch.range(*args, dtype=torch.float64).tolist()
        )


def test_range_with_an_integer_dtype_and_its_errors() -> None:
    torch = pytest.importorskip("torch")
    with pytest.warns(UserWarning):
        got = microtorch.range(1, 4, dtype=microtorch.int32, step=2, requires_grad=False)
        assert got.dtype is microtorch.int32 and got.tolist() == [1, 3]
        assert torch.range(1, 4, dtype=torch.int32, step=2).tolist() == [1, 3]
        x = microtorch.range(0, 2, requires_grad=True)
        assert x.requires_grad and x.is_leaf
        for T in (torch, microtorch):
            with pytest.raises(RuntimeError, match="step must be nonzero"):
                T.range(1, 4, 0)
            with pytest.raises(RuntimeError, match="inconsistent with step sign"):
                T.range(4, 1)
            with pytest.raises(TypeError, match="end"):
                T.range(5)


# ------------------------------------------------------------------ frombuffer, from_file
def test_frombuffer_shares_the_buffers_memory_as_torch() -> None:
    import array

    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        a = array.array("i", [1, 2, 3, 4])
        t = T.frombuffer(a, dtype=T.int32)
        t[0] = 9
        assert a.tolist() == [9, 2, 3, 4] and t.dtype is T.int32
        assert T.frombuffer(a, dtype=T.int32, count=2, offset=4).tolist() == [2, 3]
        assert T.frombuffer(bytearray(b"\x00\x00\x80?"), dtype=T.float32).tolist() == [1.0]
        assert T.frombuffer(bytearray(8), dtype=T.float32, requires_grad=True).requires_grad
    with pytest.warns(UserWarning, match="not writable"):
        assert microtorch.frombuffer(b"\x01\x02", dtype=microtorch.uint8).tolist() == [1, 2]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"count": 0}, "must not be 0"),
        ({"count": 5}, "must not be greater than actual buffer length"),
        ({"offset": 16}, "offset \\(16 bytes\\) must be non-negative"),
        ({"offset": -1}, "must be non-negative"),
        ({"offset": 2}, "must be a multiple of element size \\(4\\)"),
    ],
)
def test_frombuffer_refuses_what_torch_refuses(kwargs, match) -> None:
    import array

    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        with pytest.raises(ValueError, match=match):
            T.frombuffer(array.array("i", [1, 2, 3, 4]), dtype=T.int32, **kwargs)
    for T in (microtorch, torch):
        with pytest.raises(ValueError, match="buffer protocol"):
            T.frombuffer([1, 2], dtype=T.float32)
        with pytest.raises(TypeError):
            T.frombuffer(bytearray(4))


LAYOUT_CALLS = [
    "T.zeros(2, {})", "T.ones(2, {})", "T.empty(2, {})", "T.full((2,), 1.0, {})",
    "T.arange(3, {})", "T.linspace(0, 1, 3, {})", "T.logspace(0, 1, 3, {})", "T.eye(2, {})",
    "T.randn(2, {})", "T.rand(2, {})", "T.randint(5, (2,), {})", "T.randperm(3, {})",
    "T.normal(0.0, 1.0, (2,), {})", "T.zeros_like(x, {})", "T.full_like(x, 1.0, {})",
    "T.randn_like(x, {})", "T.randint_like(x, 5, {})", "T.empty_strided((2,), (1,), {})",
    "T.tril_indices(2, 2, {})", "T.scalar_tensor(1.0, {})", "x.new_zeros(2, {})",
    "x.new_full((2,), 1.0, {})", "x.new_empty_strided((2,), (1,), {})",
    "T.hann_window(4, {})", "T.kaiser_window(4, {})",
]  # fmt: skip


@pytest.mark.parametrize("call", LAYOUT_CALLS)
def test_layout_and_pin_memory_are_accepted_at_their_defaults_only(call: str) -> None:
    """layout=strided (or None) and pin_memory=False change nothing, as in PyTorch; a sparse
    layout or pinned memory, which microtorch does not have, raise NotImplementedError
    naming the argument (PyTorch without a GPU refuses pin_memory=True too)."""
    scope = {"T": microtorch, "x": microtorch.zeros(2)}
    plain = eval(call.replace(", {}", ""), scope)
    for given in ("layout=T.strided", "layout=None", "pin_memory=False"):
        assert eval(call.format(given), scope).shape == plain.shape
    with pytest.raises(NotImplementedError, match="layout="):
        eval(call.format("layout='sparse_coo'"), scope)
    with pytest.raises(NotImplementedError, match="pin_memory=True"):
        eval(call.format("pin_memory=True"), scope)
    torch = pytest.importorskip("torch")
    scope = {"T": torch, "x": torch.zeros(2)}
    for given in ("layout=T.strided", "layout=None", "pin_memory=False"):
        assert tuple(eval(call.format(given), scope).shape) == tuple(plain.shape)


def test_from_file_maps_a_file_privately_or_shared(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        path = str(tmp_path / f"{T.__name__}.bin")
        np.arange(6, dtype=np.float32).tofile(path)
        assert T.from_file(path, size=6).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        assert T.from_file(path, size=3, dtype=T.float32).dtype is T.float32
        assert T.from_file(path).tolist() == []
        private = T.from_file(path, shared=False, size=6)
        private[1] = 7.0
        assert np.fromfile(path, dtype=np.float32)[1] == 1.0  # a private copy-on-write map
        shared = T.from_file(path, shared=True, size=8)  # the file grows to 8 elements
        assert shared.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0]
        shared[0] = 42.0
        del shared
        assert np.fromfile(path, dtype=np.float32).tolist()[:2] == [42.0, 1.0]
        with pytest.raises(RuntimeError, match="is smaller than the required mapping size"):
            T.from_file(path, size=9)
        with pytest.raises(RuntimeError, match="unable to"):
            T.from_file(str(tmp_path / "missing.bin"), size=2)
        with pytest.raises(RuntimeError, match="unable to"):
            T.from_file(path, size=-1)


# ------------------------------------------------------------------ memory sharing
def test_as_tensor_shares_memory_with_a_numpy_array_of_its_dtype() -> None:
    """PyTorch's as_tensor uses from_numpy when dtype and device already fit."""
    a = np.arange(3.0)
    shared, copied = microtorch.as_tensor(a), microtorch.as_tensor(a, dtype=microtorch.float32)
    also_shared = microtorch.as_tensor(a, dtype=microtorch.float64, device="cpu")
    a[0] = 7.0
    assert shared.tolist() == [7.0, 1.0, 2.0] and also_shared.tolist() == [7.0, 1.0, 2.0]
    assert copied.tolist() == [0.0, 1.0, 2.0]
    assert microtorch.tensor(a).tolist() == [7.0, 1.0, 2.0]  # tensor() copies...
    copy = microtorch.tensor(a)
    a[1] = 9.0
    assert copy.tolist() == [7.0, 1.0, 2.0]  # ...and does not follow later changes
    torch = pytest.importorskip("torch")
    b = np.arange(3.0)
    theirs = torch.as_tensor(b)
    b[0] = 7.0
    assert theirs.tolist() == [7.0, 1.0, 2.0]


def test_as_tensor_of_a_tensor_and_of_python_data() -> None:
    t = microtorch.ones(2, requires_grad=True)
    assert microtorch.as_tensor(t) is t
    assert microtorch.as_tensor(t, dtype=microtorch.float64).grad_fn is not None
    assert microtorch.as_tensor([1, 2]).dtype is microtorch.int64
    assert microtorch.as_tensor(np.array([1, 2], np.int32)).dtype is microtorch.int32


# ------------------------------------------------------------------ randint
@pytest.mark.parametrize(
    "args, dtype",
    [
        ((0, 300, (3,)), "uint8"),
        ((-1, 2, (3,)), "uint8"),
        ((0, 10, (3,)), "bool"),
        ((0, 200, (2,)), "int8"),
    ],
)
def test_randint_range_must_fit_the_dtype(args, dtype) -> None:
    """PyTorch: RuntimeError 'to - 1 is out of bounds for unsigned char' (we wrapped)."""
    with pytest.raises(RuntimeError, match=f"randint: .* is out of bounds for microtorch.{dtype}"):
        microtorch.randint(*args, dtype=getattr(microtorch, dtype))
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.randint(*args, dtype=getattr(torch, dtype))


def test_randint_at_the_edges_of_the_dtype_and_randint_like() -> None:
    microtorch.manual_seed(0)
    values = microtorch.randint(0, 256, (500,), dtype=microtorch.uint8)
    assert values.dtype is microtorch.uint8 and int(values.max()) > 200
    assert microtorch.randint(0, 2, (4,), dtype=microtorch.bool).dtype is microtorch.bool
    like = microtorch.randint_like(microtorch.ones(2, 3), 10)
    assert like.dtype is microtorch.float32 and like.shape == (2, 3)
    low_high = microtorch.randint_like(microtorch.ones(4, dtype=microtorch.int8), 3, 5)
    assert low_high.dtype is microtorch.int8 and set(low_high.tolist()) <= {3, 4}
    assert microtorch.randint_like(microtorch.ones(2), 5, dtype=microtorch.int64).dtype.name == (
        "int64"
    )


INTEGER_DRAW_FORMS = {  # PyTorch's accepted forms: (shape, dtype, requires_grad)
    "randint(high=, size=)": (lambda T: T.randint(high=10, size=(3,)), (3,), "int64", False),
    "randint float dtype, requires_grad": (
        lambda T: T.randint(0, 10, (3,), dtype=T.float32, requires_grad=True),
        (3,), "float32", True),
    "randint 0-d tensor bounds": (lambda T: T.randint(T.tensor(2), T.tensor(5), (2,)),
                                  (2,), "int64", False),
    "randint_like(high=)": (lambda T: T.randint_like(T.zeros(2), high=3), (2,), "float32", False),
    "randint_like requires_grad": (lambda T: T.randint_like(T.zeros(2), 3, requires_grad=True),
                                   (2,), "float32", True),
    "randperm float requires_grad": (
        lambda T: T.randperm(4, dtype=T.float64, requires_grad=True), (4,), "float64", True),
    "randperm(256) into uint8": (lambda T: T.randperm(256, dtype=T.uint8), (256,), "uint8", False),
}  # fmt: skip


@pytest.mark.parametrize("name", list(INTEGER_DRAW_FORMS))
def test_integer_draws_take_pytorchs_argument_forms(name) -> None:
    """randint(high=...), requires_grad= on randint/randint_like/randperm raised TypeError."""
    make, shape, dtype, requires_grad = INTEGER_DRAW_FORMS[name]
    libs = [microtorch]
    try:
        import torch

        libs.append(torch)
    except ImportError:
        pass
    for lib in libs:
        out = make(lib)
        assert (tuple(out.shape), _name(out.dtype), out.requires_grad) == (
            shape, dtype, requires_grad
        ), lib.__name__  # fmt: skip


INTEGER_DRAW_ERRORS = {
    "randint with float bounds": (lambda T: T.randint(0.5, 10.5, (3,)), TypeError),
    "randint with an int size": (lambda T: T.randint(0, 10, 3), TypeError),
    "randint int64 requires_grad": (
        lambda T: T.randint(0, 10, (3,), requires_grad=True), RuntimeError),
    "randint_like without high": (lambda T: T.randint_like(T.zeros(2)), TypeError),
    "randperm beyond int8": (lambda T: T.randperm(300, dtype=T.int8), RuntimeError),
    "randperm into bool": (lambda T: T.randperm(2, dtype=T.bool), NotImplementedError),
    "randperm of a tuple": (lambda T: T.randperm((5,)), TypeError),
}  # fmt: skip


@pytest.mark.parametrize("name", list(INTEGER_DRAW_ERRORS))
def test_integer_draws_refuse_what_pytorch_refuses(name) -> None:
    """These returned a tensor (a truncated bound, a wrapped int8 permutation...)."""
    make, error = INTEGER_DRAW_ERRORS[name]
    with pytest.raises(error) as ours:
        make(microtorch)
    assert type(ours.value) is error
    torch = pytest.importorskip("torch")
    with pytest.raises(error) as theirs:
        make(torch)
    assert type(theirs.value) is error


# ------------------------------------------------------------------ data tensor() refuses
@pytest.mark.parametrize("data", [None, [None], {1, 2}, (x for x in [1]), {"a": 1}, object()])
def test_data_with_no_dtype_raises_runtime_error(data) -> None:
    """PyTorch: RuntimeError 'Could not infer dtype of NoneType' (we raised TypeError)."""
    with pytest.raises(RuntimeError, match="tensor: could not infer a dtype from"):
        microtorch.tensor(data)


@pytest.mark.parametrize("data", ["a", [1, "a"], b"ab"])
def test_text_raises_type_error(data) -> None:
    with pytest.raises(TypeError, match="could not make a tensor"):
        microtorch.tensor(data)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        torch.tensor(data)


def test_legacy_tensor_constructor_takes_a_size_as_sizes() -> None:
    """torch.Tensor(x.shape) is an uninitialised tensor of that shape (we made [2., 3.])."""
    made = microtorch.Tensor(microtorch.Size([2, 3]))
    assert made.shape == (2, 3) and made.dtype is microtorch.float32
    assert microtorch.Tensor([2, 3]).tolist() == [2.0, 3.0]  # a list is still data
    torch = pytest.importorskip("torch")
    assert torch.Tensor(torch.Size([2, 3])).shape == (2, 3)


def test_ranges_inside_a_list_count_as_ints() -> None:
    """torch.tensor([range(2), range(2)]) is int64 (we skipped the ranges and said float32)."""
    assert microtorch.tensor([range(2), range(2)]).dtype is microtorch.int64
    assert microtorch.tensor([range(2), [0.5, 1]]).dtype is microtorch.float32
    torch = pytest.importorskip("torch")
    assert torch.tensor([range(2), range(2)]).dtype is torch.int64


NO_SIZE_CALLS = [
    "lib.zeros()",
    "lib.ones()",
    "lib.empty()",
    "lib.rand()",
    "lib.randn()",
    "x.new_zeros()",
    "x.new_ones()",
    "x.new_empty()",
    "x.view()",
    "x.reshape()",
    "x.flip()",
    "x.tile()",
    "x.sum_to_size()",
]


@pytest.mark.parametrize("call", NO_SIZE_CALLS)
def test_a_size_must_be_given(call: str) -> None:
    """zeros() and x.view() with no size at all raise TypeError, as in PyTorch; we made a 0-d
    tensor, so x.view() of a one-element tensor silently dropped its dims."""
    x = microtorch.zeros(1)
    with pytest.raises(TypeError, match="missing 1 required positional"):
        eval(call, {"lib": microtorch, "x": x})
    assert microtorch.zeros(()).shape == () and x.view(()).shape == ()  # () still means 0-d
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        eval(call, {"lib": torch, "x": torch.zeros(1)})
