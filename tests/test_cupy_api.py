"""Every ``xp.NAME(...)`` call in microtorch and models/ names a function CuPy has, with
keyword arguments CuPy's function accepts.

NumPy and CuPy differ in small ways (``cupy.indices`` has no ``sparse=``, CuPy's ufuncs no
``where=``); on the CPU NumPy runs every such call happily, and tests/fake_cupy runs them
through NumPy too, so only CuPy's own signatures can catch a difference. This reads them
from an installed CuPy, which imports without a GPU (``pip install cupy-cuda12x``), and
skips where CuPy is not installed."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

cupy = pytest.importorskip("cupy")
if getattr(cupy, "__version__", "") == "0.0-fake":
    pytest.skip("tests/fake_cupy stands in for CuPy here", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent


def _xp_calls() -> list[tuple[str, str, list[str]]]:
    """(where, dotted name after ``xp.``, keyword names) for each xp call in the sources."""
    calls = []
    for path in sorted([*ROOT.glob("microtorch/**/*.py"), *ROOT.glob("models/*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            names, base = [node.func.attr], node.func.value
            while isinstance(base, ast.Attribute):  # xp.add.at(...), xp.lib.stride_tricks...
                names.insert(0, base.attr)
                base = base.value
            is_xp = isinstance(base, ast.Name) and base.id == "xp"
            is_xp_of = (isinstance(base, ast.Call) and isinstance(base.func, ast.Name)
                        and base.func.id == "xp_of")  # fmt: skip
            if is_xp or is_xp_of:
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                calls.append((where, ".".join(names), [k.arg for k in node.keywords if k.arg]))
    return calls


CALLS = _xp_calls()


def test_the_scan_finds_the_calls() -> None:
    names = {name for _, name, _ in CALLS}
    assert {"add.at", "take_along_axis", "matmul", "exp", "lib.stride_tricks.as_strided"} <= names


@pytest.mark.parametrize("where, name, keywords", CALLS, ids=[f"{w} {n}" for w, n, _ in CALLS])
def test_cupy_has_it(where: str, name: str, keywords: list[str]) -> None:
    target = cupy
    for part in name.split("."):
        assert hasattr(target, part), f"{where}: CuPy has no {name}"
        target = getattr(target, part)
    if not keywords:
        return
    parameters = _parameters(target)
    assert parameters is not None, f"CuPy's {name} tells neither signature nor docstring"
    if "**" in parameters:
        return
    unknown = [k for k in keywords if k not in parameters]
    assert not unknown, f"{where}: cupy.{name} takes no {unknown} (it takes {parameters})"


def _parameters(fn: object) -> list[str] | None:
    """Parameter names of a CuPy function ("**" for a catch-all); CuPy's ufuncs and their
    methods are compiled, and only their docstring's first line gives the signature, e.g.
    ``exp(x, /, out=None, \\*, casting='same_kind', dtype=None)``."""
    try:
        found = inspect.signature(fn).parameters.values()
        return [("**" if p.kind is p.VAR_KEYWORD else p.name) for p in found]
    except (TypeError, ValueError):
        pass
    first_line = (getattr(fn, "__doc__", None) or "").strip().splitlines()[:1]
    if not first_line or "(" not in first_line[0]:
        return None
    text = first_line[0].split("(", 1)[1].rsplit(")", 1)[0].replace("\\*", "*")
    args = ast.parse(f"def f({text}): pass").body[0].args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return names + (["**"] if args.kwarg else [])


def test_cupy_has_the_tf32_switch_backend_uses() -> None:
    """set_float32_matmul_precision goes through CuPy's compute-type switch, which is not
    in CuPy's public API: check it is still there, with the names backend.py uses."""
    linalg = cupy._core._routines_linalg
    assert _parameters(linalg.set_compute_type) == ["dtype", "compute_type"]
    assert {linalg.COMPUTE_TYPE_TF32, linalg.COMPUTE_TYPE_DEFAULT} == {7, 1}
    assert linalg.compute_type_to_str(linalg.get_compute_type("float32")) in (
        "COMPUTE_TYPE_DEFAULT",
        "COMPUTE_TYPE_TF32",
    )
