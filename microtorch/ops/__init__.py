"""The ops: one small ``Function`` class per op, forward next to backward, on raw arrays.

arithmetic.py   + - * / ** neg
elementwise.py  exp log sqrt rsqrt tanh sigmoid relu gelu abs clamp maximum minimum where cast
reduction.py    sum mean max min var
linalg.py       matmul linear
shape.py        reshape permute expand contiguous cat stack
indexing.py     x[...] index_put masked_fill tril triu gather
softmax.py      softmax log_softmax
loss.py         cross_entropy
binary_loss.py  binary_cross_entropy (on probabilities, on logits)
normalization.py layer_norm
embedding.py    embedding
dropout.py      dropout
attention.py    scaled_dot_product_attention
conv.py         im2col / col2im: the sliding windows of conv1d/2d, unfold/fold, avg pools
"""
