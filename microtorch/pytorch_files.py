"""Reading the checkpoints PyTorch's ``torch.save`` writes, without PyTorch and without
running code from the file.

A PyTorch ``.pt`` file (the zip format, PyTorch 1.6 and later) holds

    NAME/data.pkl     the saved object as a pickle; each tensor in it is a call of
                      ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)``
                      and each storage a reference ("persistent id") to a file below
    NAME/data/0, ...  each storage's bytes, little-endian
    NAME/byteorder    "little" or "big" (absent in old files: little)

A pickle can name any Python function to call, which is why loading an untrusted pickle can
run arbitrary code. This reader resolves only the names a checkpoint of tensors needs
(``_ALLOWED``: the tensor and parameter rebuilders, the storage and dtype names,
``OrderedDict``, ``torch.Size``, ``torch.device``, NumPy's array and scalar rebuilders) to
microtorch's own code, and refuses every other name, as ``torch.load(weights_only=True)``
does. So ``microtorch.load("ckpt.pt")`` reads a state dict, or a training checkpoint such as
nanoGPT's ({"model": ..., "optimizer": ..., "model_args": ..., "iter_num": ...}).

bfloat16 tensors become float32 (microtorch has no bfloat16; every bfloat16 value is exactly
a float32 one), with a warning. Complex and quantized tensors are refused."""

from __future__ import annotations

import codecs
import collections
import io
import pickle
import warnings
import zipfile
from typing import Any

import numpy

from . import backend
from . import dtypes as _dtypes
from ._tensor import Size, Tensor

# PyTorch's storage classes and the NumPy dtype of their elements ("bfloat16": see _storage)
_STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32",
    "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool",
}  # fmt: skip


# Classes and functions the caller allows too (serialization.add_safe_globals), by the
# "module.name" a pickle refers to them by
safe_globals: dict[str, Any] = {}

# How a file in PyTorch's format before 1.6 starts: a pickled magic number
LEGACY_MAGIC = b"\x80\x02\x8a\x0a" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little")


def is_pytorch_zip(archive: zipfile.ZipFile) -> bool:
    """Does this zip look like a file written by torch.save?"""
    return any(name.endswith("/data.pkl") or name == "data.pkl" for name in archive.namelist())


def load(archive: zipfile.ZipFile, place: Any, name: str) -> Any:
    """The object torch.save wrote into ``archive``; ``place(host_array, saved_device)``
    puts each tensor where it is to be loaded (see serialization._placer)."""
    pickle_name = next(n for n in archive.namelist() if n.endswith("data.pkl"))
    prefix = pickle_name[: -len("data.pkl")]  # "NAME/" (or "" for a bare archive)
    order = "little"
    if f"{prefix}byteorder" in archive.namelist():
        order = archive.read(f"{prefix}byteorder").decode("ascii").strip()
    reader = _Unpickler(io.BytesIO(archive.read(pickle_name)), archive, prefix, order, place)
    try:
        obj = reader.load()
    except _Refused as error:
        raise RuntimeError(f"load: {name!r} is a PyTorch checkpoint that {error}") from None
    if reader.bfloat16:
        warnings.warn(
            f"load: {name!r} holds bfloat16 tensors; microtorch has no bfloat16, so they were "
            "loaded as float32 (the same values: every bfloat16 number is a float32 number)",
            stacklevel=3,
        )
    return obj


class _Refused(Exception):
    """What a checkpoint asked for that this reader does not do (the text finishes a sentence
    that starts with the file's name)."""


class _StorageType:
    """What the pickle's ``torch.FloatStorage`` (and co.) stand for: an element dtype."""

    def __init__(self, name: str) -> None:
        self.name, self.dtype = name, _STORAGE_DTYPES[name]


