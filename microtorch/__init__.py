"""microtorch: a small deep-learning framework you can read, step through and extend.

``import microtorch as torch`` runs ordinary PyTorch code for the ops it has.
"""

import builtins  # this module rebinds bool, float and int to dtypes

from . import (
    autograd,
    backend,
    backends,
    cuda,
    nn,
    optim,
    utils,
    viz,
)
from ._repr import set_printoptions
from ._tensor import Size, Tensor
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd import functional as _autograd_functional  # noqa: F401 (autograd.functional)
from .backend import (
    device,
    get_default_device,
    get_float32_matmul_precision,
    set_default_device,
    set_float32_matmul_precision,
)
from .dtypes import (
    bool,
    double,
    dtype,
    finfo,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
)
from .factories import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from .functional import (
    abs,
    add,
    all,
    allclose,
    amax,
    amin,
    any,
    argmax,
    argmin,
    argsort,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    bmm,
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    cat,
    ceil,
    chunk,
    clamp,
    clip,
    clone,
    column_stack,
    concat,
    cos,
    detach,
    div,
    dot,
    einsum,
    eq,
    equal,
    erf,
    exp,
    flatten,
    flip,
    floor,
    floor_divide,
    gather,
    ge,
    gelu,
    gt,
    hardshrink,
    hstack,
    index_add,
    index_select,
    is_floating_point,
    isclose,
    isfinite,
    isinf,
    isnan,
    le,
    lerp,
    log,
    log1p,
    log_softmax,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    masked_fill,
    masked_select,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mm,
    moveaxis,
    movedim,
    mul,
    mv,
    narrow,
    ne,
    neg,
    nonzero,
    norm,
    outer,
    permute,
    pow,
    prelu,
    prod,
    reciprocal,
    relu,
    remainder,
    repeat_interleave,
    reshape,
    round,
    row_stack,
    rsqrt,
    scatter,
    scatter_add,
    sigmoid,
    sign,
    sin,
    softmax,
    sort,
    split,
    sqrt,
    square,
    squeeze,
    stack,
    std,
    sub,
    sum,
    swapaxes,
    swapdims,
    t,
    take_along_dim,
    tanh,
    tile,
    topk,
    transpose,
    tril,
    triu,
    trunc,
    unbind,
    unflatten,
    unsqueeze,
    var,
    vstack,
    where,
)
from .nn.functional import (  # the activations PyTorch also has as torch.xxx
    celu,
    celu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
    threshold,
    threshold_,
)
from .random import (
    Generator,
    bernoulli,
    get_rng_state,
    initial_seed,
    manual_seed,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from .serialization import load, save
from .tracing import trace

__version__ = "0.1.0"


def is_tensor(obj: object) -> "builtins.bool":
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> "builtins.int":
    return input.numel()


def __getattr__(name: str) -> object:
    """Only reached for a name microtorch does not define (torch.einsum, torch.log1p...)."""
    if name.startswith("__"):
        raise AttributeError(f"module 'microtorch' has no attribute '{name}'")
    raise AttributeError(
        f"module 'microtorch' has no attribute '{name}': microtorch implements a subset of "
        f"PyTorch and '{name}' is not in it; write it from the ops there are, or add it as an "
        "op (docs/adding_an_op.md)"
    )
