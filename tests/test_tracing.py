"""microtorch.trace(): every op with shapes, dtype, device, details and the user's line."""

from __future__ import annotations

import inspect
import io

import pytest

import microtorch as torch
import microtorch.nn.functional as F
from microtorch import nn
from microtorch.autograd import function
from models.transformer import GPT, GPTConfig


def this_line() -> int:
    """The line number of the caller."""
    return inspect.currentframe().f_back.f_lineno


def test_records_ops_shapes_and_user_lines(device):
    layer = nn.Linear(3, 5).to(device)
    x = torch.randn(4, 3, device=device)
    with torch.trace(print_table=False) as t:
        line = this_line() + 1
        y = torch.softmax(layer(x), dim=-1)
    assert t.ops() == ["Linear", "Softmax"]
    linear, softmax = t.records
    assert linear.input_shapes == [(4, 3), (5, 3), (5,)] and linear.output == (4, 5)
    assert softmax.details == {"dim": "1"}  # the dim as the op got it (-1 wrapped)
    assert (softmax.dtype, softmax.device) == ("float32", str(x.device))
    for record in t:
        assert record.source.filename == __file__ and record.source.lineno == line
        assert record.source.line.startswith("y = torch.softmax(layer(x)")
        assert record.requires_grad  # the layer's parameters require grad
    assert y.shape == (4, 5)


def test_attention_mask_kinds_and_scale(device):
    q = torch.randn(2, 3, 5, 4, device=device)
    with torch.trace(print_table=False) as t:
        F.scaled_dot_product_attention(q, q, q)
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
        F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(5, 5, device=device).bool())
        F.scaled_dot_product_attention(
            q, q, q, attn_mask=torch.zeros(5, 5, device=device), scale=0.1
        )
    assert [r.details["mask"] for r in t] == ["none", "causal", "boolean", "additive"]
    assert [r.details["scale"] for r in t] == ["0.5", "0.5", "0.5", "0.1"]
    assert all(r.input_shapes == [(2, 3, 5, 4)] * 3 for r in t)
    assert "mask=causal, scale=0.5" in t.table()


def test_constants_dtypes_and_reductions():
    a = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)
    with torch.trace(print_table=False) as t:
        b = a.float() * 2.5
        b.sum(dim=1, keepdim=True)
    assert t.ops() == ["Cast", "Mul", "Sum"]
    assert t[1].inputs == [((2, 3), "float32"), 2.5]
    assert t[2].details == {"dim": "(1,)", "keepdim": "True"}
    table = t.table()
    assert "(2, 3) float64" in table  # an input dtype that differs from the output's is shown
    assert not t[0].requires_grad


def test_table_prints_on_exit_with_names():
    out = io.StringIO()
    x = torch.randn(2, 7, 6)
    with torch.trace(file=out, names={"B": 2, "T": 7, "C": 6}):
        x.transpose(1, 2)
    text = out.getvalue()
    header = text.splitlines()[0].split()
    assert header == ["#", "op", "inputs", "output", "dtype", "device", "details", "called", "from"]
    assert "(B, T, C)" in text and "(B, C, T)" in text and "dims=(0, 2, 1)" in text
    assert "sizes: B=2, T=7, C=6" in text and "1 ops, 0 recorded in the autograd graph" in text
    quiet = io.StringIO()
    with torch.trace(print_table=False, file=quiet):
        x.exp()
    assert quiet.getvalue() == ""


def test_sizes_must_be_distinct_to_be_named():
    with torch.trace(print_table=False) as t:
        torch.randn(2, 2).exp()
    with pytest.raises(ValueError, match="B and T are both 2"):
        t.table(names={"B": 2, "T": 2})


def test_nothing_recorded_outside_and_hook_restored():
    assert function._trace_hook is None
    with pytest.raises(KeyError):
        with torch.trace(print_table=False) as t:
            torch.ones(2).exp()
            raise KeyError("stop")
    assert function._trace_hook is None  # restored even when the block raised
    torch.ones(2).exp()
    assert len(t) == 1


def test_nested_traces_and_anomaly_mode_both_see_ops():
    with torch.trace(print_table=False) as outer:
        torch.ones(1).exp()
        with torch.autograd.detect_anomaly():
            with torch.trace(print_table=False) as inner:
                torch.ones(1).log()
        torch.ones(1).sqrt()
    assert outer.ops() == ["Exp", "Log", "Sqrt"] and inner.ops() == ["Log"]
    assert function._trace_hook is None


def tiny_gpt() -> tuple[GPT, dict]:
    config = GPTConfig(vocab_size=11, block_size=16, n_layer=2, n_head=2, n_embd=12)
    sizes = {"B": 3, "T": 5, "C": 12, "nh": 2, "hs": 6, "V": 11, "3C": 36, "4C": 48}
    return GPT(config), sizes


def test_trace_of_a_gpt_forward():
    model, sizes = tiny_gpt()
    idx = torch.randint(0, 11, (3, 5))
    with torch.trace(print_table=False, names=sizes) as t:
        model(idx, idx)
    ops = t.ops()
    assert ops.count("ScaledDotProductAttention") == 2 and ops.count("LayerNorm") == 5
    assert ops[:3] == ["Embedding", "Embedding", "Add"] and ops[-1] == "CrossEntropy"
    attention = [r for r in t if r.op == "ScaledDotProductAttention"]
    assert all(r.input_shapes == [(3, 2, 5, 6)] * 3 and r.output == (3, 2, 5, 6) for r in attention)
    assert attention[0].details == {"mask": "causal", "scale": "0.4082"}
    # (B, T, C) -> (B, T, nh, hs) -> (B, nh, T, hs): the head split before attention
    split = [r for r in t if r.op == "Permute" and r.output == (3, 2, 5, 6)]
    assert split and split[0].input_shapes == [(3, 5, 2, 6)]
    assert all(r.source.filename.endswith("transformer.py") for r in t)
    table = t.table()
    assert "(B, nh, T, hs) x3" in table and "(B, T, 3C)" in table and "(B, T, 4C)" in table


def test_models_trace_command(capsys):
    from models import trace

    trace.main(["--batch-size", "2", "--context", "5"])
    out = capsys.readouterr().out
    assert "ScaledDotProductAttention" in out and "mask=causal" in out
    assert "(B, T, C)" in out and "(B, nh, T, hs) x3" in out
    assert "models/transformer.py" in out


def test_trace_of_a_matrix_is_pytorchs_diagonal_sum_and_the_tracer_otherwise(device):
    """torch.trace(m) in PyTorch code sums m's diagonal; with no tensor it is the tracer."""
    m = torch.arange(9.0, device=device).reshape(3, 3)
    assert torch.trace(m).item() == 12.0 and m.trace().item() == 12.0
    assert torch.trace(input=m).item() == 12.0
    assert torch.trace(torch.arange(6, device=device).reshape(2, 3)).dtype is torch.int64
    with torch.trace(False) as t:  # print_table=False, given by position
        torch.trace(m)
    assert isinstance(t, torch.trace) and t.ops() == ["Diagonal", "Sum"]
