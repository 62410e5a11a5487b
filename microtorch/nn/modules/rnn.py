"""torch.nn.modules.rnn: RNN, LSTM, GRU and their cells (PyTorch's module path)."""

from ..rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
