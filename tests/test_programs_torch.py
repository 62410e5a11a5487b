"""Whole training programs, run side by side in PyTorch and microtorch.

Each program is one function of the library module it is given (``torch`` or
``microtorch``), written the way a PyTorch user writes it: build a model, train it for a
few steps on deterministic batches made with NumPy, evaluate. The harness runs it first
with PyTorch, recording PyTorch's initial ``state_dict`` of every model, then with
microtorch, loading that same state (through NumPy) into microtorch's models before the
first step. Both runs must then agree on every step's loss and learning rate and, at the
end, on every parameter, buffer and gradient: to ~1e-10 in float64, ~1e-5 in float32.

A difference here is a bug in an op, module, optimizer or scheduler; each one found has
its own focused test in the test file that mirrors that module.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import microtorch

torch = pytest.importorskip("torch")


class Run:
    """What one run of a program records, and the initial weights it shares."""

    def __init__(self, lib: Any, init: dict[str, dict[str, np.ndarray]] | None) -> None:
        self.lib = lib
        self.init = init  # None: this is the PyTorch run, which records the initial weights
        self.states: dict[str, dict[str, np.ndarray]] = {}
        self.log: dict[str, list[Any]] = {}

    def start(self, name: str, model: Any) -> Any:
        """Record ``model``'s initial state (PyTorch run) or load PyTorch's (microtorch run)."""
        if self.init is None:
            self.states[name] = {k: numpy(v) for k, v in model.state_dict().items()}
        else:
            model.load_state_dict({k: self.lib.tensor(v) for k, v in self.init[name].items()})
        return model

    def record(self, key: str, value: Any) -> None:
        """Append one value (a loss, a learning rate, an output) to the series ``key``."""
        self.log.setdefault(key, []).append(to_plain(value))

    def finish(self, name: str, model: Any) -> None:
        """Record every parameter, buffer and gradient of ``model`` at the end."""
        self.log[f"{name}.state"] = [{k: numpy(v) for k, v in model.state_dict().items()}]
        grads = {k: None if p.grad is None else numpy(p.grad) for k, p in model.named_parameters()}
        self.log[f"{name}.grad"] = [grads]


def numpy(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy().copy()


def to_plain(value: Any) -> Any:
    """Tensors become NumPy arrays (values compared, dtype checked); lists stay lists."""
    if hasattr(value, "detach") and hasattr(value, "requires_grad"):
        return numpy(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


def assert_same(ours: Any, theirs: Any, rtol: float, atol: float, where: str) -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), (
            f"{where}: keys {list(ours)} vs {list(theirs)}"
        )
        for k in theirs:
            assert_same(ours[k], theirs[k], rtol, atol, f"{where}[{k!r}]")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{where}: lengths differ"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, rtol, atol, f"{where}[{i}]")
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), f"{where}: {type(ours)} vs an array"
        assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape), (
            f"{where}: {ours.dtype}{ours.shape} vs {theirs.dtype}{theirs.shape}"
        )
        if theirs.dtype.kind == "f":
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=where)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif isinstance(theirs, float):
        assert isinstance(ours, float), f"{where}: {ours!r} vs {theirs!r}"
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=where)
    else:
        assert type(ours) is type(theirs) and ours == theirs, f"{where}: {ours!r} vs {theirs!r}"


def batches(seed: int, n: int, *shape: int, dtype: str = "float64") -> list[np.ndarray]:
    """``n`` deterministic standard-normal batches of ``shape``."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for _ in range(n)]


