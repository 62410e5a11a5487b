"""``microtorch.func``: function transforms, as ``torch.func``, built on ``autograd.grad``.

    g = grad(loss_fn)(x)                        # d loss_fn(x) / dx
    out, vjp_fn = vjp(f, x); (gx,) = vjp_fn(v)  # f(x), and v^T J
    J = jacrev(f)(x)                            # d f(x) / dx, one backward per output element
    ys = vmap(f)(xs)                            # f applied to each xs[i], then stacked
    out = functional_call(model, params, (x,))  # model run with other parameters
    params, buffers = stack_module_state(models)  # an ensemble's state, for vmap

The transforms return plain (detached) tensors: microtorch's backward records no graph, so
``grad(grad(f))`` (gradients of gradients) is refused with a clear error. ``vmap`` is a Python
loop over the mapped dimension, not a vectorised kernel: ``vmap(grad(f))`` gives per-sample
gradients, one backward per sample.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from . import functional as F
from . import random
from ._rearrange import rearrange
from ._tensor import Tensor
from .autograd import engine, grad_mode, no_gradients_of_gradients
from .autograd import grad as _autograd_grad

_depth = 0  # how many grad/vjp/jacrev calls are running (one may not run inside another)


@contextlib.contextmanager
def _transform(name: str) -> Iterator[None]:
    """Run one differentiating transform; one inside another needs gradients of gradients."""
    global _depth
    if _depth:
        raise no_gradients_of_gradients(f"func.{name} inside grad/vjp/jacrev (nested) is")
    _depth += 1
    try:
        with grad_mode.enable_grad():
            yield
    finally:
        _depth -= 1


def _tree_map(fn: Callable, tree: Any) -> Any:
    """``fn`` applied to every tensor in a tensor, or a tuple/list/dict of them (nested)."""
    if isinstance(tree, (tuple, list)):
        return type(tree)(_tree_map(fn, t) for t in tree)
    if isinstance(tree, dict):
        return {k: _tree_map(fn, v) for k, v in tree.items()}
    return fn(tree) if isinstance(tree, Tensor) else tree


def _leaves(tree: Any) -> list:
    """The tensors of a tree, in _tree_map's order."""
    found: list = []
    _tree_map(found.append, tree)
    return found


def _fresh(t: Tensor) -> Tensor:
    return t.detach().requires_grad_(True)  # integer tensors raise, as in PyTorch


def _fresh_tree(tree: Any) -> Any:
    """A differentiated argument (a tensor, or a tuple/list/dict of them) with each tensor a
    fresh leaf; anything else in it is PyTorch's ValueError."""
    if not _only_tensors(tree):
        raise ValueError(
            "func: Thing passed to transform API must be Tensor (or a tuple/list/dict of "
            f"Tensors), got {tree!r:.80}; pass the others through argnums that leave them out"
        )
    return _tree_map(_fresh, tree)


def _argnums(argnums: int | tuple, n: int) -> tuple:
    """argnums as a tuple of non-negative positions, checked as PyTorch checks it."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(
            f"func: argnums must be int or Tuple[int, ...], got: {type(argnums)}; e.g. "
            "argnums=(0, 1)"
        )
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not nums:
        raise RuntimeError("func: argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int) or not -n <= a < n:
            raise RuntimeError(
                f"func: got argnums={argnums!r}, but only {n} positional inputs were given"
            )
    positions = tuple(a % n for a in nums)
    if len(set(positions)) != len(positions):
        raise RuntimeError(f"func: argnums elements must be unique, got {argnums}")
    return positions


def _grads(outputs: list, primals: list, cotangents: list | None, retain: bool) -> list:
    """d(sum outputs * cotangents) / d primal for each primal; zeros where none reaches it."""
    used = [i for i, o in enumerate(outputs) if o.requires_grad]
    found = [None] * len(primals)
    if used:
        weights = None if cotangents is None else [cotangents[i] for i in used]
        found = _autograd_grad([outputs[i] for i in used], primals, weights, retain_graph=retain,
                               allow_unused=True)  # fmt: skip
    return [p.new_zeros(p.shape) if g is None else g for p, g in zip(primals, found)]


def _split_aux(output: Any, has_aux: bool, call: str) -> tuple:
    """(output, aux): with ``has_aux`` func must return the pair, else aux is None."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{call}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    if not _only_tensors(output[1]):  # (PyTorch's check, made when it unwraps the aux)
        raise RuntimeError(
            f"{call}: Expected tensors, got unsupported type in the aux {output[1]!r:.80}: "
            "with has_aux, f's aux must be a tensor or a tuple/list/dict of tensors (wrap a "
            "number in a tensor)"
        )
    return output


