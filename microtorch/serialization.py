"""Checkpoints: ``microtorch.save(obj, path)`` and ``microtorch.load(path)``.

``obj`` is any nesting of dicts, lists and tuples whose leaves are tensors, NumPy arrays,
numbers, strings, bools, None, dtypes or devices: a model's ``state_dict()``, an
optimizer's, the step count, the random generator's state...

The file is in PyTorch's zip format (``pytorch_writer.py``): ``torch.load(path)`` reads it,
with its default ``weights_only=True``, so a model trained with microtorch can be deployed
or shared with PyTorch as it is. Tensors are ``_rebuild_tensor_v2`` calls on storages kept as
raw little-endian bytes, tied weights are one object and views share their base's storage,
as in a file torch.save writes. This is the default because nothing is lost by it: every
value the earlier format held (below) it holds too, every test of saving, loading, atomicity
and the char-GPT's checkpoint resume passes with it (one assertion counted the npz's array
files; it counts the zip's storage files now), and microtorch reads it back through the same
code-free reader it uses for PyTorch's own files. One thing is as in PyTorch rather than
as before: a NumPy array in ``obj`` is pickled as NumPy pickles it (as torch.save does), so
``torch.load`` wants ``weights_only=False`` (or NumPy's names allowed) for such a file,
exactly as for one PyTorch wrote; ``microtorch.load`` reads it either way.

Earlier microtorch versions wrote a NumPy ``.npz`` archive (a zip of ``.npy`` arrays);
``save(..., _use_new_zipfile_serialization=False)`` still writes one, and ``load`` reads it:

    __manifest__.npy   the structure of ``obj`` as JSON (as uint8 bytes), where each tensor
                       is a reference such as {"tensor": "t3", "device": "cuda:0", ...}
    t0.npy, t1.npy...  one array per distinct tensor (tied weights are stored once)

Loading executes no code in either format. An npz file is read with
``numpy.load(allow_pickle=False)``. A zip file's pickle (ours, or one PyTorch's
``torch.save`` wrote) goes through a reader that rebuilds only tensors, parameters and plain
values and refuses every other name the pickle asks for (``pytorch_files.py``). So a
checkpoint from an untrusted source can at worst fail to load. Objects no checkpoint holds
(a whole Module, an arbitrary class instance, a tensor as a dict key) are refused by
``save`` in both formats, with an error naming where in ``obj`` they are.

Saving to a path is atomic: the archive is written to a temporary file in the same folder,
flushed to disk (fsync) and then renamed over the target (``os.replace``). A crash or kill
during ``save`` leaves the previous checkpoint intact, never a half-written one.
"""

from __future__ import annotations

import collections
import contextlib
import io
import json
import os
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any

import numpy

from . import backend, pytorch_files, pytorch_writer
from . import dtypes as _dtypes
from ._tensor import Size, Tensor
from ._warn import warn_user

FORMAT = "microtorch.checkpoint"
FORMAT_VERSION = 1
_MANIFEST = "__manifest__"


