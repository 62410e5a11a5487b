"""microtorch.overrides: has_torch_function, handle_torch_function, is_tensor_like and
Tensor's default __torch_function__, each compared with PyTorch's when it is installed."""

from __future__ import annotations

import pytest

import microtorch

LIBRARIES = ["microtorch", "torch"]


def _library(name: str):
    return pytest.importorskip(name)


def _protocol_function(T):
    """A function written to honour the protocol, as PyTorch's docs show."""

    def scaled(x, factor=2.0):
        if T.overrides.has_torch_function((x,)):
            return T.overrides.handle_torch_function(scaled, (x,), x, factor=factor)
        return x * factor

    return scaled


class _Duck:
    """Not a tensor, but tensor-like: it defines the protocol."""

    calls: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func.__name__, [t.__name__ for t in types], len(args), kwargs))
        return "duck"


class _Refusing:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


class _Child(_Duck):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return "child"


@pytest.mark.parametrize("name", LIBRARIES)
def test_a_function_honouring_the_protocol_hands_over_to_the_argument(name: str) -> None:
    T = _library(name)
    scaled = _protocol_function(T)
    _Duck.calls = []
    assert scaled(_Duck(), factor=3.0) == "duck"
    assert _Duck.calls == [("scaled", ["_Duck"], 1, {"factor": 3.0})]
    assert scaled(T.ones(2)).tolist() == [2.0, 2.0]  # a plain tensor: no hand-over
    with pytest.raises(TypeError, match=r"no implementation found for .*scaled.*_Refusing"):
        scaled(_Refusing())
    both = (_Duck(), _Child())
    assert T.overrides.handle_torch_function(scaled, both, *both) == "child"  # subclass first
    assert T.overrides.handle_torch_function(scaled, (_Refusing(), _Duck()), 1) == "duck"


@pytest.mark.parametrize("name", LIBRARIES)
def test_which_arguments_have_torch_function(name: str) -> None:
    T = _library(name)

    class Sub(T.Tensor):
        pass

    o = T.overrides
    plain, parameter, sub = T.ones(2), T.nn.Parameter(T.ones(2)), T.ones(2).as_subclass(Sub)
    assert o.has_torch_function((plain, parameter, 1.0, None)) is False
    assert o.has_torch_function((plain, sub)) is True and o.has_torch_function([_Duck()]) is True
    assert o.has_torch_function_unary(sub) and not o.has_torch_function_unary(plain)
    assert o.has_torch_function_variadic(1, _Duck()) and not o.has_torch_function_variadic(1, 2)
    likes = [plain, parameter, sub, T.Tensor, Sub, _Duck(), _Duck, 1.0, [plain], None]
    assert [o.is_tensor_like(x) for x in likes] == [True] * 7 + [False] * 3


@pytest.mark.parametrize("name", LIBRARIES)
def test_a_subclass_logs_through_the_default_implementation(name: str) -> None:
    """The tutorial's logging subclass: its __torch_function__ records the call and defers
    to Tensor's, which runs the function once (the protocol off inside) and returns its
    tensors as the subclass; Tensor's own refuses types it is not a subclass of."""
    T = _library(name)
    seen = []

    class Logging(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    scaled = _protocol_function(T)
    x = T.tensor([1.0, -2.0]).as_subclass(Logging)
    result = scaled(x, factor=0.5)
    assert seen[:1] == ["scaled"] and type(result) is Logging
    assert result.tolist() == [0.5, -1.0]

    def pair(x):
        if T.overrides.has_torch_function_unary(x):
            return T.overrides.handle_torch_function(pair, (x,), x)
        return x + 1, [x * 2]

    first, (second,) = pair(x)
    assert type(first) is type(second) is Logging and second.tolist() == [2.0, -4.0]
    refused = T.overrides.handle_torch_function(pair, (x,), x)  # (Logging's, then Tensor's)
    assert type(refused[0]) is Logging

    class Other(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return T.Tensor.__torch_function__(func, types, args, kwargs)  # not a subclass

    with pytest.raises(TypeError, match="no implementation found"):
        pair(T.ones(2).as_subclass(Other))


def test_pytorch_meeting_a_microtorch_tensor_falls_back_on_microtorchs_operators() -> None:
    """PyTorch consults the __torch_function__ of any argument, Tensor's default included:
    outside handle_torch_function it answers NotImplemented (no recursion), as before."""
    torch = pytest.importorskip("torch")
    x = microtorch.ones(2)
    total = torch.ones(2) + x
    assert isinstance(total, microtorch.Tensor) and total.tolist() == [2.0, 2.0]
    with pytest.raises(TypeError):
        torch.add(torch.ones(2), x)


def test_microtorchs_own_functions_do_not_dispatch() -> None:
    """(A documented difference: see microtorch/overrides.py.)"""
    seen = []

    class Logging(microtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    x = microtorch.ones(2).as_subclass(Logging)
    assert microtorch.add(x, 1).tolist() == [2.0, 2.0] and seen == []
