"""The XLA backend's op rules: how each op of `runtime.ops.registry()` becomes jax.numpy /
lax, keyed by OpDef objects (see runtime/backends/xla/backend.py for the walk, control flow,
variables and effects).

A rule is `rule(lw, op, *args) -> value` (a tuple for a `multi_output` op), where `lw` is
the lowerer (its `check` adds a run-time error check; its `state` holds the variables'
current values) and `args` are the lowered inputs: jax arrays, or numpy arrays when the
value is known while tracing (constants, shapes). Each rule matches the op's numpy kernel:
dtypes, numpy's floor semantics for integer `//` and `%`, the run-time errors (integer
division by zero, out-of-range gather and index) raised with the kernel's message.

`STATIC` holds, per OpDef, a function saying why a given node cannot lower (or None)
before anything is traced; `jax_analysis.reason(op)` gives it for any node.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ...errors import InvalidArgumentError, OpError
from ...ops import (array_ops, broadcast_ops, core, io_ops, makers, math_ops, pad_ops, random_ops,
                  reduce_ops, slicing, state_ops)


class Unsupported(Exception):
    """A node cannot lower to XLA (the message says why); found while tracing."""


def is_concrete(v) -> bool:
    return isinstance(v, (np.ndarray, np.generic))


def _np(dtype):
    return dtype.np_dtype


RULES: dict = {}
STATIC: dict = {}


def rule(*opdefs):
    def register(fn):
        for d in opdefs:
            RULES[d] = fn
        return fn
    return register


# -- identity, fills -----------------------------------------------------------------------

@rule(core.IDENTITY)
def _identity(lw, op, x):
    return x


@rule(core.STOP_GRADIENT)
def _stop_gradient(lw, op, x):
    return x if is_concrete(x) else lax.stop_gradient(x)


@rule(core.FULL_LIKE)
def _full_like(lw, op, x):
    return jnp.full(jnp.shape(x), op.attrs["fill_value"], dtype=_np(op.attrs["dtype"]))


@rule(core.STACK)
def _pack(lw, op, *xs):
    return jnp.stack(xs, axis=op.attrs["axis"])


@rule(core.UNSTACK)
def _unpack(lw, op, x):
    axis, num = op.attrs["axis"], op.attrs["num"]
    if jnp.shape(x)[axis] != num:
        raise InvalidArgumentError(f"Unpack: expected {num} values along axis {axis}, "
                                   f"got {jnp.shape(x)[axis]}")
    return tuple(jnp.take(x, i, axis=axis) for i in range(num))


# -- elementwise -------------------------------------------------------------------------

def _sigmoid(x):
    return (1 / (1 + jnp.exp(-x))).astype(x.dtype)


def _unary(fn):
    return lambda lw, op, x: fn(x)


def _binary(fn):
    return lambda lw, op, x, y: fn(x, y)


# The elementwise tables of math_ops name each op's public function, which jax.numpy has
# under the same name (the few that differ are set after).
ELEMENTWISE = {public: math_ops.UNARY[name] for name, public, *_ in math_ops.UNARY_TABLE}
ELEMENTWISE.update({public: math_ops.BINARY[name] for name, public, *_ in math_ops.BINARY_TABLE})
for _public, _d in ELEMENTWISE.items():
    if hasattr(jnp, _public):
        RULES[_d] = (_binary if _d in math_ops.BINARY.values() else _unary)(
            getattr(jnp, _public))


def _truediv(x, y):
    if jnp.result_type(x).kind in "iu":  # TensorFlow: int / int -> float64
        x, y = jnp.asarray(x, jnp.float64), jnp.asarray(y, jnp.float64)
    shape = jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))
    if is_concrete(y) or jnp.shape(y) != shape:
        # XLA multiplies by the reciprocal of a constant or broadcast divisor (not
        # numpy's correctly rounded quotient) unless the divisor is a full opaque array
        y = lax.optimization_barrier(jnp.broadcast_to(jnp.asarray(y), shape))
    return jnp.true_divide(x, y)


def _division_by_zero(*_):
    return InvalidArgumentError("Integer division by zero")


def _integer_checked(fn):
    """numpy's kernel raises on an integer divided by zero: so does the lowered op (a
    check at run time, unless the divisor is a constant)."""
    def lower(lw, op, x, y):
        if op.inputs[1].dtype.is_integer:
            lw.defer(op, np.any(y == 0) if is_concrete(y) else jnp.any(y == 0),
                     _division_by_zero)
        return fn(x, y)
    return lower


def _negative_power(*_):
    return InvalidArgumentError("ValueError: Integers to negative integer powers are not "
                                "allowed.")


def _power(lw, op, x, y):
    """numpy's kernel raises on an integer to a negative integer power (XLA gives 0):
    so does the lowered op (a check at run time, unless the exponent is a constant)."""
    if op.inputs[1].dtype.is_integer:
        lw.defer(op, np.any(y < 0) if is_concrete(y) else jnp.any(y < 0), _negative_power)
    return jnp.power(x, y)


RULES[ELEMENTWISE["pow"]] = _power
RULES[ELEMENTWISE["sigmoid"]] = _unary(_sigmoid)
RULES[ELEMENTWISE["divide"]] = _binary(_truediv)
RULES[ELEMENTWISE["floordiv"]] = _integer_checked(jnp.floor_divide)
RULES[ELEMENTWISE["mod"]] = _integer_checked(jnp.mod)


@rule(math_ops.MATMUL)
def _matmul(lw, op, a, b):
    if op.attrs["transpose_a"]:
        a = jnp.swapaxes(a, -1, -2)
    if op.attrs["transpose_b"]:
        b = jnp.swapaxes(b, -1, -2)
    # HIGHEST: float32 products in float32, as numpy (a GPU would otherwise use TF32)
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST,
                      preferred_element_type=_np(op.outputs[0].dtype))


@rule(math_ops.SELECT)
def _select(lw, op, c, x, y):
    return jnp.where(c, x, y)


@rule(math_ops.WHERE_INDICES)
def _where_indices(lw, op, c):
    raise Unsupported("its number of results depends on the values (XLA needs every shape "
                      "while compiling)")


@rule(math_ops.CAST)
def _cast(lw, op, x):
    return jnp.asarray(x).astype(_np(op.attrs["dtype"]))


# -- reductions ----------------------------------------------------------------------------

def _axis(op):
    axis = op.attrs["axis"]
    return None if axis is None else tuple(axis)


REDUCTIONS = {public: reduce_ops.REDUCE[name] for name, public, *_ in reduce_ops.REDUCE_TABLE}


def rule_for(public):
    return rule(REDUCTIONS[public])


def _reduced_shape(x, op):
    return np.sum(np.zeros(jnp.shape(x), np.int8), axis=_axis(op),
                  keepdims=op.attrs["keepdims"]).shape


@rule_for("reduce_sum")
def _sum(lw, op, x):
    return jnp.sum(x, axis=_axis(op), keepdims=op.attrs["keepdims"], dtype=jnp.result_type(x))


@rule_for("reduce_prod")
def _prod(lw, op, x):
    return jnp.prod(x, axis=_axis(op), keepdims=op.attrs["keepdims"], dtype=jnp.result_type(x))


@rule_for("reduce_mean")
def _mean(lw, op, x):
    axis, keepdims, dtype = _axis(op), op.attrs["keepdims"], jnp.result_type(x)
    shape = jnp.shape(x)
    if dtype.kind in "iu":  # TensorFlow truncates the integer mean
        count = int(np.prod(shape)) if axis is None else int(np.prod([shape[a] for a in axis]))
        s = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=jnp.int64)
        return jnp.trunc(s / max(count, 1)).astype(dtype)
    if int(np.prod(shape)) == 0:
        return jnp.full(_reduced_shape(x, op), jnp.nan, dtype=dtype)
    return jnp.mean(x, axis=axis, keepdims=keepdims, dtype=dtype)


def _extreme(fn, is_max):
    def lower(lw, op, x):
        dtype = jnp.result_type(x)
        if int(np.prod(jnp.shape(x))) == 0:  # TensorFlow: the identity of the reduction
            if dtype.kind == "f":
                fill = -np.inf if is_max else np.inf
            else:
                info = np.iinfo(dtype)
                fill = info.min if is_max else info.max
            return jnp.full(_reduced_shape(x, op), fill, dtype=dtype)
        return fn(x, axis=_axis(op), keepdims=op.attrs["keepdims"])
    return lower


RULES[REDUCTIONS["reduce_max"]] = _extreme(jnp.max, True)
RULES[REDUCTIONS["reduce_min"]] = _extreme(jnp.min, False)


@rule_for("reduce_any")
def _any(lw, op, x):
    return jnp.any(x, axis=_axis(op), keepdims=op.attrs["keepdims"])


@rule_for("reduce_all")
def _all(lw, op, x):
    return jnp.all(x, axis=_axis(op), keepdims=op.attrs["keepdims"])


def _arg(fn):
    def lower(lw, op, x):
        axis = op.attrs["axis"]
        if jnp.shape(x)[axis] == 0:
            raise InvalidArgumentError("Reduction axis is empty")
        return fn(x, axis=axis).astype(_np(op.attrs["output_type"]))
    return lower


RULES[reduce_ops.ARGMAX] = _arg(jnp.argmax)
RULES[reduce_ops.ARGMIN] = _arg(jnp.argmin)


@rule(reduce_ops.PROD_OTHERS)
def _prod_others(lw, op, x):
    ndim = jnp.ndim(x)
    axes = tuple(range(ndim)) if op.attrs["axis"] is None else tuple(op.attrs["axis"])
    rest = tuple(a for a in range(ndim) if a not in axes)
    moved = jnp.transpose(x, rest + axes)
    lead = moved.shape[:len(rest)]
    flat = moved.reshape(lead + (-1,))
    ones = jnp.ones(lead + (1,), dtype=flat.dtype)
    left = jnp.cumprod(jnp.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = jnp.cumprod(jnp.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    out = (left * right).reshape(moved.shape)
    return jnp.transpose(out, tuple(int(i) for i in np.argsort(rest + axes))).astype(flat.dtype)


# -- shapes and layout ---------------------------------------------------------------------

def static_ints(op, value, what):
    if not is_concrete(value):
        raise Unsupported(f"its {what} is known only when the graph runs (XLA needs every "
                          "shape while compiling)")
    return tuple(int(d) for d in np.asarray(value).reshape(-1))


@rule(array_ops.RESHAPE)
def _reshape(lw, op, x):
    return jnp.reshape(x, op.attrs["shape"])


@rule(array_ops.RESHAPE_DYNAMIC)
def _reshape_dynamic(lw, op, x, shape):
    return jnp.reshape(x, static_ints(op, shape, "shape"))


@rule(array_ops.TRANSPOSE)
def _transpose(lw, op, x):
    return jnp.transpose(x, op.attrs["perm"])


@rule(array_ops.EXPAND_DIMS)
def _expand_dims(lw, op, x):
    return jnp.expand_dims(x, op.attrs["axis"])


@rule(array_ops.SQUEEZE)
def _squeeze(lw, op, x):
    axis = op.attrs["axis"]
    return jnp.squeeze(x, axis=None if axis is None else tuple(axis))


@rule(array_ops.CONCAT)
def _concat(lw, op, *xs):
    return jnp.concatenate(xs, axis=op.attrs["axis"])


def gather_error(n, shape):
    def make(position, value, *_):
        i = np.unravel_index(position, shape) if shape else ()
        return InvalidArgumentError(
            f"indices[{','.join(map(str, i))}] = {value} is not in [0, {n})")
    return make


def defer_gather_check(lw, op, indices, n):
    """Indices must be in [0, n): the first one that is not is named in the error."""
    if not np.prod(jnp.shape(indices)):
        return
    xp = np if is_concrete(indices) else jnp
    bad = xp.reshape((indices < 0) | (indices >= n), (-1,))
    position = xp.argmax(bad)
    lw.defer(op, xp.any(bad), gather_error(n, xp.shape(indices)), position,
             xp.reshape(indices, (-1,))[position])


@rule(array_ops.GATHER)
def _gather(lw, op, params, indices):
    axis = op.attrs["axis"]
    n = jnp.shape(params)[axis]
    defer_gather_check(lw, op, indices, n)
    if n == 0:  # no index is in range (the check raises if this runs): XLA cannot take
        shape = jnp.shape(params)
        return jnp.zeros(shape[:axis] + jnp.shape(indices) + shape[axis + 1:],
                         dtype=jnp.result_type(params))
    return jnp.take(params, indices, axis=axis, mode="clip")


@rule(array_ops.GATHER_GRAD)
def _gather_grad(lw, op, g, indices, params_shape):
    axis = op.attrs["axis"]
    shape = static_ints(op, params_shape, "shape")
    out = jnp.moveaxis(jnp.zeros(shape, dtype=jnp.result_type(g)), axis, 0)
    nd = jnp.ndim(indices)
    rows = jnp.reshape(jnp.moveaxis(g, tuple(range(axis, axis + nd)), tuple(range(nd))),
                       (int(np.prod(jnp.shape(indices))),) + out.shape[1:])
    out = out.at[jnp.reshape(indices, (-1,))].add(rows)
    return jnp.moveaxis(out, 0, axis)


@rule(array_ops.SHAPE)
def _shape(lw, op, x):
    return np.asarray(jnp.shape(x), dtype=_np(op.attrs["out_type"]))


@rule(array_ops.SIZE)
def _size(lw, op, x):
    return np.asarray(int(np.prod(jnp.shape(x))), dtype=_np(op.attrs["out_type"]))


@rule(array_ops.RANK)
def _rank(lw, op, x):
    return np.asarray(jnp.ndim(x), dtype=np.int32)


def index_error(axis, n):
    """numpy's own error for x[i] (the numpy backend runs `x[i]` as Python); the size is
    the payload's second value when `n` is None."""
    def make(i, size=0, *_):
        return IndexError(f"index {int(i)} is out of bounds for axis {axis} with size "
                          f"{n if n is not None else int(size)}")
    return make


