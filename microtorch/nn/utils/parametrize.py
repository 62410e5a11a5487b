"""``torch.nn.utils.parametrize``: a module's tensor computed from other tensors on every read.

    register_parametrization(linear, "weight", Symmetric())
    linear.weight            # Symmetric()(linear.parametrizations.weight.original), each time

Registering moves the tensor (a parameter or buffer) to
``module.parametrizations.weight.original``, inside a :class:`ParametrizationList` that holds
the parametrization modules, so the state_dict key is ``parametrizations.weight.original``,
as in PyTorch. Reading ``module.weight`` runs the chain: ``p2(p1(original))``. Assigning
``module.weight = X`` runs the ``right_inverse`` of each parametrization, last first, and
writes the result into ``original``. A ``right_inverse`` that returns a tuple gives several
originals: ``original0``, ``original1``, ... (the first parametrization then takes them all).

PyTorch swaps the module's class for a generated subclass with a property per name. Here
the generated subclass ("ParametrizedLinear", so the module prints as in PyTorch) adds one
thing, :class:`_ParametrizedModule`'s ``__getattr__``/``__setattr__``: a read of a
parametrized name lands in :func:`_parametrized_value`, an assignment in
``ParametrizationList.right_inverse``.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence
from typing import Any

from ..._tensor import Tensor
from ...autograd import grad_mode
from ..container import ModuleDict, ModuleList
from ..module import Module
from ..parameter import Parameter

_cache_depth = 0  # how many cached() blocks are open
_cache: dict[tuple[int, str], Tensor] = {}  # (id(module), name) -> its value, inside cached()


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside this block each parametrized tensor is computed once, on its first read, and
    that value is reused (e.g. one weight for every time step of an RNN)."""
    global _cache_depth, _cache
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_values(target: Tensor, source: Tensor) -> None:
    """``target.set_(source)``: target (the same tensor object, so an optimizer holding it
    still does) takes source's values and shape, sharing its memory."""
    if source is not target:
        target.array = source.array
        target._version_counter.value += 1


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor (modules 0, 1, ...) and its original(s): reading
    the list (``forward()``) gives the parametrized tensor."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with grad_mode.no_grad():  # what the originals start as: right_inverse, last first
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype != dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {dtype}\nright_inverse(original).dtype: {new.dtype}"
                )
            if new.device != original.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}"
                )
            with grad_mode.no_grad():
                _set_values(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                        f"tuple...). Got element {i} of the sequence with type "
                        f"{type(part).__name__}."
                    )
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", part)
        if not self.unsafe:
            value = self()
            _check_same_kind(value, shape, dtype, "unparametrized", "parametrized")

    def right_inverse(self, value: Tensor) -> None:
        """Set the original(s) so that the list computes ``value``: each parametrization's
        ``right_inverse``, last first (RuntimeError when one has none)."""
        with grad_mode.no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                        f"`original` has dtype {self.original.dtype}"
                    )
                _set_values(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors. "
                    f"Got {type(value).__name__}."
                )
            if len(value) != self.ntensors:
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors of length "
                    f"{self.ntensors}. Got a sequence of length {len(value)}."
                )
            for i, part in enumerate(value):
                original = getattr(self, f"original{i}")
                if not isinstance(part, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors. Got element "
                        f"{i} of type {type(part).__name__}."
                    )
                if part.dtype != original.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {part.dtype} while "
                        f"`original{i}` has dtype {original.dtype}"
                    )
                _set_values(original, part)

    def forward(self) -> Tensor:
        """The parametrized tensor: ``p_last(... p1(p0(original)))``."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _check_same_kind(value: Any, shape: Any, dtype: Any, before: str, after: str) -> None:
    """PyTorch's checks that a (safe) parametrization keeps the tensor's shape and dtype."""
    if not isinstance(value, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
    if value.dtype != dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless "
            f"the `unsafe` flag is enabled.\n{before} dtype: {dtype}\n{after} dtype: "
            f"{value.dtype}"
        )
    if value.shape != shape:
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless "
            f"the `unsafe` flag is enabled.\n{before} shape: {shape}\n{after} shape: "
            f"{value.shape}"
        )


def _parametrized_value(module: Module, name: str) -> Tensor:
    """What reading ``module.<name>`` gives: the chain run now, or inside ``cached()`` the
    value from the first read in the block."""
    parametrization = module.parametrizations[name]
    if not _cache_depth:
        return parametrization()
    key = (id(module), name)
    if key not in _cache:
        _cache[key] = parametrization()
    return _cache[key]


class _ParametrizedModule:
    """What the class of a parametrized module adds to its own: parametrized names are read
    through their ParametrizationList and assigned through its right_inverse. It comes first
    in the generated class's bases, the module's own class second."""

    def __getattr__(self, name: str) -> Any:
        # (only called when ordinary lookup failed: a parametrized name is in no registry)
        parametrizations = self.__dict__.get("_modules", {}).get("parametrizations")
        if parametrizations is not None and name in parametrizations._modules:
            return _parametrized_value(self, name)
        return super().__getattr__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        parametrizations = self.__dict__.get("_modules", {}).get("parametrizations")
        if parametrizations is None or name not in parametrizations._modules:
            super().__setattr__(name, value)
        elif isinstance(value, Parameter):  # PyTorch's register_parameter refuses it so
            raise KeyError(
                f"attribute '{name}' already exists (it is parametrized): assign a tensor to "
                f"set it through right_inverse, or remove_parametrizations(module, '{name}') "
                "first"
            )
        else:
            parametrizations[name].right_inverse(value)

    def __deepcopy__(self, memo: dict) -> Any:
        """A copy of the module, parametrizations and originals included, of the same class."""
        if id(self) in memo:
            return memo[id(self)]
        replica = object.__new__(type(self))
        memo[id(self)] = replica
        replica.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return replica

    def __getstate__(self) -> Any:
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(): "
            "save module.state_dict() and load it into a module parametrized the same way"
        )


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:  # fmt: skip
    """Make ``module.<tensor_name>`` read as ``parametrization(original)`` (chained after the
    parametrizations already there); ``unsafe`` skips the checks that shape and dtype stay."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            value = parametrization(current)
            before, after = f"module.{tensor_name}", f"parametrization(module.{tensor_name})"
            _check_same_kind(value, current.shape, current.dtype, before, after)
            if hasattr(parametrization, "right_inverse"):
                try:
                    back = parametrization.right_inverse(value)
                except NotImplementedError:
                    back = None
                if back is not None:
                    if not isinstance(back, Tensor):
                        raise ValueError(
                            "parametrization.right_inverse must return a tensor. Got: "
                            f"{type(back).__name__}"
                        )
                    _check_same_kind(back, current.shape, current.dtype, before,
                                     "parametrization.right_inverse(...)")  # fmt: skip
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if hasattr(module, tensor_name):
            raise AssertionError(f"Module already has an attribute named '{tensor_name}'")
        if not is_parametrized(module):
            cls = type(module)
            module.__class__ = type(f"Parametrized{cls.__name__}", (_ParametrizedModule, cls), {})
            module.parametrizations = ModuleDict()
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, if given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations._modules


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:  # fmt: skip
    """Undo register_parametrization: ``module.<tensor_name>`` becomes a plain parameter (or
    buffer) again, holding the parametrized value (``leave_parametrized``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with grad_mode.no_grad():
                _set_values(original, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value.detach(), value.requires_grad) if value.requires_grad else value
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
            "parametrized in terms of a sequence of tensors."
        )
    del module.parametrizations[tensor_name]
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = type_before_parametrizations(module)
    _register_parameter_or_buffer(module, tensor_name, original)
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class as it was before any parametrization was registered."""
    if isinstance(module, _ParametrizedModule):
        return type(module).__bases__[1]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:  # fmt: skip
    """Give ``to_module`` the parametrizations of ``from_module`` (all, or those of
    ``tensor_name``), the same parametrization modules and the same original tensors (shared,
    not copied); a name ``to_module`` lacks is first made a Parameter."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations._modules) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if source.is_tensor:
            target.original = source.original
        else:
            for i in range(source.ntensors):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
    return to_module