def labels(seed: int, n: int, high: int, *shape: int) -> list[np.ndarray]:
    """``n`` deterministic int64 label batches in [0, high)."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, high, shape) for _ in range(n)]


def registry() -> tuple[list[tuple[Callable[..., None], float, float]], Callable[..., Any]]:
    """A new list of programs and the ``@program(rtol, atol)`` decorator that adds to it
    (one pair per test file, each running its own programs)."""
    programs: list[tuple[Callable[..., None], float, float]] = []

    def program(rtol: float = 1e-10, atol: float = 1e-12) -> Callable[..., Any]:
        def register(fn: Callable[..., None]) -> Callable[..., None]:
            programs.append((fn, rtol, atol))
            return fn

        return register

    return programs, program


PROGRAMS, program = registry()


# ------------------------------------------------------------------ the programs
@program()
def mlp_classifier_label_smoothing_nesterov_steplr(torch: Any, run: Run) -> None:
    nn = torch.nn
    model = nn.Sequential(
        nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, 16), nn.Tanh(),
        nn.Linear(16, 4),
    ).double()  # fmt: skip
    run.start("model", model)
    weight = torch.tensor([1.0, 2.0, 0.5, 1.0], dtype=torch.float64)
    criterion = nn.CrossEntropyLoss(weight=weight, label_smoothing=0.1)
    opt = torch.optim.SGD(
        model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3
    )
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    for x, y in zip(batches(1, 8, 10, 6), labels(2, 8, 4, 10)):
        model.train()
        opt.zero_grad()
        loss = criterion(model(torch.tensor(x)), torch.tensor(y))
        loss.backward()
        opt.step()
        sched.step()
        run.record("loss", loss.item())
        run.record("lr", sched.get_last_lr())
    model.eval()
    with torch.no_grad():
        logits = model(torch.tensor(batches(3, 1, 5, 6)[0]))
        run.record("pred", logits.argmax(dim=1))
        run.record("prob", logits.softmax(-1))
    run.finish("model", model)


@program()
def cnn_batchnorm_avgpool_adam_weight_decay(torch: Any, run: Run) -> None:
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 6, kernel_size=3, padding=1),
                nn.BatchNorm2d(6),
                nn.ReLU(inplace=True),
                nn.AvgPool2d(2),
                nn.Conv2d(6, 8, kernel_size=3, stride=2, padding=1, bias=False),
                nn.BatchNorm2d(8, momentum=0.2),
                nn.ReLU(),
                nn.AdaptiveAvgPool2d((1, 1)),
            )
            self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(8, 5))

        def forward(self, x):
            return self.classifier(self.features(x))

    model = run.start("model", Net().double())
    opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-2, amsgrad=True)
    criterion = nn.CrossEntropyLoss()
    for x, y in zip(batches(4, 5, 4, 3, 8, 8), labels(5, 5, 5, 4)):
        model.train()
        model.classifier[1].eval()  # dropout off, so both runs see the same numbers
        opt.zero_grad()
        loss = criterion(model(torch.tensor(x)), torch.tensor(y))
        loss.backward()
        opt.step()
        run.record("loss", loss.item())
    model.eval()
    with torch.no_grad():
        out = model(torch.tensor(batches(6, 1, 2, 3, 8, 8)[0]))
    run.record("eval", out)
    run.finish("model", model)


@program()
def resnet_basic_block_with_downsample(torch: Any, run: Run) -> None:
    nn = torch.nn

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class TinyResNet(nn.Module):
        def __init__(self, num_classes=3):
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(2, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(True)
            )
            down = nn.Sequential(nn.Conv2d(4, 8, 1, stride=2, bias=False), nn.BatchNorm2d(8))
            self.layer1 = nn.Sequential(BasicBlock(4, 4), BasicBlock(4, 8, 2, down))
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(8 * BasicBlock.expansion, num_classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
            nn.init.zeros_(self.layer1[1].bn2.weight)  # zero-init the last BN of the residual

        def forward(self, x):
            x = self.layer1(self.stem(x))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    model = run.start("model", TinyResNet().double())
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
    for x, y in zip(batches(7, 5, 4, 2, 8, 8), labels(8, 5, 3, 4)):
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(torch.tensor(x)), torch.tensor(y))
        loss.backward()
        opt.step()
        sched.step()
        run.record("loss", loss.item())
        run.record("lr", opt.param_groups[0]["lr"])
    run.finish("model", model)


@program()
def lstm_language_model_packed_padding_idx_clip(torch: Any, run: Run) -> None:
    nn = torch.nn
    pack_padded_sequence = torch.nn.utils.rnn.pack_padded_sequence
    pad_packed_sequence = torch.nn.utils.rnn.pad_packed_sequence

    class LM(nn.Module):
        def __init__(self, vocab=11, emb=6, hidden=8):
            super().__init__()
            self.embed = nn.Embedding(vocab, emb, padding_idx=0)
            self.rnn = nn.LSTM(emb, hidden, num_layers=2, batch_first=True)
            self.gru = nn.GRU(hidden, hidden, bidirectional=True, batch_first=True)
            self.out = nn.Linear(2 * hidden, vocab)

        def forward(self, tokens, lengths):
            packed = pack_padded_sequence(
                self.embed(tokens), lengths, batch_first=True, enforce_sorted=False
            )
            packed, (h, c) = self.rnn(packed)
            packed, _ = self.gru(packed)
            out, out_lengths = pad_packed_sequence(packed, batch_first=True, total_length=7)
            return self.out(out), out_lengths

    model = run.start("model", LM().double())
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    rng = np.random.default_rng(9)
    for _ in range(4):
        lengths = rng.integers(2, 8, 5)
        tokens = rng.integers(1, 11, (5, 7))
        tokens[np.arange(7)[None, :] >= lengths[:, None]] = 0  # pad with padding_idx
        inputs = torch.tensor(tokens)
        targets = torch.tensor(np.roll(tokens, -1, axis=1))
        logits, out_lengths = model(inputs, torch.tensor(lengths))
        loss = nn.functional.cross_entropy(
            logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=0
        )
        opt.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
        opt.step()
        run.record("loss", loss.item())
        run.record("norm", norm)
        run.record("lengths", out_lengths)
    run.finish("model", model)


# The key projection's bias gets an exactly zero gradient (softmax ignores a shift shared by
# every key), so its values are rounding noise that Adam scales up to ~1e-11: hence atol.
@program(atol=1e-9)
def transformer_seq2seq_with_padding_and_causal_masks(torch: Any, run: Run) -> None:
    nn = torch.nn

    class Seq2Seq(nn.Module):
        def __init__(self, vocab=9, d_model=8):
            super().__init__()
            self.src_embed = nn.Embedding(vocab, d_model, padding_idx=0)
            self.tgt_embed = nn.Embedding(vocab, d_model, padding_idx=0)
            self.transformer = nn.Transformer(
                d_model=d_model, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                dim_feedforward=16, dropout=0.0, batch_first=True,
            )  # fmt: skip
            self.generator = nn.Linear(d_model, vocab)

        def forward(self, src, tgt):
            src_pad, tgt_pad = src == 0, tgt == 0
            tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
            tgt_mask = tgt_mask.to(torch.float64)
            h = self.transformer(
                self.src_embed(src), self.tgt_embed(tgt), tgt_mask=tgt_mask,
                src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad,
                memory_key_padding_mask=src_pad,
            )  # fmt: skip
            return self.generator(h)

    model = run.start("model", Seq2Seq().double())
    opt = torch.optim.Adam(model.parameters(), lr=1e-2, betas=(0.9, 0.98), eps=1e-9)
    criterion = nn.CrossEntropyLoss(ignore_index=0, label_smoothing=0.05)
    rng = np.random.default_rng(10)
    for _ in range(3):
        src = rng.integers(1, 9, (3, 6))
        src[0, 4:] = 0
        src[2, 5:] = 0
        tgt = rng.integers(1, 9, (3, 5))
        tgt[1, 3:] = 0
        tgt_in, tgt_out = torch.tensor(tgt[:, :-1]), torch.tensor(tgt[:, 1:])
        logits = model(torch.tensor(src), tgt_in)
        loss = criterion(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", loss.item())
    model.eval()
    with torch.no_grad():  # PyTorch's fast path: padded positions of the memory come out 0
        memory = model.transformer.encoder(model.src_embed(torch.tensor(src)),
                                           src_key_padding_mask=torch.tensor(src) == 0)  # fmt: skip
        run.record("memory", memory)
        run.record("eval", model(torch.tensor(src), tgt_in).argmax(-1))
    run.finish("model", model)


@program(atol=1e-9)  # the key bias again
def transformer_encoder_norm_first_gelu_classifier(torch: Any, run: Run) -> None:
    nn = torch.nn
    layer = nn.TransformerEncoderLayer(
        d_model=8, nhead=4, dim_feedforward=12, dropout=0.0, activation="gelu",
        batch_first=True, norm_first=True,
    )  # fmt: skip
    encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(8),
                                    enable_nested_tensor=False)  # fmt: skip
    head = nn.Linear(8, 2)
    model = run.start("model", nn.ModuleDict({"encoder": encoder, "head": head}).double())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for x, y in zip(batches(11, 3, 4, 5, 8), labels(12, 3, 2, 4)):
        pad = torch.tensor(np.arange(5)[None, :] >= np.array([5, 3, 4, 2])[:, None])
        h = model["encoder"](torch.tensor(x), src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        pooled = (h * keep).sum(1) / keep.sum(1)  # mean over the real tokens
        loss = nn.functional.cross_entropy(model["head"](pooled), torch.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", loss.item())
    run.finish("model", model)


@program()
def vae_with_fixed_noise_kl_and_bce_with_logits(torch: Any, run: Run) -> None:
    nn, F = torch.nn, torch.nn.functional

    class VAE(nn.Module):
        def __init__(self, d=12, h=10, z=3):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(d, h), nn.SiLU())
            self.mu, self.logvar = nn.Linear(h, z), nn.Linear(h, z)
            self.dec = nn.Sequential(nn.Linear(z, h), nn.ELU(), nn.Linear(h, d))

        def forward(self, x, eps):
            h = self.enc(x)
            mu, logvar = self.mu(h), self.logvar(h)
            z = mu + eps * torch.exp(0.5 * logvar)  # the reparameterization trick
            return self.dec(z), mu, logvar

    model = run.start("model", VAE().double())
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(13)
    for _ in range(5):
        x = torch.tensor((rng.random((6, 12)) > 0.5).astype("float64"))
        eps = torch.tensor(rng.standard_normal((6, 3)))
        recon, mu, logvar = model(x, eps)
        bce = F.binary_cross_entropy_with_logits(recon, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = (bce + kld) / x.size(0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", [bce.item(), kld.item(), loss.item()])
    with torch.no_grad():
        samples = torch.sigmoid(model.dec(torch.tensor(rng.standard_normal((2, 3)))))
    run.record("samples", samples)
    run.finish("model", model)


@program()
def gan_step_two_optimizers_detach_set_to_none(torch: Any, run: Run) -> None:
    nn = torch.nn
    G = nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 4), nn.Tanh()).double()
    D = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
    D = D.double()
    run.start("G", G)
    run.start("D", D)
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    criterion = nn.BCELoss()
    for real, noise in zip(batches(14, 4, 5, 4), batches(15, 4, 5, 3)):
        real, noise = torch.tensor(real), torch.tensor(noise)
        ones = torch.ones(real.size(0), 1, dtype=torch.float64)
        zeros = torch.zeros_like(ones)
        fake = G(noise)
        # discriminator: real vs fake, the generator's graph cut by detach()
        opt_d.zero_grad(set_to_none=True)
        loss_d = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
        loss_d.backward()
        opt_d.step()
        run.record("G grad after D step", [p.grad is None for p in G.parameters()])
        # generator: fool the (updated) discriminator
        opt_g.zero_grad(set_to_none=True)
        loss_g = criterion(D(fake), ones)
        loss_g.backward()
        opt_g.step()
        run.record("loss", [loss_d.item(), loss_g.item()])
    run.finish("G", G)
    run.finish("D", D)


@program()
def regression_mse_huber_reduce_lr_on_plateau(torch: Any, run: Run) -> None:
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 8), nn.Hardtanh(-2, 2), nn.Linear(8, 2))
    model = run.start("model", model.double())
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
        opt, mode="min", factor=0.5, patience=1, threshold=1e-2, cooldown=1, min_lr=1e-3
    )
    mse, huber, smooth = nn.MSELoss(), nn.HuberLoss(delta=0.5), nn.SmoothL1Loss(beta=0.3)
    rng = np.random.default_rng(16)
    x = rng.standard_normal((16, 3))
    y = np.stack([x[:, 0] * 2 - x[:, 1], np.sin(x[:, 2])], 1) + 0.1 * rng.standard_normal((16, 2))
    x, y = torch.tensor(x), torch.tensor(y)
    for _ in range(10):
        pred = model(x)
        loss = huber(pred, y) + 0.5 * smooth(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            val = mse(model(x), y)
        sched.step(val)
        run.record("loss", [loss.item(), val.item()])
        run.record("lr", sched.get_last_lr())
    run.finish("model", model)


@program()
def gradient_accumulation_over_micro_batches(torch: Any, run: Run) -> None:
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 1))
    model = run.start("model", model.double())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-2, total_steps=3)
    accumulation = 4
    micro = zip(batches(17, 12, 3, 4), batches(18, 12, 3, 1))
    opt.zero_grad()
    for i, (x, y) in enumerate(micro):
        loss = nn.functional.l1_loss(model(torch.tensor(x)), torch.tensor(y)) / accumulation
        loss.backward()  # gradients add up over the micro-batches
        run.record("loss", loss.item())
        if (i + 1) % accumulation == 0:
            opt.step()
            sched.step()
            opt.zero_grad()
            run.record("lr", sched.get_last_lr())
            run.record("betas", [g["betas"] for g in opt.param_groups])
    run.finish("model", model)


@program()
def weight_tying_module_dict_parameter_list(torch: Any, run: Run) -> None:
    nn = torch.nn

    class MultiHead(nn.Module):
        def __init__(self, vocab=10, d=6):
            super().__init__()
            self.embed = nn.Embedding(vocab, d, scale_grad_by_freq=True)
            self.decoder = nn.Linear(d, vocab, bias=False)
            self.decoder.weight = self.embed.weight  # tied: one tensor, two uses
            self.heads = nn.ModuleDict({"cls": nn.Linear(d, 3), "reg": nn.Linear(d, 1)})
            self.scales = nn.ParameterList([nn.Parameter(torch.ones(d)) for _ in range(2)])
            self.register_buffer("steps", torch.zeros((), dtype=torch.long))

        def forward(self, tokens):
            h = self.embed(tokens)
            for scale in self.scales:
                h = torch.tanh(h * scale)
            pooled = h.mean(dim=1)
            return self.decoder(h), {name: head(pooled) for name, head in self.heads.items()}

    model = run.start("model", MultiHead().double())
    run.record("names", [n for n, _ in model.named_parameters()])
    run.record("count", sum(p.numel() for p in model.parameters()))
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-2, momentum=0.5, centered=True)
    rng = np.random.default_rng(19)
    for _ in range(4):
        tokens = torch.tensor(rng.integers(0, 10, (4, 5)))
        lm, out = model(tokens)
        loss = (
            nn.functional.cross_entropy(lm[:, :-1].transpose(1, 2), tokens[:, 1:])
            + nn.functional.cross_entropy(out["cls"], torch.tensor(rng.integers(0, 3, 4)))
            + nn.functional.mse_loss(out["reg"].squeeze(-1), torch.tensor(rng.random(4)))
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        model.steps += 1
        run.record("loss", loss.item())
    run.record("still tied", model.decoder.weight is model.embed.weight)
    run.finish("model", model)


def checkpoint_training(torch: Any, run: Run, resume_at: int | None) -> None:
    """A few Adam steps with a cosine warm-restart schedule; when ``resume_at`` is set, the
    model, optimizer and scheduler are saved there and training continues in fresh ones."""
    nn = torch.nn

    def build():
        model = nn.Sequential(nn.Linear(3, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))
        model = model.double()
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-3)
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        return model, opt, sched

    model, opt, sched = build()
    run.start("model", model)
    for step, (x, y) in enumerate(zip(batches(20, 7, 5, 3), batches(21, 7, 5, 2))):
        if step == resume_at:
            buffer = io.BytesIO()
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                        "scheduler": sched.state_dict(), "step": step}, buffer)  # fmt: skip
            buffer.seek(0)
            checkpoint = torch.load(buffer, weights_only=True)
            model, opt, sched = build()
            model.load_state_dict(checkpoint["model"])
            opt.load_state_dict(checkpoint["optimizer"])
            sched.load_state_dict(checkpoint["scheduler"])
            run.record("resumed at", checkpoint["step"])
        loss = nn.functional.mse_loss(model(torch.tensor(x)), torch.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run.record("loss", loss.item())
        run.record("lr", sched.get_last_lr())
    run.finish("model", model)


@program()
def checkpoint_mid_training_then_resume(torch: Any, run: Run) -> None:
    checkpoint_training(torch, run, resume_at=3)


@program()
def train_eval_switching_and_inference_mode(torch: Any, run: Run) -> None:
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv1d(2, 4, 3, padding="same"), nn.GroupNorm(2, 4), nn.PReLU(),
        nn.Conv1d(4, 4, 3, dilation=2, padding=2, padding_mode="reflect"),
        nn.BatchNorm1d(4, track_running_stats=True), nn.Dropout(0.3), nn.Flatten(),
        nn.Linear(4 * 6, 3),
    ).double()  # fmt: skip
    run.start("model", model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for x, y in zip(batches(22, 3, 4, 2, 6), labels(23, 3, 3, 4)):
        model.train()
        model[5].p = 0.0  # the same numbers in both runs
        loss = nn.functional.cross_entropy(model(torch.tensor(x)), torch.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", loss.item())
        model.eval()
        model[5].p = 0.3  # eval: dropout is the identity whatever p is
        val = torch.tensor(batches(24, 1, 3, 2, 6)[0])
        with torch.no_grad():
            a = model(val)
        with torch.inference_mode():
            b = model(val)
        c = model(val)
        run.record("eval", [a, b, a.requires_grad, b.requires_grad, c.requires_grad])
        run.record("modes", [m.training for m in model.modules()])
    run.finish("model", model)


@program(atol=1e-9)  # the key bias again
def vision_transformer_with_bicubic_position_embedding_resize(torch: Any, run: Run) -> None:
    nn, F = torch.nn, torch.nn.functional

    class ViT(nn.Module):
        def __init__(self, patch=2, d=8, grid=3):
            super().__init__()
            self.patch_embed = nn.Conv2d(3, d, patch, stride=patch)
            self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
            self.pos_embed = nn.Parameter(torch.randn(1, 1 + grid * grid, d) * 0.02)
            layer = nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, activation="gelu",
                                               batch_first=True, norm_first=True,
                                               layer_norm_eps=1e-6)  # fmt: skip
            self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(d, eps=1e-6)
            self.head = nn.Linear(d, 4)
            self.grid = grid

        def position_embedding(self, g):
            """The learned grid x grid embedding resized (bicubic) for a g x g grid of patches."""
            if g == self.grid:
                return self.pos_embed
            cls, grid = self.pos_embed[:, :1], self.pos_embed[:, 1:]
            grid = grid.reshape(1, self.grid, self.grid, -1).permute(0, 3, 1, 2)
            grid = F.interpolate(grid, size=(g, g), mode="bicubic", align_corners=False)
            return torch.cat([cls, grid.permute(0, 2, 3, 1).flatten(1, 2)], dim=1)

        def forward(self, x):
            x = self.patch_embed(x)  # (B, d, g, g)
            g = x.shape[-1]
            x = x.flatten(2).transpose(1, 2)
            x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
            x = self.blocks(x + self.position_embedding(g))
            return self.head(self.norm(x)[:, 0])

    model = run.start("model", ViT().double())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    images = batches(1, 3, 2, 3, 6, 6) + batches(3, 1, 2, 3, 10, 10)  # then larger images
    for x, y in zip(images, labels(2, 4, 4, 2)):
        loss = F.cross_entropy(model(torch.tensor(x)), torch.tensor(y), label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", loss.item())
    run.finish("model", model)


@program(rtol=2e-5, atol=1e-6)
def nano_gpt_sdpa_causal_adamw_parameter_groups(torch: Any, run: Run) -> None:
    nn, F = torch.nn, torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self, d, n_head):
            super().__init__()
            # no bias: a key bias's gradient is zero up to rounding, which float32 Adam
            # would turn into whole steps of different sign in the two runs
            self.c_attn = nn.Linear(d, 3 * d, bias=False)
            self.c_proj = nn.Linear(d, d)
            self.n_head = n_head

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
                       for t in (q, k, v))  # fmt: skip
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    class Block(nn.Module):
        def __init__(self, d, n_head):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d, bias=False)
            self.attn = CausalSelfAttention(d, n_head)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"),
                                     nn.Linear(4 * d, d))  # fmt: skip

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self, vocab=13, block=8, d=16, n_head=2, n_layer=2):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab, d), wpe=nn.Embedding(block, d),
                h=nn.ModuleList([Block(d, n_head) for _ in range(n_layer)]),
                ln_f=nn.LayerNorm(d),
            ))  # fmt: skip
            self.lm_head = nn.Linear(d, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight

        def forward(self, idx, targets=None):
            pos = torch.arange(0, idx.size(1), dtype=torch.long)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
            return logits, loss

    model = run.start("model", GPT())
    params = {n: p for n, p in model.named_parameters() if p.requires_grad}
    decay = [p for p in params.values() if p.dim() >= 2]
    no_decay = [p for p in params.values() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.95))  # fmt: skip
    warmup = 2
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda it: min(1.0, (it + 1) / warmup))
    rng = np.random.default_rng(25)
    for _ in range(4):
        data = rng.integers(0, 13, (3, 9))
        x, y = torch.tensor(data[:, :-1]), torch.tensor(data[:, 1:])
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        run.record("loss", loss.item())
        run.record("norm", norm)
    model.eval()
    with torch.no_grad():
        logits, _ = model(x, y)
        probs = F.softmax(logits[:, -1, :] / 0.8, dim=-1)
        v, _ = torch.topk(probs, 3)
    run.record("top3", v)
    run.finish("model", model)


# ------------------------------------------------------------------ running and comparing
def run_both(fn: Callable[..., None]) -> tuple[Run, Run]:
    """Run ``fn`` with PyTorch (recording its initial weights), then with microtorch."""
    torch.manual_seed(0)
    theirs = Run(torch, None)
    fn(torch, theirs)
    microtorch.manual_seed(0)
    ours = Run(microtorch, theirs.states)
    fn(microtorch, ours)
    return ours, theirs


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")  # PyTorch's
@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")  # (its fast path)
@pytest.mark.parametrize(
    ("fn", "rtol", "atol"), PROGRAMS, ids=[fn.__name__ for fn, _, _ in PROGRAMS]
)
def test_program_matches_pytorch(fn: Callable[..., None], rtol: float, atol: float) -> None:
    assert_program_matches(fn, rtol, atol)


def assert_program_matches(fn: Callable[..., None], rtol: float, atol: float) -> None:
    """Run ``fn`` in both libraries; every recorded series must agree."""
    ours, theirs = run_both(fn)
    assert list(ours.log) == list(theirs.log)
    for key in theirs.log:
        assert_same(ours.log[key], theirs.log[key], rtol, atol, key)


def test_resuming_from_a_checkpoint_gives_the_uninterrupted_losses() -> None:
    for lib in (torch, microtorch):
        whole, resumed = Run(lib, None), Run(lib, None)
        checkpoint_training(lib, whole, resume_at=None)
        resumed.init = whole.states
        checkpoint_training(lib, resumed, resume_at=3)
        for key in ("loss", "lr", "model.state", "model.grad"):
            assert_same(resumed.log[key], whole.log[key], 0, 0, f"{lib.__name__}: {key}")
