"""`rt.nn`: TensorFlow's `tf.nn` — activations, softmax, losses, dropout, moments, bias_add,
conv2d and pooling — with TensorFlow's names, arguments, defaults and results.

The activations, softmax, losses and moments are compositions of existing ops (their
shape inference, gradients, ONNX and XLA come from those ops), written in the numerically
stable forms TensorFlow uses; softplus is rt.math.softplus's op; conv2d, the pools and
Erf (for gelu) are ops of their own (`runtime/ops/nn_ops.py`).

    import runtime as rt
    rt.nn.relu(rt.constant([-1.0, 2.0]))                      # [0., 2.]
    rt.nn.softmax(rt.constant([[1.0, 2.0]]))                  # [[0.269, 0.731]]
"""
from __future__ import annotations

from ..ops.math_ops import sigmoid, tanh
from .activations import (elu, gelu, leaky_relu, log_softmax, relu, relu6, selu, silu, softmax,
                          softplus, swish)
from .conv import avg_pool2d, bias_add, conv2d, max_pool2d
from .conv_more import conv1d, conv2d_transpose, depthwise_conv2d, embedding_lookup
from .dropout import dropout
from .losses import (l2_loss, sigmoid_cross_entropy_with_logits,
                     softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits)
from .normalization import batch_normalization, l2_normalize, moments
from ..ops.math_compositions import in_top_k

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "sigmoid", "softmax",
           "log_softmax", "softplus", "dropout", "l2_loss", "moments", "bias_add",
           "sparse_softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "sigmoid_cross_entropy_with_logits", "conv2d", "max_pool2d", "avg_pool2d", "silu",
           "swish", "tanh", "batch_normalization", "l2_normalize", "conv1d", "conv2d_transpose",
           "depthwise_conv2d", "embedding_lookup", "in_top_k"]


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
