"""microtorch.backends and set_float32_matmul_precision: the lines of PyTorch training
scripts that pick TF32 run here, and on a GPU they really switch CuPy's 2-D float32
products to TF32 (on the CPU nothing changes)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import microtorch


@pytest.fixture(autouse=True)
def _float32_products_afterwards():
    yield
    microtorch.set_float32_matmul_precision("highest")
    microtorch.backends.cudnn.benchmark = False  # (scripts' lines below set it)


def test_pytorch_script_lines_run() -> None:
    torch = microtorch
    assert torch.get_float32_matmul_precision() == "highest"
    assert torch.backends.cuda.matmul.allow_tf32 is False
    torch.backends.cuda.matmul.allow_tf32 = True  # nanoGPT's train.py
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    assert torch.get_float32_matmul_precision() == "high"
    torch.set_float32_matmul_precision("medium")  # as in PyTorch, medium allows TF32 too
    assert torch.backends.cuda.matmul.allow_tf32 is True
    torch.backends.cuda.matmul.allow_tf32 = False
    assert torch.get_float32_matmul_precision() == "highest"
    assert torch.backends.mps.is_available() is False


def test_an_unknown_precision_is_refused() -> None:
    with pytest.raises(RuntimeError, match="'highest', 'high', 'medium', got 'low'"):
        microtorch.set_float32_matmul_precision("low")
    assert microtorch.get_float32_matmul_precision() == "highest"


def _products(device: str) -> tuple:
    """(a @ b, the same as a batch of one, float64 reference) for a 2-D float32 product."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 96, 96)).astype(np.float32)
    ta, tb = microtorch.tensor(a, device=device), microtorch.tensor(b, device=device)
    product = (ta @ tb).cpu().numpy()
    batched = (ta[None] @ tb[None]).cpu().numpy()[0]
    return product, batched, a.astype(np.float64) @ b.astype(np.float64)


def test_tf32_rounds_only_2d_gpu_products(device: str) -> None:
    full, full_batched, reference = _products(device)
    microtorch.set_float32_matmul_precision("high")
    tf32, tf32_batched, _ = _products(device)
    error_full = np.abs(full - reference).max()
    error_tf32 = np.abs(tf32 - reference).max()
    if device == "cpu":
        np.testing.assert_array_equal(tf32, full)
        return
    if microtorch.cuda.get_device_capability() < (8, 0):
        pytest.skip("TF32 needs compute capability 8.0 or newer (CuPy stays in float32)")
    # inputs rounded to 10 mantissa bits: errors ~1e-3 of the values (up to ~30 here), not
    # float32's ~1e-6
    assert 20 * error_full < error_tf32 < 0.2, (error_full, error_tf32)
    error_batched = np.abs(tf32_batched - reference).max()
    assert error_batched <= 4 * np.abs(full_batched - reference).max(), (
        f"a batched product's error grew to {error_batched} with TF32 on: docs/gpu.md says "
        "that CuPy leaves batched products in float32"
    )


def test_a_cupy_without_the_switch_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compute-type switch is private CuPy API: without it, TF32 is refused with a
    warning and nothing else changes (CUDA must not become unusable)."""
    from microtorch import backend

    fake_cupy = type("cupy", (), {"__version__": "99.0"})()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        backend._apply_float32_matmul_precision(fake_cupy)  # float32: nothing to say
    monkeypatch.setattr(backend, "_float32_matmul_precision", "high")
    with pytest.warns(UserWarning, match="CuPy 99.0 has no compute-type switch"):
        backend._apply_float32_matmul_precision(fake_cupy)


def test_backend_submodules_import_as_in_pytorch_scripts() -> None:
    """``import torch.backends.cudnn as cudnn`` (a line many training scripts start with)
    failed: backends was one module, not a package."""
    import microtorch.backends.cuda as cuda
    import microtorch.backends.cudnn as cudnn
    import microtorch.backends.mps as mps

    assert cudnn is microtorch.backends.cudnn and cuda is microtorch.backends.cuda
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (
        True, False, False, True,
    )  # fmt: skip
    assert cudnn.is_available() is False and cudnn.version() is None
    assert mps.is_available() is False and mps.is_built() is False and cuda.is_built() is True
    cudnn.benchmark = True
    assert microtorch.backends.cudnn.benchmark is True
    with cudnn.flags(enabled=False, deterministic=True):
        assert (cudnn.enabled, cudnn.deterministic, cudnn.benchmark) == (False, True, False)
    assert (cudnn.enabled, cudnn.deterministic, cudnn.benchmark) == (True, False, True)
    torch = pytest.importorskip("torch")
    import torch.backends.cudnn as torch_cudnn

    assert (torch_cudnn.enabled, torch_cudnn.deterministic, torch_cudnn.allow_tf32) == (
        True, False, True,
    )  # fmt: skip
    assert torch.backends.mps.is_available() is False


def test_the_deprecated_sdp_kernel_warns_and_restores_the_switches() -> None:
    cuda = microtorch.backends.cuda
    with pytest.warns(FutureWarning, match="sdpa_kernel"):
        with cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False):
            assert (cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled()) == (False, False)
            assert cuda.math_sdp_enabled() and cuda.cudnn_sdp_enabled()
    assert cuda.flash_sdp_enabled() and cuda.mem_efficient_sdp_enabled()
    cuda.enable_flash_sdp(False)
    try:
        assert cuda.flash_sdp_enabled() is False
    finally:
        cuda.enable_flash_sdp(True)
