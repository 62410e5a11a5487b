"""Calls PyTorch's argument parser refuses are refused here with its error type, and the
near misses it takes are taken: sort's two forms, reductions without a dim, softmax without
a dim, a bool, float, str or 0-d tensor where an int goes, missing and unknown arguments.

Each call is run on both libraries; the outcomes (ok, or the exception type) must match.
The list came from a sweep over every top-level function and Tensor method microtorch
shares with PyTorch, calling each with a float, a bool, a str or a 0-d tensor in an int's
place, an argument left out and an unknown keyword."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import microtorch

from .torch_reference import torch_before

torch = pytest.importorskip("torch")

CALLS = [
    # sort and argsort: dim and descending positional, or all by keyword with stable=
    # (stable=None counts as not given here; PyTorch refuses sort(x, 0, stable=None))
    "T.sort(x, 0, False, stable=True)",
    "T.sort(x, 0, False, True)",
    "x.sort(0, False, True)",
    "x.sort(0, stable=True)",
    "T.sort(x, 1, True)",
    "T.sort(x, stable=True, dim=0, descending=True)",
    "x.sort(descending=True, dim=1)",
    "T.sort(x, 0, dim=1)",
    "T.sort(x, descending=1)",
    "T.sort(x, dim=0, descending=None)",
    "T.sort(x, stable=np.bool_(True))",
    "T.sort(x, T.tensor(0))",
    "x.sort(True)",
    "T.argsort(x, 0, True)",
    "T.argsort(x, 0, True, stable=True)",
    "x.argsort(0, stable=True)",
    "T.argsort(x, out=T.empty(0, dtype=T.int64))",
    "T.argsort(x, stable=True, out=T.empty(0, dtype=T.int64))",
    # reductions: the form without a dim takes no out= (sum) and no keepdim=
    "T.sum(x, out=T.empty(()))",
    "T.sum(x, None, out=T.empty(()))",
    "T.sum(x, (), out=T.empty(()))",
    "T.sum(x, keepdim=True)",
    "x.sum(keepdim=True)",
    "x.sum(None, True)",
    "T.mean(x, keepdim=True)",
    "x.mean(keepdim=True)",
    "T.mean(x, out=T.empty(()))",
    "x.mean(dim=None, keepdim=True)",
    "T.prod(x, keepdim=True)",
    "T.max(x, keepdim=True)",
    "x.min(keepdim=True)",
    "T.median(x, keepdim=True)",
    "x.max(axis=0, keepdim=True)",
    "x.sum(axis=0, keepdims=True)",
    # softmax: torch.softmax and Tensor.softmax need a dim (F.softmax picks one)
    "T.softmax(x)",
    "x.softmax()",
    "T.softmax(x, None)",
    "T.log_softmax(x)",
    "x.log_softmax(None)",
    "T.special.softmax(x, None)",
    "F.softmax(x)",
    "F.log_softmax(x, None)",
    "F.softmin(x)",
    "x.softmax(T.tensor(1))",
    "F.softmax(x, 1.0)",
    # a bool is not an int to PyTorch's parser
    "x.sum(True)",
    "x.softmax(True)",
    "T.cat([x, x], True)",
    "x.transpose(True, 0)",
    "x.unsqueeze(True)",
    "x.argmax(True)",
    "x.max(True)",
    "x.gather(True, T.zeros(1, 1, dtype=T.int64))",
    "x.topk(True)",
    "x.kthvalue(True)",
    "x.select(0, True)",
    "x.roll(True)",
    "x.repeat_interleave(True)",
    "x.chunk(True)",
    "x.split(True)",
    "x.tensor_split(True)",
    "x.hsplit(True)",
    "T.tril_indices(True, 1)",
    "T.triu_indices(2, 2, True)",
    "x.diff(True)",
    "x.rot90(True)",
    "x.histc(True)",
    "x.random_(True)",
    "x.random_(0, True)",
    "T.randint(True, (2,))",
    "T.randint_like(x, True)",
    # ... in a size, only first: PyTorch tells an int list by its first element
    "T.zeros(True)",
    "T.zeros((True, 2))",
    "T.zeros(2, True)",
    "T.ones(True, 2)",
    "x.reshape(True, 6)",
    "x.reshape(3, True, 2)",
    "x.view(True, 6)",
    "x.repeat(True, 1)",
    "x.repeat(1, True)",
    "x.new_zeros(True)",
    "x.sum_to_size(True)",
    "F.adaptive_avg_pool1d(x[None], True)",
    "F.group_norm(x, True)",
    # a float where an int goes
    "x.sum(1.0)",
    "x.softmax(dim=1.0)",
    "T.zeros(2.0, 3)",
    "x.reshape(2.0, 3)",
    "x.sum_to_size(1.0)",
    "T.tril_indices(0.0, 1)",
    "x.topk(1.0)",
    "T.hann_window(3.0)",
    "x.random_(1.0)",
    "x.random_(2, 3.0)",
    "F.adaptive_avg_pool1d(x[None], 1.0)",
    "F.adaptive_avg_pool2d(x[None], (2.0, 2))",
    # a 0-d integer tensor where an int goes (taken, as by PyTorch)
    "x.sum(T.tensor(1))",
    "x.split(T.tensor(1))",
    "x.select(0, T.tensor(1))",
    "x.topk(T.tensor(1))",
    "T.polygamma(T.tensor(1), x)",
    "T.mvlgamma(x + 3, T.tensor(1))",
    "T.hann_window(T.tensor(3))",
    "T.tril_indices(T.tensor(2), 2)",
    "F.adaptive_avg_pool1d(x[None], T.tensor(1))",
    "F.group_norm(x, T.tensor(1))",
    "x.diff(T.tensor(1))",
    "x.rot90(T.tensor(1))",
    "T.histc(x, T.tensor(3), T.tensor(0.0), 4)",
    "x.random_(T.tensor(3))",
    "x.cauchy_(T.tensor(0.0), 1.0)",
    "x.normal_(0, T.tensor(2.0))",
    "x.geometric_(T.tensor(0.5))",
    "T.bernoulli(x / 10, T.tensor(1))",
    "T.bernoulli(x / 10, T.tensor([0.5, 0.5, 0.5]))",
    # a str where a number goes
    "T.full((2,), 'a')",
    "T.full((2,), None)",
    "T.full_like(x, 'a')",
    "T.scalar_tensor('a')",
    "T.quantile(x, 'a')",
    "x.sum_to_size('a')",
    "x.add('a')",
    "x.fill_('a')",
    "T.histc(x, 3, 'a')",
    "x.normal_('a')",
    "x.log_normal_('a')",
    "x.exponential_('a')",
    # missing and unknown arguments
    "T.sort()",
    "x.topk()",
    "T.cat()",
    "x.sum(bogus=1)",
    "T.sort(x, bogus=1)",
    "T.softmax(x, 1, bogus=1)",
]


def _inputs(T) -> dict:
    values = np.array([[3.0, 1.0, 2.0], [0.5, 2.0, 1.0]], dtype=np.float32)
    return {"T": T, "F": T.nn.functional, "np": np, "x": T.tensor(values)}


def _outcome(call: str, T) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eval(call, _inputs(T))
        except Exception as error:  # the type is what is compared
            return type(error).__name__
    return "ok"


# PyTorch 2.11 answers these with RuntimeError; 2.13's parser (which microtorch follows) with
# TypeError
CHANGED_SINCE_2_11 = {"T.softmax(x, None)", "x.log_softmax(None)"}


@pytest.mark.parametrize("call", CALLS)
def test_call_is_taken_or_refused_as_by_pytorch(call: str) -> None:
    if call in CHANGED_SINCE_2_11 and torch_before((2, 13)):
        pytest.skip("the installed PyTorch is older than 2.13, whose parser microtorch follows")
    assert _outcome(call, microtorch) == _outcome(call, torch)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4), (2, 3, 4, 5)])
def test_f_softmax_without_dim_warns_and_picks_pytorchs_dim(name: str, shape: tuple) -> None:
    values = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    results = []
    for T in (microtorch, torch):
        with pytest.warns(UserWarning, match="mplicit dimension choice"):
            results.append(getattr(T.nn.functional, name)(T.tensor(values)).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6)


def test_errors_name_the_op_and_the_argument() -> None:
    x = microtorch.ones(2, 3)
    with pytest.raises(TypeError, match=r"sort\(\): with stable= given, dim and descending"):
        microtorch.sort(x, 0, stable=True)
    with pytest.raises(TypeError, match=r"sort\(\): argument 'descending' must be bool"):
        x.sort(descending=1)
    with pytest.raises(TypeError, match=r"sum\(\): out= needs a dim"):
        microtorch.sum(x, out=microtorch.empty(()))
    with pytest.raises(TypeError, match=r"mean\(\): keepdim= needs a dim"):
        x.mean(keepdim=True)
    with pytest.raises(TypeError, match=r"softmax\(\): argument 'dim' must be int, not bool"):
        x.softmax(True)
    with pytest.raises(TypeError, match=r"topk\(\): argument 'k' must be int, not float"):
        x.topk(1.0)
    with pytest.raises(TypeError, match=r"full\(\): argument 'fill_value' must be Number"):
        microtorch.full((2,), "a")
