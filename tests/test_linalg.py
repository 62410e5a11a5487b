"""microtorch.linalg and the top-level linear-algebra names: what the op table
(tests/test_ops.py, LINALG) cannot express: errors, dtypes, empty and singular inputs,
extra outputs, and the names PyTorch has."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import microtorch

torch = pytest.importorskip("torch")

TOP_LEVEL = ["det", "logdet", "slogdet", "inverse", "cholesky", "pinverse", "matrix_power",
             "svd", "qr", "matrix_exp", "cholesky_solve", "cholesky_inverse", "triangular_solve",
             "lu", "lu_solve", "geqrf", "orgqr", "ormqr", "lstsq", "solve", "eig",
             "symeig"]  # fmt: skip
TOP_LEVEL_ONLY = ["lu_unpack", "svd_lowrank", "pca_lowrank", "matrix_rank", "lobpcg"]  # (no method)
LINALG = ["vector_norm", "matrix_norm", "norm", "det", "slogdet", "inv", "solve", "cholesky",
          "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_power", "multi_dot",
          "cross", "vecdot", "diagonal", "matmul", "solve_triangular", "matrix_rank", "lstsq",
          "LinAlgError", "matrix_exp", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "inv_ex",
          "solve_ex", "cholesky_ex", "cond", "vander", "tensorinv", "tensorsolve",
          "householder_product", "ldl_factor", "ldl_factor_ex", "ldl_solve"]  # fmt: skip


def _pair(array: np.ndarray) -> tuple:
    return microtorch.tensor(array), torch.tensor(array)


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_names_and_methods_exist_as_in_pytorch(name: str) -> None:
    assert hasattr(torch, name) and hasattr(microtorch, name)
    assert hasattr(torch.Tensor, name) and hasattr(microtorch.Tensor, name)


@pytest.mark.parametrize("name", TOP_LEVEL_ONLY)
def test_top_level_names_without_methods_exist_as_in_pytorch(name: str) -> None:
    assert hasattr(torch, name) and hasattr(microtorch, name)
    assert not hasattr(torch.Tensor, name) and not hasattr(microtorch.Tensor, name)


@pytest.mark.parametrize("name", LINALG)
def test_linalg_names_exist_as_in_pytorch(name: str) -> None:
    assert hasattr(torch.linalg, name) and hasattr(microtorch.linalg, name)


def test_singular_matrix_raises_linalg_error_a_runtime_error() -> None:
    assert issubclass(microtorch.linalg.LinAlgError, RuntimeError)
    singular = microtorch.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(microtorch.linalg.LinAlgError, match="linalg.inv"):
        microtorch.linalg.inv(singular)
    with pytest.raises(microtorch.linalg.LinAlgError, match="linalg.solve"):
        microtorch.linalg.solve(singular, microtorch.ones(2))
    with pytest.raises(microtorch.linalg.LinAlgError, match="positive-definite"):
        microtorch.linalg.cholesky(-microtorch.eye(2))
    with pytest.raises(torch.linalg.LinAlgError):  # what PyTorch does with the same input
        torch.linalg.inv(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))


@pytest.mark.parametrize(
    "call",
    [
        lambda T, a: T.linalg.inv(a),
        lambda T, a: T.inverse(a),
        lambda T, a: T.linalg.solve(a, a),
        lambda T, a: T.linalg.solve(a, a[..., 0]),
        lambda T, a: T.linalg.solve_ex(a, a, check_errors=True),
        lambda T, a: T.linalg.inv_ex(a, check_errors=True),
        lambda T, a: T.linalg.cholesky_ex(a, check_errors=True),
        lambda T, a: T.linalg.matrix_power(a, -2),
        lambda T, a: T.linalg.cholesky(a),
        lambda T, a: T.linalg.cholesky(a.mT @ a + T.nan * T.eye(3, dtype=a.dtype)),
        lambda T, a: T.cholesky_inverse(T.triu(a), upper=True),
    ],
)
@pytest.mark.parametrize("batch", [False, True])
def test_singular_matrices_raise_pytorchs_linalg_error_and_message(call, batch: bool) -> None:
    """The message names the failing matrix (its batch element) and LAPACK's info, as
    PyTorch's; a nan input raises from cholesky (PyTorch's LAPACK reports it) but not from inv
    and solve, which give nan."""
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 0.0]])  # singular, zero diagonal
    if batch:
        a = np.stack([np.eye(3) * 2, a])
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        call(torch, torch.tensor(a))
    with pytest.raises(microtorch.linalg.LinAlgError) as ours:
        call(microtorch, microtorch.tensor(a))
    assert str(ours.value).replace("torch.", "") == str(theirs.value).replace("torch.", "")
    nan = np.full((3, 3), np.nan)
    for T in (torch, microtorch):
        assert T.linalg.inv(T.tensor(nan)).isnan().all()
        assert T.linalg.solve(T.tensor(nan), T.ones(3, dtype=T.float64)).isnan().all()


def test_singular_determinants_as_pytorch() -> None:
    ours, theirs = _pair(np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert microtorch.linalg.det(ours).item() == torch.linalg.det(theirs).item() == 0
    for o, t in zip(microtorch.linalg.slogdet(ours), torch.linalg.slogdet(theirs)):
        assert o.item() == t.item()  # sign 0, logabsdet -inf
    negative = np.array([[0.0, 1.0], [1.0, 0.0]])  # det -1: logdet is nan
    assert math.isnan(microtorch.logdet(microtorch.tensor(negative)).item())
    assert math.isnan(torch.logdet(torch.tensor(negative)).item())
    assert microtorch.logdet(ours).item() == torch.logdet(theirs).item() == -math.inf


@pytest.mark.parametrize(
    "call",
    [
        lambda T, a: T.linalg.inv(a),
        lambda T, a: T.linalg.det(a),
        lambda T, a: T.linalg.cholesky(a),
        lambda T, a: T.linalg.eigh(a),
        lambda T, a: T.linalg.slogdet(a),
    ],
)
def test_non_square_and_integer_inputs_raise_runtime_error(call) -> None:
    for T in (microtorch, torch):
        with pytest.raises(RuntimeError, match="square"):
            call(T, T.zeros(2, 3))
        with pytest.raises(RuntimeError, match="floating point|not implemented for 'Long'"):
            call(T, T.eye(2).long())
        with pytest.raises(RuntimeError, match="at least 2 dim"):
            call(T, T.zeros(3))


def test_vector_norm_dtypes_as_pytorch() -> None:
    for T in (microtorch, torch):
        with pytest.raises(RuntimeError, match="floating point"):
            T.linalg.vector_norm(T.arange(3))
        with pytest.raises(RuntimeError, match="floating point"):
            T.norm(T.arange(3))
        with pytest.raises(RuntimeError, match="narrowing"):
            T.linalg.vector_norm(T.ones(2, dtype=T.float64), dtype=T.float32)
        out = T.linalg.vector_norm(T.ones(2, 2), dtype=T.float64)
        assert str(out.dtype).endswith("float64") and out.item() == 2.0


def test_norms_of_zeros_have_zero_gradient_as_pytorch() -> None:
    grads = []
    for T in (microtorch, torch):
        z = T.zeros(2, 3, dtype=T.float64, requires_grad=True)
        (T.linalg.vector_norm(z) + T.linalg.vector_norm(z, 3) + T.linalg.matrix_norm(z)).backward()
        grads.append(z.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[0], 0)


def test_linalg_norm_dispatch_errors() -> None:
    a = microtorch.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="1D or 2D"):
        microtorch.linalg.norm(a, 2)
    with pytest.raises(RuntimeError, match="1D or 2D"):
        torch.linalg.norm(torch.zeros(2, 3, 4), 2)
    with pytest.raises(RuntimeError, match="not supported"):
        microtorch.linalg.matrix_norm(a, 3)


def test_batched_results_are_each_matrix_s_own() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4, 4)) + 4 * np.eye(4)
    t = microtorch.tensor(a)
    for f in (microtorch.linalg.det, microtorch.linalg.inv, microtorch.linalg.svdvals):
        batched = f(t).numpy()
        for i in range(2):
            for j in range(3):
                np.testing.assert_allclose(batched[i, j], f(t[i, j]).numpy(), rtol=1e-12)


def test_solve_broadcasts_batch_dims_as_pytorch() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 1, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((4, 3, 2))
    ours, theirs = microtorch.linalg.solve(*_pair(a)[:1], _pair(b)[0]), None
    theirs = torch.linalg.solve(torch.tensor(a), torch.tensor(b))
    assert tuple(ours.shape) == tuple(theirs.shape) == (2, 4, 3, 2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        microtorch.linalg.solve(microtorch.eye(3), microtorch.ones(4, 2))


def test_qr_mode_r_and_complete_and_errors() -> None:
    a = np.random.default_rng(2).standard_normal((4, 3))
    ours, theirs = (
        microtorch.linalg.qr(microtorch.tensor(a), "r"),
        torch.linalg.qr(torch.tensor(a), "r"),
    )
    assert tuple(ours.Q.shape) == tuple(theirs.Q.shape) == (0,)
    np.testing.assert_allclose(np.abs(ours.R.numpy()), np.abs(theirs.R.numpy()), rtol=1e-10)
    q, r = microtorch.linalg.qr(microtorch.tensor(a, requires_grad=True), "complete")
    assert tuple(q.shape) == (4, 4) and tuple(r.shape) == (4, 3)
    with pytest.raises(RuntimeError, match="not differentiable"):
        q.sum().backward()  # as in PyTorch: complete with more rows than columns
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        microtorch.linalg.qr(microtorch.tensor(a), "full")


def test_torch_svd_compute_uv_false_and_cholesky_warning() -> None:
    a = np.random.default_rng(3).standard_normal((3, 2))
    ours, theirs = (
        microtorch.svd(microtorch.tensor(a), compute_uv=False),
        torch.svd(torch.tensor(a), compute_uv=False),
    )
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-10)
    spd = microtorch.tensor(a.T @ a + np.eye(2))
    with pytest.warns(UserWarning, match="deprecated"):
        upper = microtorch.cholesky(spd, upper=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(
            upper.numpy(), torch.cholesky(torch.tensor(spd.numpy()), upper=True).numpy()
        )


def test_lstsq_extra_outputs_as_pytorch_default_driver() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    ours = microtorch.linalg.lstsq(microtorch.tensor(a), microtorch.tensor(b))
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b))
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype)[-5:] == str(t.dtype)[-5:]
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-10)


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 5), (4, 4)])
def test_lstsq_outputs_of_each_driver_as_pytorch(driver: str, shape: tuple) -> None:
    """residuals for tall A ("gels"; "gelsd" and "gelss" when every A is full rank), rank
    (not "gels"), singular values ("gelsd", "gelss"); the residuals' gradient too."""
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(shape), rng.standard_normal((*shape[:-1], 2))
    results = []
    for T in (microtorch, torch):
        x = T.tensor(a, requires_grad=True)
        out = T.linalg.lstsq(x, T.tensor(b), driver=driver)
        if out.residuals.numel():
            out.residuals.sum().backward()
        results.append([t.detach().numpy() for t in out] + [x.grad])
        with pytest.raises(RuntimeError, match="driver"):
            T.linalg.lstsq(x, T.tensor(b), driver="gelsx")
    for ours, theirs in zip(*results):
        if theirs is None:
            assert ours is None
            continue
        theirs = theirs.numpy() if isinstance(theirs, torch.Tensor) else theirs
        ours = ours.numpy() if isinstance(ours, microtorch.Tensor) else ours
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-10)
    deficient = a.copy()
    deficient[..., -1] = deficient[..., 0]  # rank n - 1: no residuals from gelsd / gelss
    for T in (microtorch, torch):
        out = T.linalg.lstsq(T.tensor(deficient), T.tensor(b), driver=driver)
        assert out.residuals.numel() == (2 * math.prod(shape[:-2]) if driver == "gels" and
                                         shape[-2] > shape[-1] else 0)  # fmt: skip


