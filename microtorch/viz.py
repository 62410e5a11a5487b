"""Pictures of the autograd graph: ``to_dot(tensor)`` writes Graphviz DOT text,
``render(tensor, "graph.svg")`` turns it into an image with Graphviz's ``dot`` program.

    loss = model(x, y)
    microtorch.viz.render(loss, "graph.svg", params=model)

What you see, drawn in the order the forward pass ran (inputs at the top, loss at the
bottom):

- blue boxes: leaf tensors (parameters named by their module path, e.g.
  ``h.0.attn.c_attn.weight``) with shape, dtype and, after ``backward()``, the shape of
  their ``.grad``;
- ellipses: ops, named like the ``grad_fn`` you see when printing a tensor
  (``MulBackward0``), with the shape and dtype of the tensor each op made;
- a green box: the tensor you asked about.

With a module (or a dict of dotted names), ops are grouped into boxes per module: an op
goes into the module its neighbouring parameters belong to. The graph does not record
which module ran an op, so this is worked out from the parameters nearest to it.
``collapse=True`` also folds repeated blocks (``h.1``, ``h.2``... after ``h.0``) into
one node each, so a deep model still fits on a page.

How the shapes of intermediate tensors are found: nodes do not store their output's
shape, so ``to_dot`` sends a zero gradient back through the graph (each node's own
``backward``, nothing is accumulated anywhere): the gradient a node receives has the
shape and dtype of its output. This needs the arrays the ops saved, so call ``to_dot``
before ``backward()``, or after ``backward(retain_graph=True)`` to see both shapes and
gradients; on a freed graph, ops whose shape cannot be found are drawn without one.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy

from . import backend
from .autograd.engine import topological_order
from .autograd.function import Function

_LEAF_COLOR = "#dbe8f6"
_OUTPUT_COLOR = "#d5f0d5"
_COLLAPSED_COLOR = "#f3e6c4"

GRAPHVIZ_INSTALL_HINT = (
    "install Graphviz: `apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` "
    "(macOS) or `conda install graphviz`"
)


def to_dot(tensor: Any, params: Any = None, *, name: str = "output", collapse: Any = False,
           shapes: bool = True) -> str:  # fmt: skip
    """The graph that produced ``tensor`` as Graphviz DOT text.

    ``params``: a Module (its ``named_parameters()`` name the leaves), a dict
    ``{name: tensor}`` (inputs may be named too), or None. ``collapse``: True folds
    repeated numbered blocks after the first; a list of module paths folds those.
    ``shapes=False`` skips finding intermediate shapes (no dry backward pass)."""
    names = _leaf_names(params)
    lines = [
        "digraph microtorch {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=10, newrank=true];',
        '  node [fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9, color="#555555"];',
    ]
    root = tensor.grad_fn
    if root is None:  # a leaf: the graph is one box
        lines.append(f"  out [{_box(name, tensor, _OUTPUT_COLOR)}];")
        lines.append("}")
        return "\n".join(lines) + "\n"

    ops = list(reversed(topological_order(root)))  # forward order: inputs first
    op_id = {fn: f"op{i}" for i, fn in enumerate(ops)}
    leaves: dict[int, Any] = {}  # id(leaf) -> leaf, in first-use order
    for fn in ops:
        for parent in fn.parents:
            if parent is not None and not isinstance(parent, Function):
                leaves.setdefault(id(parent), parent)
    leaf_id = {key: f"t{i}" for i, key in enumerate(leaves)}
    out_meta = _output_shapes(root, tensor) if shapes else {}

    # node -> module path ("" = top level): leaves by name, ops by their parameters
    modules = _module_of_ops(ops, names) if names else {}
    leaf_module = {key: names[key].rpartition(".")[0] for key in leaves if key in names}
    folded = _collapsed_prefixes(collapse, list(modules.values()) + list(leaf_module.values()))

    def fold(module: str) -> str | None:
        for prefix in folded:
            if module == prefix or module.startswith(prefix + "."):
                return prefix
        return None

    # draw: each node into the cluster of its module (or its folded block)
    node_module: dict[str, str] = {}
    node_lines: dict[str, str] = {}
    for key, leaf in leaves.items():
        nid = leaf_id[key]
        label = names.get(key, "leaf tensor")
        node_lines[nid] = f"{nid} [{_box(label, leaf, _LEAF_COLOR)}]"
        node_module[nid] = leaf_module.get(key, "")
    for fn in ops:
        nid = op_id[fn]
        node_lines[nid] = f"{nid} [{_op_attrs(fn, out_meta.get(fn))}]"
        node_module[nid] = modules.get(fn, "")

    rename: dict[str, str] = {}  # node id -> id of the folded block drawn instead
    block_ids: dict[str, str] = {}
    block_counts: dict[str, list] = {}
    for nid, module in node_module.items():
        block = fold(module)
        if block is None:
            continue
        bid = block_ids.setdefault(block, f"block{len(block_ids)}")
        rename[nid] = bid
        counts = block_counts.setdefault(block, [0, 0])
        counts[0 if nid.startswith("op") else 1] += 1
    for block, bid in block_ids.items():
        n_ops, n_leaves = block_counts[block]
        label = _escape(f"{block}\n(collapsed: {n_ops} ops, {n_leaves} parameters)")
        node_lines[bid] = (
            f'{bid} [shape=box3d, style=filled, fillcolor="{_COLLAPSED_COLOR}", label="{label}"]'
        )
        node_module[bid] = block.rpartition(".")[0]

    visible = [nid for nid in node_lines if nid not in rename]
    lines += _clusters(visible, node_module, node_lines)

    edges: list[tuple[str, str]] = []
    for fn in ops:
        target = op_id[fn]
        for parent in fn.parents:
            if parent is None:
                continue
            source = op_id[parent] if isinstance(parent, Function) else leaf_id[id(parent)]
            edges.append((rename.get(source, source), rename.get(target, target)))
    lines.append(f"  out [{_box(name, tensor, _OUTPUT_COLOR)}];")
    edges.append((rename.get(op_id[root], op_id[root]), "out"))
    seen = set()
    for source, target in edges:
        if source == target or (source, target) in seen:
            continue  # an edge inside a folded block, or a repeat
        seen.add((source, target))
        lines.append(f"  {source} -> {target};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(tensor: Any, path: str | Path, params: Any = None, **options: Any) -> Path:
    """Draw the graph behind ``tensor`` into ``path``; the format comes from the suffix
    (``.svg``, ``.png``, ``.pdf``; ``.dot`` writes the DOT text only). Needs Graphviz's
    ``dot`` program; without it the DOT text is saved next to ``path`` and a RuntimeError
    says how to install Graphviz. Options are those of ``to_dot``."""
    path = Path(path)
    text = to_dot(tensor, params, **options)
    fmt = path.suffix.lstrip(".").lower()
    if fmt == "dot":
        path.write_text(text)
        return path
    if not fmt:
        raise ValueError(f"render: give the file a suffix such as .svg or .png, got {str(path)!r}")
    dot = shutil.which("dot")
    if dot is None:
        saved = path.with_suffix(".dot")
        saved.write_text(text)
        raise RuntimeError(
            f"render: the Graphviz `dot` program was not found, so {path} was not drawn; "
            f"{GRAPHVIZ_INSTALL_HINT}. The DOT text was saved to {saved}: draw it later with "
            f"`dot -T{fmt} {saved} -o {path}`"
        )
    done = subprocess.run(
        [dot, f"-T{fmt}", "-o", str(path)], input=text, text=True, capture_output=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"render: `dot -T{fmt}` failed: {done.stderr.strip()}")
    return path


# --- labels -------------------------------------------------------------------------------
def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _shape_text(shape: tuple, dtype: Any) -> str:
    dims = ", ".join(str(s) for s in shape)
    return f"({dims}{',' if len(shape) == 1 else ''}) {numpy.dtype(dtype).name}"


def _box(label: str, tensor: Any, color: str) -> str:
    text = f"{label}\n{_shape_text(tensor.array.shape, tensor.array.dtype)}"
    if tensor._grad is not None:
        text += f"\ngrad {_shape_text(tensor._grad.array.shape, tensor._grad.array.dtype)}"
    return f'shape=box, style=filled, fillcolor="{color}", label="{_escape(text)}"'


def _op_attrs(fn: Function, meta: tuple | None) -> str:
    text = fn.name()
    if meta is not None:
        text += "\n" + _shape_text(*meta)
    output = fn.retained() if fn.retained is not None else None
    if output is not None and output._grad is not None:  # retain_grad() was called
        text += f"\ngrad {_shape_text(output._grad.array.shape, output._grad.array.dtype)}"
    return f'shape=ellipse, label="{_escape(text)}"'


def _leaf_names(params: Any) -> dict[int, str]:
    """id(tensor) -> name, from a Module, a mapping or (name, tensor) pairs."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        pairs: Iterable = params.named_parameters()
    elif isinstance(params, Mapping):
        pairs = params.items()
    else:
        pairs = params
    names: dict[int, str] = {}
    for key, t in pairs:
        if not hasattr(t, "array"):
            raise TypeError(f"to_dot: params[{key!r}] is a {type(t).__name__}, not a Tensor")
        names.setdefault(id(t), str(key))
    return names


