"""The ``>>>`` examples in PyTorch's own docstrings, run through microtorch.

These are the snippets users copy. At test time every example block of the installed
PyTorch's docstrings (top-level ``torch`` functions, ``Tensor`` methods, ``torch.linalg``,
``torch.special``, ``torch.nn.functional``, and the functions of ``torch.autograd``,
``autograd.graph``, ``func``, ``nn.utils`` and ``testing``) runs twice, once with ``torch``
bound to PyTorch and once with ``torch`` bound to microtorch (``import torch...`` inside an
example is read the same way; ``F``, ``nn``, ``math``, ``numpy``... are there as the
examples assume). Statement by statement, both runs must print the same (the repr of each
expression statement's value, as a doctest shows it, plus whatever it prints) and raise the
same exception type, or both none. ``x.uniform_(a, b)`` and ``x.random_(a, b)`` draw from
the shared generator below too.

Random inputs: ``torch`` is a thin namespace over the library whose ``rand``, ``randn``,
``randint``, ``randperm``, ``normal``, ``bernoulli``, ``multinomial`` (and the ``_like``
forms) draw from one NumPy generator, seeded afresh for each block, and return the
library's own tensor, so both runs see the same numbers. Every other name passes through.

Printing: microtorch's tensor repr always ends in ``dtype=..., device=...`` (on purpose,
see tests/test_repr.py) and names print as ``microtorch.`` where PyTorch prints ``torch.``.
Exactly these are normalised: each printed tensor's dtype and device must be the same
(PyTorch's left-out dtype is the one its values imply: float32, int64 or bool), then both
are removed from both texts (with the line break microtorch's longer suffix may put before
``requires_grad=``/``grad_fn=``), and ``microtorch.`` reads as ``torch.``. Everything else
is compared character for character.

Examples that need what microtorch deliberately lacks are in SKIP, each with its reason;
single statements that do are in LEFT_OUT. Statements whose output is rounding noise
(a LAPACK residual) are run but not compared (UNCOMPARED); long float32 sums are compared
with one unit of leeway in each number's last printed digit (ROUNDED). What microtorch does
not do yet is a strict xfail (NOT_YET).
"""

from __future__ import annotations

import builtins
import codeop
import contextlib
import importlib
import io
import itertools
import math
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import microtorch

from .torch_reference import needs_torch

torch = pytest.importorskip("torch")
pytestmark = needs_torch((2, 13), "the examples in its docstrings")

# -- the examples ------------------------------------------------------------------------

NAMESPACES = {  # test-id prefix: the PyTorch namespace whose docstrings are read
    "torch": "torch",
    "Tensor": "torch.Tensor",
    "linalg": "torch.linalg",
    "special": "torch.special",
    "F": "torch.nn.functional",
    "autograd": "torch.autograd",
    "autograd.graph": "torch.autograd.graph",
    "func": "torch.func",
    "nn.utils": "torch.nn.utils",
    "testing": "torch.testing",
}


