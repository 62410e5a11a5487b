"""``microtorch.backends``: the switches of PyTorch's ``torch.backends`` that training scripts
set, so that their lines run here too, written either way:

    torch.backends.cuda.matmul.allow_tf32 = True   # = set_float32_matmul_precision("high")
    import torch.backends.cudnn as cudnn
    cudnn.benchmark = True                         # accepted; changes nothing (no cuDNN here)
    torch.backends.mps.is_available()              # False: arrays live in NumPy or CuPy
    torch.backends.mha.set_fastpath_enabled(False) # TransformerEncoder keeps padded outputs

One small module per backend: cuda.py, cudnn.py, mha.py, mps.py. (The NumPy / CuPy chooser is
``microtorch.backend``, singular.)
"""

from __future__ import annotations

from . import cuda, cudnn, mha, mps

__all__ = ["cuda", "cudnn", "mha", "mps"]
