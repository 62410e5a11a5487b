"""microtorch's CUDA kernels, run on the CPU, give the numbers of the NumPy code next to them.

tests/fake_cupy/kernels.py compiles each kernel's CUDA C++ as host C++ (with g++) and runs
it with CuPy's calling conventions: ``ElementwiseKernel`` as a loop, ``RawKernel`` with one
fiber per CUDA thread, taking turns at every ``__syncthreads()``. The first tests check
the emulator itself; the rest launch every kernel in ``backend.CUDA_SOURCES`` through the
ops' own CUDA helpers (``_softmax_cuda``, ``_layer_norm_cuda``, ...), with the CPU
emulator standing in for CuPy, and compare with the NumPy path. Skipped without g++."""

from __future__ import annotations

import math
import shutil
import types
from typing import Any

import numpy as np
import pytest

import microtorch as torch
import microtorch.nn.functional as F
import microtorch.optim  # noqa: F401  (declares the Adam kernel)
from microtorch import backend
from microtorch import random as mt_random
from microtorch.ops import attention, dropout, elementwise, normalization, softmax
from microtorch.optim import adam
from tests.fake_cupy.kernels import ElementwiseKernel, RawKernel

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")

TOL = {"float32": 1e-5, "float64": 1e-12}
DTYPES = ["float32", "float64"]


def close(got: np.ndarray, want: np.ndarray, dtype: str) -> None:
    assert got.dtype == want.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype])


# ----- the emulator: raw kernels ---------------------------------------------------------
ROW_SUMS = """
extern "C" __global__ void row_sums(const T* x, T* out, long long cols) {
    __shared__ T buf[256];
    T partial = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) partial += x[blockIdx.x * cols + j];
    T total = block_sum(partial, buf);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}
"""


@pytest.mark.parametrize("cols", [5, 256, 700])
def test_raw_kernel_block_sum_over_rows(cols: int) -> None:
    # rows narrower than the block (most threads add nothing), as wide, and wider (each
    # thread adds several elements before the shared-memory tree reduction)
    kernel = RawKernel(backend.row_kernel_code(ROW_SUMS, "double"), "row_sums")
    x = np.random.default_rng(cols).standard_normal((3, cols))
    out = np.zeros(3)
    kernel((3,), (256,), (x, out, np.int64(cols)))
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-12)


TWO_SUMS_RACING = """
// block_sum twice in a row, the first without its closing barrier: thread 0 reads the total
// and goes on to write its next partial into buf[0] while other threads still read buf[0].
__device__ T racy_block_sum(T v, T* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) buf[threadIdx.x] += buf[threadIdx.x + stride];
        __syncthreads();
    }
    return buf[0];
}

extern "C" __global__ void two_sums(T* out) {
    __shared__ T buf[256];
    T first = racy_block_sum((T)1, buf);
    T second = block_sum((T)2, buf);
    out[threadIdx.x] = first + second;
}
"""


def test_a_missing_syncthreads_is_caught() -> None:
    """A GPU may or may not show this race; the emulator's turn order shows it every time."""
    kernel = RawKernel(backend.row_kernel_code(TWO_SUMS_RACING, "double"), "two_sums")
    out = np.zeros(256)
    kernel((1,), (256,), (out,))
    assert out[0] == 256 + 512  # thread 0 read its total before anyone wrote over it
    assert (out[1:] != 256 + 512).all()  # the others read thread 0's next partial instead


BLOCK_TOTALS = """
// Every block sums its slice of x in dynamic shared memory; block totals meet in atomicAdd.
extern "C" __global__ void total(const float* x, float* result, int n) {
    extern __shared__ float partial[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}

// Threads past `active` leave at once; the others still meet at __syncthreads().
extern "C" __global__ void early_exit(float* out, int active) {
    __shared__ float values[64];
    if (threadIdx.x >= active) return;
    values[threadIdx.x] = threadIdx.x + 1.0f;
    __syncthreads();
    out[blockIdx.x * active + threadIdx.x] = values[active - 1 - threadIdx.x];
}

// Reads shared memory it never wrote: on a GPU that is garbage, here NaN.
extern "C" __global__ void read_unwritten(float* out) {
    __shared__ float scratch[4];
    if (blockIdx.x == 0 && threadIdx.x == 0) scratch[0] = 1.0f;
    __syncthreads();
    out[blockIdx.x] = scratch[0];
}

// Copies n elements from wherever x points: the raw pointer of the array.
extern "C" __global__ void copy_raw(const float* x, float* out, long long n) {
    for (long long j = threadIdx.x; j < n; j += blockDim.x) out[j] = x[j];
}
"""


