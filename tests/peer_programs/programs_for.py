"""`for` over ranges, lists, tensors and enumerate: programs from PaddlePaddle's
dygraph-to-static tests (test/dygraph_to_static/test_for_enumerate.py), each body as
written there, with Paddle's API names going through paddle_shim and a tensor method
`t.m()` written `paddle.m(t)`. The comment above each names its function."""
import numpy as np

import paddle_shim as paddle
from paddle_shim import base
from programs_loop import ARRAY, ARRAY_F, FIVE, X2_10


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


PROGRAMS = [
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