def _index(lw, op, x, tensors):
    """The numpy index of a StridedSlice node; run-time int indices are checked."""
    shape = jnp.shape(x)

    def bound(v):
        if not isinstance(v, tuple):
            return v
        t = tensors[v[1] - 1]
        if not is_concrete(t):
            raise Unsupported("a slice bound known only when the graph runs gives a shape "
                              "XLA cannot know while compiling (index with a scalar, or "
                              "use rt.gather)")
        return int(t)

    index, d = [], 0
    for s in slicing.expand_ellipsis(op.attrs["spec"], len(shape)):
        if s[0] == "newaxis":
            index.append(None)
        elif s[0] == "int":
            v, n = s[1], shape[d]
            if isinstance(v, tuple) and not is_concrete(tensors[v[1] - 1]):
                i = tensors[v[1] - 1]
                if not lw.ctx.bounded(i, size=n):
                    lw.defer(op, (i < -n) | (i >= n), index_error(d, n), i)
                index.append(i)
            else:
                i = bound(v)
                if not -n <= i < n:
                    # numpy raises when (and only if) this runs: in a branch or loop that
                    # does not run, nothing happens
                    lw.defer(op, np.True_, index_error(d, n), np.int64(i))
                    i = OutOfRange(i)
                index.append(i)
            d += 1
        else:
            index.append(slice(bound(s[1]), bound(s[2]), bound(s[3])))
            d += 1
    return tuple(index)