# ---------------------------------------------------------------- save
def save(obj: Any, f: str | os.PathLike | io.IOBase, pickle_module: Any = None,
         pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:  # fmt: skip
    """Write ``obj`` to ``f`` (a path, written atomically, or a binary file object) in
    PyTorch's zip format, which ``torch.load`` reads.

    ``_use_new_zipfile_serialization=False`` writes microtorch's own npz format instead
    (PyTorch's format before 1.6, which False means there, is a bare pickle that microtorch
    does not write). ``pickle_module`` and ``pickle_protocol`` change nothing: the pickle is
    always protocol 2 and holds only what torch.load(weights_only=True) allows."""
    if _use_new_zipfile_serialization:

        def write(fh: Any) -> None:
            pytorch_writer.write(obj, fh, _refuse)

    else:
        arrays = _npz_arrays(obj)

        def write(fh: Any) -> None:
            numpy.savez(fh, **arrays)

    if isinstance(f, (str, os.PathLike)):
        _atomic_write(os.fspath(f), write)
    elif hasattr(f, "write"):
        write(f)
    else:
        raise TypeError(f"save: expected a path or a binary file object, got {type(f).__name__}")


def _npz_arrays(obj: Any) -> dict[str, numpy.ndarray]:
    """The arrays of microtorch's npz format for ``obj``: one per distinct tensor, and the
    manifest (the structure, as JSON)."""
    arrays: dict[str, numpy.ndarray] = {}
    names: dict[int, str] = {}  # id(array) -> archive name, so a shared tensor is stored once
    root = _encode(obj, arrays, names, "obj")
    manifest = {"format": FORMAT, "version": FORMAT_VERSION, "root": root}
    manifest_bytes = json.dumps(manifest).encode("utf-8")
    arrays[_MANIFEST] = numpy.frombuffer(manifest_bytes, dtype=numpy.uint8)
    return arrays


def _encode(obj: Any, arrays: dict, names: dict, where: str) -> Any:
    """The JSON description of ``obj``; tensor data goes into ``arrays``."""
    if obj is None or isinstance(obj, (bool, str)):
        return {"value": obj}
    if isinstance(obj, (int, float)):
        return {"value": obj}
    if isinstance(obj, numpy.generic):  # a NumPy scalar: keep its value
        return {"value": obj.item()}
    if isinstance(obj, Tensor):
        from .nn.parameter import Parameter

        node = {
            "tensor": _store(obj.array, arrays, names),
            "device": str(obj.device),
            "requires_grad": bool(obj.requires_grad),
        }
        if isinstance(obj, Parameter):
            node["parameter"] = True
        return node
    if backend.is_array(obj):
        return {"ndarray": _store(obj, arrays, names)}
    if isinstance(obj, _dtypes.dtype):
        return {"dtype": obj.name}
    if isinstance(obj, backend.device):
        return {"device": str(obj)}
    if isinstance(obj, dict):
        items = []
        for key, value in obj.items():
            if isinstance(key, (Tensor, dict, list)) or backend.is_array(key):
                _refuse(key, where, key=True)
            items.append(
                [
                    _encode(key, arrays, names, where),
                    _encode(value, arrays, names, f"{where}[{key!r}]"),
                ]
            )
        if isinstance(obj, collections.OrderedDict):  # a state_dict(): it comes back one
            return {"dict": items, "ordered": True}
        return {"dict": items}
    if isinstance(obj, list):
        return {"list": [_encode(v, arrays, names, f"{where}[{i}]") for i, v in enumerate(obj)]}
    if isinstance(obj, Size):  # (a tuple too; it comes back a Size, as in PyTorch)
        return {"size": [int(n) for n in obj]}
    if isinstance(obj, tuple):
        return {"tuple": [_encode(v, arrays, names, f"{where}[{i}]") for i, v in enumerate(obj)]}
    _refuse(obj, where)


def _refuse(obj: Any, where: str, key: bool = False) -> None:
    """Raise the TypeError for ``obj`` (found at ``where``), which no checkpoint holds."""
    if key:
        raise TypeError(
            f"save: {where} has a key of type {type(obj).__name__}; keys must be strings, "
            "numbers, bools, None or tuples of them"
        )
    if hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict"):  # a Module, an optimizer
        raise TypeError(
            f"save: cannot save {where}, a whole {type(obj).__name__} (saving an object would "
            "mean running code when loading it); save its state instead, "
            f"save({where}.state_dict(), path), and load it into a new {type(obj).__name__} "
            "with load_state_dict(load(path))"
        )
    raise TypeError(
        f"save: cannot save {where} of type {type(obj).__name__}: checkpoints hold dicts, lists "
        "and tuples of tensors, arrays, numbers, strings, bools and None (no arbitrary objects, "
        "so that loading never runs code); convert it first, e.g. dataclasses.asdict(config)"
    )


def _store(array: Any, arrays: dict, names: dict) -> str:
    name = names.get(id(array))
    if name is None:
        name = names[id(array)] = f"t{len(names)}"
        arrays[name] = backend.to_numpy(array)
    return name


def _atomic_write(path: str, write: Any) -> None:
    """``write(file)`` the archive next to ``path``, fsync it, then rename it over ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"save: the folder {directory!r} for {path!r} does not exist")
    fd, tmp = tempfile.mkstemp(
        prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)  # atomic: readers see the old file or the new one, never half
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)  # make the rename itself durable


def _file_mode(path: str) -> int:
    """Keep an existing checkpoint's permissions; otherwise the usual 0o666 minus umask
    (mkstemp creates files readable by their owner only)."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. Windows cannot open folders; the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------- load
_CORRUPTION = (
    zipfile.BadZipFile,
    zlib.error,
    ValueError,
    EOFError,
    KeyError,
    UnicodeDecodeError,
    OSError,
)


def load(f: str | os.PathLike | io.IOBase, map_location: Any = None, pickle_module: Any = None,
         *, weights_only: Any = None, mmap: Any = None, **pickle_load_args: Any) -> Any:  # fmt: skip
    """Read what ``save`` wrote.

    ``map_location`` says where tensors go: None (where they were saved; CPU when CUDA is
    not available), a device such as ``"cpu"`` or ``"cuda"``, a dict from saved device to
    device (``{"cuda:0": "cpu"}``), or PyTorch's ``lambda storage, location: storage`` form
    (see ``_placer``). ``weights_only`` is taken as PyTorch takes it (any value, by its
    truth), but loading never runs code whatever it is: every load is weights-only. Like
    ``pickle_module`` and ``pickle_load_args`` (such as ``encoding=``), it changes nothing
    here; the combinations PyTorch refuses are refused (``_check_load_options``).
    ``mmap=True`` needs a path, as in PyTorch; the file is then read as without it."""
    _check_load_options(f, pickle_module, weights_only, mmap, pickle_load_args)
    place = _placer(map_location)
    name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", repr(f))
    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise FileNotFoundError(f"load: no such file: {name!r}")
    try:
        torch_file = _open_pytorch_zip(f)
        if torch_file is not None:  # written by PyTorch's torch.save: see pytorch_files
            with torch_file:
                return pytorch_files.load(torch_file, place, name)
        if _starts_with(f, pytorch_files.LEGACY_MAGIC):
            raise _NotACheckpoint(
                "it is a PyTorch file in the format before PyTorch 1.6 (one pickle, not a zip); "
                "re-save it with a recent PyTorch (torch.save(torch.load(path), path)), whose "
                "files microtorch reads"
            )
        archive = numpy.load(f, allow_pickle=False)
        if not isinstance(archive, numpy.lib.npyio.NpzFile):
            raise _NotACheckpoint("it holds a single .npy array, not a checkpoint archive")
        with archive:
            if _MANIFEST not in archive.files:
                raise _NotACheckpoint(_why_no_manifest(archive.files))
            manifest = json.loads(bytes(archive[_MANIFEST]).decode("utf-8"))
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                raise _NotACheckpoint("its manifest is not a microtorch checkpoint manifest")
            if manifest.get("version", 0) > FORMAT_VERSION:
                raise _NotACheckpoint(
                    f"it was written by a newer microtorch (format version {manifest['version']}, "
                    f"this one reads up to {FORMAT_VERSION}); upgrade microtorch"
                )
            return _Decoder(archive, place).decode(manifest["root"])
    except _NotACheckpoint as error:
        raise RuntimeError(f"load: {name!r} is not a microtorch checkpoint: {error}") from None
    except (FileNotFoundError, PermissionError, IsADirectoryError):
        raise
    except _CORRUPTION as error:
        raise RuntimeError(
            f"load: could not read checkpoint {name!r}: the file is truncated or corrupted "
            f"({type(error).__name__}: {error}). Was it copied completely? An interrupted "
            "microtorch.save never leaves a partial file, but a copy or download can."
        ) from error


# the keywords pickle.Unpickler takes, and those PyTorch's weights-only unpickler takes
_UNPICKLER_KEYWORDS = ("fix_imports", "encoding", "errors", "buffers")
_WEIGHTS_ONLY_KEYWORDS = ("encoding",)


def _check_load_options(f: Any, pickle_module: Any, weights_only: Any, mmap: Any,
                        pickle_load_args: dict) -> None:  # fmt: skip
    """Refuse what torch.load refuses of its options, with its error types: weights_only
    (True by default, unless a pickle_module is given) with a pickle_module is a
    RuntimeError, a keyword the unpickler would not take a TypeError, and mmap without a
    path a ValueError. Keywords given with weights_only warn, as in PyTorch."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError(
            "load: can not safely load weights when an explicit pickle_module is specified "
            "(as in PyTorch); leave pickle_module out, microtorch's loader runs no code anyway"
        )
    if weights_only and pickle_load_args:
        warn_user(
            "load: pickle_load_args only work with weights_only=False, as in PyTorch "
            "(microtorch's loader unpickles nothing, so they change nothing either way)"
        )
    allowed = _WEIGHTS_ONLY_KEYWORDS if weights_only else _UNPICKLER_KEYWORDS
    for name in pickle_load_args:
        if name not in allowed:
            raise TypeError(f"load() got an unexpected keyword argument {name!r}")
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("load: f must be a file path in order to use the mmap argument")


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes or functions in PyTorch files that ``load`` reads (as PyTorch's
    own ``add_safe_globals`` does for ``weights_only=True``): a checkpoint holding an
    instance of your own config dataclass, say. Each entry is the object, or (object,
    "module.name") for the name the file uses. Only for files you trust: the object is
    called (classes: built) with what the file holds."""
    for entry in safe_globals:
        obj, name = entry if isinstance(entry, tuple) else (entry, None)
        if name is None:
            name = f"{obj.__module__}.{obj.__qualname__}"
        pytorch_files.safe_globals[name] = obj


def get_safe_globals() -> list:
    """What add_safe_globals allowed so far."""
    return list(pytorch_files.safe_globals.values())


def clear_safe_globals() -> None:
    """Forget everything add_safe_globals allowed."""
    pytorch_files.safe_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list) -> Iterator[None]:
    """``with safe_globals([Config]): microtorch.load(path)``: add_safe_globals for the block."""
    before = dict(pytorch_files.safe_globals)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        pytorch_files.safe_globals.clear()
        pytorch_files.safe_globals.update(before)


