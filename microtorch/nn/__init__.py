"""Neural-network building blocks: ``Module``, ``Parameter``, layers, containers,
``nn.init``, ``nn.utils`` and ``nn.functional``."""

from . import functional, init, utils
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .distance import CosineSimilarity
from .dropout import Dropout
from .embedding import Embedding
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module
from .multihead_attention import MultiheadAttention
from .normalization import LayerNorm
from .parameter import Parameter
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CosineSimilarity",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Flatten",
    "GELU",
    "HuberLoss",
    "Identity",
    "KLDivLoss",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "MultiheadAttention",
    "NLLLoss",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "ReLU",
    "Sequential",
    "SiLU",
    "SmoothL1Loss",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "Unflatten",
    "functional",
    "init",
    "utils",
]
