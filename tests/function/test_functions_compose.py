"""Functions compose: a ConcreteFunction, a loaded function or an rt.function called
inside another rt.function runs as its ops inlined into the caller's graph, so values,
gradients (a tape inside the caller, or around a call of it), both backends and ONNX
export agree with the same calls made eagerly and with the same math written out."""
import contextlib
import io
import os
import tempfile

import numpy as np
import pytest

import runtime as rt

try:
    import jax  # noqa: F401
    BACKENDS = [False, True]
except ImportError:  # pragma: no cover - the jax extra is optional
    BACKENDS = [False]

F = np.float32
F32 = rt.float32
VEC = np.array([3.0, -1.0, 2.5, 0.0, 7.0], F)
WITH_NAN = np.where(VEC == 0.0, np.nan, VEC).astype(F)
INPUTS = (VEC, VEC[:0], VEC[:1], WITH_NAN)      # given, empty, one element, NaN
ANY_LENGTH = rt.TensorSpec([None], F32)


def _close(a, b, rtol=1e-5):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True)


def _flat(result) -> list:
    return [t.numpy() for t in rt.nest.flatten(result)]


def agree(fn, inputs=INPUTS):
    """`fn` staged (numpy backend and jit_compile, for each input's shape and for any
    length) gives what `fn` gives eagerly, on every input."""
    ways = []
    for jit in BACKENDS:
        ways += [(f"jit_compile={jit}", rt.function(fn, jit_compile=jit)),
                 (f"jit_compile={jit}, any length",
                  rt.function(fn, jit_compile=jit, input_signature=[ANY_LENGTH]))]
    for x in inputs:
        want = _flat(fn(rt.constant(x)))
        for way, staged in ways:
            got = _flat(staged(rt.constant(x)))
            assert len(got) == len(want), (way, x)
            for a, b in zip(got, want):
                _close(a, b)


def square_plus_math(x):
    return x * x + 1.0


SQUARE_PLUS = rt.function(square_plus_math).get_concrete_function(ANY_LENGTH)


@rt.function
def _pieces(x):
    return {"sum": x + 1.0, "pair": (x * 2.0, x - 1.0)}


PIECES = _pieces.get_concrete_function(ANY_LENGTH)

SCALE = rt.Variable(3.0)
OFFSET = rt.constant(10.0)


@rt.function
def _affine(x):                         # reads a Variable and an eager constant
    return x * SCALE + OFFSET


AFFINE = _affine.get_concrete_function(ANY_LENGTH)


@rt.function
def _positive_squares(x):               # staged loop and branch inside the callee
    s = rt.constant(0.0)
    for e in x:
        if e > 1.0:
            s += e * e
    return s


POSITIVE_SQUARES = _positive_squares.get_concrete_function(ANY_LENGTH)


@rt.function
def _twice_nested(x):
    return SQUARE_PLUS(x) * 0.5


TWICE_NESTED = _twice_nested.get_concrete_function(ANY_LENGTH)


def _grad(fn, x):
    """The gradient of sum(fn(x)) at x, taken eagerly."""
    x = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(fn(x))
    return tape.gradient(y, x)


# -- values and gradients, every way ---------------------------------------------------------

def calls_concrete(x):
    return SQUARE_PLUS(x) * 2.0


def calls_structured(x):
    out = PIECES(x)
    return out["sum"] + out["pair"][0] * out["pair"][1], out["pair"][1]


def calls_with_captures(x):
    return AFFINE(x) - x


def calls_nested_twice(x):
    return TWICE_NESTED(x) + 1.0


def calls_control_flow(x):
    return POSITIVE_SQUARES(x) + rt.reduce_sum(x)


def calls_in_branch(x):
    if rt.reduce_sum(x) > 2.0:
        y = SQUARE_PLUS(x)
    else:
        y = x - 1.0
    return y


def calls_in_loop(x):
    for _ in rt.range(3):
        x = SQUARE_PLUS(x) * 0.25
    return x


