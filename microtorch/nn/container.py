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

    def __delitem__(self, idx: int | slice) -> None:
        """Remove module(s); the rest are numbered again 0, 1, ... as in PyTorch."""
        modules = list(self._modules.values())
        del modules[idx if isinstance(idx, slice) else _index(idx, len(self), "Sequential")]
        self._renumber(modules)

    def _renumber(self, modules: list) -> None:
        """Make ``modules`` the children, named "0", "1", ... in order."""
        self._modules.clear()
        for i, module in enumerate(modules):
            self.add_module(str(i), module)

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), _check_module(module, "Sequential"))
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` at ``index`` (the ones from there on move up one)."""
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for {n} modules")
        modules = list(self._modules.values())
        modules.insert(index, _check_module(module, "Sequential"))
        self._renumber(modules)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        for module in sequential:
            self.append(module)
        return self

    def pop(self, key: int) -> Module:
        module = self[key]
        del self[key]
        return module

    def __add__(self, other: Sequential) -> Sequential:
        """A new Sequential of self's modules then other's (the same module objects)."""
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only Sequential, got {type(other).__name__}")
        return Sequential(*self, *other)

    def __mul__(self, times: int) -> Sequential:
        """A new Sequential running self's modules ``times`` times (the same objects)."""
        if not isinstance(times, int) or times <= 0:
            raise ValueError(f"Sequential: can only be multiplied by a positive int, got {times!r}")
        return Sequential(*(list(self) * times))

    __rmul__ = __mul__

    def __imul__(self, times: int) -> Sequential:
        self._renumber(list(self * times))
        return self


class _ListContainer(Module):
    """What ModuleList and ParameterList share: the list protocol over the one store of the
    module they register into (``_store_name``), whose names are the positions "0", "1", ...
    Each subclass names its store and defines ``_put(name, value)``, which registers one."""

    _store_name = "_modules"

    def _store(self) -> dict:
        return getattr(self, self._store_name)

    def __len__(self) -> int:
        return len(self._store())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._store().values())

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._store().values())[idx])
        return self._store()[str(_index(idx, len(self), type(self).__name__))]

    def __setitem__(self, idx: int, value: Any) -> None:
        self._put(str(_index(idx, len(self), type(self).__name__)), value)

    def __delitem__(self, idx: int | slice) -> None:
        self._renumber(lambda values: values.__delitem__(idx))

    def insert(self, index: int, value: Any) -> None:
        self._renumber(lambda values: values.insert(index, value))

    def _renumber(self, change: Any) -> None:
        """Apply ``change`` to the list of values, then register them again as 0, 1, ..."""
        values = list(self._store().values())
        change(values)
        self._store().clear()
        for i, value in enumerate(values):
            self._put(str(i), value)

    def append(self, value: Any) -> Any:
        self._put(str(len(self)), value)
        return self

    def extend(self, values: Iterable[Any]) -> Any:
        for value in values:
            self.append(value)
        return self

    def __iadd__(self, values: Iterable[Any]) -> Any:
        return self.extend(values)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} has no forward(): iterate over it and use each entry yourself"
        )


class ModuleList(_ListContainer):
    """A Python list of modules that the parent module can see: their parameters appear
    in ``parameters()`` and ``state_dict()`` as "0.weight", "1.weight", ..."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _put(self, name: str, module: Any) -> None:
        self.add_module(name, _check_module(module, "ModuleList"))

    def pop(self, key: int) -> Module:
        module = self[key]
        del self[key]
        return module

    # the list methods under PyTorch's argument names for a ModuleList
    def append(self, module: Module) -> ModuleList:
        return super().append(module)

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        return super().extend(modules)

    def insert(self, index: int, module: Module) -> None:
        super().insert(index, module)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        """A new ModuleList of self's modules then other's (the same module objects)."""
        return ModuleList([*self, *other])

    def __repr__(self) -> str:
        """As PyTorch prints it: a run of children that print the same shares one line,
        "(0-5): 6 x Block(...)", so a stack of identical layers reads at a glance."""
        children = [repr(m).replace("\n", "\n  ") for m in self._modules.values()]
        name = type(self).__name__  # a subclass (parametrize.ParametrizationList) its own
        if not children:
            return name + "()"
        lines, start = [], 0
        while start < len(children):
            end = start
            while end + 1 < len(children) and children[end + 1] == children[start]:
                end += 1
            count = end - start + 1
            label = f"({start})" if count == 1 else f"({start}-{end}): {count} x"
            lines.append(f"{label}{':' if count == 1 else ''} {children[start]}")
            start = end + 1
        return name + "(\n  " + "\n  ".join(lines) + "\n)"


class _DictContainer(Module):
    """What ModuleDict and ParameterDict share: the dict protocol (string keys, insertion
    order) over the one store of the module they register into (``_store_name``). Each
    subclass names its store and defines ``_put(key, value)``, which registers one."""

    _store_name = "_modules"

    def _store(self) -> dict:
        return getattr(self, self._store_name)

    def __setitem__(self, key: str, value: Any) -> None:
        self._put(key, value)

    def __getitem__(self, key: str) -> Any:
        store = self._store()
        if key not in store:
            raise KeyError(f"{type(self).__name__} has no key {key!r}; keys are {list(store)}")
        return store[key]

    def __delitem__(self, key: str) -> None:
        del self._store()[key]

    def __len__(self) -> int:
        return len(self._store())

    def __iter__(self) -> Iterator[str]:
        return iter(self._store())

    def __contains__(self, key: str) -> bool:
        return key in self._store()

    def keys(self) -> Iterable[str]:
        return self._store().keys()

    def values(self) -> Iterable[Any]:
        return self._store().values()

    def items(self) -> Iterable[tuple[str, Any]]:
        return self._store().items()

    def pop(self, key: str) -> Any:
        value = self[key]
        del self._store()[key]
        return value

    def clear(self) -> None:
        self._store().clear()

    def update(self, values: Mapping[str, Any] | Iterable) -> None:
        for key, value in values.items() if hasattr(values, "items") else values:
            self[key] = value

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} has no forward(): look up an entry by key"
        )


class ModuleDict(_DictContainer):
    """A dict of modules (string keys, insertion order) that the parent module can see."""

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def _put(self, key: str, module: Any) -> None:
        self.add_module(key, _check_module(module, "ModuleDict"))

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        """Add or replace entries (PyTorch's argument name is modules)."""
        super().update(modules)


def _as_parameter(value: Any, container: str) -> Parameter:
    """A Parameter as it is; a plain tensor becomes one (requires grad), as in PyTorch."""
    if isinstance(value, Parameter):
        return value
    if isinstance(value, Tensor):
        return Parameter(value)
    raise TypeError(f"{container}: {type(value).__name__} is not a Tensor or Parameter")


def _parameter_lines(items: Iterable[tuple[str, Parameter]], kind: Any) -> str:
    """PyTorch's extra_repr of a parameter container: one line per entry, such as
    "  (0): Parameter containing: [microtorch.float32 of size 2x3]" (``kind(p)`` is the
    text in the brackets before "of size"); Module.__repr__ then lays the lines out."""
    lines = []
    for name, p in items:
        on = f" ({p.device})" if p.device.type == "cuda" else ""
        size = "x".join(map(str, p.shape))
        lines.append(f"  ({name}): Parameter containing: [{kind(p)} of size {size}{on}]")
    return "\n".join(lines)


class ParameterList(_ListContainer):
    """A list of parameters that the parent module can see: they appear in ``parameters()``
    and ``state_dict()`` as "0", "1", ... (e.g. one learned scale per layer)."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        if values is not None:
            self.extend(values)

    _store_name = "_parameters"

    def _put(self, name: str, value: Any) -> None:
        self.register_parameter(name, _as_parameter(value, "ParameterList"))

    def extra_repr(self) -> str:
        return _parameter_lines(self._parameters.items(), lambda p: p.dtype)


class ParameterDict(_DictContainer):
    """A dict of parameters (string keys, insertion order) that the parent module can see."""

    def __init__(self, parameters: Mapping[str, Any] | Iterable | None = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    _store_name = "_parameters"

    def _put(self, key: str, value: Any) -> None:
        self.register_parameter(key, _as_parameter(value, "ParameterDict"))

    def update(self, parameters: Mapping[str, Any] | Iterable) -> None:
        """Add or replace entries. As in PyTorch, a plain dict's entries go in sorted by key;
        an OrderedDict's, another ParameterDict's and a list of pairs' in their order."""
        values = parameters
        if isinstance(values, Mapping) and not isinstance(values, (OrderedDict, ParameterDict)):
            values = sorted(values.items())
        super().update(values)

    def get(self, key: str, default: Any = None) -> Any:
        """The parameter under ``key``, or ``default`` when there is none."""
        return self._parameters.get(key, default)

    def extra_repr(self) -> str:  # (PyTorch names the tensor type here, not the dtype)
        # printed as microtorch's names print (microtorch.FloatTensor), not x.type()'s string
        return _parameter_lines(self._parameters.items(), lambda p: "micro" + p.type())


def _index(idx: int, length: int, container: str) -> int:
    if not isinstance(idx, int):
        raise TypeError(f"{container} indices must be integers or slices, not {type(idx).__name__}")
    if not -length <= idx < length:
        raise IndexError(f"index {idx} is out of range for a {container} of length {length}")
    return idx % length
