"""Transforms: invertible (or at least differentiable) maps y = f(x) with the log of the
absolute Jacobian determinant log |dy/dx|, as torch.distributions.transforms. A
TransformedDistribution pushes a base distribution through them; biject_to / transform_to
(constraint_registry) pick one that maps the real numbers onto a constraint's set.

``t(x)`` applies the map, ``t.inv(y)`` its inverse, ``t.log_abs_det_jacobian(x, y)`` gives
log |det dy/dx| (summed over ``domain.event_dim`` dimensions of one event). With
``cache_size=1`` a transform remembers its last (x, y) pair, so that ``t.inv(t(x))``
returns the very tensor x (no round-off, and the graph back to x is kept)."""

from __future__ import annotations

import math
import weakref
from numbers import Number
from typing import Any

from .. import dtypes, linalg
from .. import functional as F
from .._tensor import Size, Tensor
from ..factories import arange, eye, full_like, ones, zeros_like
from ..nn import functional as nnF
from . import constraints
from .utils import broadcast_all, sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """A map y = f(x) from ``domain`` to ``codomain``; subclasses write ``_call`` (f),
    ``_inverse`` (f^-1) and ``log_abs_det_jacobian``. ``bijective`` says whether f^-1
    really inverts f (AbsTransform's does only on the positive half), ``sign`` whether a
    scalar f increases (+1) or decreases (-1)."""

    bijective = False
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple = (None, None)
        self._inv: Any = None

    @property
    def event_dim(self) -> int:
        """How many rightmost dimensions make one event, when domain and codomain agree on
        it (ValueError otherwise, as PyTorch: ask domain.event_dim or codomain.event_dim)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform: ``t.inv(y)`` is f^-1(y), and ``t.inv.inv`` is t."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)  # weak: the inverse holds t, not the other way
        return inv

    @property
    def sign(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no sign")

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself when it already has it)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self).__name__}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        """f(x); with a cache, the last y again when x is the last x."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        """f^-1(y); with a cache, the last x again when y is the last y."""
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement its forward map")

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement its inverse")

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement log_abs_det_jacobian")

    def forward_shape(self, shape: tuple) -> Size:
        """The shape of f(x) for x of ``shape``."""
        return Size(shape)

    def inverse_shape(self, shape: tuple) -> Size:
        """The shape of f^-1(y) for y of ``shape``."""
        return Size(shape)

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class _InverseTransform(Transform):
    """f^-1 of a transform f, made by ``f.inv``: forward and inverse swapped, the log
    Jacobian negated."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform  # a strong reference: the inverse of an inverse is f itself

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.codomain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> Any:
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: tuple) -> Size:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: tuple) -> Size:
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """parts[-1](...parts[1](parts[0](x))): the transforms applied in order; the log
    Jacobians add up (each summed over the dimensions its own event lacks)."""

    def __init__(self, parts: list, cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """parts[0]'s domain, with as many more event dimensions as later parts need."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        """parts[-1]'s codomain, with as many more event dimensions as earlier parts need."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(part.bijective for part in self.parts)

    @property
    def sign(self) -> Any:
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self) -> Transform:
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = ComposeTransform([part.inv for part in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        result: Any = 0
        event_dim = self.domain.event_dim
        for part, x_in, y_out in zip(self.parts, xs[:-1], xs[1:]):
            term = part.log_abs_det_jacobian(x_in, y_out)
            result = result + sum_rightmost(term, event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return result

    def forward_shape(self, shape: tuple) -> Size:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return Size(shape)

    def inverse_shape(self, shape: tuple) -> Size:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return Size(shape)

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(part) for part in self.parts)
        return f"{self.__class__.__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with its last ``reinterpreted_batch_ndims`` batch dimensions read
    as part of one event: the same map, its log Jacobian summed over those dimensions."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int,
                 cache_size: int = 0) -> None:  # fmt: skip
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return sum_rightmost(result, self.reinterpreted_batch_ndims)

    def forward_shape(self, shape: tuple) -> Size:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: tuple) -> Size:
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"
        )


