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
    "index_copy": lambda T, a, b, out: T.index_copy(a, 1, T.tensor([2, 0]), b[:, :2], out=out),
    "index_reduce": lambda T, a, b, out: T.index_reduce(
        a, 1, T.tensor([2, 2]), b[:, :2], "amax", out=out
    ),
    "scatter_reduce": lambda T, a, b, out: T.scatter_reduce(
        a, 1, T.tensor([[0, 0], [2, 1]]), b[:, :2], "prod", include_self=False, out=out
    ),
    "slice_scatter": lambda T, a, b, out: T.slice_scatter(a, b[:, :1], 1, 1, 2, out=out),
    "nonzero_static": lambda T, a, b, out: T.nonzero_static(a > 0, size=5, out=out),
    "argsort": lambda T, a, b, out: T.argsort(a, stable=True, descending=True, out=out),
    "frobenius_norm": lambda T, a, b, out: T.frobenius_norm(a, (0, 1), out=out),
    "nuclear_norm": lambda T, a, b, out: T.nuclear_norm(a, out=out),
    "normalize": lambda T, a, b, out: T.nn.functional.normalize(a, 1.5, 0, out=out),
    "threshold": lambda T, a, b, out: T.threshold(a, 0.5, -7.0, out=out),
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


# PyTorch names documented with out= that take none, in PyTorch 2.13 as here: empty_permuted's
# docstring shows none; histogramdd's shows out= but its binding refuses every form of it
WITHOUT_OUT = {"empty_permuted", "histogramdd"}
# the exercises (docs/exercises): a learner's own op need not take out= to pass this file
WITHOUT_OUT |= {"cumsum", "logsumexp", "softplus", "max_pool1d", "rms_norm", "logcumsumexp"}
# names whose out= PyTorch's docstrings do not show (seen to work in PyTorch 2.13)
ALSO_WITH_OUT = (
    "sum prod nansum argmax argmin isin softmax log_softmax take true_divide median nanmedian "
    "index_add scatter scatter_add hardshrink clamp_max clamp_min tensordot alias_copy "
    "as_strided_copy detach_copy diagonal_copy expand_copy permute_copy select_copy slice_copy "
    "squeeze_copy t_copy transpose_copy unfold_copy unsqueeze_copy view_copy orgqr "
    "index_copy index_reduce scatter_reduce slice_scatter nonzero_static argsort slogdet "
    "frobenius_norm nuclear_norm multinomial threshold split_copy split_with_sizes_copy "
    "unbind_copy"
).split()
# names whose signature in torch.overrides.get_testing_overrides() shows out= but whose
# PyTorch 2.13 function refuses it (TypeError), as microtorch's do
OVERRIDES_OUT_REFUSED = (
    "conj diag_embed full_like imag positive real resolve_conj resolve_neg squeeze unsqueeze"
).split()
# names PyTorch's overrides signatures leave out= off but whose functions refuse it too
REFUSED_OUT = ("select_scatter", "diagonal_scatter", "as_strided_scatter", "histogramdd")


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


OVERRIDE_NAMESPACES = ["", "special", "linalg", "nn.functional"]


def _module(library, namespace: str):
    for part in namespace.split(".") if namespace else ():
        library = getattr(library, part)
    return library


@pytest.mark.parametrize("namespace", OVERRIDE_NAMESPACES)
def test_every_function_whose_overrides_signature_has_out_takes_it(namespace):
    """The signatures torch.overrides.get_testing_overrides() gives PyTorch's functions show
    out= on some that their docstrings do not: those take it here too (except where
    PyTorch's own function refuses it)."""
    torch = pytest.importorskip("torch")
    overrides = pytest.importorskip("torch.overrides").get_testing_overrides()
    theirs_module, ours_module = _module(torch, namespace), _module(microtorch, namespace)
    missing = []
    for name in dir(theirs_module):
        theirs = getattr(theirs_module, name)
        if name.startswith("_") or name in OVERRIDES_OUT_REFUSED or not callable(theirs):
            continue
        if isinstance(theirs, type) or theirs not in overrides:
            continue
        if not hasattr(ours_module, name) or name in WITHOUT_OUT:
            continue
        try:
            takes_out = "out" in inspect.signature(overrides[theirs]).parameters
        except (TypeError, ValueError):
            continue
        if takes_out and not _takes_out(getattr(ours_module, name)):
            missing.append(name)
    assert not missing, f"these take out= in PyTorch's overrides signatures: {missing}"


