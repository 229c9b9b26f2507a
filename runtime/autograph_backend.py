"""The runtime's side of autograph's staging protocol (see `autograph.operators`).

Symbolic tensors name this backend in their class attribute `__autograph_backend__`;
autograph's operators call it when a condition or an iterable is symbolic, and never
import the runtime themselves.
"""
from __future__ import annotations


class RuntimeBackend:
    """Builds cond / while_loop nodes for autograph's `if`, `while` and `for`."""

    def convert(self, value):
        from .ops.core import convert_to_tensor
        return convert_to_tensor(value)

    def cond(self, pred, true_fn, false_fn, names, is_undefined):
        from .control_flow import stage_cond
        return stage_cond(pred, true_fn, false_fn, names=tuple(names), is_undefined=is_undefined)

    def while_loop(self, cond_fn, body_fn, init, names, is_undefined, opts=None):
        from .while_staging import stage_while
        opts = opts or {}
        return stage_while(cond_fn, body_fn, tuple(init), names=tuple(names),
                           maximum_iterations=opts.get("maximum_iterations"),
                           shape_invariants=opts.get("shape_invariants"),
                           relax_shapes=True, is_undefined=is_undefined)

    def iterate(self, iterable):
        from . import dtypes
        from .ops.array_ops import shape
        from .ops.core import constant
        from .ops.math_ops import cast
        t = iterable
        if t.shape.rank == 0:
            raise TypeError(f"cannot iterate over the scalar tensor {t!r}")
        first = t.shape[0] if t.shape.rank is not None else None
        n = constant(first, dtypes.int32) if first is not None else cast(shape(t)[0], dtypes.int32)
        return n, (lambda i: t[i])

    def range(self, start, limit, delta):
        from .ops.makers import range as range_
        return range_(start, limit, delta)

    def logical_not(self, x):
        from .ops.math_ops import logical_not
        from .ops.core import convert_to_tensor
        x = convert_to_tensor(x)
        if not x.dtype.is_bool:
            from .ops.math_ops import equal
            return equal(x, convert_to_tensor(0, dtype=x.dtype))
        return logical_not(x)

    def assert_(self, pred, message: str):
        from .ops.io_ops import assert_that
        assert_that(pred, message)


BACKEND = RuntimeBackend()
