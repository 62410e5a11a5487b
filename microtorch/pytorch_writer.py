"""Writing checkpoints in PyTorch's zip format, so that ``torch.load`` reads them.

The archive holds (``archive/`` is the folder every entry lies in; any name works)

    archive/data.pkl          the saved object as a pickle (protocol 2); each tensor in it is
                              a call of ``torch._utils._rebuild_tensor_v2(storage, offset,
                              size, stride, requires_grad, OrderedDict())`` and each storage a
                              persistent id ("storage", torch.FloatStorage, key, location,
                              numel) naming a file below
    archive/.format_version   "1"
    archive/.storage_alignment "64": each storage's bytes start at a multiple of 64 (so that
                              ``torch.load(mmap=True)`` can map them)
    archive/byteorder         "little"
    archive/data/0, ...       each storage's elements, raw little-endian bytes
    archive/version           "3"

The pickle is written opcode by opcode here (``_PickleWriter``), not with ``pickle.dump``:
the standard pickler writes a function by importing its module to check the name, and the
names a PyTorch file needs (``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``...)
live in PyTorch, which microtorch never imports. Writing the few opcodes a checkpoint needs
also keeps what is in the file obvious: dicts, lists, tuples, numbers, strings, None, and
calls of the rebuilders that ``torch.load(weights_only=True)`` allows.

Tensors that share memory (tied weights, a view and its base) share one storage, as in
PyTorch: a view is saved as its base's elements with its offset and strides. CUDA tensors
are saved with location "cuda:N" (``torch.load(map_location="cpu")`` reads them anywhere);
their views are compacted to their own storages. NumPy arrays are pickled as NumPy pickles
them (as ``torch.save`` does; ``torch.load`` then needs ``weights_only=False`` or NumPy's
names allowed, exactly as for a file PyTorch wrote)."""

from __future__ import annotations

import collections
import io
import struct
import zipfile
from typing import Any

import numpy

from . import backend
from . import dtypes as _dtypes
from ._tensor import Size, Tensor

ALIGNMENT = 64

# microtorch's dtype name -> PyTorch's storage class for it
_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage",
    "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
}  # fmt: skip


