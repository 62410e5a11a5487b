"""``microtorch.backends``: the switches of PyTorch's ``torch.backends`` that training scripts
set, so that their lines run here too, written either way:

    torch.backends.cuda.matmul.allow_tf32 = True   # = set_float32_matmul_precision("high")
    import torch.backends.cudnn as cudnn
    cudnn.benchmark = True                         # accepted; changes nothing (no cuDNN here)
    torch.backends.mps.is_available()              # False: arrays live in NumPy or CuPy

One small module per backend: cuda.py, cudnn.py, mps.py. (The NumPy / CuPy chooser is
``microtorch.backend``, singular.)
"""

from __future__ import annotations

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
