"""A second dozen whole PyTorch programs, run side by side in PyTorch and microtorch.

Same harness as tests/test_programs_torch.py: each program is a function of the library
module, run first with PyTorch (which records the initial ``state_dict`` of every model),
then with microtorch (which loads that state first); every recorded series (losses,
learning rates, outputs, optimizer states) and, at the end, every parameter, buffer and
gradient must agree: ~1e-10 in float64, ~1e-5 in float32.

The programs follow well-known tutorials and the code people write from them: "What is
torch.nn really?", "Learning PyTorch with examples", a U-Net, a text classifier with
EmbeddingBag, attention, policy gradients, a flow, normalization and parametrizations,
optimizers and schedulers, torch.func, hooks, and the autocast/GradScaler lines GPU
scripts carry to the CPU. Where the two libraries cannot share a value (their random
streams differ), a program records only what does not depend on it.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from .test_programs_torch import Run, assert_program_matches, batches, labels, registry, to_plain

torch = pytest.importorskip("torch")

PROGRAMS, program = registry()


def record_optimizer(run: Run, key: str, opt: Any) -> None:
    """Record ``opt.state_dict()``: every per-parameter state tensor and group setting."""
    run.record(key, to_plain(opt.state_dict()))


# ------------------------------------------------------------------ "What is torch.nn really?"
@program()
def nn_really_logistic_regression_by_hand_then_nn_module_linear_optim(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(30)
    x_train = torch.tensor(rng.standard_normal((20, 16)))
    y_train = torch.tensor(rng.integers(0, 4, 20))
    n, bs, lr, epochs = x_train.shape[0], 8, 0.5, 2

    # from scratch: plain tensors, requires_grad_ after the (NumPy) initialization
    weights = torch.tensor(rng.standard_normal((16, 4)) / math.sqrt(16))
    weights.requires_grad_()
    bias = torch.zeros(4, dtype=torch.float64, requires_grad=True)

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    def nll(input, target):
        return -input[range(target.shape[0]), target].mean()

    def accuracy(out, yb):
        return (torch.argmax(out, dim=1) == yb).float().mean()

    for _ in range(epochs):
        for i in range((n - 1) // bs + 1):
            xb, yb = x_train[i * bs : i * bs + bs], y_train[i * bs : i * bs + bs]
            loss = nll(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
            run.record("by hand", loss.item())
    run.record("accuracy", accuracy(model(x_train), y_train))
    run.record(
        "same as F.cross_entropy", [nll(model(xb), yb), F.cross_entropy(xb @ weights + bias, yb)]
    )
    run.record("by hand weights", [weights, bias, weights.grad, bias.grad])

    loss_func = F.cross_entropy

    class MnistLogistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = nn.Parameter(torch.randn(16, 4) / math.sqrt(16))
            self.bias = nn.Parameter(torch.zeros(4))

        def forward(self, xb):
            return xb @ self.weights + self.bias

    class MnistLinear(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(16, 4)

        def forward(self, xb):
            return self.lin(xb)

    def fit(model, opt=None):
        for _ in range(epochs):
            for i in range((n - 1) // bs + 1):
                start_i = i * bs
                xb, yb = x_train[start_i : start_i + bs], y_train[start_i : start_i + bs]
                loss = loss_func(model(xb), yb)
                loss.backward()
                if opt is None:
                    with torch.no_grad():
                        for p in model.parameters():
                            p -= p.grad * lr
                        model.zero_grad()
                else:
                    opt.step()
                    opt.zero_grad()
                run.record("fit", loss.item())

    logistic = run.start("logistic", MnistLogistic().double())
    fit(logistic)
    run.record("grads after zero_grad", [p.grad is None for p in logistic.parameters()])
    run.finish("logistic", logistic)
    linear = run.start("linear", MnistLinear().double())
    opt = torch.optim.SGD(linear.parameters(), lr=lr)
    fit(linear, opt)
    run.record("loss", loss_func(linear(x_train), y_train).item())
    run.finish("linear", linear)
    record_optimizer(run, "optimizer", opt)


@program()
def nn_really_dataloader_sequential_lambda_conv2d(torch: Any, run: Run) -> None:
    nn, F = torch.nn, torch.nn.functional
    TensorDataset, DataLoader = torch.utils.data.TensorDataset, torch.utils.data.DataLoader
    rng = np.random.default_rng(31)
    x_train, y_train = rng.standard_normal((18, 64)), rng.integers(0, 3, 18)
    x_valid, y_valid = rng.standard_normal((10, 64)), rng.integers(0, 3, 10)
    x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))
    bs = 4

    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def forward(self, x):
            return self.func(x)

    def preprocess(x):
        return x.view(-1, 1, 8, 8)

    model = nn.Sequential(
        Lambda(preprocess),
        nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(4, 4, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(4, 3, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    ).double()  # fmt: skip
    run.start("model", model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_func = F.cross_entropy

    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
        return loss.item(), len(xb)

    train_ds, valid_ds = TensorDataset(x_train, y_train), TensorDataset(x_valid, y_valid)
    train_dl = DataLoader(train_ds, batch_size=bs)  # a fixed order
    valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
    run.record("lengths", [len(train_ds), len(train_dl), len(valid_dl)])
    for _ in range(2):
        model.train()
        for xb, yb in train_dl:
            run.record("train", loss_batch(model, loss_func, xb, yb, opt)[0])
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        run.record("valid", float(np.sum(np.multiply(losses, nums)) / np.sum(nums)))
        run.record("batch sizes", list(nums))
    run.finish("model", model)
    record_optimizer(run, "optimizer", opt)

    # shuffle=True: the two libraries' generators draw different orders, so compare only
    # what does not depend on the order (which samples, batch sizes, the epoch mean loss)
    indexed = TensorDataset(torch.arange(len(x_train)), x_train, y_train)
    for drop_last in (False, True):
        gen = torch.Generator().manual_seed(0)
        dl = DataLoader(indexed, batch_size=bs, shuffle=True, generator=gen, drop_last=drop_last)
        orders = []
        for _ in range(2):
            seen, total, count = [], 0.0, 0
            with torch.no_grad():
                for idx, xb, yb in dl:
                    seen.append(idx)
                    total += loss_func(model(xb), yb, reduction="sum").item()
                    count += len(xb)
            seen = torch.cat(seen)
            orders.append(seen.tolist())
            run.record("shuffled sizes", [len(dl), count, seen.dtype == torch.int64])
            if not drop_last:
                run.record("shuffled", [sorted(seen.tolist()), total / count])
        run.record("epochs differ", orders[0] != orders[1])
        again = DataLoader(indexed, batch_size=bs, shuffle=True, drop_last=drop_last,
                           generator=torch.Generator().manual_seed(0))  # fmt: skip
        run.record("seeded order repeats", torch.cat([b[0] for b in again]).tolist() == orders[0])


# ------------------------------------------------------------------ "Learning PyTorch with examples"
@program()
def learning_pytorch_polynomial_manual_autograd_function_nn_rmsprop_dynamic(torch: Any, run: Run):
    nn = torch.nn
    x = torch.linspace(-math.pi, math.pi, 200, dtype=torch.float64)
    y = torch.sin(x)
    rng = np.random.default_rng(32)
    start = rng.standard_normal(4)

    # tensors and gradients written by hand
    a, b, c, d = (torch.tensor(v) for v in start)
    learning_rate = 1e-6
    for _ in range(6):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        grad_a = grad_y_pred.sum()
        grad_b = (grad_y_pred * x).sum()
        grad_c = (grad_y_pred * x**2).sum()
        grad_d = (grad_y_pred * x**3).sum()
        a -= learning_rate * grad_a
        b -= learning_rate * grad_b
        c -= learning_rate * grad_c
        d -= learning_rate * grad_d
        run.record("manual", loss)
    run.record("manual coefficients", [a, b, c, d])

    # the same with autograd
    a, b, c, d = (torch.tensor(v, requires_grad=True) for v in start)
    for _ in range(6):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
        run.record("autograd", loss.item())
    run.record("autograd coefficients", [a, b, c, d])

    class P3(torch.autograd.Function):
        """The Legendre polynomial P3(x) = (5 x^3 - 3 x) / 2; P3'(x) = (15 x^2 - 3) / 2."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (5 * x.pow(3) - 3 * x) / 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * (15 * x.pow(2) - 3) / 2 if ctx.needs_input_grad[0] else None

    a, b, c, d = (torch.full((), v, dtype=torch.float64, requires_grad=True)
                  for v in (0.0, -1.0, 0.0, 0.3))  # fmt: skip
    for _ in range(6):
        y_pred = a + b * P3.apply(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= 5e-6 * p.grad
                p.grad.zero_()
        run.record("legendre", loss.item())
    run.record("legendre coefficients", [a, b, c, d])

    # nn + optim.RMSprop on the powers of x
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    run.record("xx dtype", str(xx.dtype).split(".")[-1])
    model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1)).double()
    run.start("poly", model)
    loss_fn = nn.MSELoss(reduction="sum")
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for _ in range(8):
        loss = loss_fn(model(xx), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        run.record("rmsprop", loss.item())
    linear_layer = model[0]
    run.record("fit", [linear_layer.bias.item()] + linear_layer.weight[0].tolist())
    run.finish("poly", model)
    record_optimizer(run, "rmsprop state", optimizer)

    class DynamicNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c, self.d, self.e = (nn.Parameter(torch.randn(()))
                                                      for _ in range(5))  # fmt: skip

        def forward(self, x, extra):
            y = self.a + self.b * x + self.c * x**2 + self.d * x**3
            for exp in range(4, 4 + extra):  # a depth chosen per step: a new graph each time
                y = y + self.e * x**exp
            return y

    dynamic = run.start("dynamic", DynamicNet().double())
    optimizer = torch.optim.SGD(dynamic.parameters(), lr=1e-8, momentum=0.9)
    for extra in (0, 2, 1, 0, 2, 1):
        loss = (dynamic(x, extra) - y).pow(2).sum()
        optimizer.zero_grad()
        loss.backward()
        run.record("dynamic", [loss.item(), None if dynamic.e.grad is None else dynamic.e.grad])
        optimizer.step()
    run.finish("dynamic", dynamic)


# ------------------------------------------------------------------ vision, text, attention
@program()
def unet_stride2_conv_transpose_bilinear_skips_groupnorm_silu_onecycle(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional

    def block(c_in, c_out, stride=1):
        return nn.Sequential(
            nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False),
            nn.GroupNorm(2, c_out, eps=1e-5), nn.SiLU(inplace=True),
        )  # fmt: skip

    class UNet(nn.Module):
        def __init__(self, c=4):
            super().__init__()
            self.inc = block(2, c)
            self.down1 = block(c, 2 * c, stride=2)  # 8x8 -> 4x4
            self.down2 = block(2 * c, 2 * c, stride=2)  # 4x4 -> 2x2
            self.up1 = nn.ConvTranspose2d(2 * c, 2 * c, kernel_size=2, stride=2)
            self.dec1 = block(4 * c, 2 * c)
            self.up2 = nn.ConvTranspose2d(2 * c, c, 3, stride=2, padding=1, output_padding=1)
            self.dec2 = block(2 * c, c)
            self.outc = nn.Conv2d(c, 1, kernel_size=1)

        def forward(self, x):
            x1 = self.inc(x)
            x2 = self.down1(x1)
            x3 = self.down2(x2)
            u = self.dec1(torch.cat([self.up1(x3), x2], dim=1))  # skip concatenation
            u = self.dec2(torch.cat([self.up2(u), x1], dim=1))
            # two refinements by resizing: down and up again, with both corner conventions
            small = F.interpolate(u, scale_factor=0.5, mode="bilinear", align_corners=False)
            u = u + F.interpolate(small, size=u.shape[-2:], mode="bilinear", align_corners=True)
            return self.outc(u)

    model = run.start("model", UNet().double())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=1e-2, total_steps=6, pct_start=0.4, anneal_strategy="linear",
        three_phase=True, div_factor=10.0, final_div_factor=100.0,
    )  # fmt: skip
    for x, y in zip(batches(33, 5, 2, 2, 8, 8), batches(34, 5, 2, 1, 8, 8)):
        target = (torch.tensor(y) > 0).to(torch.float64)
        logits = model(torch.tensor(x))
        loss = F.binary_cross_entropy_with_logits(logits, target, pos_weight=torch.tensor([2.0]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run.record("loss", loss.item())
        run.record("lr", sched.get_last_lr())
        run.record("betas", opt.param_groups[0]["betas"])
    with torch.no_grad():
        x = torch.tensor(batches(35, 1, 1, 2, 8, 8)[0])
        run.record("interpolate", [
            F.interpolate(x, size=(5, 11), mode="bilinear", align_corners=True),
            F.interpolate(x, size=(5, 11), mode="bilinear", align_corners=False),
            F.interpolate(x, scale_factor=1.5, mode="bilinear"),
            F.interpolate(x, scale_factor=(0.5, 2), mode="nearest"),
            F.interpolate(x, scale_factor=0.7, mode="bilinear", recompute_scale_factor=True),
        ])  # fmt: skip
    run.finish("model", model)
    record_optimizer(run, "optimizer", opt)
    run.record("scheduler", to_plain(sched.state_dict()))


@program()
def text_classifier_embedding_bag_offsets_mean_sum_weights_adagrad(torch: Any, run: Run):
    nn = torch.nn

    class TextClassificationModel(nn.Module):
        def __init__(self, vocab_size, embed_dim, num_class):
            super().__init__()
            self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, mode="mean")
            self.weighted = nn.EmbeddingBag(vocab_size, embed_dim, mode="sum", padding_idx=0)
            self.fc = nn.Linear(2 * embed_dim, num_class)
            self.init_weights()

        def init_weights(self):
            initrange = 0.5
            self.embedding.weight.data.uniform_(-initrange, initrange)
            self.fc.weight.data.uniform_(-initrange, initrange)
            self.fc.bias.data.zero_()

        def forward(self, text, offsets, weights):
            mean = self.embedding(text, offsets)
            summed = self.weighted(text, offsets, per_sample_weights=weights)
            return self.fc(torch.cat([mean, summed], dim=1))

    model = run.start("model", TextClassificationModel(12, 5, 3).double())
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.5, lr_decay=0.01,
                                    weight_decay=1e-3, initial_accumulator_value=0.1)  # fmt: skip
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.5)
    rng = np.random.default_rng(36)

    def collate_batch(lengths):
        """Token lists of the given lengths flattened into one tensor, with their offsets."""
        texts = [rng.integers(0, 12, n) for n in lengths]
        offsets = np.cumsum([0] + [len(t) for t in texts[:-1]])
        return torch.tensor(np.concatenate(texts)), torch.tensor(offsets)

    for lengths in ([3, 1, 4, 2], [2, 2, 5], [1, 6, 2, 3, 1]):
        text, offsets = collate_batch(lengths)
        label = torch.tensor(rng.integers(0, 3, len(lengths)))
        weights = torch.tensor(rng.random(text.shape[0]))
        optimizer.zero_grad()
        predicted_label = model(text, offsets, weights)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        scheduler.step()
        run.record("loss", loss.item())
        run.record("accuracy", (predicted_label.argmax(1) == label).sum().item())
    with torch.no_grad():  # the other input forms: 2-D bags, include_last_offset, an empty bag
        bags = torch.tensor(rng.integers(0, 12, (3, 4)))
        run.record("2-D bags", [model.embedding(bags), model.weighted(bags)])
        text, offsets = collate_batch([2, 3])
        last = torch.cat([offsets, torch.tensor([text.shape[0]])])
        with_empty = torch.tensor([0, 2, 2])
        for mode in ("sum", "mean"):
            bag = nn.EmbeddingBag.from_pretrained(model.embedding.weight, mode=mode,
                                                  include_last_offset=True)  # fmt: skip
            run.record(f"include_last_offset {mode}", bag(text, last))
            run.record(f"empty bag {mode}", nn.functional.embedding_bag(
                text, model.embedding.weight, with_empty, mode=mode))  # fmt: skip
    run.finish("model", model)
    record_optimizer(run, "optimizer", optimizer)