def grad_and_value(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """A function returning (d func / d args[argnums], func(*args)) for a scalar func; with
    ``has_aux`` func returns (value, aux) and the result is (grad, (value, aux))."""

    def wrapper(*args: Any, **kwargs: Any) -> tuple:
        nums = _argnums(argnums, len(args))
        with _transform("grad"):
            args = list(args)
            for a in nums:
                args[a] = _fresh_tree(args[a])
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor) or output.dim() != 0:
                got = f"tensor with {output.dim()} dims" if isinstance(output, Tensor) else output
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"{got}. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            trees = [args[a] for a in nums]
            flat = _grads([output], _leaves(trees), None, retain=False)
        found = iter(flat)
        grads = [_tree_map(lambda _: next(found), tree) for tree in trees]
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = output.detach()
        return (g, (value, _tree_map(Tensor.detach, aux))) if has_aux else (g, value)

    return wrapper


def grad(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """A function returning d func / d args[argnums] for a func with a scalar output (and, with
    ``has_aux``, the aux that func returns beside it)."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """(func(*primals), vjp_fn): vjp_fn(cotangents) gives the gradient of sum(output *
    cotangents) with respect to each primal, a tuple with one entry per primal (zeros for a
    primal the output does not use). With ``has_aux``, (output, vjp_fn, aux)."""
    with _transform("vjp"):
        primals = tuple(_fresh_tree(p) for p in primals)
        output, aux = _split_aux(func(*primals), has_aux, "vjp(f, *primals)")
    outputs, flat_primals = _leaves(output), _leaves(primals)

    def vjp_fn(cotangents: Any) -> tuple:
        """The gradients of sum(output * cotangents) with respect to each primal."""
        flat_cotangents = _leaves(cotangents)
        if len(flat_cotangents) != len(outputs):
            raise RuntimeError(
                f"vjp_fn: expected {len(outputs)} cotangents (one per output), got "
                f"{len(flat_cotangents)}"
            )
        for i, (o, c) in enumerate(zip(outputs, flat_cotangents)):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {tuple(c.shape)} and "
                    f"output[{i}] has a shape of {tuple(o.shape)}."
                )
        with _transform("vjp"):
            flat = _grads(outputs, flat_primals, flat_cotangents, retain=True)
        found = iter(flat)
        return tuple(_tree_map(lambda _: next(found), p) for p in primals)

    result = _tree_map(Tensor.detach, output)
    return (result, vjp_fn, _tree_map(Tensor.detach, aux)) if has_aux else (result, vjp_fn)


def jacrev(func: Callable, argnums: int | tuple = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable:  # fmt: skip
    """A function returning the Jacobian of func with respect to args[argnums], one backward
    pass per output element: for each output tensor (func may return a tuple/list/dict of
    them) the input's structure (a tensor, or a tuple/list/dict of them; a tuple over
    argnums when it is a tuple) with a block of shape output.shape + input.shape for each
    input tensor. ``chunk_size`` (a memory option in PyTorch) changes nothing here."""

    def wrapper(*args: Any) -> Any:
        nums = _argnums(argnums, len(args))
        with _transform("jacrev"):
            args = list(args)
            for a in nums:
                args[a] = _fresh_tree(args[a])
            output, aux = _split_aux(func(*args), has_aux, "jacrev(f)(*args)")
            trees = [args[a] for a in nums]
            primals = _leaves(trees)
            per_output = [_jacobian_blocks(o, trees, primals) for o in _leaves(output)]
        found = iter(per_output)
        jac = _tree_map(lambda _: next(found), output)  # each output: its blocks' tree
        return (jac, _tree_map(Tensor.detach, aux)) if has_aux else jac

    def _jacobian_blocks(o: Tensor, trees: list, primals: list) -> Any:
        """d o / d each primal (one backward per element of o), in the inputs' structure."""
        rows: list[list[Tensor]] = [[] for _ in primals]
        flat = o.reshape(-1)
        for k in range(flat.numel()):
            for i, g in enumerate(_grads([flat[k]], primals, None, retain=True)):
                rows[i].append(g.reshape(-1))
        blocks = iter(
            F.stack(r).reshape((*o.shape, *p.shape)) if r else p.new_zeros((*o.shape, *p.shape))
            for p, r in zip(primals, rows)
        )
        per_input = [_tree_map(lambda _: next(blocks), t) for t in trees]
        return per_input[0] if isinstance(argnums, int) else tuple(per_input)

    return wrapper