class OutOfRange(int):
    """An int index outside its dimension, whose error `_index` deferred to run time."""


def _item_out_of_range(index, shape):
    """The shape of `x[index]` when an int index is out of range: a known one, or one
    known only at run time picking from a dimension of size 0 (`_index` deferred the
    error, raised if this runs); else None."""
    stand_in, picked, d = [], False, 0
    dims = list(shape)
    for i in index:
        if i is None:
            stand_in.append(None)
            continue
        if isinstance(i, OutOfRange) or (dims[d] == 0 and not isinstance(i, (slice, int))
                                         and not is_concrete(i)):
            dims[d], i, picked = 1, 0, True
        stand_in.append(i)
        d += 1
    return np.empty(dims, np.int8)[tuple(stand_in)].shape if picked else None


@rule(slicing.SLICE)
def _strided_slice(lw, op, x, *tensors):
    index = _index(lw, op, x, tensors)
    missing = _item_out_of_range(index, jnp.shape(x))
    if missing is not None:
        # XLA cannot slice an item that is not there (in a loop or branch that does not
        # run, as map_fn's body over no rows): zeros of the item's shape stand in
        return jnp.zeros(missing, dtype=jnp.result_type(x))
    known = lw.ctx.known_range(index[0]) if len(index) == 1 else None
    if known is not None and is_concrete(x) and np.ndim(x) == 1 and np.size(x) and \
            np.asarray(x).dtype.kind in "iu" and lw.ctx.bounded(index[0], size=np.size(x)):
        item = jnp.asarray(x)[index]  # an item of a known vector: within its values
        lw.ctx.note(item, int(np.min(x)), int(np.max(x)) + 1)
        return item
    spec = op.attrs["spec"]
    if len(spec) == 1 and spec[0][0] == "int" and isinstance(spec[0][1], tuple) and \
            not is_concrete(index[0]) and jnp.ndim(x):
        # x[i] with i checked (or known) to be in range: a dynamic slice, not a gather
        i, n = index[0], jnp.shape(x)[0]
        if not lw.ctx.bounded(i, size=n):
            i = jnp.where(i < 0, i + n, i)
        return lax.dynamic_index_in_dim(jnp.asarray(x), i, 0, keepdims=False)
    try:
        return jnp.asarray(x)[index]
    except IndexError as e:
        raise InvalidArgumentError(f"slice index out of bounds: {e}") from None