def test_matrix_power_zero_and_errors() -> None:
    a = microtorch.randn(2, 3, 3)
    np.testing.assert_array_equal(
        microtorch.linalg.matrix_power(a, 0).numpy(), np.eye(3)[None].repeat(2, 0)
    )
    with pytest.raises(RuntimeError, match="square"):
        microtorch.linalg.matrix_power(microtorch.zeros(2, 3), 2)
    with pytest.raises(RuntimeError, match="at least 2"):
        microtorch.linalg.multi_dot([a[0]])


def test_empty_matrices_as_pytorch() -> None:
    for name in ("det", "inv", "svdvals", "matrix_norm"):
        ours = getattr(microtorch.linalg, name)(microtorch.zeros(2, 0, 0))
        theirs = getattr(torch.linalg, name)(torch.zeros(2, 0, 0))
        assert tuple(ours.shape) == tuple(theirs.shape), name
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_torch_qr_and_tensor_qr_warn_and_match_pytorch() -> None:
    a = np.random.default_rng(5).standard_normal((4, 3))
    with pytest.warns(UserWarning, match="deprecated"):
        q, r = microtorch.tensor(a).qr(some=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tq, tr = torch.qr(torch.tensor(a), some=False)
    assert tuple(q.shape) == tuple(tq.shape) == (4, 4)
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(tr.numpy()), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose((q @ r).numpy(), a, rtol=1e-10)


def test_det_gradient_of_a_singular_matrix_is_the_adjugate() -> None:
    """d det(A) / dA = adj(A)^T, for singular A too (finite differences agree). PyTorch 2.x
    returns zeros for these two matrices, which finite differences contradict: here
    microtorch keeps the true derivative."""
    for rows in ([[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]):
        a = np.array(rows)
        t = microtorch.tensor(a, requires_grad=True)
        microtorch.linalg.det(t).backward()
        numeric = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            step = np.zeros_like(a)
            step[i] = 1e-6
            numeric[i] = (np.linalg.det(a + step) - np.linalg.det(a - step)) / 2e-6
        np.testing.assert_allclose(t.grad.numpy(), numeric, atol=1e-6)
        assert np.abs(numeric).max() > 0.5  # a nonzero gradient to find
    assert microtorch.autograd.gradcheck(
        microtorch.linalg.det,
        [microtorch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=microtorch.float64, requires_grad=True)],
    )


def test_edge_values_as_pytorch() -> None:
    """ord=0 counts nan as nonzero with a zero gradient (PyTorch leaves the gradient None, the
    same zeros); matrix_power(A, 0) is the identity
    that still takes A's (zero) gradient; a vector B with left=False is a column, so
    X A = B fails for n > 1."""
    grads = []
    for T in (microtorch, torch):
        v = T.tensor([0.0, float("nan"), -2.0, float("inf")], requires_grad=True)
        n = T.linalg.vector_norm(v, 0)
        assert n.item() == 3.0 and n.requires_grad
        n.backward()
        a = T.eye(3, requires_grad=True)
        p = T.linalg.matrix_power(a * 2, 0)
        assert p.requires_grad
        p.sum().backward()
        grads.append((np.zeros(4) if v.grad is None else v.grad.numpy(), a.grad.numpy()))
        with pytest.raises(RuntimeError, match="Incompatible shapes"):
            T.linalg.solve(T.eye(3), T.ones(3), left=False)
        with pytest.raises(TypeError):
            T.linalg.vector_norm(T.ones(3), "fro")
    for ours, theirs in zip(*grads):
        np.testing.assert_array_equal(ours, theirs)


def test_changing_one_output_in_place_leaves_the_others_gradients_alone() -> None:
    """qr, eigh and svd give one graph node per output, each keeping the decomposition for
    its backward: writing into Q (or V, or U) must not change R's (w's, S's) gradient."""
    a = np.random.default_rng(6).standard_normal((4, 4))
    a = a + a.T
    cases = [
        (lambda t: microtorch.linalg.qr(t), 1),
        (lambda t: microtorch.linalg.eigh(t), 0),
        (lambda t: microtorch.linalg.svd(t), 1),
    ]
    for decompose, kept in cases:
        grads = []
        for change in (False, True):
            t = microtorch.tensor(a, requires_grad=True)
            outputs = decompose(t)
            if change:
                outputs[1 - kept].detach().mul_(100.0)
            outputs[kept].sum().backward()
            grads.append(t.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parametrize("a_dtype, b_dtype", [("float32", "float64"), ("float64", "float32")])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_solves_in_the_dtype_of_a_as_torch(a_dtype, b_dtype, left) -> None:
    """PyTorch's solve_triangular takes a B of another dtype and answers in A's (its
    linalg.solve refuses); ours refused, so MultivariateNormal(float32).log_prob of a
    float64 value raised where PyTorch's gives a float32 result."""
    a = [[2.0, 0.0], [0.5, 1.5]]
    b = [[1.0, -2.0], [0.5, 3.0]]
    results = []
    for lib in (microtorch, torch):
        A = lib.tensor(a, dtype=getattr(lib, a_dtype), requires_grad=True)
        B = lib.tensor(b, dtype=getattr(lib, b_dtype), requires_grad=True)
        x = lib.linalg.solve_triangular(A, B, upper=False, left=left)
        x.sum().backward()
        results.append((str(x.dtype).split(".")[-1], x.detach().numpy(), str(B.grad.dtype)[-7:]))
    (ours_dtype, ours, ours_grad), (their_dtype, theirs, their_grad) = results
    assert ours_dtype == their_dtype == a_dtype and ours_grad == their_grad
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    mvn = microtorch.distributions.MultivariateNormal(microtorch.zeros(2), microtorch.eye(2))
    value = microtorch.tensor([0.3, 0.5], dtype=microtorch.float64)
    assert mvn.log_prob(value).dtype is microtorch.float32


def test_eigh_eigenvector_gradient_is_symmetric_as_pytorch() -> None:
    """A function of eigh's eigenvectors has PyTorch's gradient: the symmetric one (A is
    symmetric), whichever triangle UPLO reads."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 3))
    a = a + np.swapaxes(a, -1, -2)
    weights = rng.standard_normal((2, 3, 3))
    for uplo in ("L", "U"):
        grads = []
        for T in (microtorch, torch):
            x = T.tensor(a, requires_grad=True)
            vectors = T.linalg.eigh(x, UPLO=uplo).eigenvectors
            (vectors.abs() * T.tensor(weights)).sum().backward()  # (free of the signs)
            grads.append(x.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(grads[0], np.swapaxes(grads[0], -1, -2), atol=1e-12)


@pytest.mark.parametrize("s", [[2.0, 1.0, 0.0], [3.0, 0.0]])
def test_svd_gradient_of_a_square_matrix_with_a_zero_singular_value_as_pytorch(s) -> None:
    """U and Vh of a square A are smooth where one singular value is 0 (and the others
    distinct): PyTorch's gradient is finite there, ours was 0 / 0 from a term that is zero."""
    rng = np.random.default_rng(3)
    n = len(s)
    q1, q2 = (np.linalg.qr(rng.standard_normal((n, n)))[0] for _ in range(2))
    a = q1 @ np.diag(s) @ q2.T
    weights = rng.standard_normal((3, n, n))
    grads = []
    for T in (microtorch, torch):
        x = T.tensor(a, requires_grad=True)
        U, S, Vh = T.linalg.svd(x)
        loss = (U * T.tensor(weights[0])).sum() + (Vh * T.tensor(weights[1])).sum()
        (loss + (U @ Vh * T.tensor(weights[2])).sum()).backward()
        grads.append(x.grad.numpy())
    assert np.isfinite(grads[0]).all()
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-8)


def test_logdet_of_a_negative_determinant_is_nan_with_zero_gradient_as_pytorch() -> None:
    batch = np.array([[[0.0, 1.0], [1.0, 0.0]], [[2.0, 0.0], [0.0, 3.0]]])  # det -1 and 6
    grads = []
    for T in (microtorch, torch):
        x = T.tensor(batch, requires_grad=True)
        out = T.logdet(x)
        assert math.isnan(out[0].item()) and out[1].item() == pytest.approx(math.log(6))
        out.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1])
    assert (grads[0][0] == 0).all()  # (not A^-T, which the nan hides)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3)])
