"""Module: registration, walking the tree, modes, device/dtype moves, state dicts, repr."""

from __future__ import annotations

import copy
from collections import OrderedDict

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn


class Tied(nn.Module):
    """An embedding and an output head sharing one weight, plus a buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.body = nn.Sequential(nn.Linear(3, 3), nn.GELU(), nn.LayerNorm(3))
        self.head = nn.Linear(3, 5, bias=False)
        self.head.weight = self.emb.weight  # tie
        self.register_buffer("mask", torch.ones(3))
        self.register_buffer("cache", torch.zeros(2), persistent=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(self.emb(idx)) * self.mask)


def _values(module: nn.Module) -> dict:
    return {k: v.cpu().numpy().copy() for k, v in module.state_dict().items()}


def test_registration_order_and_names() -> None:
    m = Tied()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["emb.weight", "body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias"]
    assert len(list(m.parameters())) == 5  # the tied weight is listed once
    assert list(m.state_dict()) == [
        "mask", "emb.weight", "body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias",
        "head.weight",
    ]  # fmt: skip
    assert [n for n, _ in m.named_buffers()] == ["mask", "cache"]
    assert [n for n, _ in m.named_children()] == ["emb", "body", "head"]
    assert [n for n, _ in m.named_modules()] == [
        "",
        "emb",
        "body",
        "body.0",
        "body.1",
        "body.2",
        "head",
    ]
    assert m.get_submodule("body.2") is m.body[2]
    assert m.get_parameter("body.0.bias") is m.body[0].bias
    assert "mask" in dir(m) and "emb" in dir(m)


def test_missing_attribute_raises_attribute_error_naming_class() -> None:
    m = Tied()
    with pytest.raises(AttributeError, match="'Tied' object has no attribute 'nope'"):
        m.nope  # noqa: B018
    assert not hasattr(m, "nope")


def test_assignment_rules() -> None:
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        m.weight = torch.zeros(2, 2)
    m.bias = None
    assert m.bias is None and [n for n, _ in m.named_parameters()] == ["weight"]
    m.extra = nn.Parameter(torch.zeros(1))
    assert [n for n, _ in m.named_parameters()] == ["weight", "extra"]
    del m.extra
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    m.note = 3  # a plain attribute
    assert m.note == 3 and "note" not in m.state_dict()

    class NoInit(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(torch.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        NoInit()
    with pytest.raises(KeyError, match="contain"):
        m.register_buffer("a.b", torch.zeros(1))
    m.register_buffer("mask", torch.ones(1))
    with pytest.raises(KeyError, match="attribute 'mask' already exists"):
        m.register_parameter("mask", nn.Parameter(torch.ones(1)))  # as in PyTorch
    with pytest.raises(KeyError, match="attribute 'note' already exists"):
        m.register_buffer("note", torch.ones(1))
    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        m.add_module("forward", nn.ReLU())
    m.register_buffer("mask", torch.zeros(2))  # the same kind again: replaced
    assert m.mask.tolist() == [0.0, 0.0] and "mask" in dict(m.named_buffers())
    with pytest.raises(NotImplementedError, match="forward"):  # PyTorch's error type
        nn.Module()(1)


def test_parameter_is_a_tensor() -> None:
    p = nn.Parameter(torch.ones(2))
    assert isinstance(p, torch.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p).startswith("Parameter containing:\ntensor(")
    y = p * 2
    assert type(y) is torch.Tensor and type(p.detach()) is torch.Tensor
    frozen = nn.Parameter(torch.ones(2), requires_grad=False)
    assert not frozen.requires_grad
    p.grad = torch.ones(2)
    twin = copy.deepcopy(p)
    assert isinstance(twin, nn.Parameter) and twin is not p and twin.array is not p.array
    assert twin.grad is None  # PyTorch's Parameter.__deepcopy__ leaves .grad behind
    model = nn.Linear(2, 1)
    model.weight.grad = torch.ones(1, 2)
    assert copy.deepcopy(model).weight.grad is None
    with pytest.raises(TypeError, match="expected a Tensor"):
        nn.Parameter([1.0, 2.0])


def test_apply_train_eval_requires_grad() -> None:
    m = Tied()
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Embedding", "Linear", "GELU", "LayerNorm", "Sequential", "Linear", "Tied"]
    assert m.training and all(mod.training for mod in m.modules())
    m.eval()
    assert not any(mod.training for mod in m.modules())
    m.train()
    assert all(mod.training for mod in m.modules())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_zero_grad() -> None:
    m = Tied()
    m(torch.tensor([[1, 2]])).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_tied_weights_get_both_gradients() -> None:
    m = Tied()
    m(torch.tensor([[1, 2, 3]])).sum().backward()
    assert m.head.weight.grad is m.emb.weight.grad


def test_to_dtype_in_place_keeps_identity_ties_and_optimizer() -> None:
    m = Tied()
    params = list(m.parameters())
    mask = m.mask
    m(torch.tensor([[0, 1]])).sum().backward()
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    assert m.double() is m
    assert all(a is b for a, b in zip(params, m.parameters()))
    assert m.head.weight is m.emb.weight
    assert m.emb.weight.dtype is torch.float64 and m.emb.weight.grad.dtype is torch.float64
    assert m.mask is mask and mask.dtype is torch.float64
    before = m.body[0].weight.detach().numpy().copy()
    opt.step()  # the optimizer still holds the same (now float64) parameters
    assert not np.array_equal(before, m.body[0].weight.detach().numpy())
    m.float()
    assert m.emb.weight.dtype is torch.float32
    with pytest.raises(TypeError, match="floating point"):
        m.to(torch.long)


def test_to_device_keeps_ties_and_moves_buffers(device: str) -> None:
    m = Tied()
    expected = _values(m)
    weight = m.emb.weight
    m.to(device)
    assert m.emb.weight is weight and m.head.weight is m.emb.weight
    assert all(p.device.type == device for p in m.parameters())
    assert m.mask.device.type == device and m.cache.device.type == device
    out = m(torch.tensor([[1, 4]], device=device))
    assert out.device.type == device
    out.sum().backward()
    assert m.emb.weight.grad.device.type == device
    for k, v in _values(m).items():
        np.testing.assert_array_equal(v, expected[k])
    m.cpu()
    assert m.emb.weight.device.type == "cpu" and m.emb.weight.grad.device.type == "cpu"


@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_to_memory_format_lays_out_the_4d_and_5d_tensors_in_place(lib_name: str) -> None:
    """Module.to(memory_format=channels_last) (PyTorch's ModuleInfo memory-format check):
    each 4-D parameter, its grad and each 4-D buffer is laid out channels-last in place,
    the others are left as they are, values unchanged; a 5-D weight refuses channels_last.
    Before, to() refused the keyword."""
    lib = torch if lib_name == "microtorch" else pytest.importorskip("torch")
    conv = lib.nn.Conv2d(3, 4, 3)
    conv(lib.ones(1, 3, 4, 4)).sum().backward()
    weight, before = conv.weight, conv.weight.detach().numpy().copy()
    assert conv.to(lib.float64, memory_format=lib.channels_last) is conv
    assert conv.weight is weight and weight.dtype == lib.float64
    assert weight.is_contiguous(memory_format=lib.channels_last) and not weight.is_contiguous()
    assert weight.stride() == (27, 1, 9, 3) and weight.grad.stride() == (27, 1, 9, 3)
    assert conv.bias.is_contiguous()
    np.testing.assert_array_equal(weight.detach().numpy(), before)
    conv.to(memory_format=lib.contiguous_format)
    assert weight.is_contiguous() and weight.stride() == (27, 9, 3, 1)
    x = lib.ones(2, 3, 5, 5, dtype=lib.float64).to(memory_format=lib.channels_last)
    assert conv.to(memory_format=lib.channels_last)(x).shape == (2, 4, 3, 3)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
        lib.nn.Conv3d(3, 4, 3).to(memory_format=lib.channels_last)
    w3 = lib.nn.Conv3d(3, 4, 3).to(memory_format=lib.channels_last_3d).weight
    assert w3.is_contiguous(memory_format=lib.channels_last_3d)


def test_to_device_and_memory_format_together(device: str) -> None:
    """to(device, memory_format=channels_last): moved and laid out at once, values kept."""
    conv = nn.Conv2d(2, 3, 2)
    before = conv.weight.detach().numpy().copy()
    conv.to(device, memory_format=torch.channels_last)
    assert conv.weight.device.type == device and conv.weight.stride() == (8, 1, 4, 2)
    np.testing.assert_array_equal(conv.weight.detach().cpu().numpy(), before)
    x = torch.ones(1, 2, 3, 3, device=device).to(memory_format=torch.channels_last)
    assert conv(x).shape == (1, 3, 2, 2)


def test_state_dict_round_trip_is_bit_exact() -> None:
    torch.manual_seed(1)
    a = Tied()
    torch.manual_seed(2)
    b = Tied()
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    for k, v in _values(b).items():
        np.testing.assert_array_equal(v, _values(a)[k])
    idx = torch.tensor([[0, 3, 4]])
    np.testing.assert_array_equal(a(idx).detach().numpy(), b(idx).detach().numpy())


def test_forward_hooks_with_kwargs_prepend_and_always_call() -> None:
    seen = []
    layer = nn.Linear(2, 2)
    layer.register_forward_hook(lambda m, args, out: seen.append("second"))
    layer.register_forward_hook(lambda m, args, out: seen.append("first"), prepend=True)

    def double_input(m, args, kwargs):
        seen.append(("pre", sorted(kwargs)))
        return (args[0] * 2,), kwargs

    layer.register_forward_pre_hook(double_input, with_kwargs=True)
    layer.register_forward_hook(
        lambda m, args, kwargs, out: seen.append(args[0].tolist()), with_kwargs=True
    )
    layer(torch.ones(1, 2))
    assert seen == [("pre", []), "first", "second", [[2.0, 2.0]]]

    class Failing(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    failing = Failing()
    failing.register_forward_hook(
        lambda m, args, out: seen.append(("always", out)), always_call=True
    )
    failing.register_forward_hook(lambda m, args, out: seen.append("not this one"))
    with pytest.raises(ValueError, match="boom"):
        failing(1)
    assert seen[-1] == ("always", None)


def _state_dict_hooks(lib) -> list:
    """What state_dict and load_state_dict hooks see, in ``lib`` (microtorch or torch): the
    order they run in, a pre-hook renaming an old checkpoint's key, a post-hook dropping an
    unexpected key (so that strict loading passes), and the errors of wrong returns."""
    seen = []
    model = lib.nn.Sequential(lib.nn.Linear(2, 1), lib.nn.Sequential(lib.nn.ReLU()))
    for module in model.modules():
        module.register_state_dict_pre_hook(lambda m, prefix, keep: seen.append(("pre", prefix)))
        module.register_state_dict_post_hook(
            lambda m, sd, prefix, meta: seen.append(("post", prefix, sorted(sd), meta))
        )
    model._register_state_dict_hook(lambda m, sd, prefix, meta: {**sd, "extra": 1})
    seen.append(sorted(model.state_dict(keep_vars=True)))

    layer = lib.nn.Linear(2, 1)

    def rename(module, sd, prefix, meta, strict, missing, unexpected, errors):
        seen.append(("load pre", prefix, strict, sorted(sd)))
        if prefix + "w" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "w")

    def drop_junk(module, keys):
        seen.append(("load post", list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.unexpected_keys.remove("junk")

    layer.register_load_state_dict_pre_hook(rename)
    layer._register_load_state_dict_pre_hook(lambda sd, *rest: seen.append(len(rest)))
    layer.register_load_state_dict_post_hook(drop_junk)
    given = {"w": lib.ones(1, 2), "bias": lib.zeros(1), "junk": lib.zeros(1)}
    seen.append(repr(layer.load_state_dict(given)))  # strict, after drop_junk
    seen.append((sorted(given), layer.weight.tolist()))  # the caller's dict is unchanged

    other = lib.nn.Linear(2, 1)
    other.register_load_state_dict_post_hook(lambda m, keys: keys)
    other.register_state_dict_post_hook(lambda m, sd, prefix, meta: sd)
    for call in (lambda: other.load_state_dict(other.state_dict()), other.state_dict,
                 lambda: lib.nn.Linear(2, 1).load_state_dict({"weight": lib.ones(1, 3)})):  # fmt: skip
        try:
            call()
        except (AssertionError, RuntimeError) as error:
            seen.append((type(error).__name__, [line.split(":")[0] for line in
                                                str(error).splitlines()]))  # fmt: skip
    return seen


def test_state_dict_and_load_state_dict_hooks_as_in_pytorch() -> None:
    seen = _state_dict_hooks(torch)
    assert seen[0] == ("pre", "") and seen[-1][0] == "RuntimeError"
    assert ("load post", [], ["junk"]) in seen
    pt = pytest.importorskip("torch")
    assert repr(_state_dict_hooks(pt)) == repr(seen).replace("microtorch.", "torch.")


def _module_hooks_of_every_module(lib) -> list:
    """register_module_*_hook: the hooks of every module run before each module's own."""
    from importlib import import_module

    module_module = import_module(lib.__name__ + ".nn.modules.module")
    seen = []
    model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
    model[0].register_forward_pre_hook(lambda m, args: seen.append("own pre"))
    model[0].register_forward_hook(lambda m, args, out: seen.append("own post"))
    model[0].register_full_backward_hook(lambda m, gi, go: seen.append("own backward"))
    handles = [
        module_module.register_module_forward_pre_hook(
            lambda m, args: seen.append(("pre", type(m).__name__))
        ),
        module_module.register_module_forward_hook(
            lambda m, args, kwargs, out: seen.append(("post", type(m).__name__, kwargs)),
            with_kwargs=True,
        ),
        module_module.register_module_full_backward_pre_hook(
            lambda m, go: seen.append(("backward pre", type(m).__name__))
        ),
        module_module.register_module_full_backward_hook(
            lambda m, gi, go: seen.append(("backward", type(m).__name__))
        ),
    ]
    try:
        model(lib.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        for handle in handles:
            handle.remove()
    with pytest.warns(UserWarning):  # (the input needs no gradient: grad_input is None)
        model(lib.ones(1, 2)).sum().backward()  # only the module's own hooks now
    return seen


def _save_and_load_overrides(lib) -> list:
    """A layer overriding _save_to_state_dict (an extra entry) and _load_from_state_dict
    (renaming an old checkpoint's key and taking the extra entry before super())."""
    seen = []

    class Scaled(lib.nn.Linear):
        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "scale"] = lib.tensor(2.0)

        def _load_from_state_dict(self, state_dict, prefix, *rest):
            if prefix + "w" in state_dict:  # an old checkpoint's name
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            seen.append(("scale", state_dict.pop(prefix + "scale").item()))
            super()._load_from_state_dict(state_dict, prefix, *rest)

    model = lib.nn.Sequential(Scaled(2, 1))
    model.register_state_dict_pre_hook(lambda *args: seen.append("state_dict"))  # (not load's)
    seen.append(list(model.state_dict()))
    old = {"0.w": lib.ones(1, 2), "0.bias": lib.zeros(1), "0.scale": lib.tensor(3.0)}
    seen.append(repr(model.load_state_dict(old)))
    seen.append(model[0].weight.tolist())
    return seen


def test_save_to_and_load_from_state_dict_overrides_as_in_pytorch() -> None:
    seen = _save_and_load_overrides(torch)
    assert seen[:2] == ["state_dict", ["0.weight", "0.bias", "0.scale"]]
    assert seen[2:] == [("scale", 3.0), "<All keys matched successfully>", [[1.0, 1.0]]]
    pt = pytest.importorskip("torch")
    assert _save_and_load_overrides(pt) == seen


def test_hooks_of_every_module_as_in_pytorch() -> None:
    seen = _module_hooks_of_every_module(torch)
    assert seen[:2] == [("pre", "Sequential"), ("pre", "Linear")]
    assert seen[-3:] == ["own pre", "own post", "own backward"]
    pt = pytest.importorskip("torch")
    assert _module_hooks_of_every_module(pt) == seen


def _registration_hooks(lib) -> list:
    """register_module_*_registration_hook: called for every registration, by assignment or
    register_*; a returned value is registered instead."""
    from importlib import import_module

    module_module = import_module(lib.__name__ + ".nn.modules.module")
    seen = []
    handles = [
        module_module.register_module_parameter_registration_hook(
            lambda m, name, p: seen.append(("parameter", type(m).__name__, name))
        ),
        module_module.register_module_buffer_registration_hook(
            lambda m, name, b: seen.append(("buffer", name)) or lib.zeros(2)
        ),
        module_module.register_module_module_registration_hook(
            lambda m, name, sub: seen.append(("module", name, type(sub).__name__))
        ),
    ]
    try:
        layer = lib.nn.Linear(2, 1)
        layer.register_buffer("scale", lib.ones(1))
        layer.scale = lib.ones(3)  # an existing buffer, assigned again
        model = lib.nn.Sequential()
        model.add_module("act", lib.nn.ReLU())
        model.head = layer
    finally:
        for handle in handles:
            handle.remove()
    lib.nn.Linear(1, 1)  # nothing any more
    return seen + [layer.scale.tolist()]


def test_registration_hooks_of_every_module_as_in_pytorch() -> None:
    seen = _registration_hooks(torch)
    assert seen[-1] == [0.0, 0.0]
    pt = pytest.importorskip("torch")
    assert _registration_hooks(pt) == seen


def test_hook_handles_are_removable_handles() -> None:
    from microtorch.utils.hooks import RemovableHandle

    layer = nn.Linear(2, 2)
    x = torch.ones(1, 2, requires_grad=True)
    handles = [layer.register_forward_hook(lambda *a: None), x.register_hook(lambda g: g),
               layer.register_load_state_dict_post_hook(lambda *a: None),
               (x * 2).grad_fn.register_prehook(lambda g: None),
               torch.autograd.graph.register_multi_grad_hook((x,), lambda g: None)]  # fmt: skip
    assert all(isinstance(h, RemovableHandle) for h in handles)
    assert torch.autograd.graph.RemovableHandle is RemovableHandle
    seen = []
    with layer.register_forward_hook(lambda *a: seen.append(1)):
        layer(x)
    layer(x)
    assert seen == [1]


def test_forward_pre_hook_with_kwargs_must_return_args_and_kwargs() -> None:
    layer = nn.Linear(2, 2)
    layer.register_forward_pre_hook(lambda m, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match="tuple of \\(new_args, new_kwargs\\)"):
        layer(torch.ones(1, 2))


def test_load_state_dict_result_prints_as_in_pytorch() -> None:
    layer = nn.Linear(2, 2)
    assert repr(layer.load_state_dict(layer.state_dict())) == "<All keys matched successfully>"
    partial = layer.load_state_dict({"weight": layer.weight}, strict=False)
    assert partial.missing_keys == ["bias"] and "missing_keys=['bias']" in repr(partial)
    # PyTorch's text, class name included, as printed after load_state_dict(strict=False)
    assert repr(partial) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])"
    assert partial == (["bias"], []) and partial._fields == ("missing_keys", "unexpected_keys")


