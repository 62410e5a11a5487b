"""microtorch.viz: DOT text of the autograd graph, grouping by module, rendering."""

from __future__ import annotations

import re
import shutil

import pytest

import microtorch as torch
from microtorch import nn, viz
from models.transformer import GPT, GPTConfig

NODE = re.compile(r'^\s*(\w+) \[.*label="([^"]*)"\];$', re.M)
EDGE = re.compile(r"^\s*(\w+) -> (\w+);$", re.M)


def parse(dot: str) -> tuple[dict, set]:
    """{node id: label lines} and {(source label, target label)} from DOT text."""
    labels = {nid: label.split("\\n") for nid, label in NODE.findall(dot)}
    edges = {(labels[a][0], labels[b][0]) for a, b in EDGE.findall(dot)}
    return labels, edges


def test_known_graph_nodes_and_edges(device):
    x = torch.randn(2, 3, device=device, requires_grad=True)
    w = torch.randn(2, 3, device=device, requires_grad=True)
    loss = (x * w).sum()
    dot = viz.to_dot(loss, {"x": x, "w": w}, name="loss")
    assert dot.startswith("digraph microtorch {") and dot.rstrip().endswith("}")
    labels, edges = parse(dot)
    by_name = {lines[0]: lines[1:] for lines in labels.values()}
    assert by_name == {
        "x": ["(2, 3) float32"],
        "w": ["(2, 3) float32"],
        "MulBackward0": ["(2, 3) float32"],
        "SumBackward0": ["() float32"],
        "loss": ["() float32"],
    }
    assert edges == {
        ("x", "MulBackward0"),
        ("w", "MulBackward0"),
        ("MulBackward0", "SumBackward0"),
        ("SumBackward0", "loss"),
    }
    assert "shape=box" in dot and "shape=ellipse" in dot


def test_grad_shapes_after_backward():
    x = torch.randn(4, 3, requires_grad=True)
    w = torch.randn(3, 2, requires_grad=True)
    loss = (x @ w).relu().mean()
    loss.backward(retain_graph=True)
    labels, _ = parse(viz.to_dot(loss, {"x": x, "w": w}))
    by_name = {lines[0]: lines[1:] for lines in labels.values()}
    assert by_name["x"] == ["(4, 3) float32", "grad (4, 3) float32"]
    assert by_name["w"] == ["(3, 2) float32", "grad (3, 2) float32"]
    assert by_name["MatmulBackward0"] == ["(4, 2) float32"]  # retained graph: shapes known


def test_to_dot_changes_nothing():
    x = torch.randn(3, requires_grad=True)
    y = torch.exp(x * 2.0).sum()
    viz.to_dot(y)
    assert x.grad is None  # the dry backward pass accumulates nowhere
    y.backward()  # and the graph is still whole
    assert x.grad is not None


def test_freed_graph_still_draws():
    x = torch.randn(3, requires_grad=True)
    y = (x.exp() * 3.0).sum()
    y.backward()  # frees the saved arrays
    labels, edges = parse(viz.to_dot(y, {"x": x}))
    names = {lines[0] for lines in labels.values()}
    assert {"x", "ExpBackward0", "MulBackward0", "SumBackward0", "output"} <= names
    exp = next(lines for lines in labels.values() if lines[0] == "ExpBackward0")
    assert exp == ["ExpBackward0"]  # its shape needs the freed arrays: left out, no error


def test_unnamed_leaves_and_constants():
    a = torch.randn(2, requires_grad=True)
    b = torch.randn(2)  # needs no grad: not part of the graph
    labels, edges = parse(viz.to_dot(a + b))
    assert {lines[0] for lines in labels.values()} == {"leaf tensor", "AddBackward0", "output"}
    assert edges == {("leaf tensor", "AddBackward0"), ("AddBackward0", "output")}


def test_leaf_alone():
    a = torch.ones(2, 2, requires_grad=True)
    labels, edges = parse(viz.to_dot(a, name="a"))
    assert list(labels.values()) == [["a", "(2, 2) float32"]] and not edges


def test_module_parameters_named_by_path():
    model = nn.Sequential(nn.Linear(3, 5), nn.GELU(), nn.Linear(5, 2))
    out = model(torch.randn(4, 3)).sum()
    dot = viz.to_dot(out, model)
    labels, edges = parse(dot)
    names = {lines[0] for lines in labels.values()}
    assert {"0.weight", "0.bias", "2.weight", "2.bias"} <= names
    assert ("0.weight", "LinearBackward0") in edges
    assert 'label="0"' in dot and 'label="2"' in dot  # one cluster per Linear


def test_bad_params_are_explained():
    x = torch.randn(2, requires_grad=True)
    with pytest.raises(TypeError, match="not a Tensor"):
        viz.to_dot(x * 2, {"x": [1, 2]})


