"""The gradient suites' functions (tests/gradients: test_grad_ops.py's unary and binary
ops and reductions, test_grad_control_flow.py's staged conds and loops) differentiated
under `rt.function(..., jit_compile=True)`, two ways as grad_helpers does (the tape
inside the function; the function called eagerly under a tape, whose backward graph
runs on the same backend): the same gradients as the numpy backend, and as central
finite differences.

Sampled: each unary op on shapes () and (2, 3); each binary op on three of the six
broadcast shape pairs; each reduction on axes None and (0, 2); every control-flow
function of test_grad_control_flow.py that check_gradients runs (a loop's gradient
lowers when its trip count has a bound known while compiling: see LOWERING_LOOPS; the
others give a clear error: see LOOPS)."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import os  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.backends.xla.backend import XlaLoweringError  # noqa: E402

_GRADIENTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "gradients")
if _GRADIENTS not in sys.path:
    sys.path.insert(0, _GRADIENTS)

import grad_helpers as gh  # noqa: E402
import test_grad_control_flow as gcf  # noqa: E402
import test_grad_ops as gops  # noqa: E402

RNG = np.random.default_rng(5)


def _call(fn, xs):
    # (`fn` a parameter, not a free variable of `step`: see test_conversion_of_a_closure)
    return fn(*xs)


def _staged(fn, arrays, jit):
    """grad_helpers.staged_grads, with jit_compile."""
    def step(xs):
        with rt.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            loss = gh._loss(_call(fn, xs))
        return tape.gradient(loss, xs)
    return rt.function(step, jit_compile=jit)([rt.constant(a) for a in arrays])


def _function_call(fn, arrays, jit):
    """grad_helpers.function_call_grads, with jit_compile."""
    f = rt.function(lambda xs: gh._loss(_call(fn, xs)), jit_compile=jit)
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        loss = f(xs)
    return tape.gradient(loss, xs)


def check(fn, arrays):
    arrays = [np.asarray(a) for a in arrays]
    numeric = gh.numeric_grads(fn, arrays)
    for how in (_staged, _function_call):
        expected, got = how(fn, arrays, False), how(fn, arrays, True)
        assert len(got) == len(expected)
        for k, (e, g, n) in enumerate(zip(expected, got, numeric)):
            if e is None:
                assert g is None, (how.__name__, k)
                continue
            assert g is not None, (how.__name__, k)
            e, g = e.numpy(), g.numpy()
            assert (g.dtype, g.shape) == (e.dtype, e.shape), (how.__name__, k)
            # float64: XLA's own exp/log/sin/tanh/pow and fused, reordered sums differ
            # from numpy's by a few ulps
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14,
                                       err_msg=f"{how.__name__}, input {k}")
            np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-7,   # check_gradients'
                                       err_msg=f"{how.__name__}, input {k}")


@pytest.mark.parametrize("name, op, make", gops.UNARY, ids=[u[0] for u in gops.UNARY])
@pytest.mark.parametrize("shape", [(), (2, 3)])
def test_unary(name, op, make, shape):
    check(op, [make(*shape)])


@pytest.mark.parametrize("name, op, make_x, make_y", gops.BINARY,
                         ids=[b[0] for b in gops.BINARY])
@pytest.mark.parametrize("shapes", [s if i == 0 else pytest.param(s, marks=pytest.mark.slow)
                                    for i, s in enumerate(gops.BROADCAST_SHAPES[::2])], ids=str)
def test_binary_broadcasting(name, op, make_x, make_y, shapes):
    check(op, [make_x(*shapes[0]), make_y(*shapes[1])])


@pytest.mark.parametrize("name, op", gops.REDUCTIONS, ids=[r[0] for r in gops.REDUCTIONS])
@pytest.mark.parametrize("axis", [None, (0, 2)], ids=str)
def test_reductions(name, op, axis):
    check(lambda x: op(x, axis=axis), [gops.away_from_zero(2, 3, 4)])


@pytest.mark.parametrize("fn, arrays", [
    (gcf.branchy, [RNG.uniform(0.5, 1.0, size=3)]),
    (gcf.branchy, [-RNG.uniform(0.5, 1.0, size=3)]),
    (gcf.nested_branches, [RNG.uniform(0.5, 1, size=(2, 3)), -RNG.uniform(0.5, 1, size=3)]),
    (gcf.nested_branches, [-RNG.uniform(0.5, 1, size=(2, 3)), RNG.uniform(0.5, 1, size=3)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_conds(fn, arrays):
    check(fn, arrays)


# The gradient of a staged while loop keeps each iteration's values in TensorArrays with
# dynamic_size=True. They lower when the loop's trip count has a bound known while
# compiling (maximum_iterations, or a counter below a known limit: a staged `for` over
# rt.range(4)): each array gets room for that many elements.
def _max_iterations(x, n):
    _, y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x + 1.0),
                         [rt.constant(0), x], maximum_iterations=3)
    return y


def _max_iterations_reached_early(x, n):
    _, y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, rt.sin(y) * x),
                         [rt.constant(0), x], maximum_iterations=6)
    return y


# TensorArrays' own gradients (TensorArrayGradRead, GradStack, Add): an element never
# written reads as zeros. A read's gradient is an array made in each backward iteration
# with one pending write, added into the accumulated one (sized by the backward loop's
# bound: the forward loop's count, counted down).
def _map_fn(x, w):
    return rt.map_fn(lambda v: rt.sin(v) * w[0], x)


def _scan(x, w):
    return rt.scan(lambda a, v: a * v + w[1], x, initializer=w[0])


def _reads_in_a_loop(x, w):
    ta = rt.TensorArray(rt.float64, size=3).unstack(x * w)
    acc = rt.constant(0.0, dtype=rt.float64)
    for i in rt.range(3):
        acc += ta.read(i) * ta.read(i) + rt.sin(ta.read(i))
    return acc


def _reads_outside_loops(x, w):
    ta = rt.TensorArray(rt.float64, size=3).unstack(x)
    return ta.read(1) * ta.read(2) * w + ta.read(1)


def _writes_then_stack(x, w):
    states = rt.TensorArray(rt.float64, size=3, element_shape=[3])
    s = w
    for i in rt.range(3):
        s = rt.tanh(x[i] + s)
        states = states.write(i, s)
    return rt.reshape(states.stack(), [3, 3])   # (the stack's length is not static)


LOWERING_LOOPS = [
    (_staged, gcf.loop_with_branch_and_capture, [RNG.uniform(0.2, 1.0, size=3),
                                                 RNG.uniform(0.5, 1.5, size=3)]),
    (_staged, _max_iterations, [RNG.normal(size=2), np.int32(10)]),
    (_staged, _max_iterations_reached_early, [RNG.normal(size=2), np.int32(2)]),
    *[(_staged, f, [RNG.normal(size=3), RNG.normal(size=3)])
      for f in (_map_fn, _scan, _reads_in_a_loop, _reads_outside_loops, _writes_then_stack)],
]


@pytest.mark.parametrize("how, fn, arrays", LOWERING_LOOPS,
                         ids=lambda v: getattr(v, "__name__", "").lstrip("_"))
def test_loop_gradients_with_a_bound(how, fn, arrays):
    arrays = [np.asarray(a) for a in arrays]
    expected, got = how(fn, arrays, False), how(fn, arrays, True)
    numeric = gh.numeric_grads(fn, arrays)
    assert len(got) == len(expected)
    for k, (e, g, n) in enumerate(zip(expected, got, numeric)):
        if e is None:
            assert g is None, k
            continue
        e, g = e.numpy(), g.numpy()
        assert (g.dtype, g.shape) == (e.dtype, e.shape), k
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14, err_msg=f"input {k}")
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-7, err_msg=f"input {k}")


# Still not lowering: no bound on the trip count is known while compiling.
# - power_loop, cond_around_loop: `while i < n` with `n` an input;
# - nested_loops: the inner loop's limit (the outer counter) is, in the backward pass,
#   a value read back from the outer loop's saved TensorArray;
# - any loop through _function_call: the function's gradient graph receives the loop
#   node's inputs (its counter's start and limit, its maximum_iterations) as
#   placeholders, known only when the graph runs.
# Each raises the one error naming the loop's gradient stack (a TensorArrayV3), saying
# that the loop needs a bound, and the user's line.
LOOPS = [
    (gcf.power_loop, [RNG.normal(size=3), np.int32(5)], (_staged, _function_call)),
    (gcf.loop_with_branch_and_capture, [RNG.uniform(0.2, 1.0, size=3),
                                        RNG.uniform(0.5, 1.5, size=3)], (_function_call,)),
    (gcf.nested_loops, [RNG.normal(size=(2, 2))], (_staged, _function_call)),
    (gcf.cond_around_loop, [RNG.uniform(0.5, 1, size=3), np.int32(3)],
     (_staged, _function_call)),
    (_max_iterations, [RNG.normal(size=2), np.int32(10)], (_function_call,)),
]


@pytest.mark.parametrize("fn, arrays, how", [(f, a, h) for f, a, hs in LOOPS for h in hs],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_loop_gradients_do_not_lower(fn, arrays, how):
    with pytest.raises(XlaLoweringError, match="cannot compile with XLA") as info:
        how(fn, arrays, True)
    message = str(info.value)
    assert "TensorArrayV3" in message and "gradient_stack" in message, message
    assert "the gradient of this while loop" in message and "maximum_iterations" in message
    assert "test_xla_gradients.py:" in message, message
    # the forward function alone compiles, and agrees with numpy (to a few ulps: XLA
    # may fuse a multiply and an add)
    xs = [rt.constant(a) for a in arrays]
    np.testing.assert_allclose(rt.function(fn, jit_compile=True)(*xs).numpy(),
                               rt.function(fn)(*xs).numpy(), rtol=1e-12, atol=1e-14)


def test_conversion_of_a_closure_does_not_depend_on_its_cells():
    def make(fn):
        def step(xs):
            with rt.GradientTape() as tape:
                for x in xs:
                    tape.watch(x)
                loss = gh._loss(fn(*xs))
            return tape.gradient(loss, xs)
        return step
    x = [rt.constant(np.ones(3))]
    rt.function(make(rt.negative))(x)             # the first conversion of `step`
    rt.function(make(gcf.branchy))(x)             # branchy's `if` on a tensor