class _NotACheckpoint(Exception):
    pass


def _starts_with(f: Any, prefix: bytes) -> bool:
    """Do the first bytes of ``f`` (a path or a seekable file) equal ``prefix``?"""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return file.read(len(prefix)) == prefix
    start = f.tell()
    head = f.read(len(prefix))
    f.seek(start)
    return head == prefix


def _open_pytorch_zip(f: Any) -> zipfile.ZipFile | None:
    """The zip archive torch.save wrote to ``f`` (a path or a seekable file), or None when
    ``f`` is something else (the file object is then back where it was)."""
    start = None if isinstance(f, (str, os.PathLike)) else f.tell()
    try:
        archive = zipfile.ZipFile(f)
    except zipfile.BadZipFile:
        archive = None
    if archive is not None and pytorch_files.is_pytorch_zip(archive):
        return archive
    if archive is not None:
        archive.close()
    if start is not None:
        f.seek(start)
    return None


def _why_no_manifest(files: list) -> str:
    return "it is a zip/.npz archive without microtorch's manifest"


def _placer(map_location: Any) -> Any:
    """A function (array as read, saved device string) -> the array where it is to be loaded.

    A callable ``map_location`` is PyTorch's ``map_location(storage, location)``: it gets the
    tensor on the CPU and the saved device string, and returns that tensor moved where it
    should go (``lambda storage, loc: storage`` keeps it on the CPU), or None for the
    default place."""
    if callable(map_location):
        default = _placer(None)

        def by_function(host: numpy.ndarray, saved: str) -> Any:
            moved = map_location(Tensor._make(host), saved)
            if moved is None:
                return default(host, saved)
            if not isinstance(moved, Tensor):
                raise TypeError(
                    f"load: map_location(storage, {saved!r}) returned {type(moved).__name__}; "
                    "it must return the tensor it was given, moved where it should go (or None)"
                )
            return moved.array

        return by_function
    device_for = _location_mapper(map_location)
    return lambda host, saved: backend.to_device(host, device_for(saved))