@pytest.mark.parametrize("ord", ["fro", "nuc", 2, 1, -1, math.inf, -math.inf, -2])
def test_matrix_norm_of_empty_matrices_as_pytorch(shape: tuple, ord) -> None:
    """The largest of no norms is 0 (2, 1, inf); the smallest over an empty dim raises."""
    try:
        expected = torch.linalg.matrix_norm(torch.zeros(shape), ord)
    except IndexError:
        with pytest.raises(IndexError):
            microtorch.linalg.matrix_norm(microtorch.zeros(*shape), ord)
        return
    got = microtorch.linalg.matrix_norm(microtorch.zeros(*shape), ord)
    assert tuple(got.shape) == tuple(expected.shape) and (got.numpy() == 0).all()


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
def test_matrix_norm_of_float16_as_pytorch(ord) -> None:
    """The norms that need no SVD take float16 (2 and "nuc" refuse it, as in PyTorch)."""
    a = np.random.default_rng(4).standard_normal((2, 3, 3)).astype(np.float16)
    got = microtorch.linalg.matrix_norm(microtorch.tensor(a), ord)
    expected = torch.linalg.matrix_norm(torch.tensor(a), ord)
    assert got.dtype is microtorch.float16
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=2e-3)
    with pytest.raises(RuntimeError):
        microtorch.linalg.matrix_norm(microtorch.tensor(a), "nuc")


def test_torch_norm_picks_its_norm_as_pytorch() -> None:
    """p=None is the 2-norm; a string p other than "fro" over at most two dims is a matrix
    norm over ``dim``, all dims by default (so "nuc" of a 3-D tensor needs dim)."""
    a = np.random.default_rng(5).standard_normal((2, 3, 4))
    for call in (
        lambda T, x: T.norm(x, None),
        lambda T, x: T.norm(x, None, -1, True),
        lambda T, x: x.norm(None, (0, 2)),
        lambda T, x: T.norm(x, "nuc", dim=(0, 2)),
        lambda T, x: T.norm(x[0], "nuc"),
        lambda T, x: T.norm(x, "fro", (1,)),
    ):
        got, expected = call(microtorch, microtorch.tensor(a)), call(torch, torch.tensor(a))
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)
    for call in (
        lambda T, x: T.norm(x, "nuc"),  # a 3-D tensor: dims (0, 1, 2) are not 2
        lambda T, x: T.norm(x, "fro", (0, 1, 2)),
        lambda T, x: T.norm(x, "foo", (0, 1)),
        lambda T, x: T.norm(x[0, 0], "nuc"),  # 1-D: not a matrix
        lambda T, x: x[0].norm("nuc", 1),  # one dim
    ):
        for T in (microtorch, torch):
            with pytest.raises(RuntimeError):
                call(T, T.tensor(a))


@pytest.mark.parametrize(
    "dtypes", [("int64", "int64"), ("bool", "bool"), ("float32", "float64"), ("float32", "int64")]
)
def test_vecdot_refuses_integers_and_mixed_dtypes_as_pytorch(dtypes: tuple) -> None:
    for T in (microtorch, torch):
        x, y = (T.ones(2, 3, dtype=getattr(T, d)) for d in dtypes)
        with pytest.raises(RuntimeError, match="vecdot"):
            T.linalg.vecdot(x, y)
    got = microtorch.linalg.vecdot(microtorch.ones(2, 3), microtorch.ones(3), dim=-1)
    assert got.tolist() == [3.0, 3.0]  # broadcasting still works


def test_cross_refuses_mixed_dtypes_and_bools_as_pytorch() -> None:
    for T in (microtorch, torch):
        for cross in (T.cross, T.linalg.cross):
            with pytest.raises(RuntimeError):
                cross(T.ones(2, 3), T.ones(2, 3, dtype=T.int64), dim=1)
            with pytest.raises(NotImplementedError):
                cross(T.ones(2, 3, dtype=T.bool), T.ones(2, 3, dtype=T.bool), dim=1)
            with pytest.raises(NotImplementedError):  # a bool input before the other's dtype
                cross(T.ones(2, 3, dtype=T.bool), T.ones(2, 3), dim=1)
        assert T.cross(T.eye(3).long(), T.eye(3).long()[[1, 2, 0]], dim=1).tolist() == [
            [0, 0, 1], [1, 0, 0], [0, 1, 0]
        ]  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        lambda T, a: T.linalg.eigh(a),
        lambda T, a: T.linalg.eigvalsh(a),
        lambda T, a: T.linalg.solve_triangular(a, a, upper=True),
    ],
)
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_integer_inputs_raise_not_implemented_where_pytorch_does(call, dtype: str) -> None:
    """eigh and solve_triangular raise NotImplementedError for integer and bool tensors
    (the others RuntimeError, see above), as in PyTorch."""
    for T in (microtorch, torch):
        with pytest.raises(NotImplementedError):
            call(T, T.eye(2).to(getattr(T, dtype)))


@pytest.mark.parametrize(
    "call",
    [
        lambda T, a: T.linalg.slogdet(a),
        lambda T, a: T.logdet(a),
        lambda T, a: T.linalg.inv(a),
        lambda T, a: T.linalg.inv_ex(a),
        lambda T, a: T.linalg.pinv(a),
        lambda T, a: T.linalg.matrix_rank(a),
        lambda T, a: T.linalg.lstsq(a, a),
        lambda T, a: T.linalg.matrix_norm(a, 2),
        lambda T, a: T.linalg.cond(a, 1),
        lambda T, a: T.linalg.cond(a),
        lambda T, a: T.linalg.det(a),
        lambda T, a: T.linalg.svd(a),
        lambda T, a: T.cdist(a, a),
    ],
)
def test_float16_inputs_raise_pytorchs_error_type(call) -> None:
    """PyTorch's CPU float16 refusals: RuntimeError ("Low precision dtypes not supported")
    from its checks, NotImplementedError from its kernels; lu_unpack takes float16."""
    a = np.eye(3, dtype=np.float16)
    with pytest.raises(RuntimeError) as theirs:
        call(torch, torch.tensor(a))
    with pytest.raises(RuntimeError if theirs.type is not NotImplementedError else
                       NotImplementedError) as ours:  # fmt: skip
        call(microtorch, microtorch.tensor(a))
    assert (theirs.type is NotImplementedError) == (ours.type is NotImplementedError)
    LU, pivots = microtorch.linalg.lu_factor(microtorch.eye(3))
    assert microtorch.lu_unpack(LU.half(), pivots).L.dtype is microtorch.float16


def test_pinv_rcond_and_matrix_rank_tol_older_forms_as_pytorch() -> None:
    """pinv(A, rcond) is rtol=rcond; matrix_rank(A, tol) is atol=tol, rtol=0; neither mixes
    with atol=/rtol= (TypeError)."""
    a = np.array([[1.0, 0.0], [0.0, 0.05]])
    for T in (microtorch, torch):
        x = T.tensor(a)
        assert T.linalg.pinv(x, 0.1).tolist() == [[1.0, 0.0], [0.0, 0.0]]
        assert T.linalg.pinv(x, rcond=0.01, hermitian=True).tolist() == [[1.0, 0.0], [0.0, 20.0]]
        assert T.linalg.matrix_rank(x, 0.1).item() == 1
        assert T.linalg.matrix_rank(x * 10, tol=0.1).item() == 2  # absolute, not relative
        assert T.linalg.matrix_rank(x, 0.04, True).item() == 2
        with pytest.raises(TypeError):
            T.linalg.pinv(x, 0.1, rtol=0.2)
        with pytest.raises(TypeError):
            T.linalg.matrix_rank(x, 0.1, atol=0.2)


def test_top_level_names_take_pytorchs_input_keyword() -> None:
    """torch.det, torch.slogdet and torch.matrix_power take input= (linalg's take A)."""
    a = np.array([[2.0, 1.0], [0.0, 3.0]])
    for T in (microtorch, torch):
        x = T.tensor(a)
        assert T.det(input=x).item() == pytest.approx(6.0)
        assert T.slogdet(input=x).logabsdet.item() == pytest.approx(math.log(6.0))
        assert T.matrix_power(input=x, n=2).tolist() == [[4.0, 5.0], [0.0, 9.0]]


@pytest.mark.parametrize("b_dtype", ["float64", "float32", "int64", "bool"])
def test_solve_triangular_casts_b_to_a_s_dtype_as_pytorch(b_dtype: str) -> None:
    """PyTorch solves in A's dtype whatever B's is (linalg.solve asks for one dtype)."""
    a = np.triu(np.random.default_rng(6).standard_normal((3, 3))) + 3 * np.eye(3)
    b = np.arange(6.0).reshape(3, 2)
    results = []
    for T in (microtorch, torch):
        A = T.tensor(a, dtype=T.float32, requires_grad=True)
        B = T.tensor(b).to(getattr(T, b_dtype))
        X = T.linalg.solve_triangular(A, B, upper=True)
        assert X.dtype is T.float32
        X.sum().backward()
        results.append((X.detach().numpy(), A.grad.numpy()))
        if b_dtype != "float32":
            with pytest.raises(RuntimeError):
                T.linalg.solve(A, B)  # (solve does not cast)
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_triangular_solves_with_a_zero_on_the_diagonal_give_inf_and_nan_as_pytorch() -> None:
    """LAPACK's trsm and potrs do not check the diagonal: the divisions by zero give inf and
    nan (ours raised LinAlgError); the gradients through singular factors (qr, lu, slogdet)
    are nan and inf too, not an error. cholesky_inverse checks (potri does)."""
    rng = np.random.default_rng(5)
    t = np.triu(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    t[1, 1] = 0
    b = rng.standard_normal((3, 2))
    calls = [
        lambda T, t, b: T.linalg.solve_triangular(t, b, upper=True),
        lambda T, t, b: T.linalg.solve_triangular(t.mT, b.mT, upper=False, left=False),
        lambda T, t, b: T.triangular_solve(b, t).solution,
        lambda T, t, b: T.cholesky_solve(b, t, upper=True),
        lambda T, t, b: T.cholesky_solve(b, t.mT),
    ]
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = call(microtorch, microtorch.tensor(t), microtorch.tensor(b)).numpy()
            theirs = call(torch, torch.tensor(t), torch.tensor(b)).numpy()
        assert not np.isfinite(ours).all()
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)  # (inf and nan where PyTorch's)
    singular = np.diag([2.0, 1.0, 0.0])
    for f in (lambda T, x: sum(T.linalg.qr(x)), lambda T, x: T.linalg.lu_factor(x + 0 * x.T)[0],
              lambda T, x: T.linalg.slogdet(x)[1]):  # fmt: skip
        grads = []
        for T in (microtorch, torch):
            x = T.tensor(singular, requires_grad=True)
            try:
                f(T, x).sum().backward()
            except RuntimeError:  # (lu_factor refuses the singular matrix, in both)
                x = T.tensor(singular, requires_grad=True)
                T.linalg.lu_factor_ex(x).LU.sum().backward()
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(np.isfinite(grads[0]), np.isfinite(grads[1]))


