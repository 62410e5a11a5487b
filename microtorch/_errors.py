"""The error types PyTorch names at top level for device failures: ``OutOfMemoryError``
(also ``torch.cuda.OutOfMemoryError``, the same class) and ``AcceleratorError``. Both are
RuntimeErrors, so ``except RuntimeError`` catches them too.

They are here so that code naming them imports and runs; microtorch itself does not raise
them. A GPU that runs out of memory raises CuPy's own error,
``cupy.cuda.memory.OutOfMemoryError`` (a MemoryError), from wherever the allocation
happened: catch that, or MemoryError, to handle it."""


class OutOfMemoryError(RuntimeError):
    """The GPU ran out of memory (PyTorch's type; see the module docstring)."""


class AcceleratorError(RuntimeError):
    """An error while running on the GPU."""


OutOfMemoryError.__module__ = AcceleratorError.__module__ = "microtorch"  # (where users see it)