def test_load_state_dict_keeps_ties_and_copies_in_place() -> None:
    a, b = Tied(), Tied()
    weight, array = b.emb.weight, b.emb.weight.array
    b.load_state_dict(a.state_dict())
    assert b.emb.weight is weight and b.emb.weight.array is array  # copied into, not replaced
    assert b.head.weight is b.emb.weight
    with torch.no_grad():
        b.emb.weight[0, 0] = 42.0
    assert b.head.weight[0, 0].item() == 42.0
    # the state dict shares memory with the module, like PyTorch's
    sd = b.state_dict()
    assert sd["emb.weight"].array is b.emb.weight.array and not sd["emb.weight"].requires_grad


def test_strict_loading_errors_name_the_keys() -> None:
    m = Tied()
    sd = m.state_dict()
    del sd["body.0.bias"]
    sd["extra.weight"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(sd)
    message = str(info.value)
    assert "Error(s) in loading state_dict for Tied" in message
    assert 'Missing key(s) in state_dict: "body.0.bias"' in message
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in message
    result = m.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["body.0.bias"] and result.unexpected_keys == ["extra.weight"]

    bad = m.state_dict()
    bad["body.0.weight"] = torch.zeros(4, 3)
    with pytest.raises(
        RuntimeError, match=r"size mismatch for body.0.weight: copying a param with shape"
    ):
        m.load_state_dict(bad, strict=False)


def test_load_state_dict_casts_and_moves(device: str) -> None:
    source = nn.Linear(3, 2).double()
    target = nn.Linear(3, 2).to(device)
    target.load_state_dict(source.state_dict())
    assert target.weight.dtype is torch.float32 and target.weight.device.type == device
    np.testing.assert_allclose(
        target.weight.detach().cpu().numpy(), source.weight.detach().numpy(), rtol=1e-6
    )


def test_load_state_dict_assign_shares_memory() -> None:
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    sd = a.state_dict()
    b.load_state_dict(sd, assign=True)
    assert b.weight.array is a.weight.array


def test_repr_tree() -> None:
    text = repr(Tied())
    assert text.startswith(
        "Tied(\n  (emb): Embedding(5, 3)\n  (body): Sequential(\n    (0): Linear("
    )
    assert "(2): LayerNorm((3,), eps=1e-05, elementwise_affine=True, bias=True)" in text
    assert text.endswith("(head): Linear(in_features=3, out_features=5, bias=False)\n)")
    assert repr(nn.ReLU()) == "ReLU()"
    assert repr(nn.Dropout(0.1)) == "Dropout(p=0.1, inplace=False)"


def test_module_list_repr_groups_identical_children_as_pytorch_does() -> None:
    stack = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)])
    assert repr(stack) == (
        "ModuleList(\n"
        "  (0-1): 2 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (2): ReLU()\n"
        "  (3): Linear(in_features=2, out_features=2, bias=True)\n"
        ")"
    )
    blocks = nn.ModuleList([nn.Sequential(nn.Linear(2, 3), nn.GELU()) for _ in range(3)])
    assert repr(blocks).startswith("ModuleList(\n  (0-2): 3 x Sequential(\n    (0): Linear(")
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_parameter_list_and_dict_register_their_parameters(device: str) -> None:
    class Scaled(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scales = nn.ParameterList([nn.Parameter(torch.ones(1) * i) for i in range(3)])
            self.scales.append(torch.zeros(2))  # a plain tensor becomes a Parameter
            self.extra = nn.ParameterDict({"bias": nn.Parameter(torch.zeros(2))})

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return sum(x * p for p in list(self.scales)[:3]) + self.extra["bias"]

    model = Scaled().to(device)
    assert list(model.state_dict()) == [
        "scales.0",
        "scales.1",
        "scales.2",
        "scales.3",
        "extra.bias",
    ]
    assert isinstance(model.scales[3], nn.Parameter) and model.scales[3].requires_grad
    assert model.scales[-1].device == torch.device(device)  # moved with the module
    model(torch.ones(2, device=device)).sum().backward()
    assert [p.grad.tolist() for p in list(model.scales)[:3]] == [[2.0], [2.0], [2.0]]
    assert len(torch.optim.SGD(model.parameters(), lr=0.1).param_groups[0]["params"]) == 5
    assert repr(model.scales).startswith(
        "ParameterList(\n    (0): Parameter containing: [microtorch.float32 of size 1"
    )  # (then "]", or " (cuda:0)]" on a GPU, as in PyTorch)
    assert "bias" in model.extra and model.extra.pop("bias").shape == (2,)
    with pytest.raises(TypeError, match=r"ParameterList: str is not a Tensor or Parameter"):
        model.scales.append("x")


def test_forward_hooks() -> None:
    m = nn.Linear(2, 2)
    calls = []
    handle = m.register_forward_hook(lambda mod, args, out: calls.append(tuple(out.shape)))
    pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    out = m(torch.ones(4, 2))
    np.testing.assert_allclose(
        out.detach().numpy(), np.broadcast_to(m.bias.detach().numpy(), (4, 2))
    )
    assert calls == [(4, 2)]
    handle.remove()
    pre.remove()
    m(torch.ones(1, 2))
    assert calls == [(4, 2)]


def test_containers() -> None:
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    seq.append(nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert isinstance(seq[:2], nn.Sequential) and len(seq[:2]) == 2
    assert tuple(seq(torch.ones(5, 2)).shape) == (5, 1)
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]

    blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    blocks.append(nn.Tanh())
    assert len(blocks) == 4 and [type(b).__name__ for b in blocks][-1] == "Tanh"
    assert blocks[-1] is blocks[3]
    assert [n for n, _ in blocks.named_parameters()][-2:] == ["2.weight", "2.bias"]
    with pytest.raises(IndexError):
        blocks[4]
    with pytest.raises(TypeError, match="not a Module"):
        blocks.append(3)

    parts = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
    parts["c"] = nn.Linear(1, 2)
    assert list(parts.keys()) == ["a", "b", "c"] and "a" in parts and len(parts) == 3
    assert list(parts.state_dict()) == ["a.weight", "a.bias", "c.weight", "c.bias"]
    with pytest.raises(KeyError, match="no key"):
        parts["z"]


def test_sequential_and_module_list_editing_as_in_pytorch() -> None:
    relu, tanh, sigmoid = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
    seq = nn.Sequential(relu, tanh)
    seq.insert(1, sigmoid)
    assert list(seq) == [relu, sigmoid, tanh] and list(seq._modules) == ["0", "1", "2"]
    assert seq.pop(0) is relu and list(seq._modules) == ["0", "1"]  # numbered again
    del seq[0]
    assert list(seq) == [tanh] and list(seq._modules) == ["0"]
    assert list(seq.extend([relu])) == [tanh, relu]
    twice = nn.Sequential(relu) * 2
    assert len(twice) == 2 and twice[0] is twice[1]  # the same module, run twice
    assert list(nn.Sequential(relu) + nn.Sequential(tanh)) == [relu, tanh]
    with pytest.raises(IndexError, match="index 5 is out of range for 1 modules"):
        nn.Sequential(relu).insert(5, tanh)
    modules = nn.ModuleList([relu, tanh])
    assert modules.pop(-1) is tanh and len(modules) == 1
    assert list(modules + nn.ModuleList([sigmoid])) == [relu, sigmoid]


def test_shared_modules_listed_twice_without_duplicate_removal() -> None:
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, shared)
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
    everything = [n for n, _ in model.named_parameters(remove_duplicate=False)]
    assert everything == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_deepcopy_keeps_ties_inside_the_copy() -> None:
    m = Tied()
    twin = copy.deepcopy(m)
    assert twin.head.weight is twin.emb.weight and twin.emb.weight is not m.emb.weight
    np.testing.assert_array_equal(twin.emb.weight.detach().numpy(), m.emb.weight.detach().numpy())
    assert twin.mask is not m.mask


