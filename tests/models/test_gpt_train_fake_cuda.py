"""On CUDA, a char-GPT training step never makes the host wait for the GPU, and it trains
the same model as the CPU does.

These run only under ``MICROTORCH_TEST_DEVICE=fakecuda``, where tests/fake_cupy stands in
for CuPy and counts every point at which real CuPy would block the host (``.item()``,
``.get()``, ``bool()`` of a device array, boolean-mask indexing, ...). On a real GPU the
loss match is checked at full size by benchmarks/cuda_cpu_match.py."""

from __future__ import annotations

import sys

import pytest

import microtorch as torch
from microtorch import nn
from models.data import CharDataset
from models.transformer import GPT, GPTConfig

fake_cupy = sys.modules.get("cupy")
pytestmark = pytest.mark.skipif(
    getattr(fake_cupy, "__version__", "") != "0.0-fake",
    reason="needs MICROTORCH_TEST_DEVICE=fakecuda (tests/fake_cupy counts host syncs)",
)

TEXT = "".join(f"line {i}: the quick brown fox jumps over {i % 7} lazy dogs.\n" for i in range(60))


def _train_steps(device: str, steps: int, dropout: float) -> tuple[list, int]:
    """``steps`` AdamW steps of a small GPT, written as models/train.py's loop writes them.
    Returns the loss tensors (not yet read) and the host syncs the steps made."""
    torch.manual_seed(0)
    dataset = CharDataset(TEXT, block_size=16, seed=0)
    config = GPTConfig(vocab_size=dataset.tokenizer.vocab_size, block_size=16, n_layer=2,
                       n_head=2, n_embd=32, dropout=dropout, bias=False)  # fmt: skip
    model = GPT(config).to(device)
    optimizer = model.configure_optimizers(0.1, 3e-3, (0.9, 0.99), torch.device(device).type)
    losses = []
    with fake_cupy.count_host_syncs() as syncs:
        for _ in range(steps):
            x, y = dataset.get_batch("train", 4, device)
            loss = model(x, y)[1]
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(loss)
    return losses, syncs[0]


@pytest.mark.parametrize("dropout", [0.0, 0.1])
def test_a_training_step_never_waits_for_the_gpu(dropout: float) -> None:
    losses, syncs = _train_steps("cuda", steps=6, dropout=dropout)
    assert syncs == 0, f"{syncs} host syncs in 6 training steps (expected none)"
    assert all(loss.item() > 0 for loss in losses)  # reading the losses is where it waits


def test_index_checks_never_make_the_host_wait() -> None:
    """Embedding and cross-entropy check their indices on the GPU, into one flag that is
    read only when the host waits anyway: 300 checks, no sync (a queue used to be read
    every 64)."""
    weight = torch.ones(10, 4, device="cuda")
    with fake_cupy.count_host_syncs() as syncs:
        for _ in range(300):
            torch.nn.functional.embedding(torch.tensor([1, 9], device="cuda"), weight)
    assert syncs[0] == 0


def test_cuda_trains_the_same_model_as_the_cpu() -> None:
    """Host-seeded initialisation and batches, dropout 0: the losses agree step by step."""
    cpu = [loss.item() for loss in _train_steps("cpu", steps=8, dropout=0.0)[0]]
    cuda = [loss.item() for loss in _train_steps("cuda", steps=8, dropout=0.0)[0]]
    assert cpu[-1] < cpu[0]  # it is learning
    assert cuda == pytest.approx(cpu, abs=1e-5)


@pytest.mark.parametrize("dropout", [0.0, 0.1])
def test_a_training_step_uses_every_fused_kernel(dropout: float) -> None:
    """A silent fall-back to the array code (say, a non-contiguous input that a kernel
    skips) would still give the right numbers, only slower and with more memory, so the
    kernels one GPT step launches are counted. Per block: layer norm twice, attention and
    GELU once, each way; then the final layer norm, log-softmax (cross-entropy) and one
    Adam update per parameter; with dropout, one hashed-mask kernel each way after the
    embeddings and in each block's two residual branches."""
    with fake_cupy.count_kernel_launches() as launched:
        _train_steps("cuda", steps=1, dropout=dropout)
    n_layer = 2
    norms = 2 * n_layer + 1
    n_params = 2 + 6 * n_layer + 1  # wte, wpe; per block 2 norms + 4 matrices; ln_f
    expected = {
        "microtorch_layer_norm_forward": norms,
        "microtorch_layer_norm_backward": norms,
        "microtorch_attention_forward": n_layer,
        "microtorch_attention_backward": n_layer,
        "microtorch_gelu_forward_none": n_layer,
        "microtorch_gelu_backward_none": n_layer,
        "microtorch_log_softmax_forward": 1,
        "microtorch_adam_step": n_params,
    }
    if dropout:
        expected["microtorch_dropout_apply"] = 2 * (2 * n_layer + 1)
    assert dict(launched) == expected


def test_attention_backward_never_copies_the_score_matrices() -> None:
    """CuPy's batched matmul first copies every non-contiguous operand (a transposed view)
    into a contiguous array. Attention's backward is written so that only the small
    (..., T, head_size) operands are copied, never the (..., T, T) scores or their
    gradient, which are the biggest arrays of a step (T = 16 > head_size = 8 here)."""
    torch.manual_seed(0)
    config = GPTConfig(vocab_size=11, block_size=16, n_layer=1, n_head=2, n_embd=16, bias=False)
    model = GPT(config).to("cuda")
    idx = torch.randint(0, 11, (4, 16), device="cuda")
    with fake_cupy.count_matmul_copies() as copies:
        model(idx, idx)[1].backward()
    shapes = sorted({shape for shape, _ in copies})
    assert shapes == [(4, 2, 8, 16), (4, 2, 16, 8)]