def write(obj: Any, file: Any, check: Any) -> None:
    """Write ``obj`` to the binary file object ``file`` as PyTorch's zip checkpoint;
    ``check(obj, where)`` raises the error for a leaf no checkpoint holds."""
    writer = _PickleWriter(check)
    writer.dump(obj)
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        _add(archive, "archive/data.pkl", writer.pickle())
        _add(archive, "archive/.format_version", b"1")
        _add(archive, "archive/.storage_alignment", str(ALIGNMENT).encode())
        _add(archive, "archive/byteorder", b"little")
        for key, host in writer.storages:
            _add(archive, f"archive/data/{key}", _little_endian_bytes(host))
        _add(archive, "archive/version", b"3\n")


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    """Store ``data`` uncompressed, padded (in the local header's extra field) so that it
    starts at a multiple of ALIGNMENT bytes in the file."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    header_end = archive.fp.tell() + 30 + len(name.encode("utf-8")) + 4  # 4: the extra's head
    padding = -header_end % ALIGNMENT
    info.extra = struct.pack("<HH", 0x4246, padding) + b"Z" * padding  # "FB": padding
    archive.writestr(info, data)


def _little_endian_bytes(host: numpy.ndarray) -> bytes:
    little = host.dtype.newbyteorder("<")
    return numpy.ascontiguousarray(host, dtype=little).tobytes()


class _PickleWriter:
    """Pickle opcodes (protocol 2) for the values a checkpoint holds."""

    def __init__(self, check: Any) -> None:
        self.check = check
        self.out = io.BytesIO()
        self.memo: dict[int, int] = {}  # id(object) -> memo slot: a tensor saved twice is one
        self.keep: list = []  # the memoized objects, so that their ids stay theirs
        self.storages: list[tuple[str, numpy.ndarray]] = []  # (key, host elements) to write
        self.storage_keys: dict[Any, str] = {}  # (id(memory root), dtype) -> key

    def pickle(self) -> bytes:
        return self.out.getvalue()

    def dump(self, obj: Any) -> None:
        self.out.write(b"\x80\x02")  # PROTO 2
        self.save(obj, "obj")
        self.out.write(b".")  # STOP

    # -- plain values
    def save(self, obj: Any, where: str) -> None:
        w = self.out.write
        if obj is None:
            w(b"N")
        elif obj is True:
            w(b"\x88")
        elif obj is False:
            w(b"\x89")
        elif isinstance(obj, int):
            self.save_int(int(obj))
        elif isinstance(obj, float):
            w(b"G" + struct.pack(">d", obj))  # BINFLOAT
        elif isinstance(obj, str):
            self.save_str(obj)
        elif isinstance(obj, numpy.generic):  # a NumPy scalar: its value, as save keeps it
            self.save(obj.item(), where)
        elif isinstance(obj, Tensor):
            self.save_tensor(obj, where)
        elif backend.is_array(obj):
            self.save_ndarray(backend.to_numpy(obj), where)
        elif isinstance(obj, _dtypes.dtype):
            self.save_global("torch", obj.name)
        elif isinstance(obj, backend.device):
            self.save_call("torch", "device", (obj.type, obj.index) if obj.index is not None
                           else (obj.type,), where)  # fmt: skip
        elif isinstance(obj, dict):
            self.save_dict(obj, where)
        elif isinstance(obj, list):
            w(b"]")  # EMPTY_LIST
            if obj:
                w(b"(")  # MARK
                for i, value in enumerate(obj):
                    self.save(value, f"{where}[{i}]")
                w(b"e")  # APPENDS
        elif isinstance(obj, Size):
            self.save_call("torch", "Size", (tuple(int(n) for n in obj),), where)
        elif isinstance(obj, tuple):
            self.save_tuple(obj, where)
        elif isinstance(obj, (set, frozenset)):
            self.save_call("builtins", type(obj).__name__, (sorted(obj, key=repr),), where)
        elif isinstance(obj, bytes):  # as protocol 2 writes bytes
            self.save_call("_codecs", "encode", (obj.decode("latin1"), "latin1"), where)
        else:
            self.check(obj, where)  # raises
            raise TypeError(f"save: cannot save {where} of type {type(obj).__name__}")

    def save_int(self, n: int) -> None:
        if 0 <= n < 256:
            self.out.write(b"K" + bytes([n]))  # BININT1
        elif 0 <= n < 65536:
            self.out.write(b"M" + struct.pack("<H", n))  # BININT2
        elif -(2**31) <= n < 2**31:
            self.out.write(b"J" + struct.pack("<i", n))  # BININT
        else:
            data = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
            self.out.write(b"\x8a" + bytes([len(data)]) + data)  # LONG1

    def save_str(self, text: str) -> None:
        data = text.encode("utf-8", "surrogatepass")
        self.out.write(b"X" + struct.pack("<I", len(data)) + data)  # BINUNICODE

    def save_tuple(self, items: tuple, where: str) -> None:
        if not items:
            self.out.write(b")")  # EMPTY_TUPLE
            return
        self.out.write(b"(")  # MARK
        for i, value in enumerate(items):
            self.save(value, f"{where}[{i}]")
        self.out.write(b"t")  # TUPLE

    def save_dict(self, obj: dict, where: str) -> None:
        if isinstance(obj, (collections.OrderedDict, collections.Counter)):
            self.save_call("collections", type(obj).__name__, (), where)
        else:  # (any other dict comes back a dict, as in the npz format)
            self.out.write(b"}")  # EMPTY_DICT
        if obj:
            self.out.write(b"(")  # MARK
            for key, value in obj.items():
                self.check_key(key, where)
                self.save(key, where)
                self.save(value, f"{where}[{key!r}]")
            self.out.write(b"u")  # SETITEMS
        metadata = getattr(obj, "_metadata", None)  # a state_dict's per-module versions
        if isinstance(obj, collections.OrderedDict) and isinstance(metadata, dict):
            self.out.write(b"}(")  # the state of the dict object: {"_metadata": ...}
            self.save_str("_metadata")
            self.save(metadata, f"{where}._metadata")
            self.out.write(b"ub")  # SETITEMS, BUILD

    def check_key(self, key: Any, where: str) -> None:
        if isinstance(key, (Tensor, dict, list)) or backend.is_array(key):
            self.check(key, where, key=True)

    def save_global(self, module: str, name: str) -> None:
        self.out.write(b"c" + f"{module}\n{name}\n".encode("ascii"))  # GLOBAL

    def save_call(self, module: str, name: str, args: tuple, where: str) -> None:
        """``module.name(*args)``, as the pickle's REDUCE."""
        self.save_global(module, name)
        self.save_tuple(args, where)
        self.out.write(b"R")  # REDUCE

    def remember(self, obj: Any) -> None:
        """Memoize the object just written (BINPUT / LONG_BINPUT)."""
        slot = self.memo[id(obj)] = len(self.memo)
        self.keep.append(obj)
        self.out.write(b"q" + bytes([slot]) if slot < 256 else b"r" + struct.pack("<I", slot))

    def recall(self, obj: Any) -> bool:
        """Write a reference to ``obj`` if it was written before (BINGET / LONG_BINGET)."""
        slot = self.memo.get(id(obj))
        if slot is None:
            return False
        self.out.write(b"h" + bytes([slot]) if slot < 256 else b"j" + struct.pack("<I", slot))
        return True

    # -- tensors
    def save_tensor(self, t: Tensor, where: str) -> None:
        if self.recall(t):  # the same tensor object again (tied weights): one object back
            return
        from .nn.parameter import Parameter

        if isinstance(t, Parameter):
            self.save_global("torch._utils", "_rebuild_parameter")
            self.out.write(b"(")
            self.save_rebuild_tensor(t.array, False)
            self.out.write(b"\x88" if t.requires_grad else b"\x89")
            self.save_call("collections", "OrderedDict", (), where)  # backward hooks: none
            self.out.write(b"tR")  # TUPLE, REDUCE
        else:
            self.save_rebuild_tensor(t.array, t.requires_grad)
        self.remember(t)

    def save_rebuild_tensor(self, array: Any, requires_grad: bool) -> None:
        """``_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)``."""
        key, storage_type, location, numel, offset, strides = self.storage_of(array)
        self.save_global("torch._utils", "_rebuild_tensor_v2")
        self.out.write(b"((")  # MARK for the arguments, MARK for the persistent id
        self.save_str("storage")
        self.save_global("torch", storage_type)
        self.save_str(key)
        self.save_str(location)
        self.save_int(numel)
        self.out.write(b"tQ")  # TUPLE, BINPERSID
        self.save_int(offset)
        self.save_tuple(tuple(int(n) for n in array.shape), "shape")
        self.save_tuple(strides, "strides")
        self.out.write(b"\x88" if requires_grad else b"\x89")
        self.save_call("collections", "OrderedDict", (), "hooks")
        self.out.write(b"tR")  # TUPLE, REDUCE

    def storage_of(self, array: Any) -> tuple:
        """(key, storage class, location, numel, offset, strides) for the storage ``array``
        lies in: its memory root's elements when that is a plain C-ordered host array of the
        same dtype (so that views and their bases share it), else a compact copy of its own."""
        name = _dtypes.from_numpy_dtype(array.dtype).name
        storage_type = _STORAGE_NAMES.get(name)
        if storage_type is None:
            raise TypeError(f"save: PyTorch's format has no storage for dtype {name}")
        location = str(backend.device_of(array))
        itemsize = array.dtype.itemsize
        root = backend.memory_root(array) if isinstance(array, numpy.ndarray) else None
        byte_offset = 0
        if root is not None:
            byte_offset = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        shareable = (
            root is not None
            and root.dtype == array.dtype
            and root.flags.c_contiguous
            and byte_offset >= 0
            and byte_offset % itemsize == 0
            and all(s >= 0 and s % itemsize == 0 for s in array.strides)
        )
        if shareable:
            elements, ident = root.reshape(-1), id(root)
            offset, strides = byte_offset // itemsize, tuple(s // itemsize for s in array.strides)
        else:
            elements, ident = backend.to_numpy(array).reshape(-1), id(array)
            offset, strides = 0, _contiguous_strides(array.shape)
        key = self.storage_keys.get((ident, name))
        if key is None:
            key = self.storage_keys[(ident, name)] = str(len(self.storages))
            self.storages.append((key, elements))
            self.keep.append(root if shareable else array)
        return key, storage_type, location, int(elements.size), offset, strides

    def save_ndarray(self, array: numpy.ndarray, where: str) -> None:
        """A NumPy array as NumPy pickles it: _reconstruct(ndarray, (0,), b"b"), then its
        state (version, shape, dtype, Fortran order, raw bytes); the dtype as
        numpy.dtype(*args) with its own state."""
        if array.dtype.hasobject or array.dtype.fields is not None:
            raise TypeError(
                f"save: cannot save {where}, a NumPy array of dtype {array.dtype} (Python "
                "objects or fields): checkpoints hold plain NumPy arrays; convert it first "
                "(e.g. array.tolist(), or one array per field)"
            )
        dtype = array.dtype.newbyteorder("<")
        reconstruct = numpy.empty(0).__reduce__()[0]  # NumPy's own rebuilder (its module moved)
        self.save_global(reconstruct.__module__, reconstruct.__name__)
        self.out.write(b"(")
        self.save_global("numpy", "ndarray")
        self.save_tuple((0,), where)
        self.save(b"b", where)
        self.out.write(b"tR(")  # TUPLE, REDUCE; MARK for the state
        self.save_int(1)
        self.save_tuple(array.shape, where)
        _, dtype_args, dtype_state = dtype.__reduce__()  # e.g. ("f8", False, True), (3, "<", ...)
        self.save_call("numpy", "dtype", dtype_args, where)
        self.save(dtype_state, where)
        self.out.write(b"b\x89")  # BUILD the dtype; not Fortran-ordered
        self.save(numpy.ascontiguousarray(array, dtype=dtype).tobytes(), where)
        self.out.write(b"tb")  # TUPLE, BUILD


def _contiguous_strides(shape: tuple) -> tuple:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))
