"""The named tuples that ops with several results return, under PyTorch's names.

``x.max(dim=0)`` returns a ``return_types.max``: a tuple, so ``values, indices = x.max(0)``
works, whose fields also have names (``.values``, ``.indices``). It prints as PyTorch prints
it, one field per line:

    microtorch.return_types.max(
    values=tensor([3., 4.], dtype=microtorch.float32, device='cpu'),
    indices=tensor([1, 1], dtype=microtorch.int64, device='cpu'))

Each type is named after the op that returns it (``linalg_`` in front for ``torch.linalg``'s),
as in ``torch.return_types``.
"""

from __future__ import annotations

import collections


def _result(name: str, fields: list[str]) -> type:
    """A named tuple type called ``name`` with these fields, printed as PyTorch's are."""

    class Result(collections.namedtuple(name, fields)):
        __slots__ = ()

        def __repr__(self) -> str:
            lines = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
            return f"microtorch.return_types.{type(self).__name__}(\n{lines})"

    # its own name and module, so that it prints, pickles and reads in a debugger by name
    Result.__name__ = Result.__qualname__ = name
    Result.__module__ = __name__
    return Result


# reductions and orderings along a dim
max = _result("max", ["values", "indices"])  # noqa: A001 (PyTorch's name)
min = _result("min", ["values", "indices"])  # noqa: A001 (PyTorch's name)
median = _result("median", ["values", "indices"])
nanmedian = _result("nanmedian", ["values", "indices"])
mode = _result("mode", ["values", "indices"])
kthvalue = _result("kthvalue", ["values", "indices"])
topk = _result("topk", ["values", "indices"])
sort = _result("sort", ["values", "indices"])
cummax = _result("cummax", ["values", "indices"])
cummin = _result("cummin", ["values", "indices"])
aminmax = _result("aminmax", ["min", "max"])
frexp = _result("frexp", ["mantissa", "exponent"])
histogram = _result("histogram", ["hist", "bin_edges"])
histogramdd = _result("histogramdd", ["hist", "bin_edges"])

# torch.linalg
linalg_slogdet = _result("linalg_slogdet", ["sign", "logabsdet"])
linalg_qr = _result("linalg_qr", ["Q", "R"])
linalg_eigh = _result("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_svd = _result("linalg_svd", ["U", "S", "Vh"])
linalg_lstsq = _result("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
linalg_inv_ex = _result("linalg_inv_ex", ["inverse", "info"])
linalg_solve_ex = _result("linalg_solve_ex", ["result", "info"])
linalg_cholesky_ex = _result("linalg_cholesky_ex", ["L", "info"])
linalg_lu_factor = _result("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = _result("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_lu = _result("linalg_lu", ["P", "L", "U"])
linalg_ldl_factor = _result("linalg_ldl_factor", ["LD", "pivots"])
linalg_ldl_factor_ex = _result("linalg_ldl_factor_ex", ["LD", "pivots", "info"])

# the older top-level linear-algebra names
slogdet = _result("slogdet", ["sign", "logabsdet"])
qr = _result("qr", ["Q", "R"])
svd = _result("svd", ["U", "S", "V"])
lu_unpack = _result("lu_unpack", ["P", "L", "U"])
triangular_solve = _result("triangular_solve", ["solution", "cloned_coefficient"])
geqrf = _result("geqrf", ["a", "tau"])
_lu_with_info = _result("_lu_with_info", ["LU", "pivots", "info"])