def _with_infinities(rng, shape: tuple) -> np.ndarray:
    """Normal values with about a tenth each of inf, -inf, nan and zeros."""
    values = rng.standard_normal(shape)
    u = rng.random(shape)
    values[u < 0.1], values[(u >= 0.1) & (u < 0.2)] = np.inf, -np.inf
    values[(u >= 0.2) & (u < 0.3)], values[(u >= 0.3) & (u < 0.4)] = np.nan, 0.0
    return values


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular_with_inf_nan_and_zero_pivots_gives_pytorchs_values(
    upper: bool, left: bool, unitriangular: bool
) -> None:
    """By substitution, as BLAS's trsm (PyTorch's): an inf in B or in A's triangle, or a
    zero on its diagonal, gives inf where PyTorch's does (a general solve gave nan all
    over); A's other triangle, and its diagonal when unitriangular, are never read. Batched,
    broadcast, in float64 and float32; triangular_solve too."""
    rng = np.random.default_rng(7)
    for trial in range(12):
        n, k = 1 + trial % 4, 1 + trial % 3
        A = _with_infinities(rng, (3, 1, n, n) if trial % 2 else (n, n))
        B = _with_infinities(rng, (2, n, k) if left else (2, k, n))
        for dtype in ("float64", "float32"):
            solved = []
            for T in (microtorch, torch):
                a, b = T.tensor(A, dtype=getattr(T, dtype)), T.tensor(B, dtype=getattr(T, dtype))
                X = T.linalg.solve_triangular(
                    a, b, upper=upper, left=left, unitriangular=unitriangular
                )
                solved.append(X.numpy())
                if left:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # (triangular_solve's deprecation)
                        Y = T.triangular_solve(b, a, upper, not upper, unitriangular).solution
                    solved.append(Y.numpy())
            half = len(solved) // 2
            for ours, theirs in zip(solved[:half], solved[half:]):
                assert ours.dtype == theirs.dtype
                np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
                np.testing.assert_array_equal(np.isposinf(ours), np.isposinf(theirs))
                np.testing.assert_array_equal(np.isneginf(ours), np.isneginf(theirs))
                rtol = 1e-4 if dtype == "float32" else 1e-10
                np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol)


def test_solve_triangular_gradients_at_a_zero_pivot_and_an_inf_are_pytorchs() -> None:
    rng = np.random.default_rng(8)
    A = np.triu(rng.standard_normal((3, 3))) + 2 * np.eye(3)
    A[1, 1] = 0.0
    B = rng.standard_normal((3, 2))
    B[0, 0] = np.inf
    for upper, unitriangular in ((True, False), (False, False), (True, True)):
        grads = []
        for T in (microtorch, torch):
            a, b = T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)
            X = T.linalg.solve_triangular(a, b, upper=upper, unitriangular=unitriangular)
            X.sum().backward()
            grads.append((X.detach().numpy(), a.grad.numpy(), b.grad.numpy()))
        for ours, theirs in zip(*grads):
            np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
            np.testing.assert_allclose(ours, theirs, rtol=1e-10)


@pytest.mark.parametrize("dim", [1, None, (0,), (0, 1, 2)])
def test_matrix_norm_dim_errors_as_pytorch(dim) -> None:
    """An int or None is the wrong type (TypeError); a tuple of another length RuntimeError."""
    expected = TypeError if dim is None or isinstance(dim, int) else RuntimeError
    for T in (microtorch, torch):
        with pytest.raises(expected) as caught:
            T.linalg.matrix_norm(T.ones(2, 3, 4), dim=dim)
        assert type(caught.value) is expected


def test_norm_gradient_where_the_norm_overflows_as_pytorch() -> None:
    """A 2-norm (or 3-norm) that overflowed to inf has gradient x / inf = 0 for finite x (nan
    only for an infinite x), as in PyTorch; y / s = inf / inf gave nan everywhere."""
    for values, ord in (([1e200, -3e200, 2.0], 2), ([1e200, 2.0], 3), ([math.inf, 1.0], 2)):
        grads = []
        for T in (microtorch, torch):
            x = T.tensor(values, dtype=T.float64, requires_grad=True)
            T.linalg.vector_norm(x, ord).backward()
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])


def test_zero_norm_counts_nonzeros_and_gives_no_gradient_as_pytorch() -> None:
    """The 0-"norm" counts nonzero elements (nan too); it requires grad, but backward leaves
    x.grad None in PyTorch (no zeros), for every dim and keepdim."""
    for args in ({}, {"dim": 1}, {"dim": (0, 1), "keepdim": True}, {"dim": -1, "keepdim": True}):
        got = []
        for T in (microtorch, torch):
            x = T.tensor([[0.0, 2.0, math.nan], [0.0, 0.0, -1.0]], requires_grad=True)
            y = T.linalg.vector_norm(x, 0, **args)
            y.sum().backward()
            got.append((y.tolist(), y.requires_grad, x.grad is None))
        assert got[0] == got[1], args
    for T in (microtorch, torch):  # PyTorch's cdist and pdist do give a (zero) gradient
        x = T.tensor([[0.0, 1.0], [0.0, 2.0], [3.0, 1.0]], requires_grad=True)
        (T.cdist(x, x.flip(0), p=0).sum() + T.nn.functional.pdist(x, p=0).sum()).backward()
        assert x.grad.tolist() == [[0.0, 0.0]] * 3


def test_float16_norms_sum_their_powers_in_float32_as_pytorch() -> None:
    """3e4 ** 2 overflows float16; PyTorch sums a float16 norm's powers in float32, so the
    norm of [3e4, 2] is 3e4 (not inf), and the gradient of a tiny element is not lost."""
    for values, ord in (([3e4, 2.0, 1e-6], 2), ([1e-6], 2), ([10.0, -4.0, 0.0], 3)):
        got = []
        for T in (microtorch, torch):
            x = T.tensor(values, dtype=T.float16, requires_grad=True)
            y = T.linalg.vector_norm(x, ord)
            y.backward()
            got.append((y.dtype == T.float16, y.item(), x.grad.numpy()))
        assert got[0][0] and got[1][0]
        np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-3)
        np.testing.assert_allclose(got[0][2], got[1][2], rtol=2e-3, atol=1e-4)


def test_eigh_takes_uplo_in_either_case_as_pytorch() -> None:
    a = np.array([[2.0, 5.0], [1.0, 3.0]])  # not symmetric: the triangle read matters
    for uplo in ("l", "u"):
        got = microtorch.linalg.eigvalsh(microtorch.tensor(a), uplo)
        expected = torch.linalg.eigvalsh(torch.tensor(a), uplo)
        np.testing.assert_allclose(got.numpy(), expected.numpy())
        assert microtorch.linalg.eigh(microtorch.tensor(a), UPLO=uplo).eigenvalues.tolist() == (
            got.tolist()
        )
    with pytest.raises(RuntimeError, match="UPLO"):
        microtorch.linalg.eigh(microtorch.tensor(a), "LU")


def test_svd_takes_driver_none_and_refuses_a_driver_on_the_cpu_as_pytorch() -> None:
    a = np.random.default_rng(7).standard_normal((3, 2))
    for T in (microtorch, torch):
        x = T.tensor(a)
        np.testing.assert_allclose(
            T.linalg.svd(x, False, driver=None).S.numpy(), np.linalg.svd(a)[1]
        )
        np.testing.assert_allclose(T.linalg.svdvals(x, driver=None).numpy(), np.linalg.svd(a)[1])
        for call in (T.linalg.svd, T.linalg.svdvals):
            with pytest.raises(RuntimeError, match="driver"):
                call(x, driver="gesvd")


def test_matrix_power_takes_numpy_and_0d_tensor_integers_as_pytorch() -> None:
    for T in (microtorch, torch):
        x = T.tensor([[2.0, 1.0], [0.0, 1.0]])
        for n in (np.int64(3), T.tensor(3)):
            assert T.linalg.matrix_power(x, n).tolist() == [[8.0, 7.0], [0.0, 1.0]]
        for n in (T.tensor([3]), 3.0, True, np.float64(3)):
            with pytest.raises(TypeError):
                T.linalg.matrix_power(x, n)


@pytest.mark.parametrize("dim", [None, 0.0])
def test_linalg_cross_dim_must_be_an_int_as_pytorch(dim) -> None:
    """linalg.cross has no torch.cross rule of 'the first dim of size 3' for dim=None."""
    for T in (microtorch, torch):
        with pytest.raises(TypeError):
            T.linalg.cross(T.ones(3, 3), T.ones(3, 3), dim=dim)


def test_multi_dot_of_one_tensor_raises_type_error_as_pytorch() -> None:
    for T in (microtorch, torch):
        with pytest.raises(TypeError):
            T.linalg.multi_dot(T.ones(3, 3))  # not a list: its rows were taken as the chain
        assert T.linalg.multi_dot((T.ones(2), T.ones(2, 2))).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("shape", [(4, 3), (3, 5)])