def train_by_mse(torch: Any, run: Run, name: str, model: Any, make: Callable, data: list,
                 resume_at: int | None = None, sign: float = 1.0) -> None:  # fmt: skip
    """Train ``model`` on the (x, y) batches with the optimizer ``make(params)``, minimizing
    the MSE (maximizing -MSE for ``sign`` -1), recording every loss, the end state and the
    optimizer's. At step ``resume_at`` the optimizer goes through torch.save and torch.load
    into a fresh one."""
    nn = torch.nn
    run.start(name, model)
    opt = make(model.parameters())
    for step, (x, y) in enumerate(data):
        if step == resume_at:
            buffer = io.BytesIO()
            torch.save(opt.state_dict(), buffer)
            buffer.seek(0)
            opt = make(model.parameters())
            opt.load_state_dict(torch.load(buffer, weights_only=True))
        loss = sign * nn.functional.mse_loss(model(torch.tensor(x)), torch.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record(f"{name} loss", loss.item())
    run.finish(name, model)
    record_optimizer(run, f"{name} optimizer", opt)


def conv1d_net(nn: Any) -> Any:
    return nn.Sequential(
        nn.Conv1d(3, 6, kernel_size=3, padding="same", dilation=2),
        nn.ReLU(),
        nn.Conv1d(6, 6, kernel_size=4, padding="same", dilation=1, padding_mode="circular"),
        nn.Tanh(),
        nn.Conv1d(6, 4, kernel_size=3, stride=2, padding=2, dilation=3, groups=2),
        nn.AdaptiveAvgPool1d(1),
        nn.Flatten(),
        nn.Linear(4, 2),
    ).double()


@program()
def conv1d_dilated_same_padding_adamax_nadam_radam(torch: Any, run: Run) -> None:
    nn = torch.nn
    optimizers = {
        "adamax": lambda p: torch.optim.Adamax(p, lr=2e-2, weight_decay=1e-2),
        "nadam": lambda p: torch.optim.NAdam(
            p, lr=1e-2, momentum_decay=3e-3, weight_decay=1e-2
        ),  # fmt: skip
        "nadam decoupled": lambda p: torch.optim.NAdam(
            p, lr=1e-2, weight_decay=1e-1, decoupled_weight_decay=True
        ),  # fmt: skip
        "radam": lambda p: torch.optim.RAdam(p, lr=1e-2, weight_decay=1e-2),
        "radam decoupled": lambda p: torch.optim.RAdam(
            p, lr=1e-2, betas=(0.8, 0.9), weight_decay=1e-1, decoupled_weight_decay=True
        ),  # fmt: skip
    }
    # RAdam's rectification starts after 5 steps (rho_t > 5): run past it
    data = list(zip(batches(37, 8, 3, 3, 11), batches(38, 8, 3, 2)))
    for name, make in optimizers.items():
        train_by_mse(torch, run, name, conv1d_net(nn), make, data)


@program(atol=1e-9)  # key biases: exactly zero gradients up to rounding (see the first file)
def multihead_attention_masks_batch_first_weights_layernorm_gelu_tanh(torch: Any, run: Run):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, d=8, heads=2, batch_first=True):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d, elementwise_affine=False)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=batch_first)
            self.cross = nn.MultiheadAttention(
                d, heads, kdim=5, vdim=3, bias=False, add_bias_kv=True, batch_first=batch_first
            )
            self.mlp = nn.Sequential(nn.Linear(d, 16), nn.GELU(approximate="tanh"),
                                     nn.Linear(16, d))  # fmt: skip
            self.batch_first = batch_first

        def forward(self, x, keys, values, pad, mask, average):
            h = self.ln1(x)
            a, w = self.attn(h, h, h, key_padding_mask=pad, attn_mask=mask,
                             need_weights=True, average_attn_weights=average)  # fmt: skip
            x = x + a
            c, _ = self.cross(x, keys, values, need_weights=False)
            x = x + c
            return x + self.mlp(self.ln2(x)), w

    rng = np.random.default_rng(39)
    causal = torch.tensor(np.triu(np.ones((5, 5), bool), 1))  # True: not allowed
    additive = torch.tensor(np.triu(np.full((5, 5), -1e9), 1) + 0.1 * rng.standard_normal((5, 5)))
    for batch_first in (True, False):
        model = run.start(f"block {batch_first}", Block(batch_first=batch_first).double())
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        for step, mask in enumerate((causal, additive, None)):
            x = torch.tensor(rng.standard_normal((3, 5, 8)))
            keys = torch.tensor(rng.standard_normal((3, 4, 5)))
            values = torch.tensor(rng.standard_normal((3, 4, 3)))
            pad = torch.tensor(np.arange(5)[None, :] >= np.array([5, 3, 4])[:, None])
            if not batch_first:
                x, keys, values = (t.transpose(0, 1) for t in (x, keys, values))
            out, w = model(x, keys, values, pad, mask, average=step != 1)
            if not batch_first:
                out = out.transpose(0, 1)
            loss = out.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            run.record(f"loss {batch_first}", loss.item())
            run.record(f"weights {batch_first}", w)
        run.finish(f"block {batch_first}", model)
    with torch.no_grad():  # the packed in-projection, and heads that see only zeros
        mha = nn.MultiheadAttention(8, 4, add_zero_attn=True, dropout=0.0).double()
        run.start("zero attn", mha)
        q = torch.tensor(rng.standard_normal((5, 2, 8)))
        kv = torch.tensor(rng.standard_normal((6, 2, 8)))
        out, w = mha(
            q, kv, kv, key_padding_mask=torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
        )
        run.record("zero attn", [out, w])
        run.finish("zero attn", mha)


