"""microtorch.func against torch.func: grad, grad_and_value, vjp, jacrev, vmap and
functional_call give the same values and gradients for the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as mt
from microtorch import nn
from microtorch.func import functional_call, grad, grad_and_value, jacrev, vjp, vmap

from .torch_reference import needs_torch

torch = pytest.importorskip("torch")
tf = torch.func

A = np.random.default_rng(0).standard_normal((4, 3))
B = np.random.default_rng(1).standard_normal(3)


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def _close(ours, theirs, **kw) -> None:
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _close(o, t, **kw)
    elif isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for k in theirs:
            _close(ours[k], theirs[k], **kw)
    else:
        np.testing.assert_allclose(_np(ours), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def _f(lib):
    def f(a, b):
        return (lib.tanh(a @ b) * a.sum(1)).sum()

    return f


def test_grad_matches_torch(device):
    a, b = mt.tensor(A, device=device), mt.tensor(B, device=device)
    ta, tb = torch.tensor(A), torch.tensor(B)
    _close(grad(_f(mt))(a, b), tf.grad(_f(torch))(ta, tb))
    _close(grad(_f(mt), argnums=1)(a, b), tf.grad(_f(torch), argnums=1)(ta, tb))
    _close(grad(_f(mt), argnums=(0, 1))(a, b), tf.grad(_f(torch), argnums=(0, 1))(ta, tb))
    _close(grad_and_value(_f(mt))(a, b), tf.grad_and_value(_f(torch))(ta, tb))
    assert not a.requires_grad  # the inputs are left as they were


def test_grad_has_aux_dict_input_and_unused_argument():
    def f(lib):
        def loss(params, x, unused):
            y = x @ params["w"] + params["b"]
            return (y**2).mean(), {"y": y}

        return loss

    params = {"w": mt.tensor(A[:3]), "b": mt.tensor(B)}
    tparams = {"w": torch.tensor(A[:3]), "b": torch.tensor(B)}
    ours = grad(f(mt), has_aux=True)(params, mt.tensor(A), mt.tensor(B))
    theirs = tf.grad(f(torch), has_aux=True)(tparams, torch.tensor(A), torch.tensor(B))
    _close(ours, theirs)
    ours = grad(f(mt), argnums=2, has_aux=True)(params, mt.tensor(A), mt.tensor(B))
    theirs = tf.grad(f(torch), argnums=2, has_aux=True)(tparams, torch.tensor(A), torch.tensor(B))
    _close(ours, theirs)  # zeros for an argument the loss does not use
    _close(grad_and_value(f(mt), has_aux=True)(params, mt.tensor(A), mt.tensor(B)),
           tf.grad_and_value(f(torch), has_aux=True)(tparams, torch.tensor(A),
                                                      torch.tensor(B)))  # fmt: skip


def test_grad_errors():
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        grad(lambda x: x * 2)(mt.tensor(B))
    with pytest.raises(RuntimeError, match="floating point"):
        grad(lambda x: x.sum())(mt.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="output of function f should be a tuple"):
        grad(lambda x: x.sum(), has_aux=True)(mt.tensor(B))
    with pytest.raises(NotImplementedError, match="no gradients of gradients"):
        grad(grad(lambda x: (x**3).sum()))(mt.tensor(B))
    with pytest.raises(NotImplementedError, match="no gradients of gradients"):
        jacrev(grad(lambda x: (x**3).sum()))(mt.tensor(B))
    assert mt.func._depth == 0  # the refusal left nothing behind
    np.testing.assert_allclose(grad(lambda x: (x**3).sum())(mt.tensor(B)).numpy(), 3 * B**2)


@pytest.mark.parametrize("aux", [7, 1.5, None, "name", [1.0]])
@pytest.mark.parametrize("lib_name", ["microtorch", "torch"])
def test_an_aux_that_is_not_tensors_is_refused_as_in_pytorch(lib_name: str, aux) -> None:
    """grad, grad_and_value, vjp and jacrev with has_aux: PyTorch's RuntimeError for a
    number, None or a string in the aux (a tensor or tuple/list/dict of tensors is fine)."""
    lib, func = (mt, mt.func) if lib_name == "microtorch" else (torch, tf)
    x = lib.ones(2)
    calls = [lambda: func.grad(lambda a: ((a * a).sum(), aux), has_aux=True)(x),
             lambda: func.grad_and_value(lambda a: ((a * a).sum(), aux), has_aux=True)(x),
             lambda: func.vjp(lambda a: (a * a, aux), x, has_aux=True),
             lambda: func.jacrev(lambda a: (a * a, aux), has_aux=True)(x)]  # fmt: skip
    for call in calls:
        with pytest.raises(RuntimeError, match="Expected tensors, got unsupported type"):
            call()
    assert func.grad(lambda a: ((a * a).sum(), {"n": [a.sum()]}), has_aux=True)(x)[1]["n"]


def test_vjp_matches_torch(device):
    def f(lib):
        return lambda a, b: (lib.sin(a) * b, a.sum(0) * 2)

    a, b = mt.tensor(A, device=device), mt.tensor(B, device=device)
    ta, tb = torch.tensor(A), torch.tensor(B)
    out, fn = vjp(f(mt), a, b)
    tout, tfn = tf.vjp(f(torch), ta, tb)
    _close(out, tout)
    v = (np.random.default_rng(3).standard_normal(A.shape), np.ones(3))
    _close(
        fn(tuple(mt.tensor(x, device=device) for x in v)), tfn(tuple(torch.tensor(x) for x in v))
    )
    # vjp_fn can be called again; one primal unused: zeros
    out, fn = vjp(lambda a, b: a * 3, a, b)
    tout, tfn = tf.vjp(lambda a, b: a * 3, ta, tb)
    _close(fn(mt.ones_like(a)), tfn(torch.ones_like(ta)))
    _close(fn(mt.ones_like(a)), tfn(torch.ones_like(ta)))
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        fn(mt.ones(3, device=device))
    out, fn, aux = vjp(lambda a: (a.exp(), a.sum()), a, has_aux=True)
    tout, tfn, taux = tf.vjp(lambda a: (a.exp(), a.sum()), ta, has_aux=True)
    _close((out, aux, fn(mt.ones_like(a))), (tout, taux, tfn(torch.ones_like(ta))))


def test_jacrev_matches_torch(device):
    a, b = mt.tensor(A, device=device), mt.tensor(B, device=device)
    ta, tb = torch.tensor(A), torch.tensor(B)
    _close(
        jacrev(lambda a, b: mt.tanh(a @ b))(a, b), tf.jacrev(lambda a, b: torch.tanh(a @ b))(ta, tb)
    )
    _close(jacrev(lambda a, b: a @ b, argnums=(0, 1))(a, b),
           tf.jacrev(lambda a, b: a @ b, argnums=(0, 1))(ta, tb))  # fmt: skip
    _close(jacrev(lambda a, b: (a @ b, b.exp()), argnums=1)(a, b),
           tf.jacrev(lambda a, b: (a @ b, b.exp()), argnums=1)(ta, tb))  # fmt: skip
    _close(jacrev(lambda b: (b * 2, b.sum()), has_aux=True)(b),
           tf.jacrev(lambda b: (b * 2, b.sum()), has_aux=True)(tb))  # fmt: skip


def test_vmap_matches_torch(device):
    a, b = mt.tensor(A, device=device), mt.tensor(B, device=device)
    ta, tb = torch.tensor(A), torch.tensor(B)
    _close(vmap(lambda r: (r * r).sum())(a), tf.vmap(lambda r: (r * r).sum())(ta))
    _close(vmap(mt.outer, in_dims=(1, None))(a, b), tf.vmap(torch.outer, in_dims=(1, None))(ta, tb))
    _close(vmap(lambda r: (r, r.sum()), out_dims=(1, 0))(a),
           tf.vmap(lambda r: (r, r.sum()), out_dims=(1, 0))(ta))  # fmt: skip
    _close(vmap(lambda r, k=1: r * k)(a, k=3), tf.vmap(lambda r, k=1: r * k)(ta, k=3))

    # per-sample gradients: vmap over grad
    def loss(lib):
        return lambda w, x: lib.tanh(x @ w).sum()

    w, tw = mt.tensor(B, device=device), torch.tensor(B)
    _close(vmap(grad(loss(mt)), in_dims=(None, 0))(w, a),
           tf.vmap(tf.grad(loss(torch)), in_dims=(None, 0))(tw, ta))  # fmt: skip


def test_vmap_is_differentiable():
    a = mt.tensor(A, requires_grad=True)
    ta = torch.tensor(A, requires_grad=True)
    (vmap(lambda r: r.sin() * r.sum())(a) ** 2).sum().backward()
    (tf.vmap(lambda r: r.sin() * r.sum())(ta) ** 2).sum().backward()
    _close(a.grad, ta.grad)


def test_vmap_of_autograd_grad_gives_the_jacobian_rows():
    """The rows of a Jacobian by one vjp per basis vector (torch.vmap's docstring example):
    microtorch's vmap loops, so each index's backward must find the graph still there."""
    x = mt.tensor(A[0], requires_grad=True)
    tx = torch.tensor(A[0], requires_grad=True)
    y, ty = x**2, tx**2
    rows = vmap(lambda v: mt.autograd.grad(y, x, v))(mt.eye(x.shape[0]))
    trows = tf.vmap(lambda v: torch.autograd.grad(ty, tx, v))(torch.eye(tx.shape[0]))
    _close(rows[0], trows[0])


@pytest.mark.parametrize(
    "pattern, lengths",
    [
        ("b h w c -> b c h w", {}),
        ("b h w c -> (b h) w c", {}),
        ("b h w c -> h (b w) c", {}),
        ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
        ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2}),
        ("... c -> c ...", {}),
        ("b ... c -> (b c) ...", {}),
    ],
)
@needs_torch((2, 13), "torch.func.rearrange")
def test_rearrange_matches_torch(pattern, lengths):
    x = np.random.default_rng(0).standard_normal((2, 4, 6, 3))
    a, ta = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, tout = mt.func.rearrange(a, pattern, **lengths), tf.rearrange(ta, pattern, **lengths)
    _close(out, tout)
    weights = np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape))
    (out * mt.tensor(weights)).sum().backward()
    (tout * torch.tensor(weights)).sum().backward()
    _close(a.grad, ta.grad)


@needs_torch((2, 13), "torch.func.rearrange")
def test_rearrange_of_a_list_and_its_errors():
    pieces = [mt.ones(2), mt.zeros(2)]
    _close(
        mt.func.rearrange(pieces, "n d -> d n"),
        tf.rearrange([torch.ones(2), torch.zeros(2)], "n d -> d n"),
    )
    for pattern in ("a b c -> a b", "a b -> b a", "a a c -> a c", "a b c -> a b c x"):
        with pytest.raises(ValueError):
            tf.rearrange(torch.ones(2, 6, 4), pattern)
        with pytest.raises(ValueError, match="rearrange"):
            mt.func.rearrange(mt.ones(2, 6, 4), pattern)
    with pytest.raises(ValueError, match="do not fit"):
        mt.func.rearrange(mt.ones(2, 6, 4), "a (b c) d -> a b c d", b=4)


def test_vmap_errors_and_randomness():
    a = mt.tensor(A)
    with pytest.raises(ValueError, match="same size in the mapped dimension, got sizes \\[4, 3\\]"):
        vmap(lambda x, y: x + y)(a, mt.tensor(A.T))
    with pytest.raises(ValueError, match="dimensionality 0"):
        vmap(lambda x: x)(mt.tensor(1.0))
    with pytest.raises(ValueError, match="in_dims"):
        vmap(lambda x: x, in_dims=(0, 0))(a)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(lambda x: x, randomness="foo")
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda x: x + mt.rand(3))(a)
    mt.rand(1)  # the generator works again afterwards
    same = vmap(lambda x: x * 0 + mt.rand(3), randomness="same")(a).numpy()
    assert np.all(same == same[0])
    different = vmap(lambda x: x * 0 + mt.rand(3), randomness="different")(a).numpy()
    assert not np.all(different == different[0])


class _Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(3, 3), nn.Linear(3, 3)
        self.b.weight = self.a.weight
        self.register_buffer("scale", mt.tensor(2.0, dtype=mt.float64))

    def forward(self, x):
        return self.b(self.a(x)) * self.scale


def _tied_pair(device):
    theirs = torch.nn.Module()
    theirs.a, theirs.b = torch.nn.Linear(3, 3).double(), torch.nn.Linear(3, 3).double()
    theirs.b.weight = theirs.a.weight
    theirs.register_buffer("scale", torch.tensor(2.0, dtype=torch.float64))
    theirs.forward = lambda x: theirs.b(theirs.a(x)) * theirs.scale
    ours = _Tied().double().to(device)
    ours.load_state_dict({k: mt.tensor(v.numpy(), device=device)
                          for k, v in theirs.state_dict().items()})  # fmt: skip
    return ours, theirs


def test_functional_call_matches_torch_with_gradients(device):
    ours, theirs = _tied_pair(device)
    w = np.random.default_rng(4).standard_normal((3, 3))
    new = {"a.weight": mt.tensor(w, device=device, requires_grad=True),
           "scale": mt.tensor(3.0, dtype=mt.float64, device=device, requires_grad=True)}  # fmt: skip
    tnew = {"a.weight": torch.tensor(w, requires_grad=True),
            "scale": torch.tensor(3.0, dtype=torch.float64, requires_grad=True)}  # fmt: skip
    y = functional_call(ours, new, (mt.tensor(A, device=device),))
    ty = tf.functional_call(theirs, tnew, (torch.tensor(A),))
    _close(y, ty)  # b.weight is tied to a.weight: it was replaced too
    (y**2).sum().backward()
    (ty**2).sum().backward()
    _close([new["a.weight"].grad, new["scale"].grad], [tnew["a.weight"].grad, tnew["scale"].grad])
    assert ours.a.weight.grad is None  # the module's own parameter got nothing
    assert ours.b.weight is ours.a.weight and ours.scale.item() == 2.0  # restored
    # untied: only a.weight is replaced
    _close(functional_call(ours, new, mt.tensor(A, device=device), tie_weights=False),
           tf.functional_call(theirs, tnew, torch.tensor(A), tie_weights=False))  # fmt: skip


def test_functional_call_restores_after_an_exception_and_checks_keys():
    model = nn.Linear(3, 2)
    weight = model.weight

    def boom(module, args):
        assert module.weight is not weight
        raise KeyError("inside forward")

    handle = model.register_forward_pre_hook(boom)
    with pytest.raises(KeyError, match="inside forward"):
        functional_call(model, {"weight": mt.zeros(2, 3)}, (mt.randn(4, 3),))
    handle.remove()
    assert model.weight is weight and model._parameters["weight"] is weight
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'bias'"):
        functional_call(model, {"weight": mt.zeros(2, 3)}, (mt.randn(4, 3),), strict=True)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(model, ({"weight": mt.zeros(2, 3)}, {"weight": mt.zeros(2, 3)}),
                        (mt.randn(4, 3),))  # fmt: skip
    ours, _ = _tied_pair("cpu")
    with pytest.raises(ValueError, match="which are tied"):
        functional_call(ours, {"a.weight": mt.zeros(3, 3), "b.weight": mt.ones(3, 3)},
                        mt.randn(2, 3, dtype=mt.float64))  # fmt: skip
    y = functional_call(model, ({"weight": mt.zeros(2, 3)}, {"bias": mt.ones(2)}), mt.randn(4, 3))
    np.testing.assert_array_equal(y.numpy(), np.ones((4, 2)))


def test_grad_of_functional_call_per_parameter():
    model, tmodel = nn.Linear(3, 1).double(), torch.nn.Linear(3, 1).double()
    model.load_state_dict({k: mt.tensor(v.numpy()) for k, v in tmodel.state_dict().items()})
    params = {k: v.detach() for k, v in model.named_parameters()}
    tparams = {k: v.detach() for k, v in tmodel.named_parameters()}

    def loss(lib, m):
        return lambda p, x: (lib.func.functional_call(m, p, (x,)) ** 2).mean()

    _close(grad(loss(mt, model))(params, mt.tensor(A)),
           tf.grad(loss(torch, tmodel))(tparams, torch.tensor(A)))  # fmt: skip


def test_jacrev_of_tuple_and_dict_inputs_and_outputs_matches_torch():
    """A tuple/dict argument gives a block per tensor in it, a tuple/dict output a tree of
    blocks per output tensor, as torch.func.jacrev."""
    a, b = A[0], B

    def f(lib):
        return lambda p: {"prod": p[0] * p[1].exp(), "total": (p[0] ** 2).sum()}

    def g(lib):
        return lambda p, q: (lib.outer(p["x"], q), p["y"].sin())

    ours = jacrev(f(mt))((mt.tensor(a), mt.tensor(b)))
    theirs = tf.jacrev(f(torch))((torch.tensor(a), torch.tensor(b)))
    assert ours["prod"][0].shape == (3, 3) and ours["total"][1].shape == (3,)
    _close(ours, theirs)
    args = ({"x": mt.tensor(a), "y": mt.tensor(b)}, mt.tensor(b))
    targs = ({"x": torch.tensor(a), "y": torch.tensor(b)}, torch.tensor(b))
    _close(jacrev(g(mt), argnums=(0, 1))(*args), tf.jacrev(g(torch), argnums=(0, 1))(*targs))
    _close(jacrev(g(mt))(*args), tf.jacrev(g(torch))(*targs))
    _close(jacrev(g(mt), chunk_size=1)(*args), tf.jacrev(g(torch), chunk_size=1)(*targs))


def test_vmap_of_tuple_and_dict_inputs_and_outputs_matches_torch():
    """Tuple/dict arguments are mapped leaf by leaf (in_dims an int for the whole argument or
    a nested tuple of its structure), and list/dict outputs are stacked leaf by leaf, as in
    torch.func.vmap; what it refuses raises ValueError, as there."""
    xs, ys = np.random.default_rng(2).standard_normal((2, 4, 3))

    def run(lib, v):
        x, y = lib.tensor(xs), lib.tensor(ys)
        return (
            v(lambda p: p[0] * p[1])((x, y)),
            v(lambda d: d["a"] - d["b"])({"a": x, "b": y}),
            v(lambda p: p[0] * p[1], in_dims=((0, 1),))((x, y.t())),
            v(lambda r: [r.sum(), r * 2])(x),
            v(lambda r: {"s": r * 2, "o": lib.outer(r, r)}, out_dims=1)(x),
        )

    _close(run(mt, vmap), run(torch, tf.vmap))
    for bad in (
        lambda lib, v, x: v(lambda r: 3.0)(x),  # not a tensor
        lambda lib, v, x: v(lambda r: None)(x),
        lambda lib, v, x: v(lambda r, s: r * s, in_dims=[0, 0])(x, x),  # a list
        lambda lib, v, x: v(lambda p: p[0], in_dims=((0, 1, 0),))((x, x)),  # wrong structure
    ):
        for lib, v in ((mt, vmap), (torch, tf.vmap)):
            with pytest.raises(ValueError):
                bad(lib, v, lib.tensor(xs))


@pytest.mark.parametrize("argnums", [[0], (), (0, 0), (0, -2), 0.0])
def test_bad_argnums_raise_runtime_error_as_torch(argnums):
    for lib, transform in ((mt, grad), (mt, jacrev), (torch, tf.grad), (torch, tf.jacrev)):
        x = lib.ones(3, dtype=lib.float64)
        with pytest.raises(RuntimeError, match="argnum"):
            transform(lambda a, b: (a * b).sum(), argnums=argnums)(x, x)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, f, x: f.grad(lambda u, n: (u**n).sum(), argnums=1)(x, 3),
        lambda lib, f, x: f.grad(lambda p: p[0].sum())((x, None)),
        lambda lib, f, x: f.grad(lambda u: u * 2)(3.0),
        lambda lib, f, x: f.jacrev(lambda u: u * 2)(3.0),
        lambda lib, f, x: f.vjp(lambda p: p[0] * 2, (x, 3)),
    ],
)
def test_differentiating_a_non_tensor_raises_value_error_as_torch(call):
    for lib, f in ((mt, mt.func), (torch, tf)):
        with pytest.raises(ValueError, match="must be Tensor"):
            call(lib, f, lib.ones(3, dtype=lib.float64))


def _ensemble_step(lib, values: list) -> list:
    """The model-ensembling recipe: stack_module_state, vmap over functional_call, then one
    SGD step on the stacked (leaf) parameters."""
    models = [
        lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4)).double() for _ in values
    ]
    for model, (w, b) in zip(models, values):
        with lib.no_grad():
            model[0].weight.copy_(lib.tensor(w))
            model[0].bias.copy_(lib.tensor(b))
    params, buffers = lib.func.stack_module_state(models)
    base = models[0]

    def run(p, b, x):
        return lib.func.functional_call(base, (p, b), (x,))

    x = lib.tensor(A)
    out = lib.func.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    opt = lib.optim.SGD(params.values(), lr=0.1)
    out.pow(2).sum().backward()
    opt.step()
    return [out, *params.values(), *(p.grad for p in params.values()), *buffers.values()]


def test_stack_module_state_ensembles_with_vmap_as_in_pytorch() -> None:
    rng = np.random.default_rng(5)
    values = [(rng.standard_normal((4, 3)), rng.standard_normal(4)) for _ in range(3)]
    ours, theirs = _ensemble_step(mt, values), _ensemble_step(torch, values)
    for a, b in zip(ours, theirs, strict=True):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-12)
    params, buffers = mt.func.stack_module_state([nn.Linear(2, 2), nn.Linear(2, 2)])
    assert list(params) == ["weight", "bias"] and buffers == {}
    assert all(p.is_leaf and p.requires_grad for p in params.values())
    frozen = [nn.Linear(2, 2).requires_grad_(False) for _ in range(2)]
    assert not mt.func.stack_module_state(frozen)[0]["weight"].requires_grad
    for models, message in (([], "at least one model"),
                            ([nn.Linear(2, 2), nn.Linear(2, 2).eval()], "same training/eval"),
                            ([nn.Linear(2, 2), nn.Identity()], "same class"),
                            ([nn.Linear(2, 2), frozen[0]], "same .requires_grad")):  # fmt: skip
        with pytest.raises(RuntimeError, match=message):
            mt.func.stack_module_state(models)
