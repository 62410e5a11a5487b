"""nn.attention: PyTorch's sdpa_kernel lines run, record the choice in backends.cuda, and
leave scaled_dot_product_attention's results as they are (microtorch has one kernel)."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.nn.attention import SDPBackend, sdpa_kernel


def test_sdpa_kernel_runs_a_pytorch_snippet_with_the_same_numbers() -> None:
    q = np.random.default_rng(0).standard_normal((2, 3, 5, 4)).astype(np.float32)
    F = microtorch.nn.functional
    x = microtorch.tensor(q)
    plain = F.scaled_dot_product_attention(x, x, x, is_causal=True).numpy()
    cuda = microtorch.backends.cuda
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        assert cuda.flash_sdp_enabled() and not cuda.math_sdp_enabled()
        inside = F.scaled_dot_product_attention(x, x, x, is_causal=True).numpy()
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.EFFICIENT_ATTENTION], set_priority=True):
        assert cuda.math_sdp_enabled() and cuda.mem_efficient_sdp_enabled()
        assert not cuda.flash_sdp_enabled() and not cuda.cudnn_sdp_enabled()
    assert cuda.flash_sdp_enabled() and cuda.math_sdp_enabled()  # restored
    np.testing.assert_array_equal(inside, plain)
    torch = pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend as TorchBackend
    from torch.nn.attention import sdpa_kernel as torch_sdpa_kernel

    theirs_values = {name: b.value for name, b in TorchBackend.__members__.items()}
    assert theirs_values == {b.name: int(b) for b in SDPBackend}
    t = torch.tensor(q)
    with torch_sdpa_kernel(TorchBackend.FLASH_ATTENTION):
        theirs = torch.nn.functional.scaled_dot_product_attention(t, t, t, is_causal=True)
    np.testing.assert_allclose(inside, theirs.numpy(), rtol=1e-5, atol=1e-6)


def test_sdpa_kernel_refuses_what_is_not_a_backend() -> None:
    with pytest.raises(TypeError, match=r"sdpa_kernel: backends must be an SDPBackend"):
        with sdpa_kernel("math"):
            pass
    assert microtorch.backends.cuda.math_sdp_enabled()
