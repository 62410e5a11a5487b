"""The named results of ops with several outputs (microtorch/return_types.py): PyTorch's type
names and fields, tuple behaviour, pickling, and PyTorch's printed form."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

import microtorch

# (what is called, as a function of the library) for every op that returns a named result
CALLS = {
    "max": lambda T, x, m: x.max(0),
    "min": lambda T, x, m: T.min(x, dim=1, keepdim=True),
    "median": lambda T, x, m: x.median(1),
    "nanmedian": lambda T, x, m: T.nanmedian(x, 0),
    "mode": lambda T, x, m: x.mode(),
    "kthvalue": lambda T, x, m: x.kthvalue(2, 1),
    "topk": lambda T, x, m: x.topk(2),
    "sort": lambda T, x, m: T.sort(x, descending=True),
    "cummax": lambda T, x, m: x.cummax(0),
    "cummin": lambda T, x, m: T.cummin(x, 1),
    "aminmax": lambda T, x, m: T.aminmax(x),
    "frexp": lambda T, x, m: T.frexp(x),
    "histogram": lambda T, x, m: T.histogram(x.flatten(), bins=3),
    "histogramdd": lambda T, x, m: T.histogramdd(x.mT, bins=[2, 3]),  # bin_edges: a tuple
    "linalg_slogdet": lambda T, x, m: T.linalg.slogdet(m),
    "linalg_qr": lambda T, x, m: T.linalg.qr(m),
    "linalg_eigh": lambda T, x, m: T.linalg.eigh(m @ m.mT),
    "linalg_svd": lambda T, x, m: T.linalg.svd(m),
    "linalg_lstsq": lambda T, x, m: T.linalg.lstsq(m, m),
    "linalg_inv_ex": lambda T, x, m: T.linalg.inv_ex(m),
    "linalg_solve_ex": lambda T, x, m: T.linalg.solve_ex(m, m),
    "linalg_cholesky_ex": lambda T, x, m: T.linalg.cholesky_ex(m @ m.mT),
    "linalg_lu_factor": lambda T, x, m: T.linalg.lu_factor(m),
    "linalg_lu_factor_ex": lambda T, x, m: T.linalg.lu_factor_ex(m),
    "linalg_lu": lambda T, x, m: T.linalg.lu(m),
    "linalg_ldl_factor": lambda T, x, m: T.linalg.ldl_factor(m @ m.mT),
    "linalg_ldl_factor_ex": lambda T, x, m: T.linalg.ldl_factor_ex(m @ m.mT),
    "slogdet": lambda T, x, m: T.slogdet(m),
    "svd": lambda T, x, m: T.svd(m),
    "lu_unpack": lambda T, x, m: T.lu_unpack(*T.linalg.lu_factor(m)),
    "geqrf": lambda T, x, m: T.geqrf(m),
}

X = np.array([[1.0, 4.0, 2.0], [3.0, 2.0, 5.0]])
M = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 0.0], [0.5, 0.0, 4.0]])


def call(T, name: str):
    return CALLS[name](T, T.tensor(X), T.tensor(M, dtype=T.float64))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_named_result_type_fields_and_tuple_behaviour(name):
    result = call(microtorch, name)
    assert type(result).__name__ == name
    assert type(result) is getattr(microtorch.return_types, name)
    assert isinstance(result, tuple)
    for field, value in zip(result._fields, result):
        assert getattr(result, field) is value  # a field by name is the same tensor
    *_, last = result  # unpacks as a tuple
    assert last is result[-1]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_named_result_pickles_with_its_type(name):
    result = call(microtorch, name)
    again = pickle.loads(pickle.dumps(result))
    assert type(again) is type(result)
    for a, b in zip(result, again):
        for u, v in zip(a, b) if isinstance(a, tuple) else [(a, b)]:
            np.testing.assert_array_equal(u.numpy(), v.numpy())


def _without_dtype_and_device(text: str) -> str:
    """The printed form with microtorch's extras (dtype and device, always shown) and its
    module name removed, so that it reads as PyTorch's."""
    text = re.sub(r",\s*dtype=(microtorch|torch)\.\w+", "", text)
    text = re.sub(r",\s*device='cpu'", "", text)
    text = text.replace("microtorch.return_types.", "torch.return_types.")
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_named_result_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = call(microtorch, name), call(torch, name)
    assert type(theirs).__name__ == name
    assert len(ours) == len(theirs)
    fields = [f for f in dir(type(theirs)) if f in ours._fields]
    assert sorted(fields) == sorted(ours._fields)  # the same field names
    if name in ("linalg_eigh", "linalg_svd", "svd", "linalg_qr", "geqrf", "linalg_ldl_factor",
                "linalg_ldl_factor_ex", "linalg_lu_factor", "linalg_lu_factor_ex", "linalg_lstsq",
                "linalg_solve_ex"):  # fmt: skip
        return  # (LAPACK's signs, pivots and last bits may differ; values are tested elsewhere)
    assert _without_dtype_and_device(repr(ours)) == _without_dtype_and_device(repr(theirs))


def test_printed_form_one_field_per_line():
    result = microtorch.tensor([[1.0, 4.0], [3.0, 2.0]]).max(0)
    assert repr(result) == (
        "microtorch.return_types.max(\n"
        "values=tensor([3., 4.], dtype=microtorch.float32, device='cpu'),\n"
        "indices=tensor([1, 0], dtype=microtorch.int64, device='cpu'))"
    )
    assert str(result) == repr(result)
