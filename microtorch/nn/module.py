"""``Module``: the base class of every layer and model.

A module keeps three ordered dicts, filled by ordinary attribute assignment:

    self.weight = Parameter(...)      -> self._parameters["weight"]
    self.block = Linear(...)          -> self._modules["block"]
    self.register_buffer("mask", t)   -> self._buffers["mask"]    (state, not learned)

Reading ``self.weight`` then finds it again through ``__getattr__``. Everything else
(``parameters()``, ``state_dict()``, ``to()``, ``train()``...) walks these dicts, children
in the order they were assigned, exactly as PyTorch's ``nn.Module`` does.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator
from typing import Any

from .. import backend, factories
from .. import dtypes as _dtypes
from .. import memory_format as _formats
from .._hooks import RemovableHandle
from .._tensor import Tensor, clear_grads, parse_to_args
from ..autograd import grad_mode
from ..autograd.function import Function as _AutogradFunction
from ..ops import shape as _shape_ops
from .parameter import Buffer, Parameter, is_lazy


class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns; it prints as PyTorch's does, under PyTorch's name:
    "_IncompatibleKeys(missing_keys=[...], unexpected_keys=[...])"."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


_RemovableHandle = RemovableHandle  # (the name the optimizers import)


def _add_hook(hooks: OrderedDict, entry: tuple, prepend: bool) -> _RemovableHandle:
    handle = _RemovableHandle(hooks)
    hooks[handle.id] = entry  # (hook, with_kwargs, always_call)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


# The hooks of every module (register_module_forward_hook & co., below), as
# (hook, with_kwargs, always_call): they run before each module's own.
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, args)`` before the forward of every module, before the module's own
    pre-hooks; a returned value replaces ``args``."""
    return _add_hook(_global_forward_pre_hooks, (hook, False, False), False)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:  # fmt: skip
    """``hook(module, args, output)`` after the forward of every module, before the module's
    own forward hooks (``with_kwargs`` and ``always_call`` as in Module.register_forward_hook)."""
    return _add_hook(_global_forward_hooks, (hook, with_kwargs, always_call), False)


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_output)`` for every module, as Module.register_full_backward_pre_hook,
    before the module's own."""
    return _add_hook(_global_backward_pre_hooks, (hook, False, False), False)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` for every module, as
    Module.register_full_backward_hook, before the module's own."""
    return _add_hook(_global_backward_hooks, (hook, False, False), False)


# hook(module, name, value) when a module registers a parameter, a buffer or a submodule
# (register_module_*_registration_hook); a returned value is registered instead.
_global_parameter_registration_hooks: OrderedDict = OrderedDict()
_global_buffer_registration_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, param)`` whenever a module registers a parameter; a returned
    value is registered instead."""
    return _add_hook(_global_parameter_registration_hooks, hook, False)


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, buffer)`` whenever a module registers a buffer; a returned value
    is registered instead."""
    return _add_hook(_global_buffer_registration_hooks, hook, False)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, submodule)`` whenever a module registers a submodule; a returned
    value is registered instead."""
    return _add_hook(_global_module_registration_hooks, hook, False)


def _registered(hooks: OrderedDict, module: Module, name: str, value: Any) -> Any:
    """``value`` after the registration hooks in ``hooks`` (each may replace it)."""
    for hook in list(hooks.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


class _InputGradients:
    """The gradients with respect to a module's positional tensor inputs, all known at one
    moment, for ``register_full_backward_hook``.

    The inputs that need a gradient go through an identity custom Function (_InputHooks),
    and the module gets its outputs instead (the same values, shapes and dtypes: ``args``).
    Its backward gets all their gradients at once; what the module's hooks return is what
    the inputs receive (None: no gradient, as in PyTorch)."""

    def __init__(self, module: Module, args: tuple) -> None:
        self.module, self.originals, self.args = module, args, args
        self.grad_output: tuple = (None,)  # set by the output's hook, which runs first
        self.needing = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        self.tapped = bool(self.needing)  # False: no input needs a gradient
        if not self.needing:
            return
        views = _InputHooks.apply(self, *[args[i] for i in self.needing])
        views = views if isinstance(views, tuple) else (views,)
        pieces = list(args)
        for i, view in zip(self.needing, views, strict=True):
            pieces[i] = view
        self.args = tuple(pieces)

    def on_input_gradients(self, grads: tuple) -> tuple:
        """The full backward hooks on the inputs' gradients (``grads``: one per input that
        needs one); what they return, for those inputs."""
        given = dict(zip(self.needing, grads, strict=True))
        grad_input = []
        for i, a in enumerate(self.originals):
            if i in given:
                grad_input.append(given[i])
            elif isinstance(a, Tensor):  # needs none (integer ones too): zeros, as in PyTorch
                grad_input.append(factories.zeros_like(a))
            else:
                grad_input.append(None)
        grad_input = self.module._run_backward_hooks(tuple(grad_input), self.grad_output)
        return tuple(grad_input[i] for i in self.needing)


class _InputHooks(_AutogradFunction):
    """Identity on the inputs of a module with full backward hooks that need a gradient:
    its backward gets all their gradients at once and runs the hooks on them."""

    @staticmethod
    def forward(ctx, inputs, *tensors):
        ctx.inputs = inputs
        return tensors if len(tensors) > 1 else tensors[0]  # (new tensors on their memory)

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.inputs.on_input_gradients(grads))


class _OutputGradients(_AutogradFunction):
    """Backward hooks of a module that returns a tuple: an identity on the tensors in it that
    require grad, so that its backward gets all their gradients at once and passes them
    through the module's backward pre-hooks: one per entry of the tuple, None for one that
    got none or is no tensor (a nested tuple, a number), as in PyTorch."""

    @staticmethod
    def hook(module: Module, output: tuple, inputs: _InputGradients | None) -> tuple:
        """``output`` with a view of each tensor that requires grad, through this Function."""
        needing = [i for i, o in enumerate(output) if isinstance(o, Tensor) and o.requires_grad]
        if not needing:
            return output  # no gradient will reach it: the hooks never run, as in PyTorch
        views = _OutputGradients.apply(module, inputs, len(output), needing,
                                       *[output[i] for i in needing])  # fmt: skip
        views = views if isinstance(views, tuple) else (views,)
        result = list(output)
        for i, view in zip(needing, views, strict=True):
            result[i] = view
        return tuple(result)

    @staticmethod
    def forward(ctx, module, inputs, count, needing, *outputs):
        ctx.set_materialize_grads(False)
        ctx.module, ctx.inputs, ctx.count, ctx.needing = module, inputs, count, needing
        return outputs if len(outputs) > 1 else outputs[0]  # (new tensors on their memory)

    @staticmethod
    def backward(ctx, *grads):
        given = dict(zip(ctx.needing, grads, strict=True))  # one entry per output (as PyTorch)
        grad_output = tuple(given.get(i) for i in range(ctx.count))
        grad_output = ctx.module._on_output_gradients(grad_output, ctx.inputs)
        return (None, None, None, None, *(grad_output[i] for i in ctx.needing))


class Module:
    training: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments; Module.__init__ "
                "takes none (call super().__init__() with no arguments)"
            )
        # object.__setattr__: these must exist before our own __setattr__ can run
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_state_dict_pre_hooks", OrderedDict())
        object.__setattr__(self, "_state_dict_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_pre_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_post_hooks", OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(  # (PyTorch's error type, so `except` clauses carry over)
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_pre_hooks
                or self._backward_hooks or _global_forward_pre_hooks or _global_forward_hooks
                or _global_backward_pre_hooks or _global_backward_hooks):  # fmt: skip
            return self.forward(*args, **kwargs)
        pre_hooks = [*_global_forward_pre_hooks.values(), *self._forward_pre_hooks.values()]
        for hook, with_kwargs, _ in pre_hooks:
            if with_kwargs:  # hook(module, args, kwargs) -> None or (args, kwargs)
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {result}."
                        )
                    args, kwargs = result
            else:  # hook(module, args) -> None or the new args
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        inputs = None
        if (self._backward_hooks or _global_backward_hooks) and grad_mode.enabled:
            inputs = _InputGradients(self, args)  # full backward hooks: tap the inputs
            args = inputs.args
        forward_hooks = [*_global_forward_hooks.values(), *self._forward_hooks.values()]
        try:
            output = self.forward(*args, **kwargs)
        except Exception:
            for hook, with_kwargs, always_call in forward_hooks:
                if always_call and with_kwargs:  # even when forward raised (output None)
                    hook(self, args, kwargs, None)
                elif always_call:
                    hook(self, args, None)
            raise
        for hook, with_kwargs, _ in forward_hooks:
            result = hook(self, args, kwargs, output) if with_kwargs else hook(self, args, output)
            if result is not None:
                output = result
        if self._backward_pre_hooks or _global_backward_pre_hooks or inputs is not None:
            output = self._hook_output_gradient(output, inputs)
        return output

    def _hook_output_gradient(self, output: Any, inputs: _InputGradients | None) -> Any:
        """A view of ``output`` whose gradient passes through the backward pre-hooks, and is
        kept for the full backward hooks (``inputs``), which run when the inputs' is known.
        A tuple of outputs: a view of each tensor in it (_OutputGradients)."""
        if isinstance(output, tuple):
            return _OutputGradients.hook(self, output, inputs)
        if not isinstance(output, Tensor):
            raise NotImplementedError(
                f"backward hooks: {type(self).__name__} returned {type(output).__name__}; "
                "microtorch runs register_full_backward_pre_hook and register_full_backward_hook "
                "hooks only for a module that returns a tensor or a tuple"
            )
        if not output.requires_grad:
            return output  # no gradient will reach it: the hooks never run, as in PyTorch
        # a view with a node of its own (view_as would return output itself), so that the
        # hooks see only the gradient that flows through this module's output
        output = _shape_ops.Reshape.apply(output, shape=tuple(output.shape))
        output.register_hook(lambda grad: self._on_output_gradients((grad,), inputs)[0])
        return output

    def _on_output_gradients(self, grad_output: tuple, inputs: _InputGradients | None) -> tuple:
        """The backward pre-hooks on the gradients of the outputs (one per tensor output;
        None for one that got none); what they give is kept for the full backward hooks."""
        pre_hooks = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        for hook, _, _ in pre_hooks:
            result = hook(self, grad_output)  # hook(module, grad_output) -> None or new
            if result is not None:
                grad_output = _as_gradients(result, grad_output, "Backward pre hook", "grad_output")
        if inputs is not None:
            inputs.grad_output = grad_output
            if not inputs.tapped:  # no input needs a gradient: the hooks run now
                warnings.warn(
                    f"register_full_backward_hook: no input of {type(self).__name__} needs "
                    "a gradient, so its full backward hooks run when the gradient of its "
                    "output is known, with grad_input all None (as in PyTorch)",
                    stacklevel=2,
                )
                self._run_backward_hooks((None,) * len(inputs.originals), grad_output)
        return grad_output

    def _run_backward_hooks(self, grad_input: tuple, grad_output: tuple) -> tuple:
        for hook, _, _ in [*_global_backward_hooks.values(), *self._backward_hooks.values()]:
            result = hook(self, grad_input, grad_output)  # -> None or the new grad_input
            if result is not None:
                grad_input = _as_gradients(result, grad_input, "Backward hook", "grad_input")
        return grad_input

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> _RemovableHandle:  # fmt: skip
        """``hook(module, args)`` runs before forward; a returned value replaces ``args``.
        With ``with_kwargs``: ``hook(module, args, kwargs)``, returning None or (args,
        kwargs). ``prepend`` runs it before the hooks already there."""
        return _add_hook(self._forward_pre_hooks, (hook, with_kwargs, False), prepend)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False) -> _RemovableHandle:  # fmt: skip
        """``hook(module, args, output)`` runs after forward; a returned value replaces output.
        With ``with_kwargs``: ``hook(module, args, kwargs, output)``. ``always_call`` runs it
        even when forward raises; ``prepend`` before the hooks already there."""
        return _add_hook(self._forward_hooks, (hook, with_kwargs, always_call), prepend)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> _RemovableHandle:  # fmt: skip
        """``hook(module, grad_output)`` runs when the gradient of the module's output is
        known, before it flows into the module; a returned tuple (or tensor) replaces
        ``grad_output`` (one entry per output: a tuple's entries, None where no gradient
        reached it). The caller gets a view of each output. For modules returning a tensor or
        a tuple (NotImplementedError otherwise)."""
        return _add_hook(self._backward_pre_hooks, (hook, False, False), prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> _RemovableHandle:  # fmt: skip
        """``hook(module, grad_input, grad_output)`` runs once the gradients with respect to
        the module's positional inputs are known: ``grad_input`` has one entry per positional
        argument (zeros for a tensor that needs none, None for a non-tensor or when no input
        needs a gradient), ``grad_output`` one per output. A returned tuple replaces ``grad_input``:
        it is what the inputs receive. For modules returning a tensor or a tuple."""
        return _add_hook(self._backward_hooks, (hook, False, False), prepend)

    # ------------------------------------------------------------ attribute registration
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "_parameters")
            params[name] = _registered(_global_parameter_registration_hooks, self, name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' of "
                    f"{type(self).__name__} (microtorch.nn.Parameter or None expected); "
                    "wrap it with nn.Parameter(...) or change it in place with .copy_()"
                )
            params[name] = None
        elif isinstance(value, Module):
            modules = self.__dict__.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "_modules")
            modules[name] = _registered(_global_module_registration_hooks, self, name, value)
        elif name in self.__dict__.get("_modules", {}):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' of "
                    f"{type(self).__name__} (microtorch.nn.Module or None expected)"
                )
            self._modules[name] = None
        elif isinstance(value, Buffer):  # self.mask = nn.Buffer(t, persistent=...)
            self.register_buffer(name, value, value.persistent)
        elif name in self.__dict__.get("_buffers", {}):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' of "
                    f"{type(self).__name__} (microtorch.Tensor or None expected)"
                )
            self._buffers[name] = _registered(_global_buffer_registration_hooks, self, name, value)
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """Remove ``name`` from every registry but ``keep``, the one it is about to be written
        to: replacing an entry there keeps its place (and so the order of state_dict keys
        and of repr lines), as in PyTorch."""
        self.__dict__.pop(name, None)
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry != keep:
                self.__dict__[registry].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup failed: look in the three registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            found = d.get(registry)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(registry, {}):
                del self.__dict__[registry][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        """Attributes and registered names; not "0", "1", ... (a Sequential's children),
        which are no identifiers, as in PyTorch."""
        names = (
            set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules)
        )
        return sorted(name for name in names if not name[:1].isdigit())

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` under ``name`` (None registers an absent parameter, e.g. a bias)."""
        self._check_name(name, "parameter", "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"register_parameter: cannot assign '{type(param).__name__}' as parameter "
                f"'{name}' (microtorch.nn.Parameter or None expected)"
            )
        self._forget(name, "_parameters")
        self._parameters[name] = _registered(_global_parameter_registration_hooks, self, name,
                                             param)  # fmt: skip

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """A tensor that belongs to the module's state but is not learned (e.g. a mask).
        It moves with ``to()``; ``persistent=False`` leaves it out of ``state_dict``."""
        self._check_name(name, "buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"register_buffer: cannot assign '{type(tensor).__name__}' as buffer '{name}' "
                "(microtorch.Tensor or None expected)"
            )
        self._forget(name, "_buffers")
        self._buffers[name] = _registered(_global_buffer_registration_hooks, self, name, tensor)
        if not persistent:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        self._check_name(name, "module", "_modules")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: {type(module).__name__} is not a Module subclass")
        self._forget(name, "_modules")
        self._modules[name] = _registered(_global_module_registration_hooks, self, name, module)

    register_module = add_module

    def _check_name(self, name: str, kind: str, registry: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(f"{kind} name can't contain \".\" and can't be empty, got {name!r}")
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(
                f"attribute '{name}' already exists in {type(self).__name__}: register the "
                f"{kind} under another name (assigning self.{name} = ... replaces it)"
            )

    def get_submodule(self, target: str) -> Module:
        """The module at a dotted path such as ``"blocks.0.attn"`` (``""`` is self)."""
        module = self
        for part in target.split(".") if target else []:
            if part not in module._modules or module._modules[part] is None:
                raise AttributeError(f"{type(module).__name__} has no submodule `{part}`")
            module = module._modules[part]
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path such as ``"block.0.weight"``."""
        return self._get_registered(target, "_parameters", "parameter")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path such as ``"block.mask"``."""
        return self._get_registered(target, "_buffers", "buffer")

    def _get_registered(self, target: str, registry: str, kind: str) -> Any:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module.__dict__[registry]:
            raise AttributeError(f"{type(module).__name__} has no {kind} `{name}`")
        return module.__dict__[registry][name]

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at a dotted path such as ``"blocks.0.attn"``, replacing what is
        there; with ``strict=True`` the path must already name a submodule."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{type(parent).__name__} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    # ------------------------------------------------------------ walking the tree
    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:  # fmt: skip
        """(dotted name, module) for this module and every module below it, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            child_prefix = prefix + ("." if prefix else "") + name
            yield from child.named_modules(memo, child_prefix, remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """This module and every module below it (a shared one once, unless not
        remove_duplicate)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, child in self.named_children():
            yield child

    def _named_members(self, registry: str, prefix: str, recurse: bool,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:  # fmt: skip
        seen = set()
        if recurse:  # (a module reached twice is walked twice unless duplicates are removed)
            walk = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            walk = [(prefix, self)]
        for module_prefix, module in walk:
            for name, value in module.__dict__[registry].items():
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:  # a tied parameter is listed once
                        continue
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:  # fmt: skip
        """(dotted name, parameter) pairs; a parameter shared by two modules is listed once,
        under the first name it was found at."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:  # fmt: skip
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on self; returns self.
        Typical use: ``model.apply(init_weights)``."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------ modes and gradients
    def train(self, mode: bool = True) -> Module:
        """Training mode (dropout active) or, with ``mode=False``, evaluation mode."""
        if not isinstance(mode, bool):
            raise ValueError(f"train(): training mode is expected to be a boolean, got {mode!r}")
        object.__setattr__(self, "training", mode)
        for child in self.children():  # each child's own train(), which it may override
            child.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad`` (to None by default, or to zeros)."""
        clear_grads(self.parameters(), set_to_none)

    # ------------------------------------------------------------ device and dtype
    def to(self, *args: Any, **kwargs: Any) -> Module:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` or keywords.

        Parameters and buffers are moved *in place*: each keeps its identity and only its
        array is replaced, so tied weights stay tied and an optimizer built before the move
        still holds the right tensors. A dtype applies to floating-point tensors only;
        ``memory_format=`` (e.g. channels_last) lays out the 4-D and 5-D ones."""
        memory_format = kwargs.pop("memory_format", None)
        target_device, target_dtype, copy = parse_to_args(args, kwargs)
        if copy:
            raise TypeError("Module.to() does not take copy=; it moves the module in place")
        if target_dtype is not None and not target_dtype.is_floating_point:
            raise TypeError(
                f"nn.Module.to only accepts floating point dtypes, but got desired dtype={target_dtype}"
            )
        return self._apply_to_arrays(target_device, target_dtype, memory_format)

    def _apply_to_arrays(self, target_device: Any, target_dtype: Any,
                         memory_format: Any = None) -> Module:  # fmt: skip
        def convert(array: Any) -> Any:
            if (
                target_dtype is not None
                and array.dtype.kind == "f"
                and array.dtype != target_dtype.np
            ):
                array = array.astype(target_dtype.np)
            if target_device is not None:
                array = backend.to_device(array, target_device)
            if memory_format is not None and array.ndim in (4, 5):  # (PyTorch: only those)
                array = _formats.arranged(array, memory_format, "Module.to")
            return array

        seen = set()
        for module in self.modules():
            for registry in (module._parameters, module._buffers):
                for t in registry.values():
                    if t is None or id(t) in seen:
                        continue
                    seen.add(id(t))
                    # a Lazy module's uninitialized tensor: its placeholder records the
                    # dtype and device it will be made with
                    t.array = convert(t._placeholder if is_lazy(t) else t.array)
                    if t.grad is not None:
                        t.grad.array = convert(t.grad.array)
        return self

    def cpu(self) -> Module:
        return self.to("cpu")

    def cuda(self, device: Any = None) -> Module:
        return self.to("cuda" if device is None else device)

    def float(self) -> Module:
        return self.to(_dtypes.float32)

    def double(self) -> Module:
        return self.to(_dtypes.float64)

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """PyTorch compiles this module's forward in place; microtorch has no compiler and
        runs every op as it comes, so nothing changes (see microtorch.compile)."""

    def half(self) -> Module:
        return self.to(_dtypes.float16)

    def bfloat16(self) -> Module:
        """Refused: microtorch has no bfloat16 (NumPy has no such dtype)."""
        raise TypeError(
            "Module.bfloat16(): microtorch has no bfloat16 dtype (NumPy and CuPy have none); "
            "use .half() for 16-bit floats or keep float32"
        )

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Give every parameter and buffer (and grad) new, uninitialised memory on ``device``
        (None: where it is), keeping the tensors themselves; their values are arbitrary."""
        modules = self.modules() if recurse else [self]
        seen = set()
        for module in modules:
            for registry in (module._parameters, module._buffers):
                for t in registry.values():
                    if t is None or id(t) in seen:
                        continue
                    seen.add(id(t))
                    xp = backend.xp_for(t.device if device is None else backend.device(device))
                    t.array = xp.empty(t.array.shape, t.array.dtype)
                    if t.grad is not None:
                        t.grad.array = xp.empty(t.grad.array.shape, t.grad.array.dtype)
        return self

    def share_memory(self) -> Module:
        """Returns self: microtorch's arrays live in this process, so there is nothing to move
        into shared memory (PyTorch moves them for torch.multiprocessing)."""
        return self

    # ------------------------------------------------------------ state dict
    def state_dict(self, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict[str, Tensor]:  # fmt: skip
        """Every parameter and persistent buffer by dotted name (tied weights appear under
        each of their names). Values share memory with the module; ``keep_vars=False`` gives
        detached tensors. Each module's state-dict hooks run around its part."""
        if destination is None:
            destination = OrderedDict()
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination, prefix + name + ".", keep_vars)
        for hook, public in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, {"version": 1})
            if result is not None and public:
                raise RuntimeError(
                    "state_dict post-hook must return None: change the state_dict in place "
                    "(a hook from _register_state_dict_hook may return a new one)"
                )
            if result is not None:
                destination = result
        return destination

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Put this module's own parameters and persistent buffers into ``destination``
        (state_dict calls it for each module; override it to add entries, as in PyTorch)."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict,
                              strict: bool, missing_keys: list, unexpected_keys: list,
                              error_msgs: list) -> None:  # fmt: skip
        """Called by load_state_dict for each module, after its load pre-hooks, with the
        whole state_dict: PyTorch code overrides it to change the state_dict first (rename an
        old checkpoint's keys, say) and then calls super(). Here it does nothing itself:
        load_state_dict loads every module's tensors together once all have been called."""

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` runs before this module's ``state_dict``."""
        return _add_hook(self._state_dict_pre_hooks, hook, False)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` runs once this module and
        those below it are in ``state_dict``; it may change it in place (and returns None)."""
        return _add_hook(self._state_dict_hooks, (hook, True), False)

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """PyTorch's older form of register_state_dict_post_hook: the hook may also return
        a new state_dict, which replaces it."""
        return _add_hook(self._state_dict_hooks, (hook, False), False)

    def _state_tensors(self) -> OrderedDict[str, Tensor]:
        """What load_state_dict fills: every parameter and persistent buffer by dotted name,
        as state_dict(keep_vars=True) has them, without its hooks or overrides' entries."""
        own: OrderedDict[str, Tensor] = OrderedDict()
        for name, module in self.named_modules(remove_duplicate=False):
            Module._save_to_state_dict(module, own, name + "." if name else "", True)
        return own

    def load_state_dict(self, state_dict: dict, strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:  # fmt: skip
        """Copy values from ``state_dict`` into this module's parameters and buffers.

        Values are written into the existing tensors, so tied weights stay tied and an
        optimizer keeps pointing at the right ones (``assign=True`` shares the given arrays
        instead of copying). With ``strict=True`` (the default) a missing or unexpected key
        is an error (raised after the rest is loaded and the post-hooks ran, as in PyTorch);
        a shape mismatch is always an error, raised before anything is copied. Returns
        (missing_keys, unexpected_keys).

        Each module's load pre-hooks and ``_load_from_state_dict`` run first (from the top
        down; they may change the state_dict, a copy of the caller's), its post-hooks last
        (children first)."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict).__name__}."
            )
        metadata = getattr(state_dict, "_metadata", None) or {}  # (a PyTorch state_dict's)
        state_dict = OrderedDict(state_dict)  # the hooks may change it; the caller's stays
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        for name, module in self.named_modules(remove_duplicate=False):
            # (strict: True whatever the caller's, as PyTorch passes it to each module)
            hook_args = (state_dict, name + "." if name else "", metadata.get(name, {}), True,
                         missing, unexpected, errors)  # fmt: skip
            for hook, with_module in list(module._load_state_dict_pre_hooks.values()):
                hook(module, *hook_args) if with_module else hook(*hook_args)
            module._load_from_state_dict(*hook_args)
        own = self._state_tensors()
        state_dict = self._with_older_checkpoint_defaults(state_dict, own)
        missing += [k for k in own if k not in state_dict]
        unexpected += [k for k in state_dict if k not in own]
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):  # e.g. a NumPy array, or a PyTorch tensor
                kind = type(value)
                errors.append(
                    f'While copying the parameter named "{key}", expected a microtorch.Tensor '
                    f"in the state_dict, got {kind.__module__}.{kind.__qualname__}; convert "
                    "it with microtorch.tensor(...) (a PyTorch tensor: .numpy() first)."
                )
                continue
            if is_lazy(target):  # a Lazy module takes the shape from the checkpoint
                target.materialize(tuple(value.shape))
            if tuple(value.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {target.shape}."
                )
        if not errors:  # (a shape or type error stops it before anything is copied)
            with grad_mode.no_grad():
                for key, target in own.items():
                    if key in state_dict:
                        _copy_into(target, state_dict[key], assign)
            keys = _IncompatibleKeys(missing, unexpected)
            for module in _children_first(self):
                for hook in list(module._load_state_dict_post_hooks.values()):
                    if hook(module, keys) is not None:  # it may change the two lists instead
                        raise AssertionError(  # (PyTorch's error type)
                            "Hooks registered with ``register_load_state_dict_post_hook`` are "
                            "not expected to return new values; change the lists of "
                            "missing_keys / unexpected_keys in place instead."
                        )
        if strict and unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in unexpected) + ". ")  # fmt: skip
        if strict and missing:
            errors.insert(0, "Missing key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in missing) + ". ")  # fmt: skip
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before load_state_dict loads anything; it may
        change ``state_dict`` in place (rename an old checkpoint's keys, say)."""
        return _add_hook(self._load_state_dict_pre_hooks, (hook, True), False)

    def _register_load_state_dict_pre_hook(self, hook: Callable,
                                           with_module: bool = False) -> RemovableHandle:  # fmt: skip
        """PyTorch's older form of register_load_state_dict_pre_hook: without
        ``with_module`` the hook is called without the module."""
        return _add_hook(self._load_state_dict_pre_hooks, (hook, with_module), False)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` runs once load_state_dict has loaded this module
        and those below it; it may change ``incompatible_keys.missing_keys`` and
        ``.unexpected_keys`` in place (which ``strict`` then checks), and returns None."""
        return _add_hook(self._load_state_dict_post_hooks, hook, False)

    def _older_checkpoint_defaults(self) -> dict[str, Tensor]:
        """Values for this module's own entries that checkpoints from older versions lack,
        by name; load_state_dict uses them when such an entry is missing (override it)."""
        return {}

    def _with_older_checkpoint_defaults(self, state_dict: Any, own: dict) -> Any:
        """``state_dict`` plus the defaults of the entries it lacks that a module below
        gives (BatchNorm's num_batches_tracked, as PyTorch fills it for old checkpoints)."""
        filled = None
        for prefix, module in self.named_modules(remove_duplicate=False):
            for name, value in module._older_checkpoint_defaults().items():
                key = f"{prefix}.{name}" if prefix else name
                if key in own and key not in state_dict:
                    filled = dict(state_dict) if filled is None else filled
                    filled[key] = value
        return state_dict if filled is None else filled

    # ------------------------------------------------------------ pickling
    def __setstate__(self, state: dict) -> None:
        """Restore a pickled module; registries a pickle from an older version lacks start
        empty (as PyTorch does for old checkpoints)."""
        self.__dict__.update(state)
        registries = ("_parameters", "_buffers", "_modules", "_forward_pre_hooks", "_forward_hooks",
                      "_backward_pre_hooks", "_backward_hooks", "_state_dict_pre_hooks",
                      "_state_dict_hooks", "_load_state_dict_pre_hooks",
                      "_load_state_dict_post_hooks")  # fmt: skip
        for name in registries:
            if name not in self.__dict__:
                object.__setattr__(self, name, OrderedDict())
        if "_non_persistent_buffers_set" not in self.__dict__:
            object.__setattr__(self, "_non_persistent_buffers_set", set())
        if "training" not in self.__dict__:
            object.__setattr__(self, "training", True)

    # ------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        """The text between the parentheses of this module's line in ``repr`` (override it)."""
        return ""

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, child in self._modules.items():
            child_repr = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {child_repr}")
        main = type(self).__name__ + "("
        if not lines:
            return main + ")"
        if len(lines) == 1 and not self._modules:
            return main + lines[0] + ")"
        return main + "\n  " + "\n  ".join(lines) + "\n)"


def _as_gradients(result: Any, replaced: tuple, hook: str, name: str) -> tuple:
    """What a backward (pre-)hook returned, as a tuple of as many gradients as ``replaced``
    (a lone tensor is one); PyTorch's RuntimeError for another count."""
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(replaced):
        raise RuntimeError(
            f"{hook} returned an invalid number of {name}, got {len(result)}, but expected "
            f"{len(replaced)}"
        )
    return result


def _children_first(module: Module) -> Iterator[Module]:
    """``module`` and every module below it, each after those below it (as load_state_dict
    finishes them), a module shared by two parents once per parent."""
    for child in module._modules.values():
        if child is not None:
            yield from _children_first(child)
    yield module


def _copy_into(target: Tensor, value: Tensor, assign: bool) -> None:
    """Write ``value``'s numbers into ``target``'s own array (cast and moved to fit it)."""
    source = value.array.astype(target.array.dtype, copy=False)
    source = backend.to_device(source, target.device)
    if assign:
        target.array = source  # share the given memory instead of copying
    elif source is not target.array:
        target.array[...] = source
    target._version_counter.value += 1
