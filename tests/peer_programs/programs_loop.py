"""`while`, `for`, `break` and `continue`: programs from PaddlePaddle's dygraph-to-static
tests (test/dygraph_to_static/: test_loop.py, test_break_continue.py,
test_for_enumerate.py), each body as written there, with Paddle's API names going through
paddle_shim and a tensor method `t.m()` written `paddle.m(t)`. The comment above each names
its file and function. Programs calling `paddle.increment` (which changes its argument in
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


# test_for_enumerate.py: for_in_range
def for_in_range(x):
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x = base.dygraph.to_variable(x)
    for i in range(paddle.item(paddle.numpy(x))):
        z = z + i
    return z


# test_for_enumerate.py: for_iter_list
def for_iter_list(x_array):
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    for x in x_array:
        z = z + x
    return z


# test_for_enumerate.py: for_enumerate_list
def for_enumerate_list(x_array):
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    for i, x in enumerate(x_array):
        z = z + x + i
    return z


# test_for_enumerate.py: for_iter_var_numpy
def for_iter_var_numpy(x_array):
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for x in paddle.numpy(x_array):
        z = z + x
    return z


# test_for_enumerate.py: for_enumerate_var_numpy
def for_enumerate_var_numpy(x_array):
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for i, x in enumerate(paddle.numpy(x_array)):
        y = y + i
        z = z + x
    return y, z


# test_for_enumerate.py: for_enumerate_var_numpy_with_start
def for_enumerate_var_numpy_with_start(x_array):
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for i, x in enumerate(paddle.numpy(x_array), 1):
        y = y + i
        z = z + x
    return y, z


# test_for_enumerate.py: for_in_range_with_break
def for_in_range_with_break(x):
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x = base.dygraph.to_variable(x)
    for i in range(paddle.numpy(x)[0]):
        z = z + i
        if i > 2:
            break
    return z


# test_for_enumerate.py: for_enumerate_var_numpy_with_break
def for_enumerate_var_numpy_with_break(x_array):
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for i, x in enumerate(paddle.numpy(x_array)):
        y = y + i
        z = z + x
        if i > 2:
            break
    return y, z


# test_for_enumerate.py: for_enumerate_var_numpy_with_continue
def for_enumerate_var_numpy_with_continue(x_array):
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for i, x in enumerate(paddle.numpy(x_array)):
        y = y + i
        if i > 2:
            continue
        z = z + x
    return y, z


# test_for_enumerate.py: for_enumerate_var_numpy_with_start_break
def for_enumerate_var_numpy_with_start_break(x_array):
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for i, x in enumerate(paddle.numpy(x_array), 1):
        y = y + i
        z = z + x
        if i > 2:
            break
    return y, z


# test_for_enumerate.py: for_enumerate_var_numpy_with_start_continue
def for_enumerate_var_numpy_with_start_continue(x_array):
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for i, x in enumerate(paddle.numpy(x_array), 1):
        y = y + i
        if i > 2:
            continue
        z = z + x
    return y, z


# test_for_enumerate.py: for_iter_var
def for_iter_var(x_array):
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)

    for x in x_array:
        z = z + x
    return z


# test_for_enumerate.py: for_enumerate_var
def for_enumerate_var(x_array):
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for i, x in enumerate(x_array):
        y = y + i
        z = z + x
    return y, z


# test_for_enumerate.py: for_iter_var_list
def for_iter_var_list(x):
    # 1. prepare data, ref test_list.py
    x = base.dygraph.to_variable(x)
    iter_num = paddle.tensor.fill_constant(shape=[1], value=5, dtype="int32")
    a = []
    for i in range(iter_num):
        a.append(x + i)
    # 2. iter list[var]
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    for x in a:
        y = y + x
    return y


# test_for_enumerate.py: for_enumerate_var_list
def for_enumerate_var_list(x):
    # 1. prepare data, ref test_list.py
    x = base.dygraph.to_variable(x)
    iter_num = paddle.tensor.fill_constant(shape=[1], value=5, dtype="int32")
    a = []
    for i in range(iter_num):
        a.append(x + i)
    # 2. iter list[var]
    y = paddle.tensor.fill_constant([1], 'int32', 0)
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    for i, x in enumerate(a):
        y = y + i
        z = z + x
    return y, z


# test_for_enumerate.py: for_enumerate_var_with_nested_range
def for_enumerate_var_with_nested_range(x_array):
    x = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)
    for i, num in enumerate(x_array):
        for idx in range(num):
            x = x + num
    return x


# test_for_enumerate.py: for_iter_var_idx
def for_iter_var_idx(x_array):
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    x_array = base.dygraph.to_variable(x_array)

    for x in x_array[0:]:
        z = z + x
    return z


# test_for_enumerate.py: for_tuple_as_iter_var
def for_tuple_as_iter_var(x_array):
    x = paddle.to_tensor(x_array)
    z = paddle.to_tensor(np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3]]))

    a_result = paddle.zeros([3])
    b_result = paddle.zeros([3])
    c_result = paddle.zeros([3])

    for a, b, c in z:
        a_result += a
        b_result += b
        c_result += c

    return a_result, b_result, c_result


# test_for_enumerate.py: for_tuple_as_enumerate_iter
def for_tuple_as_enumerate_iter(x_array):
    x = paddle.to_tensor(x_array)
    x_list = [x, x, x]

    a_result = paddle.zeros([5])

    for t in enumerate(x_list):
        a_result += t[1]

    return a_result


# test_for_enumerate.py: for_tuple_as_enumerate_value
def for_tuple_as_enumerate_value(x_array):
    x = paddle.to_tensor(x_array)
    x_list = [x, x, x]

    a_result = paddle.zeros([1])
    b_result = paddle.zeros([1])
    c_result = paddle.zeros([1])
    d_result = paddle.zeros([1])
    e_result = paddle.zeros([1])

    for i, (a, b, c, d, e) in enumerate(x_list):
        a_result += a
        b_result += b
        c_result += c
        d_result += d
        e_result += e

    return a_result


# test_for_enumerate.py: ForwardContainsForLayer.forward
class ForwardContainsForLayer:
    def __init__(self):
        self.high = 5
        self.low = 3

    def forward(self, x):
        # just for test case, x is useless in this method
        y = paddle.zeros([10, 2, 3])
        z = []
        for i in range(self.high - self.low):
            z.append(paddle.clone(y[i]))
        return z


# test_for_enumerate.py: for_original_list
def for_original_list():
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    for x in [1, 2, 3]:
        z = z + x
    return z


# test_for_enumerate.py: for_original_tuple
def for_original_tuple():
    z = paddle.tensor.fill_constant([1], 'int32', 0)
    for x in (1, 2, 3):
        z = z + x
    return z


# test_for_enumerate.py: for_zip
def for_zip(x, y):
    for i, j in zip(x, y):
        a = i + j
    return x + y


# test_for_enumerate.py: tensor_array_slice_in_enumerate
def tensor_array_slice_in_enumerate():
    feats = {}
    feats['key'] = []
    feats_idx = paddle.arange(0, 10)
    for i, idx in enumerate(feats_idx):
        if i > 1:
            feat_n2 = feats['key'][-2]
        feats['key'].append(idx)
    return feat_n2


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
    (for_in_range, FIVE),
    (for_iter_list, [([1, 2, 3],)]),
    (for_enumerate_list, [([1, 2, 3],)]),
    (for_iter_var_numpy, ARRAY),
    (for_enumerate_var_numpy, ARRAY),
    (for_enumerate_var_numpy_with_start, ARRAY),
    (for_in_range_with_break, FIVE),
    (for_enumerate_var_numpy_with_break, ARRAY),
    (for_enumerate_var_numpy_with_continue, ARRAY),
    (for_enumerate_var_numpy_with_start_break, ARRAY),
    (for_enumerate_var_numpy_with_start_continue, ARRAY),
    (for_iter_var, ARRAY),
    (for_enumerate_var, ARRAY),
    (for_iter_var_list, FIVE),
    (for_enumerate_var_list, FIVE),
    (for_enumerate_var_with_nested_range, ARRAY),
    (for_iter_var_idx, ARRAY),
    (for_tuple_as_iter_var, ARRAY),
    (for_tuple_as_enumerate_iter, ARRAY_F),
    (for_tuple_as_enumerate_value, ARRAY_F),
    (ForwardContainsForLayer().forward, ARRAY),
    (for_original_list, [()]),
    (for_original_tuple, [()]),
    (for_zip, [(X2_10, X2_10 * 2)]),
    (tensor_array_slice_in_enumerate, [()]),
]