# ------------------------------------------------------------------ distributions
@program()
def policy_gradient_categorical_and_normal_policies_fixed_actions(torch: Any, run: Run):
    nn, D = torch.nn, torch.distributions
    rng = np.random.default_rng(40)

    class Policy(nn.Module):
        def __init__(self, obs=4, actions=3):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(obs, 8), nn.Tanh())
            self.logits = nn.Linear(8, actions)
            self.value = nn.Linear(8, 1)

        def forward(self, obs):
            h = self.body(obs)
            return D.Categorical(logits=self.logits(h)), self.value(h).squeeze(-1)

    policy = run.start("policy", Policy().double())
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    gamma = 0.9
    for _ in range(4):  # one episode per step: observations, actions and rewards fixed
        obs = torch.tensor(rng.standard_normal((6, 4)))
        actions = torch.tensor(rng.integers(0, 3, 6))
        rewards = rng.standard_normal(6)
        returns, g = [], 0.0
        for r in rewards[::-1]:  # discounted returns, computed backwards
            g = r + gamma * g
            returns.insert(0, g)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        dist, value = policy(obs)
        log_prob = dist.log_prob(actions)
        advantage = returns - value.detach()
        loss = (-(log_prob * advantage).mean() + 0.5 * nn.functional.smooth_l1_loss(value, returns)
                - 0.01 * dist.entropy().mean())  # fmt: skip
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", loss.item())
        run.record("probs", [dist.probs, dist.logits, dist.entropy(), log_prob])
        sample = dist.sample()
        run.record("sample", [tuple(sample.shape), str(sample.dtype).split(".")[-1]])
    run.finish("policy", policy)

    class GaussianPolicy(nn.Module):
        def __init__(self):
            super().__init__()
            self.mu = nn.Linear(4, 2)
            self.log_std = nn.Parameter(torch.full((2,), -0.5))

        def forward(self, obs):
            return D.Normal(self.mu(obs), self.log_std.exp())

    gaussian = run.start("gaussian", GaussianPolicy().double())
    opt = torch.optim.SGD(gaussian.parameters(), lr=0.05)
    for _ in range(3):
        obs = torch.tensor(rng.standard_normal((5, 4)))
        dist = gaussian(obs)
        noise = torch.tensor(rng.standard_normal((5, 2)))
        action = dist.loc + dist.scale * noise  # rsample with the noise fixed
        q = -(action - 0.5).pow(2).sum(-1)  # a fixed critic: reparameterized gradient
        fixed = torch.tensor(rng.standard_normal((5, 2)))
        loss = -q.mean() - 0.1 * dist.log_prob(fixed).sum(-1).mean() - 1e-2 * dist.entropy().sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("gaussian loss", loss.item())
        run.record("gaussian", [dist.cdf(fixed), dist.icdf(torch.tensor(0.3)), dist.variance])
    run.finish("gaussian", gaussian)
    # rsample itself: its own noise, so compare what does not depend on it
    dist = gaussian(obs)
    drawn = dist.rsample((7,))
    drawn.sum().backward()
    run.record("rsample", [tuple(drawn.shape), drawn.requires_grad])
    run.record("rsample d/d mu bias", gaussian.mu.bias.grad)  # 7 draws x 5 rows
    gaussian.zero_grad()


