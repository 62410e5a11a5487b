"""``Tensor``: one array (numpy or cupy) plus what autograd needs to know about it.

    array          the raw numpy/cupy array holding the values
    requires_grad  should backward() compute a gradient for this tensor?
    grad           the accumulated gradient (a Tensor) after backward()
    grad_fn        the Function that produced this tensor (None for leaves)

Math methods (``x.exp()``, ``x @ w``, ``x.sum(dim=1)``...) call the functions in
``microtorch.functional``, where each op's arguments are checked; the ops themselves
(forward next to backward) live in ``microtorch/ops/``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from . import backend
from . import dtypes as _dtypes
from . import memory_format as _formats
from ._dim_given import NO_DIM
from ._repr import tensor_repr
from ._warn import warn_user
from .autograd import engine


class _Version:
    """In-place change counter, shared by a tensor and its views."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints like PyTorch's ``torch.Size([2, 3])``."""

    def __new__(cls, sizes: Any = ()) -> Size:
        # (0-d int tensors become ints; an array's shape, known to hold ints, is made with
        # tuple.__new__(Size, shape) instead, which skips this check: .shape is frequent)
        return super().__new__(cls, (operator.index(n) for n in sizes))

    def __repr__(self) -> str:
        return f"microtorch.Size({list(self)})"

    def __getitem__(self, index: Any) -> Any:  # x.shape[-2:] is a Size too
        out = tuple.__getitem__(self, index)
        return tuple.__new__(Size, out) if isinstance(index, slice) else out

    def __add__(self, other: Any) -> Size:
        return Size(tuple(self) + other) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other: Any) -> Size:
        return Size(other + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, times: Any) -> Size:
        return Size(tuple(self) * times)

    __rmul__ = __mul__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


