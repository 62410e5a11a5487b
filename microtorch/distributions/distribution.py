"""The base class of every distribution: shapes, argument validation, sampling shapes."""

from __future__ import annotations

import warnings
from typing import Any

from .._tensor import Size, Tensor
from ..autograd import grad_mode
from . import constraints
from .utils import lazy_property


class Distribution:
    """A batch of probability distributions of the same family, as torch.distributions'.

    ``batch_shape`` is how many independent distributions there are, ``event_shape`` the
    shape of one draw. ``sample(sample_shape)`` has shape sample_shape + batch_shape +
    event_shape. With validation on (the default), parameters are checked against
    ``arg_constraints`` when the distribution is made, and log_prob's value against
    ``support``: a value outside raises ValueError."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions made from now on."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args expects True or False, got {value}")
        Distribution._validate_args = value

    def __init__(self, batch_shape: tuple = Size(), event_shape: tuple = Size(),
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    @property
    def arg_constraints(self) -> dict:
        """Each parameter's constraint, by name (a subclass sets its own; validation is
        skipped, with a warning, for one that does not)."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The constraint every value of the distribution satisfies (a subclass sets its
        own; log_prob's value goes unchecked, with a warning, for one that does not)."""
        raise NotImplementedError

    def _check_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=3,
            )
            return
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # checked by the distribution itself
            lazily_computed = isinstance(getattr(type(self), param, None), lazy_property)
            if lazily_computed and param not in self.__dict__:
                continue  # not given: computed from a parameter that was checked
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}"
                )

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Distribution:
        raise NotImplementedError(f"{type(self).__name__} does not implement expand")

    def _get_checked_instance(self, cls: type, _instance: Any) -> Any:
        """A blank instance of cls for expand (subclasses may pass their own)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def _expanded(self, new: Distribution, batch_shape: tuple) -> Any:
        """Finish expand(): ``new`` (its parameters already expanded) gets batch_shape and
        self's event_shape and validate_args, without validating again."""
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _extended_shape(self, sample_shape: tuple = Size()) -> Size:
        """sample_shape + batch_shape + event_shape: the shape of sample(sample_shape)."""
        if not isinstance(sample_shape, tuple):
            sample_shape = tuple(sample_shape)
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """Draws of shape sample_shape + batch_shape + event_shape, without gradient."""
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def sample_n(self, n: int) -> Tensor:
        """sample((n,)), under the old name PyTorch still keeps (with a FutureWarning that it
        will go)."""
        message = "`sample_n(n)` will be deprecated. Use `sample((n,))` instead."
        warnings.warn(message, FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        raise NotImplementedError(
            f"{type(self).__name__} has no reparameterised sampler (has_rsample is False); "
            "use sample(), which has no gradient"
        )

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement log_prob")

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement cdf")

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement icdf")

    def entropy(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement entropy")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement enumerate_support")

    def perplexity(self) -> Tensor:
        """exp(entropy)."""
        return self.entropy().exp()

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def _validate_sample(self, value: Tensor) -> None:
        """ValueError unless value is a tensor whose shape broadcasts with batch_shape +
        event_shape and whose every element lies in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = value.dim() - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.shape} vs "
                f"{self._event_shape}."
            )
        actual = tuple(value.shape)
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{Size(actual)} vs {Size(expected)}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.",
                stacklevel=3,
            )
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)})"
                f" to be within the support ({support!r}) of the distribution {self!r}, but "
                f"found invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:  # a subclass without them: no parameters to show
            arg_constraints = {}
        names = [k for k in arg_constraints if k in self.__dict__]
        args = ", ".join(f"{k}: {_short(self.__dict__[k])}" for k in names)
        return f"{self.__class__.__name__}({args})"


def _short(value: Tensor) -> str:
    """A parameter in a repr: the tensor when it has one element (a 0-d one prints as its
    number), else its shape."""
    return f"{value}" if value.numel() == 1 else str(value.shape)
