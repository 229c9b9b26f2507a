"""Shapes in control flow: programs from PaddlePaddle's dygraph-to-static tests
(test/dygraph_to_static/test_tensor_shape.py), each body as written there, with Paddle's
API names going through paddle_shim. The comment above each names its function. Also the
inputs of programs_misc.py (kept here, under the size a file may have)."""
import numpy as np

import paddle_shim as paddle
import programs_misc as misc


# test_tensor_shape.py: dyfunc_tensor_shape_1
def dyfunc_tensor_shape_1(x):
    x = paddle.to_tensor(x)
    res = paddle.reshape(x, shape=x.shape)
    return res


# test_tensor_shape.py: dyfunc_tensor_shape_2
def dyfunc_tensor_shape_2(x):
    x = paddle.to_tensor(x)
    shape = x.shape
    shape2 = shape
    res = paddle.reshape(x, shape2)
    return res


# test_tensor_shape.py: dyfunc_tensor_shape_3
def dyfunc_tensor_shape_3(x):
    # Transform y.shape but run y.shape actually because y is not Tensor
    x = paddle.to_tensor(x)
    y = paddle.ones([1, 5])
    res = paddle.reshape(x, shape=y.shape)
    return res


# test_tensor_shape.py: dyfunc_tensor_shape_4
def dyfunc_tensor_shape_4(x):
    x = paddle.to_tensor(x)
    res = paddle.reshape(x, shape=(-1, x.shape[0], len(x.shape)))
    return res


# test_tensor_shape.py: dyfunc_tensor_shape_5
def dyfunc_tensor_shape_5(x):
    x = paddle.to_tensor(x)
    s = x.shape[0]
    res = paddle.reshape(x, shape=(-1, s))
    return res


# test_tensor_shape.py: dyfunc_tensor_shape_6
def dyfunc_tensor_shape_6(x):
    x = paddle.to_tensor(x)
    s = x.shape[0:]
    res = paddle.reshape(x, shape=s)
    return res


# test_tensor_shape.py: dyfunc_tuple_shape_1
def dyfunc_tuple_shape_1(x):
    x = paddle.to_tensor(x)
    a, b = x.shape
    res = paddle.reshape(x, shape=(b, a))
    return res


# test_tensor_shape.py: dyfunc_tuple_shape_2
def dyfunc_tuple_shape_2(x):
    x = paddle.to_tensor(x)
    shape = x.shape
    a, b = shape
    res = paddle.reshape(x, shape=(b, a))
    return res


# test_tensor_shape.py: dyfunc_tuple_shape_3
def dyfunc_tuple_shape_3(x):
    x = paddle.to_tensor(x)
    a, b = paddle.shape(x)
    res = paddle.reshape(x, shape=(b, a))
    return res


# test_tensor_shape.py: dyfunc_paddle_shape_api
def dyfunc_paddle_shape_api(x):
    x = paddle.to_tensor(x)
    # paddle.shape will not be converted.
    a = paddle.shape(x)[0]
    b = paddle.shape(x)[1]
    res = paddle.reshape(x, shape=(b, a))
    return res


# test_tensor_shape.py: dyfunc_with_if_1
def dyfunc_with_if_1(x):
    x = paddle.to_tensor(x)
    res = paddle.reshape(x, [-1, 1])
    x_shape_0 = x.shape[0]
    if x_shape_0 < 1:
        if res.shape[0] > 1:
            res = paddle.full(shape=x.shape, fill_value=2, dtype="int32")
        else:
            res = paddle.full(shape=x.shape, fill_value=3, dtype="int32")
    return res


# test_tensor_shape.py: dyfunc_with_if_2
def dyfunc_with_if_2(x):
    x = paddle.to_tensor(x)
    # `len(x.shape)` will not be transformed because x.shape is not used by Paddle api.
    if len(x.shape) < 1:
        res = x
    else:
        res = paddle.full(shape=x.shape, fill_value=8, dtype="int32")

    return res


