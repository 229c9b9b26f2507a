"""The programs and inputs of the ONNX agreement sweep (test_rt_onnx_agreement.py): one or
more programs per op that `rt.onnx.export` writes, each with edge inputs (NaN, inf,
empty, one element, negative and out-of-range indices, integer edge cases)."""
from __future__ import annotations

import numpy as np

import runtime as rt

F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-7,
           -1e-7, 3.0, 100.0, -100.0, 1e30, -1e30]


def floats(dtype=F32):
    return np.array(SPECIAL, dtype)


INT_EDGE = np.array([0, 1, -1, 2, -2, 7, -7, 3, np.iinfo(np.int32).max, np.iinfo(np.int32).min],
                    I32)
INT_DIVISORS = np.array([1, 1, -1, 3, -3, 2, 2, -2, -1, 1], I32)


def vector_cases(dtype=F32):
    """Edge vectors of a float dtype: the specials, empty, one element, one NaN."""
    return [(floats(dtype),), (np.zeros(0, dtype),), (np.array([2.5], dtype),),
            (np.array([np.nan], dtype),)]


def _pairs(dtype=F32):
    a = floats(dtype)
    x, y = np.meshgrid(a, a)
    return x.ravel(), y.ravel()


def binary_cases(dtype=F32):
    x, y = _pairs(dtype)
    return [(x, y), (np.zeros(0, dtype), np.zeros(0, dtype)),
            (np.array([1.5], dtype), np.array([-2.0], dtype))]


def int_binary_cases(dtype=I32, zero_divisor=False):
    x = INT_EDGE.astype(dtype)
    y = INT_DIVISORS.astype(dtype)
    cases = [(x, y), (x[::-1].copy(), y), (np.zeros(0, dtype), np.zeros(0, dtype)),
             (np.array([-7], dtype), np.array([2], dtype))]
    if zero_divisor:
        cases.append((np.array([5, 1], dtype), np.array([0, 1], dtype)))
    return cases


MATRIX = np.array([[1.0, np.nan, -2.0], [0.0, 3.0, np.inf], [-1.0, -1.0, 2.0]], F32)
MATRICES = [(MATRIX,), (np.zeros((0, 3), F32),), (np.zeros((3, 0), F32),),
            (np.array([[np.nan]], F32),), (np.array([[2.0, -1.0]], F32),),
            (np.array([[1.0, 2.0], [3.0, 4.0]], F32),),
            (np.array([[-np.inf, np.inf], [np.nan, 1.0]], F32),)]
INT_MATRICES = [(np.array([[3, -1, 3], [0, 2, 2]], I32),), (np.zeros((0, 2), I32),),
                (np.array([[7]], I32),)]
BOOL_MATRICES = [(np.array([[True, False], [True, True]]),), (np.zeros((0, 2), bool),),
                 (np.zeros((2, 0), bool),)]


def _unary(name):
    if name == "gelu":  # the Erf op
        return lambda x: rt.nn.gelu(x)
    return lambda x: getattr(rt.math, name)(x)


UNARY_FLOAT = ["negative", "abs", "sign", "square", "sqrt", "exp", "log", "tanh", "sigmoid",
               "sin", "cos", "floor", "ceil", "round", "log1p", "softplus", "atan", "asin",
               "acos", "sinh", "cosh"]
UNARY_INT = ["negative", "abs", "sign", "square", "round"]
BINARY_FLOAT = ["add", "subtract", "multiply", "truediv", "floordiv", "floormod", "pow",
                "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
                "greater_equal"]
BINARY_INT = ["add", "subtract", "multiply", "truediv", "floordiv", "floormod", "maximum",
              "minimum", "equal", "less", "greater_equal"]


def _binary(name):
    return lambda x, y: getattr(rt.math, name)(x, y)


