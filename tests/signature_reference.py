"""PyTorch's Python-visible signatures, read from what an installed PyTorch ships, and the
comparison of a microtorch function's signature with them (used by tests/test_signatures.py).

A PyTorch name may have several overloads (torch.sum(input, *, dtype) and torch.sum(input,
dim, keepdim=False, *, dtype)); microtorch has one Python function that accepts them all.
So each overload is checked on its own: every parameter it has must exist in microtorch
under the same name, at the same position where it can be passed positionally, keyword-only
where it is keyword-only in every overload, and with the same default.

Where the signatures come from:
- PyTorch functions written in Python (torch.split, F.cross_entropy, nn.Linear.__init__):
  inspect.signature;
- the C++ builtins (torch.sum, Tensor.view, F.conv2d): the type stubs PyTorch installs
  (torch/_C/_VariableFunctions.pyi, the TensorBase class of torch/_C/__init__.pyi,
  torch/nn/functional.pyi), one `def` per overload;
- builtins without a stub (torch.linalg.*, torch.special.*): the signature lines of their
  docstrings (`linalg.norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None)`).
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NO_DEFAULT = "<required>"
SOME_DEFAULT = "<a default>"  # a stub's `= ...`: optional, its value not written


@dataclass(frozen=True)
class Param:
    """One parameter: its name, kind ("positional", "keyword", "*args", "**kwargs") and its
    default as a comparable value (NO_DEFAULT when it has none)."""

    name: str
    kind: str
    default: Any = NO_DEFAULT


def _normal_default(value: Any) -> Any:
    """A default made comparable across the two libraries: literals as they are, objects
    (torch.strided, microtorch.contiguous_format) by their name without the module."""
    if value is inspect.Parameter.empty:
        return NO_DEFAULT
    if value is None or isinstance(value, (bool, int, float, str, tuple)):
        return value
    if isinstance(value, list):
        return tuple(value)
    if inspect.ismodule(value) or inspect.isroutine(value):
        return value.__name__  # pickle, F.relu: by name ("relu" is how microtorch says it)
    if type(value).__repr__ is object.__repr__:
        return f"{type(value).__name__}()"  # an object shown by its address: by its type
    text = str(value)
    for prefix in ("torch.", "microtorch."):
        text = text.removeprefix(prefix)
    return text


def _default_from_source(source: str) -> Any:
    """A default as written in a stub or a docstring (`None`, `-1`, `'mean'`, `torch.strided`)."""
    if source == "...":
        return SOME_DEFAULT
    try:
        return _normal_default(ast.literal_eval(source))
    except (ValueError, SyntaxError):
        pass
    tree = ast.parse(source, mode="eval")
    if all(isinstance(n, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator,
                          ast.unaryop)) for n in ast.walk(tree)):  # fmt: skip
        return eval(compile(tree, "<default>", "eval"))  # arithmetic only: 1.0 / 8
    return source.removeprefix("torch.")


def params_of_signature(signature: inspect.Signature, drop_self: bool = False) -> list[Param]:
    """The parameters of an inspect.Signature (a method's `self` left out when asked)."""
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
        inspect.Parameter.VAR_POSITIONAL: "*args",
        inspect.Parameter.VAR_KEYWORD: "**kwargs",
    }
    params = [
        Param(p.name, kinds[p.kind], _normal_default(p.default))
        for p in signature.parameters.values()
    ]
    if drop_self and params and params[0].kind == "positional":
        params = params[1:]
    return params


def _params_of_ast(args: ast.arguments, drop_self: bool) -> list[Param]:
    """The parameters of a parsed `def` (a stub overload or a docstring line)."""
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = []
    for arg, default in zip(positional, defaults):
        value = NO_DEFAULT if default is None else _default_from_source(ast.unparse(default))
        params.append(Param(arg.arg, "positional", value))
    if args.vararg is not None:
        params.append(Param(args.vararg.arg, "*args"))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        value = NO_DEFAULT if default is None else _default_from_source(ast.unparse(default))
        params.append(Param(arg.arg, "keyword", value))
    if args.kwarg is not None:
        params.append(Param(args.kwarg.arg, "**kwargs"))
    if drop_self and params and params[0].name == "self":
        params = params[1:]
    return params


def _torch_dir() -> Path:
    import torch

    return Path(torch.__file__).parent