def test_replacing_a_parameter_or_child_keeps_its_place_as_in_pytorch() -> None:
    pt = pytest.importorskip("torch")
    ours = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    theirs = pt.nn.Sequential(pt.nn.Linear(2, 3), pt.nn.ReLU(), pt.nn.Linear(3, 1))
    for model, lib in ((ours, nn), (theirs, pt.nn)):
        setattr(model, "1", lib.Tanh())
        model[0].weight = lib.Parameter(model[0].weight.detach())
        model[2].register_parameter("bias", None)
        model[2].register_buffer("extra", None)
        model[2].register_buffer("extra", None)
    assert repr(ours) == repr(theirs)
    assert (
        list(ours.state_dict()) == list(theirs.state_dict()) == ["0.weight", "0.bias", "2.weight"]
    )
    assert [n for n, _ in ours[2].named_parameters()] == ["weight"]


class _Holder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        self.block[0].register_buffer("mask", torch.ones(2))
        self.scale = 3.0


def _with_buffers(lib: object) -> object:
    """A module whose buffers come from nn.Buffer assignment (``lib`` is microtorch or torch)."""

    class WithBuffers(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = lib.nn.Linear(2, 2)
            self.kept = lib.nn.Buffer(lib.arange(3.0))
            self.cache = lib.nn.Buffer(lib.ones(2), persistent=False)
            self.lin.scale = lib.nn.Buffer(lib.tensor([2.0], requires_grad=True))

    return WithBuffers()


def test_buffer_assignment_registers_a_buffer_as_pytorch() -> None:
    pt = pytest.importorskip("torch")
    ours, theirs = _with_buffers(torch), _with_buffers(pt)
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_buffers()] == ["kept", "cache", "lin.scale"]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "cache" not in ours.state_dict() and "kept" in ours.state_dict()
    assert [n for n, _ in ours.named_parameters()] == ["lin.weight", "lin.bias"]
    assert isinstance(ours.kept, nn.Buffer) and isinstance(ours.kept, torch.Tensor)
    assert ours.lin.scale.requires_grad and theirs.lin.scale.requires_grad  # kept, as there
    assert ours.lin.scale.grad_fn is None
    source = torch.tensor([1.0, 2.0])
    b = nn.Buffer(source)
    source.add_(1.0)  # shares the values, as PyTorch's (a detach, no copy)
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])
    assert nn.Buffer().shape == (0,)
    cache = ours.cache
    ours.to(torch.float64)  # moved in place, as every buffer
    assert ours.cache is cache and ours.cache.dtype == torch.float64
    assert ours.kept.dtype == torch.float64
    ours.cache = torch.zeros(2)  # a plain tensor into a registered name: still non-persistent
    assert "cache" not in ours.state_dict() and type(ours.cache) is torch.Tensor
    ours.cache = nn.Buffer(torch.zeros(2))  # a Buffer brings its own persistence
    assert "cache" in ours.state_dict()
    with pytest.raises(TypeError, match="expected a Tensor"):
        nn.Buffer([1.0, 2.0])


