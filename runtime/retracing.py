"""When an `rt.function` traces again: the relaxed shapes `reduce_retracing` traces with
(a traced function whose shapes fit a call, or the shapes that fit both), and the log of
each trace with the warning when most recent calls traced."""
from __future__ import annotations

import collections
import logging

import numpy as np

from . import signature, trace_keys
from .core.shapes import TensorShape, TensorSpec
from .core.tensor import SymbolicTensor, Tensor

logger = logging.getLogger("runtime")


def relaxed_match(previous: list, bound):
    """(ConcreteFunction, None) for the first of `previous` (traced with relaxed shapes,
    for the same dtypes and structure) whose shapes fit the call's arguments `bound`, else
    (None, the relaxed shapes to trace with: the last one's made to fit this call too)."""
    leaves = trace_keys.tensor_leaves(bound)
    for cf in previous:
        cspecs = [p.spec for p in cf.inputs_specs]
        if len(cspecs) == len(leaves) and all(
                s.shape.is_compatible_with(TensorShape(np.shape(getattr(v, "_value", v))
                                                       if not isinstance(v, (TensorSpec, SymbolicTensor))
                                                       else v.shape))
                for s, v in zip(cspecs, leaves)):
            return cf, None
    last = previous[-1]
    relaxed = []
    for p, v in zip(last.inputs_specs, leaves):
        shape = v.shape if isinstance(v, (Tensor, TensorSpec)) else TensorShape(np.shape(v))
        relaxed.append(TensorShape(p.spec.shape).most_specific_common(shape))
    return None, relaxed


class TraceLog:
    """A Function's recent calls (`recent`: True for a call that traced, the last 10) and
    the retracing warnings given, by reason."""

    def __init__(self):
        self.recent = collections.deque(maxlen=10)
        self.warnings: dict = {}    # reason -> times the retracing warning was due
        self.last_key = None

    def traced(self, name: str, sig, key, cf, trace_count: int) -> None:
        """Logs the trace (INFO), and warns when most recent calls traced: once per
        reason in full, then with a count at the 2nd, 4th, 8th... time."""
        why = trace_keys.why(sig, self.last_key, key)
        self.last_key = key
        if logger.isEnabledFor(logging.INFO):
            head = cf.pretty_printed_signature(verbose=False).partition("\n")[0]
            specs = ", ".join(f"{p.spec.name}: {signature.describe(p.spec.dtype, p.spec.shape)}"
                              for p in cf.inputs_specs)
            logger.info("rt.function: traced %s%s (trace %d, because %s)", head,
                        f" with {specs}" if specs else "", trace_count, why)
        self.recent.append(True)
        if sum(self.recent) < 5 or len(self.recent) < 5:
            return
        reason = why.partition(" changed")[0]      # "argument 'x'": one count per argument
        count = self.warnings[reason] = self.warnings.get(reason, 0) + 1
        if count == 1:
            logger.warning(
                "%d out of the last %d calls to %s triggered rt.function retracing. Tracing is "
                "expensive. This call retraced because %s. Pass tensors instead of Python "
                "values that change, use input_signature, or reduce_retracing=True.",
                sum(self.recent), len(self.recent), name, why)
        elif count & (count - 1) == 0:
            logger.warning("%s retraced for the same reason again (%d times since the first "
                           "warning): %s", name, count, why)
