"""The out= argument (microtorch/_out.py): results written into a given tensor, as PyTorch
writes them: values, dtype casts, resizing, views, tuples of results, factories, and the
errors."""

from __future__ import annotations

import importlib.util
import inspect
import re

import numpy as np
import pytest

import microtorch

A = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])
B = np.array([[2.0, 1.0, -1.0], [3.0, 0.25, 2.0]])
SQUARE = np.array([[2.0, 1.0], [0.5, 3.0]])

# name -> (call given the library, its `out` and the inputs); out is made like the result
CALLS = {
    "add": lambda T, a, b, out: T.add(a, b, alpha=2, out=out),
    "sub": lambda T, a, b, out: T.sub(a, b, out=out),
    "mul": lambda T, a, b, out: T.mul(a, b, out=out),
    "div": lambda T, a, b, out: T.div(a, b, rounding_mode="floor", out=out),
    "pow": lambda T, a, b, out: T.pow(a, 2, out=out),
    "exp": lambda T, a, b, out: T.exp(a, out=out),
    "tanh": lambda T, a, b, out: T.tanh(a, out=out),
    "clamp": lambda T, a, b, out: T.clamp(a, -1, 1, out=out),
    "where": lambda T, a, b, out: T.where(a > 0, a, b, out=out),
    "matmul": lambda T, a, b, out: T.matmul(a, b.T, out=out),
    "mm": lambda T, a, b, out: T.mm(a.T, b, out=out),
    "sum": lambda T, a, b, out: T.sum(a, 1, out=out),
    "softmax": lambda T, a, b, out: T.softmax(a, 1, out=out),
    "argmax": lambda T, a, b, out: T.argmax(a, 0, out=out),
    "t_copy": lambda T, a, b, out: T.t_copy(a, out=out),
    "mean": lambda T, a, b, out: T.mean(a, 0, keepdim=True, out=out),
    "cumprod": lambda T, a, b, out: T.cumprod(a, 1, out=out),
    "cat": lambda T, a, b, out: T.cat([a, b], 0, out=out),
    "stack": lambda T, a, b, out: T.stack([a, b], 1, out=out),
    "tril": lambda T, a, b, out: T.tril(a, out=out),
    "gather": lambda T, a, b, out: T.gather(a, 1, T.tensor([[0, 0], [2, 1]]), out=out),
    "index_select": lambda T, a, b, out: T.index_select(a, 1, T.tensor([2, 0]), out=out),
    "addcmul": lambda T, a, b, out: T.addcmul(a, a, b, value=0.5, out=out),
    "diff": lambda T, a, b, out: T.diff(a, dim=1, out=out),
    "eq": lambda T, a, b, out: T.eq(a, b, out=out),
    "inverse": lambda T, a, b, out: T.inverse(T.tensor(SQUARE), out=out),
    "linalg.solve": lambda T, a, b, out: T.linalg.solve(T.tensor(SQUARE), a[:, :2].T, out=out),
    "linalg.matrix_norm": lambda T, a, b, out: T.linalg.matrix_norm(a, ord=1, out=out),
    "narrow_copy": lambda T, a, b, out: T.narrow_copy(a, 1, 1, 2, out=out),
}


def _out_like(T, name: str):
    a, b = T.tensor(A), T.tensor(B)
    result = CALLS[name](T, a, b, None)
    return a, b, T.empty(tuple(result.shape), dtype=result.dtype)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_result_is_written_into_out_and_out_is_returned(name):
    a, b, out = _out_like(microtorch, name)
    expected = CALLS[name](microtorch, a, b, None)
    returned = CALLS[name](microtorch, a, b, out)
    assert returned is out
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _out_like(microtorch, name), _out_like(torch, name)
    CALLS[name](microtorch, *ours)
    CALLS[name](torch, *theirs)
    assert str(ours[2].dtype).split(".")[1] == str(theirs[2].dtype).split(".")[1]
    np.testing.assert_allclose(ours[2].numpy(), theirs[2].numpy(), rtol=1e-12, atol=1e-12)


