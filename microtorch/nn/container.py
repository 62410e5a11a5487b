"""Containers: ``Sequential`` (run modules one after another), ``ModuleList`` and
``ModuleDict`` (a list and a dict whose modules are registered), ``ParameterList`` and
``ParameterDict`` (a list and a dict whose parameters are registered)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .._tensor import Tensor
from .module import Module
from .parameter import Parameter


def _check_module(module: Any, container: str) -> Module:
    if not isinstance(module, Module):
        raise TypeError(f"{container}: {type(module).__name__} is not a Module subclass")
    return module


class Sequential(Module):
    """``Sequential(a, b, c)(x)`` is ``c(b(a(x)))``. Also accepts one OrderedDict of named
    modules. Children are named "0", "1", ... (or by the dict's keys)."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, _check_module(module, "Sequential"))
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), _check_module(module, "Sequential"))

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            input = module(input)
        return input

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self), "Sequential")]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self), "Sequential")]
        self._modules[key] = _check_module(module, "Sequential")

    def __delitem__(self, idx: int) -> None:
        key = list(self._modules)[_index(idx, len(self), "Sequential")]
        del self._modules[key]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), _check_module(module, "Sequential"))
        return self


class ModuleList(Module):
    """A Python list of modules that the parent module can see: their parameters appear
    in ``parameters()`` and ``state_dict()`` as "0.weight", "1.weight", ..."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(
            str(_index(idx, len(self), "ModuleList")), _check_module(module, "ModuleList")
        )

    def __delitem__(self, idx: int | slice) -> None:
        modules = list(self._modules.values())
        del modules[idx]
        self._modules.clear()
        for i, module in enumerate(modules):
            self._modules[str(i)] = module

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), _check_module(module, "ModuleList"))
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        modules.insert(index, _check_module(module, "ModuleList"))
        self._modules.clear()
        for i, m in enumerate(modules):
            self._modules[str(i)] = m

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "ModuleList has no forward(): iterate over it and call each module yourself"
        )

    def __repr__(self) -> str:
        """As PyTorch prints it: a run of children that print the same shares one line,
        "(0-5): 6 x Block(...)", so a stack of identical layers reads at a glance."""
        children = [repr(m).replace("\n", "\n  ") for m in self._modules.values()]
        if not children:
            return "ModuleList()"
        lines, start = [], 0
        while start < len(children):
            end = start
            while end + 1 < len(children) and children[end + 1] == children[start]:
                end += 1
            count = end - start + 1
            label = f"({start})" if count == 1 else f"({start}-{end}): {count} x"
            lines.append(f"{label}{':' if count == 1 else ''} {children[start]}")
            start = end + 1
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules (string keys, insertion order) that the parent module can see."""

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        if key not in self._modules:
            raise KeyError(f"ModuleDict has no key {key!r}; keys are {list(self._modules)}")
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, _check_module(module, "ModuleDict"))

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self._modules[key]
        return module

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self[key] = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("ModuleDict has no forward(): look up a module by key and call it")


def _as_parameter(value: Any, container: str) -> Parameter:
    """A Parameter as it is; a plain tensor becomes one (requires grad), as in PyTorch."""
    if isinstance(value, Parameter):
        return value
    if isinstance(value, Tensor):
        return Parameter(value)
    raise TypeError(f"{container}: {type(value).__name__} is not a Tensor or Parameter")


def _parameter_lines(items: Iterable[tuple[str, Parameter]], container: str) -> str:
    """PyTorch's way of listing parameters: "(0): Parameter containing: [float32 of size 2x3]"."""
    lines = [
        f"    ({name}): Parameter containing: [{p.dtype} of size {'x'.join(map(str, p.shape))}]"
        for name, p in items
    ]
    return container + "(\n" + "".join(line + "\n" for line in lines) + ")"


class ParameterList(Module):
    """A list of parameters that the parent module can see: they appear in ``parameters()``
    and ``state_dict()`` as "0", "1", ... (e.g. one learned scale per layer)."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._parameters.values())

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ParameterList(list(self._parameters.values())[idx])
        return self._parameters[str(_index(idx, len(self), "ParameterList"))]

    def __setitem__(self, idx: int, value: Any) -> None:
        name = str(_index(idx, len(self), "ParameterList"))
        self.register_parameter(name, _as_parameter(value, "ParameterList"))

    def append(self, value: Any) -> ParameterList:
        self.register_parameter(str(len(self)), _as_parameter(value, "ParameterList"))
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        for value in values:
            self.append(value)
        return self

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("ParameterList has no forward(): use its parameters in your own module")

    def __repr__(self) -> str:
        return _parameter_lines(self._parameters.items(), "ParameterList")


class ParameterDict(Module):
    """A dict of parameters (string keys, insertion order) that the parent module can see."""

    def __init__(self, parameters: Mapping[str, Any] | Iterable | None = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Parameter:
        if key not in self._parameters:
            raise KeyError(f"ParameterDict has no key {key!r}; keys are {list(self._parameters)}")
        return self._parameters[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.register_parameter(key, _as_parameter(value, "ParameterDict"))

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def keys(self) -> Iterable[str]:
        return self._parameters.keys()

    def values(self) -> Iterable[Parameter]:
        return self._parameters.values()

    def items(self) -> Iterable[tuple[str, Parameter]]:
        return self._parameters.items()

    def pop(self, key: str) -> Parameter:
        value = self[key]
        del self._parameters[key]
        return value

    def update(self, parameters: Mapping[str, Any] | Iterable) -> None:
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in items:
            self[key] = value

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("ParameterDict has no forward(): look up a parameter by key")

    def __repr__(self) -> str:
        return _parameter_lines(self._parameters.items(), "ParameterDict")


def _index(idx: int, length: int, container: str) -> int:
    if not isinstance(idx, int):
        raise TypeError(f"{container} indices must be integers or slices, not {type(idx).__name__}")
    if not -length <= idx < length:
        raise IndexError(f"index {idx} is out of range for a {container} of length {length}")
    return idx % length