def test_get_buffer_and_set_submodule() -> None:
    m = _Holder()
    assert m.get_buffer("block.0.mask") is m.block[0].mask
    with pytest.raises(AttributeError, match="no buffer `weight`"):
        m.get_buffer("block.0.weight")  # a parameter, not a buffer
    with pytest.raises(AttributeError):
        m.get_buffer("nowhere.mask")
    new = nn.Tanh()
    m.set_submodule("block.1", new)
    assert m.block[1] is new and [n for n, _ in m.block.named_children()] == ["0", "1"]
    m.set_submodule("block.extra", nn.Identity())  # a new name: added
    assert isinstance(m.block.extra, nn.Identity)
    with pytest.raises(AttributeError, match="has no attribute `other`"):
        m.set_submodule("block.other", nn.ReLU(), strict=True)
    with pytest.raises(AttributeError, match="`scale` is not an nn.Module"):
        m.set_submodule("scale", nn.ReLU())
    with pytest.raises(ValueError, match="without a target name"):
        m.set_submodule("", nn.ReLU())
    with pytest.raises(ValueError, match="is not an nn.Module"):
        m.set_submodule("block.1", 3)


def test_to_empty_keeps_the_tensors_and_gives_them_new_memory(device: str) -> None:
    m = Tied()
    m(torch.tensor([1, 2])).sum().backward()
    weight, mask = m.emb.weight, m.mask
    old_array = weight.array
    assert m.to_empty(device=device) is m
    assert m.emb.weight is weight and m.head.weight is weight and m.mask is mask  # ties kept
    assert weight.array is not old_array and weight.device.type == device
    assert weight.shape == (5, 3) and weight.dtype is torch.float32 and weight.requires_grad
    assert weight.grad.device.type == device and weight.grad.shape == (5, 3)
    assert mask.device.type == device


