"""PyTorch's top-level names that call a Tensor method or an nn.functional function
(torch.exp_, torch.clamp_, torch.fill, torch.layer_norm...), its constants and settings
(torch.pi, set_num_threads, use_deterministic_algorithms...), and the legacy tensor types
(torch.FloatTensor...): each checked against PyTorch when it is installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import microtorch

torch = pytest.importorskip("torch")


def _pair(values, dtype="float64"):
    """The same values as a microtorch tensor and a torch tensor."""
    a = np.array(values, dtype=dtype)
    return microtorch.tensor(a), torch.tensor(a)


def _same(m, t, atol=1e-12) -> None:
    """A microtorch result equal (values, shape, dtype) to a torch one."""
    t_np = t.detach().numpy()
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(m.detach().numpy(), t_np, atol=atol, equal_nan=True)


# ------------------------------------------------------------------ top-level in-place forms
_UNIT = [0.1, -0.4, 0.7]  # inside (-1, 1): every inverse function is defined
_ABOVE_ONE = [1.5, 2.0, 3.25]
IN_PLACE = [
    ("abs_", [-1.5, 2.0, -0.0], ()),
    ("neg_", [1.0, -2.0, 0.5], ()),
    ("negative_", [1.0, -2.0, 0.5], ()),
    ("reciprocal_", [2.0, -4.0, 0.5], ()),
    ("square_", [1.5, -2.0, 3.0], ()),
    ("sqrt_", [4.0, 2.0, 0.25], ()),
    ("rsqrt_", [4.0, 2.0, 0.25], ()),
    ("exp_", _UNIT, ()),
    ("exp2_", _UNIT, ()),
    ("expm1_", _UNIT, ()),
    ("log_", _ABOVE_ONE, ()),
    ("log2_", _ABOVE_ONE, ()),
    ("log10_", _ABOVE_ONE, ()),
    ("log1p_", _UNIT, ()),
    ("logit_", [0.2, 0.5, 0.9], ()),
    ("logit_", [0.0, 0.5, 1.0], (0.1,)),
    ("xlogy_", [0.0, 2.0, 3.0], (2.5,)),
    ("sigmoid_", _UNIT, ()),
    ("relu_", [-1.0, 0.0, 2.0], ()),
    ("erf_", _UNIT, ()),
    ("erfc_", _UNIT, ()),
    ("i0_", _UNIT, ()),
    ("sinc_", [0.0, 0.5, 1.5], ()),
    ("sin_", _UNIT, ()),
    ("cos_", _UNIT, ()),
    ("tan_", _UNIT, ()),
    ("sinh_", _UNIT, ()),
    ("cosh_", _UNIT, ()),
    ("tanh_", _UNIT, ()),
    ("asin_", _UNIT, ()),
    ("acos_", _UNIT, ()),
    ("atan_", _UNIT, ()),
    ("asinh_", _UNIT, ()),
    ("acosh_", _ABOVE_ONE, ()),
    ("atanh_", _UNIT, ()),
    ("arcsin_", _UNIT, ()),
    ("arccos_", _UNIT, ()),
    ("arctan_", _UNIT, ()),
    ("arcsinh_", _UNIT, ()),
    ("arccosh_", _ABOVE_ONE, ()),
    ("arctanh_", _UNIT, ()),
    ("deg2rad_", [90.0, -180.0, 45.0], ()),
    ("rad2deg_", [1.0, -3.0, 0.5], ()),
    ("ceil_", [1.5, -1.5, 2.0], ()),
    ("floor_", [1.5, -1.5, 2.0], ()),
    ("round_", [0.5, 1.5, -2.5], ()),
    ("trunc_", [1.7, -1.7, 2.0], ()),
    ("fix_", [1.7, -1.7, 2.0], ()),
    ("frac_", [1.75, -1.25, 2.0], ()),
    ("nan_to_num_", [float("nan"), float("inf"), -float("inf")], ()),
    ("nan_to_num_", [float("nan"), float("inf"), -float("inf")], (1.0, 2.0, -3.0)),
    ("clamp_", [-2.0, 0.5, 3.0], (-1.0, 1.0)),
    ("clip_", [-2.0, 0.5, 3.0], (None, 1.0)),
    ("clamp_min_", [-2.0, 0.5, 3.0], (0.0,)),
    ("clamp_max_", [-2.0, 0.5, 3.0], (0.0,)),
    ("zero_", [1.0, 2.0, 3.0], ()),
    ("fill_", [1.0, 2.0, 3.0], (7.5,)),
]


@pytest.mark.parametrize("name, values, args", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_top_level_in_place_writes_into_its_input(name, values, args) -> None:
    m, t = _pair(values)
    m_out, t_out = getattr(microtorch, name)(m, *args), getattr(torch, name)(t, *args)
    assert m_out is m and t_out is t
    _same(m, t)


def test_top_level_in_place_on_integers_and_with_tensor_arguments() -> None:
    for name in ("gcd_", "lcm_"):
        m, t = _pair([12, 18, -8], "int64")
        mo, to = _pair([8, 12, 6], "int64")
        assert getattr(microtorch, name)(m, mo) is m
        getattr(torch, name)(t, to)
        _same(m, t)
    m, t = _pair([1.0, 2.0, 3.0])
    me, te = _pair([1, 2, -1], "int64")
    assert microtorch.ldexp_(m, me) is m
    torch.ldexp_(t, te)
    _same(m, t)
    m, t = _pair([1.26, -2.34])
    microtorch.round_(m, decimals=1)
    torch.round_(t, decimals=1)
    _same(m, t)
    m, t = _pair([-3, 4], "int64")
    microtorch.abs_(m)
    torch.abs_(t)
    _same(m, t)
    with pytest.raises(RuntimeError):  # float results cannot go into an integer tensor
        torch.sqrt_(torch.tensor([4]))
    with pytest.raises(RuntimeError):
        microtorch.sqrt_(microtorch.tensor([4]))


def test_top_level_addmv_and_index_put_in_place() -> None:
    rng = np.random.default_rng(0)
    a, mat, vec = rng.standard_normal(2), rng.standard_normal((2, 3)), rng.standard_normal(3)
    m, t = microtorch.tensor(a), torch.tensor(a)
    assert (
        microtorch.addmv_(m, microtorch.tensor(mat), microtorch.tensor(vec), beta=2, alpha=3) is m
    )
    torch.addmv_(t, torch.tensor(mat), torch.tensor(vec), beta=2, alpha=3)
    _same(m, t)
    m, t = _pair([1.0, 2.0, 3.0])
    mi, ti = microtorch.tensor([0, 0, 2]), torch.tensor([0, 0, 2])
    mv, tv = _pair([5.0, 6.0, 7.0])
    assert microtorch.index_put_(m, (mi,), mv, True) is m
    torch.index_put_(t, (ti,), tv, True)
    _same(m, t)


def test_top_level_fill_is_out_of_place_and_follows_the_dtype_of_input() -> None:
    for values, dtype, value in [([1, 2, 3], "int64", 2.7), ([1.0, 2.0], "float32", 3)]:
        m, t = _pair(values, dtype)
        m_out, t_out = microtorch.fill(m, value), torch.fill(t, value)
        assert m_out is not m
        _same(m_out, t_out)
        _same(m, t)  # input unchanged
    value = microtorch.tensor(2.0, requires_grad=True)
    microtorch.fill(microtorch.zeros(3), value).sum().backward()
    assert value.grad.item() == 3.0  # as torch's: the value's gradient is the sum
    x = microtorch.ones(3, requires_grad=True)
    microtorch.fill(x, 5.0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError):
        torch.fill(torch.zeros(3), torch.ones(2))
    with pytest.raises(RuntimeError):
        microtorch.fill(microtorch.zeros(3), microtorch.ones(2))


def test_top_level_detach_and_dropout_in_place() -> None:
    x = microtorch.ones(3, requires_grad=True) * 2
    assert microtorch.detach_(x) is x and not x.requires_grad and x.grad_fn is None
    x = microtorch.ones(4)
    assert microtorch.dropout_(x, 0.5, False) is x and x.tolist() == [1.0] * 4
    assert microtorch.dropout_(x, 1.0, True) is x and x.tolist() == [0.0] * 4
    t = torch.ones(4)
    torch.dropout_(t, 1.0, True)
    assert t.tolist() == [0.0] * 4
    for name in ("alpha_dropout_", "feature_alpha_dropout_"):
        x, t = microtorch.ones(2, 3), torch.ones(2, 3)
        assert getattr(microtorch, name)(x, 0.5, False) is x
        assert getattr(torch, name)(t, 0.5, False) is t
        assert getattr(microtorch, name)(x, 1.0, True) is x
        getattr(torch, name)(t, 1.0, True)
        _same(x, t, atol=1e-6)


# ------------------------------------------------------------------ torch.xxx forms of nn functions
def _both(*arrays):
    """Each array as a (microtorch, torch) pair of float64 tensors that require grad."""
    return [
        (microtorch.tensor(a).requires_grad_(), torch.tensor(a).requires_grad_()) for a in arrays
    ]


def _same_with_grads(m_fn, t_fn, pairs, atol=1e-10) -> None:
    """m_fn and t_fn agree on their result and on the gradients of every pair."""
    m_out, t_out = m_fn(*[m for m, _ in pairs]), t_fn(*[t for _, t in pairs])
    _same(m_out, t_out, atol)
    m_out.sum().backward()
    t_out.sum().backward()
    for m, t in pairs:
        if t.grad is None:  # an input the call detached
            assert m.grad is None
        else:
            _same(m.grad, t.grad, atol)


NN_FORMS = [
    # name, inputs (random normal arrays), the call with its torch.xxx signature
    (
        "layer_norm",
        [(2, 3, 4), (4,), (4,)],
        lambda T, x, w, b: T.layer_norm(x, [4], w, b, 1e-5, True),
    ),
    ("layer_norm_defaults", [(2, 3, 4)], lambda T, x: T.layer_norm(x, (3, 4))),
    (
        "group_norm",
        [(2, 4, 3), (4,), (4,)],
        lambda T, x, w, b: T.group_norm(x, 2, w, b, 1e-5, True),
    ),
    ("group_norm_defaults", [(2, 4, 3)], lambda T, x: T.group_norm(x, 2)),
    (
        "batch_norm_training",
        [(4, 3, 2), (3,), (3,)],
        lambda T, x, w, b: T.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    ),
    (
        "instance_norm",
        [(2, 3, 5), (3,), (3,)],
        lambda T, x, w, b: T.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    ),
    ("embedding", [(5, 3)], lambda T, w: T.embedding(w, T.tensor([[0, 4], [4, 2]]))),
    ("embedding_padding", [(5, 3)], lambda T, w: T.embedding(w, T.tensor([0, 4, 4, 2]), 4)),
    ("embedding_negative_padding", [(5, 3)], lambda T, w: T.embedding(w, T.tensor([0, 3, 4]), -2)),
    ("bilinear", [(2, 3), (2, 4), (5, 3, 4), (5,)], lambda T, a, b, w, c: T.bilinear(a, b, w, c)),
    ("kl_div_mean", [(3, 4), (3, 4)], lambda T, a, b: T.kl_div(a, b.softmax(-1))),
    ("kl_div_none", [(3, 4), (3, 4)], lambda T, a, b: T.kl_div(a, b.softmax(-1), 0)),
    ("kl_div_sum_log_target", [(3, 4), (3, 4)], lambda T, a, b: T.kl_div(a, b, 2, log_target=True)),
    (
        "ctc_loss_defaults",  # reduction left out: 0 (none); log_softmax: the logits' gradient
        [(5, 2, 4)],
        lambda T, a: T.ctc_loss(a.log_softmax(2), T.tensor([[1, 2], [3, 3]]), (5, 4), (2, 2)),
    ),
    (
        "ctc_loss_mean",
        [(5, 2, 4)],
        lambda T, a: T.ctc_loss(a.log_softmax(2), T.tensor([[1, 2], [3, 3]]), (5, 4), (2, 1), 0, 1),
    ),
    (
        "ctc_loss_none_blank",
        [(4, 2, 3)],
        lambda T, a: T.ctc_loss(a.log_softmax(2), T.tensor([[1], [0]]), (4, 4), (1, 1), 2, 0),
    ),
    (
        "bce_with_logits",
        [(3, 4), (3, 4), (4,), (4,)],
        lambda T, a, t, w, pw: T.binary_cross_entropy_with_logits(
            a, t.sigmoid(), w.exp().detach(), pw.exp().detach(), 2
        ),
    ),
    (
        "bce_with_logits_defaults",
        [(3, 4), (3, 4)],
        lambda T, a, t: T.binary_cross_entropy_with_logits(a, t.sigmoid()),
    ),
    (
        "poisson_nll_loss",
        [(3, 4), (3, 4)],
        lambda T, a, t: T.poisson_nll_loss(a, t.exp(), True, True, 1e-8, 1),
    ),
    (
        "poisson_nll_loss_rate",
        [(3, 4), (3, 4)],
        lambda T, a, t: T.poisson_nll_loss(a.exp(), t.exp(), False, False, 1e-8, 0),
    ),
    (
        "margin_ranking_loss",
        [(5,), (5,)],
        lambda T, a, b: T.margin_ranking_loss(a, b, T.tensor([1.0, -1, 1, -1, 1]).double(), 0.2),
    ),
    (
        "hinge_embedding_loss",
        [(5,)],
        lambda T, a: T.hinge_embedding_loss(a, T.tensor([1.0, -1, 1, -1, -1]).double(), 0.5, 2),
    ),
    (
        "cosine_embedding_loss",
        [(3, 4), (3, 4)],
        lambda T, a, b: T.cosine_embedding_loss(a, b, T.tensor([1.0, -1, -1]).double(), 0.1),
    ),
    (
        "triplet_margin_loss",
        [(3, 4), (3, 4), (3, 4)],
        lambda T, a, p, n: T.triplet_margin_loss(a, p, n, 0.5, 1.5, 1e-6, True, 0),
    ),
    (
        "triplet_margin_loss_defaults",
        [(3, 4), (3, 4), (3, 4)],
        lambda T, a, p, n: T.triplet_margin_loss(a, p, n),
    ),
    ("channel_shuffle", [(2, 6, 3)], lambda T, x: T.channel_shuffle(x, 3)),
    ("constant_pad_nd", [(2, 3)], lambda T, x: T.constant_pad_nd(x, [1, 2, -1, 1], 0.5)),
    ("constant_pad_nd_default", [(2, 3)], lambda T, x: T.constant_pad_nd(x, [2, 0])),
    ("conv_tbc", [(6, 2, 3), (3, 3, 4), (4,)], lambda T, x, w, b: T.conv_tbc(x, w, b, 1)),
    ("conv_tbc_no_pad", [(6, 2, 3), (2, 3, 4), (4,)], lambda T, x, w, b: T.conv_tbc(x, w, b)),
]


@pytest.mark.parametrize("name, shapes, call", NN_FORMS, ids=[c[0] for c in NN_FORMS])
def test_torch_forms_of_nn_functions_match_pytorch(name, shapes, call) -> None:
    rng = np.random.default_rng(len(name))
    pairs = _both(*[rng.standard_normal(s) for s in shapes])
    _same_with_grads(lambda *a: call(microtorch, *a), lambda *a: call(torch, *a), pairs)


def test_torch_batch_norm_updates_the_running_statistics_and_uses_them_in_eval() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3))
    stats = {}
    for T in (microtorch, torch):
        mean, var = T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)
        T.batch_norm(T.tensor(x), None, None, mean, var, True, 0.3, 1e-5, True)
        out = T.batch_norm(T.tensor(x), None, None, mean, var, False, 0.3, 1e-5, True)
        stats[T] = (mean, var, out)
    for m, t in zip(stats[microtorch], stats[torch]):
        _same(m, t)


def test_torch_dropout_forms_take_train_positionally() -> None:
    for name in ("dropout", "alpha_dropout", "feature_alpha_dropout", "feature_dropout"):
        x, t = microtorch.ones(2, 3), torch.ones(2, 3)
        assert getattr(microtorch, name)(x, 0.5, False) is x
        assert getattr(torch, name)(t, 0.5, False) is t
        m_out, t_out = getattr(microtorch, name)(x, 1.0, True), getattr(torch, name)(t, 1.0, True)
        _same(m_out, t_out, 1e-6)
        with pytest.raises(RuntimeError):
            getattr(torch, name)(t, 1.5, True)
        with pytest.raises(RuntimeError):
            getattr(microtorch, name)(x, 1.5, True)
    microtorch.manual_seed(0)
    kept = microtorch.feature_dropout(microtorch.ones(200, 3, 4), 0.5, True)
    per_channel = kept.reshape(600, 4)
    assert bool((per_channel == per_channel[:, :1]).all())  # whole channels kept or dropped
    assert set(kept.unique().tolist()) == {0.0, 2.0}
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        microtorch.feature_dropout(microtorch.ones(3), 0.5, True)


def test_torch_loss_forms_take_reduction_as_a_number() -> None:
    a, b = microtorch.randn(3), microtorch.randn(3)
    with pytest.raises(TypeError):
        torch.hinge_embedding_loss(torch.randn(3), torch.ones(3), 1.0, "mean")
    with pytest.raises(TypeError, match="reduction must be 0"):
        microtorch.hinge_embedding_loss(a, microtorch.ones(3), 1.0, "mean")
    with pytest.raises(TypeError, match="reduction must be 0"):
        microtorch.margin_ranking_loss(a, b, microtorch.ones(3), 0.0, 7)


# ------------------------------------------------------------------ native_ forms, convolution, cells
NATIVE_NORMS = [
    ("native_layer_norm", (2, 3, 4), lambda T, a: T.native_layer_norm(a, [3, 4], None, None, 1e-5)),
    ("native_batch_norm", (4, 3, 2),
     lambda T, a: T.native_batch_norm(a, None, None, None, None, True, 0.1, 1e-5)),
    ("native_batch_norm_2d", (5, 3),
     lambda T, a: T.native_batch_norm(a, None, None, None, None, True, 0.1, 1e-3)),
    ("native_group_norm", (2, 6, 5), lambda T, a: T.native_group_norm(a, None, None, 2, 6, 5, 3, 1e-5)),
    ("native_group_norm_4d", (2, 6, 2, 3),
     lambda T, a: T.native_group_norm(a, None, None, 2, 6, 6, 3, 1e-5)),
]  # fmt: skip


@pytest.mark.parametrize("name, shape, call", NATIVE_NORMS, ids=[c[0] for c in NATIVE_NORMS])
def test_native_norms_return_the_statistics_they_used(name, shape, call) -> None:
    """(out, mean, rstd) as PyTorch's; the op table checks out's gradients."""
    x = np.random.default_rng(len(name)).standard_normal(shape)
    for dtype in ("float32", "float64"):
        mine = call(microtorch, microtorch.tensor(x.astype(dtype), requires_grad=True))
        theirs = call(torch, torch.tensor(x.astype(dtype), requires_grad=True))
        assert len(mine) == len(theirs) == 3
        for m, t in zip(mine, theirs):
            _same(m, t, 1e-6)
        assert mine[0].requires_grad and not mine[1].requires_grad and not mine[2].requires_grad


def test_native_batch_norm_updates_running_statistics_and_in_eval_returns_empty_ones() -> None:
    x = np.random.default_rng(2).standard_normal((4, 3))
    results = {}
    for T in (microtorch, torch):
        mean, var = T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)
        T.native_batch_norm(T.tensor(x), None, None, mean, var, True, 0.3, 1e-5)
        out, saved_mean, saved_invstd = T.native_batch_norm(
            T.tensor(x), None, None, mean, var, False, 0.3, 1e-5
        )
        assert tuple(saved_mean.shape) == tuple(saved_invstd.shape) == (0,)
        results[T] = (mean, var, out)
    for m, t in zip(results[microtorch], results[torch]):
        _same(m, t)
    with pytest.raises(RuntimeError):  # (PyTorch 2.13 crashes here)
        microtorch.native_batch_norm(
            microtorch.ones(4, 3), None, None, None, None, False, 0.1, 1e-5
        )


def test_native_group_norm_checks_n_c_and_hxw() -> None:
    for T in (microtorch, torch):
        with pytest.raises(RuntimeError, match="numel\\(\\) == N \\* C \\* HxW"):
            T.native_group_norm(T.ones(2, 6, 5), None, None, 2, 6, 4, 3, 1e-5)


def test_native_dropout_returns_the_mask_it_used() -> None:
    for T in (microtorch, torch):
        x = T.randn(40, 50, requires_grad=True)
        out, mask = T.native_dropout(x, 0.3, True)
        assert mask.dtype is T.bool and 0.6 < mask.float().mean().item() < 0.8
        kept = x.detach()[mask] / 0.7
        assert T.allclose(out.detach()[mask], kept) and bool((out.detach()[~mask] == 0).all())
        out.sum().backward()
        assert T.allclose(x.grad, mask.to(x.dtype) / 0.7)
        copy, everything = T.native_dropout(x, 0.3, False)
        assert copy is not x and T.equal(copy, x.detach()) and bool(everything.all())
        assert bool(T.native_dropout(x, 0.0, True)[1].all())
        gone, none_kept = T.native_dropout(x, 1.0, True)
        assert gone.abs().sum().item() == 0 and not bool(none_kept.any())
        assert T.native_dropout(x, 0.5, None)[1].float().mean().item() < 0.7  # None: training
        with pytest.raises(RuntimeError):
            T.native_dropout(x, 1.5, True)
        with pytest.raises(RuntimeError):
            T.native_dropout(T.ones(3, dtype=T.long), 0.5, True)
    x = microtorch.randn(30, 40)
    microtorch.manual_seed(4)
    ours = microtorch.native_dropout(x, 0.4, True)[0]
    microtorch.manual_seed(4)
    assert microtorch.equal(ours, microtorch.nn.functional.dropout(x, 0.4))  # the same mask


def test_native_channel_shuffle_and_convolution_checks() -> None:
    for T in (microtorch, torch):
        assert T.native_channel_shuffle(T.arange(6.0).reshape(1, 6, 1), 3).flatten().tolist() == [
            0.0, 2.0, 4.0, 1.0, 3.0, 5.0]  # fmt: skip
        with pytest.raises(RuntimeError, match="divisible by groups"):
            T.native_channel_shuffle(T.ones(1, 6, 2), 4)
        x, w = T.ones(1, 2, 5, 5), T.ones(4, 2, 3, 3)
        assert T.convolution(x, w, None, [1], [0], [1], False, [0], 1).shape == (1, 4, 3, 3)
        with pytest.raises(TypeError):
            T.convolution(x, w, None, 1, 0, 1, False, 0, 1)
        with pytest.raises(RuntimeError, match="a list of 2 values"):
            T.convolution(x, w, None, [1, 1, 1], [0], [1], False, [0], 1)
        with pytest.raises(RuntimeError, match="2-dimensional input of size"):
            T.convolution(T.ones(2, 5), T.ones(4, 2, 3), None, [1], [0], [1], False, [0], 1)


def test_embedding_renorm_scales_the_picked_rows_in_place() -> None:
    w = np.random.default_rng(3).standard_normal((5, 3)) * 3
    results = []
    for T in (microtorch, torch):
        weight = T.tensor(w)
        assert T.embedding_renorm_(weight, T.tensor([[0, 2], [2, 4]]), 1.0, 2.0) is weight
        results.append(weight)
        with pytest.raises(RuntimeError, match="in-place operation"):
            T.embedding_renorm_(T.ones(5, 3, requires_grad=True), T.tensor([0]), 1.0, 2.0)
        with pytest.raises(RuntimeError, match="Long, Int"):
            T.embedding_renorm_(T.ones(5, 3), T.tensor([0.0, 1.0]), 1.0, 2.0)
    _same(*results, 1e-6)
    assert results[0][1].tolist() == w[1].tolist()  # a row not picked is left alone


def test_functional_cells_check_their_arguments_as_pytorch() -> None:
    for T in (microtorch, torch):
        x, h = T.ones(3, 4), T.ones(3, 5)
        w_ih, w_hh = T.ones(20, 4), T.ones(20, 5)
        with pytest.raises(RuntimeError, match="two hidden states"):
            T.lstm_cell(x, [h], w_ih, w_hh)
        with pytest.raises(TypeError, match="hx"):
            T.lstm_cell(x, h, w_ih, w_hh)
        with pytest.raises(RuntimeError, match="3 \\* hidden_size = 15, but got 14"):
            T.gru_cell(x, h, T.ones(14, 4), T.ones(15, 5))
        with pytest.raises(RuntimeError, match="inconsistent hidden_size"):
            T.rnn_tanh_cell(x, T.ones(3, 6), T.ones(5, 4), T.ones(5, 5))
        with pytest.raises(RuntimeError, match="inconsistent input_size"):
            T.rnn_relu_cell(T.ones(3, 3), h, T.ones(5, 4), T.ones(5, 5))
    cell = microtorch.nn.LSTMCell(4, 5)
    x, h, c = microtorch.randn(3, 4), microtorch.randn(3, 5), microtorch.randn(3, 5)
    functional = microtorch.lstm_cell(x, (h, c), cell.weight_ih, cell.weight_hh, cell.bias_ih,
                                      cell.bias_hh)  # fmt: skip
    for a, b in zip(functional, cell(x, (h, c))):
        assert microtorch.allclose(a, b)


def test_deprecated_norms_warn_and_refuse_as_pytorch() -> None:
    x = microtorch.randn(3, 4)
    with pytest.warns(UserWarning, match="frobenius_norm is deprecated"):  # (PyTorch's: once)
        microtorch.frobenius_norm(x, [0, 1])
    with pytest.warns(UserWarning, match="nuclear_norm is deprecated"):
        microtorch.nuclear_norm(x)
    for T in (microtorch, torch):
        x = T.randn(3, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            with pytest.raises(TypeError):
                T.frobenius_norm(x)
            with pytest.raises(RuntimeError, match="at most 2 dimensions"):
                T.frobenius_norm(T.ones(2, 3, 4), [0, 1, 2])
            with pytest.raises(RuntimeError):
                T.frobenius_norm(x.long(), [0, 1])
            with pytest.raises(RuntimeError, match="at least 2 dimensions"):
                T.nuclear_norm(T.ones(3))
            assert T.nuclear_norm(x, True).shape == (1, 1)
        with pytest.raises(TypeError, match="'pow'"):
            T.norm_except_dim(x, 2.5)
        with pytest.raises(IndexError):
            T.norm_except_dim(x, 2, 5)
        assert T.norm_except_dim(x, 2, -2).shape == (3, 1)


# ------------------------------------------------------------------ constants and settings
def test_constants_are_pytorchs() -> None:
    for name in ("pi", "e", "inf"):
        assert getattr(microtorch, name) == getattr(torch, name)
    assert microtorch.nan != microtorch.nan and microtorch.newaxis is torch.newaxis is None
    assert microtorch.ones(2, 3)[:, microtorch.newaxis].shape == (2, 1, 3)


def test_thread_counts_are_recorded_and_must_be_positive() -> None:
    before, interop = microtorch.get_num_threads(), microtorch.get_num_interop_threads()
    assert before >= 1 and interop >= 1
    try:
        microtorch.set_num_threads(3)
        assert microtorch.get_num_threads() == 3
        microtorch.set_num_interop_threads(2)
        assert microtorch.get_num_interop_threads() == 2
    finally:
        microtorch.set_num_threads(before)
        microtorch.set_num_interop_threads(interop)
    for bad in (0, -1):
        with pytest.raises(RuntimeError, match="positive integer"):
            torch.set_num_threads(bad)
        with pytest.raises(RuntimeError, match="positive integer"):
            microtorch.set_num_threads(bad)


def test_deterministic_settings_move_together_as_in_pytorch() -> None:
    """The same sequence of calls gives the same answers from both libraries."""
    steps = [
        ("use_deterministic_algorithms", (True,), {}),
        ("use_deterministic_algorithms", (True,), {"warn_only": True}),
        ("set_deterministic_debug_mode", ("error",), {}),
        ("set_deterministic_debug_mode", (1,), {}),
        ("set_deterministic_debug_mode", ("default",), {}),
        ("use_deterministic_algorithms", (False,), {}),
    ]
    try:
        for name, args, kwargs in steps:
            answers = []
            for T in (microtorch, torch):
                getattr(T, name)(*args, **kwargs)
                answers.append(
                    (
                        T.are_deterministic_algorithms_enabled(),
                        T.is_deterministic_algorithms_warn_only_enabled(),
                        T.get_deterministic_debug_mode(),
                    )
                )
            assert answers[0] == answers[1], (name, args, kwargs)
        for T in (microtorch, torch):
            with pytest.raises(RuntimeError, match="expected 0, 1, or 2"):
                T.set_deterministic_debug_mode(3)
            with pytest.raises(RuntimeError, match="`default`, `warn`, `error`"):
                T.set_deterministic_debug_mode("x")
            with pytest.raises(TypeError):
                T.use_deterministic_algorithms("yes")
    finally:
        microtorch.use_deterministic_algorithms(False)
        torch.use_deterministic_algorithms(False)


def test_warn_always_flush_denormal_typename_is_storage() -> None:
    assert microtorch.is_warn_always_enabled() is False
    try:
        microtorch.set_warn_always(True)
        assert microtorch.is_warn_always_enabled() is True
    finally:
        microtorch.set_warn_always(False)
    assert microtorch.set_flush_denormal(True) is False  # not supported: nothing changes
    assert microtorch.typename(microtorch.ones(2).double()) == "torch.DoubleTensor"
    assert microtorch.typename(microtorch.ones(2, dtype=microtorch.long)) == "torch.LongTensor"

    def local() -> None:
        pass

    for obj in (3, [1], None, len, local, np.ones(2)):
        assert microtorch.typename(obj) == torch.typename(obj)
    linear = microtorch.nn.Linear(1, 1)
    assert microtorch.typename(linear) == f"{type(linear).__module__}.Linear"
    assert microtorch.is_storage(microtorch.ones(2)) is torch.is_storage(torch.ones(2)) is False


# ------------------------------------------------------------------ legacy tensor types
LEGACY = [
    ("FloatTensor", "float32"),
    ("DoubleTensor", "float64"),
    ("HalfTensor", "float16"),
    ("LongTensor", "int64"),
    ("IntTensor", "int32"),
    ("ShortTensor", "int16"),
    ("CharTensor", "int8"),
    ("ByteTensor", "uint8"),
    ("BoolTensor", "bool"),
]


@pytest.mark.parametrize("name, dtype", LEGACY, ids=[n for n, _ in LEGACY])
def test_legacy_tensor_types_construct_and_match_by_dtype(name, dtype) -> None:
    M, T = getattr(microtorch, name), getattr(torch, name)
    assert M.dtype is getattr(microtorch, dtype) and M.is_cuda is False
    for args in [(2, 3), (), (microtorch.Size([4]),)]:
        t_args = tuple(torch.Size(a) if isinstance(a, microtorch.Size) else a for a in args)
        assert tuple(M(*args).shape) == tuple(T(*t_args).shape)
        assert M(*args).dtype is M.dtype
    _same(M([1, 0, 2]), T([1, 0, 2]))
    for _, other_dtype in LEGACY:
        made = microtorch.zeros(2, dtype=getattr(microtorch, other_dtype))
        assert isinstance(made, M) is (other_dtype == dtype)
        assert isinstance(torch.zeros(2, dtype=getattr(torch, other_dtype)), T) is (
            other_dtype == dtype
        )
    assert not isinstance(np.zeros(2), M)
    assert microtorch.ones(2).type(M).dtype is M.dtype
    assert microtorch.ones(2).type(f"torch.{name}").dtype is M.dtype


def test_legacy_type_of_a_tensor_is_an_alias_and_refuses_other_dtypes() -> None:
    x = microtorch.ones(3)
    y = microtorch.FloatTensor(x)
    y[0] = 5.0
    assert x[0].item() == 5.0
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.tensor([1, 2]))
    with pytest.raises(TypeError, match="expected a tensor of dtype microtorch.float32 on cpu"):
        microtorch.FloatTensor(microtorch.tensor([1, 2]))
    with pytest.raises(TypeError):
        torch.FloatTensor(2, 3.5)
    with pytest.raises(TypeError):
        microtorch.FloatTensor(2, 3.5)
    assert repr(microtorch.FloatTensor) == "<class 'microtorch.FloatTensor'>"


def test_legacy_types_match_cpu_tensors_only(device) -> None:
    x = microtorch.ones(2, device=device)
    assert isinstance(x, microtorch.FloatTensor) is (device == "cpu")
    assert isinstance(x, microtorch.Tensor)
    assert x.type(microtorch.DoubleTensor).device.type == "cpu"
    assert isinstance(x, microtorch.cuda.FloatTensor) is (device == "cuda")
    assert not isinstance(x, microtorch.cuda.DoubleTensor)
    assert x.type() == ("torch.cuda.FloatTensor" if device == "cuda" else "torch.FloatTensor")
    assert x.type("torch.LongTensor").device.type == "cpu"  # (a CPU type's name: to the CPU)
    if device == "cuda":
        made = microtorch.cuda.LongTensor([1, 2])
        assert made.is_cuda and made.dtype is microtorch.int64 and made.tolist() == [1, 2]
        assert microtorch.cuda.FloatTensor(2, 3).shape == (2, 3)
        moved = microtorch.ones(2).type(microtorch.cuda.DoubleTensor)
        assert moved.is_cuda and moved.dtype is microtorch.float64
        assert microtorch.ones(2).type("torch.cuda.HalfTensor").is_cuda


@pytest.mark.parametrize("name, dtype", LEGACY, ids=[n for n, _ in LEGACY])
def test_cuda_legacy_types_are_pytorchs_and_refused_without_cuda(name, dtype) -> None:
    M, T = getattr(microtorch.cuda, name), getattr(torch.cuda, name)
    assert M.dtype is getattr(microtorch, dtype) and M.is_cuda is T.is_cuda is True
    assert repr(M) == f"<class 'microtorch.cuda.{name}'>" == repr(T).replace("torch", "microtorch")
    cpu = microtorch.zeros(2, dtype=M.dtype)
    assert not isinstance(cpu, M)
    assert not isinstance(torch.zeros(2, dtype=T.dtype), T)
    if not microtorch.cuda.is_available():
        with pytest.raises(TypeError, match="not available"):
            M(2)
        with pytest.raises(TypeError, match="CUDA is not available"):
            microtorch.set_default_tensor_type(M) if M.dtype.is_floating_point else M([1])
    if not torch.cuda.is_available() and torch.version.cuda is None:  # (a CUDA build
        with pytest.raises(TypeError, match="not available"):  # fails otherwise there)
            T(2)


def test_legacy_constructors_read_sizes_data_and_devices_as_pytorch() -> None:
    for T in (microtorch, torch):
        assert tuple(T.Tensor(np.int64(2), 3).shape) == (2, 3)  # NumPy ints are sizes
        assert tuple(T.Tensor(2, True).shape) == (2, 1)  # a bool among sizes: one
        assert tuple(T.FloatTensor(np.int64(4)).shape) == (4,)
        assert T.Tensor((2, 3)).tolist() == [2.0, 3.0]  # a tuple is data
        assert T.Tensor(np.array(3.5)).shape == ()  # a 0-d array is data
        assert T.Tensor(2, device="cpu").shape == (2,) and T.LongTensor(2, device="cpu").shape == (
            2,
        )
        assert T.Tensor([1.0], device="cpu").tolist() == [1.0]
        for single in (3.5, True, np.float64(3.5)):
            with pytest.raises(TypeError, match="must be a sequence"):
                T.Tensor(single)
            with pytest.raises(TypeError, match="must be a sequence"):
                T.DoubleTensor(single)
        with pytest.raises(RuntimeError, match="expects device type: cpu but device type: cuda"):
            T.FloatTensor(2, device="cuda")
        with pytest.raises(RuntimeError, match="expects device type: cpu but device type: cuda"):
            T.Tensor([1.0], device="cuda")
        with pytest.raises(TypeError):
            T.Tensor(2, dtype=T.float64)
        longs = T.tensor([1, 2])
        assert T.Tensor(longs).dtype is T.int64  # Tensor(a tensor): an alias, any dtype
        assert longs.type(T.Tensor).dtype is T.float32  # the default tensor type
        for bad in ("FloatTensor", "cuda.FloatTensor", "torch.float64", "float"):
            with pytest.raises(ValueError):
                longs.type(bad)
    microtorch.set_default_dtype(microtorch.float64)
    try:
        assert microtorch.ones(1).type(microtorch.Tensor).dtype is microtorch.float64
        assert microtorch.Tensor(2).dtype is microtorch.float64
    finally:
        microtorch.set_default_dtype(microtorch.float32)


# ------------------------------------------------------------------ predicates on real tensors
def test_complex_and_lazy_conjugation_predicates_answer_as_for_real_tensors() -> None:
    m, t = _pair([1.0, -2.0, 0.0])
    for name in ("is_complex", "is_conj", "is_neg"):
        assert getattr(microtorch, name)(m) is getattr(torch, name)(t) is False
        assert getattr(m, name)() is False
    for name in ("conj", "resolve_conj", "resolve_neg", "real"):
        assert getattr(microtorch, name)(m) is m
        assert getattr(torch, name)(t) is t
    assert m.real is m and m.conj() is m and m.resolve_conj() is m and m.resolve_neg() is m
    for T, x in ((torch, t), (microtorch, m)):
        with pytest.raises(RuntimeError, match="imag is not implemented"):
            T.imag(x)
        with pytest.raises(RuntimeError, match="imag is not implemented"):
            x.imag  # noqa: B018


@pytest.mark.parametrize(
    "values, dtype",
    [([1.5, -2.0, 0.0, -0.0], "float64"), ([float("nan"), float("inf"), -float("inf")], "float64"),
     ([3, -1, 0], "int64"), ([True, False], "bool"), ([], "float32"), (-2.5, "float32")],
)  # fmt: skip
def test_angle_of_real_numbers_is_pi_where_negative(values, dtype) -> None:
    m, t = _pair(values, dtype)
    _same(microtorch.angle(m), torch.angle(t))
    _same(m.angle(), t.angle())


def test_angle_has_a_zero_gradient() -> None:
    ((m, t),) = _both(np.array([1.5, -2.0, float("nan"), -float("inf")]))
    microtorch.angle(m).sum().backward()
    torch.angle(t).sum().backward()
    _same(m.grad, t.grad)


def test_is_nonzero_is_same_size_is_signed_get_device_is_inference() -> None:
    for values in ([0.0], [3], [[True]], 0.0, -1.5):
        m, t = _pair(values, "float64")
        assert microtorch.is_nonzero(m) is torch.is_nonzero(t)
        assert m.is_nonzero() is t.is_nonzero()
    for values, message in (([], "no values"), ([1, 2], "more than one value")):
        m, t = _pair(values)
        with pytest.raises(RuntimeError, match=message):
            torch.is_nonzero(t)
        with pytest.raises(RuntimeError, match=message):
            microtorch.is_nonzero(m)
    a, b = microtorch.ones(2, 3), microtorch.ones(3, 2)
    assert microtorch.is_same_size(a, a.clone()) and not microtorch.is_same_size(a, b)
    assert a.is_same_size(microtorch.zeros(2, 3)) and not a.is_same_size(a[None])
    for dtype in ("float32", "int8", "uint8", "bool", "int64"):
        assert microtorch.is_signed(microtorch.zeros(1, dtype=getattr(microtorch, dtype))) is (
            torch.is_signed(torch.zeros(1, dtype=getattr(torch, dtype)))
        )
    assert microtorch.get_device(a) == torch.get_device(torch.ones(1)) == -1 == a.get_device()
    with microtorch.inference_mode():
        made = microtorch.ones(2)
    assert microtorch.is_inference(made) is False and made.is_inference() is False


def test_get_device_gives_the_cuda_index(device) -> None:
    x = microtorch.ones(2, device=device)
    assert x.get_device() == (-1 if device == "cpu" else 0)


def test_pinned_and_shared_memory_on_the_cpu() -> None:
    m, t = _pair([1.0, 2.0])
    assert m.is_pinned() is t.is_pinned() is False
    assert m.is_shared() is False and m.share_memory_() is m
    if not torch.cuda.is_available():  # (PyTorch 2.11 names the missing NVIDIA driver)
        with pytest.raises(RuntimeError, match="accelerator|NVIDIA driver"):
            t.pin_memory()
    if not microtorch.cuda.is_available():
        with pytest.raises(RuntimeError, match="accelerator"):
            m.pin_memory()


# ------------------------------------------------------------------ Tensor.new, resize_, apply_, map_
def test_tensor_new_follows_the_legacy_constructor_in_the_tensors_dtype() -> None:
    for dtype in ("float64", "int64"):
        m, t = _pair([1, 2], dtype)
        for args in [(2, 3), (), (4,)]:
            assert tuple(m.new(*args).shape) == tuple(t.new(*args).shape)
            assert m.new(*args).dtype is m.dtype
        _same(m.new([1.5, -2.5]), t.new([1.5, -2.5]))
        assert m.new(m).data_ptr() == m.data_ptr()
    with pytest.raises(TypeError):
        microtorch.ones(2).new(microtorch.ones(2).double())
    m, t = _pair([1.0])
    assert (
        m.new_empty_strided((2, 3), (1, 2)).stride() == t.new_empty_strided((2, 3), (1, 2)).stride()
    )
    assert m.new_empty_strided((2, 3), (3, 1), dtype=microtorch.int32).dtype is microtorch.int32


@pytest.mark.parametrize(
    "start, sizes", [(6, (2, 2)), (4, (3, 2)), (4, (0,)), (6, (6,)), (3, (2, 2, 2))]
)
def test_resize_keeps_the_first_elements_and_grows(start, sizes) -> None:
    m, t = microtorch.arange(float(start)), torch.arange(float(start))
    assert m.resize_(*sizes) is m
    t.resize_(*sizes)
    assert tuple(m.shape) == tuple(t.shape)
    kept = min(start, int(np.prod(sizes)))
    _same(m.reshape(-1)[:kept], t.reshape(-1)[:kept])  # PyTorch leaves the new ones uninitialised


def test_resize_shrinking_keeps_memory_and_refuses_grad() -> None:
    x = microtorch.arange(6.0)
    ptr = x.data_ptr()
    x.resize_((2, 2))
    assert x.data_ptr() == ptr and x.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    x.resize_as_(microtorch.zeros(3))
    assert x.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        torch.ones(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        microtorch.ones(2, requires_grad=True).resize_(3)


def test_apply_and_map_call_python_per_element() -> None:
    for dtype in ("float64", "int64"):
        m, t = _pair([0, 1, 2], dtype)
        assert m.apply_(lambda v: v * 2.7) is m
        t.apply_(lambda v: v * 2.7)
        _same(m, t)
        mo, to = _pair([10, 20, 30], dtype)
        assert m.map_(mo, lambda a, b: a - b) is m
        t.map_(to, lambda a, b: a - b)
        _same(m, t)
    m, t = _pair([[1.0, 2.0], [3.0, 4.0]])
    m.map_(microtorch.tensor([1.0, 0.5]).double(), lambda a, b: a * b)
    t.map_(torch.tensor([1.0, 0.5]).double(), lambda a, b: a * b)
    _same(m, t)


def test_apply_is_cpu_only(device) -> None:
    x = microtorch.ones(2, device=device)
    if device == "cpu":
        assert x.apply_(lambda v: v + 1).tolist() == [2.0, 2.0]
    else:
        with pytest.raises(TypeError, match="only implemented on CPU"):
            x.apply_(lambda v: v + 1)


# ------------------------------------------------------------------ factories and windows
def test_scalar_tensor_empty_strided_empty_permuted() -> None:
    for s, kwargs in ((3, {}), (True, {}), (2.5, {}), (2, {"dtype": "long"})):
        m_kwargs = {k: getattr(microtorch, v) for k, v in kwargs.items()}
        t_kwargs = {k: getattr(torch, v) for k, v in kwargs.items()}
        _same(microtorch.scalar_tensor(s, **m_kwargs), torch.scalar_tensor(s, **t_kwargs))
    assert microtorch.scalar_tensor(1.0, requires_grad=True).requires_grad
    for size, stride in (((2, 3), (3, 1)), ((2, 3), (1, 2)), ((3, 4), (8, 2)), ((0, 2), (2, 1))):
        m, t = microtorch.empty_strided(size, stride), torch.empty_strided(size, stride)
        assert tuple(m.shape) == tuple(t.shape) and m.stride() == t.stride()
        assert m.is_contiguous() is t.is_contiguous() and m.dtype is microtorch.float32
    for size, order in (((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((5,), (0,)), ((), ())):
        m, t = microtorch.empty_permuted(size, order), torch.empty_permuted(size, order)
        assert tuple(m.shape) == tuple(t.shape) and m.stride() == t.stride()
    for T in (torch, microtorch):
        with pytest.raises(RuntimeError):
            T.empty_permuted((2, 3), (0, 0))
        with pytest.raises(RuntimeError):
            T.empty_strided((2, 3), (1,))


WINDOWS = [
    ("hann_window", ()),
    ("hamming_window", ()),
    ("hamming_window", (True, 0.5, 0.4)),
    ("hamming_window", (False, 0.6)),
    ("blackman_window", ()),
    ("bartlett_window", ()),
    ("kaiser_window", ()),
    ("kaiser_window", (False, 5.0)),
    ("kaiser_window", (True, 0.5)),
]


@pytest.mark.parametrize("name, extra", WINDOWS, ids=[f"{n}{e}" for n, e in WINDOWS])
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8])
def test_windows_match_pytorch(name, extra, length) -> None:
    m_fn, t_fn = getattr(microtorch, name), getattr(torch, name)
    if not extra:
        for periodic in (True, False):
            _same(m_fn(length, periodic, dtype=microtorch.float64),
                  t_fn(length, periodic, dtype=torch.float64))  # fmt: skip
    _same(m_fn(length, *extra), t_fn(length, *extra), atol=1e-6)
    assert m_fn(length, *extra).dtype is microtorch.float32


def test_windows_refuse_bad_lengths_and_integer_dtypes() -> None:
    for T in (torch, microtorch):
        with pytest.raises(RuntimeError, match="non-negative window_length"):
            T.hann_window(-1)
        with pytest.raises(RuntimeError, match="expects floating point dtypes"):
            T.kaiser_window(3, dtype=T.long)
    w = microtorch.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf
