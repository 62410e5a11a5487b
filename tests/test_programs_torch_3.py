"""A third dozen whole PyTorch programs, run side by side in PyTorch and microtorch.

Same harness as tests/test_programs_torch.py: each program is a function of the library
module, run first with PyTorch (which records the initial ``state_dict`` of every model),
then with microtorch (which loads that state first); every recorded series (losses,
outputs, optimizer states) and, at the end, every parameter, buffer and gradient must
agree: ~1e-10 in float64, ~1e-5 in float32.

The programs follow PyTorch's examples and tutorials: word-level language models (LSTM
and Transformer), name classification with RNNs, seq2seq with attention, DCGAN, a spatial
transformer, the fast gradient sign attack, DQN, siamese networks, transfer learning, a
small graph network and a CTC speech model.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from .test_programs_torch import Run, assert_same, batches, labels, run_both
from .test_programs_torch_2 import record_optimizer

torch = pytest.importorskip("torch")

PROGRAMS: list[tuple[Callable[..., None], float, float]] = []


def program(rtol: float = 1e-10, atol: float = 1e-12) -> Callable[..., Any]:
    def register(fn: Callable[..., None]) -> Callable[..., None]:
        PROGRAMS.append((fn, rtol, atol))
        return fn

    return register


# ------------------------------------------------------------------ word-level language models
def batchify(torch: Any, data: np.ndarray, bsz: int) -> Any:
    """Cut a 1-d token stream into ``bsz`` columns: a (steps, bsz) tensor."""
    nbatch = len(data) // bsz
    return torch.tensor(data[: nbatch * bsz]).view(bsz, -1).t().contiguous()


def get_batch(source: Any, i: int, bptt: int) -> tuple[Any, Any]:
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].reshape(-1)


@program()
def word_language_model_lstm_tied_truncated_bptt_clip_manual_sgd(torch: Any, run: Run):
    nn = torch.nn
    ntoken, ninp, bsz, bptt, lr, clip = 17, 8, 3, 5, 2.0, 0.25

    class RNNModel(nn.Module):
        def __init__(self, dropout):
            super().__init__()
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, ninp, 2, dropout=dropout)
            self.decoder = nn.Linear(ninp, ntoken)
            self.decoder.weight = self.encoder.weight  # tied weights
            self.nlayers, self.nhid = 2, ninp

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            output = self.drop(output)
            decoded = self.decoder(output).view(-1, ntoken)
            return nn.functional.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters())
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))  # fmt: skip

    def repackage_hidden(h):
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(repackage_hidden(v) for v in h)

    rng = np.random.default_rng(40)
    train_data = batchify(torch, rng.integers(0, ntoken, 70), bsz)
    val_data = batchify(torch, rng.integers(0, ntoken, 31), bsz)
    criterion = nn.NLLLoss()
    for dropout in (0.0, 0.3):
        name = f"lstm dropout={dropout}"
        model = run.start(name, RNNModel(dropout).double())
        run.record("parameters", [n for n, _ in model.named_parameters()])

        def evaluate(model, data_source):
            model.eval()
            total_loss = 0.0
            hidden = model.init_hidden(bsz)
            with torch.no_grad():
                for i in range(0, data_source.size(0) - 1, bptt):
                    data, targets = get_batch(data_source, i, bptt)
                    output, hidden = model(data, hidden)
                    hidden = repackage_hidden(hidden)
                    total_loss += len(data) * criterion(output, targets).item()
            return total_loss / (len(data_source) - 1)

        if dropout == 0.0:  # dropout > 0 trains differently in the two (their random streams)
            model.train()
            hidden = model.init_hidden(bsz)
            for i in range(0, train_data.size(0) - 1, bptt):
                data, targets = get_batch(train_data, i, bptt)
                hidden = repackage_hidden(hidden)
                model.zero_grad()
                output, hidden = model(data, hidden)
                loss = criterion(output, targets)
                loss.backward()
                norm = nn.utils.clip_grad_norm_(model.parameters(), clip)
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-lr)
                run.record("train", [loss.item(), norm])
            run.record("hidden", list(hidden))
        run.record("valid", evaluate(model, val_data))
        run.finish(name, model)


@program()
def word_language_model_transformer_encoder_norm_first_causal_mask(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    ntoken, d_model, bsz, bptt, lr, clip = 19, 8, 3, 6, 0.5, 0.5

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.1, max_len=64):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            pe = torch.zeros(max_len, d_model)
            position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
            div_term = torch.exp(
                torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model)
            )
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            pe = pe.unsqueeze(0).transpose(0, 1)
            self.register_buffer("pe", pe)

        def forward(self, x):
            x = x + self.pe[: x.size(0), :]
            return self.dropout(x)

    class TransformerModel(nn.Module):
        def __init__(self, norm_first):
            super().__init__()
            self.pos_encoder = PositionalEncoding(d_model, dropout=0.0)
            layer = nn.TransformerEncoderLayer(d_model, 2, 16, dropout=0.0,
                                               norm_first=norm_first)  # fmt: skip
            self.transformer_encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.embedding = nn.Embedding(ntoken, d_model)
            self.decoder = nn.Linear(d_model, ntoken)
            self.init_weights()

        def init_weights(self):
            initrange = 0.1
            nn.init.uniform_(self.embedding.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)

        def forward(self, src, src_mask):
            src = self.embedding(src) * math.sqrt(d_model)
            src = self.pos_encoder(src)
            output = self.transformer_encoder(src, src_mask)
            return F.log_softmax(self.decoder(output), dim=-1)

    rng = np.random.default_rng(41)
    train_data = batchify(torch, rng.integers(0, ntoken, 60), bsz)
    val_data = batchify(torch, rng.integers(0, ntoken, 25), bsz)
    criterion = nn.NLLLoss()
    mask = nn.Transformer.generate_square_subsequent_mask(bptt, dtype=torch.float64)
    run.record("mask", mask)
    for norm_first in (False, True):
        name = f"transformer norm_first={norm_first}"
        model = run.start(name, TransformerModel(norm_first).double())
        run.record("buffers", [n for n, _ in model.named_buffers()])
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1.0, gamma=0.95)
        model.train()
        for i in range(0, train_data.size(0) - 1, bptt):
            data, targets = get_batch(train_data, i, bptt)
            seq_len = data.size(0)
            src_mask = mask if seq_len == bptt else mask[:seq_len, :seq_len]
            output = model(data, src_mask)
            loss = criterion(output.view(-1, ntoken), targets)
            opt.zero_grad()
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()
            run.record("train", [loss.item(), norm, sched.get_last_lr()])
        sched.step()
        model.eval()
        total = 0.0
        with torch.no_grad():
            for i in range(0, val_data.size(0) - 1, bptt):
                data, targets = get_batch(val_data, i, bptt)
                seq_len = data.size(0)
                causal = nn.Transformer.generate_square_subsequent_mask(seq_len).double()
                output = model(data, causal)
                total += seq_len * criterion(output.view(-1, ntoken), targets).item()
        run.record("valid", total / (len(val_data) - 1))
        run.finish(name, model)
        record_optimizer(run, f"{name} optimizer", opt)


# ------------------------------------------------------------------ names, seq2seq
@program()
def char_rnn_name_classification_nn_rnn_and_hand_written_cell_per_example(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    letters = "abcdefghijklmnopqrstuvwxyz'"
    n_letters, n_hidden, n_categories = len(letters), 12, 3
    names = ["abel", "zoe", "o'neil", "xu", "maria", "kowalski", "li", "ng'ang'a"]
    categories = [0, 1, 2, 1, 0, 2, 1, 2]

    def line_to_tensor(line):
        tensor = torch.zeros(len(line), 1, n_letters, dtype=torch.float64)
        for li, letter in enumerate(line):
            tensor[li][0][letters.find(letter)] = 1
        return tensor

    class HandRNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.hidden_size = hidden_size
            self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
            self.i2o = nn.Linear(input_size + hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, input, hidden):
            combined = torch.cat((input, hidden), 1)
            hidden = torch.tanh(self.i2h(combined))
            output = self.softmax(self.i2o(combined))
            return output, hidden

        def init_hidden(self):
            return torch.zeros(1, self.hidden_size, dtype=torch.float64)

    class CharRNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.rnn = nn.RNN(input_size, hidden_size, nonlinearity="relu")
            self.h2o = nn.Linear(hidden_size, output_size)

        def forward(self, line_tensor):
            rnn_out, hidden = self.rnn(line_tensor)
            return F.log_softmax(self.h2o(hidden[0]), dim=1)

    criterion = nn.NLLLoss()
    hand = run.start("hand", HandRNN(n_letters, n_hidden, n_categories).double())
    learning_rate = 0.05
    for _ in range(2):
        for name, category in zip(names, categories):
            category_tensor = torch.tensor([category], dtype=torch.long)
            line_tensor = line_to_tensor(name)
            hidden = hand.init_hidden()
            hand.zero_grad()
            for i in range(line_tensor.size()[0]):
                output, hidden = hand(line_tensor[i], hidden)
            loss = criterion(output, category_tensor)
            loss.backward()
            for p in hand.parameters():
                p.data.add_(p.grad.data, alpha=-learning_rate)
            top_n, top_i = output.topk(1)
            run.record("hand", [loss.item(), top_i[0].item()])
    run.finish("hand", hand)

    model = run.start("nn.RNN", CharRNN(n_letters, n_hidden, n_categories).double())
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    for name, category in zip(names * 2, categories * 2):
        model.train()
        output = model(line_to_tensor(name))
        loss = criterion(output, torch.tensor([category]))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 3)
        opt.step()
        opt.zero_grad()
        run.record("nn.RNN", loss.item())
    model.eval()
    with torch.no_grad():
        guesses = [model(line_to_tensor(n)).argmax(1).item() for n in names]
    run.record("guesses", guesses)
    run.finish("nn.RNN", model)
    record_optimizer(run, "nn.RNN optimizer", opt)


@program()
def seq2seq_gru_bahdanau_attention_teacher_forcing_padding_idx(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    in_vocab, out_vocab, hidden_size, max_len, bsz = 11, 9, 10, 6, 4
    PAD, SOS, EOS = 0, 1, 2

    class EncoderRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(in_vocab, hidden_size, padding_idx=PAD)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.dropout = nn.Dropout(0.0)

        def forward(self, input):
            embedded = self.dropout(self.embedding(input))
            return self.gru(embedded)

    class BahdanauAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.Wa = nn.Linear(hidden_size, hidden_size)
            self.Ua = nn.Linear(hidden_size, hidden_size)
            self.Va = nn.Linear(hidden_size, 1)

        def forward(self, query, keys):
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
            scores = scores.squeeze(2).unsqueeze(1)
            weights = F.softmax(scores, dim=-1)
            context = torch.bmm(weights, keys)
            return context, weights

    class AttnDecoderRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(out_vocab, hidden_size, padding_idx=PAD)
            self.attention = BahdanauAttention()
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, out_vocab)

        def forward(self, encoder_outputs, encoder_hidden, target_tensor, teacher):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long).fill_(SOS)
            decoder_hidden = encoder_hidden
            decoder_outputs, attentions = [], []
            for i in range(max_len):
                embedded = self.embedding(decoder_input)
                query = decoder_hidden.permute(1, 0, 2)
                context, attn_weights = self.attention(query, encoder_outputs)
                input_gru = torch.cat((embedded, context), dim=2)
                output, decoder_hidden = self.gru(input_gru, decoder_hidden)
                decoder_output = self.out(output)
                decoder_outputs.append(decoder_output)
                attentions.append(attn_weights)
                if target_tensor is not None and teacher[i]:
                    decoder_input = target_tensor[:, i].unsqueeze(1)
                else:
                    _, topi = decoder_output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()
            decoder_outputs = F.log_softmax(torch.cat(decoder_outputs, dim=1), dim=-1)
            return decoder_outputs, decoder_hidden, torch.cat(attentions, dim=1)

    rng = np.random.default_rng(42)

    def padded(vocab):
        out = np.zeros((bsz, max_len), dtype=np.int64)
        for row, n in zip(out, rng.integers(2, max_len, bsz)):
            row[: n - 1] = rng.integers(3, vocab, n - 1)
            row[n - 1] = EOS
        return out

    pairs = [(padded(in_vocab), padded(out_vocab)) for _ in range(4)]
    schedule = rng.random((len(pairs), max_len)) < 0.5  # teacher forcing, fixed per step
    encoder = run.start("encoder", EncoderRNN().double())
    decoder = run.start("decoder", AttnDecoderRNN().double())
    encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=0.01)
    decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=0.01)
    criterion = nn.NLLLoss(ignore_index=PAD)
    for (src, tgt), teacher in zip(pairs * 2, np.concatenate([schedule, schedule])):
        input_tensor, target_tensor = torch.tensor(src), torch.tensor(tgt)
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, _, attentions = decoder(
            encoder_outputs, encoder_hidden, target_tensor, teacher.tolist()
        )
        loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
        loss.backward()
        encoder_optimizer.step()
        decoder_optimizer.step()
        run.record("loss", loss.item())
        run.record("padding rows", [encoder.embedding.weight.grad[PAD].abs().sum().item(),
                                    decoder.embedding.weight.grad[PAD].abs().sum().item()])  # fmt: skip
    encoder.eval()
    decoder.eval()
    with torch.no_grad():
        encoder_outputs, encoder_hidden = encoder(torch.tensor(pairs[0][0]))
        decoder_outputs, _, attentions = decoder(encoder_outputs, encoder_hidden, None, None)
        run.record("greedy", decoder_outputs.topk(1)[1].squeeze(-1))
        run.record("attentions", attentions)
    run.finish("encoder", encoder)
    run.finish("decoder", decoder)
    record_optimizer(run, "decoder optimizer", decoder_optimizer)


# ------------------------------------------------------------------ vision
@program(rtol=1e-9, atol=1e-11)
def dcgan_conv_transpose_batchnorm_leaky_relu_bce_two_adams_detach(torch: Any, run: Run):
    nn = torch.nn
    nz, ngf, ndf, nc, bsz = 6, 4, 4, 1, 3

    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif classname.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
                nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
                nn.BatchNorm2d(ngf), nn.ReLU(True),
                nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
                nn.Tanh(),
            )  # fmt: skip

        def forward(self, input):
            return self.main(input)

    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
                nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
                nn.Sigmoid(),
            )  # fmt: skip

        def forward(self, input):
            return self.main(input)

    netG, netD = Generator().double(), Discriminator().double()
    netG.apply(weights_init)
    netD.apply(weights_init)
    run.start("netG", netG)
    run.start("netD", netD)
    criterion = nn.BCELoss()
    real_label, fake_label = 1.0, 0.0
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
    fixed_noise = torch.tensor(batches(43, 1, 2, nz, 1, 1)[0])
    for real, z in zip(np.tanh(batches(44, 4, bsz, nc, 16, 16)), batches(45, 4, bsz, nz, 1, 1)):
        # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        real_cpu = torch.tensor(real)
        label = torch.full((bsz,), real_label, dtype=torch.float64)
        output = netD(real_cpu).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        fake = netG(torch.tensor(z))
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()
        # (2) update G: maximize log(D(G(z)))
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        run.record("losses", [errD.item(), errG.item(), D_x, D_G_z1, D_G_z2])
    with torch.no_grad():
        run.record("fixed", netG(fixed_noise).detach().cpu())
    netG.eval()
    with torch.no_grad():
        run.record("fixed eval", netG(fixed_noise))
    run.finish("netG", netG)
    run.finish("netD", netD)
    record_optimizer(run, "optimizerD", optimizerD)
    record_optimizer(run, "optimizerG", optimizerG)


@program()
def spatial_transformer_affine_grid_grid_sample_align_corners_both(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self, align_corners):
            super().__init__()
            self.align_corners = align_corners
            self.conv1 = nn.Conv2d(1, 4, kernel_size=3)
            self.conv2 = nn.Conv2d(4, 6, kernel_size=3)
            self.conv2_drop = nn.Dropout2d(0.0)
            self.fc1 = nn.Linear(6 * 2 * 2, 10)
            self.fc2 = nn.Linear(10, 3)
            self.localization = nn.Sequential(
                nn.Conv2d(1, 4, kernel_size=3), nn.AvgPool2d(2, stride=2), nn.ReLU(True),
                nn.Conv2d(4, 5, kernel_size=3), nn.AvgPool2d(2, stride=2), nn.ReLU(True),
            )  # fmt: skip
            self.fc_loc = nn.Sequential(nn.Linear(5 * 2 * 2, 8), nn.ReLU(True), nn.Linear(8, 6))
            self.fc_loc[2].weight.data.zero_()
            self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

        def stn(self, x):
            xs = self.localization(x)
            xs = xs.view(-1, 5 * 2 * 2)
            theta = self.fc_loc(xs).view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=self.align_corners)
            return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros",
                                 align_corners=self.align_corners)  # fmt: skip

        def forward(self, x):
            x = self.stn(x)
            x = F.relu(F.avg_pool2d(self.conv1(x), 2))
            x = F.relu(F.avg_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 6 * 2 * 2)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, training=False)
            return F.log_softmax(self.fc2(x), dim=1)

    data = batches(46, 4, 3, 1, 14, 14)
    targets = labels(47, 4, 3, 3)
    for align_corners in (False, True):
        name = f"stn align_corners={align_corners}"
        model = run.start(name, Net(align_corners).double())
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        for x, y in zip(data, targets):
            model.train()
            optimizer.zero_grad()
            output = model(torch.tensor(x))
            loss = F.nll_loss(output, torch.tensor(y))
            loss.backward()
            optimizer.step()
            run.record("loss", loss.item())
        model.eval()
        with torch.no_grad():
            x = torch.tensor(data[0])
            transformed = model.stn(x)
            theta = model.fc_loc(model.localization(x).view(-1, 20)).view(-1, 2, 3)
            test_loss = F.nll_loss(model(x), torch.tensor(targets[0]), reduction="sum").item()
        run.record("theta", theta)
        run.record("transformed", transformed)
        run.record("test", test_loss)
        run.finish(name, model)


@program()
def fast_gradient_sign_attack_eval_model_input_grad_sign_clamp(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, 1)
            self.conv2 = nn.Conv2d(4, 6, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.fc1 = nn.Linear(6 * 4 * 4, 12)
            self.fc2 = nn.Linear(12, 4)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.relu(self.conv2(x))
            x = F.avg_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            return F.log_softmax(self.fc2(x), dim=1)

    def fgsm_attack(image, epsilon, data_grad):
        sign_data_grad = data_grad.sign()
        perturbed_image = image + epsilon * sign_data_grad
        return torch.clamp(perturbed_image, 0, 1)

    def denorm(batch, mean=(0.1307,), std=(0.3081,)):
        mean = torch.tensor(mean, dtype=batch.dtype).view(1, -1, 1, 1)
        std = torch.tensor(std, dtype=batch.dtype).view(1, -1, 1, 1)
        return batch * std + mean

    model = run.start("model", Net().double())
    model.eval()
    rng = np.random.default_rng(48)
    images = rng.random((6, 1, 1, 12, 12))
    targets = rng.integers(0, 4, (6, 1))
    for epsilon in (0.0, 0.05, 0.3):
        correct, examples = 0, []
        for image, target in zip(images, targets):
            data = (torch.tensor(image) - 0.1307) / 0.3081
            target = torch.tensor(target)
            data.requires_grad = True
            output = model(data)
            init_pred = output.max(1, keepdim=True)[1]
            loss = F.nll_loss(output, target)
            model.zero_grad()
            loss.backward()
            data_grad = data.grad.data
            data_denorm = denorm(data)
            perturbed_data = fgsm_attack(data_denorm, epsilon, data_grad)
            perturbed_data_normalized = (perturbed_data - 0.1307) / 0.3081
            output = model(perturbed_data_normalized)
            final_pred = output.max(1, keepdim=True)[1]
            if final_pred.item() == target.item():
                correct += 1
            adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
            examples.append((init_pred.item(), final_pred.item(), adv_ex.sum()))
            run.record("grad", data_grad)
        run.record("accuracy", [epsilon, correct / float(len(images)), examples])
    run.finish("model", model)

    # the same attack on a batch, with the input's requires_grad_ and an L-inf bound
    x = torch.tensor(images[:, 0]).requires_grad_()
    y = torch.tensor(targets[:, 0])
    loss = F.nll_loss(model(x), y, reduction="sum")
    (grad,) = torch.autograd.grad(loss, x)
    adv = (x + 0.1 * grad.sign()).clamp(min=0.0, max=1.0).detach()
    run.record("batch", [grad.sign(), adv, (adv - x).abs().amax().item(), model(adv).argmax(1)])


# ------------------------------------------------------------------ running and comparing
@pytest.mark.parametrize(
    ("fn", "rtol", "atol"), PROGRAMS, ids=[fn.__name__ for fn, _, _ in PROGRAMS]
)
def test_program_matches_pytorch(fn: Callable[..., None], rtol: float, atol: float) -> None:
    ours, theirs = run_both(fn)
    assert list(ours.log) == list(theirs.log)
    for key in theirs.log:
        assert_same(ours.log[key], theirs.log[key], rtol, atol, key)