class CatTransform(Transform):
    """tseq[i] applied to the i-th slice (lengths[i] entries, 1 each by default) along
    ``dim`` of x, the results concatenated back along dim."""

    def __init__(self, tseq: list, dim: int = 0, lengths: list | None = None,
                 cache_size: int = 0) -> None:  # fmt: skip
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(
                f"CatTransform: {len(self.transforms)} transforms but {len(self.lengths)} lengths"
            )
        self.dim = dim

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def _slices(self, x: Tensor) -> list:
        """x's slices along dim, one per transform."""
        if not -x.dim() <= self.dim < x.dim() or x.shape[self.dim] != self.length:
            raise ValueError(
                f"CatTransform expects {self.length} entries along dim {self.dim}, got a "
                f"tensor of shape {tuple(x.shape)}"
            )
        slices, start = [], 0
        for length in self.lengths:
            slices.append(x.narrow(self.dim, start, length))
            start += length
        return slices

    def _call(self, x: Tensor) -> Tensor:
        parts = [t(part) for t, part in zip(self.transforms, self._slices(x))]
        return F.cat(parts, self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        parts = [t.inv(part) for t, part in zip(self.transforms, self._slices(y))]
        return F.cat(parts, self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """Each slice's log Jacobian (summed up to the widest part's event); concatenated
        along dim when dim is a batch dimension, added when it is inside the event."""
        terms = []
        for t, x_part, y_part in zip(self.transforms, self._slices(x), self._slices(y)):
            term = t.log_abs_det_jacobian(x_part, y_part)
            terms.append(sum_rightmost(term, self.event_dim - t.event_dim))
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        if dim < 0:
            return F.cat(terms, dim)
        return sum(terms[1:], terms[0])


class StackTransform(Transform):
    """tseq[i] applied to x.select(dim, i), the results stacked back along ``dim``."""

    def __init__(self, tseq: list, dim: int = 0, cache_size: int = 0) -> None:
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def _slices(self, x: Tensor) -> list:
        if not -x.dim() <= self.dim < x.dim() or x.shape[self.dim] != len(self.transforms):
            raise ValueError(
                f"StackTransform expects {len(self.transforms)} entries along dim {self.dim}, "
                f"got a tensor of shape {tuple(x.shape)}"
            )
        return [x.select(self.dim, i) for i in range(x.shape[self.dim])]

    def _call(self, x: Tensor) -> Tensor:
        return F.stack([t(part) for t, part in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        parts = [t.inv(part) for t, part in zip(self.transforms, self._slices(y))]
        return F.stack(parts, self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        pairs = zip(self.transforms, self._slices(x), self._slices(y))
        return F.stack([t.log_abs_det_jacobian(a, b) for t, a, b in pairs], self.dim)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` of x to ``out_shape`` (same number of elements);
    volume-preserving, so its log Jacobian is 0."""

    bijective = True

    def __init__(self, in_shape: tuple, out_shape: tuple, cache_size: int = 0) -> None:
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        batch_shape = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y: Tensor) -> Tensor:
        batch_shape = tuple(y.shape[: y.dim() - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        batch_shape = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.new_zeros(batch_shape)

    def forward_shape(self, shape: tuple) -> Size:
        return _replace_trailing(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: tuple) -> Size:
        return _replace_trailing(shape, self.out_shape, self.in_shape)


def _replace_trailing(shape: tuple, old: Size, new: Size) -> Size:
    """shape with its trailing ``old`` replaced by ``new`` (ValueError when it does not end
    in old)."""
    if len(shape) < len(old):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(old)
    if tuple(shape[cut:]) != tuple(old):
        raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(old)}")
    return Size(tuple(shape[:cut]) + tuple(new))


class ExpTransform(Transform):
    """y = exp(x), from the reals onto the positive numbers; log |dy/dx| = x."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class PowerTransform(Transform):
    """y = x^exponent on the positive numbers; log |dy/dx| = log |exponent y / x|."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _as_tensors(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self) -> Tensor:
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all().item())

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # d(x^e)/dx = e x^(e-1) = e y / x
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: tuple) -> Size:
        return F.broadcast_shapes(shape, tuple(self.exponent.shape))

    def inverse_shape(self, shape: tuple) -> Size:
        return F.broadcast_shapes(shape, tuple(self.exponent.shape))


def _as_tensors(*values: Any) -> tuple:
    """Numbers as 0-d tensors of the default dtype; tensors as they are."""
    return tuple(v if isinstance(v, Tensor) else broadcast_all(v)[0] for v in values)


def _clipped_sigmoid(x: Tensor) -> Tensor:
    """sigmoid(x) kept within [tiny, 1 - eps] of x's dtype, so that log(y) and log(1 - y)
    stay finite where sigmoid rounds to 0 or 1."""
    finfo = dtypes.finfo(x.dtype)
    return x.sigmoid().clamp(min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    """y = sigmoid(x), from the reals onto (0, 1), kept a dtype's smallest step away from
    both ends; log |dy/dx| = log sigmoid(x) + log sigmoid(-x)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = dtypes.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()  # logit

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # sigmoid'(x) = sigmoid(x) sigmoid(-x)
        return nnF.logsigmoid(x) + nnF.logsigmoid(-x)


class TanhTransform(Transform):
    """y = tanh(x), from the reals onto (-1, 1); log |dy/dx| = log(1 - tanh(x)^2), written
    2 (log 2 - x + log sigmoid(2x)) so it stays finite for large |x|."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # 1 - tanh(x)^2 = 4 e^(-2x) / (1 + e^(-2x))^2 = 4 e^(-2x) sigmoid(2x)^2
        return 2.0 * (math.log(2.0) - x + nnF.logsigmoid(2.0 * x))


class AbsTransform(Transform):
    """y = |x|; its "inverse" returns y itself (the positive preimage), so it is not a
    bijection and has no log Jacobian."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class AffineTransform(Transform):
    """y = loc + scale * x (numbers or tensors, broadcast); log |dy/dx| = log |scale|,
    summed over the last ``event_dim`` dimensions when an event has that many."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        return _equal(self.loc, other.loc) and _equal(self.scale, other.scale)

    __hash__ = object.__hash__

    @property
    def sign(self) -> Any:
        if isinstance(self.scale, Number):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = tuple(x.shape)
        if isinstance(self.scale, Number):
            result = full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self._event_dim:
            result = sum_rightmost(result, self._event_dim)
            shape = shape[: len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape: tuple) -> Size:
        return F.broadcast_shapes(shape, _shape_of(self.loc), _shape_of(self.scale))

    def inverse_shape(self, shape: tuple) -> Size:
        return F.broadcast_shapes(shape, _shape_of(self.loc), _shape_of(self.scale))


def _shape_of(value: Any) -> tuple:
    return tuple(value.shape) if isinstance(value, Tensor) else ()


def _equal(a: Any, b: Any) -> bool:
    """Whether two numbers or tensors are equal everywhere."""
    if isinstance(a, Number) and isinstance(b, Number):
        return a == b
    return bool((a == b).all().item()) if isinstance(a, Tensor) else bool((b == a).all().item())


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last dimension, from real vectors onto the simplex. Not a
    bijection (adding a constant to x gives the same y): the inverse is log(y), and there
    is no log Jacobian."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.softmax(-1)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape: tuple) -> Size:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size(shape)

    inverse_shape = forward_shape


def _prepend_one(x: Tensor) -> Tensor:
    """x with a 1 put in front of its last dimension."""
    one = ones(tuple(x.shape[:-1]) + (1,), dtype=x.dtype, device=x.device)
    return F.cat([one, x], -1)


def _cumulative_sum(x: Tensor) -> Tensor:
    """Running sums along the last dimension, as x @ U with U upper-triangular ones
    (a matrix product of existing ops, so its gradient comes from autograd)."""
    n = x.shape[-1]
    upper = ones(n, n, dtype=x.dtype, device=x.device).triu()
    return x @ upper


class StickBreakingTransform(Transform):
    """From real vectors of length K-1 onto the K-simplex by stick breaking: z_k =
    sigmoid(x_k - log(K - k)) is the fraction of what is left of the stick that part k
    takes (the offset makes x = 0 the simplex's centre), and the last part takes the rest.
    A bijection, with the triangular Jacobian's log determinant in closed form."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _offset_log(x: Tensor) -> Tensor:
        """log(K - k) for k = 1..K-1 (K - 1 = x.shape[-1]), the centring offsets."""
        n = x.shape[-1]
        counts = arange(n, 0, -1, dtype=x.dtype, device=x.device)
        return counts.log()

    def _call(self, x: Tensor) -> Tensor:
        # clipped, as PyTorch's: a z of exactly 1 would make log(1 - z) = -inf, and the
        # running sum below (a matrix product) nan
        z = _clipped_sigmoid(x - self._offset_log(x))
        # what is left of the stick after each break: prod_{j <= k} (1 - z_j)
        left = _cumulative_sum((-z).log1p()).exp()
        # y_k = z_k * (left before k); the last part is what is left after K-1 breaks
        z_and_rest = F.cat(
            [z, ones(tuple(x.shape[:-1]) + (1,), dtype=x.dtype, device=x.device)], -1
        )
        return z_and_rest * _prepend_one(left)

    def _inverse(self, y: Tensor) -> Tensor:
        y_crop = y[..., :-1]
        left = 1 - _cumulative_sum(y_crop)  # the stick left after each part
        left = left.clamp(min=dtypes.finfo(y.dtype).tiny)
        return y_crop.log() - left.log() + self._offset_log(y_crop)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # dy_k/dx_k = z_k (1 - z_k) left_{k-1} = y_k (1 - z_k), with 1 - z_k = sigmoid(-x')
        shifted = x - self._offset_log(x)
        return (-shifted + nnF.logsigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: tuple) -> Size:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape: tuple) -> Size:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size(tuple(shape[:-1]) + (shape[-1] - 1,))


def _corr_size(entries: int) -> int:
    """D for a vector of D (D - 1) / 2 entries (ValueError for any other length)."""
    d = round((0.25 + 2 * entries) ** 0.5 + 0.5)
    if d * (d - 1) // 2 != entries:
        raise ValueError("Input is not a flattened lower-diagonal number")
    return d


class CorrCholeskyTransform(Transform):
    """From real vectors of D (D - 1) / 2 entries onto Cholesky factors of D x D
    correlation matrices (lower triangular, positive diagonal, unit rows): the entries,
    squashed by tanh into (-1, 1), fill the strictly lower triangle row by row, and each
    row is then stick-broken so that its squares sum to 1 (each entry takes its share of
    what the earlier ones left, the diagonal the rest)."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Tensor) -> Tensor:
        eps = dtypes.finfo(x.dtype).eps
        r = x.tanh().clamp(min=-1 + eps, max=1 - eps)
        n = _corr_size(x.shape[-1])
        r = vec_to_tril_matrix(r, -1)
        # prod_{j <= k} sqrt(1 - r_j^2) along each row (entries above the diagonal are 0)
        left = _cumulative_sum(0.5 * (-r.pow(2)).log1p()).exp()
        left_before = _prepend_one(left[..., :-1])  # what entry k of a row may take
        return (r + eye(n, dtype=x.dtype, device=x.device)) * left_before

    def _inverse(self, y: Tensor) -> Tensor:
        left_before = _prepend_one(1 - _cumulative_sum(y * y)[..., :-1])
        t = tril_matrix_to_vec(y, -1) / tril_matrix_to_vec(left_before, -1).sqrt()
        return t.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor, intermediates: Any = None) -> Tensor:
        # the stick breaking's triangular Jacobian, and tanh' = 4 e^(-2x) sigmoid(2x)^2
        # (intermediates: what PyTorch's _call may pass along; not needed here)
        left = 1 - _cumulative_sum(y * y)
        stick_breaking = 0.5 * tril_matrix_to_vec(left, -2).log().sum(-1)
        tanh = 2.0 * (math.log(2.0) - x + nnF.logsigmoid(2.0 * x)).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape: tuple) -> Size:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        d = _corr_size(shape[-1])
        return Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape: tuple) -> Size:
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))


class LowerCholeskyTransform(Transform):
    """From square matrices onto lower-triangular ones with a positive diagonal: the
    strictly lower part kept, the diagonal exponentiated. Not a bijection (the upper part
    is dropped)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tril(-1) + x.diagonal(0, -2, -1).exp().diag_embed()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.tril(-1) + y.diagonal(0, -2, -1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """From square matrices onto positive-definite ones: L L^T for L the
    LowerCholeskyTransform of x."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y: Tensor) -> Tensor:
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), from the distribution's support onto [0, 1]; the log
    Jacobian is the log density."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.distribution.support

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)
