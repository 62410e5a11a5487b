"""``RemovableHandle``: what every ``register_*_hook`` returns (PyTorch's
``torch.utils.hooks.RemovableHandle``). Kept in a module of its own that imports nothing,
so that both the tensor and the module code can build on it."""

from __future__ import annotations

from typing import Any


class RemovableHandle:
    """``.remove()`` takes the hook out of ``hooks_dict`` (the registry it was put in, under
    ``self.id``), and out of ``extra_dict`` (a dict, or a list of them, that keep something
    about the hook under the same id); as a context manager (``with
    m.register_forward_hook(f):``) the hook is removed at the end of the block."""

    next_id = 0

    def __init__(self, hooks_dict: dict, *, extra_dict: Any = None) -> None:
        self.hooks_dict = hooks_dict
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = [] if extra_dict is None else extra_dict
        self.extra_dicts = list(extras) if isinstance(extras, (list, tuple)) else [extras]

    def remove(self) -> None:
        """Take the hook out (nothing happens the second time)."""
        self.hooks_dict.pop(self.id, None)
        for extra in self.extra_dicts:
            extra.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
