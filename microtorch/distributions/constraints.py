"""Constraints: which values a parameter or a sample may take.

``constraint.check(value)`` gives a bool tensor, one entry per event (the last
``event_dim`` dimensions of value are one event). Distributions name theirs in
``arg_constraints`` (checked when a distribution is made) and ``support`` (checked by
log_prob), as in ``torch.distributions.constraints``."""

from __future__ import annotations

from typing import Any

from .. import dtypes, linalg
from .. import functional as F
from .._tensor import Tensor
from ..factories import full


class Constraint:
    """A set of allowed values: ``check(value)`` says, per event, whether value is in it."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement check")

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters (Uniform's low < high): not checked on
    its own. ``is_discrete`` and ``event_dim`` are NotImplementedError unless given, as in
    ``dependent(is_discrete=True, event_dim=1)``."""

    def __init__(self, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:  # fmt: skip
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> _Dependent:  # fmt: skip
        """A dependent constraint with these static attributes (the others kept)."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


class _DependentProperty(property, _Dependent):
    """A property (a distribution's support computed from its parameters) that, read from
    the class rather than an instance, is a dependent constraint:
    ``@constraints.dependent_property(is_discrete=True, event_dim=0)`` over ``def support``
    makes ``Binomial.support`` dependent and ``Binomial(...).support`` the real one."""

    def __init__(self, fn: Any = None, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:  # fmt: skip
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn: Any) -> _DependentProperty:  # type: ignore[override]
        """The decorator form: fn as the property, with these static attributes."""
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a dependent one (checked by its distribution instead)."""
    return isinstance(constraint, _Dependent)


class _Real(Constraint):
    def check(self, value: Tensor) -> Tensor:
        return value == value  # false only for nan


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        is_boolean = ((value == 0) | (value == 1)).all(-1)
        return is_boolean & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        whole = (value % 1) == 0
        return whole & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return ((value % 1) == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThan(Constraint):
    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound <= value


class _LessThan(Constraint):
    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )


class _HalfOpenInterval(_Interval):
    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Count vectors: nonnegative entries summing to at most upper_bound (the trials)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, x: Tensor) -> Tensor:
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower = (value.tril() == value).flatten(-2).all(-1)
        positive_diagonal = (value.diagonal(0, -2, -1) > 0).all(-1)
        return lower & positive_diagonal


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower triangular, positive diagonal, every
    row of unit length (to 10 * n * eps)."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        tol = dtypes.finfo(value.dtype).eps * value.shape[-1] * 10
        row_norm = linalg.vector_norm(value.detach(), dim=-1)
        unit_rows = ((row_norm - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class _LowerTriangular(Constraint):
    """Square matrices with zeros above the diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        return (value.tril() == value).flatten(-2).all(-1)


class _Square(Constraint):
    """Matrices with as many rows as columns (one answer for a whole batch of them)."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        is_square = value.shape[-2] == value.shape[-1]
        return full(tuple(value.shape[:-2]), is_square, dtype=dtypes.bool, device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (to an absolute 1e-6)."""

    def check(self, value: Tensor) -> Tensor:
        square = super().check(value)
        if not bool(square.all()):
            return square
        return F.isclose(value, value.mT, atol=1e-6).flatten(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with no negative eigenvalue."""

    def check(self, value: Tensor) -> Tensor:
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return linalg.eigvalsh(value.detach()).min(-1).values >= 0


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices whose eigenvalues are all positive."""

    def check(self, value: Tensor) -> Tensor:
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return linalg.eigvalsh(value.detach()).min(-1).values > 0


class _IndependentConstraint(Constraint):
    """``base_constraint`` with its last ``reinterpreted_batch_ndims`` dimensions read as one
    event: an event is valid when every element of it is."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if n == 0:
            return result
        if result.dim() < n:
            raise ValueError(
                f"Expected value.dim() >= {n + self.base_constraint.event_dim} but got "
                f"{value.dim()}"
            )
        return result.reshape(tuple(result.shape[: result.dim() - n]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}({self.base_constraint!r}, "
            f"{self.reinterpreted_batch_ndims})"
        )


class _Cat(Constraint):
    """Slices of one dimension under different constraints: the first lengths[0] entries
    along ``dim`` satisfy cseq[0], the next lengths[1] cseq[1], ..."""

    def __init__(self, cseq: list, dim: int = 0, lengths: list | None = None) -> None:
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError(f"cat: {len(self.cseq)} constraints but {len(self.lengths)} lengths")
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        _check_dim(value, self.dim, "cat")
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return F.cat(checks, self.dim)


class _Stack(Constraint):
    """Entries of one dimension under different constraints: value.select(dim, i)
    satisfies cseq[i]."""

    def __init__(self, cseq: list, dim: int = 0) -> None:
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim  # a negative dim inside the event

    def check(self, value: Tensor) -> Tensor:
        _check_dim(value, self.dim, "stack")
        parts = [value.select(self.dim, i) for i in range(value.shape[self.dim])]
        return F.stack([c.check(v) for v, c in zip(parts, self.cseq)], self.dim)


def _check_dim(value: Tensor, dim: int, name: str) -> None:
    if not -value.dim() <= dim < value.dim():
        raise ValueError(f"{name}: dim {dim} is out of range for a value of {value.dim()} dims")


class MixtureSameFamilyConstraint(Constraint):
    """A MixtureSameFamily's support: its component distribution's, checked with the
    component dimension (size 1) put back before the event dimensions."""

    def __init__(self, base_constraint: Constraint) -> None:
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        event_dim = self.event_dim
        if value.dim() < event_dim:
            raise ValueError(f"Expected value.dim() >= {event_dim} but got {value.dim()}")
        result = self.base_constraint.check(value.unsqueeze(-1 - event_dim))
        keep = value.dim() - event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_constraint!r})"


dependent = _Dependent()
dependent_property = _DependentProperty
real = _Real()
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
multinomial = _Multinomial
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
independent = _IndependentConstraint
cat = _Cat
stack = _Stack
real_vector = _IndependentConstraint(real, 1)