def test_qr_backward_after_the_input_changed_in_place_as_pytorch(shape: tuple) -> None:
    """qr's backward reads only Q and R (PyTorch's), so changing A in place afterwards is
    allowed and the gradient is the one at the A that was factorised."""
    a = np.random.default_rng(8).standard_normal(shape)
    grads = []
    for T in (microtorch, torch):
        x = T.tensor(a, requires_grad=True)
        y = x * 1.0
        q, r = T.linalg.qr(y)
        y.add_(1.0)
        (((q @ r) * T.tensor(a)).sum() + r.abs().sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


def test_pinv_and_matrix_rank_take_batched_tolerance_tensors_as_pytorch() -> None:
    """atol / rtol as tensors broadcast against the batch: one tolerance per matrix (and the
    default rtol only where atol is not above 0)."""
    a = np.stack([np.diag([1.0, 0.1, 0.01]), np.diag([1.0, 0.5, 0.2])])
    for T in (microtorch, torch):
        x = T.tensor(a)
        per_matrix = T.tensor([0.05, 0.3], dtype=x.dtype)
        assert T.linalg.matrix_rank(x, atol=per_matrix).tolist() == [2, 2]
        assert T.linalg.matrix_rank(x, atol=T.tensor([0.0, 0.3], dtype=x.dtype)).tolist() == [3, 2]
        assert T.linalg.matrix_rank(x, rtol=T.tensor(0.05, dtype=x.dtype)).tolist() == [2, 3]
        inverse = T.linalg.pinv(x, atol=per_matrix)
        np.testing.assert_allclose(
            T.diagonal(inverse, 0, -2, -1).numpy(), [[1.0, 10.0, 0.0], [1.0, 2.0, 0.0]]
        )


def test_pinv_and_matrix_rank_hermitian_read_the_lower_triangle_as_pytorch() -> None:
    """hermitian=True takes A as the symmetric matrix of its lower triangle (through eigh, as
    PyTorch); pinv's gradient is then Golub and Pereyra's with A as given, as PyTorch's."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 4, 4))
    a[1, :, 3] = 0  # rank 3 through the lower triangle only
    a[1, 3, :3] = 0
    weights = rng.standard_normal((2, 4, 4))
    results = []
    for T in (microtorch, torch):
        x = T.tensor(a, requires_grad=True)
        p = T.linalg.pinv(x, hermitian=True)
        (p * T.tensor(weights)).sum().backward()
        rank = T.linalg.matrix_rank(x.detach(), hermitian=True)
        results.append((p.detach().numpy(), x.grad.numpy(), rank.tolist()))
        with pytest.raises(RuntimeError, match="square"):
            T.linalg.pinv(T.ones(2, 3), hermitian=True)
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-8)
    assert results[0][2] == [4, 3]
    symmetric = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
    np.testing.assert_allclose(results[0][0], np.linalg.pinv(symmetric), atol=1e-8)


@pytest.mark.parametrize("ord", [math.inf, -math.inf])
def test_inf_norm_gradient_of_a_row_with_nan_is_zero_as_pytorch(ord: float) -> None:
    """PyTorch's inf-norm gradient is sign(x) shared by the entries whose |x| is the norm;
    in a row holding nan none is, so that row gets 0 (abs then amax gave nan everywhere)."""
    torch = pytest.importorskip("torch")
    rows = [[math.nan, 1.0, -3.0], [1.0, 3.0, -3.0], [0.0, -0.0, 2.0]]
    results = []
    for lib in (microtorch, torch):
        x = lib.tensor(rows, requires_grad=True)
        y = lib.linalg.vector_norm(x, ord, 1)
        y.backward(lib.tensor([1.0, 2.0, 3.0]))
        results.append((y.detach().numpy(), x.grad.numpy()))
    (y, dx), (their_y, their_dx) = results
    np.testing.assert_array_equal(y, their_y)
    np.testing.assert_array_equal(dx, their_dx)
    np.testing.assert_array_equal(np.signbit(dx), np.signbit(their_dx))


def test_vector_norm_ord_as_a_0d_tensor_or_numpy_integer_as_pytorch() -> None:
    for T in (microtorch, torch):
        x = T.tensor([3.0, -4.0])
        for ord, expected in ((T.tensor(1), 7.0), (np.int64(1), 7.0), (T.tensor(math.inf), 4.0)):
            assert T.linalg.vector_norm(x, ord).item() == expected
            assert T.norm(x, ord).item() == expected
        with pytest.raises(TypeError):
            T.linalg.vector_norm(x, T.tensor([2.0]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (the overflowed norm, on fake CuPy)
def test_this_round_s_linalg_paths_on_every_device(device: str) -> None:
    """The paths fixed above (tolerance tensors, empty and float16 matrix norms, eigh's
    symmetric gradient, logdet's zero gradient, solve_triangular's cast, qr's backward, the
    overflowed norm's gradient) on the CPU and on CUDA (or the fake CuPy)."""
    T = microtorch
    batch = T.tensor(np.stack([np.diag([1.0, 0.1, 0.01]), np.diag([1.0, 0.5, 0.2])]), device=device)
    tolerance = T.tensor([0.05, 0.3], dtype=T.float64, device=device)
    assert T.linalg.matrix_rank(batch, atol=tolerance).tolist() == [2, 2]
    assert T.diagonal(T.linalg.pinv(batch, atol=tolerance), 0, -2, -1).cpu().tolist() == [
        [1.0, 10.0, 0.0], [1.0, 2.0, 0.0]
    ]  # fmt: skip
    assert T.linalg.matrix_norm(T.zeros(3, 0, device=device), 2).item() == 0.0
    half = T.linalg.matrix_norm(T.ones(2, 2, device=device).half(), 1)
    assert half.dtype is T.float16 and half.item() == 2.0
    a = T.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=T.float64, device=device, requires_grad=True)
    T.linalg.eigh(a).eigenvectors.abs().sum().backward()
    g = a.grad.cpu().numpy()
    assert np.allclose(g, g.T)
    x = T.tensor([[0.0, 1.0], [1.0, 0.0]], device=device, requires_grad=True)
    T.logdet(x).backward()
    assert (x.grad.cpu().numpy() == 0).all()
    A = T.triu(T.ones(3, 3, device=device)) + T.eye(3, device=device)
    assert (
        T.linalg.solve_triangular(A, T.ones(3, 1, dtype=T.int64, device=device), upper=True).dtype
        is T.float32
    )
    wide = np.random.default_rng(9).standard_normal((3, 5))
    w = T.tensor(wide, device=device, requires_grad=True)
    y = w * 1.0
    q, r = T.linalg.qr(y)
    y.add_(1.0)
    r.abs().sum().backward()
    assert w.grad.shape == (3, 5)
    v = T.tensor([1e200, 2.0], dtype=T.float64, device=device, requires_grad=True)
    T.linalg.vector_norm(v).backward()
    assert v.grad.cpu().tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="driver"):
        T.linalg.svdvals(batch, driver="gesvd") if device == "cpu" else T.linalg.svdvals(
            batch, driver="nope"
        )


# ---------------------------------------------------------------- matrix_exp, LU, the _ex forms...
def _fields(result: tuple) -> tuple:
    """A namedtuple's or a torch.return_types result's field names."""
    return getattr(result, "_fields", None) or type(result).__match_args__


def _rng_matrix(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("scale", [1e-3, 1e-1, 1.0, 10.0, 100.0])
def test_matrix_exp_to_float64_precision_as_pytorch(scale: float) -> None:
    """Norms from 1e-3 to 1e2: within a few ulps of PyTorch (relative to the largest entry),
    and exp(A) exp(-A) = I where that is representable."""
    a = _rng_matrix(2, 5, 5) * scale / 3
    ours = microtorch.linalg.matrix_exp(microtorch.tensor(a)).numpy()
    theirs = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
    assert np.abs(ours - theirs).max() <= 1e-13 * np.abs(theirs).max()
    if scale <= 1:
        inverse = microtorch.linalg.matrix_exp(microtorch.tensor(-a)).numpy()
        assert np.abs(ours @ inverse - np.eye(5)).max() < 1e-14


def test_matrix_exp_of_known_matrices_and_its_gradient_at_large_norm() -> None:
    T = microtorch
    rotation = T.linalg.matrix_exp(T.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=T.float64))
    np.testing.assert_allclose(
        rotation.numpy(), [[math.cos(1), -math.sin(1)], [math.sin(1), math.cos(1)]], atol=1e-15
    )
    nilpotent = T.matrix_exp(T.tensor([[0.0, 2.0], [0.0, 0.0]], dtype=T.float64))
    assert nilpotent.tolist() == [[1.0, 2.0], [0.0, 1.0]]
    a = _rng_matrix(3, 3, seed=1) * 30
    x, y = T.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    w = _rng_matrix(3, 3, seed=2)
    (T.linalg.matrix_exp(x) * T.tensor(w)).sum().backward()
    (torch.linalg.matrix_exp(y) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-9)
    half = T.linalg.matrix_exp(T.eye(2).half())
    assert half.dtype is T.float16 and abs(half[0, 0].item() - math.e) < 2e-3


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 2, 6), (1, 1), (0, 3, 3), (0, 0)])
def test_lu_factor_pivots_and_info_as_pytorch(shape: tuple) -> None:
    """LAPACK's packing and 1-based int32 pivots; P, L, U of linalg.lu; the namedtuples'
    field names."""
    a, t = _pair(_rng_matrix(*shape, seed=3))
    ours, theirs = microtorch.linalg.lu_factor_ex(a), torch.linalg.lu_factor_ex(t)
    assert _fields(ours) == _fields(theirs) == ("LU", "pivots", "info")
    assert ours.pivots.dtype is microtorch.int32 and ours.info.dtype is microtorch.int32
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    assert ours.info.tolist() == theirs.info.tolist()
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), atol=1e-14)
    assert _fields(microtorch.linalg.lu_factor(a)) == _fields(torch.linalg.lu_factor(t))
    plu, tplu = microtorch.linalg.lu(a), torch.linalg.lu(t)
    assert _fields(plu) == _fields(tplu) == ("P", "L", "U")
    for o, r in zip(plu, tplu):
        assert o.shape == r.shape
        np.testing.assert_allclose(o.numpy(), r.numpy(), atol=1e-14)


def test_lu_of_singular_matrices_as_pytorch() -> None:
    """lu_factor raises (RuntimeError); lu_factor_ex gives the factorisation and info; lu
    and torch.lu factorise singular matrices without raising."""
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0],
                        [0.0, 0.0]]])  # fmt: skip
    a, t = _pair(singular)
    with pytest.raises(RuntimeError, match="is zero"):
        torch.linalg.lu_factor(t)
    with pytest.raises(RuntimeError, match="is zero"):
        microtorch.linalg.lu_factor(a)
    with pytest.raises(RuntimeError, match="is zero"):
        microtorch.linalg.lu_factor_ex(a, check_errors=True)
    ours, theirs = microtorch.linalg.lu_factor_ex(a), torch.linalg.lu_factor_ex(t)
    assert ours.info.tolist() == theirs.info.tolist() == [2, 0, 1]
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy())
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        LU, pivots, info = microtorch.lu(a, get_infos=True)
    assert info.tolist() == [2, 0, 1]
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        assert len(microtorch.lu(a)) == 2
    P, L, U = microtorch.linalg.lu(a)
    np.testing.assert_allclose((P @ L @ U).numpy(), singular)


