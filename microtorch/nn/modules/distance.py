"""torch.nn.modules.distance: PairwiseDistance, CosineSimilarity (PyTorch's module path)."""

from ..distance import CosineSimilarity, PairwiseDistance