@rule(slicing.SLICE_GRAD)
def _strided_slice_grad(lw, op, g, x, *tensors):
    index = _index(lw, op, x, tensors)
    if _item_out_of_range(index, jnp.shape(x)) is not None:  # raises if it runs
        return jnp.zeros(jnp.shape(x), dtype=jnp.result_type(g))
    return jnp.zeros(jnp.shape(x), dtype=jnp.result_type(g)).at[index].set(g)


# -- padding, broadcasting -----------------------------------------------------------------

def _widths(op, opname, x, paddings, mode):
    value = np.asarray(static_ints(op, paddings, "paddings")).reshape(np.shape(paddings))
    # the kernel's own checks and messages, run on zeros of the input's shape
    zeros = np.zeros(jnp.shape(x), np.int8)
    if mode == "CONSTANT":
        op.opdef.kernel(zeros, value, np.int8(0))
    else:
        op.opdef.kernel(zeros, value, mode=mode)
    return [(int(b), int(a)) for b, a in value.tolist()]


@rule(pad_ops.PAD)
def _pad(lw, op, x, paddings, value):
    widths = _widths(op, "PadV2", x, paddings, "CONSTANT")
    return jnp.pad(x, widths, mode="constant", constant_values=value)


@rule(pad_ops.MIRROR_PAD)
def _mirror_pad(lw, op, x, paddings):
    mode = op.attrs["mode"]
    widths = _widths(op, "MirrorPad", x, paddings, mode)
    return jnp.pad(x, widths, mode=mode.lower())


