"""`rt.get_logger()`: the runtime's `logging.Logger` (TensorFlow's `tf.get_logger`)."""
from __future__ import annotations

import logging

__all__ = ["get_logger"]


def get_logger() -> logging.Logger:
    """The logger named "runtime", which the runtime's warnings go to (an optimizer's
    missing gradients, ...): set its level or handlers as for any `logging.Logger`.

    >>> rt.get_logger().name
    'runtime'
    """
    return logging.getLogger("runtime")
