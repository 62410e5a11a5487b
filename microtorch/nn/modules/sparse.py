"""torch.nn.modules.sparse: Embedding, EmbeddingBag (PyTorch's module path)."""

from ..embedding import Embedding, EmbeddingBag
