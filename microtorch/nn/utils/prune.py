"""``nn.utils.prune``: zero out parts of a parameter through a mask, as PyTorch's pruning.

    prune.l1_unstructured(layer, "weight", amount=0.3)   # the 30% smallest |w| become 0

Pruning ``weight`` moves the parameter to ``weight_orig``, keeps the mask (1 = kept, 0 =
pruned) as the buffer ``weight_mask``, and adds a forward pre-hook (the pruning method
itself) that sets the plain attribute ``weight = weight_mask * weight_orig`` before each
forward; the gradient reaches ``weight_orig`` only where the mask is 1. Pruning the same
parameter again combines the methods in a ``PruningContainer``: the new method looks only
at what is still kept (the entries, or for a structured method the channels, where the mask
is not all 0) and prunes among those. ``remove`` makes the pruning permanent: ``weight``
becomes a parameter again, holding the masked values.

``amount`` is a count (an int) or a fraction of the entries (a float in [0, 1], rounded to
the nearest count, halves to even as Python's ``round``). The methods: ``Identity``,
``RandomUnstructured``, ``L1Unstructured`` (smallest magnitudes), ``RandomStructured`` and
``LnStructured`` (whole channels along ``dim``, the smallest by their n-norm), and
``CustomFromMask``; ``global_unstructured`` prunes several parameters as one vector. Among
equal magnitudes (or norms), microtorch's ``topk`` picks the lowest indices; PyTorch's picks
whichever its selection algorithm meets first, an order it does not specify.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ... import factories, random
from ... import functional as F
from ..._tensor import Tensor
from ..module import Module
from .convert_parameters import parameters_to_vector


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask`` says what to keep; the instance is also the forward
    pre-hook that applies the mask to the module's parameter ``_tensor_name``."""

    _tensor_name: str
    PRUNING_TYPE: str  # "unstructured", "structured" (with a ``dim``) or "global"

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask for ``t`` (its importance scores), given the mask so far."""

    def apply_mask(self, module: Module) -> Tensor:
        """The pruned tensor: ``<name>_mask * <name>_orig`` (differentiable in the orig)."""
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Tensor | None = None,
              **kwargs: Any) -> BasePruningMethod:  # fmt: skip
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, combined with the pruning
        already there; returns the method now registered as the hook."""
        previous = _pruning_hook(module, name)
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if previous is not None:
            key, old = previous
            if isinstance(old, PruningContainer):
                container = old
            else:
                container = PruningContainer(old)
            container.add_pruning_method(method)
            method = container
        orig = getattr(module, name)
        scores = orig if importance_scores is None else importance_scores
        if tuple(scores.shape) != tuple(orig.shape):
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of "
                f"{module}, got {tuple(scores.shape)} vs {tuple(orig.shape)}"
            )
        if previous is None:
            default_mask = factories.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        mask = method.compute_mask(scores, default_mask=default_mask)  # (may raise: nothing
        if previous is None:  # has changed on the module yet)
            del module._parameters[name]
            module.register_parameter(name + "_orig", orig)
        else:
            del module._forward_pre_hooks[key]
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:  # fmt: skip
        """``t`` times the mask this method computes (from ``importance_scores``, default
        ``t``), without touching any module."""
        scores = t if importance_scores is None else importance_scores
        if tuple(scores.shape) != tuple(t.shape):
            raise AssertionError("importance_scores should have the same shape as tensor t")
        mask = factories.ones_like(t) if default_mask is None else default_mask
        return t * self.compute_mask(scores, default_mask=mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``<name>`` becomes a parameter holding the pruned
        values; ``<name>_orig`` and ``<name>_mask`` go."""
        name = self._tensor_name
        weight = self.apply_mask(module)
        if name in module.__dict__:
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _pruning_hook(module: Module, name: str) -> tuple[int, BasePruningMethod] | None:
    """(key, method) of the pruning hook on ``module.<name>``, or None."""
    found = [(key, entry[0]) for key, entry in module._forward_pre_hooks.items()
             if isinstance(entry[0], BasePruningMethod) and entry[0]._tensor_name == name]  # fmt: skip
    if len(found) > 1:
        raise RuntimeError(
            f"Cannot prune {name}: it has {len(found)} pruning hooks, at most one is expected"
        )
    return found[0] if found else None


class PruningContainer(BasePruningMethod):
    """The pruning methods applied, in turn, to one parameter: each new one prunes among what
    the earlier ones kept."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1 and isinstance(args[0], Iterable):
            args = tuple(args[0])
        if args:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Append ``method``, which must act on this container's parameter."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask, computed on the part of ``t`` the mask so far keeps:
        the kept entries (unstructured), the channels not all pruned (structured), or all of
        it (global)."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.clone().to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            part: Any = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need a dim")
            dim = method.dim + t.ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor of size {tuple(t.shape)}")
            others = [d for d in range(t.ndim) if d != dim]
            index: list[Any] = [slice(None)] * t.ndim
            index[dim] = default_mask.sum(dim=others) != 0  # the channels still there
            part = tuple(index)
        elif method.PRUNING_TYPE == "global":
            part = (slice(None),) * t.ndim
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial = method.compute_mask(t[part], default_mask=default_mask[part])
        new_mask[part] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (the hook and buffers are added all the same)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> Identity:  # type: ignore[override]
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries chosen at random (microtorch's generator)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return _without_smallest(random.rand_like(t), self.amount, default_mask)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float) -> RandomUnstructured:  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return _without_smallest(t.abs(), self.amount, default_mask)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> L1Unstructured:  # fmt: skip
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _pruned_count(self.amount, channels)
        if not count:
            return default_mask
        draws = random.rand(channels, device=t.device)
        kept = draws > F.kthvalue(draws, count).values  # the count lowest draws are pruned
        return _channel_mask(t, self.dim, kept) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,  # type: ignore[override]
              dim: int = -1) -> RandomStructured:  # fmt: skip
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm (n: a number,
    inf, -inf or "fro")."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _pruned_count(self.amount, channels)
        if not count:
            return default_mask
        dim = self.dim % t.ndim
        norms = F.norm(t, p=self.n, dim=[d for d in range(t.ndim) if d != dim])
        kept = F.topk(norms, channels - count).indices  # the largest norms stay
        return _channel_mask(t, dim, kept) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float, n: Any,  # type: ignore[override]
              dim: int, importance_scores: Tensor | None = None) -> LnStructured:  # fmt: skip
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)  # fmt: skip


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is 0 (combined with the mask so far)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise AssertionError(
                f"default_mask shape {tuple(default_mask.shape)} must match self.mask shape "
                f"{tuple(self.mask.shape)}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> CustomFromMask:  # type: ignore[override]
        return super().apply(module, name, mask=mask)


def _without_smallest(scores: Tensor, amount: int | float, default_mask: Tensor) -> Tensor:
    """``default_mask`` with 0 at the ``amount`` entries of smallest score (random draws
    for RandomUnstructured: a random choice)."""
    count = _pruned_count(amount, scores.numel())
    mask = default_mask.clone()
    if count:
        mask.view(-1)[F.topk(scores.reshape(-1), count, largest=False).indices] = 0
    return mask


def _channel_mask(t: Tensor, dim: int, kept: Tensor) -> Tensor:
    """Zeros like ``t`` with ones in the channels ``kept`` (indices or a bool per channel)
    along ``dim``."""
    mask = factories.zeros_like(t)
    index: list[Any] = [slice(None)] * t.ndim
    index[dim] = kept
    mask[tuple(index)] = 1
    return mask


def _check_amount(amount: Any) -> None:
    """amount: an int >= 0 or a float in [0, 1], as PyTorch checks it."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _pruned_count(amount: int | float, size: int) -> int:
    """How many of ``size`` entries (or channels) ``amount`` prunes: the int itself, or the
    fraction rounded (halves to even)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(
                f"amount={amount} should be smaller than the number of parameters to prune={size}"
            )
        return int(amount)
    return round(amount * size)


def _check_structured(t: Tensor, dim: int) -> None:
    if t.ndim <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {tuple(t.shape)} with {t.ndim} dims"
        )
    if dim >= t.ndim or dim < -t.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {tuple(t.shape)}")


