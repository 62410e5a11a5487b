"""torch.nn.modules.container: Sequential, ModuleList, ModuleDict, ... (PyTorch's module path)."""

from ..container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
