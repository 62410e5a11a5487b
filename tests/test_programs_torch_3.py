"""A third dozen whole PyTorch programs, run side by side in PyTorch and microtorch.

Same harness as tests/test_programs_torch.py: each program is a function of the library
module, run first with PyTorch (which records the initial ``state_dict`` of every model),
then with microtorch (which loads that state first); every recorded series (losses,
outputs, optimizer states) and, at the end, every parameter, buffer and gradient must
agree: ~1e-10 in float64, ~1e-5 in float32.

The programs follow PyTorch's examples and tutorials: word-level language models (LSTM
and Transformer), name classification with RNNs and packed sequences, seq2seq with
attention and with nn.Transformer, DCGAN, a spatial transformer, the fast gradient sign
attack, DQN, siamese networks, transfer learning, a small graph network and a CTC speech
model. Dropout is either 0 or in eval mode: the two libraries' random streams differ.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from .test_programs_torch import Run, assert_program_matches, batches, labels, registry
from .test_programs_torch_2 import record_optimizer

torch = pytest.importorskip("torch")

PROGRAMS, program = registry()


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
def packed_sequences_bidirectional_lstm_gru_pad_pack_unsorted_lengths(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    rnn_utils = torch.nn.utils.rnn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 5, padding_idx=0)
            self.lstm = nn.LSTM(5, 6, num_layers=2, bidirectional=True, batch_first=True)
            self.gru = nn.GRU(12, 4)
            self.fc = nn.Linear(4 + 12, 3)

        def forward(self, x, lengths):
            packed = rnn_utils.pack_padded_sequence(self.emb(x), lengths, batch_first=True,
                                                    enforce_sorted=False)  # fmt: skip
            out, (h, c) = self.lstm(packed)
            padded, lens = rnn_utils.pad_packed_sequence(out, batch_first=True,
                                                         total_length=x.size(1))  # fmt: skip
            seqs = rnn_utils.unpad_sequence(padded, lens, batch_first=True)
            _, h_gru = self.gru(rnn_utils.pack_sequence(seqs, enforce_sorted=False))
            features = torch.cat([h_gru[-1], h[-2], h[-1]], 1)  # last layer, both directions
            return F.log_softmax(self.fc(features), 1), padded

    model = run.start("model", Classifier().double())
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.5, centered=True)
    rng = np.random.default_rng(58)
    for _ in range(4):
        lengths = rng.integers(1, 7, 4)
        x = rnn_utils.pad_sequence([torch.tensor(rng.integers(1, 10, n)) for n in lengths],
                                   batch_first=True)  # fmt: skip
        out, padded = model(x, torch.tensor(lengths))
        loss = F.nll_loss(out, torch.tensor(rng.integers(0, 3, 4)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.record("loss", [loss.item(), padded])
    run.finish("model", model)
    record_optimizer(run, "optimizer", opt)


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


@program(atol=1e-9)  # key biases: exactly zero gradients up to rounding (see the first file)
def seq2seq_nn_transformer_translation_padding_masks_label_smoothing_greedy(torch: Any, run: Run):
    nn = torch.nn
    src_vocab, tgt_vocab, emb_size, PAD, BOS = 13, 11, 8, 1, 2

    class TokenEmbedding(nn.Module):
        def __init__(self, vocab_size):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD)

        def forward(self, tokens):
            return self.embedding(tokens.long()) * math.sqrt(emb_size)

    class PositionalEncoding(nn.Module):
        def __init__(self, maxlen=32):
            super().__init__()
            den = torch.exp(-torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
            pos = torch.arange(0, maxlen).reshape(maxlen, 1)
            pos_embedding = torch.zeros((maxlen, emb_size))
            pos_embedding[:, 0::2] = torch.sin(pos * den)
            pos_embedding[:, 1::2] = torch.cos(pos * den)
            self.register_buffer("pos_embedding", pos_embedding.unsqueeze(-2))

        def forward(self, token_embedding):
            return token_embedding + self.pos_embedding[: token_embedding.size(0), :]

    class Seq2SeqTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.Transformer(d_model=emb_size, nhead=2, num_encoder_layers=2,
                                              num_decoder_layers=2, dim_feedforward=16,
                                              dropout=0.0)  # fmt: skip
            self.generator = nn.Linear(emb_size, tgt_vocab)
            self.src_tok_emb = TokenEmbedding(src_vocab)
            self.tgt_tok_emb = TokenEmbedding(tgt_vocab)
            self.positional_encoding = PositionalEncoding()

        def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask):
            src_emb = self.positional_encoding(self.src_tok_emb(src))
            tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
            outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                    src_padding_mask, tgt_padding_mask, src_padding_mask)  # fmt: skip
            return self.generator(outs)

        def encode(self, src, src_mask):
            return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)),
                                            src_mask)  # fmt: skip

        def decode(self, tgt, memory, tgt_mask):
            return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)),
                                            memory, tgt_mask)  # fmt: skip

    def generate_square_subsequent_mask(sz):
        mask = (torch.triu(torch.ones((sz, sz))) == 1).transpose(0, 1)
        return mask.double().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, 0.0)

    def create_mask(src, tgt):
        tgt_mask = generate_square_subsequent_mask(tgt.shape[0])
        src_mask = torch.zeros((src.shape[0], src.shape[0])).type(torch.bool)
        return src_mask, tgt_mask, (src == PAD).transpose(0, 1), (tgt == PAD).transpose(0, 1)

    model = Seq2SeqTransformer().double()
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    run.start("model", model)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    rng = np.random.default_rng(57)

    def batch():
        src, tgt = rng.integers(3, src_vocab, (7, 3)), rng.integers(3, tgt_vocab, (6, 3))
        src[5:, 0], tgt[4:, 1], tgt[0] = PAD, PAD, BOS
        return torch.tensor(src), torch.tensor(tgt)

    model.train()
    for _ in range(3):
        src, tgt = batch()
        tgt_input = tgt[:-1, :]
        masks = create_mask(src, tgt_input)
        logits = model(src, tgt_input, *masks)
        optimizer.zero_grad()
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt[1:, :].reshape(-1))
        loss.backward()
        optimizer.step()
        run.record("loss", loss.item())
    model.eval()
    src = batch()[0][:, :1]
    memory = model.encode(src, torch.zeros(src.shape[0], src.shape[0]).type(torch.bool))
    ys = torch.ones(1, 1).fill_(BOS).type(torch.long)
    for _ in range(4):  # greedy decoding
        out = model.decode(ys, memory, generate_square_subsequent_mask(ys.size(0)).bool())
        prob = model.generator(out.transpose(0, 1)[:, -1])
        _, next_word = torch.max(prob, dim=1)
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word.item())], dim=0)
        run.record("prob", prob)
    run.record("ys", ys)
    run.finish("model", model)


# ------------------------------------------------------------------ vision
@program()
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


# ------------------------------------------------------------------ reinforcement, metric learning
@program()
def dqn_target_network_gather_smooth_l1_soft_update_replay(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    n_observations, n_actions, BATCH_SIZE, GAMMA, TAU, LR = 4, 3, 5, 0.99, 0.005, 1e-3

    class DQN(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer1 = nn.Linear(n_observations, 16)
            self.layer2 = nn.Linear(16, 16)
            self.layer3 = nn.Linear(16, n_actions)

        def forward(self, x):
            x = F.relu(self.layer1(x))
            x = F.relu(self.layer2(x))
            return self.layer3(x)

    policy_net = run.start("policy", DQN().double())
    target_net = DQN().double()
    target_net.load_state_dict(policy_net.state_dict())
    optimizer = torch.optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
    rng = np.random.default_rng(50)
    # a fixed replay memory: (state, action, next_state or None, reward)
    memory = []
    for _ in range(20):
        done = rng.random() < 0.2
        memory.append((rng.standard_normal(n_observations), int(rng.integers(n_actions)),
                       None if done else rng.standard_normal(n_observations),
                       float(rng.standard_normal())))  # fmt: skip
    for step in range(6):
        transitions = [memory[i] for i in rng.choice(len(memory), BATCH_SIZE, replace=False)]
        state, action, next_state, reward = zip(*transitions)
        non_final_mask = torch.tensor([s is not None for s in next_state], dtype=torch.bool)
        non_final_next_states = torch.cat(
            [torch.tensor(s).unsqueeze(0) for s in next_state if s is not None]
        )
        state_batch = torch.cat([torch.tensor(s).unsqueeze(0) for s in state])
        action_batch = torch.tensor(action).unsqueeze(1)
        reward_batch = torch.tensor(reward)
        state_action_values = policy_net(state_batch).gather(1, action_batch)
        next_state_values = torch.zeros(BATCH_SIZE, dtype=torch.float64)
        with torch.no_grad():
            next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
        expected_state_action_values = (next_state_values * GAMMA) + reward_batch
        criterion = nn.SmoothL1Loss()
        loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
        optimizer.step()
        # soft update of the target network: a dict of state tensors, then in place
        if step % 2 == 0:
            target_net_state_dict = target_net.state_dict()
            policy_net_state_dict = policy_net.state_dict()
            for key in policy_net_state_dict:
                mixed = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
                target_net_state_dict[key] = mixed
            target_net.load_state_dict(target_net_state_dict)
        elif step % 3 == 1:
            with torch.no_grad():
                for tp, p in zip(target_net.parameters(), policy_net.parameters()):
                    tp.mul_(1 - TAU).add_(p, alpha=TAU)
        else:
            with torch.no_grad():
                for tp, p in zip(target_net.parameters(), policy_net.parameters()):
                    tp.lerp_(p, TAU)
        with torch.no_grad():
            greedy = policy_net(state_batch).max(1).indices.view(1, 1 * BATCH_SIZE)
        run.record("step", [loss.item(), state_action_values, greedy])
    run.record("target", {k: v for k, v in target_net.state_dict().items()})
    run.finish("policy", policy_net)
    record_optimizer(run, "optimizer", optimizer)


@program()
def siamese_pairwise_distance_cosine_similarity_triplet_cosine_contrastive(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional

    class SiameseNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.cnn1 = nn.Sequential(
                nn.Conv2d(1, 4, kernel_size=3), nn.ReLU(inplace=True),
                nn.AvgPool2d(2, stride=2),  # (max pooling: an exercise left for learners)
                nn.Conv2d(4, 6, kernel_size=3), nn.ReLU(inplace=True),
            )  # fmt: skip
            self.fc1 = nn.Sequential(nn.Linear(6 * 2 * 2, 16), nn.ReLU(inplace=True),
                                     nn.Linear(16, 5))  # fmt: skip

        def forward_once(self, x):
            output = self.cnn1(x)
            output = output.view(output.size()[0], -1)
            return self.fc1(output)

        def forward(self, input1, input2):
            return self.forward_once(input1), self.forward_once(input2)

    class ContrastiveLoss(nn.Module):
        def __init__(self, margin=2.0):
            super().__init__()
            self.margin = margin

        def forward(self, output1, output2, label):
            euclidean_distance = F.pairwise_distance(output1, output2, keepdim=True)
            return torch.mean((1 - label) * torch.pow(euclidean_distance, 2)
                              + label * torch.pow(torch.clamp(self.margin - euclidean_distance,
                                                              min=0.0), 2))  # fmt: skip

    net = run.start("siamese", SiameseNetwork().double())
    contrastive = ContrastiveLoss()
    triplet = nn.TripletMarginLoss(margin=1.0, p=2)
    triplet_swap = nn.TripletMarginLoss(margin=0.5, p=1, swap=True, reduction="sum")
    cosine = nn.CosineEmbeddingLoss(margin=0.2)
    optimizer = torch.optim.Adam(net.parameters(), lr=5e-4)
    rng = np.random.default_rng(51)
    for _ in range(4):
        img0, img1, img2 = (torch.tensor(rng.standard_normal((4, 1, 10, 10))) for _ in range(3))
        same = rng.integers(0, 2, (4, 1)).astype(np.float64)
        label = torch.tensor(same)
        optimizer.zero_grad()
        output1, output2 = net(img0, img1)
        output3 = net.forward_once(img2)
        loss_contrastive = contrastive(output1, output2, label)
        loss_triplet = triplet(output1, output2, output3) + triplet_swap(output1, output2, output3)
        target = torch.tensor(1 - 2 * same[:, 0])  # 1: similar, -1: dissimilar
        loss_cosine = cosine(output1, output2, target)
        loss = loss_contrastive + loss_triplet + loss_cosine
        loss.backward()
        optimizer.step()
        run.record("losses", [loss_contrastive.item(), loss_triplet.item(), loss_cosine.item()])
        with torch.no_grad():
            run.record("similarity", [F.pairwise_distance(output1, output2),
                                      F.pairwise_distance(output1, output2, p=1.0, eps=1e-3),
                                      F.cosine_similarity(output1, output2),
                                      F.cosine_similarity(output1[:, None], output2[None], dim=-1),
                                      torch.cdist(output1, output3)])  # fmt: skip
    run.finish("siamese", net)
    record_optimizer(run, "optimizer", optimizer)


# ------------------------------------------------------------------ transfer learning, graphs, speech
@program()
def transfer_learning_frozen_backbone_new_head_param_groups_steplr(torch: Any, run: Run):
    nn = torch.nn

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(6)
            self.layer1 = nn.Sequential(nn.Conv2d(6, 6, 3, padding=1), nn.BatchNorm2d(6),
                                        nn.ReLU())  # fmt: skip
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(6, 10)

        def forward(self, x):
            x = torch.relu(self.bn1(self.conv1(x)))
            x = self.layer1(x)
            return self.fc(torch.flatten(self.avgpool(x), 1))

    pretrained = run.start("pretrained", Backbone().double())
    # as a fixed feature extractor: everything frozen, a new head trained
    model_conv = Backbone().double()
    model_conv.load_state_dict(pretrained.state_dict())
    for param in model_conv.parameters():
        param.requires_grad = False
    num_ftrs = model_conv.fc.in_features
    model_conv.fc = nn.Linear(num_ftrs, 2).double()
    run.start("new head", model_conv.fc)
    criterion = nn.CrossEntropyLoss()
    optimizer_conv = torch.optim.SGD(
        filter(lambda p: p.requires_grad, model_conv.parameters()), lr=0.01, momentum=0.9
    )
    exp_lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer_conv, step_size=2, gamma=0.1)
    data, targets = batches(52, 5, 4, 3, 6, 6), labels(53, 5, 2, 4)
    for x, y in zip(data, targets):
        model_conv.train()  # the frozen batch norms still update their running statistics
        optimizer_conv.zero_grad()
        with torch.set_grad_enabled(True):
            outputs = model_conv(torch.tensor(x))
            _, preds = torch.max(outputs, 1)
            loss = criterion(outputs, torch.tensor(y))
            loss.backward()
            optimizer_conv.step()
        exp_lr_scheduler.step()
        correct = torch.sum(preds == torch.tensor(y)).item()
        run.record("fixed features", [loss.item(), correct, exp_lr_scheduler.get_last_lr()])
    run.record("frozen grads", [p.grad is None for p in model_conv.parameters()])
    run.finish("model_conv", model_conv)
    record_optimizer(run, "optimizer_conv", optimizer_conv)

    # fine-tuning: the backbone at a lower learning rate, the first block frozen by
    # requires_grad_(False), a new head; eval() for the frozen block's batch norm
    model_ft = Backbone().double()
    model_ft.load_state_dict(pretrained.state_dict())
    model_ft.conv1.requires_grad_(False)
    model_ft.bn1.requires_grad_(False)
    model_ft.fc = nn.Sequential(nn.Dropout(0.0), nn.Linear(num_ftrs, 3)).double()
    run.start("fine-tuned head", model_ft.fc)
    head = list(model_ft.fc.parameters())
    body = [p for n, p in model_ft.named_parameters() if p.requires_grad and not n.startswith("fc")]
    optimizer_ft = torch.optim.SGD([{"params": body, "lr": 1e-3},
                                    {"params": head}], lr=1e-2, momentum=0.9,
                                   weight_decay=1e-4)  # fmt: skip
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer_ft, step_size=1, gamma=0.5)
    for x, y in zip(data, labels(54, 5, 3, 4)):
        model_ft.train()
        model_ft.bn1.eval()
        optimizer_ft.zero_grad()
        loss = criterion(model_ft(torch.tensor(x)), torch.tensor(y))
        loss.backward()
        optimizer_ft.step()
        scheduler.step()
        run.record("fine-tuning", [loss.item(), scheduler.get_last_lr()])
    run.record("trainable", [n for n, p in model_ft.named_parameters() if p.requires_grad])
    run.finish("model_ft", model_ft)
    record_optimizer(run, "optimizer_ft", optimizer_ft)


@program()
def graph_network_index_add_scatter_add_bincount_segment_means(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    num_nodes, in_dim, hidden, num_classes = 7, 4, 8, 3
    rng = np.random.default_rng(55)
    edges = np.array([[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3], [6, 0], [2, 6], [1, 1]]).T
    edge_index = torch.tensor(np.concatenate([edges, edges[::-1]], axis=1))  # undirected
    x = torch.tensor(rng.standard_normal((num_nodes, in_dim)))
    y = torch.tensor(rng.integers(0, num_classes, num_nodes))
    graph_of_node = torch.tensor([0, 0, 0, 1, 1, 1, 0])
    edge_weight = torch.tensor(rng.random(edge_index.shape[1]))

    class MeanConv(nn.Module):
        """h_i = W_self x_i + W_neigh mean_{j -> i} x_j, the mean by index_add_ and bincount."""

        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.lin_self = nn.Linear(in_channels, out_channels)
            self.lin_neigh = nn.Linear(in_channels, out_channels, bias=False)

        def forward(self, x, edge_index):
            src, dst = edge_index
            agg = torch.zeros_like(x).index_add_(0, dst, x[src])
            deg = torch.bincount(dst, minlength=x.size(0)).clamp(min=1).to(x.dtype)
            return self.lin_self(x) + self.lin_neigh(agg / deg.unsqueeze(-1))

    class GCNConv(nn.Module):
        """Symmetric-normalized weighted sums by scatter_add_, with self loops."""

        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.lin = nn.Linear(in_channels, out_channels, bias=False)
            self.bias = nn.Parameter(torch.zeros(out_channels))

        def forward(self, x, edge_index, edge_weight):
            loops = torch.arange(x.size(0))
            src = torch.cat([edge_index[0], loops])
            dst = torch.cat([edge_index[1], loops])
            w = torch.cat([edge_weight, torch.ones(x.size(0), dtype=x.dtype)])
            deg = torch.zeros(x.size(0), dtype=x.dtype).scatter_add_(0, dst, w)
            norm = deg.pow(-0.5)[src] * w * deg.pow(-0.5)[dst]
            h = self.lin(x)
            msg = norm.unsqueeze(-1) * h.index_select(0, src)
            out = torch.zeros_like(h).scatter_add_(0, dst.unsqueeze(-1).expand_as(msg), msg)
            return out + self.bias

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = MeanConv(in_dim, hidden)
            self.conv2 = GCNConv(hidden, num_classes)
            self.readout = nn.Linear(hidden, 2)

        def forward(self, x, edge_index, edge_weight, graph_of_node):
            h = F.relu(self.conv1(x, edge_index))
            h = F.dropout(h, p=0.5, training=False)
            node_out = self.conv2(h, edge_index, edge_weight)
            # graph-level readout: per-graph means of the node states
            counts = torch.bincount(graph_of_node).to(h.dtype)
            sums = torch.zeros(2, hidden, dtype=h.dtype).index_add(0, graph_of_node, h)
            return F.log_softmax(node_out, dim=1), self.readout(sums / counts[:, None])

    model = run.start("gnn", Net().double())
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    train_mask = torch.tensor([True, True, False, True, False, True, True])
    graph_labels = torch.tensor([1, 0])
    for _ in range(6):
        model.train()
        optimizer.zero_grad()
        out, graph_out = model(x, edge_index, edge_weight, graph_of_node)
        loss = F.nll_loss(out[train_mask], y[train_mask])
        loss = loss + F.cross_entropy(graph_out, graph_labels)
        loss.backward()
        optimizer.step()
        run.record("loss", loss.item())
    model.eval()
    with torch.no_grad():
        out, graph_out = model(x, edge_index, edge_weight, graph_of_node)
        pred = out.argmax(dim=1)
        correct = (pred[~train_mask] == y[~train_mask]).sum()
    run.record("eval", [pred, int(correct) / int((~train_mask).sum()), graph_out])
    run.record("degrees", torch.bincount(edge_index[1], weights=edge_weight, minlength=8))
    run.finish("gnn", model)
    record_optimizer(run, "optimizer", optimizer)


@program()
def ctc_speech_conv1d_bidirectional_gru_log_softmax_ctc_loss(torch: Any, run: Run):
    nn, F = torch.nn, torch.nn.functional
    n_feats, n_class, hidden, bsz, T = 6, 5, 8, 3, 16  # class 0: the blank

    class SpeechModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.cnn = nn.Sequential(nn.Conv1d(n_feats, 8, kernel_size=3, stride=1, padding=1),
                                     nn.GELU(), nn.BatchNorm1d(8),
                                     nn.Conv1d(8, 8, kernel_size=3, stride=2, padding=1))  # fmt: skip
            self.rnn = nn.GRU(8, hidden, num_layers=2, batch_first=True, bidirectional=True)
            self.layer_norm = nn.LayerNorm(2 * hidden)
            self.classifier = nn.Linear(2 * hidden, n_class)

        def forward(self, x):  # x (N, n_feats, T)
            x = self.cnn(x).transpose(1, 2)  # (N, T', 8)
            x, _ = self.rnn(x)
            x = self.classifier(F.gelu(self.layer_norm(x)))
            return F.log_softmax(x, dim=2).transpose(0, 1)  # (T', N, C) for CTC

    model = run.start("speech", SpeechModel().double())
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=5e-3, total_steps=5,
                                                    anneal_strategy="linear")  # fmt: skip
    rng = np.random.default_rng(56)
    for reduction, zero_infinity in (("mean", False), ("sum", True), ("mean", True),
                                     ("none", False), ("mean", False)):  # fmt: skip
        criterion = nn.CTCLoss(blank=0, reduction=reduction, zero_infinity=zero_infinity)
        spectrograms = torch.tensor(rng.standard_normal((bsz, n_feats, T)))
        input_lengths = torch.tensor([8, 7, 5])  # frames after the stride-2 conv (8)
        target_lengths = torch.tensor([3, 4, 2])
        # padded (N, S) targets, and the same concatenated
        targets = torch.tensor(rng.integers(1, n_class, (bsz, 4)))
        flat = torch.cat([targets[i, :n] for i, n in enumerate(target_lengths.tolist())])
        output = model(spectrograms)
        loss = criterion(output, targets, input_lengths, target_lengths)
        same = criterion(output, flat, input_lengths, target_lengths)
        if reduction == "none":
            run.record("per sample", loss)
            loss = loss.mean()
            same = same.mean()
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        run.record("loss", [loss.item(), same.item(), scheduler.get_last_lr()])
    # an impossible alignment (3 labels with a repeat need 4 frames, 3 given): inf, or 0
    impossible = torch.tensor([[1, 1, 2]])
    out = model(torch.tensor(rng.standard_normal((1, n_feats, 6))))
    lengths = (torch.tensor([3]), torch.tensor([3]))
    run.record("impossible", [F.ctc_loss(out, impossible, *lengths).item(),
                              F.ctc_loss(out, impossible, *lengths, zero_infinity=True).item()])  # fmt: skip
    model.eval()
    with torch.no_grad():
        greedy = model(spectrograms).argmax(2).t()
    run.record("greedy", greedy)
    run.finish("speech", model)
    record_optimizer(run, "optimizer", optimizer)


# ------------------------------------------------------------------ running and comparing
# both libraries warn alike for the translation model's mixed masks (the tutorial's own)
@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")
@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # PyTorch's fast path
@pytest.mark.parametrize(
    ("fn", "rtol", "atol"), PROGRAMS, ids=[fn.__name__ for fn, _, _ in PROGRAMS]
)
def test_program_matches_pytorch(fn: Callable[..., None], rtol: float, atol: float) -> None:
    assert_program_matches(fn, rtol, atol)
