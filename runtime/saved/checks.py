"""Checks of a loaded node beyond its op's inference rule: attributes that the kernels
trust (a print template's tensor indices, a slice spec), sizes that constants make
known (a Range or Fill of constants), and the agreement of a cond or while node with
its sub-graphs. Each takes (reader, where, inputs, attrs, declared output specs) and
raises the reader's error."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..control_flow import IF, IF_STATEFUL, WHILE, WHILE_STATEFUL, Body
from ..core.opdef import CONST, PLACEHOLDER, constant_value
from ..core.shapes import TensorShape
from ..ops import array_ops, io_ops, makers, slicing, state_ops, tensor_array
from . import format as fmt


def _check_const(r, w, inputs, attrs, specs):
    v, dt = attrs["value"], attrs["dtype"]
    if not isinstance(v, np.ndarray) or not isinstance(dt, dtypes.DType) or v.dtype != dt.np_dtype:
        raise r.fail(w + ".attrs.value", "a Const's value must be an array of its dtype")


def _check_placeholder(r, w, inputs, attrs, specs):
    if not isinstance(attrs["dtype"], dtypes.DType) or not isinstance(attrs["shape"], TensorShape):
        raise r.fail(w + ".attrs", "a Placeholder needs a dtype and a shape")


def _check_print(r, w, inputs, attrs, specs):
    ok = (isinstance(attrs["sep"], str) and isinstance(attrs["end"], str)
          and attrs["stream"] in (None, "sys.stdout", "sys.stderr")
          and isinstance(attrs["summarize"], int) and isinstance(attrs["template"], tuple))
    for pieces in attrs["template"] if ok else ():
        ok = ok and isinstance(pieces, tuple) and all(
            isinstance(p, str) or (isinstance(p, tuple) and len(p) == 2 and p[0] == "t"
                                   and isinstance(p[1], int) and 0 <= p[1] < len(inputs))
            for p in pieces)
    if not ok:
        raise r.fail(w + ".attrs", "malformed PrintV2 attributes")


def _check_assert(r, w, inputs, attrs, specs):
    if not isinstance(attrs["message"], str):
        raise r.fail(w + ".attrs.message", "expected a string")
    # the message reaches an error's text when the assertion fails: kept escaped
    attrs["message"] = fmt.escape(attrs["message"])


def _check_slice(r, w, inputs, attrs, specs):
    def part(v):
        return v is None or (isinstance(v, int) and not isinstance(v, bool)) or (
            isinstance(v, tuple) and len(v) == 2 and v[0] == "t" and isinstance(v[1], int)
            and 1 <= v[1] < len(inputs))
    spec = attrs["spec"]
    ok = isinstance(spec, tuple)
    for s in spec if ok else ():
        ok = ok and isinstance(s, tuple) and len(s) >= 1 and (
            (s[0] in ("ellipsis", "newaxis") and len(s) == 1)
            or (s[0] == "int" and len(s) == 2 and part(s[1]))
            or (s[0] == "slice" and len(s) == 4 and all(part(x) for x in s[1:])))
    if not ok:
        raise r.fail(w + ".attrs.spec", "malformed slice spec")


def _check_assign(r, w, inputs, attrs, specs):
    if attrs["mode"] not in ("set", "add", "sub"):
        raise r.fail(w + ".attrs.mode", "expected 'set', 'add' or 'sub'")


def _check_unstack(r, w, inputs, attrs, specs):
    if attrs["num"] != len(specs):
        raise r.fail(w + ".attrs.num", f"Unpack of {attrs['num']!r} values declares {len(specs)} outputs")


def _check_range(r, w, inputs, attrs, specs):
    vals = [constant_value(t) for t in inputs]
    if all(v is not None and np.ndim(v) == 0 for v in vals) and len(vals) == 3:
        start, limit, delta = (float(v) for v in vals)
        if not all(np.isfinite(v) for v in (start, limit, delta)):
            raise r.fail(w + ".inputs", f"a Range of {start}, {limit}, {delta}: each must be "
                                        "finite")
        if delta != 0 and (limit - start) / delta > fmt.MAX_ELEMENTS:
            raise r.fail(w, f"a Range of more than {fmt.MAX_ELEMENTS} elements")


def _check_dims(r, w, inputs, attrs, specs):
    dims = constant_value(inputs[0]) if inputs else None
    if dims is not None and dims.dtype.kind in "iu":
        r.size(TensorShape([max(int(d), 0) for d in np.reshape(dims, -1)][:fmt.MAX_RANK + 1]), w)


def _check_if(r, w, inputs, attrs, specs):
    if not inputs or inputs[0].dtype is not dtypes.bool_:
        raise r.fail(w + ".inputs", "a cond node's first input must be a bool predicate")
    for k in ("then_body", "else_body"):
        _check_body(r, f"{w}.attrs.{k}", attrs[k], inputs[1:], attrs["out_specs"], specs)


def _check_while(r, w, inputs, attrs, specs):
    n, has_max = attrs["num_loop_vars"], attrs["has_max"]
    if not isinstance(has_max, bool) or not isinstance(n, int) or not 0 <= n <= len(inputs) - has_max:
        raise r.fail(w + ".attrs", "num_loop_vars/has_max do not fit the inputs")
    ins = inputs[:-1] if has_max else inputs
    if has_max and inputs[-1].dtype is not dtypes.int32:
        raise r.fail(w + ".inputs", "maximum_iterations must be an int32")
    loop_specs = [(t.shape, t.dtype) for t in inputs[:n]]
    _check_body(r, w + ".attrs.cond_body", attrs["cond_body"], ins,
                [(TensorShape(()), dtypes.bool_)], None)
    _check_body(r, w + ".attrs.body", attrs["body"], ins, loop_specs, None, relaxed=True)
    if len(specs) != n or any(s[1] is not t.dtype for s, t in zip(specs, inputs)):
        raise r.fail(w + ".outputs", "a loop's outputs must be its loop variables")


def _check_body(r, w, body, inputs, out_specs, specs, relaxed=False):
    if not isinstance(body, Body):
        raise r.fail(w, "expected a sub-graph (kind 'body')")
    if len(body.params) != len(inputs):
        raise r.fail(w + ".params", f"{len(body.params)} parameters for {len(inputs)} inputs")
    for k, (p, t) in enumerate(zip(body.params, inputs)):
        if p is not None and p.dtype is not t.dtype:
            raise r.fail(f"{w}.params[{k}]", f"a {p.dtype.name} parameter for a {t.dtype.name} input")
    if not isinstance(out_specs, (tuple, list)) or len(body.outputs) != len(out_specs):
        raise r.fail(w + ".outputs", f"{len(body.outputs)} outputs, the node has "
                                     f"{len(out_specs) if isinstance(out_specs, tuple) else '?'}")
    for k, (t, spec) in enumerate(zip(body.outputs, out_specs)):
        if not (isinstance(spec, tuple) and len(spec) == 2 and spec[1] is t.dtype):
            raise r.fail(f"{w}.outputs[{k}]", f"gives a {t.dtype.name}, which does not fit {spec!r}")
        if not relaxed and not isinstance(spec[0], TensorShape):
            raise r.fail(f"{w}.outputs[{k}]", "the node's output spec needs a shape")
    if specs is not None and [d for _, d in specs] != [d for _, d in out_specs]:
        raise r.fail(w, "the node's outputs do not fit its sub-graph's")


CHECKS = {CONST: _check_const, PLACEHOLDER: _check_placeholder, io_ops.PRINT: _check_print,
          io_ops.ASSERT: _check_assert, slicing.SLICE: _check_slice,
          state_ops.ASSIGN: _check_assign, array_ops.UNSTACK: _check_unstack,
          makers.RANGE: _check_range, makers.FILL_DYNAMIC: _check_dims,
          tensor_array.CREATE: _check_dims, IF: _check_if, IF_STATEFUL: _check_if,
          WHILE: _check_while, WHILE_STATEFUL: _check_while}  # keyed by OpDef