def test_skip_init_leaves_the_generator_alone_and_the_module_usable(device: str) -> None:
    pt = pytest.importorskip("torch")
    torch.manual_seed(0)
    layer = nn.utils.skip_init(nn.Linear, 3, 4, bias=True, device=device)
    after = torch.rand(3).numpy()
    torch.manual_seed(0)
    np.testing.assert_array_equal(after, torch.rand(3).numpy())  # no numbers were drawn
    assert isinstance(layer, nn.Linear) and isinstance(layer.weight, nn.Parameter)
    assert layer.weight.device.type == device and layer.weight.requires_grad
    assert repr(layer) == repr(pt.nn.utils.skip_init(pt.nn.Linear, 3, 4))
    theirs = pt.nn.Linear(3, 4)
    layer.load_state_dict(
        {k: torch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    )
    x = np.random.default_rng(0).standard_normal((2, 3)).astype("f")
    np.testing.assert_allclose(  # (float32 sums near 0: an absolute tolerance too)
        layer(torch.tensor(x, device=device)).detach().cpu().numpy(),
        theirs(pt.tensor(x)).detach().numpy(),
        rtol=1e-6,
        atol=1e-6,
    )

    class NoDevice(nn.Module):
        def __init__(self, n: int) -> None:
            super().__init__()

    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        nn.utils.skip_init(NoDevice, 3)


def test_bfloat16_is_refused_and_share_memory_returns_the_module() -> None:
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="no bfloat16"):
        m.bfloat16()
    assert m.share_memory() is m
    assert m.weight.dtype is torch.float32