@functools.cache
def _stub_overloads(relative_path: str, class_name: str | None = None) -> dict:
    """{name: [overload parameter lists]} of the `def`s in one of PyTorch's stub files (of one
    class in it when class_name is given); empty when this PyTorch ships no such stub."""
    path = _torch_dir() / relative_path
    if not path.exists():
        return {}
    body = ast.parse(path.read_text()).body
    if class_name is not None:
        body = next(
            (n.body for n in body if isinstance(n, ast.ClassDef) and n.name == class_name), []
        )
    overloads: dict[str, list[list[Param]]] = {}
    for node in body:
        if not isinstance(node, ast.FunctionDef):
            continue
        names = [a.arg for a in node.args.posonlyargs + node.args.args]
        if class_name is None and "self" in names:
            continue  # a deprecated overload (addmm(beta, self, alpha, mat1, mat2)), or
            # one for a number first (pow(self: Number, exponent)): PyTorch calls its
            # tensor argument input everywhere else
        params = _params_of_ast(node.args, drop_self=class_name is not None)
        overloads.setdefault(node.name, []).append(params)
    if class_name is not None:  # drop the methods' deprecated overloads too
        deprecated = _deprecated_method_overloads()
        for name, found in overloads.items():
            kept = [o for o in found if tuple(p.name for p in o) not in deprecated.get(name, ())]
            overloads[name] = kept or found
    return overloads


@functools.cache
def _deprecated_method_overloads() -> dict:
    """{name: parameter-name tuples} of the function overloads written with `self` first
    (the deprecated forms such as add(self, alpha, other)) that no `input`-first overload
    shares: a method overload with those names is the same deprecated form."""
    path = _torch_dir() / "_C/_VariableFunctions.pyi"
    if not path.exists():
        return {}
    with_self: dict[str, set] = {}
    with_input: dict[str, set] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef) and (node.args.posonlyargs + node.args.args):
            params = _params_of_ast(node.args, drop_self=False)
            names = tuple(p.name for p in params if p.name not in ("self", "input"))
            deprecated = any(p.name == "self" for p in params)
            (with_self if deprecated else with_input).setdefault(node.name, set()).add(names)
    return {n: found - with_input.get(n, set()) for n, found in with_self.items()}


def schema_overloads(aten_name: str) -> list[list[Param]]:
    """The overloads of the ATen operator behind a builtin (torch.linalg.pinv is
    aten::linalg_pinv), as PyTorch's argument parser exposes them: `self` is called input,
    and the `.out` overloads become an out= keyword of the others."""
    import torch

    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{aten_name}")
    except RuntimeError:
        return []

    def is_out(schema: Any) -> bool:
        return any(a.is_out for a in schema.arguments)

    has_out = any(is_out(s) for s in schemas)
    found = []
    for schema in schemas:
        if is_out(schema):
            continue
        params = []
        for a in schema.arguments:
            default = _normal_default(a.default_value) if a.has_default_value() else NO_DEFAULT
            name = "input" if a.name == "self" else a.name
            params.append(Param(name, "keyword" if a.kwarg_only else "positional", default))
        if has_out:
            params.append(Param("out", "keyword", None))
        found.append(params)
    return found


def _docstring_overloads(name: str, doc: str | None, drop_self: bool) -> list[list[Param]]:
    """The overloads written on the signature lines of a builtin's docstring (their C++ type
    words, `bool pivot=True`, left out)."""
    short = name.rsplit(".", 1)[-1]
    found = []
    lines = iter((doc or "").splitlines())
    for line in lines:
        while line.count("(") > line.count(")"):  # a signature written over several lines
            line += " " + next(lines, ")").strip()
        line = line.strip().removeprefix(".. function::").removeprefix(".. method::").strip()
        line = re.sub(r"^(torch\.)?(linalg\.|special\.|Tensor\.)?", "", line)
        match = re.match(rf"{re.escape(short)}\((.*)\)\s*(->.*)?:?$", line)
        if not match:
            continue
        text = re.sub(r"\b(?:bool|int|float|str|Tensor)\s+(?=\w)", "", match.group(1))
        try:
            tree = ast.parse(f"def f({text}): pass")
        except SyntaxError:  # e.g. arange(start=0, end, step=1): not valid Python
            continue
        found.append(_params_of_ast(tree.body[0].args, drop_self))
    return found


