"""``backends.cuda``: TF32 for float32 matrix products (really switched, on a GPU), and
PyTorch's attention-kernel switches (recorded; microtorch has one attention kernel)."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

from .. import backend


class _Matmul:
    """``backends.cuda.matmul``: whether float32 matrix products may use TF32 on a GPU."""

    @property
    def allow_tf32(self) -> bool:
        return backend.get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, allow: bool) -> None:
        backend.set_float32_matmul_precision("high" if allow else "highest")

    # PyTorch lets cuBLAS add float16 products in reduced precision by default; microtorch's
    # float16 products are CuPy's, so this is recorded and changes nothing.
    allow_fp16_reduced_precision_reduction = True

    def __repr__(self) -> str:
        return f"<backends.cuda.matmul allow_tf32={self.allow_tf32}>"


matmul = _Matmul()


def is_built() -> bool:
    """True: microtorch can always run on CUDA once CuPy is installed (PyTorch's answer for a
    CUDA build; whether a GPU is there is ``microtorch.cuda.is_available()``)."""
    return True


# scaled_dot_product_attention has one implementation here (the math one, with fused CuPy
# kernels for its softmax on a GPU), so PyTorch's choice of attention kernels is recorded
# for scripts that set or read it, and changes nothing.
_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    return _sdp_enabled["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    _sdp_enabled["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _sdp_enabled["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp_enabled["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _sdp_enabled["math"]


def enable_math_sdp(enabled: bool) -> None:
    _sdp_enabled["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _sdp_enabled["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp_enabled["cudnn"] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True) -> Iterator[None]:  # fmt: skip
    """PyTorch's deprecated context manager for the attention kernels (use
    ``microtorch.nn.attention.sdpa_kernel``): sets the switches inside, restores them after."""
    warnings.warn(
        "backends.cuda.sdp_kernel() is deprecated, as in PyTorch; use "
        "microtorch.nn.attention.sdpa_kernel([SDPBackend.MATH, ...]) instead",
        FutureWarning,
        stacklevel=3,
    )
    before = dict(_sdp_enabled)
    _sdp_enabled.update(
        flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn
    )
    try:
        yield
    finally:
        _sdp_enabled.update(before)