def gradient_inside(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(SQUARE_PLUS(x) * x)
    return tape.gradient(y, x)


def gradient_inside_control_flow(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = POSITIVE_SQUARES(x)
    return tape.gradient(y, x)


def every_call(x):
    """Each kind of call at once: one trace and one XLA compilation per way of running."""
    return (calls_concrete(x), *calls_structured(x), calls_with_captures(x),
            calls_nested_twice(x), calls_control_flow(x), calls_in_branch(x), calls_in_loop(x))


def every_gradient(x):
    return gradient_inside(x), gradient_inside_control_flow(x)


def test_concrete_function_calls_agree_every_way():
    agree(every_call)


def test_gradients_inside_the_outer_function_agree_every_way():
    agree(every_gradient)


def test_the_calls_give_the_math_written_out():
    x = rt.constant(VEC)
    for jit in BACKENDS:
        got = rt.function(every_call, jit_compile=jit)(x)
        _close(got[0], (VEC * VEC + 1) * 2)
        _close(got[3], VEC * 2 + 10)
        _close(got[4], (VEC * VEC + 1) * 0.5 + 1)
        _close(got[5], F(np.sum(VEC[VEC > 1] ** 2) + VEC.sum()))
        grads = rt.function(every_gradient, jit_compile=jit)(x)
        _close(grads[0], 3 * VEC * VEC + 1)
        _close(grads[1], np.where(VEC > 1, 2 * VEC, 0).astype(F))


def sum_of_every_call(x):
    return sum(rt.reduce_sum(y) for y in every_call(x))


def sum_of_loop_free_calls(x):
    """(Under jit_compile, a tape around a function whose graph has a while loop is refused
    with or without a call in it: the loop's gradient needs a bound XLA can see.)"""
    return sum(rt.reduce_sum(y) for y in (calls_concrete(x), *calls_structured(x),
                                          calls_with_captures(x), calls_nested_twice(x),
                                          calls_in_branch(x)))


@pytest.mark.parametrize("jit", BACKENDS)
def test_a_tape_around_the_outer_call_gives_the_eager_gradient(jit):
    fn = sum_of_loop_free_calls if jit else sum_of_every_call
    outer = rt.function(fn, jit_compile=jit)
    relaxed = rt.function(fn, jit_compile=jit, input_signature=[ANY_LENGTH])
    for x in ((VEC, VEC[:0]) if jit else (VEC, VEC[:0], VEC[:1] - 5.0)):
        want = _grad(fn, x)          # every call eager: the reference
        _close(_grad(outer, x), want)
        _close(_grad(relaxed, x), want)


@pytest.mark.parametrize("jit", BACKENDS)
def test_variable_gradients_through_a_concrete_call(jit):
    x = rt.constant(VEC)

    @rt.function(jit_compile=jit)
    def inside(x):
        with rt.GradientTape() as tape:
            y = rt.reduce_sum(AFFINE(x))
        return tape.gradient(y, SCALE)

    outer = rt.function(lambda x: rt.reduce_sum(AFFINE(x)), jit_compile=jit)
    with rt.GradientTape() as tape:
        y = outer(x)
    _close(inside(x), F(VEC.sum()))
    _close(tape.gradient(y, SCALE), F(VEC.sum()))


# -- state and side effects keep their order ----------------------------------------------

COUNTER = rt.Variable(0.0)


@rt.function
def _bump(x):
    COUNTER.assign_add(1.0)
    rt.print("bump", COUNTER)
    return x + COUNTER


BUMP = _bump.get_concrete_function(rt.TensorSpec([], F32))


def bumps_twice(x):
    rt.print("before")
    a = BUMP(x)
    rt.print("between", a)
    b = BUMP(x)
    rt.print("after", b)
    return a + b


def _printed(call, *args):
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        result = call(*args)
    return result.numpy(), text.getvalue()


@pytest.mark.parametrize("jit", BACKENDS)
def test_stateful_ops_of_the_callee_run_in_program_order(jit):
    COUNTER.assign(0.0)
    want = _printed(bumps_twice, rt.constant(1.0))
    COUNTER.assign(0.0)
    staged = rt.function(bumps_twice, jit_compile=jit)
    got = _printed(staged, rt.constant(1.0))
    assert got[1] == want[1] == "before\nbump 1\nbetween 2\nbump 2\nafter 3\n"
    assert got[0] == want[0] == 5.0
    assert COUNTER.numpy() == 2.0


# -- how arguments are taken ----------------------------------------------------------------

SCALAR = rt.function(square_plus_math).get_concrete_function(rt.TensorSpec([], F32))
THREE = rt.function(square_plus_math).get_concrete_function(rt.TensorSpec([3], F32))


def _outcome(call, *args):
    try:
        return call(*args).numpy()
    except Exception as e:  # compared: staged must raise what eager raises
        return type(e)


@pytest.mark.parametrize("jit", BACKENDS)
def test_arguments_are_checked_and_converted_as_an_eager_call_does(jit):
    cases = {
        "python number": (lambda x: SCALAR(2.0) + x, rt.constant(1.0)),
        "numpy array": (lambda x: THREE(np.ones(3, F)) + x, rt.constant(1.0)),
        "wrong dtype": (lambda x: SCALAR(x), rt.constant(1)),
        "wrong shape": (lambda x: SCALAR(x), rt.constant([1.0, 2.0])),
        "wrong python value": (lambda x: SCALAR("a") + x, rt.constant(1.0)),
        "missing argument": (lambda x: SCALAR() + x, rt.constant(1.0)),
    }
    for name, (fn, arg) in cases.items():
        want = _outcome(fn, arg)
        got = _outcome(rt.function(fn, jit_compile=jit), arg)
        if isinstance(want, type):
            assert got is want, (name, got, want)
        else:
            _close(got, want)
    assert _outcome(rt.function(lambda x: SCALAR(x)), rt.constant(1)) is rt.errors.InvalidArgumentError


def test_traced_python_arguments_must_match_as_eagerly():
    @rt.function
    def minus(a, b):
        return a - b
    cf = minus.get_concrete_function(rt.TensorSpec([], F32), 5.0)
    one = rt.constant(1.0)
    assert rt.function(lambda x: cf(x, 5.0) + cf(x))(one).numpy() == -8.0
    with pytest.raises(TypeError, match="constructed with float value 5.0 in b"):
        cf(one, 6.0)
    with pytest.raises(TypeError, match="constructed with float value 5.0 in b"):
        rt.function(lambda x: cf(x, 6.0))(one)
    keywords = minus.get_concrete_function(rt.TensorSpec([], F32), rt.TensorSpec([], F32))
    assert rt.function(lambda x: keywords(b=x, a=3.0))(one).numpy() == 2.0


@pytest.mark.parametrize("jit", BACKENDS)
def test_a_less_specific_shape_is_checked_when_the_graph_runs(jit):
    """THREE was traced for shape [3]: its graph may rely on it, so an argument of unknown
    length is checked at run time, as an eager call checks it."""
    outer = rt.function(lambda x: THREE(x), input_signature=[ANY_LENGTH], jit_compile=jit)
    _close(outer(rt.constant([1.0, 2.0, 3.0])), np.array([2.0, 5.0, 10.0], F))
    with pytest.raises(rt.errors.InvalidArgumentError):
        outer(rt.constant([1.0, 2.0]))
    with pytest.raises(rt.errors.InvalidArgumentError):
        outer(rt.constant(np.zeros(0, F)))


# -- rt.function inside rt.function ---------------------------------------------------------

@pytest.mark.parametrize("inner_jit", BACKENDS)
@pytest.mark.parametrize("outer_jit", BACKENDS)
def test_a_function_calling_a_function(inner_jit, outer_jit):
    inner = rt.function(lambda x: rt.sin(x) * x, jit_compile=inner_jit)

    @rt.function(jit_compile=outer_jit)
    def outer(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(inner(x))
        return y, tape.gradient(y, x)

    for x in (VEC, VEC[:0]):
        y, g = outer(rt.constant(x))
        _close(y, F(np.sum(np.sin(x) * x)))
        _close(g, (np.sin(x) + x * np.cos(x)).astype(F))
        _close(_grad(lambda t: outer(t)[0], x), _grad(lambda t: rt.sin(t) * t, x))


def test_an_inner_input_signature_converts_and_checks_as_a_call_from_outside():
    half = rt.function(lambda x: x / 2, input_signature=[rt.TensorSpec([], F32)])
    staged = rt.function(lambda n: half(3) + n)
    assert staged(rt.constant(0.0)).dtype == half(3).dtype == F32
    assert staged(rt.constant(0.0)).numpy() == 1.5
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        half(rt.constant(1))
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        rt.function(lambda n: half(rt.constant(1)) + n)(rt.constant(0.0))


# -- loaded functions -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def loaded():
    @rt.function
    def double(x):
        return x * 2
    double(rt.constant(1.0))
    double(rt.constant([1, 2]))
    path = tempfile.mkdtemp()
    rt.saved.save({"square_plus": SQUARE_PLUS, "double": double}, os.path.join(path, "a"))
    return (rt.saved.load(os.path.join(path, "a")),
            rt.saved.load(os.path.join(path, "a"), max_loop_iterations=10))


@pytest.mark.parametrize("jit", BACKENDS)
def test_a_loaded_function_inside_a_function(loaded, jit):
    saved, _ = loaded

    def fn(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(saved.square_plus(x))
        return (y, tape.gradient(y, x), saved.double(rt.reduce_sum(x)),
                saved.double(rt.constant([4, 5])))

    outer = rt.function(fn, jit_compile=jit)
    for x in (VEC, VEC[:0]):
        got, want = outer(rt.constant(x)), fn(rt.constant(x))
        for a, b in zip(got, want):
            _close(a, b)
        _close(got[1], 2 * x)
        _close(_grad(lambda t: outer(t)[0], x), 2 * x)


def test_a_loaded_function_refuses_what_eager_refuses(loaded):
    saved, guarded = loaded
    with pytest.raises(TypeError, match="no saved concrete function takes these arguments"):
        rt.function(lambda x: saved.double(x))(rt.constant([1.0, 2.0]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="run guards"):
        rt.function(lambda x: guarded.square_plus(x))(rt.constant(VEC))


# -- what the caller's graph holds ------------------------------------------------------------

def test_the_callee_ops_are_in_the_callers_graph_under_its_name():
    graph = rt.function(calls_concrete).get_concrete_function(ANY_LENGTH).graph
    names = [op.name for op in graph.get_operations()]
    assert "square_plus_math/mul" in names and "square_plus_math/add" in names
    mul = graph.get_operation_by_name("square_plus_math/mul")
    assert mul.location[0] == __file__ and mul.location[2] == "square_plus_math"


@pytest.mark.parametrize("fn", [calls_concrete, calls_control_flow, calls_nested_twice])
def test_the_outer_function_exports_to_onnx(fn):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    cf = rt.function(fn).get_concrete_function(ANY_LENGTH)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(rt.onnx.export(cf).SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    for x in INPUTS:
        for a, b in zip(session.run(None, {name: x}), _flat(fn(rt.constant(x)))):
            _close(a, b)
