"""What the ONNX rule modules share. A rule is `rule(exporter, op, input names) -> output
names`, written with the exporter's `one`/`add`/`const` helpers (see `export`)."""
from __future__ import annotations


def same(onnx_type):
    """The rule of an op that is the ONNX operator `onnx_type` of the same inputs."""
    return lambda ex, op, ins: [ex.one(onnx_type, ins)]