class _NoRandomness:
    """Stands in for the generator inside vmap(randomness="error"): any draw raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use "
            "the 'same' or 'different' randomness flags on vmap or perform the randomness "
            "operation out of vmap"
        )


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:  # fmt: skip
    """A function mapping func over dim ``in_dims`` of its inputs and stacking the results
    along ``out_dims``. Not vectorised: it calls func once per index, in a Python loop.
    randomness: "error" (random ops raise), "same" (every call draws the same numbers) or
    "different" (each call draws its own)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. Got "
            f"{randomness}"
        )

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_dims, list):
            raise ValueError(
                f"vmap: expected in_dims to be an int or a (nested) tuple matching the inputs, "
                f"got the list {in_dims}; write it as a tuple"
            )
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(
                f"vmap: in_dims has {len(dims)} entries but {len(args)} positional inputs "
                "were given; give one in_dim (an int or None) per input"
            )
        sizes: list = []
        _map_with_dims(lambda t, d: sizes.append(_mapped_size(t, d)), args, dims, "in_dims")
        sizes = [n for n in sizes if n is not None]
        if not sizes:
            raise ValueError("vmap: at least one input must be mapped over (an in_dim not None)")
        if len(set(sizes)) != 1:
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, got "
                f"sizes {sizes} for the mapped dimension"
            )
        if sizes[0] == 0:
            raise ValueError(
                "vmap: the mapped dimension has size 0; this vmap calls func once per index "
                "(a loop), so it cannot tell the shape of an empty result"
            )
        results = []
        engine.keep_graphs += 1  # (a backward in func runs once per index here)
        try:
            with _randomness(randomness) as before_each_call:
                for i in range(sizes[0]):
                    before_each_call()
                    sliced = _map_with_dims(
                        lambda t, d, i=i: t if d is None else t.select(d, i), args, dims, "in_dims"
                    )
                    results.append(func(*sliced, **kwargs))
        finally:
            engine.keep_graphs -= 1
        return _stacked(results, out_dims)

    return wrapper


def _map_with_dims(fn: Callable, tree: Any, dims: Any, name: str) -> Any:
    """``tree`` with fn(t, d) in place of each tensor t, d its entry in ``dims``: an int or
    None for the whole (sub)tree, or a tuple/list/dict of the tree's own structure."""
    if isinstance(tree, Tensor):
        if not (dims is None or isinstance(dims, int)):
            raise ValueError(f"vmap: got {name} {dims!r} for a tensor; expected an int or None")
        return fn(tree, dims)
    if isinstance(tree, (tuple, list)) and isinstance(dims, (tuple, list)):
        if len(tree) != len(dims):
            raise ValueError(
                f"vmap: {name} {dims!r} does not match the structure of a {type(tree).__name__} "
                f"of {len(tree)} entries"
            )
        return type(tree)(_map_with_dims(fn, t, d, name) for t, d in zip(tree, dims))
    if isinstance(tree, dict) and isinstance(dims, dict):
        if tree.keys() != dims.keys():
            raise ValueError(f"vmap: {name} keys {list(dims)} do not match the keys {list(tree)}")
        return {k: _map_with_dims(fn, v, dims[k], name) for k, v in tree.items()}
    if isinstance(tree, (tuple, list, dict)) and (dims is None or isinstance(dims, int)):
        return _tree_map(lambda t: fn(t, dims), tree)
    if dims is not None:
        raise ValueError(
            f"vmap: got {name}={dims!r} for an input of type {type(tree).__name__}; only "
            "tensor inputs can be mapped over (use in_dim=None for the others)"
        )
    return tree


def _mapped_size(t: Tensor, d: int | None) -> Any:
    """The size of t's mapped dim d (None: not mapped), after checking d is one of its dims."""
    if d is None:
        return None
    if not -t.dim() <= d < t.dim():
        raise ValueError(
            f"vmap: Got in_dim={d} for some input, but that input is a Tensor of "
            f"dimensionality {t.dim()} so expected in_dim to satisfy "
            f"-{t.dim()} <= in_dim < {t.dim()}."
        )
    return t.shape[d]


