"""``torch.nn.modules``: PyTorch's module paths, for code that imports from them:

    from torch.nn.modules.loss import _Loss
    from torch.nn.modules.utils import _pair
    isinstance(m, torch.nn.modules.batchnorm._BatchNorm)

Each file here names where its classes live in microtorch/nn/ (loss.py, normalization.py,
...); nothing is defined twice. Their public names are here too (``nn.modules.Linear``), as
in PyTorch.
"""

from . import utils
from .activation import *  # noqa: F403
from .adaptive import *  # noqa: F403
from .batchnorm import *  # noqa: F403
from .channelshuffle import *  # noqa: F403
from .container import *  # noqa: F403
from .conv import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .flatten import *  # noqa: F403
from .fold import *  # noqa: F403
from .instancenorm import *  # noqa: F403
from .lazy import *  # noqa: F403
from .linear import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import *  # noqa: F403
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .pixelshuffle import *  # noqa: F403
from .pooling import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sparse import *  # noqa: F403
from .transformer import *  # noqa: F403
from .upsampling import *  # noqa: F403