def test_pickle_round_trip_and_setstate_fills_in_what_an_old_pickle_lacks() -> None:
    import pickle

    m = Tied()
    back = pickle.loads(pickle.dumps(m))
    assert repr(back) == repr(m) and back.head.weight is back.emb.weight
    idx = torch.tensor([0, 4])
    np.testing.assert_array_equal(back(idx).detach().numpy(), m(idx).detach().numpy())
    state = dict(nn.ReLU().__dict__)
    del state["_forward_pre_hooks"], state["_forward_hooks"], state["_non_persistent_buffers_set"]
    old = nn.ReLU.__new__(nn.ReLU)
    old.__setstate__(state)
    x = torch.tensor([-1.0, 2.0])
    assert old(x).tolist() == [0.0, 2.0] and old.state_dict() == {}
    old.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    assert old(x).tolist() == [0.0, 4.0]


def _backward_pre_hooked_linear(lib) -> tuple:
    """(hook calls, x.grad, weight.grad) of a Linear with two backward pre-hooks, in ``lib``
    (microtorch or torch); then checks that a removed hook stops running."""
    m = lib.nn.Linear(3, 2)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3), dtype=lib.float32))
        m.bias.zero_()
    calls = []
    m.register_full_backward_pre_hook(lambda mod, g: calls.append("second") or (g[0] * 10,))
    first = m.register_full_backward_pre_hook(
        lambda mod, g: calls.append(("first", tuple(g[0].shape))), prepend=True
    )
    x = lib.ones(4, 3, requires_grad=True)
    y = m(x)
    (y * y).sum().backward()
    result = (list(calls), x.grad.numpy().copy(), m.weight.grad.numpy().copy())
    first.remove()
    calls.clear()
    m(x).sum().backward()
    assert calls == ["second"]
    return result


def test_full_backward_pre_hook_sees_and_replaces_the_output_gradient_as_pytorch() -> None:
    pt = pytest.importorskip("torch")
    (ours_calls, *ours), (their_calls, *theirs) = [
        _backward_pre_hooked_linear(lib) for lib in (torch, pt)
    ]
    assert ours_calls == their_calls == [("first", (4, 2)), "second"]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b)


def test_full_backward_pre_hook_limits() -> None:
    class Mapping(nn.Module):
        def forward(self, x: torch.Tensor) -> dict:
            return {"double": x * 2}

    mapping = Mapping()
    mapping.register_full_backward_pre_hook(lambda mod, g: None)
    with pytest.raises(NotImplementedError, match="returns a tensor or a tuple"):
        mapping(torch.ones(2, requires_grad=True))
    calls = []
    relu = nn.ReLU()
    relu.register_full_backward_pre_hook(lambda mod, g: calls.append(g))
    out = relu(torch.ones(2))  # nothing needs a gradient: the hook never runs
    assert not out.requires_grad and calls == []
    x = torch.ones(2, requires_grad=True)
    ident = nn.Identity()
    ident.register_full_backward_pre_hook(lambda mod, g: (g[0] * 0,))
    (ident(x) + x).sum().backward()  # the hook changes only the gradient through the module
    assert x.grad.tolist() == [1.0, 1.0]