class Tensor:
    __slots__ = (
        "array",
        "_requires_grad",  # what .requires_grad reads and (checked) sets
        "_grad",  # what .grad reads and (checked) sets
        "_grad_dtype",  # grad_dtype when set on a leaf (left unset, as by every op: its dtype)
        "grad_fn",
        "_version_counter",
        "_hooks",
        "_post_accumulate_hooks",  # register_post_accumulate_grad_hook (leaves only)
        "_is_param",
        "_view",  # None, or (base, index, op, version) when it views base's memory (see inplace)
        "__weakref__",
    )
    __array_priority__ = 1000  # numpy_array * tensor -> Tensor.__rmul__

    def __init__(self, *data: Any, device: Any = None, requires_grad: bool = False) -> None:
        """PyTorch's legacy constructor: ``Tensor(2, 3)`` is an uninitialised float tensor of
        that shape (nn.Parameter(torch.Tensor(out_features, in_features))); ``Tensor([1,
        2])`` or ``Tensor(array)`` a copy of the data in the default float dtype;
        ``Tensor(other)`` shares other's values; a single number is refused (TypeError)."""
        from ._legacy_types import legacy_new

        t = legacy_new(data, None, None, "Tensor", device)
        self.array = t.array
        self._grad = self.grad_fn = self._hooks = self._post_accumulate_hooks = None
        self._version_counter = _Version()
        self._is_param = False
        self._view = None
        self._requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _make(cls, array: Any, requires_grad: bool = False, grad_fn: Any = None) -> Tensor:
        """Wrap an array without copying or checking (used by every op)."""
        t = object.__new__(cls)
        t.array = array
        t._requires_grad = requires_grad
        t._grad = None
        t.grad_fn = grad_fn
        t._version_counter = _Version()
        t._hooks = t._post_accumulate_hooks = None
        t._is_param = False
        t._view = None
        return t

    # ----- its gradient ------------------------------------------------------------
    @property
    def grad(self) -> Tensor | None:
        """d(loss)/d(self), which backward() adds up here for leaves that require grad (and
        for tensors that called retain_grad()); None until then."""
        if self._grad is None and self.grad_fn is not None and self.grad_fn.retained is None:
            warn_user(
                "the .grad of a tensor that is not a leaf is being read; backward() does not "
                "fill it (only leaves get .grad). Call .retain_grad() on it before backward() "
                "if you want it, or read the .grad of the leaf you meant."
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            allowed = getattr(self, "_grad_dtype", self.dtype)
            for what, mine, given in (("size", tuple(self.shape), tuple(value.shape)),
                                      ("dtype", allowed or value.dtype, value.dtype),
                                      ("device", self.device, value.device)):  # fmt: skip
                if mine != given:
                    raise RuntimeError(
                        f"attempting to assign a gradient with {what} {given} to a tensor with "
                        f"{what} {mine}; the gradient must match the tensor's size, dtype and "
                        "device"
                    )
        self._grad = value

    @property
    def grad_dtype(self) -> Any:
        """The dtype backward() gives this leaf's .grad (its own dtype unless set): incoming
        gradients are cast to it; None accepts a gradient of any dtype."""
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return getattr(self, "_grad_dtype", self.dtype)

    @grad_dtype.setter
    def grad_dtype(self, value: Any) -> None:
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtypes.dtype):
            raise RuntimeError(
                f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}"
            )
        self._grad_dtype = value

    # ----- what it is -------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return tuple.__new__(Size, self.array.shape)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return tuple.__new__(Size, self.array.shape)
        return self.array.shape[_wrap_dim(dim, self.ndim, "size")]

    @property
    def dtype(self) -> _dtypes.dtype:
        return _dtypes.from_numpy_dtype(self.array.dtype)

    @property
    def device(self) -> backend.device:
        return backend.device_of(self.array)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def ndim(self) -> int:
        return self.array.ndim

    def dim(self) -> int:
        return self.array.ndim

    def numel(self) -> int:
        return int(self.array.size)

    def nelement(self) -> int:
        return int(self.array.size)

    def element_size(self) -> int:
        return self.array.itemsize

    def is_floating_point(self) -> bool:
        return self.array.dtype.kind == "f"

    def is_contiguous(self, memory_format: Any = _formats.contiguous_format) -> bool:
        """Do the elements lie in memory in this order, with no gaps (C order by default;
        ``channels_last``: an image batch's channels innermost)?"""
        if memory_format is _formats.contiguous_format:
            return bool(self.array.flags.c_contiguous)
        return _formats.is_laid_out(self.array, memory_format)

    @property
    def layout(self) -> _formats.layout:
        """How the elements are stored: ``microtorch.strided`` (dense, with strides)."""
        return _formats.strided

    def stride(self, dim: int | None = None) -> Any:
        """How many elements apart neighbours along each dim are in memory (as in PyTorch;
        NumPy's ``strides`` count bytes). A transpose swaps them: that is why it is not
        contiguous."""
        strides = _torch_strides(self.array)
        return strides if dim is None else strides[_wrap_dim(dim, self.ndim, "stride")]

    def dim_order(self, *, ambiguity_check: bool | list = False) -> tuple:
        """The dims from outermost to innermost in memory, by their strides: (0, 1, 2) for a
        contiguous tensor, (1, 0) for a transposed matrix. Size-1 dims and equal strides
        leave it open; ``ambiguity_check=True`` raises then, and a list of memory formats
        accepts it when exactly one of them fits the tensor."""
        return _formats.dim_order(self, ambiguity_check)

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn node this tensor is. Here every node has one output,
        so 0, except for the pieces of a split or chunk: their position, as in PyTorch."""
        from .ops.shape import SplitPiece

        return self.grad_fn.position if isinstance(self.grad_fn, SplitPiece) else 0

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's memory has had (PyTorch's ``_version``);
        a view shares its base's counter."""
        return self._version_counter.value

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.array.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.array.shape[0]))

    def __hash__(self) -> int:
        return id(self)

    def __getattr__(self, name: str) -> Any:
        """Only reached for a name the class does not define (x.log1p(), x.cumsum()...)."""
        if name.startswith("__") or name in Tensor.__slots__:
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        raise AttributeError(
            f"'Tensor' object has no attribute '{name}': microtorch implements a subset of "
            f"PyTorch's Tensor methods and '{name}' is not one of them; write it from the ops "
            "there are, or add it as an op (docs/adding_an_op.md)"
        )

    # ----- autograd ---------------------------------------------------------------
    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and self.array.dtype.kind != "f":
            raise RuntimeError(
                f"only Tensors of floating point dtype can require gradients, got {self.dtype}; "
                "convert first with .float()"
            )
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables; use .detach() "
                "to get a tensor that does not require grad"
            )
        self._requires_grad = requires_grad
        return self

    @property
    def requires_grad(self) -> bool:
        """Should backward() compute a gradient for this tensor? Setting it makes the same
        checks as requires_grad_() (a floating-point dtype; only a leaf can be switched off)."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, requires_grad: bool) -> None:
        if not isinstance(requires_grad, bool):
            raise RuntimeError(f"requires_grad must be a bool, got {type(requires_grad).__name__}")
        self.requires_grad_(requires_grad)

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:  # fmt: skip
        """Compute the gradient of this tensor with respect to every leaf that requires grad,
        adding it into their ``.grad``. A non-scalar tensor needs ``gradient`` (dL/dself).
        With ``inputs`` (tensors), only their ``.grad`` changes, leaves or not."""
        if not self.requires_grad:
            raise RuntimeError(
                "element 0 of tensors does not require grad and does not have a grad_fn: "
                "nothing in its graph requires grad (set requires_grad=True on the inputs, "
                "and do not compute it under no_grad)"
            )
        if gradient is None:
            if self.array.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs, but this tensor "
                    f"has shape {tuple(self.shape)}; pass gradient= of that shape, or reduce "
                    "it first (e.g. .sum())"
                )
            grad = backend.xp_of(self.array).ones_like(self.array)
        else:
            g = gradient.array if isinstance(gradient, Tensor) else numpy.asarray(gradient)
            if type(g) is not type(self.array):
                raise RuntimeError(
                    f"backward: gradient is on {backend.device_of(g)} but the tensor is on "
                    f"{self.device}; move it with .to({str(self.device)!r})"
                )
            if g.shape != self.array.shape:
                raise RuntimeError(
                    f"backward: gradient has shape {g.shape} but the tensor has shape "
                    f"{self.array.shape}"
                )
            grad = g.astype(self.array.dtype, copy=False)
        if create_graph:
            from . import autograd

            raise autograd.no_gradients_of_gradients("backward: create_graph=True is")
        if inputs is None:
            engine.backward(self, grad, retain_graph=bool(retain_graph))
            return
        inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        if not inputs:
            raise RuntimeError("backward: the inputs argument cannot be empty")
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor) or not t.requires_grad:
                raise RuntimeError(f"backward: inputs[{i}] is not a tensor that requires grad")
        with engine.capturing_walk():
            found = engine.backward(self, grad, retain_graph=bool(retain_graph), capture=inputs)
        for t, g in zip(inputs, found):
            retained = t.grad_fn is not None and t.grad_fn.retained is not None
            if g is not None and not retained:  # (retain_grad() has filled its .grad)
                engine.add_to_grad(t, backend.xp_of(g).asarray(g).astype(t.array.dtype))

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward (leaves always keep it)."""
        if self.grad_fn is not None:
            self.grad_fn.retained = engine.make_retained(self)
        elif not self.requires_grad:
            raise RuntimeError("can't retain_grad on a tensor that has requires_grad=False")

    @property
    def retains_grad(self) -> bool:
        """Whether backward() fills ``.grad`` of this non-leaf tensor: True after
        retain_grad(); always False for a leaf (it gets ``.grad`` anyway), as in PyTorch."""
        retained = self.grad_fn.retained if self.grad_fn is not None else None
        return retained is not None and retained() is self

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> Any:
        """Call ``hook(self)`` each time backward() has added this leaf's gradient into its
        ``.grad`` (an optimizer can step right there). Returns a handle with ``.remove()``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors; use "
                "register_hook on it, or register the hook on the leaf it is computed from"
            )
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = []
        self._post_accumulate_hooks.append(hook)
        return _HookHandle(self._post_accumulate_hooks, hook)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Callable:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor
        replaces the gradient. Returns a handle with ``.remove()``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            if self.grad_fn.hooks is None:
                self.grad_fn.hooks = []
            hooks = self.grad_fn.hooks
        else:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    def detach(self) -> Tensor:
        """The same values (shared memory) cut out of the graph."""
        t = Tensor._make(self.array)
        t._version_counter = self._version_counter
        return t

    def detach_(self) -> Tensor:
        """Cut this tensor out of the graph in place (a view cannot be: use detach())."""
        if self._view is not None:
            raise RuntimeError(
                "detach_(): can't detach views in-place, this tensor shares its base's memory "
                "and place in the graph; use .detach() instead, which returns a new tensor"
            )
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """The same values (shared memory) cut out of the graph. Unlike detach(), it has its
        own version counter, as in PyTorch: an in-place change through ``.data`` is not seen
        by the check that saved tensors are unchanged (backward uses the new values)."""
        return Tensor._make(self.array)

    @data.setter
    def data(self, value: Tensor) -> None:
        self.array = value.array if isinstance(value, Tensor) else value

    # ----- conversion -------------------------------------------------------------
    def item(self) -> Any:
        if self.array.size != 1:
            raise RuntimeError(
                f"item(): a Tensor with {self.array.size} elements cannot be converted to a "
                "Python scalar"
            )
        return backend.to_numpy(self.array).reshape(()).item()

    def tolist(self) -> Any:
        return backend.to_numpy(self.array).tolist()

    def numpy(self, *, force: bool = False) -> numpy.ndarray:
        """The values as a NumPy array sharing this tensor's memory (CPU only). ``force=True``
        detaches and copies to the host first, as ``detach().cpu().numpy()`` does."""
        if force:
            return backend.to_numpy(self.array)
        if self.device.type != "cpu":
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() "
                "to copy the tensor to host memory first."
            )
        if self.requires_grad:
            raise RuntimeError(
                f"Can't call numpy() on Tensor that requires grad (shape {tuple(self.shape)}, "
                f"{self.dtype}). Use tensor.detach().numpy()"
            )
        return self.array

    def __array__(self, dtype: Any = None, copy: Any = None) -> numpy.ndarray:
        """``numpy.asarray(t)`` is ``t.numpy()``, as in PyTorch: a GPU tensor (copy it with
        ``.cpu()`` first; a silent copy would hide a wait for the GPU) or one that requires
        grad is refused."""
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self.array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self.array.__dlpack_device__()

    def __float__(self) -> float:
        return float(self._python_number("float"))

    def __int__(self) -> int:
        return int(self._python_number("int"))

    def _python_number(self, to: str) -> Any:
        """The one value, for int(t) and float(t): ValueError otherwise (PyTorch's type; item()
        raises RuntimeError)."""
        if self.array.size != 1:
            raise ValueError(
                f"{to}(): only one element tensors can be converted to Python scalars, got "
                f"{self.array.size} elements (shape {tuple(self.shape)}); pick one, e.g. t[0]"
            )
        return self.item()

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:  # f"{loss:.4f}" formats the number, as in PyTorch
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __index__(self) -> int:
        if self.array.dtype.kind not in "biu" or self.array.size != 1:  # (a bool is an int)
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.array.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {self.array.size} elements is ambiguous"
            )
        return bool(self.item())

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(other_tensor)``, or keywords
        ``device=``/``dtype=``. Returns self when nothing changes (unless ``copy=True``);
        otherwise a new tensor that stays in the graph (gradients flow back through the move
        or cast)."""
        memory_format = kwargs.pop("memory_format", _formats.preserve_format)
        device, dtype, copy = parse_to_args(args, kwargs)
        out = self
        if dtype is not None and dtype is not self.dtype:
            out = F.cast(out, dtype)
        if device is not None and device != out.device:
            out = F.to_device(out, device)
        if memory_format is not _formats.preserve_format:
            out = out.contiguous(memory_format=memory_format)
        return out.clone() if copy and out is self else out

    def cpu(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to("cpu", memory_format=memory_format)

    def cuda(self, device: Any = None, non_blocking: bool = False,
             memory_format: Any = _formats.preserve_format) -> Tensor:  # fmt: skip
        return self.to("cuda" if device is None else device, memory_format=memory_format)

    def float(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.float32, memory_format=memory_format)

    def double(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.float64, memory_format=memory_format)

    def half(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.float16, memory_format=memory_format)

    def long(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.int64, memory_format=memory_format)

    def int(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.int32, memory_format=memory_format)

    def bool(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.bool, memory_format=memory_format)

    def short(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.int16, memory_format=memory_format)

    def char(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.int8, memory_format=memory_format)

    def byte(self, memory_format: Any = _formats.preserve_format) -> Tensor:
        return self.to(_dtypes.uint8, memory_format=memory_format)

    def is_signed(self) -> bool:
        """Whether the dtype holds negative numbers (floats and signed integers)."""
        return self.dtype.is_signed

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    def clone(self, *, memory_format: Any = _formats.preserve_format) -> Tensor:
        return F.clone(self, memory_format=memory_format)

    def __deepcopy__(self, memo: dict) -> Tensor:
        """copy.deepcopy: a new leaf with copied values (and a copied .grad), as in PyTorch."""
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                f"protocol; this one was made by {self.grad_fn.name()}: deepcopy "
                "tensor.detach() (or .detach().clone()) instead"
            )
        if id(self) not in memo:
            copy = Tensor._make(self.array.copy(), self.requires_grad)
            if self.grad is not None:
                copy.grad = Tensor._make(self.grad.array.copy())
            memo[id(self)] = copy
        return memo[id(self)]

    def contiguous(self, *, memory_format: Any = _formats.contiguous_format) -> Tensor:
        """Self when its elements already lie in ``memory_format``'s order, else a copy that
        does (C order by default)."""
        if memory_format is _formats.contiguous_format:
            return self if self.array.flags.c_contiguous else F.contiguous(self)
        if self.is_contiguous(memory_format):
            return self
        return F.contiguous(self, memory_format)

    def __repr__(self) -> str:
        extras = [f"dtype={self.dtype}", f"device='{self.device}'"]
        if self.array.size == 0 and self.ndim > 1:  # "[]" alone would hide the shape
            extras.insert(0, f"size={tuple(self.shape)}")
        if self.grad_fn is not None:
            extras.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return tensor_repr(self.array, extras)

    # ----- arithmetic -------------------------------------------------------------
    def __add__(self, other: Any) -> Tensor:
        return F.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return F.add(other, self)

    def __sub__(self, other: Any) -> Tensor:
        return F.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return F.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return F.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return F.mul(other, self)

    def __truediv__(self, other: Any) -> Tensor:
        return F.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        (self,) = F.autocast_inputs("__rtruediv__", self)  # (float32 under CUDA autocast)
        # number / tensor is reciprocal(tensor) * number in PyTorch: the division rounded
        # twice, which differs from one rounded division in a quarter of the last bits
        return F.mul(F.reciprocal(self), other)

    def __pow__(self, other: Any) -> Tensor:
        return F.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return F.pow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        return F.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return F.matmul(other, self)

    def __neg__(self) -> Tensor:
        return F.neg(self)

    def __pos__(self) -> Tensor:
        return F.positive(self)  # (self itself; an error for bool tensors, as in PyTorch)

    def __abs__(self) -> Tensor:
        return F.abs(self)

    def __invert__(self) -> Tensor:
        if self.dtype.is_floating_point:  # (TypeError here, bitwise_not's NotImplementedError)
            raise TypeError(
                f"bitwise_not: `~` (operator.invert) works on integer and bool tensors, got "
                f"{self.dtype}; for a float condition use logical_not()"
            )
        return F.bitwise_not(self)

    def bitwise_not(self) -> Tensor:
        return F.bitwise_not(self)

    def __and__(self, other: Any) -> Tensor:
        return F.bitwise_and(self, other)

    def __or__(self, other: Any) -> Tensor:
        return F.bitwise_or(self, other)

    def __xor__(self, other: Any) -> Tensor:
        return F.bitwise_xor(self, other)

    def __rand__(self, other: Any) -> Tensor:
        return F.bitwise_and(other, self)

    def __ror__(self, other: Any) -> Tensor:
        return F.bitwise_or(other, self)

    def __rxor__(self, other: Any) -> Tensor:
        return F.bitwise_xor(other, self)

    def __lshift__(self, other: Any) -> Tensor:
        return F.bitwise_left_shift(self, other)

    def __rshift__(self, other: Any) -> Tensor:
        return F.bitwise_right_shift(self, other)

    def __rlshift__(self, other: Any) -> Tensor:
        return F.bitwise_left_shift(other, self)

    def __rrshift__(self, other: Any) -> Tensor:
        return F.bitwise_right_shift(other, self)

    def __ilshift__(self, other: Any) -> Tensor:
        return F.inplace(self, F.bitwise_left_shift, other)

    def __irshift__(self, other: Any) -> Tensor:
        return F.inplace(self, F.bitwise_right_shift, other)

    bitwise_left_shift_, bitwise_right_shift_ = __ilshift__, __irshift__

    def logical_not(self) -> Tensor:
        return F.logical_not(self)

    def logical_and(self, other: Any) -> Tensor:
        return F.logical_and(self, other)

    def logical_or(self, other: Any) -> Tensor:
        return F.logical_or(self, other)

    def logical_xor(self, other: Any) -> Tensor:
        return F.logical_xor(self, other)

    def __floordiv__(self, other: Any) -> Tensor:
        return F.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return F.floor_divide(other, self)

    def __mod__(self, other: Any) -> Tensor:
        return F.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        return F.remainder(other, self)

    floor_divide, remainder = __floordiv__, __mod__
    bitwise_and, bitwise_or, bitwise_xor = __and__, __or__, __xor__
    bitwise_left_shift, bitwise_right_shift = __lshift__, __rshift__

    def __contains__(self, element: Any) -> bool:
        """``element in t``: does any element of t equal it (as in PyTorch)."""
        if not isinstance(element, (Tensor, int, float, bool)):
            raise RuntimeError(
                f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}"
            )
        return bool(F.eq(self, element).any())

    # comparisons give bool tensors and no gradient
    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not _compares_elementwise(other):  # as in PyTorch: `x == None` is False
            return NotImplemented
        return F.eq(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not _compares_elementwise(other):
            return NotImplemented
        return F.ne(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return F.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return F.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return F.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return F.ge(self, other)

    # the same as methods: pred.eq(target.view_as(pred)).sum()
    def eq(self, other: Any) -> Tensor:
        return F.eq(self, other)  # (not __eq__: x.eq(None) is a TypeError, x == None False)

    def ne(self, other: Any) -> Tensor:
        return F.ne(self, other)

    lt, le, gt, ge = __lt__, __le__, __gt__, __ge__
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

    # ----- in-place ---------------------------------------------------------------
    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    def __ipow__(self, other: Any) -> Tensor:
        return self.pow_(other)

    def __ifloordiv__(self, other: Any) -> Tensor:
        return self.floor_divide_(other)

    def __imod__(self, other: Any) -> Tensor:
        return self.remainder_(other)

    def __iand__(self, other: Any) -> Tensor:
        return self.bitwise_and_(other)

    def __ior__(self, other: Any) -> Tensor:
        return self.bitwise_or_(other)

    def __ixor__(self, other: Any) -> Tensor:
        return self.bitwise_xor_(other)

    def pow_(self, exponent: Any) -> Tensor:
        return F.inplace(self, F.pow, exponent)

    def floor_divide_(self, other: Any) -> Tensor:
        return F.inplace(self, F.floor_divide, other)

    def remainder_(self, other: Any) -> Tensor:
        return F.inplace(self, F.remainder, other)

    def bitwise_and_(self, other: Any) -> Tensor:
        return F.inplace(self, F.bitwise_and, other)

    def bitwise_or_(self, other: Any) -> Tensor:
        return F.inplace(self, F.bitwise_or, other)

    def bitwise_xor_(self, other: Any) -> Tensor:
        return F.inplace(self, F.bitwise_xor, other)

    def add_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return F.inplace(self, F.add, other, alpha=alpha)

    def sub_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return F.inplace(self, F.sub, other, alpha=alpha)

    def mul_(self, other: Any) -> Tensor:
        return F.inplace(self, F.mul, other)

    def div_(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        return F.inplace(self, F.div, other, rounding_mode=rounding_mode)

    def true_divide_(self, other: Any) -> Tensor:
        return F.inplace(self, F.true_divide, other)

    def negative_(self) -> Tensor:
        return F.inplace(self, F.neg)

    divide_, multiply_, subtract_ = div_, mul_, sub_

    # comparisons written into self: 1 where true, 0 where false, in self's dtype
    def eq_(self, other: Any) -> Tensor:
        return F.inplace(self, F.eq, other)

    def ne_(self, other: Any) -> Tensor:
        return F.inplace(self, F.ne, other)

    def lt_(self, other: Any) -> Tensor:
        return F.inplace(self, F.lt, other)

    def le_(self, other: Any) -> Tensor:
        return F.inplace(self, F.le, other)

    def gt_(self, other: Any) -> Tensor:
        return F.inplace(self, F.gt, other)

    def ge_(self, other: Any) -> Tensor:
        return F.inplace(self, F.ge, other)

    greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_

    # logical ops written into self the same way (bool results cast to self's dtype)
    def logical_not_(self) -> Tensor:
        return F.inplace(self, F.logical_not)

    def logical_and_(self, other: Any) -> Tensor:
        return F.inplace(self, F.logical_and, other)

    def logical_or_(self, other: Any) -> Tensor:
        return F.inplace(self, F.logical_or, other)

    def logical_xor_(self, other: Any) -> Tensor:
        return F.inplace(self, F.logical_xor, other)

    def bitwise_not_(self) -> Tensor:
        return F.inplace(self, F.bitwise_not)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:
        return F.inplace(self, F.clamp, min, max)

    clip_ = clamp_

    def clamp_min_(self, min: Any) -> Tensor:
        return F.inplace(self, F.clamp, min, None)

    def clamp_max_(self, max: Any) -> Tensor:
        return F.inplace(self, F.clamp, None, max)

    # ----- PyTorch's older spellings and memory details -----------------------------------
    def ndimension(self) -> int:
        return self.ndim

    @property
    def itemsize(self) -> int:
        return self.array.itemsize

    @property
    def nbytes(self) -> int:
        return int(self.array.nbytes)

    def is_complex(self) -> bool:
        return False  # microtorch has no complex dtypes

    # complex numbers and lazy conjugation / negation: every dtype here is real, so each
    # answers as PyTorch does for a real tensor
    def is_conj(self) -> bool:
        return False

    def is_neg(self) -> bool:
        return False

    def conj(self) -> Tensor:
        return self

    def conj_physical(self) -> Tensor:
        """The conjugate, computed now: the tensor itself for a real one, as in PyTorch."""
        return F.conj_physical(self)

    def conj_physical_(self) -> Tensor:
        """In place: nothing changes in a real tensor (a leaf that requires grad is still
        refused, as in PyTorch)."""
        return F.inplace(self, F.conj_physical)

    def resolve_conj(self) -> Tensor:
        return self

    def resolve_neg(self) -> Tensor:
        return self

    @property
    def real(self) -> Tensor:
        """The real part: the tensor itself (PyTorch's answer for a real tensor)."""
        return self

    @property
    def imag(self) -> Tensor:
        """PyTorch has no imaginary part for a real tensor, and raises; so does microtorch."""
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")

    def is_inference(self) -> bool:
        """False: microtorch has no inference tensors (inference_mode is no_grad here)."""
        return False

    def get_device(self) -> int:
        """The CUDA device index, -1 on the CPU (as in PyTorch)."""
        return -1 if self.device.type == "cpu" else self.device.index or 0

    def is_nonzero(self) -> bool:
        """Whether a one-element tensor's value is not 0; RuntimeError for any other size."""
        if self.numel() != 1:
            many = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {many} is ambiguous")
        return bool(self.array.reshape(()).item() != 0)

    def is_same_size(self, other: Tensor) -> bool:
        return tuple(self.shape) == tuple(other.shape)

    # pinned and shared memory: microtorch allocates neither (no page-locked host buffers,
    # no multiprocessing), so tensors never are
    def is_pinned(self, device: Any = None) -> bool:
        return False

    def pin_memory(self, device: Any = None) -> Tensor:
        """A copy in host memory where a GPU is there (ordinary memory: microtorch does not
        page-lock, so copies to the GPU are not asynchronous); without one RuntimeError, as
        in PyTorch."""
        from . import cuda

        if not cuda.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if self.is_cuda:
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
        return self.clone()

    def is_shared(self) -> bool:
        return False

    # other layouts and device kinds: microtorch tensors are dense, strided, on the CPU or a
    # CUDA GPU, never distributed, so each answers False, as PyTorch does for such a tensor
    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def is_sparse_csr(self) -> bool:
        return False

    @property
    def is_quantized(self) -> bool:
        return False

    @property
    def is_meta(self) -> bool:
        return False

    @property
    def is_mkldnn(self) -> bool:
        return False

    @property
    def is_nested(self) -> bool:
        return False

    @property
    def is_mps(self) -> bool:
        return False

    @property
    def is_xla(self) -> bool:
        return False

    @property
    def is_xpu(self) -> bool:
        return False

    @property
    def is_ipu(self) -> bool:
        return False

    @property
    def is_vulkan(self) -> bool:
        return False

    @property
    def is_maia(self) -> bool:
        return False

    @property
    def is_mtia(self) -> bool:
        return False

    def is_distributed(self) -> bool:
        return False

    def to_dense(self, dtype: Any = None, *, masked_grad: bool | None = None) -> Tensor:
        """The tensor itself (it is dense already), or a copy in ``dtype`` when that differs,
        as in PyTorch."""
        return self if dtype is None or dtype == self.dtype else self.to(dtype)

    def share_memory_(self) -> Tensor:
        """The tensor itself, unchanged: microtorch has no multiprocessing to share it with."""
        return self

    def resize_(self, *sizes: Any, memory_format: Any = None) -> Tensor:
        """Give the tensor new sizes in place: its first elements (in memory order) keep their
        values; growing adds elements (zeros here, uninitialised in PyTorch). Not for a
        tensor that requires grad, as in PyTorch. ``memory_format=channels_last`` lays the
        new sizes over that memory with the channels innermost."""
        sizes = _shape_args(sizes, op="resize_", name="size")
        if self.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        if any(not isinstance(n, int) or n < 0 for n in sizes):
            raise RuntimeError(f"resize_: sizes must be non-negative integers, got {list(sizes)}")
        if memory_format is _formats.preserve_format:
            raise RuntimeError("resize_: Unsupported memory format preserve_format")
        order = _formats.dims_order(memory_format or _formats.contiguous_format, len(sizes),
                                    "resize_")  # fmt: skip
        if order != tuple(range(len(sizes))):  # the memory in that order, viewed as sizes
            in_memory = self.resize_(tuple(sizes[d] for d in order)).array
            contiguous = backend.xp_of(in_memory).ascontiguousarray(in_memory)
            self.array = contiguous.transpose(tuple(order.index(d) for d in range(len(order))))
            return self
        if tuple(sizes) == tuple(self.shape):
            return self
        xp, n = backend.xp_of(self.array), int(numpy.prod(sizes, dtype=numpy.int64))
        flat = self.array.reshape(-1)  # memory order (a view) when the memory is one block
        if n <= flat.shape[0] and self.array.flags.c_contiguous:
            self.array = flat[:n].reshape(sizes)  # shrinking keeps the same memory
        else:
            grown = xp.zeros(n, dtype=self.array.dtype)
            grown[: min(n, flat.shape[0])] = flat[:n]
            self.array = grown.reshape(sizes)
        self._view = None  # its sizes no longer follow the tensor it viewed, if any
        self._version_counter.value += 1
        return self

    def resize_as_(self, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
        """resize_ to the sizes of the_template."""
        return self.resize_(tuple(the_template.shape), memory_format=memory_format)

    def resize(self, *sizes: Any) -> Tensor:
        """Deprecated out-of-place resize (warns, as PyTorch): the tensor reshaped to these
        sizes, which must keep its number of elements; gradients flow."""
        warn_user("non-inplace resize is deprecated")
        return _resized(self, _shape_args(sizes, op="resize", name="size") if sizes else ())

    def resize_as(self, tensor: Tensor) -> Tensor:
        """Deprecated out-of-place resize to tensor's sizes (see resize)."""
        warn_user("non-inplace resize_as is deprecated")
        return _resized(self, tuple(tensor.shape))

    def set_(self, source: Tensor | None = None, storage_offset: int | None = None,
             size: Any = None, stride: Any = None) -> Tensor:  # fmt: skip
        """Make this tensor view source's memory: with source's sizes and strides, or with
        the given ones from storage_offset elements into that memory (as_strided). Writes
        to either then show in both. No source: an empty 1-D tensor. (microtorch has no
        Storage objects, so source is a tensor.)"""
        if source is None:
            return F.inplace_view(self, _emptied)
        if not isinstance(source, Tensor):
            raise TypeError(
                f"set_: source must be a Tensor (microtorch has no Storage objects), got "
                f"{type(source).__name__}"
            )
        if source.dtype != self.dtype or source.device != self.device:
            raise RuntimeError(
                f"set_: could not set a {self.dtype} tensor on {self.device} to a "
                f"{source.dtype} tensor on {source.device}"
            )
        if (storage_offset is None) != (size is None) or (size is None and stride is not None):
            raise TypeError(
                "set_: takes a source tensor alone, or with storage_offset and size (and "
                "optionally stride)"
            )
        if size is not None and stride is None:  # contiguous: each dim steps over those inside
            stride = tuple(int(numpy.prod(size[d + 1 :])) for d in range(len(size)))
        F.inplace_view(self, _viewing, source, size, stride, storage_offset)
        self._version_counter = source._version_counter  # one memory: writes bump both
        return self

    def apply_(self, callable: Callable) -> Tensor:
        """Replace each element by callable(element), a Python number, in place (CPU only, as
        in PyTorch; slow: one Python call per element)."""
        if self.is_cuda:
            raise TypeError("apply_ is only implemented on CPU tensors")
        values = [callable(v) for v in self.array.reshape(-1).tolist()]
        return F.inplace(self, F.python_values, values)

    def map_(self, other: Tensor, callable: Callable) -> Tensor:
        """Replace each element by callable(element, the element of other at the same place),
        other broadcast to this one's shape, in place (CPU only, as in PyTorch)."""
        return _mapped(self, (other,), callable, "map_")

    def map2_(self, x: Tensor, y: Tensor, callable: Callable) -> Tensor:
        """Replace each element by callable(element, x's element, y's element), x and y
        broadcast to this one's shape, in place (CPU only, as in PyTorch)."""
        return _mapped(self, (x, y), callable, "map2_")

    def record_stream(self, s: Any) -> None:
        """Nothing to do here: microtorch runs CUDA work on one stream and frees memory
        through CuPy's pool, so no other stream can still be using it. CPU tensors have no
        streams; PyTorch refuses them, and so does microtorch."""
        if not self.is_cuda:
            raise RuntimeError("record_stream: only CUDA tensors are used by streams")

    def module_load(self, other: Tensor, assign: bool = False) -> Tensor:
        """How load_state_dict turns a saved value into this parameter's new value: other
        itself (detached) with ``assign``, otherwise this tensor with other's values copied
        in (detached)."""
        if assign:
            return other.detach()
        return self.copy_(other).detach()

    @property
    def is_cpu(self) -> bool:
        """Whether the tensor lives in host memory (a NumPy array)."""
        return self.device.type == "cpu"

    def data_ptr(self) -> int:
        """The address of the tensor's first element (NumPy's ``ctypes.data``, CuPy's
        ``data.ptr``): two tensors sharing memory from the same start give the same one."""
        return _address(self.array)

    def const_data_ptr(self) -> int:
        """data_ptr(): the address of the first element (PyTorch's read-only form of it)."""
        return self.data_ptr()

    def is_set_to(self, tensor: Tensor) -> bool:
        """Whether both tensors view the same memory from the same first element, with the
        same sizes and strides."""
        start = backend.memory_start
        same = self.device == tensor.device and start(self.array) == start(tensor.array)
        where = (self.data_ptr(), tuple(self.shape), self.stride())
        return same and where == (tensor.data_ptr(), tuple(tensor.shape), tensor.stride())

    def storage_offset(self) -> int:
        """Where this tensor starts in the memory it shares with the tensor it views, in
        elements: ``x[1].storage_offset()`` of a contiguous (2, 3) ``x`` is 3."""
        a = self.array
        return (_address(a) - backend.memory_start(a)) // a.itemsize

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        """With no argument, the legacy type name, PyTorch's string ("torch.FloatTensor",
        "torch.cuda.LongTensor"), so that code comparing it with PyTorch's names works; with
        a dtype, such a name (with "torch." or "microtorch.") or such a type
        (microtorch.FloatTensor), the tensor converted to it."""
        if dtype is None:  # (a name code compares, not a display name: PyTorch's spelling)
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + _LEGACY_TYPE_NAMES[self.dtype.name]
        if isinstance(dtype, str):  # "torch.DoubleTensor", "torch.cuda.LongTensor"...
            module, _, name = dtype.rpartition(".")
            by_name = {v: k for k, v in _LEGACY_TYPE_NAMES.items()}
            if module not in _LEGACY_MODULES or name not in by_name:
                raise ValueError(
                    f"type: invalid type {dtype!r}; give a legacy type name such as "
                    "'torch.FloatTensor' or 'torch.cuda.LongTensor', or a dtype"
                )
            device = "cuda" if module.endswith("cuda") else "cpu"
            return self.to(device=device, dtype=_dtypes.get_dtype(by_name[name]))
        from ._legacy_types import LegacyTensorType

        if isinstance(dtype, LegacyTensorType):  # x.type(microtorch.DoubleTensor)
            return self.to(device="cuda" if dtype.is_cuda else "cpu", dtype=dtype.dtype)
        if dtype is Tensor:  # the default tensor type: a CPU tensor of the default dtype
            return self.to(device="cpu", dtype=_dtypes.get_default_dtype())
        return self.to(dtype=dtype)

    def masked_fill_(self, mask: Tensor, value: Any) -> Tensor:
        return F.inplace(self, F.masked_fill, mask, value)

    def copy_(self, other: Any, non_blocking: bool = False) -> Tensor:
        """Write other's values (broadcast, cast to this dtype) into this tensor. PyTorch's
        docs call it src; its parser takes other=."""
        return F.inplace(self, F.copy_from, other)

    def fill_(self, value: Any) -> Tensor:
        return F.inplace(self, F.full_like_graph, value)

    def zero_(self) -> Tensor:
        return F.inplace(self, F.full_like_graph, 0)

    def fill_diagonal_(self, fill_value: Any, wrap: bool = False) -> Tensor:
        """Set the main diagonal (all indices equal) to fill_value, in place; wrap=True
        restarts it below a tall matrix's square part, as in PyTorch."""
        return F.inplace(self, F.diagonal_filled, fill_value, wrap)

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
        from . import random

        mean = F._float_argument(mean, "normal_", "mean")
        std = F._float_argument(std, "normal_", "std")
        sample = random.normal_array(self.shape, mean, std, self.dtype, self.device, generator)
        return F.inplace(self, F.copy_from, Tensor._make(sample))

    def uniform_(self, from_: float = 0.0, /, to: float = 1.0, *,
                 generator: Any = None) -> Tensor:  # fmt: skip
        """Fill self with draws uniform in [from, to) (PyTorch's keywords: ``to=``; its
        ``from`` is a Python keyword, so pass it by position)."""
        from . import random

        sample = random.uniform_array(self.shape, from_, to, self.dtype, self.device, generator)
        return F.inplace(self, F.copy_from, Tensor._make(sample))

    def exponential_(self, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
        """Fill self with exponential draws of rate ``lambd`` (mean 1 / lambd)."""
        from . import random

        lambd = F._float_argument(lambd, "exponential_", "lambd")
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
        random.check_floating(self, "exponential_")
        draws = random._rng(generator).exponential(1.0 / lambd, tuple(self.shape))
        return random.fill_from_host(self, draws)

    def geometric_(self, p: float, *, generator: Any = None) -> Tensor:
        """Fill self with geometric draws: the number of trials (1, 2, ...) up to the first
        success of probability ``p``."""
        from . import random

        p = F._float_argument(p, "geometric_", "p")
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
        if self.dtype is _dtypes.bool:
            raise NotImplementedError("geometric_: not implemented for bool tensors, as in PyTorch")
        return random.fill_from_host(self, random._rng(generator).geometric(p, tuple(self.shape)))

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
        """Fill self with Cauchy draws of location ``median`` and scale ``sigma``."""
        from . import random

        median = F._float_argument(median, "cauchy_", "median")
        sigma = F._float_argument(sigma, "cauchy_", "sigma")
        if not sigma > 0:
            raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
        random.check_floating(self, "cauchy_")
        draws = median + sigma * random._rng(generator).standard_cauchy(tuple(self.shape))
        return random.fill_from_host(self, draws)

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
        """Fill self with exp(x) for normal draws x of mean ``mean`` and std ``std``."""
        from . import random

        mean = F._float_argument(mean, "log_normal_", "mean")
        std = F._float_argument(std, "log_normal_", "std")
        if not std > 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
        random.check_floating(self, "log_normal_", NotImplementedError)
        draws = random._rng(generator).lognormal(mean, std, tuple(self.shape))
        return random.fill_from_host(self, draws)

    def random_(self, from_: int | None = None, /, to: int | None = None, *,
                generator: Any = None) -> Tensor:  # fmt: skip
        """Fill self with integers uniform in [from, to) (``random_(to)``: [0, to);
        ``random_()``: 0 to the dtype's largest, or 2**mantissa bits for floats)."""
        from . import random

        low, high = random.random_bounds(self, from_, to)
        draws = random._rng(generator).integers(low, high, tuple(self.shape), endpoint=True)
        return random.fill_from_host(self, draws)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Tensor:
        """Fill self with 1 with probability ``p`` (a number, or a tensor that broadcasts to
        self's shape), else 0."""
        from . import random

        probs = (
            backend.to_numpy(p.detach().expand(self.shape).array) if isinstance(p, Tensor) else p
        )
        if not numpy.all((probs >= 0) & (probs <= 1)):
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        return random.fill_from_host(self, random._rng(generator).random(tuple(self.shape)) < probs)

    def __setitem__(self, index: Any, value: Any) -> None:
        F.setitem(self, index, value)

    def __getitem__(self, index: Any) -> Tensor:
        return F.getitem(self, index)

    # ----- shape ------------------------------------------------------------------
    def reshape(self, *args: Any, shape: Any = None) -> Tensor:
        return F.reshape(self, _shape_args(args, shape, op="reshape", name="shape"))

    def view(self, *args: Any, size: Any = None, dtype: Any = None) -> Tensor:
        if dtype is not None:
            return F.view_dtype(self, dtype)
        if len(args) == 1 and not isinstance(args[0], (int, tuple, list, Size)):
            return F.view_dtype(self, args[0])  # view(dtype): the bytes read as dtype
        return F.view(self, _shape_args(args, size, op="view", name="size"))

    def view_as(self, other: Tensor) -> Tensor:
        return F.view(self, other.shape)

    def as_subclass(self, cls: type) -> Tensor:
        """This tensor seen as an instance of ``cls`` (a subclass of Tensor): the same memory
        and, through a view, the same autograd history."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(
                "Creating a Tensor subclass from a class that does not inherit from Tensor is "
                f"not possible (got {cls!r}). Make sure your class inherits from Tensor."
            )
        from .ops import shape as shape_ops

        alias = shape_ops.Reshape.apply(self, shape=self.array.shape)  # a view, in the graph
        out = cls._make(alias.array, alias.requires_grad, alias.grad_fn)
        out._version_counter, out._view = alias._version_counter, alias._view
        return out

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        """PyTorch's default implementation of the override protocol (microtorch.overrides):
        ``func(*args, **kwargs)``, its tensors returned as ``cls``; NotImplemented unless
        cls is a subclass of every type in ``types``."""
        from .overrides import default_torch_function

        return default_torch_function(cls, func, types, args, kwargs)

    def reshape_as(self, other: Tensor) -> Tensor:
        return F.reshape(self, other.shape)

    def expand(self, *args: Any, size: Any = None, implicit: bool = False) -> Tensor:
        """This tensor's size-1 dims repeated (a view) to ``size`` (-1 keeps a dim);
        ``implicit`` is PyTorch's marker for its tracer, with no effect on the result."""
        return F.expand(self, _shape_args(args, size, op="expand", name="size"))

    def expand_as(self, other: Tensor) -> Tensor:
        return F.expand(self, other.shape)

    def broadcast_to(self, *args: Any, size: Any = None) -> Tensor:
        return F.expand(self, _shape_args(args, size, op="broadcast_to", name="size"))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return F.transpose(self, dim0, dim1)

    swapdims = transpose

    def swapaxes(self, axis0: int, axis1: int) -> Tensor:
        return F.transpose(self, axis0, axis1)

    def movedim(self, source: Any, destination: Any) -> Tensor:
        return F.movedim(self, source, destination)

    moveaxis = movedim

    def flip(self, *args: Any, dims: Any = None) -> Tensor:
        return F.flip(self, _shape_args(args, dims, op="flip", name="dims"))

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        return F.narrow(self, dim, start, length)

    def narrow_copy(self, dim: int, start: int, length: int) -> Tensor:
        from . import _view_copies

        return _view_copies.narrow_copy(self, dim, start, length)

    def unbind(self, dim: int = 0) -> tuple:
        return F.unbind(self, dim)

    def index_select(self, dim: int, index: Tensor) -> Tensor:
        return F.index_select(self, dim, index)

    def scatter(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
                reduce: str | None = None) -> Tensor:  # fmt: skip
        return F.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
                 reduce: str | None = None) -> Tensor:  # fmt: skip
        return F.inplace(self, F.scatter, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return F.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return F.inplace(self, F.scatter_add, dim, index, src)

    def index_add(self, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
        return F.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
        return F.inplace(self, F.index_add, dim, index, source, alpha=alpha)

    def scatter_reduce(self, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                       include_self: bool = True) -> Tensor:  # fmt: skip
        return F.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def scatter_reduce_(self, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                        include_self: bool = True) -> Tensor:  # fmt: skip
        return F.inplace(self, F.scatter_reduce, dim, index, src, reduce, include_self=include_self)

    def index_reduce(self, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                     include_self: bool = True) -> Tensor:  # fmt: skip
        return F.index_reduce(self, dim, index, source, reduce, include_self=include_self)

    def index_reduce_(self, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                      include_self: bool = True) -> Tensor:  # fmt: skip
        return F.inplace(self, F.index_reduce, dim, index, source, reduce,
                         include_self=include_self)  # fmt: skip

    def index_put(self, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
        return F.index_put(self, indices, values, accumulate)

    def index_put_(self, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
        return F.inplace(self, F.index_put, indices, values, accumulate)

    def masked_scatter(self, mask: Tensor, source: Tensor) -> Tensor:
        return F.masked_scatter(self, mask, source)

    def masked_scatter_(self, mask: Tensor, source: Tensor) -> Tensor:
        return F.inplace(self, F.masked_scatter, mask, source)

    def as_strided(self, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
        return F.as_strided(self, size, stride, storage_offset)

    def as_strided_(self, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
        """In place: this tensor itself becomes as_strided(size, stride, storage_offset) of the
        memory it views (its values there stay)."""
        return F.inplace_view(self, F.as_strided, size, stride, storage_offset)

    def slice_inverse(self, src: Tensor, dim: int = 0, start: int | None = None,
                      end: int | None = None, step: int = 1) -> Tensor:  # fmt: skip
        """The memory this tensor views, shown with src's sizes, strides and offset (the
        inverse of src[start:end:step] along dim, when this is that slice of src)."""
        return F.slice_inverse(self, src, dim, start, end, step)

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        """The windows of ``size`` along ``dimension``, ``step`` apart, in a new last dim (a
        view of this tensor's memory)."""
        return F.unfold(self, dimension, size, step)

    def index_fill(self, dim: int, index: Tensor, value: Any) -> Tensor:
        return F.index_fill(self, dim, index, value)

    def index_fill_(self, dim: int, index: Tensor, value: Any) -> Tensor:
        return F.inplace(self, F.index_fill, dim, index, value)

    def index_copy(self, dim: int, index: Tensor, source: Tensor) -> Tensor:
        return F.index_copy(self, dim, index, source)

    def index_copy_(self, dim: int, index: Tensor, source: Tensor) -> Tensor:
        return F.inplace(self, F.index_copy, dim, index, source)

    def permute(self, *args: Any, dims: Any = None) -> Tensor:
        return F.permute(self, _shape_args(args, dims, op="permute", name="dims"))

    def unsqueeze(self, dim: int) -> Tensor:
        return F.unsqueeze(self, dim)

    def squeeze(self, *dims: Any, dim: Any = None) -> Tensor:
        """Drop dims of size 1: all of them, or those named (x.squeeze(0, 2) as in PyTorch)."""
        return F.squeeze(self, _squeeze_dims(dims, dim))

    # in-place view ops: self itself takes the new shape (and grad_fn), PyTorch's x.t_()
    def unsqueeze_(self, dim: int) -> Tensor:
        return F.inplace_view(self, F.unsqueeze, dim)

    def squeeze_(self, *dims: Any, dim: Any = None) -> Tensor:
        return F.inplace_view(self, F.squeeze, _squeeze_dims(dims, dim))

    def t_(self) -> Tensor:
        return F.inplace_view(self, F.t)

    def transpose_(self, dim0: int, dim1: int) -> Tensor:
        return F.inplace_view(self, F.transpose, dim0, dim1)

    swapdims_ = transpose_

    def swapaxes_(self, axis0: int, axis1: int) -> Tensor:
        return F.inplace_view(self, F.transpose, axis0, axis1)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return F.flatten(self, start_dim, end_dim)

    def unflatten(self, dim: int, sizes: Any) -> Tensor:
        return F.unflatten(self, dim, sizes)

    @property
    def T(self) -> Tensor:
        return F.permute(self, tuple(reversed(range(self.ndim))))

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped: the transpose of each matrix in a batch."""
        return F._conj_transpose(self, "tensor.mT")

    @property
    def mH(self) -> Tensor:
        """The conjugate transpose of each matrix in a batch: mT, as microtorch is real-only."""
        return F._conj_transpose(self, "tensor.mH")

    def adjoint(self) -> Tensor:
        """The conjugate transpose of each matrix in a batch (mT for real dtypes)."""
        return F.adjoint(self)

    @property
    def H(self) -> Tensor:
        """The conjugate transpose of a matrix (a 2-D tensor, or a 0-d one): T for reals."""
        if self.ndim not in (0, 2):
            hint = "; for batches of matrices, use tensor.mH" if self.ndim > 2 else ""
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D "
                f"tensor{hint}"
            )
        return self.T

    def t(self) -> Tensor:
        return F.t(self)

    def sum_to_size(self, *size: Any) -> Tensor:
        """Sum this tensor down to ``size``, which it must be expandable to (its gradient's
        shape for a broadcast input)."""
        return F.sum_to_size(self, _shape_args(size, op="sum_to_size", name="size"))

    def msort(self) -> Tensor:
        """The values sorted along dim 0 (sort(dim=0).values)."""
        return F.msort(self)

    def nonzero_static(self, *, size: int, fill_value: int = -1) -> Tensor:
        return F.nonzero_static(self, size=size, fill_value=fill_value)

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        return F.nonzero(self, as_tuple=as_tuple)

    def argwhere(self) -> Tensor:
        return F.argwhere(self)

    def where(self, condition: Tensor, other: Any) -> Tensor:
        return F.where(condition, self, other)

    def split(self, split_size: Any, dim: int = 0) -> tuple:
        return F.split(self, split_size, dim)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        return F.chunk(self, chunks, dim)

    def split_with_sizes(self, split_sizes: Any, dim: int = 0) -> tuple:
        from . import _view_copies

        return _view_copies.split_with_sizes(self, split_sizes, dim)

    def unsafe_split(self, split_size: Any, dim: int = 0) -> tuple:
        return F.split(self, split_size, dim)

    def unsafe_split_with_sizes(self, split_sizes: Any, dim: int = 0) -> tuple:
        from . import _view_copies

        return _view_copies.unsafe_split_with_sizes(self, split_sizes, dim)

    def unsafe_chunk(self, chunks: int, dim: int = 0) -> tuple:
        return F.chunk(self, chunks, dim)

    def repeat(self, *args: Any, repeats: Any = None) -> Tensor:
        return F.repeat(self, _shape_args(args, repeats, op="repeat", name="repeats"))

    def tile(self, *args: Any, dims: Any = None) -> Tensor:
        return F.tile(self, _shape_args(args, dims, op="tile", name="dims"))

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        return F.roll(self, shifts, dims)

    def flipud(self) -> Tensor:
        return F.flipud(self)

    def fliplr(self) -> Tensor:
        return F.fliplr(self)

    def rot90(self, k: int = 1, dims: Any = (0, 1)) -> Tensor:
        return F.rot90(self, k, dims)

    def diag(self, diagonal: int = 0) -> Tensor:
        return F.diag(self, diagonal)

    def diagflat(self, offset: int = 0) -> Tensor:
        return F.diagflat(self, offset)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        return F.diagonal(self, offset, dim1, dim2)

    def diagonal_scatter(
        self, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
    ) -> Tensor:
        return F.diagonal_scatter(self, src, offset, dim1, dim2)

    def select_scatter(self, src: Tensor, dim: int, index: int) -> Tensor:
        return F.select_scatter(self, src, dim, index)

    def slice_scatter(self, src: Tensor, dim: int = 0, start: int | None = None,
                      end: int | None = None, step: int = 1) -> Tensor:  # fmt: skip
        return F.slice_scatter(self, src, dim, start, end, step)

    def as_strided_scatter(self, src: Tensor, size: Any, stride: Any,
                           storage_offset: int | None = None) -> Tensor:  # fmt: skip
        return F.as_strided_scatter(self, src, size, stride, storage_offset)

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
        return F.diag_embed(self, offset, dim1, dim2)

    def trace(self) -> Tensor:
        return F.trace(self)

    def diff(self, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
        return F.diff(self, n, dim, prepend, append)

    def tensor_split(self, indices_or_sections: Any = None, dim: int = 0, *,
                     sections: Any = None, indices: Any = None) -> tuple:  # fmt: skip
        return F.tensor_split(self, indices_or_sections, dim, sections=sections, indices=indices)

    # x.hsplit(2), x.hsplit([1, 3]), x.hsplit(1, 3), x.hsplit(sections=2), x.hsplit(indices=[1])
    def hsplit(self, indices_or_sections: Any = None, *more_indices: int, sections: Any = None,
               indices: Any = None) -> tuple:  # fmt: skip
        cuts = _split_arguments(indices_or_sections, more_indices)
        return F.hsplit(self, cuts, sections=sections, indices=indices)

    def vsplit(self, indices_or_sections: Any = None, *more_indices: int, sections: Any = None,
               indices: Any = None) -> tuple:  # fmt: skip
        cuts = _split_arguments(indices_or_sections, more_indices)
        return F.vsplit(self, cuts, sections=sections, indices=indices)

    def dsplit(self, indices_or_sections: Any = None, *more_indices: int, sections: Any = None,
               indices: Any = None) -> tuple:  # fmt: skip
        cuts = _split_arguments(indices_or_sections, more_indices)
        return F.dsplit(self, cuts, sections=sections, indices=indices)

    def ravel(self) -> Tensor:
        return F.ravel(self)

    def select(self, dim: int, index: int) -> Tensor:
        return F.select(self, dim, index)

    def put(self, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
        return F.put(self, index, source, accumulate)

    def put_(self, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
        return F.inplace(self, F.put, index, source, accumulate)

    def take(self, index: Tensor) -> Tensor:
        return F.take(self, index)

    def unique(self, sorted: bool = True, return_inverse: bool = False,
               return_counts: bool = False, dim: int | None = None) -> Any:  # fmt: skip
        return F.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse: bool = False, return_counts: bool = False,
                           dim: int | None = None) -> Any:  # fmt: skip
        return F.unique_consecutive(self, return_inverse, return_counts, dim)

    # ----- math methods -----------------------------------------------------------
    def exp(self) -> Tensor:
        return F.exp(self)

    def log(self) -> Tensor:
        return F.log(self)

    def sqrt(self) -> Tensor:
        return F.sqrt(self)

    def rsqrt(self) -> Tensor:
        return F.rsqrt(self)

    def tanh(self) -> Tensor:
        return F.tanh(self)

    def log1p(self) -> Tensor:
        return F.log1p(self)

    def erf(self) -> Tensor:
        return F.erf(self)

    def floor(self) -> Tensor:
        return F.floor(self)

    def ceil(self) -> Tensor:
        return F.ceil(self)

    def round(self, *, decimals: int = 0) -> Tensor:
        return F.round(self, decimals=decimals)

    def trunc(self) -> Tensor:
        return F.trunc(self)

    fix = trunc

    def sign(self) -> Tensor:
        return F.sign(self)

    def sgn(self) -> Tensor:
        return F.sgn(self)

    def angle(self) -> Tensor:
        return F.angle(self)

    def isreal(self) -> Tensor:
        return F.isreal(self)

    def lerp(self, end: Any, weight: Any) -> Tensor:
        return F.lerp(self, end, weight)

    def lerp_(self, end: Any, weight: Any) -> Tensor:
        return F.inplace(self, F.lerp, end, weight)

    def isclose(self, other: Any, rtol: float = 1e-5, atol: float = 1e-8,
                equal_nan: bool = False) -> Tensor:  # fmt: skip
        return F.isclose(self, other, rtol, atol, equal_nan)

    def repeat_interleave(self, repeats: Any, dim: int | None = None, *,
                          output_size: int | None = None) -> Tensor:  # fmt: skip
        return F.repeat_interleave(self, repeats, dim, output_size=output_size)

    def sin(self) -> Tensor:
        return F.sin(self)

    def cos(self) -> Tensor:
        return F.cos(self)

    def tan(self) -> Tensor:
        return F.tan(self)

    def sinh(self) -> Tensor:
        return F.sinh(self)

    def cosh(self) -> Tensor:
        return F.cosh(self)

    def asin(self) -> Tensor:
        return F.asin(self)

    def acos(self) -> Tensor:
        return F.acos(self)

    def atan(self) -> Tensor:
        return F.atan(self)

    def asinh(self) -> Tensor:
        return F.asinh(self)

    def acosh(self) -> Tensor:
        return F.acosh(self)

    def atanh(self) -> Tensor:
        return F.atanh(self)

    def atan2(self, other: Tensor) -> Tensor:
        return F.atan2(self, other)

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def log2(self) -> Tensor:
        return F.log2(self)

    def log10(self) -> Tensor:
        return F.log10(self)

    def exp2(self) -> Tensor:
        return F.exp2(self)

    def expm1(self) -> Tensor:
        return F.expm1(self)

    def logaddexp(self, other: Tensor) -> Tensor:
        return F.logaddexp(self, other)

    def logaddexp2(self, other: Tensor) -> Tensor:
        return F.logaddexp2(self, other)

    def xlogy(self, other: Any) -> Tensor:
        return F.xlogy(self, other)

    def logit(self, eps: float | None = None) -> Tensor:
        return F.logit(self, eps)

    def erfc(self) -> Tensor:
        return F.erfc(self)

    def erfinv(self) -> Tensor:
        return F.erfinv(self)

    def lgamma(self) -> Tensor:
        return F.lgamma(self)

    def digamma(self) -> Tensor:
        return F.digamma(self)

    def igamma(self, other: Tensor) -> Tensor:
        return F.igamma(self, other)

    def igammac(self, other: Tensor) -> Tensor:
        return F.igammac(self, other)

    def polygamma(self, n: int) -> Tensor:
        return F.polygamma(n, self)

    def mvlgamma(self, p: int) -> Tensor:
        return F.mvlgamma(self, p)

    def i0(self) -> Tensor:
        return F.i0(self)

    def hypot(self, other: Tensor) -> Tensor:
        return F.hypot(self, other)

    def fmod(self, other: Any) -> Tensor:
        return F.fmod(self, other)

    def copysign(self, other: Any) -> Tensor:
        return F.copysign(self, other)

    def heaviside(self, values: Tensor) -> Tensor:
        return F.heaviside(self, values)

    def gcd(self, other: Tensor) -> Tensor:
        return F.gcd(self, other)

    def lcm(self, other: Tensor) -> Tensor:
        return F.lcm(self, other)

    def ldexp(self, other: Tensor) -> Tensor:
        return F.ldexp(self, other)

    def frexp(self) -> F.Frexp:
        return F.frexp(self)

    def nextafter(self, other: Tensor) -> Tensor:
        return F.nextafter(self, other)

    def sinc(self) -> Tensor:
        return F.sinc(self)

    def nan_to_num(self, nan: float | None = None, posinf: float | None = None,
                   neginf: float | None = None) -> Tensor:  # fmt: skip
        return F.nan_to_num(self, nan, posinf, neginf)

    def frac(self) -> Tensor:
        return F.frac(self)

    def signbit(self) -> Tensor:
        return F.signbit(self)

    def isposinf(self) -> Tensor:
        return F.isposinf(self)

    def isneginf(self) -> Tensor:
        return F.isneginf(self)

    def deg2rad(self) -> Tensor:
        return F.deg2rad(self)

    def rad2deg(self) -> Tensor:
        return F.rad2deg(self)

    def float_power(self, exponent: Any) -> Tensor:
        return F.float_power(self, exponent)

    def fmax(self, other: Tensor) -> Tensor:
        return F.fmax(self, other)

    def fmin(self, other: Tensor) -> Tensor:
        return F.fmin(self, other)

    def square(self) -> Tensor:
        return F.square(self)

    def reciprocal(self) -> Tensor:
        return F.reciprocal(self)

    def outer(self, vec2: Tensor) -> Tensor:
        return F.outer(self, vec2)

    ger = outer  # PyTorch's older name for outer

    def dot(self, tensor: Tensor) -> Tensor:
        return F.dot(self, tensor)

    def vdot(self, other: Tensor) -> Tensor:
        return F.vdot(self, other)

    def inner(self, other: Tensor) -> Tensor:
        return F.inner(self, other)

    def mv(self, vec: Tensor) -> Tensor:
        return F.mv(self, vec)

    def sigmoid(self) -> Tensor:
        return F.sigmoid(self)

    def relu(self) -> Tensor:
        return F.relu(self)

    def hardshrink(self, lambd: float = 0.5) -> Tensor:
        return F.hardshrink(self, lambd)

    def prelu(self, weight: Tensor) -> Tensor:
        return F.prelu(self, weight)

    def abs(self) -> Tensor:
        return F.abs(self)

    absolute = abs

    def neg(self) -> Tensor:
        return F.neg(self)

    def pow(self, exponent: Any) -> Tensor:
        return F.pow(self, exponent)

    def add(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return F.add(self, other, alpha=alpha)

    def sub(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return F.sub(self, other, alpha=alpha)

    def mul(self, other: Any) -> Tensor:
        return F.mul(self, other)

    def div(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        return F.div(self, other, rounding_mode=rounding_mode)

    def true_divide(self, other: Any) -> Tensor:
        return F.true_divide(self, other)

    def positive(self) -> Tensor:
        return F.positive(self)

    divide, multiply, subtract, negative = div, mul, sub, neg  # PyTorch's longer names

    def matmul(self, other: Tensor) -> Tensor:
        return F.matmul(self, other)

    def mm(self, mat2: Tensor) -> Tensor:
        return F.mm(self, mat2)

    def bmm(self, mat2: Tensor) -> Tensor:
        return F.bmm(self, mat2)

    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmm_(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.inplace(self, F.addmm, mat1, mat2, beta=beta, alpha=alpha)

    def addmv(self, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addmv_(self, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.inplace(self, F.addmv, mat, vec, beta=beta, alpha=alpha)

    def addbmm(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.inplace(self, F.addbmm, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
                 alpha: Any = 1) -> Tensor:  # fmt: skip
        return F.inplace(self, F.baddbmm, batch1, batch2, beta=beta, alpha=alpha)

    def addr(self, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addr_(self, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return F.inplace(self, F.addr, vec1, vec2, beta=beta, alpha=alpha)

    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return F.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return F.inplace(self, F.addcmul, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return F.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return F.inplace(self, F.addcdiv, tensor1, tensor2, value=value)

    def kron(self, other: Tensor) -> Tensor:
        return F.kron(self, other)

    def cross(self, other: Tensor, dim: int | None = None) -> Tensor:
        return F.cross(self, other, dim)

    def allclose(self, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8,
                 equal_nan: bool = False) -> bool:  # fmt: skip
        return F.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other: Tensor) -> bool:
        return F.equal(self, other)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:
        return F.clamp(self, min, max)

    clip = clamp

    def clamp_min(self, min: Any) -> Tensor:
        return F.clamp_min(self, min)

    def clamp_max(self, max: Any) -> Tensor:
        return F.clamp_max(self, max)

    def maximum(self, other: Tensor) -> Tensor:
        return F.maximum(self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return F.minimum(self, other)

    def masked_fill(self, mask: Tensor, value: Any) -> Tensor:
        return F.masked_fill(self, mask, value)

    def masked_select(self, mask: Tensor) -> Tensor:
        return F.masked_select(self, mask)

    def take_along_dim(self, indices: Tensor, dim: int | None = None) -> Tensor:
        return F.take_along_dim(self, indices, dim)

    def bernoulli(self, p: float | None = None, *, generator: Any = None) -> Tensor:
        from . import random

        return random.bernoulli(self, p, generator=generator)

    def tril(self, diagonal: int = 0) -> Tensor:
        return F.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        return F.triu(self, diagonal)

    def softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """F.softmax along ``dim``; ``dtype`` casts the input first."""
        return F.softmax(self, dim, dtype)

    def log_softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """F.log_softmax along ``dim``; ``dtype`` casts the input first."""
        return F.log_softmax(self, dim, dtype)

    def gather(self, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
        return F.gather(self, dim, index, sparse_grad=sparse_grad)

    # in-place forms of the math above: x.exp_() writes exp(x) into x's own memory
    def exp_(self) -> Tensor:
        return F.inplace(self, F.exp)

    def log_(self) -> Tensor:
        return F.inplace(self, F.log)

    def log1p_(self) -> Tensor:
        return F.inplace(self, F.log1p)

    def sqrt_(self) -> Tensor:
        return F.inplace(self, F.sqrt)

    def rsqrt_(self) -> Tensor:
        return F.inplace(self, F.rsqrt)

    def square_(self) -> Tensor:
        return F.inplace(self, F.square)

    def reciprocal_(self) -> Tensor:
        return F.inplace(self, F.reciprocal)

    def abs_(self) -> Tensor:
        return F.inplace(self, F.abs)

    absolute_ = abs_

    def neg_(self) -> Tensor:
        return F.inplace(self, F.neg)

    def sign_(self) -> Tensor:
        return F.inplace(self, F.sign)

    def sgn_(self) -> Tensor:
        return F.inplace(self, F.sgn)

    def sin_(self) -> Tensor:
        return F.inplace(self, F.sin)

    def cos_(self) -> Tensor:
        return F.inplace(self, F.cos)

    def tan_(self) -> Tensor:
        return F.inplace(self, F.tan)

    def sinh_(self) -> Tensor:
        return F.inplace(self, F.sinh)

    def cosh_(self) -> Tensor:
        return F.inplace(self, F.cosh)

    def asin_(self) -> Tensor:
        return F.inplace(self, F.asin)

    def acos_(self) -> Tensor:
        return F.inplace(self, F.acos)

    def atan_(self) -> Tensor:
        return F.inplace(self, F.atan)

    def asinh_(self) -> Tensor:
        return F.inplace(self, F.asinh)

    def acosh_(self) -> Tensor:
        return F.inplace(self, F.acosh)

    def atanh_(self) -> Tensor:
        return F.inplace(self, F.atanh)

    def atan2_(self, other: Tensor) -> Tensor:
        return F.inplace(self, F.atan2, other)

    arcsin_, arccos_, arctan_, arctan2_ = asin_, acos_, atan_, atan2_
    arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_

    def log2_(self) -> Tensor:
        return F.inplace(self, F.log2)

    def log10_(self) -> Tensor:
        return F.inplace(self, F.log10)

    def exp2_(self) -> Tensor:
        return F.inplace(self, F.exp2)

    def expm1_(self) -> Tensor:
        return F.inplace(self, F.expm1)

    def xlogy_(self, other: Any) -> Tensor:
        return F.inplace(self, F.xlogy, other)

    def logit_(self, eps: float | None = None) -> Tensor:
        return F.inplace(self, F.logit, eps)

    def erfc_(self) -> Tensor:
        return F.inplace(self, F.erfc)

    def erfinv_(self) -> Tensor:
        return F.inplace(self, F.erfinv)

    def lgamma_(self) -> Tensor:
        return F.inplace(self, F.lgamma)

    def digamma_(self) -> Tensor:
        return F.inplace(self, F.digamma)

    def igamma_(self, other: Tensor) -> Tensor:
        return F.inplace(self, F.igamma, other)

    def igammac_(self, other: Tensor) -> Tensor:
        return F.inplace(self, F.igammac, other)

    def hypot_(self, other: Tensor) -> Tensor:
        return F.inplace(self, F.hypot, other)

    def fmod_(self, other: Any) -> Tensor:
        return F.inplace(self, F.fmod, other)

    def copysign_(self, other: Any) -> Tensor:
        return F.inplace(self, F.copysign, other)

    def heaviside_(self, values: Tensor) -> Tensor:
        return F.inplace(self, F.heaviside, values)

    def gcd_(self, other: Tensor) -> Tensor:
        return F.inplace(self, F.gcd, other)

    def lcm_(self, other: Tensor) -> Tensor:
        return F.inplace(self, F.lcm, other)

    def ldexp_(self, other: Tensor) -> Tensor:
        return F.inplace(self, F.ldexp, other)

    def nextafter_(self, other: Tensor) -> Tensor:
        return F.inplace(self, F.nextafter, other)

    def polygamma_(self, n: int) -> Tensor:
        return F.inplace(self, Tensor.polygamma, n)  # (polygamma takes n first)

    def mvlgamma_(self, p: int) -> Tensor:
        return F.inplace(self, F.mvlgamma, p)

    def i0_(self) -> Tensor:
        return F.inplace(self, F.i0)

    def sinc_(self) -> Tensor:
        return F.inplace(self, F.sinc)

    def nan_to_num_(self, nan: float | None = None, posinf: float | None = None,
                    neginf: float | None = None) -> Tensor:  # fmt: skip
        return F.inplace(self, F.nan_to_num, nan, posinf, neginf)

    def frac_(self) -> Tensor:
        return F.inplace(self, F.frac)

    def fix_(self) -> Tensor:
        return F.inplace(self, F.trunc)

    def deg2rad_(self) -> Tensor:
        return F.inplace(self, F.deg2rad)

    def rad2deg_(self) -> Tensor:
        return F.inplace(self, F.rad2deg)

    def float_power_(self, exponent: Any) -> Tensor:
        if self.dtype is not _dtypes.float64:  # the result is float64: nowhere else to go
            raise RuntimeError(
                f"the base given to float_power_ has dtype {self.dtype} but the operation's "
                "result requires dtype float64 (as in PyTorch); use float_power() instead"
            )
        return F.inplace(self, F.float_power, exponent)

    def tanh_(self) -> Tensor:
        return F.inplace(self, F.tanh)

    def sigmoid_(self) -> Tensor:
        return F.inplace(self, F.sigmoid)

    def relu_(self) -> Tensor:
        return F.inplace(self, F.relu)

    def erf_(self) -> Tensor:
        return F.inplace(self, F.erf)

    def floor_(self) -> Tensor:
        return F.inplace(self, F.floor)

    def ceil_(self) -> Tensor:
        return F.inplace(self, F.ceil)

    def round_(self, *, decimals: int = 0) -> Tensor:
        return F.inplace(self, F.round, decimals=decimals)

    def trunc_(self) -> Tensor:
        return F.inplace(self, F.trunc)

    def tril_(self, diagonal: int = 0) -> Tensor:
        return F.inplace(self, F.tril, diagonal)

    def triu_(self, diagonal: int = 0) -> Tensor:
        return F.inplace(self, F.triu, diagonal)

    # reductions also take NumPy's axis= and keepdims= (as PyTorch's do): **numpy_style
    def sum(self, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None,
            **numpy_style: Any) -> Tensor:  # fmt: skip
        return F.sum(self, dim, keepdim, dtype=dtype, **numpy_style)

    def mean(self, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None,
             **numpy_style: Any) -> Tensor:  # fmt: skip
        return F.mean(self, dim, keepdim, dtype=dtype, **numpy_style)

    def var(self, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
            correction: Any = None, **numpy_style: Any) -> Tensor:  # fmt: skip
        return F.var(self, dim, unbiased, keepdim, correction=correction, **numpy_style)

    def std(self, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
            correction: Any = None, **numpy_style: Any) -> Tensor:  # fmt: skip
        return F.std(self, dim, unbiased, keepdim, correction=correction, **numpy_style)

    def max(self, dim: Any = NO_DIM, keepdim: bool = False, **numpy_style: Any) -> Any:
        return F.max(self, dim, keepdim, **numpy_style)

    def min(self, dim: Any = NO_DIM, keepdim: bool = False, **numpy_style: Any) -> Any:
        return F.min(self, dim, keepdim, **numpy_style)

    def amax(self, dim: Any = None, keepdim: bool = False, **numpy_style: Any) -> Tensor:
        return F.amax(self, dim, keepdim, **numpy_style)

    def amin(self, dim: Any = None, keepdim: bool = False, **numpy_style: Any) -> Tensor:
        return F.amin(self, dim, keepdim, **numpy_style)

    def prod(self, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None,
             **numpy_style: Any) -> Tensor:  # fmt: skip
        return F.prod(self, dim, keepdim, dtype=dtype, **numpy_style)

    def sort(self, *dim_descending: Any, dim: int = -1, descending: bool = False,
             stable: bool | None = None) -> Any:  # fmt: skip
        """F.sort: dim and descending positional, or all by keyword with stable=."""
        return F.sort(self, *dim_descending, dim=dim, descending=descending, stable=stable)

    def argsort(self, *dim_descending: Any, dim: int = -1, descending: bool = False,
                stable: bool | None = None) -> Tensor:  # fmt: skip
        """F.argsort: dim and descending positional, or all by keyword with stable=."""
        return F.argsort(self, *dim_descending, dim=dim, descending=descending, stable=stable)

    def argmax(self, dim: Any = None, keepdim: bool = False, **numpy_style: Any) -> Tensor:
        return F.argmax(self, dim, keepdim, **numpy_style)

    def argmin(self, dim: Any = None, keepdim: bool = False, **numpy_style: Any) -> Tensor:
        return F.argmin(self, dim, keepdim, **numpy_style)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
        return F.topk(self, k, dim, largest, sorted)

    def nansum(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
               **numpy_style: Any) -> Tensor:  # fmt: skip
        return F.nansum(self, dim, keepdim, dtype=dtype, **numpy_style)

    def nanmean(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
                **numpy_style: Any) -> Tensor:  # fmt: skip
        return F.nanmean(self, dim, keepdim, dtype=dtype, **numpy_style)

    def count_nonzero(self, *dims: Any, dim: Any = None) -> Tensor:
        """How many elements are not zero over dim (x.count_nonzero(0, 1) or dim=(0, 1))."""
        return F.count_nonzero(self, _squeeze_dims(dims, dim, "count_nonzero"))

    def median(self, dim: Any = NO_DIM, keepdim: bool = False) -> Any:
        return F.median(self, dim, keepdim)

    def nanmedian(self, dim: Any = NO_DIM, keepdim: bool = False) -> Any:
        return F.nanmedian(self, dim, keepdim)

    def mode(self, dim: int = -1, keepdim: bool = False) -> Any:
        return F.mode(self, dim, keepdim)

    def quantile(self, q: Any, dim: Any = None, keepdim: bool = False, *,
                 interpolation: str = "linear") -> Tensor:  # fmt: skip
        return F.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q: Any, dim: Any = None, keepdim: bool = False, *,
                    interpolation: str = "linear") -> Tensor:  # fmt: skip
        return F.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def cumprod(self, dim: int, *, dtype: Any = None) -> Tensor:
        return F.cumprod(self, dim, dtype=dtype)

    def cumprod_(self, dim: int, *, dtype: Any = None) -> Tensor:
        return F.inplace(self, F.cumprod, dim, dtype=dtype)

    def cummax(self, dim: int) -> Any:
        return F.cummax(self, dim)

    def cummin(self, dim: int) -> Any:
        return F.cummin(self, dim)

    def histc(self, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:
        return F.histc(self, bins, min, max)

    def histogram(self, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,
                  density: bool = False) -> Any:  # fmt: skip
        return F.histogram(self, bins, range=range, weight=weight, density=density)

    def cov(self, *, correction: int = 1, fweights: Tensor | None = None,
            aweights: Tensor | None = None) -> Tensor:  # fmt: skip
        return F.cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self) -> Tensor:
        return F.corrcoef(self)

    def bincount(self, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
        return F.bincount(self, weights, minlength)

    def renorm(self, p: Any, dim: int, maxnorm: Any) -> Tensor:
        return F.renorm(self, p, dim, maxnorm)

    def renorm_(self, p: Any, dim: int, maxnorm: Any) -> Tensor:
        return F.inplace(self, F.renorm, p, dim, maxnorm)

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False) -> Any:
        return F.kthvalue(self, k, dim, keepdim)

    def aminmax(self, *, dim: Any = None, keepdim: bool = False) -> Any:
        return F.aminmax(self, dim=dim, keepdim=keepdim)

    def all(self, dim: Any = None, keepdim: bool = False, **numpy_style: Any) -> Tensor:
        return F.all(self, dim, keepdim, **numpy_style)

    def any(self, dim: Any = None, keepdim: bool = False, **numpy_style: Any) -> Tensor:
        return F.any(self, dim, keepdim, **numpy_style)

    def isnan(self) -> Tensor:
        return F.isnan(self)

    def isinf(self) -> Tensor:
        return F.isinf(self)

    def isfinite(self) -> Tensor:
        return F.isfinite(self)

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False,
             dtype: Any = None) -> Tensor:  # fmt: skip
        return F.norm(self, p, dim, keepdim, dtype=dtype)

    # linear algebra: PyTorch's top-level names (microtorch/_linalg_names.py)
    def det(self) -> Tensor:
        from . import _linalg_names

        return _linalg_names.det(self)

    def logdet(self) -> Tensor:
        from . import _linalg_names

        return _linalg_names.logdet(self)

    def slogdet(self) -> Any:
        from . import _linalg_names

        return _linalg_names.slogdet(self)

    def inverse(self) -> Tensor:
        from . import _linalg_names

        return _linalg_names.inverse(self)

    def cholesky(self, upper: bool = False) -> Tensor:
        from . import _linalg_names

        return _linalg_names.cholesky(self, upper)

    def cholesky_solve(self, input2: Tensor, upper: bool = False) -> Tensor:
        """X with A @ X = self, A given by its Cholesky factor input2 (torch.cholesky_solve)."""
        from . import _linalg_names

        return _linalg_names.cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper: bool = False) -> Tensor:
        """The inverse of A from its Cholesky factor self (torch.cholesky_inverse)."""
        from . import _linalg_names

        return _linalg_names.cholesky_inverse(self, upper)

    def pinverse(self, rcond: float = 1e-15) -> Tensor:
        from . import _linalg_names

        return _linalg_names.pinverse(self, rcond)

    def matrix_power(self, n: int) -> Tensor:
        from . import _linalg_names

        return _linalg_names.matrix_power(self, n)

    def matrix_exp(self) -> Tensor:
        """The exponential of each square matrix (torch.matrix_exp)."""
        from . import _linalg_names

        return _linalg_names.matrix_exp(self)

    def svd(self, some: bool = True, compute_uv: bool = True) -> Any:
        from . import _linalg_names

        return _linalg_names.svd(self, some, compute_uv)

    def qr(self, some: bool = True) -> Any:
        from . import _linalg_names

        return _linalg_names.qr(self, some)

    def triangular_solve(self, A: Tensor, upper: bool = True, transpose: bool = False,
                         unitriangular: bool = False) -> Any:  # fmt: skip
        """(X, A.clone()) with A @ X = self for triangular A (torch.triangular_solve)."""
        from . import _linalg_names

        return _linalg_names.triangular_solve(self, A, upper, transpose, unitriangular)

    def lu(self, pivot: bool = True, get_infos: bool = False) -> Any:
        """(LU, pivots[, info]) of self (torch.lu)."""
        from . import _linalg_names

        return _linalg_names.lu(self, pivot, get_infos)

    def lu_solve(self, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
        """X with A @ X = self for A given as lu_factor's output (torch.lu_solve)."""
        from . import _linalg_names

        return _linalg_names.lu_solve(self, LU_data, LU_pivots)

    def geqrf(self) -> Any:
        """(a, tau): the QR of self in LAPACK's form (torch.geqrf)."""
        from . import _linalg_names

        return _linalg_names.geqrf(self)

    def orgqr(self, input2: Tensor) -> Tensor:
        """The Q of geqrf's (self, input2) (torch.orgqr)."""
        from . import _linalg_names

        return _linalg_names.orgqr(self, input2)

    def ormqr(self, input2: Tensor, input3: Tensor, left: bool = True,
              transpose: bool = False) -> Tensor:  # fmt: skip
        """Q @ input3 (or Q.mT @, @ Q, @ Q.mT) for Q of geqrf's (self, input2) (torch.ormqr)."""
        from . import _linalg_names

        return _linalg_names.ormqr(self, input2, input3, left, transpose)

    def lstsq(self, *args: Any, **kwargs: Any) -> None:
        """Removed in PyTorch 1.9: raises RuntimeError pointing to linalg.lstsq."""
        from . import _linalg_names

        return _linalg_names.lstsq(self, *args, **kwargs)

    def solve(self, *args: Any, **kwargs: Any) -> None:
        """Removed in PyTorch 1.9: raises RuntimeError pointing to linalg.solve."""
        from . import _linalg_names

        return _linalg_names.solve(self, *args, **kwargs)

    def eig(self, *args: Any, **kwargs: Any) -> None:
        """Removed in PyTorch 1.9: raises RuntimeError (linalg.eig needs complex dtypes)."""
        from . import _linalg_names

        return _linalg_names.eig(self, *args, **kwargs)

    def symeig(self, *args: Any, **kwargs: Any) -> None:
        """Removed in PyTorch 1.9: raises RuntimeError pointing to linalg.eigh."""
        from . import _linalg_names

        return _linalg_names.symeig(self, *args, **kwargs)

    def dist(self, other: Tensor, p: float = 2.0) -> Tensor:
        """The p-norm of self - other over all elements (torch.dist)."""
        return F.dist(self, other, p)

    def multinomial(self, num_samples: int, replacement: bool = False, *, generator: Any = None):
        from . import random

        return random.multinomial(self, num_samples, replacement, generator=generator)

    # new_*: a new tensor with this one's dtype and device unless given
    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
        from .factories import zeros

        return zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                     requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)  # fmt: skip

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None,
                 requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
        from .factories import ones

        return ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                    requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)  # fmt: skip

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
                 requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
        from .factories import full

        return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                    requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)  # fmt: skip

    def new_empty(self, *size: Any, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
        from .factories import empty

        return empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                     requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)  # fmt: skip

    def new(self, *args: Any) -> Tensor:
        """The legacy constructor in this tensor's dtype and device: x.new(2, 3) (sizes,
        uninitialised), x.new([1, 2]) (data), x.new() (no elements)."""
        from ._legacy_types import legacy_new

        return legacy_new(args, self.dtype, self.device, "new")

    def new_empty_strided(self, size: Any, stride: Any, *, dtype: Any = None,
                          device: Any = None, requires_grad: bool = False, layout: Any = None,
                          pin_memory: bool = False) -> Tensor:  # fmt: skip
        from .factories import empty_strided

        return empty_strided(size, stride, dtype=dtype or self.dtype, layout=layout,
                             device=device or self.device, requires_grad=requires_grad,
                             pin_memory=pin_memory)  # fmt: skip

    def new_tensor(self, data: Any, dtype: Any = None, device: Any = None,
                   requires_grad: bool = False) -> Tensor:  # fmt: skip
        # (no pin_memory=: PyTorch's docs show it, its new_tensor refuses it with TypeError)
        from .factories import tensor

        return tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                      requires_grad=requires_grad)  # fmt: skip


_LEGACY_MODULES = ("torch", "torch.cuda", "microtorch", "microtorch.cuda")
_LEGACY_TYPE_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
    "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor",
    "uint8": "ByteTensor", "bool": "BoolTensor",
}  # fmt: skip


def _torch_strides(array: Any) -> tuple:
    """An array's strides in elements, as PyTorch gives them. NumPy gives a dim that x[None]
    inserts the stride 0; PyTorch the stride unsqueeze would: the next dim's size times its
    stride (1 at the end). NumPy gives a new empty array strides 0; PyTorch contiguous ones,
    counting a size 0 as 1 (zeros(2, 0, 3): (3, 3, 1))."""
    strides = [s // array.itemsize for s in array.strides]
    fresh_empty = array.size == 0 and not any(strides)
    for d in reversed(range(array.ndim)):
        if (array.shape[d] == 1 or fresh_empty) and strides[d] == 0:
            after = strides[d + 1] * max(array.shape[d + 1], 1) if d + 1 < array.ndim else 1
            strides[d] = after
    return tuple(strides)


def _mapped(target: Tensor, others: tuple, callable: Callable, op: str) -> Tensor:
    """``target`` with each element replaced, in place, by callable(its value, the values of
    ``others`` at the same place), the others broadcast to target's shape (map_, map2_)."""
    if target.is_cuda or any(t.is_cuda for t in others):
        raise TypeError(f"{op} is only implemented on CPU tensors")
    for t in others:
        if t.dtype != target.dtype:
            raise TypeError(f"{op}: expected {target.type()} for the tensors (got {t.type()})")
        if t.ndim > target.ndim or any(
            n not in (1, m) for n, m in zip(reversed(t.shape), reversed(target.shape))
        ):
            raise RuntimeError(
                f"{op}: a tensor of shape {list(t.shape)} does not broadcast to this tensor's "
                f"shape {list(target.shape)}"
            )
    columns = [numpy.broadcast_to(t.array, target.array.shape).reshape(-1).tolist() for t in others]
    rows = zip(target.array.reshape(-1).tolist(), *columns)
    return F.inplace(target, F.python_values, [callable(*row) for row in rows])


def _resized(tensor: Tensor, sizes: tuple) -> Tensor:
    """The out-of-place resize: a reshape that must keep the number of elements."""
    n = int(numpy.prod(sizes, dtype=numpy.int64))
    if n != tensor.numel():
        raise RuntimeError(
            f"resize: requested sizes {list(sizes)} ({n} elements) but the tensor has sizes "
            f"{list(tensor.shape)} ({tensor.numel()} elements); the out-of-place resize can only "
            "change the shape, keeping the number of elements (use resize_ to grow or shrink)"
        )
    return F.reshape(tensor, sizes)


def _emptied(tensor: Tensor) -> Tensor:
    """An empty 1-D tensor of tensor's dtype and device (set_() with no source)."""
    return Tensor._make(backend.xp_of(tensor.array).empty((0,), dtype=tensor.array.dtype))


def _viewing(tensor: Tensor, source: Tensor, size: Any, stride: Any, offset: Any) -> Tensor:
    """The view set_ makes ``tensor`` into: source's memory shown with these sizes and
    strides from offset, or (size None) source itself, source[...]."""
    if size is None:
        return F.getitem(source, Ellipsis)
    return F.as_strided(source, size, stride, offset)


def _address(array: Any) -> int:
    """The memory address an array starts at (NumPy or CuPy)."""
    ptr = getattr(array.data, "ptr", None)  # CuPy: a MemoryPointer
    return array.__array_interface__["data"][0] if ptr is None else ptr


def parse_to_args(args: tuple, kwargs: dict) -> tuple:
    """The (device, dtype, copy) asked for by any form of ``to(...)`` (device and dtype may
    be None); shared by ``Tensor.to`` and ``Module.to``. After the device/dtype/tensor come
    PyTorch's two optional flags, ``non_blocking`` (a hint, nothing to do here) and
    ``copy``, positionally or by keyword."""
    device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    flags = {"non_blocking": kwargs.pop("non_blocking", False), "copy": kwargs.pop("copy", False)}
    if kwargs:
        raise TypeError(f"to(): unexpected arguments {sorted(kwargs)}")
    positional_flags = [a for a in args if isinstance(a, bool)]
    if len(positional_flags) > 2:
        raise TypeError(f"to(): at most two flags (non_blocking, copy), got {args}")
    flags.update(zip(("non_blocking", "copy"), positional_flags))
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (str, backend.device)):
            device = a
        elif a is not None and not isinstance(a, bool):
            dtype = a
    return (
        None if device is None else backend.as_device(device),
        None if dtype is None else _dtypes.get_dtype(dtype),
        bool(flags["copy"]),
    )


def clear_grads(tensors: Any, set_to_none: bool = True) -> None:
    """Forget the gradients of ``tensors`` (set ``.grad`` to None), or zero them in place;
    what ``Module.zero_grad`` and ``Optimizer.zero_grad`` do."""
    for t in tensors:
        if t.grad is None:
            continue
        if set_to_none:
            t.grad = None
        else:
            t.grad.grad_fn = None
            t.grad.array.fill(0)


from ._hooks import RemovableHandle  # noqa: E402  (here: docs/autograd.md cites lines above)


class _HookHandle(RemovableHandle):
    """What register_hook returns: ``.remove()`` takes the hook out; as a context manager
    (``with x.register_hook(fn):``) the hook is removed at the end of the block. (A
    RemovableHandle whose registry is a list, in the order the engine runs the hooks.)"""

    def __init__(self, hooks: list, hook: Callable) -> None:
        super().__init__({})
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _shape_args(args: tuple, keyword: Any = None, *, op: str, name: str) -> tuple:
    """Accept ``f(2, 3)``, ``f((2, 3))`` and PyTorch's keyword form ``f(shape=(2, 3))``.
    Nothing at all is an error, as in PyTorch (``f(())`` is the way to say "no dims")."""
    if keyword is not None:
        if args:
            raise TypeError(f"{op}: give the {name} either as arguments or by keyword, not both")
        return tuple(keyword) if isinstance(keyword, (tuple, list)) else (keyword,)
    if not args:
        raise TypeError(f'{op}() missing 1 required positional arguments: "{name}"')
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _split_arguments(first: Any, more: tuple) -> Any:
    """x.hsplit's indices as one value: x.hsplit(1, 3) is x.hsplit([1, 3])."""
    return [first, *more] if more else first


def _squeeze_dims(dims: tuple, dim: Any, op: str = "squeeze") -> Any:
    """squeeze's dims given as arguments (x.squeeze(0, 2)) or by keyword, not both."""
    if dims:
        if dim is not None:
            raise TypeError(f"{op}: give the dims either as arguments or by keyword")
        dim = dims[0] if len(dims) == 1 else dims
    return dim


def _wrap_dim(dim: int, ndim: int, op: str) -> int:
    return F.wrap_dim(dim, ndim, op)


from . import functional as F  # noqa: E402  (functional builds on Tensor)


def _compares_elementwise(other: Any) -> bool:
    """Whether == and != compare a tensor with ``other`` elementwise: a tensor, a number, a
    list or an array does; for anything else (None, a string, a dict) they return
    NotImplemented, so that Python answers False / True, as PyTorch's do."""
    return isinstance(other, (Tensor, int, float, complex, list, tuple)) or hasattr(other, "dtype")