def identity(module: Module, name: str) -> Module:
    """Registers the pruning machinery on ``module.<name>`` with an all-ones mask."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: int | float) -> Module:
    """Prunes ``amount`` random entries of ``module.<name>``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: int | float,
                    importance_scores: Tensor | None = None) -> Module:  # fmt: skip
    """Prunes the ``amount`` entries of ``module.<name>`` of smallest |importance_scores|
    (default: the parameter itself)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: int | float, dim: int) -> Module:
    """Prunes ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: int | float, n: Any, dim: int,
                  importance_scores: Tensor | None = None) -> Module:  # fmt: skip
    """Prunes the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest n-norm
    (of importance_scores, default the parameter)."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Iterable, pruning_method: type, importance_scores: dict |
                        None = None, **kwargs: Any) -> None:  # fmt: skip
    """Prunes the (module, name) ``parameters`` together, as one vector, with an unstructured
    ``pruning_method(**kwargs)``: e.g. the smallest magnitudes over all of them."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for module, name in parameters]
    )  # fmt: skip
    masks = parameters_to_vector([_mask_so_far(module, name) for module, name in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, masks)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        size = param.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + size].view_as(param))
        start += size


def _mask_so_far(module: Module, name: str) -> Tensor:
    """``module.<name>_mask``, or all ones when ``<name>`` is not pruned yet."""
    if hasattr(module, name + "_mask"):
        return getattr(module, name + "_mask")
    return factories.ones_like(getattr(module, name))


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prunes ``module.<name>`` where ``mask`` is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Makes the pruning of ``module.<name>`` permanent and takes the hook away; a ValueError
    when it is not pruned."""
    found = _pruning_hook(module, name)
    if found is None:
        raise ValueError(
            f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
        )
    key, method = found
    method.remove(module)
    del module._forward_pre_hooks[key]
    return module


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or any module inside it has a pruning hook."""
    return any(
        isinstance(entry[0], BasePruningMethod)
        for sub in module.modules()
        for entry in sub._forward_pre_hooks.values()
    )