@rule(pad_ops.PAD_GRAD)
def _pad_grad(lw, op, g, paddings):
    mode = op.attrs["mode"]
    widths = [(int(b), int(a)) for b, a in
              np.asarray(static_ints(op, paddings, "paddings")).reshape(-1, 2).tolist()]
    shape = tuple(n - b - a for n, (b, a) in zip(jnp.shape(g), widths))
    if mode == "CONSTANT":
        return g[tuple(slice(b, b + n) for n, (b, _) in zip(shape, widths))]
    size = int(np.prod(shape))
    source = np.pad(np.arange(size).reshape(shape), widths, mode=mode.lower())
    out = jnp.zeros(size, dtype=jnp.result_type(g)).at[source.reshape(-1)].add(
        jnp.reshape(g, (-1,)))
    return out.reshape(shape)


def _sum_to_shape(g, shape):
    shape = tuple(shape)
    gs = jnp.shape(g)
    if gs == shape:
        return g
    axes = broadcast_ops.summed_axes(gs, shape)
    out = jnp.sum(g, axis=axes, dtype=jnp.result_type(g)) if axes else g
    return jnp.reshape(out, shape)


@rule(broadcast_ops.SUM_TO)
def _sum_to(lw, op, g):
    return _sum_to_shape(g, op.attrs["shape"])