def _gpt_loss(n_layer: int = 2):
    config = GPTConfig(vocab_size=13, block_size=8, n_layer=n_layer, n_head=2, n_embd=16)
    model = GPT(config)
    idx = torch.randint(0, 13, (2, 8))
    _, loss = model(idx, idx)
    return model, loss


def _cluster_of(dot: str, node_label: str) -> list[str]:
    """The labels of the clusters enclosing the first node with this label, outermost first."""
    return _clusters_around(dot, lambda line: f'label="{node_label}' in line, node_label)


def _cluster_of_id(dot: str, nid: str) -> list[str]:
    return _clusters_around(dot, lambda line: line.strip().startswith(f"{nid} ["), nid)


def _clusters_around(dot: str, is_node, what: str) -> list[str]:
    """The cluster labels around the first line for which ``is_node`` holds."""
    stack = []
    for line in dot.splitlines():
        if "subgraph cluster_" in line:
            stack.append(None)
        elif line.strip().startswith("label=") and stack and stack[-1] is None:
            stack[-1] = re.search(r'label="([^"]*)"', line).group(1)
        elif line.strip() == "}" and stack:
            stack.pop()
        elif is_node(line):
            return list(stack)
    raise AssertionError(f"no node {what}")


def test_transformer_block_is_grouped_by_module():
    model, loss = _gpt_loss()
    dot = viz.to_dot(loss, model)
    labels, edges = parse(dot)
    names = {lines[0] for lines in labels.values()}
    assert {"wte.weight", "h.0.attn.c_attn.weight", "h.1.mlp.c_proj.bias", "ln_f.weight"} <= names
    assert _cluster_of(dot, "h.0.attn.c_attn.weight") == ["h", "h.0", "h.0.attn", "h.0.attn.c_attn"]
    # ops without parameters land in the module that ran them
    assert _cluster_of(dot, "ScaledDotProductAttentionBackward0") == ["h", "h.0", "h.0.attn"]
    assert _cluster_of(dot, "GeluBackward0") == ["h", "h.0", "h.0.mlp"]
    assert _cluster_of(dot, "CrossEntropyBackward0") == []  # the loss: top level
    sdpa = next(
        lines for lines in labels.values() if lines[0] == "ScaledDotProductAttentionBackward0"
    )
    assert sdpa[1] == "(2, 2, 8, 8) float32"  # (B, nh, T, hs)
    adds = [nid for nid, lines in labels.items() if lines[0] == "AddBackward0"]
    residual = [_cluster_of_id(dot, nid) for nid in adds]
    assert ["h", "h.0"] in residual and ["h", "h.1"] in residual  # x = x + ... in each block


def test_collapse_folds_repeated_blocks():
    model, loss = _gpt_loss(n_layer=4)
    full = viz.to_dot(loss, model)
    folded = viz.to_dot(loss, model, collapse=True)
    labels, edges = parse(folded)
    names = [lines[0] for lines in labels.values()]
    assert names.count("h.1") == names.count("h.2") == names.count("h.3") == 1
    assert "h.0.attn.c_attn.weight" in names  # the first block stays open
    assert not any(n.startswith("h.2.") for n in names)
    assert ("h.1", "h.2") in edges and ("h.2", "h.3") in edges  # blocks chained in order
    assert len(labels) < len(parse(full)[0]) / 2
    block = next(lines for lines in labels.values() if lines[0] == "h.2")
    assert re.fullmatch(r"\(collapsed: \d+ ops, 12 parameters\)", block[1])
    only_h3 = parse(viz.to_dot(loss, model, collapse=["h.3"]))[0]
    assert [lines[0] for lines in only_h3.values()].count("h.3") == 1
    assert "h.2.ln_1.weight" in [lines[0] for lines in only_h3.values()]


def test_render_svg(tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    x = torch.randn(3, requires_grad=True)
    path = viz.render((x * x).sum(), tmp_path / "graph.svg", {"x": x})
    text = path.read_text()
    assert "<svg" in text and "MulBackward0" in text


def test_render_without_graphviz_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    x = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="apt-get install graphviz.*brew install graphviz"):
        viz.render((x * x).sum(), tmp_path / "graph.png")
    saved = tmp_path / "graph.dot"
    assert saved.read_text().startswith("digraph")  # the DOT text is kept for later


def test_render_dot_suffix_needs_no_graphviz(tmp_path, monkeypatch):
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    x = torch.randn(3, requires_grad=True)
    path = viz.render(x.exp().sum(), tmp_path / "g.dot")
    assert "ExpBackward0" in path.read_text()
    with pytest.raises(ValueError, match="suffix"):
        viz.render(x.exp().sum(), tmp_path / "noext")
