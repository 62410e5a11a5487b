"""Memory formats and layouts: where the elements of contiguous(), clone(), to(), empty()
and the *_like factories lie in memory (their strides), as in PyTorch."""

from __future__ import annotations

import pytest

import microtorch


def _strides(T) -> list:
    """Strides and flags in library ``T`` (microtorch or torch) for each way of asking."""
    x = T.arange(120.0).reshape(2, 3, 4, 5)
    nhwc = x.contiguous(memory_format=T.channels_last)
    w = T.arange(24.0, requires_grad=True)
    y = w.reshape(1, 2, 3, 4).contiguous(memory_format=T.channels_last)
    (y * T.arange(24.0).reshape(1, 2, 3, 4)).sum().backward()
    return [
        nhwc.stride(), nhwc.is_contiguous(), nhwc.is_contiguous(memory_format=T.channels_last),
        nhwc.tolist() == x.tolist(), x.is_contiguous(memory_format=T.channels_last),
        x.transpose(1, 3).clone().stride(),  # clone keeps the order (preserve_format)
        x.transpose(1, 3).clone(memory_format=T.contiguous_format).stride(),
        nhwc.clone().stride(), x.clone(memory_format=T.channels_last).stride(),
        x.to(memory_format=T.channels_last).stride(),
        x.float(memory_format=T.channels_last).stride(),
        T.empty(2, 3, 4, 5, memory_format=T.channels_last).stride(),
        T.zeros_like(nhwc).stride(), T.ones_like(nhwc, memory_format=T.contiguous_format).stride(),
        T.empty_like(x, memory_format=T.channels_last).stride(),
        T.full_like(x.transpose(0, 2), 3.0).stride(), T.rand_like(x.transpose(0, 1)).stride(),
        T.ones(2, 3, 4, 5, 6).contiguous(memory_format=T.channels_last_3d).stride(),
        x.t().is_contiguous(memory_format=T.preserve_format) if x.ndim == 2 else None,
        x.is_contiguous(memory_format=T.preserve_format),
        x[:, :, ::2].clone().stride(), x.permute(0, 2, 3, 1).clone().stride(),
        x.layout == T.strided, w.grad.tolist() == list(range(24)),
    ]  # fmt: skip


def test_memory_formats_give_pytorchs_strides() -> None:
    ours = _strides(microtorch)
    assert ours[0] == (60, 1, 15, 3) and ours[5] == (60, 1, 5, 20)
    torch = pytest.importorskip("torch")
    assert ours == _strides(torch)


def test_memory_format_errors_and_names(device: str) -> None:
    x = microtorch.ones(3, 4, device=device)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
        x.contiguous(memory_format=microtorch.channels_last)
    with pytest.raises(TypeError, match="memory_format must be microtorch.contiguous_format"):
        x.clone(memory_format="channels_last")
    assert repr(microtorch.channels_last) == "microtorch.channels_last"
    assert str(microtorch.strided) == "microtorch.strided" and x.layout is microtorch.strided
    nhwc = microtorch.ones(2, 3, 4, 5, device=device).contiguous(
        memory_format=microtorch.channels_last
    )
    assert nhwc.stride() == (60, 1, 15, 3) and nhwc.device == x.device


def test_resize_with_a_memory_format_lays_the_memory_out_as_pytorch() -> None:
    """resize_(..., memory_format=channels_last) keeps the memory and views it with the
    channels innermost (it was accepted and ignored); preserve_format is refused."""

    def resized(T) -> list:
        x = T.arange(24.0)
        y = x.clone().resize_(1, 2, 3, 4, memory_format=T.channels_last)
        z = T.zeros(2, 3).resize_as_(T.zeros(1, 2, 3, 4), memory_format=T.channels_last)
        return [y.stride(), y.tolist(), z.stride(), x.clone().resize_(2, 12).stride()]

    ours = resized(microtorch)
    assert ours[0] == (24, 1, 8, 2) and ours[1][0][1][0] == [1.0, 3.0, 5.0, 7.0]
    with pytest.raises(RuntimeError, match="preserve_format"):
        microtorch.zeros(4).resize_(2, 2, memory_format=microtorch.preserve_format)
    torch = pytest.importorskip("torch")
    assert ours == resized(torch)
    with pytest.raises(RuntimeError):
        torch.zeros(4).resize_(2, 2, memory_format=torch.preserve_format)