def test_raw_kernel_dynamic_shared_memory_and_atomic_add() -> None:
    kernel = RawKernel(BLOCK_TOTALS, "total")
    x = np.arange(1000, dtype=np.float32)  # integers: the float32 sum is exact
    result = np.zeros(1, dtype=np.float32)
    kernel((16,), (64,), (x, result, np.int32(x.size)), shared_mem=64 * 4)
    assert result[0] == x.sum()


def test_threads_that_return_early_do_not_block_syncthreads() -> None:
    out = np.zeros(2 * 5, dtype=np.float32)
    RawKernel(BLOCK_TOTALS, "early_exit")((2,), (64,), (out, np.int32(5)))
    np.testing.assert_array_equal(out, [5, 4, 3, 2, 1] * 2)


def test_shared_memory_starts_as_nan_in_every_block() -> None:
    out = np.zeros(3, dtype=np.float32)
    RawKernel(BLOCK_TOTALS, "read_unwritten")((3,), (4,), (out,))
    assert out[0] == 1.0
    assert np.isnan(out[1:]).all()  # block 0's value does not leak into later blocks


def test_raw_kernel_sees_the_raw_pointer_of_a_strided_array() -> None:
    # like a GPU, the kernel reads memory from the array's first element on, ignoring
    # strides: (microtorch checks c_contiguous before launching for this reason)
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    view = base[:, ::2]  # [[0, 2], [4, 6], [8, 10]]
    out = np.zeros(6, dtype=np.float32)
    RawKernel(BLOCK_TOTALS, "copy_raw")((1,), (32,), (view, out, np.int64(6)))
    np.testing.assert_array_equal(out, [0, 1, 2, 3, 4, 5])


def test_raw_kernel_argument_errors() -> None:
    kernel = RawKernel(BLOCK_TOTALS, "copy_raw")
    x, out = np.zeros(4, np.float32), np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"copy_raw\(const float\* x, float\* out, long long n\)"):
        kernel((1,), (4,), (x, out))
    with pytest.raises(TypeError, match="pass a NumPy scalar.*numpy.int64"):
        kernel((1,), (4,), (x, out, 4))
    with pytest.raises(TypeError, match="needs numpy.int64, got numpy.int32"):
        kernel((1,), (4,), (x, out, np.int32(4)))
    with pytest.raises(TypeError, match="points to float32, got an array of float64"):
        kernel((1,), (4,), (x.astype(np.float64), out, np.int64(4)))
    with pytest.raises(TypeError, match="takes an array"):
        kernel((1,), (4,), (np.float32(1), out, np.int64(4)))
    with pytest.raises(ValueError, match="1-D launches only"):
        kernel((1, 2), (4,), (x, out, np.int64(4)))
    with pytest.raises(ValueError, match=r"no `extern \"C\" __global__ void nope"):
        RawKernel(BLOCK_TOTALS, "nope")
    with pytest.raises(ValueError, match="declares `extern __shared__` memory"):
        RawKernel(BLOCK_TOTALS, "total")((1,), (4,), (x, out, np.int32(4)))


def test_raw_kernel_compile_error_shows_gxx_message_and_code() -> None:
    code = 'extern "C" __global__ void broken(float* x) { x[0] = undefined_name; }'
    with pytest.raises(RuntimeError, match=r"(?s)undefined_name.*generated code.*broken"):
        RawKernel(code, "broken")((1,), (1,), (np.zeros(1, np.float32),))


# ----- the emulator: elementwise kernels --------------------------------------------------
def test_elementwise_broadcasting_scalars_and_index() -> None:
    kernel = ElementwiseKernel("T x, T y, T scale", "T z", "z = (x + y) * scale + i;", "affine")
    x = np.arange(3, dtype=np.float32).reshape(3, 1)
    y = np.array([10, 20, 30, 40], dtype=np.float32)
    z = kernel(x, y, 0.5)  # a Python float bound to T: cast to float32
    want = (x + y) * np.float32(0.5) + np.arange(12, dtype=np.float32).reshape(3, 4)
    assert z.shape == (3, 4) and z.dtype == np.float32
    np.testing.assert_array_equal(z, want)
    # a NumPy scalar of another dtype is cast to T as well (CuPy does the same)
    np.testing.assert_array_equal(kernel(x, y, np.float64(0.5)), want)


