"""Connectionist temporal classification (CTC) loss: -log p(target | log_probs), summed over
every alignment of the target to the frames.

The target ``l`` (length S) is extended with a blank before, between and after its labels:
``l' = [b, l1, b, l2, ..., b, lS, b]`` (length 2S + 1). An alignment is a path through
l' that at each frame stays, moves one step, or skips a blank between two different
labels. In log space, with ``y_t(c) = log_probs[t, c]``:

    alpha_0(0) = y_0(b), alpha_0(1) = y_0(l1)
    alpha_t(s) = y_t(l'_s) + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2))
    (the s-2 term only at a label, odd s, different from the label l'_{s-2})
    log p = logsumexp(alpha_{T-1}(2S), alpha_{T-1}(2S - 1))

beta runs the same recursion backwards from the last frame. alpha_t(s) + beta_t(s) -
y_t(l'_s) is the log-probability of the paths through (t, s), so

    d(-log p) / d y_t(c) = -exp(logsumexp_{s: l'_s = c}(alpha_t(s) + beta_t(s)) - y_t(c) + nll)

PyTorch's backward returns that plus exp(y_t(c)) (the gradient with respect to the logits
when log_probs = log_softmax(logits)); through a log_softmax both give the same gradient,
and this op returns PyTorch's, so that a leaf log_probs gets PyTorch's numbers too. Both
recursions are vectorised over the batch and the extended target; only the frames loop.
"""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of


def _logaddexp3(a, b, c):
    """log(exp(a) + exp(b) + exp(c)), elementwise, -inf where all three are -inf (no
    warnings: the max is replaced by 0 there)."""
    xp = xp_of(a)
    m = xp.maximum(xp.maximum(a, b), c)
    safe = xp.where(xp.isfinite(m), m, 0)
    total = xp.exp(a - safe) + xp.exp(b - safe) + xp.exp(c - safe)
    return xp.where(total > 0, xp.log(xp.where(total > 0, total, 1)) + safe, -xp.inf)


def _shift(a, k, fill):
    """a moved k places to the right along the last axis (k < 0: to the left), ``fill``
    coming in."""
    xp = xp_of(a)
    out = xp.full_like(a, fill)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