def _statements(doc: str) -> list[str]:
    """The source of each ``>>>`` statement (with its ``...`` continuation lines)."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for line in doc.splitlines():
        text = line.lstrip()
        if text.startswith(">>>"):
            current = [text[4:] if text.startswith(">>> ") else text[3:]]
            found.append(current)
        elif current is not None and (text.startswith("... ") or text == "..."):
            current.append(text[4:])
        else:
            current = None
    statements: list[str] = []
    for source in ("\n".join(lines) for lines in found):
        # an indented ">>>" line, or one after an unfinished statement, goes on with it (some
        # docstrings write a statement's later lines with ">>>" where "..." belongs)
        if statements and (source[:1].isspace() or _unfinished(statements[-1])):
            statements[-1] += "\n" + source
        else:
            statements.append(source)
    return statements


def _unfinished(source: str) -> bool:
    try:
        return codeop.compile_command(source, symbol="exec") is None
    except (SyntaxError, ValueError, OverflowError):
        return False


def _collect() -> dict[str, list[str]]:
    """Test id ("torch.add", "Tensor.add_", "linalg.norm"...): its docstring's statements.
    A docstring reached under several names (aliases) runs once, under its first name."""
    blocks: dict[str, list[str]] = {}
    seen: set[str] = set()
    for prefix, module_name in NAMESPACES.items():
        owner = (
            torch.Tensor if module_name == "torch.Tensor" else importlib.import_module(module_name)
        )
        for name in sorted(dir(owner)):
            if name.startswith("_"):
                continue
            try:
                obj = getattr(owner, name)
            except Exception:
                continue
            if isinstance(obj, type) or type(obj).__name__ == "module":
                continue  # classes and modules: not in this file's scope
            doc = getattr(obj, "__doc__", None)
            if not isinstance(doc, str) or ">>>" not in doc:
                continue
            statements = _statements(doc)
            key = "\n".join(statements)
            if statements and key not in seen:
                seen.add(key)
                blocks[f"{prefix}.{name}"] = statements
    return blocks


# Examples left out, each needing what microtorch deliberately lacks (see README), or whose
# output is an address, a timing or a random draw no shim can share.
COMPLEX = "complex numbers (microtorch has no complex dtypes)"
SPARSE = "sparse tensors (microtorch has none)"
QUANTIZED = "quantized tensors (microtorch has none)"
STORAGE = "storages / untyped memory (microtorch has none)"
JIT = "TorchScript / fx / export (microtorch has none)"
EXERCISE = "an exercise left for learners (docs/exercises)"
RANDOM = "draws its own random numbers inside the op (no shared shim)"
ADDRESS = "prints an address, a timing or an uninitialised buffer"
CUDA = "needs a CUDA device (the comparison runs on the CPU)"
HIGHER = "gradients of gradients or forward-mode AD (microtorch has neither)"
SKIP: dict[str, str] = {
    **dict.fromkeys(
        """
        linalg.cholesky linalg.cholesky_ex linalg.cond linalg.eig linalg.eigh linalg.eigvals
        linalg.eigvalsh torch.adjoint torch.angle torch.complex torch.conj torch.conj_physical
        torch.imag torch.is_complex torch.isreal torch.polar torch.real torch.resolve_conj
        torch.resolve_neg torch.sgn torch.view_as_complex torch.view_as_real
        """.split(),
        COMPLEX,
    ),
    **dict.fromkeys(
        """
        Tensor.col_indices Tensor.crow_indices Tensor.sparse_mask Tensor.to_dense
        Tensor.to_sparse Tensor.to_sparse_bsc Tensor.to_sparse_bsr Tensor.to_sparse_coo
        Tensor.to_sparse_csc Tensor.to_sparse_csr torch.narrow_copy torch.sparse_bsc_tensor
        torch.sparse_bsr_tensor torch.sparse_compressed_tensor torch.sparse_coo_tensor
        torch.sparse_csc_tensor torch.sparse_csr_tensor
        """.split(),
        SPARSE,
    ),
    **dict.fromkeys(
        """
        torch.fake_quantize_per_channel_affine torch.fake_quantize_per_tensor_affine
        torch.quantize_per_channel torch.quantize_per_tensor torch.quantize_per_tensor_dynamic
        torch.quantized_batch_norm torch.quantized_max_pool1d torch.quantized_max_pool2d
        """.split(),
        QUANTIZED,
    ),
    "torch.is_storage": STORAGE,
    **dict.fromkeys(["func.functionalize", "autograd.graph.region_activation_memory_budget"], JIT),
    **dict.fromkeys(["func.hessian", "func.jacfwd", "func.jvp", "func.linearize"], HIGHER),
    **dict.fromkeys(
        ["torch.cumsum", "torch.cumulative_trapezoid", "torch.logcumsumexp", "torch.logsumexp"],
        EXERCISE,
    ),
    **dict.fromkeys(
        """
        torch.poisson F.gumbel_softmax F.fractional_max_pool2d F.fractional_max_pool3d
        testing.make_tensor
        """.split(),
        RANDOM,
    ),
    **dict.fromkeys(
        ["Tensor.new_empty", "Tensor.new_empty_strided", "torch.empty", "torch.empty_strided"],
        ADDRESS,
    ),
    "torch.set_flush_denormal": "NumPy has no flush-to-zero mode (microtorch returns False)",
    **dict.fromkeys(
        """
        torch.empty_like torch.segment_reduce nn.utils.convert_conv2d_weight_memory_format
        nn.utils.convert_conv3d_weight_memory_format
        """.split(),
        CUDA,
    ),
}

# Examples that show what microtorch does not do yet (not a deliberate lack): expected to
# fail until it does.
NOT_YET: dict[str, str] = {
    "torch.hash_tensor": "needs the uint64 dtype, which microtorch does not have",
    "autograd.graph.allow_mutation_on_saved_tensors": "not in microtorch",
}

# Statements that run (later ones use their names) but whose output is not compared: it is
# rounding noise (a residual near 0, or a value that prints as whole or not by the last bit)
# that depends on which LAPACK routine ran, or an order PyTorch leaves unspecified.
NOISE = "a rounding residual: its digits depend on the LAPACK routine"
WHOLE = "whole numbers in microtorch (NumPy's LAPACK call), off by the last bit in PyTorch"
UNCOMPARED: dict[str, dict[str, str]] = {
    "linalg.householder_product": {"torch.dist(Q, torch.linalg.qr(A).Q)": NOISE},
    "linalg.inv": {"torch.dist(A @ Ainv, torch.eye(4))": NOISE},
    "linalg.ldl_solve": {"torch.linalg.norm(A @ X - B)": NOISE},
    "linalg.norm": {"LA.norm(B.double(), -2)": NOISE},
    "linalg.pinv": {"torch.dist(Apinv @ A, torch.eye(3))": NOISE},
    "linalg.solve": {"torch.allclose(A @ X, B)": NOISE},
    "linalg.svdvals": {"torch.dist(S, torch.linalg.svd(A, full_matrices=False).S)": NOISE},
    "torch.cholesky": {"torch.dist(z, a)": NOISE},
    "torch.cholesky_inverse": {"torch.dist(torch.inverse(A), torch.cholesky_inverse(L))": NOISE},
    "torch.cholesky_solve": {"torch.dist(X, A.inverse() @ B)": NOISE},
    "torch.lu_solve": {"torch.dist(A @ x, b)": NOISE},
    "linalg.lstsq": {
        "torch.dist(X, torch.linalg.pinv(A) @ B)": NOISE,
        "torch.dist(S, torch.linalg.svdvals(A))": NOISE,
    },
    "linalg.qr": {
        "R": WHOLE,
        "torch.dist(Q @ R, A)": NOISE,
        "torch.dist(Q.mT @ Q, torch.eye(4))": NOISE,
    },
    "linalg.solve_triangular": {"torch.allclose(X @ A, B)": NOISE},
    "linalg.svd": {
        "torch.dist(A, U @ torch.diag(S) @ Vh)": NOISE,
        "torch.dist(A, U[:, :3] @ torch.diag(S) @ Vh)": NOISE,
        "torch.dist(A, U @ torch.diag_embed(S) @ Vh)": NOISE,
    },
    "torch.qr": {"r": WHOLE},
    "torch.svd": {
        "torch.dist(a, torch.mm(torch.mm(u, torch.diag(s)), v.t()))": NOISE,
        "torch.dist(a_big, torch.matmul(torch.matmul(u, torch.diag_embed(s)), v.mT))": NOISE,
    },
    "torch.from_dlpack": {"capsule": ADDRESS},
    "torch.sort": {"x.sort()": "the order of equal values without stable=True is unspecified"},
    "autograd.graph.register_multi_grad_hook": {
        "torch.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)": ADDRESS
    },
    "nn.utils.skip_init": {"m.weight": ADDRESS, "m2.weight": ADDRESS},
    "torch.vmap": {"torch.dot  # [D], [D] -> []": ADDRESS, "torch.dot  # [N], [N] -> []": ADDRESS},
}

# Statements compared with each printed number allowed one unit off in its last digit: sums of
# many float32 products, whose rounding depends on the order of the additions.
ROUNDED: dict[str, set[str]] = {
    "torch.conv1d": {"F.conv1d(inputs, filters)"},
    "torch.conv3d": {"F.conv3d(inputs, filters)"},
    "torch.conv_transpose1d": {"F.conv_transpose1d(inputs, weights)"},
    "torch.conv_transpose3d": {"F.conv_transpose3d(inputs, weights)"},
}

# Statements left out of both runs (a later one that uses their names fails in both): the
# ones matching the pattern need what microtorch lacks; the rest of the block is compared.
LEFT_OUT: dict[str, tuple[str, str]] = {
    **dict.fromkeys(
        """
        Tensor.view linalg.householder_product linalg.inv linalg.matrix_rank linalg.pinv
        torch.cholesky_inverse torch.cholesky_solve torch.is_floating_point
        torch.set_default_dtype torch.vdot
        """.split(),
        (r"complex|cfloat|\dj\b", COMPLEX),
    ),
    **dict.fromkeys(
        """
        Tensor.is_leaf Tensor.to torch.as_tensor torch.set_default_device torch.tensor
        torch.use_deterministic_algorithms
        """.split(),
        (r"cuda", CUDA),
    ),
    "func.grad": (r"grad\(grad\(", HIGHER),
    "func.jacrev": (r"jacrev\(jacrev\(", HIGHER),
}


# -- the shared random numbers -----------------------------------------------------------


def _size(size: tuple) -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3)."""
    if len(size) == 1 and (isinstance(size[0], (tuple, list)) or type(size[0]).__name__ == "Size"):
        return tuple(int(s) for s in size[0])
    return tuple(int(s) for s in size)