# test_tensor_shape.py: dyfunc_with_for_1
def dyfunc_with_for_1(x):
    x = paddle.to_tensor(x)
    res = paddle.full(shape=[1], fill_value=0, dtype="int32")
    for i in range(x.shape[0]):
        res += 1
    return res


# test_tensor_shape.py: dyfunc_with_for_2
def dyfunc_with_for_2(x):
    x = paddle.to_tensor(x)
    x_shape_0 = x.shape[0]
    res = paddle.full(shape=[1], fill_value=0, dtype="int32")

    for i in range(x_shape_0):
        res += 1
    return res


# test_tensor_shape.py: dyfunc_with_for_3
def dyfunc_with_for_3(x):
    x = paddle.to_tensor(x)
    res = paddle.full(shape=[1], fill_value=0, dtype="int32")
    # `len(x.shape)` is not transformed.
    for i in range(len(x.shape)):
        res += 1

    return res


# test_tensor_shape.py: dyfunc_with_while_1
def dyfunc_with_while_1(x):
    x = paddle.to_tensor(x)
    res = paddle.full(shape=[1], fill_value=0, dtype="int32")
    i = 1
    while i < x.shape[0]:
        res += 1
        i = i + 2
    return res


# test_tensor_shape.py: dyfunc_with_while_2
def dyfunc_with_while_2(x):
    x = paddle.to_tensor(x)
    x_shape_0 = x.shape[0]
    res = paddle.full(shape=[1], fill_value=0, dtype="int32")
    i = 1
    while i < x_shape_0:
        res += 1
        i = i + 2
    return res


# test_tensor_shape.py: dyfunc_with_while_3
def dyfunc_with_while_3(x):
    x = paddle.to_tensor(x)
    x_shape = x.shape
    res = paddle.full(shape=[1], fill_value=0, dtype="int32")
    i = 1

    # `len(x.shape)` is not transformed.
    while len(x_shape) > i:
        res += 1
        i += 1
    return res


# test_tensor_shape.py: dyfunc_with_while_4
def dyfunc_with_while_4(x):
    x = paddle.to_tensor(x)
    y = paddle.ones([1, 5])
    y_shape_0 = y.shape[0]
    i = 1

    # Transform y_shape_0 but run y.shape[0] actually because y is not Tensor
    while y_shape_0 > i:
        x += 1
        i += 1
    return x


# test_tensor_shape.py: dyfunc_change_shape_after_assign
def dyfunc_change_shape_after_assign(x):
    x = paddle.to_tensor(x)
    a, b = x.shape
    x = paddle.reshape(x, shape=(-1, 1))
    res = paddle.reshape(x, shape=(b, a))
    return res


# test_tensor_shape.py: dyfunc_len_paddle_shape
def dyfunc_len_paddle_shape():
    x = paddle.to_tensor([1, 2, 3])
    if len(paddle.shape(x)) > 0:
        print(x)


# test_tensor_shape.py: dyfunc_dict_assign_shape
def dyfunc_dict_assign_shape():
    x = paddle.to_tensor([1, 2])
    a = {}
    a['shape'] = x.shape[0]


# The inputs: Paddle's tests use np.ones(5) int32 ((5, 7) for the tuple shapes) for the
# shape programs; np.ones(1) int32 for test_return.py (float32 for the recursive one; a
# second case, -3, takes the other branches); np.random.random(3).astype('int32'), that is
# zeros, and 3 for `iter_num` for test_list.py (a second case, [3, 1, 2], takes the other
# branches); [10, 16] float32 for len.
ONES5 = [(np.ones(5, np.int32),)]
ONES57 = [(np.ones((5, 7), np.int32),)]
RET = [(np.ones(1, np.int32),), (np.array([-3], np.int32),)]
LIST = [(np.zeros(3, np.int32),), (np.array([3, 1, 2], np.int32),)]
LIST_N = [(np.zeros(3, np.int32), 3), (np.array([3, 1, 2], np.int32), 2)]
X34 = np.random.RandomState(4).random_sample([3, 4]).astype(np.float32)
X = np.random.RandomState(1).random_sample([10, 16]).astype(np.float32)