def _full_backward_hooked_modules(lib) -> list:
    """What register_full_backward_hook hooks see and what the inputs receive, in ``lib``
    (microtorch or torch): a module with tensor and non-tensor positional arguments, one
    input that needs no gradient, a float64 input, a pre-hook before the full hook, the same
    tensor passed twice, a Sequential's layers, a removed hook, and a wrong return."""
    seen = []

    def rounded(g):
        return None if g is None else (np.round(g.detach().numpy(), 6).tolist(), str(g.dtype))

    def record(tag):
        return lambda mod, gi, go: seen.append((tag, [rounded(g) for g in gi],
                                                [rounded(g) for g in go]))  # fmt: skip

    class Scaled(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor([2.0, 3.0]))

        def forward(self, a, k, b, scale=1.0):
            return (a * self.w * b * k).sum(-1) * scale

    m = Scaled()
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
    m.register_full_backward_hook(lambda mod, gi, go: tuple(g if g is None else g * 10 for g in gi))
    m.register_full_backward_hook(record("scaled"), prepend=True)  # sees them before the * 10
    a = lib.tensor([[1.0, 2.0]], requires_grad=True)
    b = lib.tensor([[3.0, 4.0]], requires_grad=True)
    m(a, 2, b, scale=0.5).sum().backward()
    results = [rounded(a.grad), rounded(b.grad), rounded(m.w.grad)]
    a64 = lib.tensor([[1.0, 2.0]], dtype=lib.float64, requires_grad=True)
    m(a64, 1, lib.tensor([[3.0, 4.0]])).sum().backward()  # b needs none: zeros for it
    results.append(rounded(a64.grad))

    class Product(lib.nn.Module):
        def forward(self, x, y):
            return x * y

    twice = Product()
    handle = twice.register_full_backward_hook(record("twice"))
    x = lib.tensor([2.0, 3.0], requires_grad=True)
    twice(x, x).sum().backward()
    handle.remove()
    twice(x, x).sum().backward()
    results.append(rounded(x.grad))
    twice.register_full_backward_hook(lambda mod, gi, go: (gi[0],))
    try:
        twice(x, x).sum().backward()
    except RuntimeError as error:
        results.append(str(error))

    seq = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Tanh(), lib.nn.Linear(3, 1))
    with lib.no_grad():
        for p, value in zip(seq.parameters(), (0.5, 0.1, -0.3, 0.0)):
            p.fill_(value)
    for i, layer in enumerate(seq):
        layer.register_full_backward_hook(record(i))
    seq.register_full_backward_hook(record("seq"))
    with pytest.warns(UserWarning, match="no inputs? .*(need|require)"):
        seq(lib.tensor([[1.0, -1.0]])).sum().backward()  # the input needs none: grad_input None
    return [seen, results]


def test_full_backward_hook_sees_and_replaces_the_input_gradients_as_pytorch() -> None:
    pt = pytest.importorskip("torch")
    ours, theirs = (_full_backward_hooked_modules(lib) for lib in (torch, pt))
    ours = repr(ours).replace("microtorch.", "torch.")
    assert ours == repr(theirs)