def test_lu_errors_as_pytorch() -> None:
    T = microtorch
    with pytest.raises(RuntimeError, match="not implemented on the CPU"):
        T.linalg.lu_factor(T.eye(2), pivot=False)
    with pytest.raises(RuntimeError, match="not implemented on the CPU"):
        torch.linalg.lu_factor(torch.eye(2), pivot=False)
    for module in (T, torch):
        with pytest.raises(NotImplementedError):
            module.linalg.lu_factor(module.ones(2, 2, dtype=module.int64))
        with pytest.raises(RuntimeError, match="2 or more dimensions|at least 2 dimensions"):
            module.linalg.lu_factor(module.ones(3))
        LU, pivots = module.linalg.lu_factor(module.eye(3))
        with pytest.raises(RuntimeError, match="Incompatible shapes"):
            module.linalg.lu_solve(LU, pivots, module.ones(4, 2))
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            module.linalg.lu_solve(LU, pivots, module.ones(3))
        with pytest.raises(RuntimeError, match="square"):
            module.linalg.lu_solve(module.ones(3, 2), pivots[:2], module.ones(3, 1))


def test_lu_unpack_flags_and_lu_solve_warning_as_pytorch() -> None:
    a, t = _pair(_rng_matrix(4, 3, seed=4))
    ours = microtorch.lu_unpack(*microtorch.linalg.lu_factor(a), unpack_data=False)
    theirs = torch.lu_unpack(*torch.linalg.lu_factor(t), unpack_data=False)
    assert _fields(ours) == _fields(theirs)
    assert [tuple(x.shape) for x in ours] == [tuple(x.shape) for x in theirs] == [(4, 4), (0,),
                                                                                  (0,)]  # fmt: skip
    ours = microtorch.lu_unpack(*microtorch.linalg.lu_factor(a), unpack_pivots=False)
    assert tuple(ours.P.shape) == (0,) and tuple(ours.L.shape) == (4, 3)
    b = microtorch.tensor(_rng_matrix(3, 3, seed=5))
    with pytest.warns(UserWarning, match="lu_solve is deprecated"):
        x = microtorch.lu_solve(microtorch.ones(3, 1, dtype=microtorch.float64),
                                *microtorch.linalg.lu_factor(b))  # fmt: skip
    np.testing.assert_allclose((b @ x).numpy(), np.ones((3, 1)), atol=1e-12)


def test_lu_gradients_pass_gradcheck_on_well_conditioned_matrices() -> None:
    """lu_factor / lu (square, tall, wide, batched) and lu_solve in both LU and B."""
    T = microtorch
    from microtorch.autograd import gradcheck

    for shape in [(3, 3), (2, 4, 3), (3, 5)]:
        a = T.tensor(_rng_matrix(*shape, seed=6), requires_grad=True)
        assert gradcheck(lambda m: T.linalg.lu_factor(m).LU, (a,))
        assert gradcheck(lambda m: tuple(T.linalg.lu(m))[1:], (a,))
    a = T.tensor(_rng_matrix(2, 3, 3, seed=7) + 3 * np.eye(3), requires_grad=True)
    b = T.tensor(_rng_matrix(2, 3, 2, seed=8), requires_grad=True)
    assert gradcheck(lambda m, r: T.linalg.lu_solve(*T.linalg.lu_factor(m), r), (a, b))
    LU, pivots = T.linalg.lu_factor(a.detach())
    lu = LU.clone().requires_grad_()
    assert gradcheck(lambda f, r: T.linalg.lu_solve(f, pivots, r, adjoint=True), (lu, b))


def test_inv_ex_and_solve_ex_info_as_pytorch() -> None:
    """info 0 or the 1-based zero pivot (int32); the singular matrices' values are the inf
    and nan of the divisions by zero, PyTorch's; check_errors raises LinAlgError."""
    stack = np.stack([[[1.0, 2.0], [2.0, 4.0]], np.eye(2) * 2])
    a, t = _pair(stack)
    ours, theirs = microtorch.linalg.inv_ex(a), torch.linalg.inv_ex(t)
    assert _fields(ours) == _fields(theirs) == ("inverse", "info")
    assert ours.info.dtype is microtorch.int32
    assert ours.info.tolist() == theirs.info.tolist() == [2, 0]
    np.testing.assert_allclose(ours.inverse[1].numpy(), np.eye(2) / 2)
    np.testing.assert_array_equal(ours.inverse[0].numpy(), theirs.inverse[0].numpy())  # inf
    b = np.ones((2, 2))
    ours, theirs = (
        microtorch.linalg.solve_ex(a, microtorch.tensor(b)),
        torch.linalg.solve_ex(t, torch.tensor(b)),
    )
    assert _fields(ours) == _fields(theirs) == ("result", "info")
    assert ours.info.tolist() == theirs.info.tolist() == [2, 0]
    np.testing.assert_allclose(ours.result.numpy(), theirs.result.numpy())  # (inf, nan too)
    with pytest.raises(microtorch.linalg.LinAlgError, match="Batch element 0"):
        microtorch.linalg.inv_ex(a, check_errors=True)
    with pytest.raises(microtorch.linalg.LinAlgError, match="singular"):
        microtorch.linalg.solve_ex(a[0], microtorch.tensor(b[0]), check_errors=True)
    x = microtorch.tensor(stack, requires_grad=True)
    microtorch.linalg.inv_ex(x).inverse[1].sum().backward()
    y = torch.tensor(stack, requires_grad=True)
    torch.linalg.inv_ex(y).inverse[1].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy())  # (nan for the singular one)


def test_cholesky_ex_info_and_partial_factor_as_pytorch() -> None:
    stack = np.stack([[[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]], np.eye(3) * 4,
                      [[-1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])  # fmt: skip
    a, t = _pair(stack)
    for upper in (False, True):
        ours, theirs = (
            microtorch.linalg.cholesky_ex(a, upper=upper),
            torch.linalg.cholesky_ex(t, upper=upper),
        )
        assert _fields(ours) == _fields(theirs) == ("L", "info")
        assert ours.info.dtype is microtorch.int32
        assert ours.info.tolist() == theirs.info.tolist() == [2, 0, 1]
        np.testing.assert_allclose(ours.L.numpy(), theirs.L.numpy())
    with pytest.raises(microtorch.linalg.LinAlgError, match="order 2 is not positive-definite"):
        microtorch.linalg.cholesky_ex(a, check_errors=True)
    with pytest.raises(RuntimeError, match="square"):
        microtorch.linalg.cholesky_ex(microtorch.ones(2, 3))


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1])
def test_cond_as_pytorch_including_singular_matrices(p) -> None:
    """Every p, forward, on a batch with a singular matrix (inf for the norm ps, PyTorch's
    rule; the svd ps give a huge or inf value there, as there)."""
    stack = np.stack([_rng_matrix(3, 3, seed=9), [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0],
                                                  [0.0, 1.0, 1.0]]])  # fmt: skip
    a, t = _pair(stack)
    ours, theirs = microtorch.linalg.cond(a, p).numpy(), torch.linalg.cond(t, p).numpy()
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    if p in ("fro", math.inf, -math.inf, 1, -1):
        assert ours[1] == theirs[1] == math.inf
    elif p == -2:
        assert ours[1] < 1e-15 and theirs[1] < 1e-15
    else:
        assert ours[1] > 1e15 and theirs[1] > 1e15


def test_cond_errors_and_non_square_as_pytorch() -> None:
    for module in (microtorch, torch):
        wide = module.tensor(_rng_matrix(2, 3, seed=10))
        assert module.linalg.cond(wide).shape == ()
        with pytest.raises(RuntimeError, match="square"):
            module.linalg.cond(wide, "fro")
        with pytest.raises(RuntimeError, match="invalid norm type"):
            module.linalg.cond(module.eye(2), 3)
    assert microtorch.linalg.cond(microtorch.zeros(0, 0)).item() == 0.0


def test_cholesky_solve_gradient_of_the_unread_triangle_as_pytorch() -> None:
    """Only input2's triangle is read, but its other entries get PyTorch's gradient (as if
    A = L L^T used them all); cholesky_inverse is cholesky_solve of the identity."""
    full = _rng_matrix(3, 3, seed=11) + 3 * np.eye(3)
    b = _rng_matrix(3, 2, seed=12)
    for upper in (False, True):
        ours = microtorch.tensor(full, requires_grad=True)
        theirs = torch.tensor(full, requires_grad=True)
        x = microtorch.cholesky_solve(microtorch.tensor(b), ours, upper=upper)
        y = torch.cholesky_solve(torch.tensor(b), theirs, upper=upper)
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-12)
        (x * x).sum().backward(), (y * y).sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)
        ours.grad = theirs.grad = None
        microtorch.cholesky_inverse(ours, upper).sum().backward()
        torch.cholesky_inverse(theirs, upper).sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)
    for module in (microtorch, torch):
        with pytest.raises(RuntimeError, match="Incompatible matrix sizes"):
            module.cholesky_solve(module.ones(3, 1), module.eye(2))
        with pytest.raises(RuntimeError, match="same dtype"):
            module.cholesky_solve(module.ones(2, 1, dtype=module.float64), module.eye(2))
        with pytest.raises(NotImplementedError):
            module.cholesky_inverse(module.ones(2, 2, dtype=module.int64))


def test_triangular_solve_returns_a_clone_and_warns_as_pytorch() -> None:
    A = microtorch.tensor([[2.0, 1.0], [0.0, 4.0]])
    with pytest.warns(UserWarning, match="triangular_solve is deprecated"):
        result = microtorch.triangular_solve(microtorch.ones(2, 1), A)
    assert result._fields == ("solution", "cloned_coefficient")
    assert result.solution.tolist() == [[0.375], [0.25]]
    result.cloned_coefficient[0, 0] = 5.0
    assert A[0, 0].item() == 2.0