def torch_overloads(obj: Any, name: str, stub: tuple | list | None = None,
                    method: bool = False, aten_prefix: str | None = None) -> list[list[Param]]:  # fmt: skip
    """PyTorch's overloads of one callable: inspect.signature where PyTorch wrote it in
    Python, else the stub file's overloads, else its docstring's signature lines, else the
    ATen schemas of aten_prefix + name (given). For torch.linalg and torch.special, whose
    docstrings write names their parser does not take (linalg.cholesky(A) takes input=),
    pass aten_prefix "linalg_" / "special_" and the schemas come before the docstring."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        signature = None
    if signature is not None and not _is_opaque(params_of_signature(signature)):
        return [params_of_signature(signature, drop_self=method)]
    short = name.rsplit(".", 1)[-1]
    schemas = schema_overloads(aten_prefix + short) if aten_prefix is not None else []
    if schemas and aten_prefix:
        return schemas
    for one in [] if stub is None else stub if isinstance(stub, list) else [stub]:
        if _stub_overloads(*one).get(short):  # (the first stub file that has it)
            return [_keyword_only_as_in(o, schemas) for o in _stub_overloads(*one)[short]]
    found = _docstring_overloads(name, getattr(obj, "__doc__", None), drop_self=method)
    return [_keyword_only_as_in(o, schemas) for o in found] or schemas


def _keyword_only_as_in(overload: list[Param], schemas: list[list[Param]]) -> list[Param]:
    """A stub's or docstring's overload with the parameters that every ATen schema has
    keyword-only made keyword-only (the hand-written stubs of F.gelu, as_tensor and
    Tensor.contiguous leave out their `*`)."""
    keyword = {p.name for s in schemas for p in s if p.kind == "keyword"}
    keyword -= {p.name for s in schemas for p in s if p.kind == "positional"}
    return [Param(p.name, "keyword", p.default) if p.name in keyword and p.kind == "positional"
            else p for p in overload]  # fmt: skip


def _is_opaque(params: list[Param]) -> bool:
    """A signature that only says (*args, **kwargs): it names no parameter to compare."""
    return bool(params) and all(p.kind in ("*args", "**kwargs") for p in params)


# Defaults written differently that mean the same: PyTorch's signatures write None where
# the function then uses strided / preserve_format / contiguous_format / False, and
# microtorch writes the value itself (or the reverse).
EQUIVALENT_DEFAULTS = {
    ("layout", None, "strided"),
    ("memory_format", "preserve_format", None),
    ("memory_format", "contiguous_format", None),
    ("pin_memory", False, None),
}


def _same_default(reference: Any, ours: Any, name: str = "") -> bool:
    """Equal defaults (1 and 1.0 equal; True and 1 not; EQUIVALENT_DEFAULTS equal)."""
    if (name, ours, reference) in EQUIVALENT_DEFAULTS:
        return True
    if (name, reference, ours) in EQUIVALENT_DEFAULTS:
        return True
    if isinstance(reference, bool) or isinstance(ours, bool):
        return type(reference) is type(ours) and reference == ours
    if isinstance(reference, (list, tuple)) and isinstance(ours, (list, tuple)):
        return list(reference) == list(ours)
    return reference == ours


def differences(overloads: list[list[Param]], ours: list[Param]) -> list[str]:
    """How microtorch's parameters differ from PyTorch's overloads, one line per difference
    (empty when every overload's call is accepted with the same meaning)."""
    if _is_opaque(ours):
        return []  # parses its arguments itself (Tensor.to): checked by calling it
    by_name = {p.name: p for p in ours if p.kind in ("positional", "keyword")}
    our_positional = [p.name for p in ours if p.kind == "positional"]
    our_varargs = next((i for i, p in enumerate(ours) if p.kind == "*args"), None)
    found: list[str] = []
    keyword_somewhere: dict[str, bool] = {}
    for overload in overloads:
        index = 0
        for p in overload:
            if p.kind == "positional":
                keyword_somewhere.setdefault(p.name, True)
                keyword_somewhere[p.name] = False
                if our_varargs is not None and our_varargs <= index:
                    pass  # microtorch's *args takes it positionally
                elif p.name not in by_name:
                    found.append(f"missing parameter {p.name!r}")
                elif index >= len(our_positional) or our_positional[index] != p.name:
                    found.append(f"{p.name!r} is not positional argument {index}")
                index += 1
            elif p.kind == "keyword":
                keyword_somewhere.setdefault(p.name, True)
                if p.name not in by_name and not p.name.startswith("_"):  # (private options)
                    found.append(f"missing keyword {p.name!r}")
            elif p.kind == "*args" and our_varargs is None:
                found.append(f"no *{p.name}")
            if p.kind in ("positional", "keyword") and p.name in by_name:
                mine = by_name[p.name].default
                if p.default is NO_DEFAULT or (
                    p.default is SOME_DEFAULT and mine is not NO_DEFAULT
                ):
                    continue
                if mine is NO_DEFAULT:
                    found.append(f"{p.name!r} has no default (PyTorch: {p.default!r})")
                elif not _same_default(p.default, mine, p.name):
                    found.append(f"{p.name!r} defaults to {mine!r} (PyTorch: {p.default!r})")
    for name, keyword_only in keyword_somewhere.items():
        if keyword_only and name in by_name and by_name[name].kind == "positional":
            found.append(f"{name!r} is keyword-only in PyTorch")
    return list(dict.fromkeys(found))
