"""Top-level names PyTorch keeps for other modules' objects or for old spellings: torch.vmap,
torch.GradScaler, the error types, set_anomaly_enabled, the per-device autocast getters and
setters of PyTorch before 2.4 and set_default_tensor_type, each against PyTorch."""

from __future__ import annotations

import warnings

import pytest

import microtorch
from tests.conftest import cuda_available


def test_aliases_are_the_objects_they_name() -> None:
    assert microtorch.vmap is microtorch.func.vmap
    assert microtorch.GradScaler is microtorch.amp.GradScaler
    assert microtorch.cuda.OutOfMemoryError is microtorch.OutOfMemoryError
    for error in (microtorch.OutOfMemoryError, microtorch.AcceleratorError):
        assert issubclass(error, RuntimeError) and error.__module__ == "microtorch"
    torch = pytest.importorskip("torch")
    assert torch.vmap is torch.func.vmap and torch.GradScaler is torch.amp.GradScaler
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    assert issubclass(torch.OutOfMemoryError, RuntimeError)
    assert issubclass(torch.AcceleratorError, RuntimeError)


def test_set_anomaly_enabled_switches_detection_as_torch() -> None:
    torch = pytest.importorskip("torch")
    try:
        for T in (microtorch, torch):
            for args, state in [((True,), (True, True)), ((True, False), (True, False)),
                                ((False,), (False, True))]:  # fmt: skip
                T.set_anomaly_enabled(*args)
                assert (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()) == state
            with pytest.raises(TypeError, match="must be bool"):
                T.set_anomaly_enabled(1)
            with pytest.raises(TypeError):
                T.set_anomaly_enabled()
    finally:
        microtorch.set_anomaly_enabled(False)
        torch.set_anomaly_enabled(False)
    microtorch.set_anomaly_enabled(True)  # the switch really checks: a NaN is caught
    try:
        with pytest.raises(RuntimeError, match="nan|NaN"):
            x = microtorch.tensor([-1.0], requires_grad=True)
            microtorch.sqrt(x).sum().backward()
    finally:
        microtorch.set_anomaly_enabled(False)


GETTERS = [
    ("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')"),
    ("is_autocast_ipu_enabled", "is_autocast_enabled('ipu')"),
    ("is_autocast_xla_enabled", "is_autocast_enabled('xla')"),
    ("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')"),
    ("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')"),
    ("get_autocast_ipu_dtype", "get_autocast_dtype('ipu')"),
    ("get_autocast_xla_dtype", "get_autocast_dtype('xla')"),
]


@pytest.mark.parametrize("name, new", GETTERS)
def test_deprecated_autocast_getters_warn_and_read_the_state(name, new) -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        with pytest.warns(DeprecationWarning) as record:
            value = getattr(T, name)()
        message = str(record[0].message)
        assert message.startswith(f"torch.{name}() is deprecated. Please use torch.{new} instead")
        assert record[0].filename == __file__
        assert value == eval(f"T.{new}")  # noqa: S307 (the replacement's answer)


def test_deprecated_autocast_setters_set_the_state_autocast_reads() -> None:
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for T in (microtorch, torch):
            before = T.get_autocast_dtype("cpu")
            T.set_autocast_cpu_enabled(True)
            assert T.is_autocast_enabled("cpu") and T.is_autocast_cpu_enabled()
            T.set_autocast_cpu_enabled(False)
            assert not T.is_autocast_enabled("cpu")
            T.set_autocast_cpu_dtype(T.float16)
            assert T.get_autocast_dtype("cpu") is T.float16
            T.set_autocast_cpu_dtype(before)
            gpu = T.get_autocast_dtype("cuda")
            T.set_autocast_gpu_dtype(T.float64)
            assert T.get_autocast_gpu_dtype() is T.float64
            T.set_autocast_gpu_dtype(gpu)
            T.set_autocast_xla_enabled(False)
            T.set_autocast_ipu_enabled(False)
            T.set_autocast_ipu_dtype(T.float16)
            with pytest.raises(TypeError, match="enabled must be a bool"):
                T.set_autocast_cpu_enabled(1)
            with pytest.raises(TypeError, match="dtype must be a torch.dtype"):
                T.set_autocast_cpu_dtype(3)
    for T in (microtorch, torch):
        with pytest.warns(DeprecationWarning, match=r"set_autocast_enabled\('cpu', enabled\)"):
            T.set_autocast_cpu_enabled(False)


def test_set_autocast_cpu_enabled_makes_cpu_ops_autocast() -> None:
    a = microtorch.ones(2, 2)
    with pytest.warns(DeprecationWarning):
        microtorch.set_autocast_cpu_dtype(microtorch.float16)
        microtorch.set_autocast_cpu_enabled(True)
    try:
        assert (a @ a).dtype is microtorch.float16
    finally:
        with pytest.warns(DeprecationWarning):
            microtorch.set_autocast_cpu_enabled(False)
    assert (a @ a).dtype is microtorch.float32


def test_autocast_nesting_counts_as_torch() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        assert [T.autocast_increment_nesting(), T.autocast_increment_nesting()] == [1, 2]
        assert [T.autocast_decrement_nesting(), T.autocast_decrement_nesting()] == [1, 0]
    with microtorch.autocast("cpu", dtype=microtorch.float16):  # a region counts as one
        assert microtorch.autocast_increment_nesting() == 2
        assert microtorch.autocast_decrement_nesting() == 1


@pytest.mark.parametrize(
    "spec, dtype",
    [("DoubleTensor", "float64"), ("torch.DoubleTensor", "float64"),
     ("torch.HalfTensor", "float16"), ("torch.FloatTensor", "float32")],
)  # fmt: skip
def test_set_default_tensor_type_sets_the_default_dtype(spec, dtype) -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        t = spec if "." in spec else getattr(T, spec)
        try:
            with warnings.catch_warnings(record=True) as record:  # (PyTorch's warns only once)
                warnings.simplefilter("always")
                T.set_default_tensor_type(t)
            assert T is torch or "set_default_tensor_type() is deprecated" in str(record[0].message)
            assert T.get_default_dtype() is getattr(T, dtype)
            assert T.tensor([1.0]).dtype is getattr(T, dtype)
        finally:
            T.set_default_dtype(T.float32)
    with pytest.warns(UserWarning):
        microtorch.set_default_tensor_type("microtorch.DoubleTensor")
    assert microtorch.get_default_dtype() is microtorch.float64
    microtorch.set_default_dtype(microtorch.float32)


def test_set_default_tensor_type_refuses_what_torch_refuses() -> None:
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for T in (microtorch, torch):
            for bad in (T.LongTensor, "torch.IntTensor", T.float64, 3, T.Tensor):
                with pytest.raises(TypeError, match="only floating-point types"):
                    T.set_default_tensor_type(bad)
            with pytest.raises(AttributeError):
                T.set_default_tensor_type("torch.Foo")
            # (a CUDA build of PyTorch takes it even without a GPU, and then every tensor it
            # makes fails: only a CPU build's refusal is compared)
            cpu_build = T is microtorch or T.version.cuda is None
            if not cuda_available() and cpu_build:
                with pytest.raises(TypeError, match="not available"):
                    T.set_default_tensor_type("torch.cuda.FloatTensor")
            assert T.get_default_dtype() is T.float32