def test_elementwise_concrete_types_and_several_outputs() -> None:
    kernel = ElementwiseKernel(
        "float64 x, int64 k", "float64 twice, bool big", "twice = 2 * x; big = x > k;", "two"
    )
    x = np.array([1.0, 5.0, 9.0])
    twice, big = kernel(x, 4)
    np.testing.assert_array_equal(twice, [2.0, 10.0, 18.0])
    np.testing.assert_array_equal(big, [False, True, True])


def test_elementwise_outputs_are_references_updated_in_place() -> None:
    kernel = ElementwiseKernel("T g, T lr", "T p, T m", "m = m * (T)0.5 + g; p -= lr * m;", "sgd")
    p, m = np.ones(4), np.full(4, 2.0)
    g = np.array([1.0, 2.0, 3.0, 4.0])
    p_out, m_out = kernel(g, 0.1, p, m)
    assert p_out is p and m_out is m
    np.testing.assert_allclose(m, 1.0 + g)
    np.testing.assert_allclose(p, 1.0 - 0.1 * (1.0 + g))


def test_elementwise_non_contiguous_output_is_written_back() -> None:
    kernel = ElementwiseKernel("T x", "T y", "y = y + x * i;", "accumulate")
    storage = np.ones((4, 3))
    y = storage.T  # (3, 4), not C-contiguous; read, then updated in place
    x = np.full((3, 4), 2.0)
    assert kernel(x, y) is y
    np.testing.assert_array_equal(y, 1.0 + 2.0 * np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(storage, y.T)


def test_elementwise_raw_params_and_size() -> None:
    reverse = ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i];", "reverse")
    np.testing.assert_array_equal(reverse(np.arange(5.0), np.empty(5)), [4, 3, 2, 1, 0])
    double = ElementwiseKernel("raw T x", "raw T y", "y[i] = 2 * x[i];", "double_raw")
    y = np.zeros(6)
    double(np.arange(6.0), y, size=4)
    np.testing.assert_array_equal(y, [0, 2, 4, 6, 0, 0])


def test_elementwise_zero_size_returns_empty_output() -> None:
    kernel = ElementwiseKernel("T x", "T y", "y = x;", "copy_kernel")
    out = kernel(np.zeros((0, 3), dtype=np.float32))
    assert out.shape == (0, 3) and out.dtype == np.float32