def _backward_hooks_of_a_tuple(lib) -> list:
    """Backward hooks of modules that return tuples, in ``lib`` (microtorch or torch): one
    grad_output entry per entry of the tuple (None for a number, an integer tensor, a nested
    tuple or an output that got no gradient), a pre-hook replacing them, a wrong count."""
    seen = []

    def rounded(grads):
        return [None if g is None else np.round(g.detach().numpy(), 5).tolist() for g in grads]

    class Parts(lib.nn.Module):
        def forward(self, a, b):
            return a * b, a + b, 3, (a > 0).long()

    parts = Parts()

    def times_ten(m, go):
        seen.append(("pre", rounded(go)))
        return (None if go[0] is None else go[0] * 10, *go[1:])

    parts.register_full_backward_pre_hook(times_ten)
    parts.register_full_backward_hook(lambda m, gi, go: seen.append((rounded(gi), rounded(go))))
    a = lib.tensor([2.0, -1.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    product, total, number, positive = parts(a, b)
    seen.append((number, positive.tolist(), positive.requires_grad))
    (product + total * 2).sum().backward()
    seen.append(rounded([a.grad, b.grad]))
    product, total, _, _ = parts(a, b)
    total.sum().backward()  # the product got no gradient
    parts.register_full_backward_pre_hook(lambda m, go: go[:2])
    try:
        parts(a, b)[0].sum().backward()
    except RuntimeError as error:
        seen.append(str(error).split(",")[0])

    lib.manual_seed(0)
    lstm = lib.nn.LSTM(2, 3, batch_first=True)  # returns (output, (h, c))
    lstm.register_full_backward_hook(
        lambda m, gi, go: seen.append(([g is None for g in gi], [g is None for g in go]))
    )
    out, (h, c) = lstm(lib.ones(1, 2, 2, requires_grad=True))
    out.sum().backward()
    return seen


def _grad_input_of_an_index_input(lib) -> list:
    class Pick(lib.nn.Module):
        def forward(self, x, index):
            return x[index]

    seen = []
    pick = Pick()
    pick.register_full_backward_hook(
        lambda m, gi, go: seen.append([(g.tolist(), str(g.dtype).split(".")[-1]) for g in gi])
    )
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    pick(x, lib.tensor([0, 2])).sum().backward()
    return seen


def test_an_integer_input_gets_zeros_in_grad_input_as_in_pytorch() -> None:
    seen = _grad_input_of_an_index_input(torch)
    assert seen == [[([1.0, 0.0, 1.0], "float32"), ([0, 0], "int64")]]
    pt = pytest.importorskip("torch")
    assert _grad_input_of_an_index_input(pt) == seen


def _full_backward_hook_gradients(lib) -> list:
    """An input the output does not use, inputs of two dtypes, and a hook returning None for
    an input (which then gets no gradient through the module)."""
    seen = []

    class Mixed(lib.nn.Module):
        def forward(self, a, b, unused):
            return a.float() * b

    mixed = Mixed()
    mixed.register_full_backward_hook(
        lambda m, gi, go: seen.append(
            [None if g is None else (g.tolist(), str(g.dtype).split(".")[-1]) for g in gi]
        )
    )
    a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    unused = lib.ones(2, requires_grad=True)
    mixed(a, b, unused).sum().backward()
    seen.append([a.grad.dtype is lib.float64, unused.grad.tolist()])  # zeros, as in PyTorch
    blocked = lib.nn.Identity()
    blocked.register_full_backward_hook(lambda m, gi, go: (None,))
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    blocked(x * 1).sum().backward()
    seen.append(x.grad)
    (blocked(x * 1) + x).sum().backward()  # only the other path reaches x
    seen.append(x.grad.tolist())
    return seen


def test_full_backward_hook_gradients_as_in_pytorch() -> None:
    seen = _full_backward_hook_gradients(torch)
    assert seen[-2:] == [None, [1.0, 1.0]]
    pt = pytest.importorskip("torch")
    assert _full_backward_hook_gradients(pt) == seen


def test_backward_hooks_of_a_module_returning_a_tuple_as_in_pytorch() -> None:
    seen = _backward_hooks_of_a_tuple(torch)
    assert seen[0] == (3, [1, 0], False) and seen[-1] == ([False], [False, True])
    pt = pytest.importorskip("torch")
    assert _backward_hooks_of_a_tuple(pt) == seen


def test_full_backward_hook_without_pytorch() -> None:
    calls = []
    lin = nn.Linear(2, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    lin.register_full_backward_hook(
        lambda mod, gi, go: calls.append(gi[0].tolist()) or (gi[0] * 0,)
    )
    x = torch.ones(1, 2, requires_grad=True)
    (lin(x) * 2).sum().backward()
    assert calls == [[[8.0, 12.0]]]  # 2 * (column sums of the weight)
    assert x.grad.tolist() == [[0.0, 0.0]] and lin.weight.grad.tolist() == [[2.0, 2.0]] * 2
    with torch.no_grad():  # no graph: nothing to hook, the module runs as usual
        assert lin(x).shape == (1, 2)


def test_calling_a_module_without_forward_raises_not_implemented_error() -> None:
    """As in PyTorch: nn.Module()(x), a subclass that defines no forward, and the list and
    dict containers (which have none) raise NotImplementedError."""

    class NoForward(nn.Module):
        pass

    x = torch.ones(2)
    with pytest.raises(
        NotImplementedError, match=r'Module \[NoForward\] is missing the required "forward"'
    ):
        NoForward()(x)
    containers = [nn.Module(), nn.ModuleList([nn.ReLU()]), nn.ModuleDict({"a": nn.ReLU()}),
                  nn.ParameterList([nn.Parameter(x)]), nn.ParameterDict({"a": nn.Parameter(x)})]  # fmt: skip
    for container in containers:
        with pytest.raises(NotImplementedError):
            container(x)


def test_parameter_containers_repr_as_pytorch() -> None:
    """PyTorch's layout: one entry on the opening line, several below it, none as "()";
    ParameterDict names the tensor type (FloatTensor), ParameterList the dtype."""
    one = nn.ParameterList([nn.Parameter(torch.zeros(3))])
    assert repr(one) == "ParameterList(  (0): Parameter containing: [microtorch.float32 of size 3])"
    two = nn.ParameterDict({"a": torch.zeros(2, 3), "b": torch.zeros(1, dtype=torch.float64)})
    assert repr(two) == (
        "ParameterDict(\n"
        "    (a): Parameter containing: [microtorch.FloatTensor of size 2x3]\n"
        "    (b): Parameter containing: [microtorch.DoubleTensor of size 1]\n"
        ")"
    )
    assert repr(nn.ParameterList()) == "ParameterList()"
    assert repr(nn.ParameterDict()) == "ParameterDict()"


def test_parameter_dict_sorts_a_plain_dict_and_has_get() -> None:
    """PyTorch's ParameterDict puts a plain dict's entries in sorted order (so the
    parameters, the state_dict and an optimizer see 'a' before 'b'); an OrderedDict, a
    ParameterDict and a list of pairs keep theirs. ``get`` works as dict.get."""
    d = nn.ParameterDict({"b": torch.ones(1), "a": torch.ones(2)})
    assert list(d) == ["a", "b"] and list(d.state_dict()) == ["a", "b"]
    d.update([("z", torch.ones(1)), ("y", torch.ones(1))])
    assert list(d) == ["a", "b", "z", "y"] and list(nn.ParameterDict(d)) == list(d)
    ordered = OrderedDict([("b", torch.ones(1)), ("a", torch.ones(1))])
    assert list(nn.ParameterDict(ordered)) == ["b", "a"]
    assert d.get("a").shape == (2,) and d.get("missing") is None and d.get("q", 3) == 3


def test_dir_leaves_out_numbered_children_as_pytorch() -> None:
    """dir(nn.Sequential(...)) lists attributes, not the children "0", "1" (no identifiers,
    so no completion for them), while named children and parameters are listed."""
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert "0" not in dir(seq) and "1" not in dir(seq) and "append" in dir(seq)
    assert {"weight", "bias"} <= set(dir(seq[0]))


def test_load_state_dict_of_non_tensors_names_their_type() -> None:
    """A NumPy array (or a PyTorch tensor, whose class is also called Tensor) is refused,
    as PyTorch refuses arrays; the message names the full type and how to convert it."""
    layer = nn.Linear(2, 2)
    state = {"weight": np.zeros((2, 2)), "bias": torch.zeros(2)}
    with pytest.raises(RuntimeError, match=r'"weight", expected a microtorch.Tensor in the '
                       r"state_dict, got numpy.ndarray; convert it with microtorch.tensor"):  # fmt: skip
        layer.load_state_dict(state)
    state["weight"] = torch.tensor(state["weight"])
    assert layer.load_state_dict(state) == ([], [])


def test_train_calls_each_childs_own_train_as_pytorch() -> None:
    """model.train() calls train() on each child, as PyTorch does, so a module that
    overrides train() (e.g. to keep a frozen norm layer in eval mode) is obeyed; ours used
    to set every module's flag directly."""

    class AlwaysEval(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = nn.Dropout(0.5)

        def train(self, mode: bool = True) -> nn.Module:
            return super().train(False)

    model = nn.Sequential(nn.Linear(2, 2), AlwaysEval())
    model.train()
    assert model.training and model[0].training
    assert not model[1].training and not model[1].inner.training
    model.eval()
    assert not any(m.training for m in model.modules())