def _reductions():
    out = []
    for name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"):
        for axis in (None, 0, 1):
            for keep in (False, True):
                fn = (lambda n, a, k: lambda x: getattr(rt, n)(x, axis=a, keepdims=k))(
                    name, axis, keep)
                out.append((f"{name}(axis={axis}, keepdims={keep})", fn, MATRICES + INT_MATRICES))
    for name in ("reduce_any", "reduce_all"):
        for axis in (None, 1):
            fn = (lambda n, a: lambda x: getattr(rt, n)(x, axis=a))(name, axis)
            out.append((f"{name}(axis={axis})", fn, BOOL_MATRICES))
    for name in ("argmax", "argmin"):
        for axis in (0, 1):
            fn = (lambda n, a: lambda x: getattr(rt.math, n)(x, axis=a))(name, axis)
            out.append((f"{name}(axis={axis})", fn, MATRICES + INT_MATRICES))
        fn = (lambda n: lambda x: getattr(rt.math, n)(x, axis=0, output_type=rt.int32))(name)
        out.append((f"{name}(int32)", fn, vector_cases()))
    return out


def _casts():
    out = []
    for src in (F32, F64):
        for dst in (rt.int32, rt.int64, rt.uint8, rt.bool, rt.float16, rt.float32):
            fn = (lambda d: lambda x: rt.cast(x, d))(dst)
            out.append((f"cast {np.dtype(src).name}->{dst.name}", fn, vector_cases(src)))
    for dst in (rt.float32, rt.bool, rt.uint8, rt.int64):
        fn = (lambda d: lambda x: rt.cast(x, d))(dst)
        out.append((f"cast int32->{dst.name}", fn, [(INT_EDGE,), (np.zeros(0, I32),)]))
    return out


IDX_PARAMS = np.array([[1.0, 2.0], [3.0, np.nan], [5.0, 6.0]], F32)


def _indexing():
    vec = np.array([1.0, np.nan, 3.0, -4.0], F32)
    idx_cases = [(IDX_PARAMS, np.array([0, 2], I32)), (IDX_PARAMS, np.array([-1], I32)),
                 (IDX_PARAMS, np.array([3], I32)), (IDX_PARAMS, np.zeros(0, I32)),
                 (np.zeros((0, 2), F32), np.zeros(0, I32)),
                 (np.zeros((0, 2), F32), np.array([0], I32)),
                 (IDX_PARAMS, np.array([[0, 1], [2, 2]], I32))]
    int_cases = [(vec, np.int32(k)) for k in (0, 3, -1, -4, 4, -5)] + [
        (np.zeros(0, F32), np.int32(0))]
    out = [
        ("gather", lambda p, i: rt.gather(p, i), idx_cases),
        ("gather axis=1", lambda p, i: rt.gather(p, i, axis=1),
         [(IDX_PARAMS, np.array([1, 0], I32)), (IDX_PARAMS, np.array([-1], I32)),
          (IDX_PARAMS, np.array([2], I32))]),
        ("x[i]", lambda x, i: x[i], int_cases),
        ("x[i:]", lambda x, i: x[i:], int_cases),
        ("x[:i]", lambda x, i: x[:i], int_cases),
        ("x[1:-1]", lambda x: x[1:-1], [(vec,), (np.zeros(0, F32),), (vec[:1],)]),
        ("x[::-1]", lambda x: x[::-1], [(vec,), (np.zeros(0, F32),)]),
        ("x[::2]", lambda x: x[::2], [(vec,), (np.zeros(0, F32),)]),
        ("x[-2::-2]", lambda x: x[-2::-2], [(vec,), (np.zeros(0, F32),), (vec[:1],)]),
        ("x[5:]", lambda x: x[5:], [(vec,), (np.zeros(0, F32),)]),
        ("x[-9:2]", lambda x: x[-9:2], [(vec,), (np.zeros(0, F32),)]),
        ("m[:, 0]", lambda m: m[:, 0], MATRICES),
        ("m[0]", lambda m: m[0], MATRICES),
        ("m[-1, 1:]", lambda m: m[-1, 1:], MATRICES),
        ("m[None, ..., 0]", lambda m: m[None, ..., 0], MATRICES),
        ("one_hot", lambda i: rt.one_hot(i, 3),
         [(np.array([0, 2, -1, 3, 1], I32),), (np.zeros(0, I32),)]),
        ("one_hot values", lambda i: rt.one_hot(i, 2, on_value=5.0, off_value=np.nan),
         [(np.array([1, -2, 0], I32),)]),
    ]
    return out