@program()
def normalizing_flow_transformed_distribution_affine_sigmoid_log_prob(torch: Any, run: Run):
    nn, D = torch.nn, torch.distributions
    T = D.transforms
    rng = np.random.default_rng(41)
    data = torch.tensor(1 / (1 + np.exp(-(rng.standard_normal((32, 2)) * [0.5, 1.5] + [1, -1]))))

    class Coupling(nn.Module):
        """RealNVP: one coordinate is shifted and scaled by a function of the other."""

        def __init__(self, flip):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 2))
            self.flip = flip

        def forward(self, z):
            a, b = (z[:, 1:], z[:, :1]) if self.flip else (z[:, :1], z[:, 1:])
            log_s, t = self.net(a).chunk(2, dim=1)
            log_s = torch.tanh(log_s)
            b = (b - t) * torch.exp(-log_s)  # the inverse: data -> base
            out = torch.cat([b, a], 1) if self.flip else torch.cat([a, b], 1)
            return out, -log_s.sum(1)

    class Flow(nn.Module):
        def __init__(self):
            super().__init__()
            self.loc = nn.Parameter(torch.zeros(2))
            self.log_scale = nn.Parameter(torch.zeros(2))
            self.couplings = nn.ModuleList([Coupling(False), Coupling(True)])

        def dist(self):
            base = D.Independent(D.Normal(torch.zeros(2, dtype=torch.float64),
                                          torch.ones(2, dtype=torch.float64)), 1)  # fmt: skip
            transforms = [T.AffineTransform(self.loc, self.log_scale.exp()), T.SigmoidTransform()]
            return D.TransformedDistribution(base, transforms)

        def log_prob(self, x):
            z, total = x, 0.0
            sigmoid = T.SigmoidTransform()
            u = sigmoid.inv(z)
            total = -sigmoid.log_abs_det_jacobian(u, z).sum(1)
            for layer in self.couplings:
                u, log_det = layer(u)
                total = total + log_det
            return self.dist().log_prob(sigmoid(u)) + total

    flow = run.start("flow", Flow().double())
    opt = torch.optim.Adam(flow.parameters(), lr=2e-2)
    for i in range(5):
        batch = data[i * 6 : i * 6 + 6]
        loss = -flow.dist().log_prob(batch).mean() - 0.5 * flow.log_prob(batch).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("nll", loss.item())
    with torch.no_grad():
        dist = flow.dist()
        run.record("event", [tuple(dist.batch_shape), tuple(dist.event_shape)])
        run.record("support", dist.support.check(data).all().item())
        run.record("log_prob", [dist.log_prob(data[:4]), flow.log_prob(data[:4])])
        affine = T.AffineTransform(flow.loc, flow.log_scale.exp(), event_dim=1)
        u = torch.tensor(rng.standard_normal((3, 2)))
        run.record(
            "affine", [affine(u), affine.inv(affine(u)), affine.log_abs_det_jacobian(u, affine(u))]
        )
        composed = T.ComposeTransform([affine, T.SigmoidTransform()])
        run.record("composed", [composed(u), composed.inv(composed(u))])
    run.finish("flow", flow)