def test_result_is_cast_into_outs_dtype_where_pytorch_allows_it():
    ints = microtorch.tensor([1, 2, 3])
    out = microtorch.zeros(3)  # float32
    microtorch.add(ints, 1, out=out)
    assert out.dtype == microtorch.float32 and out.tolist() == [2.0, 3.0, 4.0]
    wide = microtorch.zeros(3, dtype=microtorch.float64)
    microtorch.mul(microtorch.ones(3), 2, out=wide)
    assert wide.dtype == microtorch.float64 and wide.tolist() == [2.0, 2.0, 2.0]
    mask = microtorch.zeros(3)
    microtorch.eq(ints, ints, out=mask)  # bools into floats: 1.0
    assert mask.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        microtorch.add(microtorch.ones(3), 1, out=microtorch.zeros(3, dtype=microtorch.int64))
    with pytest.raises(RuntimeError, match="can't be cast"):
        microtorch.mul(microtorch.ones(3), 2, out=microtorch.zeros(3, dtype=microtorch.bool))


EXACT_OUT_CALLS = [
    "T.index_copy(x, 0, i, x[:2], out=out)",
    "T.index_reduce(x, 0, i, x[:2], 'amax', out=out)",
    "T.scatter_reduce(x, 0, i[None], x[:1, :2], 'sum', out=out)",
    "T.slice_scatter(x, x[:1], 0, 0, 1, out=out)",
]


@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")
@pytest.mark.parametrize("call", EXACT_OUT_CALLS)
def test_indexing_ops_need_out_of_the_results_dtype_as_pytorch(call: str) -> None:
    """These ops do not cast into out (PyTorch: "Expected out tensor to have dtype
    double"): a float32 out for a float64 result is refused, a float64 one filled."""
    libraries = [microtorch]
    if importlib.util.find_spec("torch") is not None:
        import torch

        libraries.append(torch)
    for T in libraries:
        scope = {"T": T, "x": T.ones(3, 3, dtype=T.float64), "i": T.tensor([0, 2])}
        with pytest.raises(RuntimeError, match="dtype"):
            eval(call, {**scope, "out": T.empty(0)})
        assert eval(call, {**scope, "out": T.empty(0, dtype=T.float64)}).shape == (3, 3)


def test_out_is_refused_where_a_gradient_would_be_needed():
    x = microtorch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        microtorch.exp(x, out=microtorch.zeros(3))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        microtorch.exp(microtorch.ones(3), out=microtorch.zeros(3, requires_grad=True))
    with microtorch.no_grad():  # no graph is wanted: fine
        out = microtorch.zeros(3)
        microtorch.exp(x, out=out)
    assert not out.requires_grad and out[0].item() == pytest.approx(np.e)


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        microtorch.add(microtorch.ones(2), 1, out=[0, 0])


def test_a_view_as_out_writes_into_its_base_and_an_input_may_be_out():
    base = microtorch.zeros(2, 3)
    microtorch.add(microtorch.ones(3), 1, out=base[0])
    assert base.tolist() == [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]
    a = microtorch.tensor([1.0, 2.0])
    microtorch.mul(a, a, out=a)
    assert a.tolist() == [1.0, 4.0]


