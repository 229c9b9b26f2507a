"""Bad input: every op, given wrong dtypes, ranks and shapes, raises one of the documented
errors with a message that says what was expected and what was given -- never a numpy
exception, and never from inside numpy."""
import itertools
import os
import traceback
import warnings

import numpy as np
import pytest

import runtime as rt

NUMPY_DIR = os.path.dirname(np.__file__)
ALLOWED = (rt.errors.InvalidArgumentError, TypeError, ValueError)

POOL = {
    "int": 3, "float": 2.5, "bool": True, "str": "ab", "ints": [1, 2, 3], "floats": [1.0, 2.0],
    "matrix": [[1.0, 2.0], [3.0, 4.0]], "empty": np.zeros((0,), np.float32),
    "cube": np.ones((2, 3, 4), np.float32), "bools": [True, False], "neg": -1, "none": None,
}
UNARY_OPS = ("identity negative abs sign square sqrt exp log tanh sigmoid sin cos logical_not "
             "reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_any reduce_all "
             "argmax argmin shape size rank zeros_like ones_like transpose squeeze unstack").split()
BINARY_OPS = ("add subtract multiply divide floordiv mod pow maximum minimum matmul equal "
              "not_equal less less_equal greater greater_equal logical_and logical_or reshape "
              "expand_dims gather fill concat stack cast range eye zeros ones").split()
WRAPPED = {
    "reduce_sum(x, axis)": lambda x, a: rt.reduce_sum(x, a),
    "argmax(x, axis)": lambda x, a: rt.argmax(x, a),
    "transpose(x, perm)": lambda x, p: rt.transpose(x, p),
    "squeeze(x, axis)": lambda x, a: rt.squeeze(x, a),
    "unstack(x, axis)": lambda x, a: rt.unstack(x, axis=a),
    "concat([x, y])": lambda x, y: rt.concat([x, y], 0),
    "stack([x, y])": lambda x, y: rt.stack([x, y]),
    "x[i]": lambda x, i: rt.constant(x)[i],
    "x[i:]": lambda x, i: rt.constant(x)[i:],
    "where(c, x, x)": lambda c, x: rt.where(c, x, x),
    "strings.join": lambda x, y: rt.strings.join([x, y]),
    "random.uniform": lambda s, m: rt.random.uniform(s, maxval=m),
    "random.normal": lambda s, m: rt.random.normal(s, stddev=m),
    "random.uniform(tensor bounds)": lambda lo, hi: rt.random.uniform(
        [2], rt.identity(lo) if lo is not None else 0, rt.identity(hi) if hi is not None else None),
    "random.uniform(int, tensor bounds)": lambda lo, hi: rt.random.uniform(
        [2], rt.identity(lo) if lo is not None else 0, rt.identity(hi) if hi is not None else None,
        dtype=rt.int32),
    "random.normal(tensor mean)": lambda m, s: rt.random.normal(
        [2], rt.identity(m) if m is not None else 0.0, s),
    "constant(v, shape)": lambda v, s: rt.constant(v, shape=s),
    "pad(x, paddings)": lambda x, p: rt.pad(x, p),
    "pad(x, [[p, p]], REFLECT)": lambda x, p: rt.pad(x, [[p, p]], "REFLECT"),
    "pad(x, [[1, 1]], SYMMETRIC, c)": lambda x, c: rt.pad(x, [[1, 1]], "SYMMETRIC", c),
    "pad(x, [[1, 1]], constant_values)": lambda x, c: rt.pad(x, [[1, 1]], constant_values=c),
}


def cases():
    for name in UNARY_OPS:
        yield name, getattr(rt, name), 1
    for name in BINARY_OPS:
        yield name, getattr(rt, name), 2
    for name, fn in WRAPPED.items():
        yield name, fn, 2


def _run(fn, args, staged):
    if not staged:
        return fn(*args)
    g = rt.Graph()
    with g.as_default():
        out = fn(*args)
    fetches = [t for t in rt.nest.flatten(out) if isinstance(t, rt.SymbolicTensor)]
    if fetches:
        g.run(fetches)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
@pytest.mark.parametrize("name,fn,arity", list(cases()), ids=[c[0] for c in cases()])
def test_no_numpy_errors_leak(name, fn, arity, staged):
    leaks = []
    for combo in itertools.product(POOL, repeat=arity):
        args = [POOL[k] for k in combo]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # numpy warnings must not reach users either
                _run(fn, args, staged)
        except ALLOWED as e:
            last = traceback.extract_tb(e.__traceback__)[-1].filename
            if last.startswith(NUMPY_DIR) or type(e).__module__.startswith("numpy"):
                leaks.append((combo, type(e).__name__, str(e)[:80]))
        except Exception as e:  # noqa: BLE001 - anything else is a bug, reported below
            leaks.append((combo, type(e).__name__, str(e)[:80]))
    assert not leaks, leaks[:5]


# -- the messages say what was expected and what was given ----------------------------------

