"""`and`, `or`, `not`, lambdas and branches that return: programs from PaddlePaddle's
dygraph-to-static tests (test/dygraph_to_static/: test_logical.py, test_lambda.py,
test_convert_operators.py), each body as written there, with Paddle's API names going
through paddle_shim. The comment above each names its file and function."""
import numpy as np

import paddle_shim as paddle
from paddle_shim import F, base
from programs_ifelse import LAMBDA, LOGICAL, X23


# test_logical.py: test_logical_not
def test_logical_not(x):
    x = paddle.to_tensor(x)
    if not x:
        x = x - 1
    else:
        x = x + 1

    if x != 10:
        x = x - 1
    else:
        x = x + 1

    y = 0
    if not y:
        x = x + 4

    if y != 3:
        x = x + 2
    return x


# test_logical.py: test_logical_not_2
def test_logical_not_2(x):
    x = paddle.to_tensor(x)

    y = None
    if y is not None and not y:
        x = x + 4

    if y != 3:
        x = x + 2
    return x


# test_logical.py: test_logical_and
def test_logical_and(x):
    x = paddle.to_tensor(x)

    if x < 10 and x > 1:
        x = x - 1
    else:
        x = x + 1

    y = 3
    if y < 10 and y > 1:
        x = x - 2
    else:
        x = x + 2

    return x


# test_logical.py: test_logical_and_2
def test_logical_and_2(x):
    x = paddle.to_tensor(x)

    a = None
    if a is not None and a > 1:
        x = x - 1
    else:
        x = x + 1

    b = 3

    if b is not None and b > 1:
        x = x - 1
    else:
        x = x + 1

    return x


# test_logical.py: test_logical_or
def test_logical_or(x):
    x = paddle.to_tensor(x)

    if x < 10 or x > 1:
        x = x - 1
    else:
        x = x + 1

    a = 10
    if a > 3 or a < 1:
        x = x - 1
    else:
        x = x + 1

    return x


# test_logical.py: test_logical_or_2
def test_logical_or_2(x):
    x = paddle.to_tensor(x)

    a = None
    if x > 1 or a is None or a > 1:
        x = x - 1
    else:
        x = x + 1
    return x


# test_logical.py: test_logical_not_and_or
def test_logical_not_and_or(x):
    x = paddle.to_tensor(x)

    a = 1
    if x < 10 and (a < 4 or a > 0) or a < -1 or not x > -1:
        x = x - 1
    else:
        x = x + 1
    return x


# test_logical.py: test_shape_equal
def test_shape_equal(x):
    x = paddle.to_tensor(x)
    y = paddle.zeros([1, 2, 3])
    if x.shape == y.shape:
        return y
    else:
        return paddle.ones([1, 2, 3])


# test_logical.py: test_shape_not_equal
def test_shape_not_equal(x):
    x = paddle.to_tensor(x)
    y = paddle.zeros([1, 2, 3])
    if x.shape != y.shape:
        return y
    else:
        return paddle.ones([1, 2, 3])


# test_lambda.py: call_lambda_as_func
def call_lambda_as_func(x):
    x = base.dygraph.to_variable(x)

    add_func = lambda x, y: x + y  # noqa: E731 - as written there
    mean_func = lambda x: paddle.mean(x)  # noqa: E731

    y = add_func(x, 1)
    y = add_func(y, add_func(y, -1))
    out = mean_func(y)

    return out


# test_lambda.py: call_lambda_directly
def call_lambda_directly(x):
    x = base.dygraph.to_variable(x)

    y = (lambda x, y: x + y)(x, x)
    out = (lambda x: paddle.mean(x))(y)

    return out


# test_lambda.py: call_lambda_in_func
def call_lambda_in_func(x):
    x = base.dygraph.to_variable(x)

    add_func = lambda x: x + 1  # noqa: E731

    y = paddle.mean((lambda x: F.relu(x))(x))
    out = add_func(y) if y > 1 and y < 2 else (lambda x: x**2)(y)

    return out


# test_lambda.py: call_lambda_with_ifExpr
def call_lambda_with_ifExpr(x):
    x = base.dygraph.to_variable(x)

    add_func = lambda x: x + 1  # noqa: E731

    y = paddle.mean(x)
    out = add_func(y) if y or y < 2 else (lambda x: x**2)(y)

    return out


# test_lambda.py: call_lambda_with_ifExpr2
def call_lambda_with_ifExpr2(x):
    x = base.dygraph.to_variable(x)

    add_func = lambda x: x + 1  # noqa: E731

    y = paddle.mean(x)

    # NOTE: y is Variable, but z<2 is python bool value
    z = 0
    out = add_func(y) if y or z < 2 else (lambda x: x**2)(y)

    return out


# test_convert_operators.py: TestIfElseNoValue.test_else_ret_none.with_common_value
def with_common_value_ret_none(x, use_cache=False):
    if use_cache:
        y = x + 1
        z = x + 2
        return y, z
    else:
        c = x + 1
        z = x - 1
        return None


# test_convert_operators.py: TestIfElseNoValue.test_else_ret_none.without_common_value
def without_common_value_ret_none(x, use_cache=False):
    if use_cache:
        y = x + 1
        z = x + 2
        return y, z
    else:
        c = x + 1
        return None


# test_convert_operators.py: TestIfElseNoValue.test_else_ret_c.with_common_value
def with_common_value_ret_c(x, use_cache=False):
    if use_cache:
        y = x + 1
        z = x + 2
        return y, z
    else:
        c = x + 1
        z = x - 1
        return c


# test_convert_operators.py: TestIfElseNoValue.test_else_ret_cz.with_common_value
def with_common_value_ret_cz(x, use_cache=False):
    if use_cache:
        y = x + 1
        z = x + 2
        return y, z, 1
    else:
        c = x + 1
        z = x - 1
        return c, z


# test_convert_operators.py: TestIfElseNoValue.test_else_ret_cz.without_common_value
def without_common_value_ret_cz(x, use_cache=False):
    if use_cache:
        y = x + 1
        z = x + 2
        return y, z, 1
    else:
        c = x + 1
        d = x - 1
        return c, d


PROGRAMS = [
    (test_logical_not, LOGICAL),
    (test_logical_not_2, LOGICAL),
    (test_logical_and, LOGICAL),
    (test_logical_and_2, LOGICAL),
    (test_logical_or, LOGICAL),
    (test_logical_or_2, LOGICAL),
    (test_logical_not_and_or, LOGICAL),
    (test_shape_equal, [(np.ones([1, 2, 3], np.float32),)]),
    (test_shape_not_equal, [(np.ones([1, 2, 3], np.float32),)]),
    (call_lambda_as_func, LAMBDA),
    (call_lambda_directly, LAMBDA),
    (call_lambda_in_func, LAMBDA),
    (call_lambda_with_ifExpr, LAMBDA),
    (call_lambda_with_ifExpr2, LAMBDA),
    (with_common_value_ret_none, [(X23, False), (X23, True)]),
    (without_common_value_ret_none, [(X23, False), (X23, True)]),
    (with_common_value_ret_c, [(X23, False), (X23, True)]),
    (with_common_value_ret_cz, [(X23, False), (X23, True)]),
    (without_common_value_ret_cz, [(X23, False), (X23, True)]),
]