def test_out_of_another_shape_is_resized_with_pytorchs_warning():
    out = microtorch.zeros(5)
    with pytest.warns(UserWarning, match=r"resized since it had shape \[5\].*\[2, 3\]"):
        microtorch.add(microtorch.ones(2, 3), 1, out=out)
    assert out.shape == (2, 3) and out.tolist() == [[2.0] * 3] * 2
    empty = microtorch.empty(0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out is resized without a word
        microtorch.add(microtorch.ones(2), 1, out=empty)
    assert empty.tolist() == [2.0, 2.0]


def test_ops_with_several_results_take_a_tuple():
    x = microtorch.tensor([[1.0, 5.0], [3.0, 2.0]])
    values, indices = microtorch.empty(2), microtorch.empty(2, dtype=microtorch.int64)
    result = microtorch.max(x, 0, out=(values, indices))
    assert type(result).__name__ == "max" and result.values is values
    assert values.tolist() == [3.0, 5.0] and indices.tolist() == [1, 0]
    v, i = microtorch.empty(2, 2), microtorch.empty(2, 2, dtype=microtorch.int64)
    microtorch.sort(x, 1, descending=True, out=(v, i))
    assert v.tolist() == [[5.0, 1.0], [3.0, 2.0]] and i.tolist() == [[1, 0], [0, 1]]
    with pytest.raises(RuntimeError, match="dtype microtorch.int64, but got microtorch.float32"):
        microtorch.max(x, 0, out=(microtorch.empty(2), microtorch.empty(2)))
    with pytest.raises(TypeError, match="tuple of 2 tensors"):
        microtorch.max(x, 0, out=values)
    q, r = microtorch.empty(0), microtorch.empty(0)
    result = microtorch.linalg.qr(x, out=(q, r))
    assert result.Q is q and result.R is r
    np.testing.assert_allclose((q @ r).numpy(), x.numpy(), atol=1e-6)


def test_factories_make_outs_dtype_and_refuse_another():
    out = microtorch.ones(2, 3, dtype=microtorch.float64)
    assert microtorch.zeros(2, 3, out=out) is out and out.tolist() == [[0.0] * 3] * 2
    floats = microtorch.empty(3)
    microtorch.arange(3, out=floats)  # arange of ints, made as out's floats
    assert floats.dtype == microtorch.float32 and floats.tolist() == [0.0, 1.0, 2.0]
    microtorch.manual_seed(0)
    drawn = microtorch.randn(4, out=microtorch.empty(0, dtype=microtorch.float64))
    assert drawn.shape == (4,) and drawn.dtype == microtorch.float64
    with pytest.raises(RuntimeError, match="does not match dtype of out parameter"):
        microtorch.zeros(2, dtype=microtorch.float64, out=microtorch.empty(2))
    assert microtorch.eye(2, out=microtorch.empty(2, 2)).tolist() == [[1.0, 0.0], [0.0, 1.0]]


def _takes_out(fn) -> bool:
    try:
        parameter = inspect.signature(fn).parameters.get("out")
    except (TypeError, ValueError):
        return False
    # keyword-only, except where PyTorch's own signature has it positional (norm)
    return parameter is not None and parameter.kind in (
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


# PyTorch names with out= that microtorch has but gives no out= (yet)
WITHOUT_OUT = {"multinomial", "empty_permuted"}  # (empty_permuted: its docstring shows none)
WITHOUT_OUT |= {"histogramdd"}  # (its out is a tensor and a list of tensors)
# the exercises (docs/exercises): a learner's own op need not take out= to pass this file
WITHOUT_OUT |= {"cumsum", "logsumexp", "softplus", "max_pool1d", "rms_norm", "logcumsumexp"}
# names whose out= PyTorch's docstrings do not show (seen to work in PyTorch 2.13)
ALSO_WITH_OUT = (
    "sum prod nansum argmax argmin isin softmax log_softmax take true_divide median nanmedian "
    "index_add scatter scatter_add hardshrink clamp_max clamp_min tensordot alias_copy "
    "as_strided_copy detach_copy diagonal_copy expand_copy permute_copy select_copy slice_copy "
    "squeeze_copy t_copy transpose_copy unfold_copy unsqueeze_copy view_copy orgqr"
).split()


def test_the_names_whose_docstrings_hide_out_take_it_too():
    assert [name for name in ALSO_WITH_OUT if not _takes_out(getattr(microtorch, name))] == []


@pytest.mark.parametrize("namespace", ["", "special", "linalg"])
def test_every_function_pytorch_gives_out_has_it(namespace):
    """Each torch.* (torch.special.*, torch.linalg.*) function documented with out= takes it
    here too."""
    torch = pytest.importorskip("torch")
    theirs_module = getattr(torch, namespace) if namespace else torch
    ours_module = getattr(microtorch, namespace) if namespace else microtorch
    missing = []
    for name in dir(theirs_module):
        if name.startswith("_") or not hasattr(ours_module, name) or name in WITHOUT_OUT:
            continue
        theirs = getattr(theirs_module, name)
        if not callable(theirs) or isinstance(theirs, type):
            continue
        doc = getattr(theirs, "__doc__", None) or ""
        first = doc.strip().split("\n\n")[0] if doc else ""
        if re.search(r"\bout=None", first) or re.search(r"out \((Tensor|tuple)", doc):
            if not _takes_out(getattr(ours_module, name)):
                missing.append(name)
    assert not missing, f"these take out= in PyTorch but not here: {missing}"
