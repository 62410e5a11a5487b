"""Which ops autocast changes, per device type: PyTorch's "Autocast Op Reference" tables,
cut down to the ops microtorch has.

Inside an enabled ``autocast`` region each listed op casts its floating inputs first
(float64 tensors and integer tensors are never cast, as in PyTorch):

    LOWER     to the region's dtype (float16): the matrix products and convolutions,
              which are fast and accurate enough in half precision;
    FLOAT32   to float32: ops whose range or accumulated rounding needs it (exp, log, pow,
              sums and products, softmax, norms, the losses...);
    PROMOTE   to the widest floating dtype among the inputs (float32 if any is float32),
              for ops that need their inputs to match;
    BANNED    refused: binary_cross_entropy on CUDA (use the _with_logits form).

An op that is in none of a device type's lists runs on its inputs as they come (float16
in, float16 out), like ``add`` or ``relu``. The names are those that microtorch's functions
pass to ``autocast_inputs`` (autocast_mode.py).
"""

from __future__ import annotations

LOWER, FLOAT32, PROMOTE, BANNED = "lower", "float32", "promote", "banned"

CUDA_LOWER = {
    "matmul", "mm", "bmm", "mv", "addmm", "addmv", "addr", "addbmm", "baddbmm",
    "chain_matmul", "multi_dot", "einsum", "vecdot", "linear", "conv1d", "conv2d", "conv3d",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
    "scaled_dot_product_attention", "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell",
}  # fmt: skip
CUDA_FLOAT32 = {
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
    "reciprocal", "__rtruediv__", "rsqrt", "sinh", "tan", "pow", "softmax", "log_softmax",
    "softmin", "cumprod",
    "sum", "prod", "norm", "vector_norm", "renorm", "dist", "pdist", "cdist",
    "layer_norm", "group_norm", "cosine_similarity", "normalize",
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "kl_div", "poisson_nll_loss", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
    "hinge_embedding_loss", "margin_ranking_loss", "multilabel_margin_loss",
    "multi_margin_loss", "soft_margin_loss", "triplet_margin_loss",
}  # fmt: skip
CUDA_PROMOTE = {
    "addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "index_put",
    "scatter_add", "tensordot",
}  # fmt: skip
CUDA_BANNED = {"binary_cross_entropy"}

CPU_LOWER = {
    "matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm", "linear", "conv1d", "conv2d",
    "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
    "scaled_dot_product_attention", "vecdot",
    "einsum", "tensordot",  # (not in PyTorch's CPU list, but it computes them with bmm/mm)
}  # fmt: skip
CPU_FLOAT32 = {
    "prod", "quantile", "nanquantile", "cdist", "trace", "reflection_pad", "replication_pad",
    "inv", "cholesky", "pinverse", "qr", "svd", "solve", "solve_triangular", "eigh", "eigvalsh",
    "svdvals", "lstsq", "matrix_rank",  # (linalg's names; torch.inverse is linalg.inv here)
    "cond", "inv_ex", "cholesky_ex", "tensorinv", "tensorsolve", "householder_product",
    "cholesky_solve", "cholesky_inverse", "triangular_solve", "geqrf", "ormqr",
    "lu", "lu_solve",  # (torch.lu and torch.lu_solve, the deprecated forms, as PyTorch's)
    "avg_pool3d", "adaptive_avg_pool3d", "grid_sample",
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "kl_div", "poisson_nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "multilabel_margin_loss", "multi_margin_loss", "soft_margin_loss", "triplet_margin_loss",
    "ctc_loss",
}  # fmt: skip
CPU_PROMOTE = {"cat", "stack", "index_copy"}


def _policies(lower: set, float32: set, promote: set, banned: set) -> dict[str, str]:
    """One device type's lists as a single lookup: op name -> what autocast does to it."""
    table = dict.fromkeys(lower, LOWER)
    table.update(dict.fromkeys(float32, FLOAT32))
    table.update(dict.fromkeys(promote, PROMOTE))
    table.update(dict.fromkeys(banned, BANNED))
    return table


POLICIES = {
    "cuda": _policies(CUDA_LOWER, CUDA_FLOAT32, CUDA_PROMOTE, CUDA_BANNED),
    "cpu": _policies(CPU_LOWER, CPU_FLOAT32, CPU_PROMOTE, set()),
}