# --- shapes by a dry backward pass --------------------------------------------------------
def _output_shapes(root: Function, tensor: Any) -> dict:
    """fn -> (shape, dtype) of the tensor each node made, from the gradients a zero
    gradient produces on its way back (see the module docstring)."""
    xp = backend.xp_of(tensor.array)
    pending = {root: xp.zeros(tensor.array.shape, dtype=tensor.array.dtype)}
    meta = {}
    with numpy.errstate(all="ignore"):
        for fn in topological_order(root):
            grad = pending.pop(fn, None)
            if grad is None:  # nothing reached it: an op above it could not run backward
                continue
            meta[fn] = (tuple(grad.shape), grad.dtype)
            try:
                grads = fn.backward(grad)
            except Exception:  # saved arrays freed by backward(), or changed in place
                continue
            if not isinstance(grads, tuple):
                grads = (grads,)
            for parent, g in zip(fn.parents, grads):
                if isinstance(parent, Function) and g is not None and parent not in pending:
                    pending[parent] = xp.asarray(g)
    return meta


# --- grouping by module -------------------------------------------------------------------
def _common_prefix(paths: Iterable[str]) -> str:
    split = [p.split(".") if p else [] for p in paths]
    if not split:
        return ""
    common = split[0]
    for parts in split[1:]:
        n = 0
        while n < min(len(common), len(parts)) and common[n] == parts[n]:
            n += 1
        common = common[:n]
    return ".".join(common)


