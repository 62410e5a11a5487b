"""torch.nn.modules.module: Module and the hooks of every module (PyTorch's module path)."""

from ..module import (
    Module,
    _IncompatibleKeys,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