@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
def test_names_pytorch_gives_no_out_refuse_it(library_name):
    T = pytest.importorskip(library_name)
    x, out = T.zeros(2, 3), T.empty(0)
    calls = {
        "select_scatter": lambda: T.select_scatter(x, T.ones(3), 0, 0, out=out),
        "diagonal_scatter": lambda: T.diagonal_scatter(x, T.ones(2), out=out),
        "as_strided_scatter": lambda: T.as_strided_scatter(x, T.ones(2), (2,), (1,), out=out),
        "histogramdd": lambda: T.histogramdd(x, [2, 2, 2], out=(out, [T.empty(0)] * 3)),
        "conj": lambda: T.conj(x, out=out),
        "squeeze": lambda: T.squeeze(x, out=out),
        "full_like": lambda: T.full_like(x, 1.0, out=out),
    }
    assert set(REFUSED_OUT) <= set(calls)
    for call in calls.values():
        with pytest.raises(TypeError):
            call()


@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
def test_out_of_another_dtype_is_refused_where_pytorch_refuses_a_cast(library_name):
    """index_copy, scatter_reduce, multinomial... write only into out of the result's own
    dtype (RuntimeError otherwise); normalize casts as add does."""
    T = pytest.importorskip(library_name)
    x, wide = T.zeros(2, 3), T.empty(0, dtype=T.float64)  # (torch resizes it, then refuses)
    refused = {
        "index_copy": lambda: T.index_copy(x, 1, T.tensor([0]), T.ones(2, 1), out=wide),
        "slice_scatter": lambda: T.slice_scatter(x, T.ones(2, 1), 1, 0, 1, out=wide),
        "argsort": lambda: T.argsort(x, stable=True, out=wide),
        "multinomial": lambda: T.multinomial(T.ones(2), 1, out=T.empty(0, dtype=T.int32)),
        "slogdet": lambda: T.slogdet(T.eye(2), out=(T.empty(0), wide)),
    }
    for call in refused.values():
        with pytest.raises(RuntimeError):
            call()
    wide = T.empty(0, dtype=T.float64)
    assert T.nn.functional.normalize(T.ones(2, 2), out=wide).dtype == T.float64
    with pytest.raises(RuntimeError, match="can't be cast"):
        T.nn.functional.normalize(T.ones(2, 2), out=T.empty(0, dtype=T.int64))


def test_multinomial_and_slogdet_write_into_out():
    microtorch.manual_seed(0)
    expected = microtorch.multinomial(microtorch.tensor([[0.2, 0.8], [1.0, 0.0]]), 3, True)
    microtorch.manual_seed(0)
    out = microtorch.empty(0, dtype=microtorch.int64)
    probs = microtorch.tensor([[0.2, 0.8], [1.0, 0.0]])
    assert microtorch.multinomial(probs, 3, True, out=out) is out
    assert out.tolist() == expected.tolist() and out[1].tolist() == [0, 0, 0]
    sign, logabsdet = microtorch.empty(0), microtorch.empty(0)
    result = microtorch.slogdet(microtorch.tensor([[0.0, 2.0], [3.0, 0.0]]), out=(sign, logabsdet))
    assert result.sign is sign and result.logabsdet is logabsdet
    assert sign.item() == -1.0 and logabsdet.item() == pytest.approx(np.log(6.0))