# ------------------------------------------------------------------ normalization, parametrizations
@program()
def instance_batch_norm_running_stats_momentum_none_train_eval(torch: Any, run: Run) -> None:
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.inorm = nn.InstanceNorm1d(3, affine=True, track_running_stats=True, momentum=0.3)
            self.conv = nn.Conv1d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm1d(4, momentum=None)  # a cumulative average of the batches
            self.inorm2 = nn.InstanceNorm2d(2)  # no affine, no running stats
            self.bn2 = nn.BatchNorm2d(2, affine=False, eps=1e-3)
            self.fc = nn.Linear(4 + 2, 2)

        def forward(self, x, img):
            h = self.bn(self.conv(self.inorm(x))).relu().mean(-1)
            g = self.bn2(self.inorm2(img)).mean((-2, -1))
            return self.fc(torch.cat([h, g], 1))

    model = run.start("model", Net().double())
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, dampening=0.1)
    inputs = zip(batches(42, 4, 5, 3, 6), batches(43, 4, 5, 2, 4, 4), batches(44, 4, 5, 2))
    for step, (x, img, y) in enumerate(inputs):
        model.train()
        loss = nn.functional.mse_loss(model(torch.tensor(x), torch.tensor(img)), torch.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", loss.item())
        run.record("running", [model.bn.running_mean, model.bn.running_var,
                               model.bn.num_batches_tracked, model.inorm.running_var])  # fmt: skip
        model.eval()
        with torch.no_grad():
            run.record("eval", model(torch.tensor(x[:2]), torch.tensor(img[:2])))
        if step == 1:  # reset_running_stats restarts the cumulative average
            model.bn.reset_running_stats()
    with torch.no_grad():  # an unbatched InstanceNorm1d input (C, L), in eval: running stats
        run.record("unbatched", model.inorm(torch.tensor(batches(45, 1, 3, 6)[0])))
    run.finish("model", model)


@program()
def weight_norm_spectral_norm_orthogonal_parametrizations(torch: Any, run: Run) -> None:
    nn = torch.nn
    P, parametrize = nn.utils.parametrizations, nn.utils.parametrize

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.utils.weight_norm(nn.Linear(4, 6), name="weight", dim=0)
            self.b = P.weight_norm(nn.Conv1d(6, 6, 3, padding=1), dim=1)
            self.c = P.spectral_norm(nn.Linear(6, 6), n_power_iterations=2)
            self.d = P.orthogonal(nn.Linear(6, 6, bias=False))
            self.e = nn.Linear(6, 6)
            parametrize.register_parametrization(self.e, "weight", Symmetric())
            self.f = nn.utils.spectral_norm(nn.Linear(6, 3))

        def forward(self, x):
            h = torch.tanh(self.a(x))
            h = self.b(h.unsqueeze(-1).expand(-1, -1, 4)).mean(-1)
            h = torch.tanh(self.c(h))
            h = self.e(self.d(h))
            return self.f(h)

    model = run.start("model", Net().double())
    run.record("keys", list(model.state_dict()))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for x, y in zip(batches(46, 4, 5, 4), batches(47, 4, 5, 3)):
        model.train()
        loss = nn.functional.mse_loss(model(torch.tensor(x)), torch.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", loss.item())
        with torch.no_grad():
            w = model.d.weight
            run.record(
                "orthogonal", (w @ w.T - torch.eye(6, dtype=w.dtype)).abs().max().item() < 1e-12
            )
            run.record("symmetric", torch.equal(model.e.weight, model.e.weight.T))
            sigma = torch.linalg.matrix_norm(model.c.weight, ord=2)
            run.record("sigma", sigma)
    model.eval()
    with torch.no_grad():
        run.record("eval", model(torch.tensor(batches(48, 1, 2, 4)[0])))
    run.record(
        "cached", [parametrize.is_parametrized(model.c), parametrize.is_parametrized(model.a)]
    )
    with parametrize.cached():
        run.record("cached eval", model(torch.tensor(batches(48, 1, 2, 4)[0])))
    parametrize.remove_parametrizations(model.e, "weight", leave_parametrized=True)
    nn.utils.remove_weight_norm(model.a)
    run.record("keys after removal", list(model.state_dict()))
    run.finish("model", model)


# ------------------------------------------------------------------ optimizers and schedules
def small_model(nn: Any) -> Any:
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).double()


@program()
def optimizers_adadelta_asgd_rprop_sgd_dampening_adamw_amsgrad_state_resume(torch: Any, run: Run):
    nn = torch.nn
    optimizers = {
        "adadelta": lambda p: torch.optim.Adadelta(p, lr=0.5, rho=0.8, weight_decay=1e-2),
        "asgd": lambda p: torch.optim.ASGD(
            p, lr=0.05, lambd=1e-3, alpha=0.75, t0=3, weight_decay=1e-3
        ),  # fmt: skip
        "rprop": lambda p: torch.optim.Rprop(p, lr=0.02, etas=(0.4, 1.3), step_sizes=(1e-4, 0.1)),
        "sgd": lambda p: torch.optim.SGD(
            p, lr=0.1, momentum=0.8, dampening=0.3, weight_decay=1e-2
        ),  # fmt: skip
        "sgd maximize": lambda p: torch.optim.SGD(
            p, lr=0.1, momentum=0.5, nesterov=True, maximize=True
        ),  # fmt: skip
        "adamw amsgrad": lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.1, amsgrad=True),
    }
    data = list(zip(batches(49, 6, 4, 3), batches(50, 6, 4, 2)))
    for name, make in optimizers.items():
        sign = -1.0 if name == "sgd maximize" else 1.0
        train_by_mse(torch, run, name, small_model(nn), make, data, resume_at=3, sign=sign)