def _majority_prefix(votes: set[str]) -> str:
    """The deepest module path that more than half of ``votes`` lie in ("" if none)."""
    best, best_depth = "", 0
    for path in votes:
        parts = path.split(".") if path else []
        for depth in range(best_depth + 1, len(parts) + 1):
            prefix = ".".join(parts[:depth])
            inside = sum(v == prefix or v.startswith(prefix + ".") for v in votes)
            if inside * 2 <= len(votes):
                break
            best, best_depth = prefix, depth
    return best


def _module_of_ops(ops: list, names: dict[int, str]) -> dict:
    """fn -> module path. An op that takes parameters belongs to their module. Any other op
    goes where most of its neighbours' votes point: each input path votes for the module of
    the parameter-taking ops nearest up that path, and the consumers for the module of the
    nearest ones downstream (an op with nothing downstream, such as the loss, stays at the
    top level). A residual ``x + attn(x)`` thus lands in its block, attention in ``attn``."""
    direct: dict = {}
    for fn in ops:
        owners = [
            names[id(p)].rpartition(".")[0]
            for p in fn.parents
            if p is not None and not isinstance(p, Function) and id(p) in names
        ]
        if owners:
            direct[fn] = _common_prefix(owners)
    consumers: dict = {fn: [] for fn in ops}
    for fn in ops:
        for parent in fn.parents:
            if isinstance(parent, Function):
                consumers[parent].append(fn)

    def nearest(starts: list, step: Any) -> set:
        """Modules of the parameter-taking ops closest to ``starts`` walking with ``step``."""
        found: set = set()
        seen = set(starts)
        frontier = deque(starts)
        while frontier and not found:
            for _ in range(len(frontier)):
                fn = frontier.popleft()
                if fn in direct:
                    found.add(direct[fn])
                    continue
                for nxt in step(fn):
                    if nxt not in seen:
                        seen.add(nxt)
                        frontier.append(nxt)
        return found

    def parents(fn: Function) -> list:
        return [p for p in fn.parents if isinstance(p, Function)]

    modules = {}
    for fn in ops:
        if fn in direct:
            modules[fn] = direct[fn]
            continue
        # one vote per input path and one for the consumers: the common module of the
        # parameter-taking ops nearest along it ("" when they share none)
        below = nearest(consumers[fn], lambda f: consumers[f])
        votes = set()
        for parent in parents(fn):
            found = nearest([parent], parents)
            if found:
                votes.add(_common_prefix(found))
        if not below or not votes:  # the loss, or an op on inputs only: top level
            modules[fn] = ""
            continue
        votes.add(_common_prefix(below))
        modules[fn] = _majority_prefix(votes)
    return modules


def _collapsed_prefixes(collapse: Any, modules: list[str]) -> list[str]:
    """Module paths to fold into one node each."""
    if not collapse:
        return []
    if collapse is not True:
        return [collapse] if isinstance(collapse, str) else list(collapse)
    # automatic: in every run of numbered siblings (h.0, h.1, ...) keep the first expanded
    blocks = set()
    for module in modules:
        parts = module.split(".")
        for depth, part in enumerate(parts):
            if part.isdigit() and part != "0":
                blocks.add(".".join(parts[: depth + 1]))
                break
    return sorted(blocks, key=lambda b: [int(p) if p.isdigit() else p for p in b.split(".")])


def _clusters(visible: list[str], node_module: dict, node_lines: dict) -> list[str]:
    """DOT lines with nodes nested in ``subgraph cluster_*`` blocks by module path."""
    tree: dict = {"nodes": [], "children": {}}
    for nid in visible:
        module = node_module.get(nid, "")
        branch = tree
        for part in module.split(".") if module else []:
            branch = branch["children"].setdefault(part, {"nodes": [], "children": {}})
        branch["nodes"].append(nid)
    lines: list[str] = []
    counter = [0]

    def emit(branch: dict, path: str, indent: str) -> None:
        for nid in branch["nodes"]:
            lines.append(f"{indent}{node_lines[nid]};")
        for part, child in branch["children"].items():
            child_path = f"{path}.{part}" if path else part
            counter[0] += 1
            lines.append(f"{indent}subgraph cluster_{counter[0]} {{")
            lines.append(
                f'{indent}  label="{_escape(child_path)}"; style="rounded,dashed"; color="#888888";'
            )
            emit(child, child_path, indent + "  ")
            lines.append(f"{indent}}}")

    emit(tree, "", "  ")
    return lines