def _shapes():
    def ta_loop(x):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(rt.shape(x)[0]):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack()

    def ta_fixed(x):
        ta = rt.TensorArray(rt.float32, size=rt.shape(x)[0], element_shape=[3])
        for i in rt.range(rt.shape(x)[0]):
            ta = ta.write(i, x[i] + 1.0)
        return ta.stack(), ta.size()

    def ta_unstack(x):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True).unstack(x)
        return ta.stack()

    def ta_read(x):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True).unstack(x)
        total = rt.zeros([3])
        for i in rt.range(rt.shape(x)[0]):
            total += ta.read(i)
        return total

    def ta_partly_written(x):  # elements never written are zeros, read or stacked
        ta = rt.TensorArray(rt.float32, size=rt.shape(x)[0] + 2, element_shape=[3])
        for i in rt.range(rt.shape(x)[0]):
            ta = ta.write(i + 1, x[i])
        return ta.stack(), ta.size(), ta.read(0)

    rows = [(MATRIX,), (np.zeros((0, 3), F32),), (MATRIX[:1],)]
    return [
        ("reshape", lambda m: rt.reshape(m, [-1]), MATRICES),
        ("reshape to rows", lambda m: rt.reshape(m, [-1, 1]), MATRICES),
        ("reshape dynamic", lambda m: rt.reshape(m, rt.shape(m)[::-1]), MATRICES),
        ("transpose", lambda m: rt.transpose(m), MATRICES),
        ("expand_dims", lambda m: rt.expand_dims(m, 1), MATRICES),
        ("squeeze", lambda m: rt.squeeze(rt.expand_dims(m, 0), [0]), MATRICES),
        ("concat", lambda m: rt.concat([m, m * 2.0], 0), MATRICES),
        ("stack", lambda m: rt.stack([m, -m], 1), MATRICES),
        ("unstack", lambda m: rt.unstack(rt.reshape(m, [-1, 1]), axis=1), MATRICES),
        ("shape size rank", lambda m: (rt.shape(m), rt.size(m), rt.rank(m)), MATRICES),
        ("rank of a reshape", lambda m, s: rt.rank(rt.reshape(m, s)) + rt.size(m),
         [(MATRIX, np.array([9], I32)), (MATRIX, np.array([3, 1, 3], I32)),
          (np.zeros((0, 3), F32), np.array([0, 3], I32)),
          (MATRIX, np.array([2, 2], I32))]),
        ("stop_gradient", lambda m: rt.stop_gradient(m) * 2.0, MATRICES),
        ("fill", lambda m: rt.fill(rt.shape(m), 2.5), MATRICES),
        ("zeros_like", lambda m: rt.zeros_like(m) + rt.ones_like(m), MATRICES),
        ("eye", lambda m: rt.eye(3) + m[:1, :1], [(MATRIX,), (MATRIX[:1],)]),
        ("range", lambda n, d: rt.range(0, n, d),
         [(np.int32(5), np.int32(2)), (np.int32(-3), np.int32(-1)), (np.int32(0), np.int32(1)),
          (np.int32(3), np.int32(-1))]),
        ("range float", lambda n: rt.range(0.0, n, 0.5),
         [(np.float32(2.0),), (np.float32(-1.0),), (np.float32(0.25),)]),
        ("tile", lambda m: rt.tile(m, [2, 1]), MATRICES),
        ("broadcast_to", lambda v: rt.broadcast_to(v, [2, 3]),
         [(np.array([1.0, np.nan, 3.0], F32),), (np.array([7.0], F32),)]),
        ("where", lambda c, x: rt.where(c, x, -x),
         [(np.array([True, False, True]), np.array([np.nan, 1.0, -0.0], F32)),
          (np.zeros(0, bool), np.zeros(0, F32))]),
        ("where indices", lambda c: rt.where(c), BOOL_MATRICES),
        ("pad", lambda m: rt.pad(m, [[1, 0], [0, 2]], constant_values=np.nan), MATRICES),
        ("mirror pad", lambda m: rt.pad(m, [[1, 1], [0, 0]], mode="REFLECT"),
         [(MATRIX,), (np.zeros((2, 0), F32),)]),
        ("TensorArray dynamic", ta_loop, rows),
        ("TensorArray sized", ta_fixed, rows),
        ("TensorArray unstack", ta_unstack, rows),
        ("TensorArray read", ta_read, rows),
        ("TensorArray partly written", ta_partly_written, rows),
        ("ensure_shape", lambda m: rt.ensure_shape(m, [None, None]), MATRICES),
    ]


