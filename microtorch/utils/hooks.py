"""``microtorch.utils.hooks``, as ``torch.utils.hooks``: the class of the handles that the
``register_*_hook`` methods return (for ``isinstance`` checks and type hints)."""

from .._hooks import RemovableHandle

__all__ = ["RemovableHandle"]
