"""``microtorch.backends``: the switches of PyTorch's ``torch.backends`` that training scripts
set, so that their lines run here too:

    torch.backends.cuda.matmul.allow_tf32 = True   # = set_float32_matmul_precision("high")
    torch.backends.cudnn.benchmark = True          # accepted; changes nothing (no cuDNN here)
    torch.backends.mps.is_available()              # False: arrays live in NumPy or CuPy

(The NumPy / CuPy chooser is ``microtorch.backend``, singular.)
"""

from __future__ import annotations

from types import SimpleNamespace

from . import backend


class _CudaMatmul:
    """``backends.cuda.matmul``: whether float32 matrix products may use TF32 on a GPU."""

    @property
    def allow_tf32(self) -> bool:
        return backend.get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, allow: bool) -> None:
        backend.set_float32_matmul_precision("high" if allow else "highest")

    def __repr__(self) -> str:
        return f"<backends.cuda.matmul allow_tf32={self.allow_tf32}>"


cuda = SimpleNamespace(matmul=_CudaMatmul(), is_built=lambda: True)

# PyTorch's cuDNN settings steer its convolutions and recurrent layers. microtorch has
# neither and never calls cuDNN, so these are plain attributes: setting them changes nothing.
cudnn = SimpleNamespace(
    enabled=True, benchmark=False, deterministic=False, allow_tf32=True, is_available=lambda: False
)

# Apple-GPU support: microtorch has none (its devices are "cpu" and "cuda").
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