def test_elementwise_errors() -> None:
    kernel = ElementwiseKernel("T x, T y", "T z", "z = x + y;", "add_kernel")
    x32, x64 = np.zeros(3, np.float32), np.zeros(3, np.float64)
    with pytest.raises(TypeError, match="Type is mismatched"):
        kernel(x32, x64)
    with pytest.raises(TypeError, match="Type is mismatched"):
        kernel(x32, x32, x64)
    with pytest.raises(TypeError, match="Type is mismatched"):
        ElementwiseKernel("float64 x", "float64 y", "y = x;", "f64")(x32)
    with pytest.raises(TypeError, match=r"add_kernel\(T x, T y\) -> \(T z\).*got 1"):
        kernel(x32)
    with pytest.raises(TypeError, match="cannot tell what type T is"):
        ElementwiseKernel("T x", "float32 y", "y = x;", "scalar_only")(1.0, np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        kernel(np.zeros(3, np.float32), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match=r"output z has shape \(1, 3\).*broadcast to \(2, 3\)"):
        kernel(np.zeros((2, 3), np.float32), x32, np.zeros((1, 3), np.float32))


# ----- every microtorch kernel, through the ops' own CUDA helpers --------------------------
@pytest.fixture
def on_cpu(monkeypatch: pytest.MonkeyPatch) -> list:
    """backend.row_kernel / elementwise_kernel build their kernels with the CPU emulator
    instead of CuPy; returns the list of kernel names launched."""
    launched: list = []

    class CpuRawKernel(RawKernel):
        def __call__(self, grid: tuple, block: tuple, args: tuple, shared_mem: int = 0) -> None:
            launched.append(self.name)
            super().__call__(grid, block, args, shared_mem=shared_mem)

    class CpuElementwiseKernel(ElementwiseKernel):
        def __call__(self, *args: Any, size: int | None = None) -> Any:
            launched.append(self.name)
            return super().__call__(*args, size=size)

    fake = types.SimpleNamespace(RawKernel=CpuRawKernel, ElementwiseKernel=CpuElementwiseKernel)
    monkeypatch.setattr(backend, "_load_cupy", lambda: fake)
    monkeypatch.setattr(backend, "_kernels", {})
    return launched


def random_array(shape: tuple, dtype: str, seed: int = 0, scale: float = 3.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


ROW_SHAPES = [(4, 3), (3, 65), (2, 256), (2, 2, 300), (2, 1000)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", ROW_SHAPES)
def test_softmax_forward(on_cpu: list, shape: tuple, dtype: str) -> None:
    x = random_array(shape, dtype)
    x.reshape(-1, shape[-1])[0, -1] = 200.0  # exp(200) overflows float32: the max is subtracted
    close(softmax._softmax_cuda(x), softmax.softmax_array(x, -1), dtype)
    assert on_cpu == ["microtorch_softmax_forward"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", ROW_SHAPES)
def test_log_softmax_forward(on_cpu: list, shape: tuple, dtype: str) -> None:
    x = random_array(shape, dtype)
    x.reshape(-1, shape[-1])[0, -1] = 200.0
    close(softmax._softmax_cuda(x, log=True), softmax.log_softmax_array(x, -1), dtype)
    assert on_cpu == ["microtorch_log_softmax_forward"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", ROW_SHAPES)
def test_softmax_backward(on_cpu: list, shape: tuple, dtype: str) -> None:
    y = softmax.softmax_array(random_array(shape, dtype), -1)
    grad = random_array(shape, dtype, seed=1, scale=1.0)
    close(
        softmax._softmax_backward_cuda(y, grad), softmax.softmax_backward_array(y, grad, -1), dtype
    )
    assert on_cpu == ["microtorch_softmax_backward"]


LAYER_NORM_CASES = [
    ((3, 40), (40,)),
    ((2, 256), (256,)),
    ((2, 2, 300), (300,)),
    ((2, 3, 40), (3, 40)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("shape,normalized", LAYER_NORM_CASES)
def test_layer_norm_forward_and_backward(
    on_cpu: list, shape: tuple, normalized: tuple, with_bias: bool, dtype: str
) -> None:
    x = random_array(shape, dtype) + 1.5  # a nonzero mean to subtract
    weight = random_array(normalized, dtype, seed=1, scale=1.0)
    bias = random_array(normalized, dtype, seed=2, scale=1.0) if with_bias else None
    grad = random_array(shape, dtype, seed=3, scale=1.0)
    eps = 1e-5

    # the NumPy path, through autograd
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(weight)
    bt = torch.tensor(bias) if with_bias else None
    out = F.layer_norm(xt, normalized, wt, bt, eps)
    out.backward(torch.tensor(grad))

    # the CUDA helpers, exactly as LayerNorm.forward / backward call them
    ndims = len(normalized)
    y, xhat, inv_std = normalization._layer_norm_cuda(x, weight, bias, ndims, eps)
    dx = normalization._layer_norm_backward_cuda(grad, xhat, inv_std, weight)
    assert on_cpu == ["microtorch_layer_norm_forward", "microtorch_layer_norm_backward"]

    close(y, out.array, dtype)
    close(dx, xt.grad.array, dtype)
    axes = tuple(range(x.ndim - ndims, x.ndim))
    x64 = x.astype(np.float64)
    inv_std_want = 1 / np.sqrt(x64.var(axis=axes, keepdims=True) + eps)
    assert inv_std.shape == inv_std_want.shape
    close(inv_std, inv_std_want.astype(dtype), dtype)
    close(xhat, ((x64 - x64.mean(axis=axes, keepdims=True)) * inv_std_want).astype(dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_forward_and_backward(on_cpu: list, approximate: str, dtype: str) -> None:
    x = random_array((4, 37), dtype)
    grad = random_array((4, 37), dtype, seed=1, scale=1.0)
    xt = torch.tensor(x, requires_grad=True)
    out = F.gelu(xt, approximate=approximate)
    out.backward(torch.tensor(grad))

    y = elementwise._gelu_cuda_kernel("forward", approximate)(x)  # as Gelu.forward calls it
    dx = elementwise._gelu_cuda_kernel("backward", approximate)(x, grad)  # as Gelu.backward
    assert on_cpu == [
        f"microtorch_gelu_forward_{approximate}",
        f"microtorch_gelu_backward_{approximate}",
    ]
    close(y, out.array, dtype)
    close(dx, xt.grad.array, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_erf(on_cpu: list, dtype: str) -> None:
    x = np.concatenate([np.linspace(-6, 6, 241), [0.0, 1e-8, -1e-8, 30.0]]).astype(dtype)
    got = backend.elementwise_kernel(*elementwise._ERF_CUDA)(x)  # as erf() calls it on a GPU
    assert on_cpu == ["microtorch_erf"]
    exact = np.array([math.erf(v) for v in x.astype(np.float64)])
    tol = 1e-6 if dtype == "float32" else 1e-14  # float32: erff's own rounding
    np.testing.assert_allclose(got, exact, rtol=0, atol=tol)
    close(got, elementwise.erf(x), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "weight_decay,decoupled,maximize", [(0.0, False, False), (0.1, False, True), (0.1, True, False)]
)
def test_adam_step(
    on_cpu: list, dtype: str, weight_decay: float, decoupled: bool, maximize: bool
) -> None:
    lr, beta1, beta2, eps = 1e-2, 0.9, 0.999, 1e-8
    shape = (5, 7)
    p_kernel = random_array(shape, dtype, scale=1.0)
    p_numpy = p_kernel.copy()
    m_k, v_k = np.zeros(shape, dtype), np.zeros(shape, dtype)
    m_n, v_n = np.zeros(shape, dtype), np.zeros(shape, dtype)
    kernel = adam._adam_cuda_kernel()
    for step in range(1, 4):
        g = random_array(shape, dtype, seed=step, scale=1.0)
        # the hyperparameters and the call exactly as Adam.step computes and makes them
        step_size = lr / (1.0 - beta1**step)
        bias_correction2_sqrt = math.sqrt(1.0 - beta2**step)
        keep = 1.0 - lr * weight_decay if decoupled else 1.0
        l2 = 0.0 if decoupled else weight_decay
        t = p_kernel.dtype.type
        kernel(
            g, t(-1.0 if maximize else 1.0), t(keep), t(l2), t(beta1), t(beta2),
            t(step_size), t(bias_correction2_sqrt), t(eps), p_kernel, m_k, v_k,
        )  # fmt: skip
        adam._adam_arrays(p_numpy, g, m_n, v_n, None, keep, l2, beta1, beta2, step_size,
                          bias_correction2_sqrt, eps, maximize)  # fmt: skip
    assert on_cpu == ["microtorch_adam_step"] * 3
    close(p_kernel, p_numpy, dtype)
    close(m_k, m_n, dtype)
    close(v_k, v_n, dtype)


def dropout_mask_reference(seed: int, keep: float, n: int, dtype: str) -> np.ndarray:
    """The kernel's splitmix64 hash of (seed, i), written with NumPy's wrapping uint64."""
    z = np.uint64(seed) + np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    scale = np.dtype(dtype).type(1.0 / keep)
    return np.where(u < np.float32(keep), scale, np.dtype(dtype).type(0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dropout_mask(on_cpu: list, dtype: str) -> None:
    keep_prob, shape = 0.8, (100, 200)

    def mask(seed: int) -> np.ndarray:
        out = np.empty(shape, dtype=dtype)
        # the call exactly as random.bernoulli_mask makes it on a GPU
        mt_random._dropout_kernel()(np.uint64(seed), np.float32(keep_prob), 1.0 / keep_prob, out)
        return out

    seed = 2**62 + 12345
    first = mask(seed)
    assert on_cpu == ["microtorch_dropout_mask"]
    scale = np.dtype(dtype).type(1 / keep_prob)
    assert set(np.unique(first)) <= {0, scale}
    assert abs((first != 0).mean() - keep_prob) < 0.01  # 20000 draws: sd 0.003
    np.testing.assert_array_equal(first, mask(seed))  # the seed decides the mask
    assert (first != mask(seed + 1)).mean() > 0.2  # another seed: another mask
    np.testing.assert_array_equal(
        first.ravel(), dropout_mask_reference(seed, keep_prob, first.size, dtype)
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_dropout_apply(on_cpu: list, dtype: str) -> None:
    """The fused dropout kernel gives x * the mask bernoulli_mask hashes from the same seed,
    also for an input that is not C-contiguous (the hash counts elements in C order);
    inf or nan times a dropped 0 is nan, as in x * mask."""
    seed, keep = 2**62 + 99, 0.8
    x = random_array((60, 70), dtype, seed=3)
    x[0, :4] = [np.inf, -np.inf, np.nan, 1.0]
    mask = dropout_mask_reference(seed, keep, x.size, dtype).reshape(x.shape)
    np.testing.assert_array_equal(dropout._apply_hashed_mask(x, seed, keep), x * mask)
    fortran = np.asfortranarray(x)
    np.testing.assert_array_equal(dropout._apply_hashed_mask(fortran, seed, keep), x * mask)
    assert on_cpu == ["microtorch_dropout_apply"] * 2


ATTENTION_SHAPES = [(2, 2, 5, 5), (1, 2, 3, 7), (1, 1, 7, 3), (1, 1, 4, 300)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", ATTENTION_SHAPES)
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("keep", [1.0, 0.7])
def test_attention_softmax_forward_and_backward(
    on_cpu: list, shape: tuple, causal: bool, keep: float, dtype: str
) -> None:
    """The fused kernels against the array code: scale, causal -inf, softmax, dropout."""
    scores, upstream = random_array(shape, dtype, seed=1), random_array(shape, dtype, seed=2)
    scale, seed = 0.35, 2**61 + 7
    p, p_used = attention._attention_softmax_cuda(scores, scale, causal, seed, keep)
    ds = attention._attention_softmax_backward_cuda(p, upstream, scale, seed, keep)
    assert on_cpu == ["microtorch_attention_forward", "microtorch_attention_backward"]

    s = scores * np.dtype(dtype).type(scale)
    if causal:
        s += attention.causal_bias(np, shape[-2], shape[-1], s.dtype)
    want_p = softmax.softmax_array(s, -1)
    mask = np.ones(shape, dtype)
    if keep < 1.0:
        mask = dropout_mask_reference(seed, keep, scores.size, dtype).reshape(shape)
        assert 0 < (mask == 0).mean() < 0.6
    else:
        assert p_used is p
    close(p, want_p, dtype)
    close(p_used, want_p * mask, dtype)
    want_ds = softmax.softmax_backward_array(want_p, upstream * mask, -1) * np.dtype(dtype).type(
        scale
    )
    close(ds, want_ds, dtype)


# Each kernel's CPU check (a test above asserts that it launched that kernel).
CHECKED_BY = {
    "microtorch_softmax_forward": test_softmax_forward,
    "microtorch_log_softmax_forward": test_log_softmax_forward,
    "microtorch_softmax_backward": test_softmax_backward,
    "microtorch_layer_norm_forward": test_layer_norm_forward_and_backward,
    "microtorch_layer_norm_backward": test_layer_norm_forward_and_backward,
    "microtorch_gelu_forward_none": test_gelu_forward_and_backward,
    "microtorch_gelu_backward_none": test_gelu_forward_and_backward,
    "microtorch_gelu_forward_tanh": test_gelu_forward_and_backward,
    "microtorch_gelu_backward_tanh": test_gelu_forward_and_backward,
    "microtorch_erf": test_erf,
    "microtorch_adam_step": test_adam_step,
    "microtorch_dropout_mask": test_dropout_mask,
    "microtorch_dropout_apply": test_dropout_apply,
    "microtorch_attention_forward": test_attention_softmax_forward_and_backward,
    "microtorch_attention_backward": test_attention_softmax_forward_and_backward,
}


def test_every_cuda_kernel_has_a_cpu_check() -> None:
    unchecked = sorted(set(backend.CUDA_SOURCES) - set(CHECKED_BY))
    assert not unchecked, (
        f"CUDA kernels without a CPU check in {__name__}: {unchecked}; add a test that runs "
        "each through the CPU emulator and compares it with the NumPy code"
    )