def lbfgs_fit(torch: Any, run: Run, line_search: str | None, x: Any, y: Any) -> None:
    """Three LBFGS steps of an L2-regularized logistic regression, with every closure call's loss."""
    nn = torch.nn
    model = run.start(f"lbfgs {line_search}", nn.Linear(4, 1).double())
    opt = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=5, history_size=3,
                            line_search_fn=line_search)  # fmt: skip
    calls = []

    def closure():
        opt.zero_grad()
        logits = model(x).squeeze(-1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y)
        loss = loss + 1e-2 * model.weight.pow(2).sum()
        loss.backward()
        calls.append(loss.item())
        return loss

    for _ in range(3):
        run.record(f"{line_search} step", opt.step(closure).item())
    run.record(f"{line_search} calls", calls)
    state = opt.state[next(iter(model.parameters()))]
    run.record(f"{line_search} counts", [state["func_evals"], state["n_iter"]])
    run.finish(f"lbfgs {line_search}", model)


@program()
def lbfgs_strong_wolfe_logistic_regression(torch: Any, run: Run) -> None:
    rng = np.random.default_rng(51)
    x = torch.tensor(rng.standard_normal((30, 4)))
    y = torch.tensor((rng.random(30) > 0.5).astype("float64"))
    for line_search in ("strong_wolfe", None):
        lbfgs_fit(torch, run, line_search, x, y)