def _math():
    sq = [(np.array([[1.0, 2.0], [3.0, 4.0]], F32),), (np.array([[np.nan, 1.0], [1.0, 1.0]], F32),),
          (np.zeros((0, 0), F32),), (np.array([[2.0]], F32),)]
    return [
        ("matmul", lambda a: rt.matmul(a, a, transpose_b=True), MATRICES),
        ("matmul int", lambda a: rt.matmul(a, a, transpose_a=True), INT_MATRICES),
        ("einsum", lambda a: rt.einsum("ij,kj->ik", a, a), MATRICES),
        ("einsum implicit", lambda a: rt.einsum("ij,ij", a, a), MATRICES),
        ("einsum ellipsis", lambda a: rt.einsum("...ij,...kj->...ik", a, a),
         [(np.zeros((2, 3, 0), F32),), (np.zeros((0, 2, 3), F32),),
          (np.arange(12, dtype=F32).reshape(2, 3, 2),)]),
        ("det", lambda a: rt.linalg.det(a), sq),
        ("cumsum", lambda m: rt.math.cumsum(m, axis=1), MATRICES + INT_MATRICES),
        ("cumsum reverse exclusive", lambda m: rt.math.cumsum(m, axis=0, exclusive=True,
                                                              reverse=True), MATRICES),
        ("sort", lambda m: rt.sort(m, axis=1), MATRICES + INT_MATRICES),
        ("sort descending", lambda m: rt.sort(m, axis=0, direction="DESCENDING"), MATRICES),
        ("argsort", lambda m: rt.argsort(m, axis=1), MATRICES + INT_MATRICES),
        ("argsort descending", lambda m: rt.argsort(m, axis=1, direction="DESCENDING"),
         MATRICES),
        ("logical", lambda a, b: (rt.logical_and(a, b), rt.logical_or(a, b), rt.logical_not(a)),
         [(np.array([True, False, True, False]), np.array([True, True, False, False])),
          (np.zeros(0, bool), np.zeros(0, bool))]),
    ]


def _nn():
    img = np.arange(2 * 4 * 4 * 1, dtype=F32).reshape(2, 4, 4, 1)
    img_nan = img.copy()
    img_nan[0, 1, 1, 0] = np.nan
    img_inf = img.copy()
    img_inf[1, 0, 0, 0] = -np.inf
    cases = [(img,), (img_nan,), (img_inf,), (np.zeros((0, 4, 4, 1), F32),)]
    w = np.ones((2, 2, 1, 2), F32)
    return [
        ("conv2d", lambda x: rt.nn.conv2d(x, w, 1, "SAME"), cases),
        ("max_pool", lambda x: rt.nn.max_pool2d(x, 2, 2, "VALID"), cases),
        ("avg_pool", lambda x: rt.nn.avg_pool2d(x, 2, 1, "SAME"), cases),
    ]