def test_triangular_solve_broadcasts_its_clone_and_refuses_mixed_dtypes_as_pytorch() -> None:
    """cloned_coefficient has the batch dims of the solution; b and A must share a dtype
    (linalg.solve_triangular casts, torch.triangular_solve does not)."""
    a = np.triu(np.random.default_rng(6).standard_normal((2, 1, 3, 3))) + 3 * np.eye(3)
    b = np.ones((4, 3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for T in (microtorch, torch):
            A = T.tensor(a, requires_grad=True)
            result = T.triangular_solve(T.tensor(b), A)
            assert tuple(result.cloned_coefficient.shape) == (2, 4, 3, 3)
            result.cloned_coefficient.sum().backward()
            assert A.grad.tolist() == np.full(a.shape, 4.0).tolist()
            with pytest.raises(RuntimeError, match="same dtype"):
                T.triangular_solve(T.tensor(b, dtype=T.float32), A)


def test_geqrf_householder_product_and_ormqr_as_pytorch() -> None:
    """geqrf's (a, tau) as LAPACK's (R above, the vectors below); householder_product gives
    its Q, ormqr applies it; geqrf has no gradient."""
    a, t = _pair(_rng_matrix(2, 5, 3, seed=13))
    ours, theirs = microtorch.geqrf(a), torch.geqrf(t)
    assert _fields(ours) == _fields(theirs) == ("a", "tau")
    np.testing.assert_allclose(ours.a.numpy(), theirs.a.numpy(), atol=1e-14)
    np.testing.assert_allclose(ours.tau.numpy(), theirs.tau.numpy(), atol=1e-14)
    q = microtorch.linalg.householder_product(*ours)
    r = microtorch.triu(ours.a[..., :3, :])
    np.testing.assert_allclose((q @ r).numpy(), a.numpy(), atol=1e-14)
    c = _rng_matrix(2, 5, 2, seed=14)
    np.testing.assert_allclose(
        microtorch.ormqr(*ours, microtorch.tensor(c), transpose=True).numpy(),
        torch.ormqr(*theirs, torch.tensor(c), transpose=True).numpy(),
        atol=1e-14,
    )
    assert not microtorch.geqrf(microtorch.ones(3, 2, requires_grad=True)).a.requires_grad
    zero_column = microtorch.geqrf(
        microtorch.tensor([[1.0, 2.0], [0.0, 3.0]], dtype=microtorch.float64)
    )
    assert zero_column.tau.tolist() == torch.geqrf(torch.tensor([[1.0, 2.0], [0.0, 3.0]],
                                                   dtype=torch.float64)).tau.tolist()  # fmt: skip
    for module in (microtorch, torch):
        with pytest.raises(RuntimeError, match="greater than or equal"):
            module.linalg.householder_product(module.ones(2, 3), module.ones(2))
        with pytest.raises(RuntimeError, match="one dimension less"):
            module.linalg.householder_product(module.ones(3, 2), module.ones(2, 2))
        with pytest.raises(RuntimeError, match="must be equal"):
            module.ormqr(module.ones(4, 2), module.ones(2), module.ones(3, 4))


def test_vander_tensorinv_tensorsolve_edges_as_pytorch() -> None:
    for module in (microtorch, torch):
        assert module.linalg.vander(module.tensor([1, 2, 3]), N=4).tolist() == [
            [1, 1, 1, 1], [1, 2, 4, 8], [1, 3, 9, 27]
        ]  # fmt: skip
        assert module.linalg.vander(module.tensor([1, 2, 3]), N=4).dtype is module.int64
        assert tuple(module.linalg.vander(module.zeros(0, 3)).shape) == (0, 3, 3)
        assert module.linalg.vander(module.tensor(3), N=3).tolist() == [[1, 3, 9]]  # one point
        with pytest.raises(RuntimeError, match="greater than 1"):
            module.linalg.vander(module.tensor([2.0]))
        with pytest.raises(RuntimeError, match="greater than 1"):
            module.linalg.vander(module.tensor(2.0))
        with pytest.raises(RuntimeError):
            module.linalg.vander(module.tensor([True, False]))
        a = module.tensor(_rng_matrix(4, 6, 8, 3, seed=15))
        assert tuple(module.linalg.tensorinv(a, ind=2).shape) == (8, 3, 4, 6)
        with pytest.raises(RuntimeError, match="strictly positive"):
            module.linalg.tensorinv(a, ind=0)
        with pytest.raises(RuntimeError, match="prod"):
            module.linalg.tensorinv(a[..., :2], ind=2)
        b = module.tensor(_rng_matrix(6, 4, 2, 3, 4, seed=16))
        assert tuple(module.linalg.tensorsolve(b, module.ones(6, 4, dtype=b.dtype)).shape) == (
            2, 3, 4
        )  # fmt: skip
        with pytest.raises(RuntimeError, match="prod"):
            module.linalg.tensorsolve(b, module.ones(6, 4, dtype=b.dtype), dims=(0,))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64", "float16", "bool"])
def test_vander_of_integers_is_int64_and_float16_is_refused_as_pytorch(dtype: str) -> None:
    results = []
    for T in (microtorch, torch):
        x = T.tensor([1, 2, 3]).to(getattr(T, dtype))
        try:
            results.append(T.linalg.vander(x, N=4))
        except RuntimeError as error:
            results.append(type(error))
    if dtype in ("float16", "bool"):
        assert results == [RuntimeError, RuntimeError]
    else:
        assert str(results[0].dtype).split(".")[-1] == str(results[1].dtype).split(".")[-1]
        assert results[0].tolist() == results[1].tolist()


def test_householder_ormqr_lu_and_ldl_shape_checks_and_empty_batches_as_pytorch() -> None:
    """householder_product and ormqr do not broadcast batch dims, and ormqr wants all of tau
    (min(m, n) reflectors); lu_solve and lu_unpack want lu_factor's int32 pivots; an empty
    batch keeps its shape (householder_product, ldl_solve) and cond of empty matrices is 0."""
    rng = np.random.default_rng(7)
    refused = [
        lambda T: T.linalg.householder_product(T.ones(2, 4, 3), T.ones(1, 3)),
        lambda T: T.ormqr(T.ones(2, 4, 3), T.ones(2, 3), T.ones(1, 4, 2)),
        lambda T: T.ormqr(T.ones(4, 3), T.ones(2), T.ones(4, 2)),
        lambda T: T.ormqr(T.ones(3, 5), T.ones(4), T.ones(3, 2)),
        lambda T: T.linalg.lu_solve(
            *T.linalg.lu_factor(T.eye(3))[:1], T.ones(3, dtype=T.int64), T.ones(3, 1)
        ),  # fmt: skip
        lambda T: T.lu_unpack(T.linalg.lu_factor(T.eye(3))[0], T.ones(3, dtype=T.int64)),
    ]
    for call in refused:
        for T in (microtorch, torch):
            with pytest.raises(RuntimeError):
                call(T)
    a, tau = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 3))
    c = rng.standard_normal((2, 2, 4))
    got = microtorch.ormqr(microtorch.tensor(a), microtorch.tensor(tau), microtorch.tensor(c),
                           left=False, transpose=True)  # fmt: skip
    want = torch.ormqr(torch.tensor(a), torch.tensor(tau), torch.tensor(c), left=False,
                       transpose=True)  # fmt: skip
    np.testing.assert_allclose(got.numpy(), want.numpy())
    for T in (microtorch, torch):
        empty = T.zeros(2, 0, 0, dtype=T.float64)
        tau = T.zeros(2, 0, dtype=T.float64)
        assert tuple(T.linalg.householder_product(empty, tau).shape) == (2, 0, 0)
        LD, pivots = T.linalg.ldl_factor(empty)
        assert tuple(T.linalg.ldl_solve(LD, pivots, empty[..., :3]).shape) == (2, 0, 0)
        for p in (None, "fro", "nuc", 1, -1, math.inf, -math.inf):
            assert T.linalg.cond(empty, p).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("shape", [(20, 12), (12, 20), (2, 15, 10)])
def test_svd_lowrank_and_pca_lowrank_reconstruct_low_rank_matrices(shape: tuple) -> None:
    """A rank-3 matrix is recovered to rounding by q = 4 (the numbers are random
    projections from microtorch's generator: seeded, the same again after manual_seed); its
    gradient flows."""
    T = microtorch
    rng = np.random.default_rng(17)
    *batch, m, n = shape
    low = rng.standard_normal((*batch, m, 3)) @ rng.standard_normal((*batch, 3, n))
    a = T.tensor(low, requires_grad=True)
    T.manual_seed(0)
    U, S, V = T.svd_lowrank(a, q=4)
    assert tuple(U.shape) == (*batch, m, 4) and tuple(V.shape) == (*batch, n, 4)
    approx = (U * S.unsqueeze(-2)) @ V.mT
    assert np.abs(approx.detach().numpy() - low).max() < 1e-10
    np.testing.assert_allclose(S.detach().numpy()[..., :3],
                               np.linalg.svd(low, compute_uv=False)[..., :3])  # fmt: skip
    T.manual_seed(0)
    assert (T.svd_lowrank(a, q=4)[0] == U).all()
    S.sum().backward()
    assert a.grad.shape == a.shape
    centered = low - low.mean(-2, keepdims=True)
    U, S, V = T.pca_lowrank(T.tensor(low))
    q = min(6, m, n)
    assert tuple(S.shape) == (*batch, q)
    np.testing.assert_allclose(
        S.numpy()[..., :3], np.linalg.svd(centered, compute_uv=False)[..., :3]
    )
    with pytest.raises(ValueError, match="not greater than"):
        T.pca_lowrank(T.tensor(low), q=min(m, n) + 1)


@pytest.mark.parametrize("name", ["matrix_rank", "lstsq", "solve", "eig", "symeig"])
def test_removed_functions_raise_runtime_error_as_pytorch(name: str) -> None:
    a = np.eye(2)
    for module in (microtorch, torch):
        with pytest.raises(RuntimeError, match="removed"):
            getattr(module, name)(module.tensor(a), module.tensor(a))
        if name != "matrix_rank":
            with pytest.raises(RuntimeError, match="removed"):
                getattr(module.tensor(a), name)(module.tensor(a))


