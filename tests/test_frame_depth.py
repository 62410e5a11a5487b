"""The path from ``loss.backward()`` to an op's own backward stays short and readable.

docs/autograd.md walks a learner through it in pdb: Tensor.backward -> engine.backward ->
Mul.backward. These tests record the real call stack at the moment each op's backward is
entered, so a refactor that buries the ops under more layers (or renames the frames the
page names) fails here."""

from __future__ import annotations

import contextlib
import os
import sys

import pytest

import microtorch as torch
import microtorch.nn.functional as F
from microtorch import Tensor
from microtorch.autograd import detect_anomaly
from microtorch.ops import arithmetic, attention, reduction

MAX_DEPTH = 4  # calls from Tensor.backward down to an op's backward
DOC = os.path.join(os.path.dirname(__file__), "..", "docs", "autograd.md")


def _label(frame) -> str:
    """``Tensor.backward``, ``engine.backward``, ``Mul.backward``: how docs/autograd.md names
    a frame (a method by its class, a module function by its module)."""
    code = frame.f_code
    owner = frame.f_locals.get("self")
    if owner is not None:
        return f"{type(owner).__name__}.{code.co_name}"
    module = os.path.splitext(os.path.basename(code.co_filename))[0]
    return f"{module}.{code.co_name}"


def backward_stacks(loss: Tensor, op_classes: list) -> dict[str, list[str]]:
    """Run ``loss.backward()`` and return, for each op class, the frames from its backward
    up to Tensor.backward (innermost first)."""
    targets = {cls.backward.__code__: cls.__name__ for cls in op_classes}
    top = Tensor.backward.__code__
    stacks: dict[str, list[str]] = {}

    def profiler(frame, event, arg):
        if event != "call" or frame.f_code not in targets:
            return
        name = targets[frame.f_code]
        chain = []
        while frame is not None:
            chain.append(_label(frame))
            if frame.f_code is top:
                break
            frame = frame.f_back
        stacks.setdefault(name, chain)

    sys.setprofile(profiler)
    try:
        loss.backward()
    finally:
        sys.setprofile(None)
    return stacks


def two_op_loss() -> Tensor:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    return (x * w).sum()


def test_backward_reaches_each_op_in_two_calls():
    stacks = backward_stacks(two_op_loss(), [arithmetic.Mul, reduction.Sum])
    assert stacks["Mul"] == ["Mul.backward", "engine.backward", "Tensor.backward"]
    assert stacks["Sum"] == ["Sum.backward", "engine.backward", "Tensor.backward"]
    for chain in stacks.values():
        assert len(chain) - 1 <= MAX_DEPTH


def test_the_doc_names_the_real_frames():
    with open(DOC) as f:
        doc = f.read()
    stacks = backward_stacks(two_op_loss(), [arithmetic.Mul, reduction.Sum])
    for chain in stacks.values():
        for label in chain:
            assert f"`{label}`" in doc, f"docs/autograd.md does not name the frame {label}"
    assert "**`Tensor.backward` -> `engine.backward` -> `Sum.backward`**" in doc


@pytest.mark.parametrize("anomaly", [False, True])
def test_depth_inside_a_model_and_in_anomaly_mode(anomaly):
    q = torch.randn(2, 2, 4, 8, requires_grad=True)
    layer = torch.nn.Linear(8, 8)
    with detect_anomaly() if anomaly else contextlib.nullcontext():
        out = F.scaled_dot_product_attention(layer(q), q, q, is_causal=True).mean()
        stacks = backward_stacks(out, [attention.ScaledDotProductAttention])
    chain = stacks["ScaledDotProductAttention"]
    assert chain[0] == "ScaledDotProductAttention.backward" and chain[-1] == "Tensor.backward"
    assert len(chain) - 1 <= MAX_DEPTH
