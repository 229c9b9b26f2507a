"""TruncatedNormal, StatelessRandom and CheckNumerics have no ONNX operator: the export
refuses them, saying so."""
from __future__ import annotations

from ...ops import numerics_ops, random_more

NO_EQUIVALENT = {
    random_more.TRUNCATED_NORMAL: "ONNX has no truncated normal draw "
                                  "(rt.random.truncated_normal)",
    random_more.STATELESS_RANDOM: "ONNX models hold no generator state (rt.random.Generator)",
    numerics_ops.CHECK_NUMERICS: "ONNX has no run-time check (rt.debugging.check_numerics: "
                                 "disable_check_numerics before tracing what you export)",
}