PROGRAMS = [
    (dyfunc_tensor_shape_1, ONES5),
    (dyfunc_tensor_shape_2, ONES5),
    (dyfunc_tensor_shape_3, ONES5),
    (dyfunc_tensor_shape_4, ONES5),
    (dyfunc_tensor_shape_5, ONES5),
    (dyfunc_tensor_shape_6, ONES5),
    (dyfunc_tuple_shape_1, ONES57),
    (dyfunc_tuple_shape_2, ONES57),
    (dyfunc_tuple_shape_3, ONES57),
    (dyfunc_paddle_shape_api, ONES57),
    (dyfunc_with_if_1, ONES5),
    (dyfunc_with_if_2, ONES5),
    (dyfunc_with_for_1, ONES5),
    (dyfunc_with_for_2, ONES5),
    (dyfunc_with_for_3, ONES5),
    (dyfunc_with_while_1, ONES5),
    (dyfunc_with_while_2, ONES5),
    (dyfunc_with_while_3, ONES5),
    (dyfunc_with_while_4, ONES5),
    (dyfunc_change_shape_after_assign, ONES57),
    (dyfunc_len_paddle_shape, [()]),
    (dyfunc_dict_assign_shape, [()]),
]

MISC_PROGRAMS = [
    (misc.test_return_base, RET),
    (misc.test_inside_func_base, RET),
    (misc.test_return_if, RET),
    (misc.test_return_if_else, RET),
    (misc.test_return_in_while, RET),
    (misc.test_return_in_for, RET),
    (misc.test_recursive_return, [(np.ones(1, np.float32),), (np.array([6], np.float32),)]),
    (misc.test_return_different_length_if_body, RET),
    (misc.test_return_different_length_else, RET),
    (misc.test_no_return, RET),
    (misc.test_return_none, RET),
    (misc.test_return_no_variable, RET),
    (misc.test_return_list_one_value, RET),
    (misc.test_return_list_many_values, RET),
    (misc.test_return_tuple_one_value, RET),
    (misc.test_return_tuple_many_values, RET),
    (misc.test_return_without_paddle_cond, RET),
    (misc.test_diff_return, RET),
    (misc.test_return_if_else_2, RET),
    (misc.test_return_in_while_2, RET),
    (misc.test_return_in_for_2, RET),
    (misc.test_return_nested, RET),
    (misc.test_list_append_without_control_flow, LIST),
    (misc.test_list_append_in_if, LIST),
    (misc.test_list_append_in_for_loop, LIST_N),
    (misc.test_list_append_in_for_subscript, [(X34,)]),
    (misc.test_list_append_in_while_loop_subscript, [(X34,)]),
    (misc.test_list_append_in_for_loop_with_concat, LIST_N),
    (misc.test_list_append_in_while_loop, LIST_N),
    (misc.test_list_append_in_while_loop_with_stack, LIST_N),
    (misc.test_tensor_array_slice, LIST_N),
    (misc.test_list_pop_without_control_flow_1, LIST),
    (misc.test_list_pop_without_control_flow_2, LIST),
    (misc.test_list_pop_in_if, LIST),
    (misc.test_list_pop_in_for_loop, LIST_N),
    (misc.test_list_pop_in_while_loop, LIST_N),
    (misc.list_with_cond_net_forward, [(np.array([2, 3, 4], np.float32), np.array([1], np.int32)),
                                       (np.array([2, 3, 4], np.float32), np.array([0], np.int32))]),
    (misc.test_dic_pop, LIST),
    (misc.test_dic_pop_2, LIST),
    (misc.dict_cmp_in_for, [()]),
    (misc.dict_cmp_in_for_enumerate, [()]),
    (misc.dyfunc_assert_variable, [(np.array([False]),), (np.array([True]),),
                                   (np.array([0], np.int32),), (np.array([1], np.int32),)]),
    (misc.dyfunc_assert_non_variable, [(False,), (True,)]),
    (misc.len_with_tensor, [(X,)]),
]