class _Storage:
    """A storage's elements as a 1-D host array, and the device it was saved from."""

    def __init__(self, array: numpy.ndarray, location: str) -> None:
        self.array, self.location = array, location


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: Any, archive: zipfile.ZipFile, prefix: str, order: str,
                 place: Any) -> None:  # fmt: skip
        super().__init__(file)
        self.archive, self.prefix, self.order, self.place = archive, prefix, order, place
        self.storages: dict[str, _Storage] = {}
        self.tensors: dict[tuple, Tensor] = {}  # one tensor per view of a storage: ties survive
        self.bfloat16 = False

    def find_class(self, module: str, name: str) -> Any:
        """The object a pickle's GLOBAL names: one of ours, never an arbitrary import."""
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        if module == "torch" and name in _TORCH_DTYPES:
            return _dtypes.get_dtype(name)
        if module == "torch.nn.parameter" and name == "Parameter":
            from .nn.parameter import Parameter

            return Parameter
        if f"{module}.{name}" in safe_globals:  # the caller's own, by add_safe_globals
            return safe_globals[f"{module}.{name}"]
        module = module.replace("numpy._core", "numpy.core")  # NumPy 2's name for the module
        target = _ALLOWED.get(f"{module}.{name}")
        if target is None:
            raise _Refused(
                f"refers to {module}.{name}, which microtorch does not load: it reads tensors, "
                "parameters, state dicts and plain Python values, and runs no other code from "
                "a file (as torch.load(weights_only=True)); if you trust the file, allow it "
                f"with microtorch.serialization.add_safe_globals([{name}]), or load it in "
                "PyTorch and save the tensors you need (a state dict) instead"
            )
        return getattr(self, target) if isinstance(target, str) else target

    def persistent_load(self, pid: Any) -> _Storage:
        """A storage the pickle refers to: ('storage', type, key, location, numel)."""
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise _Refused(f"refers to a storage as {pid!r}, a form microtorch does not read")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, _StorageType):
            raise _Refused(
                f"holds a storage of type {storage_type!r}, which microtorch has no dtype for"
            )
        if key not in self.storages:
            self.storages[key] = _Storage(self._elements(storage_type, key, numel), location)
        return self.storages[key]

    def _elements(self, storage_type: _StorageType, key: str, numel: int) -> numpy.ndarray:
        raw = bytearray(self.archive.read(f"{self.prefix}data/{key}"))  # writable memory
        byte_order = "<" if self.order == "little" else ">"
        if storage_type.dtype == "bfloat16":  # the top 16 bits of a float32
            self.bfloat16 = True
            halves = numpy.frombuffer(raw, dtype=f"{byte_order}u2", count=numel)
            return (halves.astype(numpy.uint32) << 16).view(numpy.float32)
        dtype = numpy.dtype(storage_type.dtype).newbyteorder(byte_order)
        elements = numpy.frombuffer(raw, dtype=dtype, count=numel)
        return elements if dtype.isnative else elements.astype(dtype.newbyteorder("="))

    def rebuild_tensor(self, storage: _Storage, offset: int, size: tuple, stride: tuple,
                       requires_grad: bool = False, backward_hooks: Any = None,
                       metadata: Any = None) -> Tensor:  # fmt: skip
        """PyTorch's _rebuild_tensor_v2: the elements of ``storage`` at ``offset`` with this
        size and stride (in elements), as a tensor."""
        key = (id(storage), offset, tuple(size), tuple(stride), bool(requires_grad))
        if key in self.tensors:  # the same tensor saved twice (tied weights): one object
            return self.tensors[key]
        elements = storage.array
        itemsize = elements.dtype.itemsize
        host = numpy.lib.stride_tricks.as_strided(
            elements[offset:], tuple(size), tuple(s * itemsize for s in stride)
        )
        t = Tensor._make(self.place(host, storage.location))
        if requires_grad:
            t.requires_grad_(True)
        self.tensors[key] = t
        return t

    def rebuild_parameter(self, data: Tensor, requires_grad: bool, backward_hooks: Any = None,
                          state: Any = None) -> Any:  # fmt: skip
        """PyTorch's _rebuild_parameter(_with_state): a Parameter around ``data``."""
        from .nn.parameter import Parameter

        return Parameter(data, requires_grad=requires_grad)

    def rebuild_from_type(self, func: Any, new_type: Any, args: tuple, state: Any) -> Any:
        """PyTorch's _rebuild_from_type_v2 (tensor subclasses): rebuild, then the class."""
        from .nn.parameter import Parameter

        t = func(*args)
        if new_type is Parameter and not isinstance(t, Parameter):
            t = Parameter(t, requires_grad=t.requires_grad)
        return t


_numpy_core = getattr(numpy, "_core", None) or numpy.core  # (numpy.core before NumPy 2)

# The names a pickle may refer to, and what each becomes here (a str: a method of
# _Unpickler, for the ones that read storages). Anything else is refused.
_ALLOWED: dict[str, Any] = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,  # (MultiStepLR's milestones)
    "torch._utils._rebuild_tensor_v2": "rebuild_tensor",
    "torch._utils._rebuild_parameter": "rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state": "rebuild_parameter",
    "torch._tensor._rebuild_from_type_v2": "rebuild_from_type",
    "torch.Tensor": Tensor,
    "torch.Size": Size,
    "torch.device": backend.device,
    "builtins.set": set,
    "builtins.frozenset": frozenset,
    # NumPy arrays and scalars inside a checkpoint (an object array's items come through
    # find_class too, so they are held to this list as well)
    "numpy.core.multiarray._reconstruct": _numpy_core.multiarray._reconstruct,
    "numpy.core.multiarray.scalar": _numpy_core.multiarray.scalar,
    "numpy.ndarray": numpy.ndarray,
    "numpy.dtype": numpy.dtype,
    "_codecs.encode": codecs.encode,  # how protocol 2 spells bytes (an array's data)
}
# torch.float32 and co., as a pickle names them: the dtypes microtorch has
_TORCH_DTYPES = {
    "float32",
    "float64",
    "float16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
}