@program()
def schedulers_cyclic_lambda_multiplicative_sequential_chained_polynomial_resume(torch, run):
    nn, S = torch.nn, torch.optim.lr_scheduler
    schedules = {
        "warm restarts": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=1e-3),
        "cyclic triangular2": lambda o: S.CyclicLR(
            o, 1e-3, 0.1, step_size_up=2, step_size_down=3, mode="triangular2"
        ),  # fmt: skip
        "cyclic exp_range": lambda o: S.CyclicLR(
            o,
            1e-3,
            0.1,
            step_size_up=2,
            mode="exp_range",
            gamma=0.9,
            base_momentum=0.7,
            max_momentum=0.95,
        ),  # fmt: skip
        "lambda": lambda o: S.LambdaLR(o, lambda epoch: 0.9**epoch / (1 + epoch % 2)),
        "multiplicative": lambda o: S.MultiplicativeLR(o, lambda epoch: 0.8 if epoch < 4 else 1.1),
        "sequential": lambda o: S.SequentialLR(
            o,
            [S.LinearLR(o, start_factor=0.1, total_iters=3), S.ExponentialLR(o, gamma=0.8)],
            milestones=[3],
        ),  # fmt: skip
        "chained": lambda o: S.ChainedScheduler(
            [
                S.LinearLR(o, start_factor=0.5, end_factor=1.0, total_iters=4),
                S.ExponentialLR(o, gamma=0.9),
            ]
        ),  # fmt: skip
        "polynomial": lambda o: S.PolynomialLR(o, total_iters=5, power=2.0),
        "linear then exponential": lambda o: S.SequentialLR(
            o, [S.LinearLR(o, 1.0, 0.25, total_iters=2), S.ExponentialLR(o, 0.5)], [2]
        ),
    }
    data = list(zip(batches(52, 8, 4, 3), batches(53, 8, 4, 2)))
    for name, make in schedules.items():
        model = run.start(name, small_model(nn))
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = make(opt)
        for step, (x, y) in enumerate(data):
            if step == 4:  # resume: fresh optimizer and scheduler from their state dicts
                saved_opt, saved_sched = opt.state_dict(), sched.state_dict()
                opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
                sched = make(opt)
                opt.load_state_dict(saved_opt)
                sched.load_state_dict(saved_sched)
            loss = nn.functional.mse_loss(model(torch.tensor(x)), torch.tensor(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            run.record(f"{name} loss", loss.item())
            run.record(f"{name} lr", [sched.get_last_lr(), opt.param_groups[0]["lr"],
                                      opt.param_groups[0]["momentum"]])  # fmt: skip
        run.finish(name, model)
        run.record(f"{name} last_epoch", getattr(sched, "last_epoch", None))


# ------------------------------------------------------------------ torch.func, hooks, autocast
@program()
def torch_func_functional_call_grad_vmap_per_sample_and_jacobian(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    from_func = torch.func
    model = run.start("model", nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double())
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    x = torch.tensor(batches(54, 1, 5, 3)[0])
    y = torch.tensor(labels(55, 1, 2, 5)[0])

    def loss_of(params, buffers, sample, target):
        batch, targets = sample.unsqueeze(0), target.unsqueeze(0)
        predictions = from_func.functional_call(model, (params, buffers), (batch,))
        return F.cross_entropy(predictions, targets)

    # per-sample gradients: grad of the one-sample loss, vmapped over the batch
    per_sample = from_func.vmap(from_func.grad(loss_of), in_dims=(None, None, 0, 0))
    grads = per_sample(params, buffers, x, y)
    run.record("per-sample", grads)
    for name, p in model.named_parameters():  # each one's loop-over-samples gradient
        rows = []
        for i in range(5):
            model.zero_grad()
            F.cross_entropy(model(x[i : i + 1]), y[i : i + 1]).backward()
            rows.append(p.grad.clone())
        run.record("loop", [torch.allclose(torch.stack(rows), grads[name], atol=1e-12)])
    value, g = from_func.grad_and_value(lambda p: loss_of(p, buffers, x[0], y[0]))(params)
    run.record("grad_and_value", [value, g])
    with_aux = from_func.grad(lambda p: (loss_of(p, buffers, x[1], y[1]), {"n": p["0.bias"].sum()}),
                              has_aux=True)  # fmt: skip
    run.record("has_aux", with_aux(params))
    # a swapped-in parameter set leaves the module's own alone
    doubled = {k: 2 * v for k, v in params.items()}
    run.record("functional_call", [from_func.functional_call(model, doubled, (x,)), model(x)])
    # torch.autograd.functional on a small function of the model's first layer
    jacobian = torch.autograd.functional.jacobian

    def layer(inp):
        return torch.tanh(model[0](inp))

    run.record("jacobian", jacobian(layer, x[0]))
    run.record("jacobian of two", jacobian(lambda a, b: (a * b).sum(-1) + a.pow(2), (x[0], x[1])))
    jac = from_func.jacrev(lambda inp: model(inp).sum(0))(x)
    run.record("jacrev", jac)
    run.record("vmap", from_func.vmap(lambda row: row.dot(row) + row.sum(), in_dims=0)(x))
    model.zero_grad()
    run.finish("model", model)


@program()
def model_ensembling_stack_module_state_vmap_adam(torch: Any, run: Run) -> None:
    nn, F, func = torch.nn, torch.nn.functional, torch.func
    models = [run.start(f"model {i}", nn.Sequential(nn.Linear(3, 6), nn.GELU(), nn.Linear(6, 2)))
              for i in range(3)]  # fmt: skip
    models = [m.double() for m in models]
    params, buffers = func.stack_module_state(models)
    base = models[0]

    def predict(p, b, x):
        return func.functional_call(base, (p, b), (x,))

    opt = torch.optim.Adam(params.values(), lr=1e-2)
    for x, y in zip(batches(65, 3, 5, 3), labels(66, 3, 2, 5)):
        logits = func.vmap(predict, in_dims=(0, 0, None))(params, buffers, torch.tensor(x))
        losses = torch.stack([F.cross_entropy(out, torch.tensor(y)) for out in logits])
        opt.zero_grad()
        losses.sum().backward()
        opt.step()
        run.record("losses", losses)
        run.record("ensemble prediction", logits.mean(0).argmax(-1))
    run.record("stacked", params)
    run.record("stacked grads", {k: v.grad for k, v in params.items()})
    record_optimizer(run, "optimizer", opt)


@program()
def hooks_grad_cam_forward_pre_kwargs_full_backward_register_hook_retain_grad(torch, run):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(),
                                          nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())  # fmt: skip
            self.head = nn.Linear(4, 3)

        def forward(self, x, scale=1.0):
            a = self.features(x)
            return self.head(a.mean((-2, -1)) * scale)

    model = run.start("model", Net().double())
    activations, gradients, calls = {}, {}, []
    target = model.features[2]

    def save_activation(module, args, output):
        activations["value"] = output.detach()

    def save_gradient(module, grad_input, grad_output):
        gradients["value"] = grad_output[0].detach()
        calls.append(["backward", len(grad_input), grad_input[0] is None])

    def pre_with_kwargs(module, args, kwargs):
        calls.append(["pre", sorted(kwargs)])
        return args, {**kwargs, "scale": kwargs.get("scale", 1.0) * 2}

    def after_with_kwargs(module, args, kwargs, output):
        calls.append(["forward", sorted(kwargs), tuple(output.shape)])
        return output + 0.5

    handles = [
        target.register_forward_hook(save_activation),
        target.register_full_backward_hook(save_gradient),
        model.register_forward_pre_hook(pre_with_kwargs, with_kwargs=True),
        model.register_forward_hook(after_with_kwargs, with_kwargs=True),
        model.features[0].register_forward_pre_hook(lambda m, args: (args[0] * 0.5,)),
    ]
    x = torch.tensor(batches(56, 1, 2, 2, 5, 5)[0], requires_grad=True)
    logits = model(x, scale=3.0)
    score = logits[torch.arange(2), logits.argmax(1)].sum()
    model.zero_grad()
    score.backward()
    # Grad-CAM: channel weights are the mean gradients; the map is relu of the weighted sum
    weights = gradients["value"].mean(dim=(2, 3), keepdim=True)
    cam = F.relu((weights * activations["value"]).sum(1))
    cam = cam / cam.flatten(1).max(1).values.view(-1, 1, 1).clamp_min(1e-12)
    run.record("cam", [logits, cam, x.grad])
    run.record("calls", calls)
    for h in handles:
        h.remove()

    # Tensor hooks: one that modifies the gradient, retain_grad on an intermediate
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in zip(batches(57, 3, 3, 2, 5, 5), labels(58, 3, 3, 3)):
        h = model.features(torch.tensor(xb))
        h.retain_grad()
        pooled = h.mean((-2, -1))
        handle = pooled.register_hook(lambda g: g.clamp(-0.05, 0.05))  # clip this gradient
        seen = []
        observer = model.head.weight.register_hook(lambda g, seen=seen: seen.append(g.norm()))
        loss = F.cross_entropy(model.head(pooled), torch.tensor(yb))
        opt.zero_grad()
        loss.backward()
        opt.step()
        handle.remove()
        observer.remove()
        run.record("loss", loss.item())
        run.record("intermediate", [h.grad, pooled.grad is None, seen])
    run.finish("model", model)


@program(rtol=1e-5, atol=1e-6)
def autocast_cpu_and_grad_scaler_disabled_as_gpu_scripts_carry_them(torch: Any, run: Run):
    nn = torch.nn
    model = run.start("model", nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", enabled=False)  # the GPU script's lines, turned off
    run.record("scaler", [scaler.is_enabled(), scaler.get_scale(), scaler.state_dict()])
    for x, y in zip(batches(59, 4, 6, 4, dtype="float32"), labels(60, 4, 2, 6)):
        with torch.autocast(device_type="cpu", dtype=torch.float16, enabled=False):
            out = model(torch.tensor(x))
            loss = nn.functional.cross_entropy(out, torch.tensor(y))
        run.record("dtypes", [str(out.dtype).split(".")[-1], torch.is_autocast_enabled("cpu")])
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        run.record("loss", loss.item())
    # autocast on: float16 matmuls on the CPU, in both
    with torch.autocast("cpu", dtype=torch.float16):
        inside = model(torch.tensor(batches(61, 1, 3, 4, dtype="float32")[0]))
        kept = torch.tensor(batches(62, 1, 3, dtype="float32")[0]).exp()  # not autocast
        run.record("autocast", [str(inside.dtype).split(".")[-1], str(kept.dtype).split(".")[-1],
                                torch.is_autocast_enabled("cpu")])  # fmt: skip
    run.record("autocast value", inside.float())
    run.finish("model", model)


# float16 results agree to about an ulp (1e-3): both libraries compute them in float32 and
# round once, but their float32 steps differ in the last bits
@program(rtol=4e-3, atol=4e-3)
def autocast_cpu_float16_conv_groupnorm_silu_interpolate_attention(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 8, 3, padding=1)
            self.norm = nn.GroupNorm(2, 8)
            self.qkv = nn.Linear(8, 24)
            self.ln = nn.LayerNorm(8)
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            h = F.silu(self.norm(self.conv(x)))
            h = F.interpolate(h, scale_factor=0.5, mode="bilinear", align_corners=False)
            tokens = h.flatten(2).transpose(1, 2)  # (N, 16 tokens, 8)
            q, k, v = self.qkv(tokens).chunk(3, dim=-1)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            pooled = F.gelu(self.ln(a + tokens)).mean(1)
            return self.head(pooled)

    model = run.start("model", Net())
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for x, y in zip(batches(63, 3, 2, 2, 8, 8, dtype="float32"), labels(64, 3, 3, 2)):
        with torch.autocast("cpu", dtype=torch.float16):
            logits = model(torch.tensor(x))
            probs = F.softmax(logits, dim=-1)
            loss = F.cross_entropy(logits, torch.tensor(y))  # (autocast: in float32)
        run.record("dtypes", [str(t.dtype).split(".")[-1] for t in (logits, probs, loss)])
        opt.zero_grad()
        loss.backward()
        run.record("grad dtypes", [str(p.grad.dtype).split(".")[-1] for p in model.parameters()])
        opt.step()
        run.record("loss", loss.item())
        run.record("probs", probs.float())
    run.finish("model", model)


# ------------------------------------------------------------------ running and comparing
# both libraries warn alike for these (the attention's mixed masks, the old weight_norm, a
# non-leaf's .grad read on purpose)
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.filterwarnings("ignore:the .grad of a tensor that is not a leaf")
@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")
@pytest.mark.filterwarnings("ignore:.*weight_norm. is deprecated")
@pytest.mark.filterwarnings("ignore:nn.utils.weight_norm is deprecated")
@pytest.mark.parametrize(
    ("fn", "rtol", "atol"), PROGRAMS, ids=[fn.__name__ for fn, _, _ in PROGRAMS]
)
def test_program_matches_pytorch(fn: Callable[..., None], rtol: float, atol: float) -> None:
    assert_program_matches(fn, rtol, atol)