def test_the_new_linalg_functions_on_every_device(device: str) -> None:
    """matrix_exp, lu_factor/lu_solve, the _ex forms, cholesky_solve, geqrf and
    householder_product on the CPU and on CUDA (or the fake CuPy)."""
    T = microtorch
    host = _rng_matrix(2, 3, 3, seed=18) + 3 * np.eye(3)
    a = T.tensor(host, device=device, requires_grad=True)
    np.testing.assert_allclose(
        T.linalg.matrix_exp(a).detach().cpu().numpy(),
        torch.linalg.matrix_exp(torch.tensor(host)).numpy(), rtol=1e-12,
    )  # fmt: skip
    LU, pivots, info = T.linalg.lu_factor_ex(a)
    assert pivots.dtype is T.int32 and info.cpu().tolist() == [0, 0]
    b = T.ones(2, 3, 1, dtype=T.float64, device=device)
    x = T.linalg.lu_solve(LU, pivots, b)
    np.testing.assert_allclose((a @ x).detach().cpu().numpy(), np.ones((2, 3, 1)), atol=1e-12)
    x.sum().backward()
    assert a.grad.shape == (2, 3, 3)
    singular = T.tensor([[1.0, 2.0], [2.0, 4.0]], device=device)
    assert T.linalg.inv_ex(singular).info.item() == 2
    assert not T.linalg.inv_ex(singular).inverse.isfinite().any().item()  # (inf, as PyTorch)
    zero_diagonal = T.tensor([[1.0, 2.0], [0.0, 0.0]], device=device)
    x = T.linalg.solve_triangular(zero_diagonal, T.ones(2, 1, device=device), upper=True)
    assert not x.isfinite().all().item()
    q, r = T.linalg.qr(T.tensor(np.diag([2.0, 1.0, 0.0]), device=device, requires_grad=True))
    r.sum().backward()  # (R is singular: nan, not an error)
    assert T.linalg.cholesky_ex(-singular).info.item() == 1
    spd = a.detach() @ a.detach().mT
    L = T.linalg.cholesky(spd)
    np.testing.assert_allclose((spd @ T.cholesky_solve(b, L)).cpu().numpy(), 1.0, atol=1e-10)
    spd9 = _spd_matrix(9, seed=25)
    E, X = T.lobpcg(T.tensor(spd9, device=device, requires_grad=True), k=1)
    np.testing.assert_allclose(E.detach().cpu().numpy(), np.linalg.eigvalsh(spd9)[-1:], rtol=1e-10)
    E.sum().backward()
    q = T.linalg.householder_product(*T.geqrf(a.detach()))
    np.testing.assert_allclose((q.mT @ q).cpu().numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)),
                               atol=1e-14)  # fmt: skip


@pytest.mark.parametrize("n", [1, 2, 3, 6, 20])
def test_ldl_factor_pivots_and_ldl_solve_as_pytorch(n: int) -> None:
    """Bunch-Kaufman's choices as LAPACK's sytrf makes them (1x1 and 2x2 blocks; zero
    diagonals force 2x2 ones), on a batch; ldl_solve against PyTorch's and against A."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal((3, n, n))
    a = a + np.swapaxes(a, -1, -2)
    if n > 1:
        a[1][np.diag_indices(n)] = 0.0  # indefinite, pivoting in 2x2 blocks
    ours, theirs = (
        microtorch.linalg.ldl_factor_ex(microtorch.tensor(a)),
        (torch.linalg.ldl_factor_ex(torch.tensor(a))),
    )
    assert _fields(ours) == _fields(theirs) == ("LD", "pivots", "info")
    assert ours.pivots.dtype is microtorch.int32 and ours.info.dtype is microtorch.int32
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    assert ours.info.tolist() == theirs.info.tolist()
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), atol=1e-12)
    if n > 1:
        assert (ours.pivots[1] < 0).any()  # (the case takes the 2x2 path)
    b = rng.standard_normal((3, n, 2))
    x = microtorch.linalg.ldl_solve(*microtorch.linalg.ldl_factor(microtorch.tensor(a)),
                                    microtorch.tensor(b))  # fmt: skip
    y = torch.linalg.ldl_solve(*torch.linalg.ldl_factor(torch.tensor(a)), torch.tensor(b))
    np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a @ x.numpy(), b, atol=1e-9)


def test_ldl_factor_singular_empty_and_errors_as_pytorch() -> None:
    stack = np.stack([np.zeros((2, 2)), [[1.0, 2.0], [2.0, 4.0]], np.eye(2)])
    ours, theirs = (
        microtorch.linalg.ldl_factor_ex(microtorch.tensor(stack)),
        (torch.linalg.ldl_factor_ex(torch.tensor(stack))),
    )
    assert ours.info.tolist() == theirs.info.tolist() == [1, 2, 0]
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy())
    with pytest.raises(RuntimeError, match="singular"):
        microtorch.linalg.ldl_factor(microtorch.tensor(stack))
    with pytest.raises(microtorch.linalg.LinAlgError, match="Batch element 0"):
        microtorch.linalg.ldl_factor_ex(microtorch.tensor(stack), check_errors=True)
    for shape in [(0, 3, 3), (0, 0)]:
        o = microtorch.linalg.ldl_factor_ex(microtorch.zeros(*shape))
        t = torch.linalg.ldl_factor_ex(torch.zeros(*shape))
        assert [tuple(x.shape) for x in o] == [tuple(x.shape) for x in t]
    LD, pivots = microtorch.linalg.ldl_factor(microtorch.eye(3, dtype=microtorch.float64))
    assert not microtorch.linalg.ldl_factor(microtorch.eye(2, requires_grad=True))[0].requires_grad
    for module in (microtorch, torch):
        with pytest.raises(RuntimeError, match="square"):
            module.linalg.ldl_factor(module.zeros(2, 3))
        with pytest.raises(RuntimeError, match="floating point"):
            module.linalg.ldl_factor(module.zeros(2, 2, dtype=module.int64))
        LD, pivots = module.linalg.ldl_factor(module.eye(3, dtype=module.float64))
        with pytest.raises(RuntimeError, match="same dtype"):
            module.linalg.ldl_solve(LD, pivots, module.ones(3, 1))
        with pytest.raises(RuntimeError, match="Incompatible matrix sizes"):
            module.linalg.ldl_solve(LD, pivots, module.ones(2, 1, dtype=module.float64))


def test_ldl_on_every_device(device: str) -> None:
    T = microtorch
    a = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
    LD, pivots, info = T.linalg.ldl_factor_ex(T.tensor(a, device=device))
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
    assert pivots.cpu().tolist() == theirs.pivots.tolist() and info.item() == 0
    np.testing.assert_allclose(LD.cpu().numpy(), theirs.LD.numpy())
    x = T.linalg.ldl_solve(LD, pivots, T.ones(3, 1, dtype=T.float64, device=device))
    np.testing.assert_allclose(a @ x.cpu().numpy(), np.ones((3, 1)), atol=1e-14)


def _spd_matrix(m: int, seed: int) -> np.ndarray:
    g = np.random.default_rng(seed).standard_normal((m, m))
    return g @ g.T + np.eye(m)


@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_eigenpairs_as_eigh_and_pytorch(largest: bool) -> None:
    """The k largest (smallest) eigenvalues, in PyTorch's order, with eigenvectors whose
    residual is small; a batch; the generalized problem with B; a preconditioner."""
    T = microtorch
    A = _spd_matrix(30, seed=19)
    w = np.linalg.eigvalsh(A)
    expected = w[::-1][:3] if largest else w[:3]
    E, X = T.lobpcg(T.tensor(A), k=3, largest=largest)
    np.testing.assert_allclose(E.numpy(), expected, rtol=1e-10)
    if largest:  # (PyTorch's takes over a second for the smallest ones here)
        theirs = torch.lobpcg(torch.tensor(A), k=3, largest=largest)[0]
        np.testing.assert_allclose(E.numpy(), theirs.numpy(), rtol=1e-10)
    assert np.abs(A @ X.numpy() - X.numpy() * E.numpy()).max() < 1e-5 * w[-1]
    np.testing.assert_allclose(X.numpy().T @ X.numpy(), np.eye(3), atol=1e-10)
    batch = np.stack([A, A + 2 * np.eye(30)])
    E, X = T.lobpcg(T.tensor(batch), k=2, largest=largest, n=3)
    assert tuple(E.shape) == (2, 2) and tuple(X.shape) == (2, 30, 2)
    np.testing.assert_allclose(E.numpy()[1] - E.numpy()[0], 2.0, rtol=1e-9)
    B = _spd_matrix(30, seed=20) + 30 * np.eye(30)
    E, X = T.lobpcg(T.tensor(A), k=2, B=T.tensor(B), largest=largest)
    if largest:
        theirs = torch.lobpcg(torch.tensor(A), k=2, B=torch.tensor(B), largest=largest)[0]
        np.testing.assert_allclose(E.numpy(), theirs.numpy(), rtol=1e-8)
    np.testing.assert_allclose(A @ X.numpy(), B @ X.numpy() * E.numpy(), atol=1e-5 * w[-1])
    inverse = T.linalg.inv(T.tensor(A))
    E, _ = T.lobpcg(T.tensor(A), k=2, iK=inverse, largest=largest)
    np.testing.assert_allclose(E.numpy(), expected[:2], rtol=1e-10)


def test_lobpcg_gradient_as_pytorch_and_eigh() -> None:
    """The eigenvalues' and eigenvectors' gradients (for simple eigenvalues) are eigh's and,
    to the iteration's tolerance, PyTorch's; symmetric, as PyTorch's."""
    T = microtorch
    A = _spd_matrix(12, seed=21)
    weights = np.random.default_rng(22).standard_normal((12, 2))

    def loss(module, a, E, X):  # (X's sign-free: each column against its own sign)
        signs = module.tensor(np.sign(X.detach().numpy()[0]))
        return E.sum() + (X * signs * module.tensor(weights)).sum()

    ours = T.tensor(A, requires_grad=True)
    loss(T, ours, *T.lobpcg(ours, k=2, tol=1e-12)).backward()
    reference = T.tensor(A, requires_grad=True)
    w, v = T.linalg.eigh((reference + reference.mT) / 2)
    loss(T, reference, w.flip(0)[:2], v.flip(1)[:, :2]).backward()
    np.testing.assert_allclose(ours.grad.numpy(), reference.grad.numpy(), atol=1e-8)
    np.testing.assert_allclose(ours.grad.numpy(), ours.grad.numpy().T, atol=1e-12)
    theirs = torch.tensor(A, requires_grad=True)
    loss(torch, theirs, *torch.lobpcg(theirs, k=2, tol=1e-12)).backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-6)


def test_lobpcg_errors_as_pytorch() -> None:
    A = _spd_matrix(10, seed=23)
    for module in (microtorch, torch):
        with pytest.raises(ValueError, match="smaller than 3 x"):
            module.lobpcg(module.tensor(A), k=4)
    with pytest.raises(ValueError, match="method"):
        microtorch.lobpcg(microtorch.tensor(A), method="fast")
    with pytest.raises(NotImplementedError, match="tracker"):
        microtorch.lobpcg(microtorch.tensor(A), tracker=print)
    with pytest.raises(RuntimeError, match="square"):
        microtorch.lobpcg(microtorch.ones(10, 9))
    X = microtorch.tensor(np.random.default_rng(24).standard_normal((10, 2)))
    E, V = microtorch.lobpcg(microtorch.tensor(A), X=X)
    assert tuple(E.shape) == (2,) and tuple(V.shape) == (10, 2)