def _gradients():
    def grad_of(f):
        def g(x):
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.gradient(y, x)
        return g
    return [
        ("grad gather", grad_of(lambda x: rt.reduce_sum(rt.gather(x, [0, 0, 2]) * 2.0)),
         [(IDX_PARAMS,), (np.array([[1.0, 2.0], [3.0, 4.0], [np.inf, 0.0]], F32),)]),
        ("grad slice", grad_of(lambda x: rt.reduce_sum(x[1:, :1] * 3.0)), MATRICES),
        ("grad of a scalar broadcast", grad_of(lambda x: rt.reduce_sum(x * rt.ones([3]))),
         [(np.float32(2.0),), (np.float32(np.nan),)]),
        ("grad broadcast", grad_of(lambda x: rt.reduce_sum(x * rt.ones([2, 1, 1]))), MATRICES),
        ("grad pad", grad_of(lambda x: rt.reduce_sum(rt.pad(x, [[1, 1], [0, 1]]) * 2.0)),
         MATRICES),
        ("custom_gradient", rt.custom_gradient(lambda x: (x * x, lambda dy: dy * 3.0)),
         vector_cases(F32)),
    ]


def _scatter():
    """gather_nd / scatter_nd / tensor_scatter_nd_* (index tuples of length 2, out of range
    and negative ones too) and unique of integers."""
    params = np.arange(12, dtype=F32).reshape(3, 4)
    pairs = np.array([2, 1, 0, 3, 2, 1], I32)
    bad = [np.array([3, 0], I32), np.array([0, -1], I32)]
    tuples = lambda i: rt.reshape(i, [-1, 2])  # noqa: E731
    return [
        ("gather_nd", lambda p, i: rt.gather_nd(p, tuples(i)),
         [(params, pairs), (params, np.zeros(0, I32))] + [(params, b) for b in bad]),
        ("scatter_nd", lambda i, u: rt.scatter_nd(tuples(i), u, [3, 4]),
         [(pairs, np.array([1.0, np.nan, 2.0], F32))] + [(b, np.ones(1, F32)) for b in bad]),
        ("tensor_scatter_nd_update", lambda t, i, u: rt.tensor_scatter_nd_update(
            t, tuples(i), u), [(params, pairs[:4], np.array([-1.0, np.inf], F32))]),
        ("tensor_scatter_nd_add", lambda t, i, u: rt.tensor_scatter_nd_add(t, tuples(i), u),
         [(params, pairs, np.array([1.0, 2.0, 3.0], F32))] + [(params, b, np.ones(1, F32))
                                                             for b in bad]),
        ("unique int32", lambda x: tuple(rt.unique(x)),
         [(np.array([4, 1, 4, -2, 1], I32),), (np.zeros(0, I32),)]),
    ]


def programs():
    """(name, fn, cases): every case a tuple of numpy arrays, the function's arguments."""
    out = []
    for name in UNARY_FLOAT:
        for dtype in (F32, F64):
            out.append((f"{name} {np.dtype(dtype).name}", _unary(name), vector_cases(dtype)))
    out.append(("gelu float32", _unary("gelu"), vector_cases(F32)))
    for name in UNARY_INT:
        out.append((f"{name} int32", _unary(name), [(INT_EDGE,), (np.zeros(0, I32),)]))
    for name in BINARY_FLOAT:
        out.append((f"{name} float32", _binary(name), binary_cases(F32)))
    for name in ("truediv", "floordiv", "floormod", "pow"):
        out.append((f"{name} float64", _binary(name), binary_cases(F64)))
    for name in BINARY_INT:
        out.append((f"{name} int32", _binary(name), int_binary_cases(I32, zero_divisor=True)))
    for name in ("floordiv", "floormod", "multiply"):
        out.append((f"{name} int64", _binary(name), int_binary_cases(I64, zero_divisor=True)))
    out.append(("pow int32", _binary("pow"),
                [(np.array([2, -3, 0, 5, 1, -1], I32), np.array([3, 2, 0, 1, 9, 7], I32)),
                 (np.array([2], I32), np.array([-1], I32)),
                 (np.array([1, 2], I32), np.array([0, -2], I32)),
                 (np.zeros(0, I32), np.zeros(0, I32))]))
    return out + _reductions() + _casts() + _indexing() + _shapes() + _math() + _nn() + \
        _gradients() + _scatter()