class Shim:
    """``torch`` in an example: the library, with its random draws taken from ``rng``."""

    def __init__(self, lib: Any, rng: np.random.Generator) -> None:
        self._lib = lib
        self._rng = rng

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lib, name)

    def _tensor(self, values: np.ndarray, dtype: Any, requires_grad: bool = False) -> Any:
        out = self._lib.tensor(values, dtype=dtype)
        return out.requires_grad_() if requires_grad else out

    def _float(self, dtype: Any) -> Any:
        return dtype if dtype is not None else self._lib.get_default_dtype()

    def rand(self, *size: Any, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Any:
        shape = _size(size) if size else _size((_["size"],))
        return self._tensor(self._rng.random(shape), self._float(dtype), requires_grad)

    def randn(self, *size: Any, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Any:
        shape = _size(size) if size else _size((_["size"],))
        return self._tensor(self._rng.standard_normal(shape), self._float(dtype), requires_grad)

    def randint(self, *args: Any, dtype: Any = None, requires_grad: bool = False, **kw: Any):
        low, high, size = (0, *args) if len(args) == 2 else args if args else (0, 0, 0)
        low, high, size = kw.get("low", low), kw.get("high", high), kw.get("size", size)
        values = self._rng.integers(low, high, _size((size,)))
        return self._tensor(values, dtype or self._lib.int64, requires_grad)

    def rand_like(self, input: Any, dtype: Any = None, requires_grad: bool = False, **_: Any):
        values = self._rng.random(tuple(input.shape))
        return self._tensor(values, dtype or input.dtype, requires_grad)

    def randn_like(self, input: Any, dtype: Any = None, requires_grad: bool = False, **_: Any):
        values = self._rng.standard_normal(tuple(input.shape))
        return self._tensor(values, dtype or input.dtype, requires_grad)

    def randint_like(self, input: Any, *args: Any, dtype: Any = None, **kw: Any) -> Any:
        low, high = (0, *args) if len(args) == 1 else args
        low, high = kw.get("low", low), kw.get("high", high)
        values = self._rng.integers(low, high, tuple(input.shape))
        return self._tensor(values, dtype or input.dtype, kw.get("requires_grad", False))

    def randperm(self, n: int, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Any:
        return self._tensor(self._rng.permutation(n), dtype or self._lib.int64, requires_grad)

    def normal(self, mean: Any = 0.0, std: Any = 1.0, size: Any = None, **kw: Any) -> Any:
        tensors = [v for v in (mean, std) if isinstance(v, self._lib.Tensor)]
        dtype = tensors[0].dtype if tensors else self._float(kw.get("dtype"))
        m, s = (v.numpy() if isinstance(v, self._lib.Tensor) else v for v in (mean, std))
        shape = _size((size,)) if size is not None else np.broadcast(m, s).shape
        values = m + s * self._rng.standard_normal(shape)
        return self._tensor(values, dtype, kw.get("requires_grad", False))

    def bernoulli(self, input: Any, p: Any = None, **_: Any) -> Any:
        probs = input.numpy() if p is None else p
        values = self._rng.random(tuple(input.shape)) < probs
        return self._tensor(values, input.dtype)

    def multinomial(self, input: Any, num_samples: int, replacement: bool = False, **_: Any):
        weights = input.numpy().astype(np.float64)
        rows = weights.reshape(-1, weights.shape[-1]) if weights.ndim else weights
        try:
            drawn = [
                self._rng.choice(len(r), num_samples, replace=replacement, p=r / r.sum())
                for r in rows
            ]
        except ValueError:  # not enough categories and the like: the library's own error
            return self._lib.multinomial(input, num_samples, replacement)
        values = np.array(drawn).reshape(*weights.shape[:-1], num_samples)
        return self._tensor(values, self._lib.int64)


@contextlib.contextmanager
def drawing_methods(lib: Any, rng: np.random.Generator) -> Iterator[None]:
    """While a block runs, ``x.uniform_(a, b)`` and ``x.random_(a, b)`` fill ``x`` from
    ``rng`` too (the only in-place draws the examples use)."""

    def uniform_(self: Any, a: float = 0.0, b: float = 1.0, **_: Any) -> Any:
        return self.copy_(lib.tensor(rng.uniform(a, b, tuple(self.shape)), dtype=self.dtype))

    def random_(self: Any, a: int, b: int | None = None, **_: Any) -> Any:
        low, high = (0, a) if b is None else (a, b)
        return self.copy_(lib.tensor(rng.integers(low, high, tuple(self.shape)), dtype=self.dtype))

    saved = {name: vars(lib.Tensor).get(name) for name in ("uniform_", "random_")}
    lib.Tensor.uniform_, lib.Tensor.random_ = uniform_, random_
    try:
        yield
    finally:
        for name, method in saved.items():
            if method is None:
                delattr(lib.Tensor, name)
            else:
                setattr(lib.Tensor, name, method)


# -- running one block -------------------------------------------------------------------


def _importer(shim: Shim) -> Callable:
    """``__import__`` for an example: ``torch`` and ``torch.x.y`` name the shim's library."""

    def imp(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level=0):
        if level or not (name == "torch" or name.startswith("torch.")):
            return builtins.__import__(name, globals, locals, fromlist, level)
        real = shim._lib.__name__ + name[len("torch") :]
        module = builtins.__import__(real, globals, locals, fromlist, level)
        return module if fromlist and name != "torch" else shim

    return imp


def _reset(lib: Any) -> None:
    """Undo what an example may have changed in the library's global settings."""
    lib.set_printoptions(profile="default")
    lib.set_default_dtype(lib.float32)
    lib.set_grad_enabled(True)
    lib.set_default_device(None)
    lib.set_flush_denormal(False)
    lib.use_deterministic_algorithms(False)


def run_block(lib: Any, statements: list[str]) -> list[str]:
    """Each statement's outcome: what it printed and its value's repr, or what it raised."""
    rng = np.random.default_rng(0)
    shim = Shim(lib, rng)
    names: dict[str, Any] = {
        "torch": shim,
        "__builtins__": dict(vars(builtins), __import__=_importer(shim)),
        "__name__": "__example__",
        # what the examples take as imported (PyTorch's doctest runs give them these too)
        "F": lib.nn.functional,
        "nn": lib.nn,
        "linalg": lib.linalg,
        "math": math,
        "numpy": np,
        "np": np,
        "io": io,
        "itertools": itertools,
    }
    outcomes = []
    try:
        with drawing_methods(lib, rng):
            for source in statements:
                outcomes.append(_run_statement(source, names))
    finally:
        _reset(lib)
    return outcomes


def _run_statement(source: str, names: dict[str, Any]) -> str:
    printed = io.StringIO()
    try:
        try:
            code, is_expression = compile(source, "<example>", "eval"), True
        except SyntaxError:
            code, is_expression = compile(source, "<example>", "exec"), False
        with contextlib.redirect_stdout(printed), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(code, names) if is_expression else exec(code, names)
            if value is not None:
                print(repr(value))
    except Exception as error:  # noqa: BLE001 (the type is what is compared)
        return printed.getvalue() + f"raises {_error_name(error)}"
    return printed.getvalue()


def _error_name(error: BaseException) -> str:
    """The PyTorch-visible exception type: the nearest builtin one (RuntimeError for
    torch's own RuntimeError subclasses, and the same for microtorch's)."""
    for cls in type(error).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(error).__name__


# -- comparing what they printed ---------------------------------------------------------

_TENSOR = re.compile(r"(?<![\w.])tensor\(")


def _tensor_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each ``tensor(...)`` in ``text``."""
    for match in _TENSOR.finditer(text):
        depth, i = 0, match.end() - 1
        for i in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
        yield match.start(), i + 1


def _implied_dtype(tensor_text: str) -> str:
    """The dtype PyTorch leaves out of a repr: the one its printed values imply."""
    values = re.split(r",\s*[a-z_]+=", tensor_text)[0]  # (not size=, requires_grad=...)
    if "True" in values or "False" in values:
        return "bool"
    if re.search(r"[\d]\.|e[+-]|nan|inf|\[\]", values):
        return "float32"
    return "int64"


def normalise(text: str, ours: bool) -> tuple[str, list[tuple[str, str]]]:
    """``text`` without the tensors' dtype and device, and those dtypes and devices."""
    text = text.replace("microtorch.", "torch.") if ours else text
    kinds, pieces, last = [], [], 0
    for start, end in _tensor_spans(text):
        part = text[start:end]
        dtype = re.search(r"dtype=torch\.(\w+)", part)
        device = re.search(r"device='([^']*)'", part)
        kinds.append(
            (
                dtype.group(1) if dtype else _implied_dtype(part),
                device.group(1) if device else "cpu",
            )
        )
        part = re.sub(r",\s*(dtype=torch\.\w+|device='[^']*')", "", part)
        part = re.sub(r",\s+(requires_grad=|grad_fn=|size=)", r", \1", part)
        pieces += [text[last:start], part]
        last = end
    return "".join(pieces) + text[last:], kinds


def _raised(outcome: str) -> bool:
    return outcome.rpartition("\n")[2].startswith("raises ")


def _compare(name: str, statements: list[str], theirs: list[str], ours: list[str]) -> None:
    uncompared = UNCOMPARED.get(name, {})
    for source, t, o in zip(statements, theirs, ours):
        if source in uncompared:
            assert _raised(t) == _raised(o), f"{name}: >>> {source}\n{t}\n{o}"
            continue
        t_text, t_kinds = normalise(t, ours=False)
        o_text, o_kinds = normalise(o, ours=True)
        where = f"{name}: >>> {source}\n--- PyTorch:\n{t}\n--- microtorch:\n{o}"
        assert t_kinds == o_kinds, f"dtype/device differ in {where}"
        if source in ROUNDED.get(name, ()):
            assert same_but_the_last_digits(t_text, o_text), where
        else:
            assert t_text == o_text, where


_NUMBER = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?")


def same_but_the_last_digits(theirs: str, ours: str) -> bool:
    """The same text, where each printed number may be one unit off in its last printed
    digit, plus float32's rounding of a long sum: 1e-6 of the largest printed magnitude
    (what the additions of a convolution's many products leave)."""
    t_parts, o_parts = _NUMBER.split(theirs), _NUMBER.split(ours)
    t_numbers, o_numbers = _NUMBER.findall(theirs), _NUMBER.findall(ours)
    if t_parts != o_parts or len(t_numbers) != len(o_numbers):
        return False
    summed = 1e-6 * max((abs(float(t)) for t in t_numbers), default=0.0)
    return all(
        abs(float(t) - float(o)) <= 1.01 * _last_digit(t) + summed
        for t, o in zip(t_numbers, o_numbers)
    )


def _last_digit(number: str) -> float:
    """The value of one unit in the last printed digit: 0.0001 for "1.2345", 0.001 for
    "1.2345e+01"."""
    mantissa, _, exponent = number.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


BLOCKS = _collect()


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_docstring_example(
    name: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.chdir(tmp_path)  # (torch.save examples write files)
    if name in SKIP:
        pytest.skip(SKIP[name])
    if name in NOT_YET:  # (it runs: once microtorch has it, the test says so)
        request.applymarker(pytest.mark.xfail(reason=NOT_YET[name], strict=True))
    statements = BLOCKS[name]
    if name in LEFT_OUT:
        statements = [s for s in statements if not re.search(LEFT_OUT[name][0], s)]
    theirs = run_block(torch, statements)
    ours = run_block(microtorch, statements)
    _compare(name, statements, theirs, ours)


@pytest.mark.skipif(not torch.__version__.startswith("2.13"), reason="lists written for 2.13")
def test_every_list_entry_names_a_collected_example() -> None:
    """The skip and comparison lists stay in step with the docstrings they were written
    from (PyTorch 2.13's)."""
    for listed in (SKIP, NOT_YET, UNCOMPARED, LEFT_OUT, ROUNDED):
        assert set(listed) <= set(BLOCKS), set(listed) - set(BLOCKS)
    for name, statements in {**UNCOMPARED, **ROUNDED}.items():
        assert set(statements) <= set(BLOCKS[name]), (name, set(statements) - set(BLOCKS[name]))


def test_rounded_numbers_may_differ_only_in_their_last_digits() -> None:
    assert same_but_the_last_digits(
        "tensor([ 1.2345e+01, -2.0000e+00])", "tensor([ 1.2346e+01, -2.0000e+00])"
    )
    assert not same_but_the_last_digits("tensor([ 1.2345e+01])", "tensor([ 1.2445e+01])")
    assert not same_but_the_last_digits("tensor([1.5, 2.])", "tensor([1.5,  2.])")


def test_the_normalisation_sees_dtype_and_layout_differences() -> None:
    """The comparison itself: a wrong dtype or a wrong layout is not normalised away."""
    ours = "tensor([1., 2.], dtype=microtorch.float64, device='cpu')"
    assert normalise(ours, ours=True)[1] != normalise("tensor([1., 2.])", ours=False)[1]
    ours = "tensor([1., 2.], dtype=microtorch.float32, device='cpu',\n       requires_grad=True)"
    assert normalise(ours, ours=True) == normalise("tensor([1., 2.], requires_grad=True)", False)
    assert normalise("tensor([1, 2])", False)[0] != normalise("tensor([ 1, 2])", False)[0]