@pytest.mark.parametrize("make,error,match", [
    (lambda: rt.matmul(rt.ones([2, 3]), rt.ones([2, 3])), rt.errors.InvalidArgumentError,
     r"Matrix size-incompatible: In\[0\]: \(2, 3\), In\[1\]: \(2, 3\)"),
    (lambda: rt.matmul(rt.ones([3]), rt.ones([3, 1])), rt.errors.InvalidArgumentError,
     r"rank >= 2.*\(3,\)"),
    (lambda: rt.ones([2, 3]) + rt.ones([4]), rt.errors.InvalidArgumentError,
     r"Incompatible shapes: \(2, 3\) and \(4,\)"),
    (lambda: rt.constant(1) + rt.constant(1.0), rt.errors.DTypeMismatchError, "int32 and float32"),
    (lambda: rt.constant([1]) * 2.5, TypeError, "2.5 .* int32"),
    (lambda: rt.sqrt(rt.constant(4)), rt.errors.InvalidArgumentError, "Sqrt .* int32 .* rt.cast"),
    (lambda: rt.logical_and(rt.constant(1), rt.constant(0)), rt.errors.InvalidArgumentError,
     "LogicalAnd .* int32 .* bool"),
    (lambda: rt.reshape(rt.range(3), [2, 2]), rt.errors.InvalidArgumentError,
     "3 values, but the requested shape has 4"),
    (lambda: rt.reshape(rt.range(3), [-1, -1]), rt.errors.InvalidArgumentError, "only one"),
    (lambda: rt.transpose(rt.ones([1, 2]), [0, 0]), rt.errors.InvalidArgumentError,
     r"\[0, 0\] is not a permutation .* \(1, 2\)"),
    (lambda: rt.concat([rt.ones([2, 2]), rt.ones([3, 3])], 0), rt.errors.InvalidArgumentError,
     r"dimension 1 .*\(2, 2\).*\(3, 3\)"),
    (lambda: rt.concat([rt.ones([2]), rt.ones([2, 2])], 0), rt.errors.InvalidArgumentError,
     "different ranks"),
    (lambda: rt.stack([rt.ones([2]), rt.ones([3])]), rt.errors.InvalidArgumentError,
     r"\(2,\).*\(3,\)"),
    (lambda: rt.squeeze(rt.ones([2, 3]), 0), rt.errors.InvalidArgumentError,
     "dim\\[0\\], expected a dimension of 1, got 2"),
    (lambda: rt.expand_dims(rt.ones([2]), 3), rt.errors.InvalidArgumentError, "axis 3 .* rank 1"),
    (lambda: rt.gather(rt.constant([1]), [1]), rt.errors.InvalidArgumentError,
     r"indices\[0\] = 1 is not in \[0, 1\)"),
    (lambda: rt.gather(rt.constant([1]), [0.5]), rt.errors.InvalidArgumentError,
     "integers, got float32"),
    (lambda: rt.argmax(rt.constant([1, 2]), 1), rt.errors.InvalidArgumentError, "axis 1 .* rank 1"),
    (lambda: rt.argmax(rt.zeros([0])), rt.errors.InvalidArgumentError, "empty"),
    (lambda: rt.unstack(rt.constant(1)), ValueError, r"rank >= 1, got shape \(\)"),
    (lambda: rt.constant(3, shape=[2, -1]), ValueError, "fully defined"),
    (lambda: rt.constant([1, 2, 3], shape=[2, 2]), TypeError, "3 values .* shape \\(2, 2\\)"),
    (lambda: rt.TensorShape([-2]), ValueError, "-2"),
    (lambda: rt.where(rt.constant([True]), rt.ones([2]), rt.ones([3])),
     rt.errors.InvalidArgumentError, r"\(2,\) and \(3,\)"),
    (lambda: rt.constant([1])[3], rt.errors.InvalidArgumentError,
     "index 3 is out of bounds for dimension 0 with size 1"),
    (lambda: rt.constant([[1, 2], [3]]), ValueError, "ragged"),
    (lambda: rt.cast(rt.constant(["1"]), rt.int32), rt.errors.InvalidArgumentError, "string"),
    (lambda: rt.as_dtype("int31"), TypeError, "int31.*expected one of"),
])
def test_error_messages(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_staged_and_run_time_shape_errors_agree():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.float32, [None, 3])
        b = rt.placeholder(rt.float32, [None, None])
        with pytest.raises(rt.errors.InvalidArgumentError, match=r"\(None, 3\).*\(2, 2\)"):
            rt.matmul(a, rt.ones([2, 2]))  # known at trace time
        with pytest.raises(rt.errors.InvalidArgumentError, match=r"\(None, 3\) and \(4,\)"):
            a + rt.ones([4])
        later = rt.matmul(a, b)  # known only at run time
    assert g.run(later, {a: np.ones((1, 3)), b: np.ones((3, 2))}).shape == rt.TensorShape([1, 2])
    with pytest.raises(rt.errors.InvalidArgumentError, match="MatMul"):
        g.run(later, {a: np.ones((1, 3)), b: np.ones((2, 2))})