def _location_mapper(map_location: Any) -> Any:
    """A function from the saved device string to the device to load onto."""
    if map_location is None:

        def same_or_cpu(saved: str) -> backend.device:
            dev = backend.device(saved)
            if dev.type == "cuda" and not backend.cuda_is_available():
                return backend.CPU
            return dev

        return same_or_cpu
    if isinstance(map_location, (str, backend.device)):
        target = backend.as_device(map_location)
        return lambda saved: target
    if isinstance(map_location, dict):
        table = {str(backend.device(k)): backend.device(v) for k, v in map_location.items()}
        fallback = _location_mapper(None)
        return lambda saved: table.get(saved) or fallback(saved)
    raise TypeError(
        f"load: map_location must be None, a device (e.g. 'cpu'), a dict from saved device to "
        f"device or a function (storage, location) -> storage, got {type(map_location).__name__}"
    )


class _Decoder:
    def __init__(self, archive: Any, place: Any) -> None:
        self.archive, self.place = archive, place
        self.tensors: dict[tuple, Tensor] = {}  # one object per stored tensor: ties survive

    def array(self, name: str) -> numpy.ndarray:
        if not isinstance(name, str) or name not in self.archive.files:
            raise ValueError(f"the manifest refers to a missing array {name!r}")
        return self.archive[name]

    def decode(self, node: Any) -> Any:
        if not isinstance(node, dict) or len(node) == 0:
            raise ValueError(f"unexpected manifest entry {node!r}")
        if "value" in node:
            return node["value"]
        if "tensor" in node:
            return self.tensor(node)
        if "ndarray" in node:
            return self.array(node["ndarray"])
        if "dict" in node:
            kind = collections.OrderedDict if node.get("ordered") else dict
            return kind((self.decode(k), self.decode(v)) for k, v in node["dict"])
        if "list" in node:
            return [self.decode(v) for v in node["list"]]
        if "tuple" in node:
            return tuple(self.decode(v) for v in node["tuple"])
        if "size" in node:
            return Size(node["size"])
        if "dtype" in node:
            return _dtypes.get_dtype(node["dtype"])
        if "device" in node:
            return backend.device(node["device"])
        raise ValueError(f"unexpected manifest entry {node!r}")

    def tensor(self, node: dict) -> Tensor:
        key = (node["tensor"], bool(node.get("parameter")), bool(node.get("requires_grad")))
        if key in self.tensors:
            return self.tensors[key]
        host = self.array(node["tensor"])
        _dtypes.from_numpy_dtype(host.dtype)  # a dtype microtorch knows, or a clear error
        t = Tensor._make(self.place(host, node.get("device", "cpu")))
        if node.get("parameter"):
            from .nn.parameter import Parameter

            t = Parameter(t, requires_grad=bool(node.get("requires_grad")))
        elif node.get("requires_grad"):
            t.requires_grad_(True)
        self.tensors[key] = t
        return t
