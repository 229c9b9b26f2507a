"""TruncatedNormal, StatelessRandom and CheckNumerics have no ONNX operator, nor have the
random draws whose shape is known only when the graph runs: the export refuses them,
saying so."""
from __future__ import annotations

from ...ops import numerics_ops, random_more, random_ops

_RUN_TIME_SHAPE = ("the export takes random draws of a shape known while tracing only (this "
                   "one's shape is known only when the graph runs: give the function's "
                   "input_signature known dimensions)")

NO_EQUIVALENT = {
    random_ops.UNIFORM_DYNAMIC: _RUN_TIME_SHAPE,
    random_ops.NORMAL_DYNAMIC: _RUN_TIME_SHAPE,
    random_ops.UNIFORM_INT_DYNAMIC: "ONNX draws random floats only",
    random_more.TRUNCATED_NORMAL_DYNAMIC: "ONNX has no truncated normal draw "
                                          "(rt.random.truncated_normal)",
    random_more.STATELESS_RANDOM_DYNAMIC: "ONNX models hold no generator state "
                                          "(rt.random.Generator)",
    random_more.TRUNCATED_NORMAL: "ONNX has no truncated normal draw "
                                  "(rt.random.truncated_normal)",
    random_more.STATELESS_RANDOM: "ONNX models hold no generator state (rt.random.Generator)",
    numerics_ops.CHECK_NUMERICS: "ONNX has no run-time check (rt.debugging.check_numerics: "
                                 "disable_check_numerics before tracing what you export)",
}
