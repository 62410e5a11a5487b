"""The error types PyTorch names at top level for device failures: ``OutOfMemoryError``
(also ``torch.cuda.OutOfMemoryError``, the same class) and ``AcceleratorError``. Both are
RuntimeErrors, so ``except RuntimeError`` catches them too."""


class OutOfMemoryError(RuntimeError):
    """The GPU ran out of memory (microtorch raises it for CuPy's out-of-memory error)."""


class AcceleratorError(RuntimeError):
    """An error while running on the GPU."""


OutOfMemoryError.__module__ = AcceleratorError.__module__ = "microtorch"  # (where users see it)