def _stacked(results: list, out_dims: Any) -> Any:
    """The results of vmap's calls (each a tensor or a tuple/list/dict of them) stacked
    leaf by leaf along their out_dims, in the results' structure."""
    first = results[0]
    if not _only_tensors(first):
        raise ValueError(
            f"vmap: func must only return tensors (or tuples/lists/dicts of them), got "
            f"{type(first).__name__} {first!r:.60}"
        )
    if isinstance(first, Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        out_dims = out_dims[0]
    leaf_dims: list = []
    _map_with_dims(lambda t, d: leaf_dims.append(d), first, out_dims, "out_dims")
    flat = [_leaves(r) for r in results]
    stacked = []
    for k, d in enumerate(leaf_dims):
        if d is None:
            raise ValueError(
                "vmap: out_dims=None for an output is not supported (every output is stacked "
                "along an int out_dim here)"
            )
        stacked.append(F.stack([leaves[k] for leaves in flat], dim=d))
    found = iter(stacked)
    return _tree_map(lambda _: next(found), first)


def _only_tensors(tree: Any) -> bool:
    """Whether every leaf of tree (a tensor, or tuples/lists/dicts of them) is a tensor."""
    if isinstance(tree, (tuple, list)):
        return all(_only_tensors(t) for t in tree)
    if isinstance(tree, dict):
        return all(_only_tensors(t) for t in tree.values())
    return isinstance(tree, Tensor)


@contextlib.contextmanager
def _randomness(mode: str) -> Iterator[Callable]:
    """Yield what to do before each call of vmap's func for ``mode``."""
    generator = random.default_generator
    if mode == "different":
        yield lambda: None
        return
    if mode == "same":
        state = generator.get_state()
        yield lambda: generator.set_state(state)  # every call starts from the same state
        return
    real, generator.rng = generator.rng, _NoRandomness()
    try:
        yield lambda: None
    finally:
        generator.rng = real


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:  # fmt: skip
    """``module(*args, **kwargs)`` with the named parameters and buffers replaced by the given
    tensors for the call (gradients flow to them); the originals are back afterwards, even if
    the call raised."""
    dicts = parameter_and_buffer_dicts
    dicts = (dicts,) if isinstance(dicts, dict) else tuple(dicts)
    given: dict = {}
    for d in dicts:
        repeated = [k for k in d if k in given]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                "ambiguous"
            )
        given.update(d)
    if tie_weights:
        given = _tied(module, given)
    if strict:
        _check_strict(module, given)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _substituted(module, given):
        return module(*args, **(kwargs or {}))


def _tied(module: Any, given: dict) -> dict:
    """``given`` plus, for each name, every other name of the same (tied) tensor."""
    names_of: dict = {}  # id(tensor) -> all its names
    for registry in ("named_parameters", "named_buffers"):
        for name, t in getattr(module, registry)(remove_duplicate=False):
            names_of.setdefault(id(t), []).append(name)
    full = dict(given)
    for names in names_of.values():
        inside = [n for n in names if n in given]
        if len(inside) > 1 and any(given[n] is not given[inside[0]] for n in inside):
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(inside)}, which are tied. "
                "Consider using tie_weights=False"
            )
        if inside:
            full.update({n: given[inside[0]] for n in names})
    return full


def _check_strict(module: Any, given: dict) -> None:
    names = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    names |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing, unexpected = sorted(names - set(given)), sorted(set(given) - names)
    if missing or unexpected:
        lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
        if missing:
            lines.append(f"\tMissing key(s): {', '.join(repr(k) for k in missing)}.")
        if unexpected:
            lines.append(f"\tUnexpected key(s): {', '.join(repr(k) for k in unexpected)}.")
        raise RuntimeError("\n".join(lines))


_ABSENT = object()  # an attribute the module did not have before functional_call


@contextlib.contextmanager
def _substituted(module: Any, given: dict) -> Iterator[None]:
    """Put each given tensor in place of the named parameter/buffer; restore on the way out."""
    undo = []  # (registry dict or None, owner module, attribute name, original value)
    try:
        for name, tensor in given.items():
            owner_name, _, attr = name.rpartition(".")
            owner = module.get_submodule(owner_name) if owner_name else module
            for registry in (owner._parameters, owner._buffers):
                if attr in registry:
                    undo.append((registry, owner, attr, registry[attr]))
                    registry[attr] = tensor  # (a plain tensor: it stays in the graph)
                    break
            else:  # not a parameter or buffer: a plain attribute for the call
                undo.append((None, owner, attr, owner.__dict__.get(attr, _ABSENT)))
                object.__setattr__(owner, attr, tensor)
        yield
    finally:
        for registry, owner, attr, original in reversed(undo):
            if registry is None and original is _ABSENT:
                object.__delattr__(owner, attr)
            elif registry is None:
                object.__setattr__(owner, attr, original)
            else:
                registry[attr] = original


def stack_module_state(models: Any) -> tuple[dict, dict]:
    """(params, buffers) of ``models`` (a list of modules of one class, in one mode) for
    ensembling with vmap: each name's tensors stacked along a new dim 0. Stacked parameters
    are new leaves (they require grad, for an optimizer, when the models' do)."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) != 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    stacked = []
    for named in (lambda m: m.named_parameters(), lambda m: m.named_buffers()):
        each = [dict(named(m)) for m in models]
        stacked.append({name: _stacked_leaf([d[name] for d in each], name) for name in each[0]})
    return stacked[0], stacked[1]


def _stacked_leaf(tensors: list, name: str) -> Tensor:
    """The tensors stacked: a new leaf that requires grad if they all do (mixed: an error)."""
    wanted = {t.requires_grad for t in tensors}
    if len(wanted) != 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    with grad_mode.no_grad():
        result = F.stack(tensors)
    return result.requires_grad_() if wanted == {True} else result


__all__ = ["functional_call", "grad", "grad_and_value", "jacrev", "rearrange",
           "stack_module_state", "vjp", "vmap"]  # fmt: skip
