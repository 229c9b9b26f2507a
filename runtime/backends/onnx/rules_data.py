"""The ONNX export's answer for the input pipelines' op (runtime/ops/buffer_ops.py)."""
from __future__ import annotations

from ...ops import buffer_ops

NO_EQUIVALENT = {
    buffer_ops.BUFFER_DRAIN: ("a shuffle buffer's last draws (ShuffleBufferDrain, a loop of "
                             "swaps) have no ONNX operator"),
}
