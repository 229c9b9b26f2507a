"""`while`, `for`, `break` and `continue`: programs from PaddlePaddle's dygraph-to-static
tests (test/dygraph_to_static/: test_loop.py, test_break_continue.py), each body as
written there, with Paddle's API names going through paddle_shim. The comment above each
names its file and function. Also the inputs of programs_for.py. Programs calling `paddle.increment` (which changes its argument in
place, as no rt op does) are left out."""
import numpy as np

import paddle_shim as paddle
from paddle_shim import F, base


# test_loop.py: while_loop_dyfunc
def while_loop_dyfunc(x):
    i = base.dygraph.to_variable(x)
    while x < 10:
        i = i + x
        x = x + 1
    return i


# test_loop.py: while_loop_dyfunc_without_tensor
def while_loop_dyfunc_without_tensor(x):
    a = 1
    # There are no tensors in the while condition, which means it's a plain while in python,
    # so it wont't be transformed to `while_loop` op.
    while not a > 4 and a > 0:
        x = x + 1
        a = a + 1

    return x


# test_loop.py: while_loop_dyfun_with_conflict_var
def while_loop_dyfun_with_conflict_var(x):
    i = base.dygraph.to_variable(x)

    def relu(y):
        # 'y' is not visible outside the scope.
        return F.relu(y)

    while x < 10:
        # If a tmp variable is created which has same name
        # with a argument in function, it should not be
        # included in the loop_vars.
        add_fn = lambda x, y: x + y  # noqa: E731 - as written there
        i = add_fn(i, x)
        x = x + 1
    return i


# test_loop.py: while_loop_dyfunc_with_none
def while_loop_dyfunc_with_none(x):
    i = (
        base.dygraph.to_variable(x)
        if x is not None
        else base.dygraph.to_variable(x + 1)
    )
    x = base.dygraph.to_variable(
        x
    )
    flag = 1
    while x < 10:
        i = i + x if flag is not None else x + i
        x = x + 1
    return i


# test_loop.py: for_loop_dyfunc2
def for_loop_dyfunc2(max_len):
    # Test case: a variable is used and created in loop, but used before created
    x = paddle.tensor.fill_constant(shape=[1, 2], dtype="int32", value=1)

    for i in range(max_len):
        if i > 1:
            s = a  # noqa: F821 - assigned on the iteration before, as written there
        a = 1
        q, _ = x.shape  # test var x.shape only used but not created in loop

    ret = paddle.tensor.fill_constant(shape=[1], dtype="int32", value=s + q)
    return ret


# test_loop.py: for_break_single_return
def for_break_single_return(max_len):
    x = 0
    for i in range(3):
        if i == 2:
            break
        x += 1
    return x


# test_loop.py: while_loop_bool_op
def while_loop_bool_op(x):
    i = base.dygraph.to_variable(x)

    while x <= -1 or x < -3 or (x < -7 or x < -5) or (x >= 0 and x < 10):
        i = i + x
        x = x + 1
    return i


# test_loop.py: while_loop_bool_op2
def while_loop_bool_op2(x):
    i = base.dygraph.to_variable(x)
    a = 1

    # In the while condition, there are both Paddle Variable and non-Variable.
    while x < 10 and (a < 4 or a > 0) or a < -1 or not x > -1:
        i = i + x
        x = x + 1
        a = a + 1
    return i


# test_loop.py: while_loop_class_var
def while_loop_class_var(x):
    class Foo:
        def __init__(self):
            self.a = 3
            self.b = 4
            self.c = 5

    foo = Foo()
    i = base.dygraph.to_variable(x)
    while i < 10:
        foo.b = paddle.zeros(shape=[1], dtype='float32')
        foo.c = foo.b + foo.a
        i += 1
    return foo.c


# test_loop.py: loop_var_contains_property
def loop_var_contains_property(x):
    a = paddle.zeros(shape=[1], dtype='float32')
    i = paddle.to_tensor(x)
    s = i.shape
    while i < 10 and s[0] >= 1:
        a += i.shape[0]
        i += 1
    return a


# test_loop.py: for_loop_class_var
def for_loop_class_var(max_len):
    class Foo:
        def __init__(self):
            self.a = 3
            self.b = 4
            self.c = 5

    foo = Foo()

    # Use `to_variable` so that static analysis can analyze the type of X is Tensor
    max_len = paddle.tensor.fill_constant(
        shape=[1], value=max_len, dtype="int32"
    )

    for i in range(max_len):
        foo.b = paddle.zeros(shape=[1], dtype='float32')
        foo.c = foo.b + foo.a
    return foo.c


# test_loop.py: var_create_in_for_loop
def var_create_in_for_loop(max_len):
    for i in range(max_len):
        ret = paddle.zeros(shape=[3, 4, 5], dtype='float64')
    return ret


# test_loop.py: nested_for_loop_dyfunc
def nested_for_loop_dyfunc():
    two = paddle.tensor.fill_constant(shape=[1], value=2, dtype="int32")
    three = paddle.tensor.fill_constant(shape=[1], value=3, dtype="int32")
    for j in range(two):
        for i in range(10):
            a = 2 + j

    for i in range(three):
        b = paddle.zeros(shape=[1], dtype='float32')

    return b


# test_break_continue.py: test_continue_in_for
def test_continue_in_for(x):
    x = base.dygraph.to_variable(x)
    for i in range(10):
        x += 1
        if i > 5:
            continue
            x += 10086
        x += i
    return x