class CTCLoss(Function):
    """log_probs (T, N, C); targets (N, S) padded labels; input_lengths, target_lengths (N,)
    integer arrays. Returns the per-sample negative log-likelihood (N,); with
    ``zero_infinity`` an infeasible sample (no alignment fits) gives 0 and no gradient."""

    def forward(self, log_probs, targets, input_lengths, target_lengths, blank=0,
                zero_infinity=False):  # fmt: skip
        xp = xp_of(log_probs)
        # the recursions add up T log-probabilities: in float32 their rounding reached 1e-4 of
        # the gradient, so narrower floats are computed in float64 (and the results rounded)
        self.dtype = log_probs.dtype
        log_probs = log_probs.astype("float64", copy=False)
        T, N, C = log_probs.shape
        L = 2 * targets.shape[1] + 1
        s = xp.arange(L)
        # the extended target l' (N, L): blanks at even s, the labels at odd s
        label_at = xp.minimum(s // 2, max(targets.shape[1] - 1, 0))
        labels = targets[:, label_at] if targets.shape[1] else xp.zeros((N, L), dtype="int64")
        inside = (s[None, :] % 2 == 1) & (s[None, :] < 2 * target_lengths[:, None] + 1)
        ext = xp.where(inside, labels, blank).astype("int64")
        # may a path jump from s - 2 to s? at a label (odd s) unlike the one before it
        skip = (s[None, :] % 2 == 1) & (s[None, :] >= 3) & (ext != _shift(ext, 2, blank))
        y = xp.take_along_axis(log_probs, xp.broadcast_to(ext[None], (T, N, L)), axis=2)
        neg_inf = -xp.inf

        # alpha (T, N, L): forward variables
        alpha = xp.full((T, N, L), neg_inf, dtype=log_probs.dtype)
        alpha[0, :, 0] = y[0, :, 0]
        if L > 1:
            alpha[0, :, 1] = xp.where(target_lengths > 0, y[0, :, 1], neg_inf)
        for t in range(1, T):
            prev = alpha[t - 1]
            two_back = xp.where(skip, _shift(prev, 2, neg_inf), neg_inf)
            alpha[t] = y[t] + _logaddexp3(prev, _shift(prev, 1, neg_inf), two_back)

        rows = xp.arange(N)
        last_t = xp.maximum(input_lengths - 1, 0)
        at_end = alpha[last_t, rows]  # (N, L): alpha at each sample's last frame
        end = at_end[rows, 2 * target_lengths]
        before = xp.where(target_lengths > 0, at_end[rows, xp.maximum(2 * target_lengths - 1, 0)],
                          neg_inf)  # fmt: skip
        log_p = _logaddexp3(end, before, xp.full_like(end, neg_inf))
        # no frames: only the empty target fits, with probability 1
        log_p = xp.where(input_lengths > 0, log_p, xp.where(target_lengths == 0, 0.0, neg_inf))
        nll = -log_p
        self.infeasible = xp.isinf(nll)
        self.zero_infinity, self.blank = zero_infinity, blank
        self.input_lengths, self.target_lengths, self.ext, self.skip = (
            input_lengths,
            target_lengths,
            ext,
            skip,
        )
        self.save_for_backward(log_probs, alpha, y, nll)
        return (xp.where(self.infeasible, 0, nll) if zero_infinity else nll).astype(self.dtype)

    def backward(self, grad):
        log_probs, alpha, y, nll = self.saved
        xp = xp_of(log_probs)
        T, N, C = log_probs.shape
        L = alpha.shape[2]
        neg_inf = -xp.inf
        il, tl, ext, skip = self.input_lengths, self.target_lengths, self.ext, self.skip
        s = xp.arange(L)
        ends = (s[None, :] == 2 * tl[:, None]) | (
            (s[None, :] == 2 * tl[:, None] - 1) & (tl[:, None] > 0)
        )
        skip_from = _shift(skip, -2, False)  # (N, L): may s jump to s + 2?

        # beta (T, N, L): backward variables, started at each sample's last frame
        beta = xp.full((T, N, L), neg_inf, dtype=log_probs.dtype)
        for t in range(T - 1, -1, -1):
            start = xp.where(ends, y[t], neg_inf)
            if t == T - 1:
                step = xp.full_like(start, neg_inf)
            else:
                nxt = beta[t + 1]
                two_ahead = xp.where(skip_from, _shift(nxt, -2, neg_inf), neg_inf)
                step = y[t] + _logaddexp3(nxt, _shift(nxt, -1, neg_inf), two_ahead)
            last = (t == il - 1)[:, None]
            beta[t] = xp.where(last, start, xp.where((t < il - 1)[:, None], step, neg_inf))

        # occupancy of each label: logsumexp over the s with l'_s = c, as a matmul with a
        # one-hot (N, L, C) after taking out each frame's max
        ab = alpha + beta  # (T, N, L)
        m = ab.max(axis=2, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0)
        onehot = (ext[:, :, None] == xp.arange(C)[None, None, :]).astype(log_probs.dtype)
        occupancy = xp.matmul(xp.exp(ab - m).transpose(1, 0, 2), onehot).transpose(1, 0, 2)
        positive = occupancy > 0
        log_occ = xp.where(positive, xp.log(xp.where(positive, occupancy, 1)) + m, neg_inf)
        finite = ~self.infeasible[None, :, None]
        safe_nll = xp.where(self.infeasible, 0, nll)[None, :, None]
        expo = xp.where(finite, log_occ + safe_nll - log_probs, neg_inf)
        g = xp.exp(log_probs) - xp.exp(expo)
        g = xp.where(finite, g, xp.nan)  # no alignment: nan, as PyTorch
        used = (xp.arange(T)[:, None] < il[None, :])[:, :, None]  # frames past the input: 0
        g = xp.where(used, g, 0)
        if self.zero_infinity:
            g = xp.where(finite, g, 0)
        return (g * grad[None, :, None]).astype(self.dtype), None, None, None
