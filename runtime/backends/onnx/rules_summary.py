"""The ONNX side of `rt.summary`: a model writes no files, so the op writing a
TensorBoard summary has no ONNX equivalent (export refuses it, naming it)."""
from __future__ import annotations

from ...ops import summary_ops

NO_EQUIVALENT = {
    summary_ops.WRITE: "rt.summary writes TensorBoard files, which an ONNX model cannot; "
                       "export a function without rt.summary calls",
}