# test_break_continue.py: test_continue_in_for_at_end
def test_continue_in_for_at_end(x):
    x = base.dygraph.to_variable(x)
    for i in range(10):
        x += 1
        if i > 5:
            continue
    return x


# test_break_continue.py: test_continue_in_while
def test_continue_in_while(x):
    x = base.dygraph.to_variable(x)
    i = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=0)
    while i < 10:
        i += 1
        if i > 5:
            continue
            x += 10086
        x += i
    return x


# test_break_continue.py: test_break_in_for
def test_break_in_for(x):
    x = base.dygraph.to_variable(x)
    for i in range(10):
        x += 1
        if i > 5:
            break
            x += 10086
        x += i
    return x


# test_break_continue.py: test_break_in_for_at_end
def test_break_in_for_at_end(x):
    x = base.dygraph.to_variable(x)
    for i in range(10):
        x += 1
        if i > 5:
            break
    return x


# test_break_continue.py: test_break_in_while
def test_break_in_while(x):
    x = base.dygraph.to_variable(x)
    i = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=0)
    while i < 10:
        i += 1
        if i > 5:
            break
            x += 10086
        x += i
    return x


# test_break_continue.py: test_break_continue_in_for
def test_break_continue_in_for(x):
    x = base.dygraph.to_variable(x)

    for i in range(1, 10, 1):
        if i <= 4:
            x += 1
            continue
        else:
            x += 10010
            break
        x += 10086

    a = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=0)
    b = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=3)
    for i in range(b):
        if a <= 4:
            x += 1
            a += 1
            continue
        else:
            x += 10010
            break
        x += 10086

    return x


# test_break_continue.py: test_for_in_else
def test_for_in_else(x):
    x = base.dygraph.to_variable(x)

    # Case 1:
    if False:
        pass
    else:
        for i in range(0, 10):
            if i > 5:
                x += 1
                break
            x += i

    # Case 2:
    if False:
        pass
    else:
        for i in range(0, 10):
            x += 1
            break
            x += i
    return x


# test_break_continue.py: while_loop_class_var
def while_loop_class_var_break(x):
    class Foo:
        def __init__(self):
            self.a = 3
            self.b = 4
            self.c = 5

    foo = Foo()
    i = base.dygraph.to_variable(x)
    while i < 10:
        foo.b = paddle.zeros(shape=[1], dtype='float32')
        foo.c = foo.b + foo.a
        i += 1
        if foo.c < 0:
            continue
        if foo.c > 6:
            break
    return foo.c


# test_break_continue.py: test_optim_break_in_for
def test_optim_break_in_for(x):
    x = paddle.to_tensor(x)
    for i in range(10):
        if paddle.sum(x) > 5:
            break
            x += 10086
        x += i
        if i < 3:
            x = x * 2
    return x


# test_break_continue.py: test_optim_break_in_while
def test_optim_break_in_while(x):
    x = paddle.to_tensor(x)
    i = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=0)
    while i < 10:
        if i > 5:
            break
            x += 10086
        x += i
        i += 1
    return x


# The inputs: Paddle's tests use np.zeros(1) (int32 for test_loop.py, int64 for
# test_break_continue.py: int32 here, the dtype of the fill_constant tensors they are added
# to, since rt, as TensorFlow, does not promote int32 + int64), 100 for `max_len`, and
# [1, 2, 3, 4, 5] or [5] for test_for_enumerate.py (int32 here for the same reason; float32
# where the program adds them to paddle.zeros, float32).
ZERO = [(np.zeros(1, np.int32),), (np.array([7], np.int32),), (np.array([12], np.int32),)]
NEGATIVE = [(np.array([-9], np.int32),), (np.array([-4], np.int32),), (np.zeros(1, np.int32),)]
FIVE = [(np.array([5], np.int32),), (np.array([2], np.int32),)]
ARRAY = [(np.array([1, 2, 3, 4, 5], np.int32),), (np.array([4, 0, 2], np.int32),)]
ARRAY_F = [(np.array([1, 2, 3, 4, 5], np.float32),)]
X = np.random.RandomState(1).random_sample([10, 16]).astype(np.float32)
X2_10 = np.random.RandomState(3).random_sample([2, 10]).astype(np.float32)

PROGRAMS = [
    (while_loop_dyfunc, ZERO),
    (while_loop_dyfunc_without_tensor, ZERO),
    (while_loop_dyfun_with_conflict_var, ZERO),
    (while_loop_dyfunc_with_none, ZERO),
    (for_loop_dyfunc2, [(100,), (3,)]),
    (for_break_single_return, [(100,)]),
    (while_loop_bool_op, NEGATIVE + ZERO),
    (while_loop_bool_op2, NEGATIVE + ZERO),
    (while_loop_class_var, ZERO),
    (loop_var_contains_property, ZERO),
    (for_loop_class_var, [(100,), (0,)]),
    (var_create_in_for_loop, [(100,)]),
    (nested_for_loop_dyfunc, [()]),
    (test_continue_in_for, ZERO),
    (test_continue_in_for_at_end, ZERO),
    (test_continue_in_while, ZERO),
    (test_break_in_for, ZERO),
    (test_break_in_for_at_end, ZERO),
    (test_break_in_while, ZERO),
    (test_break_continue_in_for, ZERO),
    (test_for_in_else, ZERO),
    (while_loop_class_var_break, ZERO),
    (test_optim_break_in_for, [(X,), (X / 100,)]),
    (test_optim_break_in_while, ZERO),
]
