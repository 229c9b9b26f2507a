"""The numpy executor's compiled graph: `Plan` calls the generated function under numpy's
quiet error state, and turns a kernel's exception into an op error naming the node (and
where the user created it) of the generated line that raised it; `GuardedPlan` runs under
an element limit. The run guards' errors are here too (the generated code calls them).
"""
from __future__ import annotations

import numpy as np

from ...core.shapes import TensorShape
from ...core.opdef import quiet_numpy as _quiet_numpy, restore_numpy as _restore_numpy
from ...errors import InvalidArgumentError, OpError
from ...ops import limits


def too_many_iterations(n):
    raise InvalidArgumentError(
        f"the loops of this call ran {n} iterations, the most this graph may run "
        "(a loaded graph's guard: rt.saved.load(..., max_loop_iterations=...))")


def past_deadline(seconds):
    raise InvalidArgumentError(
        f"this call ran past its deadline of {seconds} s (a loaded graph's guard: "
        "rt.saved.load(..., deadline_seconds=...)); stopped at a loop iteration")


class Plan:
    """A compiled graph: call it with input arrays, get the output arrays."""

    def __init__(self, fn, source, filename, line_nodes, needed_placeholders, line_args=None):
        self.fn = fn
        self.source = source
        self.filename = filename
        self.line_nodes = line_nodes
        self.line_args = line_args or {}
        self.needed_placeholders = needed_placeholders

    def __call__(self, *arrays):
        token = _quiet_numpy()
        try:
            return self.fn(*arrays)
        except Exception as e:  # noqa: BLE001 - every kernel error becomes an op error
            raise self._op_error(e) from None
        finally:
            _restore_numpy(token)

    def _inferred_message(self, node, frame, line):
        """A kernel (numpy) failed: the node's inference rule, given the run-time shapes,
        usually says what was expected and given in the op's own words."""
        names = self.line_args.get(line)
        if names is None or frame is None:
            return None
        values = [frame.f_locals[n] if n in frame.f_locals else frame.f_globals.get(n)
                  for n in names]
        return _inferred_message_for(node, values)

    def _op_error(self, e):
        node, frame, line = None, None, None
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                if tb.tb_lineno in self.line_nodes:
                    node, frame, line = self.line_nodes[tb.tb_lineno], tb.tb_frame, tb.tb_lineno
            tb = tb.tb_next
        message = e.message if isinstance(e, OpError) else (
            self._inferred_message(node, frame, line) or f"{type(e).__name__}: {e}")
        if node is not None:
            where = ""
            if node.location:
                fn, line, func = node.location
                where = f", defined at {fn}:{line} in {func}"
            message = f"{message}\n  [[node {node.name} ({node.type}){where}]]"
        cls = type(e) if isinstance(e, OpError) else InvalidArgumentError
        err = cls(message, node.name if node is not None else None)
        return err


class GuardedPlan(Plan):
    """A plan run under an element limit (see ops.limits): kernels that allocate from
    computed sizes check it."""

    max_elements = None

    def __call__(self, *arrays):
        token = limits.limited(self.max_elements)
        try:
            return Plan.__call__(self, *arrays)
        finally:
            limits.restore(token)


class _Concrete:
    """An input of a failed node as its inference rule sees it: the run-time shape."""

    def __init__(self, value, dtype):
        self.shape = TensorShape(np.shape(value))
        self.dtype = dtype


def _inferred_message_for(node, values):
    try:
        node.opdef.infer([_Concrete(v, t.dtype) for v, t in zip(values, node.inputs)],
                         **node.attrs)
    except InvalidArgumentError as e:
        return e.message
    except Exception:  # noqa: BLE001 - only a better message is at stake
        return None
    return None