@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
def test_split_and_unbind_copies_write_into_a_list_and_return_none(library_name):
    T = pytest.importorskip(library_name)
    x = T.tensor(A, dtype=T.float32)
    rows = [T.empty(0), T.empty(0)]
    assert T.unbind_copy(x, out=rows) is None
    assert [r.tolist() for r in rows] == A.tolist()
    pieces = [T.empty(2, 2), T.empty(2, 1)]
    assert T.split_with_sizes_copy(x, [2, 1], 1, out=pieces) is None
    assert pieces[1].tolist() == [[3.0], [-1.5]]
    halves = [T.empty(1, 3), T.empty(1, 3)]
    assert T.split_copy(x, 1, out=halves) is None and halves[1].tolist() == [A[1].tolist()]
    with pytest.raises(RuntimeError, match="size 2, got size 1"):
        T.unbind_copy(x, out=[T.empty(0)])
    with pytest.raises(TypeError, match="tuple of Tensors"):
        T.unbind_copy(x, out=T.empty(0))
    with pytest.raises(RuntimeError, match="dtype"):
        T.unbind_copy(x, out=[T.empty(3, dtype=T.float64)] * 2)


@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
def test_lstsq_writes_its_four_results_into_a_tuple(library_name):
    T = pytest.importorskip(library_name)
    A_, B_ = T.tensor([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), T.tensor([[1.0], [2.0], [3.0]])
    expected = T.linalg.lstsq(A_, B_, driver="gelsd")
    outs = (T.empty(0), T.empty(0), T.empty(0, dtype=T.int64), T.empty(0))
    result = T.linalg.lstsq(A_, B_, driver="gelsd", out=outs)
    assert result.solution is outs[0] and result.rank is outs[2]
    for got, want in zip(outs, expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    with pytest.raises(TypeError):
        T.linalg.lstsq(A_, B_, out=outs[:2])


# one call per function whose out= is checked for dtypes: x is a float32 vector, m a float32
# 2x2 matrix, b a batch of two of them, i an int64 vector, o the out (float64, or float32
# for results that are not float32)
OUT_DTYPE_CALLS = {
    "abs": "T.abs(x, out=o)",
    "absolute": "T.absolute(x, out=o)",
    "addbmm": "T.addbmm(m, b, b, out=o)",
    "addmm": "T.addmm(m, m, m, out=o)",
    "addmv": "T.addmv(x[:2], m, x[:2], out=o)",
    "alias_copy": "T.alias_copy(x, out=o)",
    "all": "T.all(x, 0, out=o)",
    "amax": "T.amax(m, 0, out=o)",
    "amin": "T.amin(m, 0, out=o)",
    "any": "T.any(x, 0, out=o)",
    "argmax": "T.argmax(x, 0, out=o)",
    "argmin": "T.argmin(x, 0, out=o)",
    "as_strided_copy": "T.as_strided_copy(x, (2,), (1,), out=o)",
    "baddbmm": "T.baddbmm(b, b, b, out=o)",
    "bitwise_not": "T.bitwise_not(i, out=o)",
    "bmm": "T.bmm(b, b, out=o)",
    "bucketize": "T.bucketize(x, T.tensor([0.0, 1.0]), out=o)",
    "ceil": "T.ceil(x, out=o)",
    "chain_matmul": "T.chain_matmul(m, m, out=o)",
    "clamp": "T.clamp(x, 0, 1, out=o)",
    "clamp_max": "T.clamp_max(x, 0, out=o)",
    "clamp_min": "T.clamp_min(x, 0, out=o)",
    "clip": "T.clip(x, 0, 1, out=o)",
    "conj_physical": "T.conj_physical(x, out=o)",
    "cross": "T.cross(x, x, dim=0, out=o)",
    "detach_copy": "T.detach_copy(x, out=o)",
    "diag": "T.diag(x, out=o)",
    "diagonal_copy": "T.diagonal_copy(m, out=o)",
    "diff n=0": "T.diff(x, n=0, out=o)",
    "dot": "T.dot(x, x, out=o)",
    "expand_copy": "T.expand_copy(x, (2, 3), out=o)",
    "fix": "T.fix(x, out=o)",
    "float_power": "T.float_power(x, 2, out=o)",
    "floor": "T.floor(x, out=o)",
    "frac": "T.frac(x, out=o)",
    "gather": "T.gather(x, 0, T.tensor([1, 0]), out=o)",
    "hardshrink": "T.hardshrink(x, out=o)",
    "heaviside": "T.heaviside(x, x, out=o)",
    "histc": "T.histc(x, 3, out=o)",
    "index_add": "T.index_add(x, 0, T.tensor([1]), x[:1], out=o)",
    "index_select": "T.index_select(x, 0, T.tensor([1]), out=o)",
    "inner": "T.inner(x, x, out=o)",
    "inverse": "T.inverse(m, out=o)",
    "isin": "T.isin(x, x, out=o)",
    "isneginf": "T.isneginf(x, out=o)",
    "isposinf": "T.isposinf(x, out=o)",
    "log_softmax": "T.log_softmax(x, 0, out=o)",
    "lu_solve": "T.lu_solve(m, *T.linalg.lu_factor(m), out=o)",
    "masked_select": "T.masked_select(x, x > 0, out=o)",
    "matmul": "T.matmul(m, m, out=o)",
    "matrix_power": "T.matrix_power(m, 3, out=o)",
    "mm": "T.mm(m, m, out=o)",
    "msort": "T.msort(x, out=o)",
    "mv": "T.mv(m, x[:2], out=o)",
    "nan_to_num": "T.nan_to_num(x, out=o)",
    "nanquantile": "T.nanquantile(x, 0.5, out=o)",
    "narrow_copy": "T.narrow_copy(x, 0, 0, 2, out=o)",
    "neg": "T.neg(x, out=o)",
    "negative": "T.negative(x, out=o)",
    "nonzero": "T.nonzero(x, out=o)",
    "norm": "T.norm(x, out=o)",
    "ormqr": "T.ormqr(m, x[:2], m, out=o)",
    "permute_copy": "T.permute_copy(m, (1, 0), out=o)",
    "quantile": "T.quantile(x, 0.5, out=o)",
    "renorm": "T.renorm(m, 2, 0, 1.0, out=o)",
    "round": "T.round(x, out=o)",
    "scatter": "T.scatter(x, 0, T.tensor([1]), x[:1], out=o)",
    "scatter_add": "T.scatter_add(x, 0, T.tensor([1]), x[:1], out=o)",
    "searchsorted": "T.searchsorted(T.tensor([0.0, 1.0]), x, out=o)",
    "select_copy": "T.select_copy(m, 0, 1, out=o)",
    "sgn": "T.sgn(x, out=o)",
    "sign": "T.sign(x, out=o)",
    "signbit": "T.signbit(x, out=o)",
    "slice_copy": "T.slice_copy(m, 0, 0, 1, out=o)",
    "softmax": "T.softmax(x, 0, out=o)",
    "squeeze_copy": "T.squeeze_copy(m, out=o)",
    "t_copy": "T.t_copy(m, out=o)",
    "take": "T.take(x, T.tensor([1]), out=o)",
    "take_along_dim": "T.take_along_dim(x, T.tensor([1]), 0, out=o)",
    "tensordot": "T.tensordot(m, m, out=o)",
    "transpose_copy": "T.transpose_copy(m, 0, 1, out=o)",
    "tril": "T.tril(m, out=o)",
    "triu": "T.triu(m, out=o)",
    "trunc": "T.trunc(x, out=o)",
    "unfold_copy": "T.unfold_copy(x, 0, 2, 1, out=o)",
    "unsqueeze_copy": "T.unsqueeze_copy(x, 0, out=o)",
    "vdot": "T.vdot(x, x, out=o)",
    "view_copy": "T.view_copy(x, (3, 1), out=o)",
    "where": "T.where(x > 0, x, x, out=o)",
    "special.round": "T.special.round(x, out=o)",
    "linalg.cholesky": "T.linalg.cholesky(m @ m.T, out=o)",
    "linalg.cross": "T.linalg.cross(x, x, out=o)",
    "linalg.det": "T.linalg.det(m, out=o)",
    "linalg.eigvalsh": "T.linalg.eigvalsh(m, out=o)",
    "linalg.inv": "T.linalg.inv(m, out=o)",
    "linalg.ldl_solve": "T.linalg.ldl_solve(*T.linalg.ldl_factor(m @ m.T), m, out=o)",
    "linalg.lu_solve": "T.linalg.lu_solve(*T.linalg.lu_factor(m), m, out=o)",
    "linalg.matmul": "T.linalg.matmul(m, m, out=o)",
    "linalg.matrix_norm": "T.linalg.matrix_norm(m, out=o)",
    "linalg.matrix_power": "T.linalg.matrix_power(m, 2, out=o)",
    "linalg.multi_dot": "T.linalg.multi_dot([m, m], out=o)",
    "linalg.norm": "T.linalg.norm(m, out=o)",
    "linalg.solve": "T.linalg.solve(m, m, out=o)",
    "linalg.solve_triangular": "T.linalg.solve_triangular(m.triu(), m, upper=True, out=o)",
    "linalg.svdvals": "T.linalg.svdvals(m, out=o)",
    "linalg.vecdot": "T.linalg.vecdot(x, x, out=o)",
    "linalg.vector_norm": "T.linalg.vector_norm(x, out=o)",
    "nn.functional.hardshrink": "T.nn.functional.hardshrink(x, out=o)",
    # these cast into out, as add does
    "add": "T.add(x, x, out=o)",
    "diff": "T.diff(x, out=o)",
    "exp": "T.exp(x, out=o)",
    "sum": "T.sum(x, 0, out=o)",
    "mean": "T.mean(x, 0, out=o)",
    "cat": "T.cat([x, x], out=o)",
    "stack": "T.stack([x, x], out=o)",
    "cholesky": "T.cholesky(m @ m.T, out=o)",
    "clamp by tensors": "T.clamp(x, T.tensor(0.0), T.tensor(1.0), out=o)",
    "clamp_min by a tensor": "T.clamp_min(x, T.tensor(0.0), out=o)",
    "matrix_power 4": "T.matrix_power(m, 4, out=o)",
    "linalg.matrix_power 1": "T.linalg.matrix_power(m, 1, out=o)",
    "kron": "T.kron(m, m, out=o)",
    "outer": "T.outer(x, x, out=o)",
    "cumprod": "T.cumprod(x, 0, out=o)",
    "maximum": "T.maximum(x, x, out=o)",
    "lerp": "T.lerp(x, x, 0.5, out=o)",
    "linalg.cond": "T.linalg.cond(m, out=o)",
}
OUT_DTYPE_CASTS = set(list(OUT_DTYPE_CALLS)[list(OUT_DTYPE_CALLS).index("add") :])


def _out_dtype_call(T, name: str):
    x = T.tensor([0.5, -1.5, 2.0])
    m, i = T.tensor([[2.0, 1.0], [0.5, 3.0]]), T.tensor([3, 5, 6])
    scope = {"T": T, "x": x, "m": m, "b": T.stack([m, m]), "i": i}
    result = eval(OUT_DTYPE_CALLS[name].replace("out=o", "out=None"), scope)
    wrong = T.float32 if result.dtype != T.float32 else T.float64
    return lambda: eval(OUT_DTYPE_CALLS[name], {**scope, "o": T.empty(0, dtype=wrong)})


@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated")
@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
@pytest.mark.parametrize("name", list(OUT_DTYPE_CALLS))
def test_out_of_another_float_dtype_is_refused_or_cast_as_in_pytorch(library_name, name):
    """matmul, abs, the norms, the *_copy views... refuse an out of another dtype
    (PyTorch's "Expected out tensor to have dtype float"); add, exp, cat... cast into it."""
    T = pytest.importorskip(library_name)
    call = _out_dtype_call(T, name)
    if name in OUT_DTYPE_CASTS:
        assert call().dtype in (T.float32, T.float64)
    else:
        with pytest.raises(RuntimeError):
            call()


@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
def test_cat_and_the_stacks_refuse_an_uncastable_out_with_type_error(library_name):
    T = pytest.importorskip(library_name)
    x, ints = T.ones(2), T.empty(0, dtype=T.int64)
    for call in (T.cat, T.stack, T.hstack, T.vstack, T.dstack, T.column_stack, T.row_stack):
        with pytest.raises(TypeError, match="can't be cast"):
            call([x, x], out=ints)
    with pytest.raises(RuntimeError, match="can't be cast"):
        T.add(x, x, out=ints)