@rule(broadcast_ops.SUM_LIKE)
def _sum_like(lw, op, g, x):
    return _sum_to_shape(g, jnp.shape(x))


@rule(broadcast_ops.BROADCAST_TO)
def _broadcast_to(lw, op, g):
    return jnp.broadcast_to(g, tuple(op.attrs["shape"]))


@rule(broadcast_ops.BROADCAST_LIKE)
def _broadcast_like(lw, op, g, x):
    return jnp.broadcast_to(g, jnp.shape(x))


# -- makers ------------------------------------------------------------------------------

@rule(makers.FILL)
def _fill(lw, op, value):
    return jnp.full(op.attrs["shape"], value, dtype=jnp.result_type(value))


@rule(makers.FILL_DYNAMIC)
def _fill_dynamic(lw, op, dims, value):
    shape = static_ints(op, dims, "shape")
    if any(d < 0 for d in shape):
        raise InvalidArgumentError(f"Fill dimensions must be >= 0, got {list(shape)}")
    return jnp.full(shape, value, dtype=jnp.result_type(value))


@rule(makers.EYE)
def _eye(lw, op):
    a = op.attrs
    return np.eye(a["num_rows"], a["num_columns"], dtype=_np(a["dtype"]))


# -- variables -----------------------------------------------------------------------------

@rule(state_ops.READ)
def _read_variable(lw, op):
    return lw.state[lw.ctx.variable_index(op.attrs["variable"])]


@rule(state_ops.ASSIGN)
def _assign_variable(lw, op, value):
    variable, mode = op.attrs["variable"], op.attrs["mode"]
    i = lw.ctx.variable_index(variable)
    if mode == "add":
        value = lw.state[i] + value
    elif mode == "sub":
        value = lw.state[i] - value
    value = jnp.asarray(value).astype(_np(variable.dtype))
    if lw.ctx.deferred:  # a write after a failed check does not happen
        value = jnp.where(lw.ok(), value, lw.state[i])
    lw.state[i] = value
    return value


# -- effects: print, assert, random draws (host callbacks) ----------------------------------

@rule(io_ops.PRINT)
def _print(lw, op, *values):
    lw.host_call(op, op.opdef.kernel, op.attrs, values)
    return ()


@rule(io_ops.ASSERT)
def _assert(lw, op, cond, *data):
    def make(cond, *data):
        try:
            op.opdef.kernel(cond, *data, **op.attrs)
        except OpError as e:       # (InvalidArgumentError, or the op's `error`)
            return e
        return InvalidArgumentError("assertion failed")
    lw.check(op, jnp.logical_not(jnp.all(cond)), make, cond, *data)
    return ()


def _random(lw, op, *args):
    """Drawn on the host by the op's own numpy kernel and generator: the same values, in
    the same sequence, as the numpy backend gives (a graph's generator is shared by every
    plan compiled from it, as two numpy plans of one graph share it)."""
    drawn = lw.ctx.drawn.get(id(op))
    if drawn is not None:  # drawn before the call
        return drawn
    t = op.outputs[0]
    spec = jax.ShapeDtypeStruct(tuple(op.attrs["shape"]), _np(t.dtype))
    return lw.host_draw(op, spec, args)


for _d in random_ops.OPS:
    RULES[_d] = _random
HOST_OPS = {io_ops.PRINT, io_ops.ASSERT, *random_ops.OPS}  # lowered to host callbacks
PREDRAWN = {random_ops.UNIFORM, random_ops.NORMAL}  # at the top level: drawn before a call
from . import rules_math as jax_rules_math
RULES.update(jax_rules_math.RULES)
HOST_OPS.update(jax_rules_math.HOST_OPS)
PREDRAWN.update(jax_rules_math.PREDRAWN)
from . import rules_nn as jax_rules_nn
from . import rules_structure as jax_rules_structure
RULES.update(jax_rules_structure.RULES)
