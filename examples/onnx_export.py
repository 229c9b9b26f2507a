"""Export a function with a staged loop and branch to ONNX, and run the model with
onnxruntime against the function.

    pip install -e '.[onnx]' && python examples/onnx_export.py [MODEL.onnx]

`cond` becomes ONNX `If`, `while_loop` becomes `Loop`; inputs are named after the
function's arguments, outputs `output_0`, ...
"""
import os
import sys
import tempfile

import numpy as np

import runtime as rt


@rt.function(input_signature=[rt.TensorSpec([None], rt.float32), rt.TensorSpec([], rt.int32)])
def smooth(xs, rounds):
    """`rounds` passes of a 3-point moving average, the ends kept; negative values
    clipped to zero first when the mean is positive."""
    if rt.reduce_mean(xs) > 0.0:
        xs = rt.maximum(xs, 0.0)
    i = 0
    while i < rounds:
        inner = (xs[:-2] + xs[1:-1] + xs[2:]) / 3.0
        xs = rt.concat([xs[:1], inner, xs[-1:]], axis=0)
        i += 1
    return xs


if __name__ == "__main__":
    try:
        import onnxruntime
    except ImportError:
        print("this example needs onnx and onnxruntime: pip install -e '.[onnx]'")
        sys.exit(0)
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "smooth.onnx")
    model = rt.onnx.export(smooth, path)
    print("exported", path, "with ops:", sorted({n.op_type for n in model.graph.node}))
    xs = np.array([4.0, -1.0, 2.0, 8.0, 0.0, 6.0], np.float32)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    (onnx_out,) = session.run(None, {"xs": xs, "rounds": np.array(3, np.int32)})
    ours = smooth(xs, 3).numpy()
    print("rt.function:", np.round(ours, 4))
    print("onnxruntime:", np.round(onnx_out, 4))
    print("agree:", bool(np.allclose(ours, onnx_out, rtol=1e-6)))
