"""`return`, lists, dicts, shapes, `assert` and `len`: programs from PaddlePaddle's
dygraph-to-static tests (test/dygraph_to_static/: test_return.py, test_list.py,
test_dict.py, test_tensor_shape.py, test_assert.py, test_len.py), each body as written
there, with Paddle's API names going through paddle_shim and a tensor method `t.m()`
written `paddle.m(t)`; their `@paddle.jit.to_static` decorators are left off (the harness
stages them). The comment above each names its file and function. test_print.py is left
out: `print` of a tensor writes an eager tensor's value but a graph tensor's name while
tracing, in TensorFlow as here."""

import paddle_shim as paddle
from paddle_shim import base
from programs_ifelse import dyfunc_with_if_else


# test_return.py: test_return_base
def test_return_base(x):
    x = base.dygraph.to_variable(x)
    return x


# test_return.py: test_inside_func_base
def test_inside_func_base(x):
    x = base.dygraph.to_variable(x)

    def inner_func(x):
        return x

    return inner_func(x)


# test_return.py: test_return_if
def test_return_if(x):
    x = base.dygraph.to_variable(x)
    if x < 0:
        x -= 1
        return -x
    x += 3
    return x


# test_return.py: test_return_if_else
def test_return_if_else(x):
    x = base.dygraph.to_variable(x)
    if x > 0:
        x += 10086
        return x
        x -= 3  # useless statement to test our code can handle it.
    else:
        x += 6666
        return x
        x -= 8888  # useless statement to test our code can handle it.


# test_return.py: test_return_in_while
def test_return_in_while(x):
    x = base.dygraph.to_variable(x)
    i = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=0)
    while i < 10:
        i += 1
        if i > 5:
            x += 110
            return x
        x += i
    return x


# test_return.py: test_return_in_for
def test_return_in_for(x):
    x = base.dygraph.to_variable(x)
    for i in range(10):
        if i <= 4:
            x += 1
            continue
        else:
            return x + 10086
    return x - 1


# test_return.py: test_recursive_return
def test_recursive_return(x):
    x = base.dygraph.to_variable(x)
    return dyfunc_with_if_else(x)


# test_return.py: test_return_different_length_if_body
def test_return_different_length_if_body(x):
    x = base.dygraph.to_variable(x)
    y = x + 1
    if x > 0:
        # x = to_variable(np.ones(1)) so it will return here
        return x, y
    else:
        return x


# test_return.py: test_return_different_length_else
def test_return_different_length_else(x):
    x = base.dygraph.to_variable(x)
    y = x + 1
    if x < 0:
        return x, y
    else:
        # x = to_variable(np.ones(1)) so it will return here
        return x


# test_return.py: test_no_return
def test_no_return(x):
    x = base.dygraph.to_variable(x)
    y = x + 1


# test_return.py: test_return_none
def test_return_none(x):
    x = base.dygraph.to_variable(x)
    y = x + 1
    if x > 0:
        # x = to_variable(np.ones(1)) so it will return here
        return None
    else:
        return x, y


# test_return.py: test_return_no_variable
def test_return_no_variable(x):
    x = base.dygraph.to_variable(x)
    y = x + 1
    if x < 0:
        return x, y
    else:
        # x = to_variable(np.ones(1)) so it will return here
        return


# test_return.py: test_return_list_one_value
def test_return_list_one_value(x):
    x = base.dygraph.to_variable(x)
    x += 1
    return [x]


# test_return.py: test_return_list_many_values
def test_return_list_many_values(x):
    x = base.dygraph.to_variable(x)
    x += 1
    y = x * 2
    z = x * x
    return [x, y, z]


# test_return.py: test_return_tuple_one_value
def test_return_tuple_one_value(x):
    x = base.dygraph.to_variable(x)
    x += 1
    return (x,)


# test_return.py: test_return_tuple_many_values
def test_return_tuple_many_values(x):
    x = base.dygraph.to_variable(x)
    x += 1
    y = x * 2
    z = x * x
    return (x, y, z)


# test_return.py: inner_func
def inner_func(x):
    a = 2
    if a < 0:
        y = x + 1
        return y
    y = x * 2
    return y


# test_return.py: test_return_without_paddle_cond
def test_return_without_paddle_cond(x):
    # y shape is [10]
    y = paddle.ones([10])

    # the shape of inner_func(y) should be [10], not [1]
    y = inner_func(y)
    y = paddle.reshape(y, [2, 5])
    return y


# test_return.py: two_value
def two_value(x):
    return x * 2, x + 1


# test_return.py: diff_return_hepler
def diff_return_hepler(x):
    if False:
        y = x + 1
        z = x - 1
        return y, z
    else:
        return two_value(x)


# test_return.py: test_diff_return
def test_diff_return(x):
    x = paddle.to_tensor(x)
    y, z = diff_return_hepler(x)
    if y.shape[0] > 1:
        y = y + 1
    return y, z


# test_return.py: test_return_if_else_2
def test_return_if_else_2(x):
    rr = 0
    if True:
        rr = 1
        return 1
    else:
        a = 0


# test_return.py: test_return_in_while_2
def test_return_in_while_2(x):
    while True:
        a = 12
        return 12
    return 10


# test_return.py: test_return_in_for_2
def test_return_in_for_2(x):
    a = 12
    for i in range(10):
        return 12
    return 10


# test_return.py: test_return_nested
def test_return_nested(x):
    def func():
        rr = 0
        if True:
            rr = 1
            return 1
            rr = 2
        else:
            a = 0
            return 4
        return 3

    return func()


# test_list.py: test_list_append_without_control_flow
def test_list_append_without_control_flow(x):
    # Python list will not be transformed.
    x = base.dygraph.to_variable(x)
    a = []
    # It's a plain python control flow which won't be transformed
    if 2 > 1:
        a.append(x)
    return a


# test_list.py: test_list_append_in_if
def test_list_append_in_if(x):
    x = base.dygraph.to_variable(x)
    a = []
    if paddle.numpy(x)[0] > 0:
        a.append(x)
    else:
        a.append(
            paddle.tensor.fill_constant(shape=[1, 2], value=9, dtype="int64")
        )
    return a[0]


# test_list.py: test_list_append_in_for_loop
def test_list_append_in_for_loop(x, iter_num):
    x = base.dygraph.to_variable(x)
    iter_num = paddle.tensor.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )
    a = []
    for i in range(iter_num):
        a.append(x)
    return a[0]


# test_list.py: test_list_append_in_for_subscript
def test_list_append_in_for_subscript(x):
    x = base.dygraph.to_variable(x)
    iter_num = paddle.shape(x)[0]
    a = []
    for i in range(iter_num):
        x = x + 1
        a.append(x)
    out = paddle.concat(a)
    return out[0]


# test_list.py: test_list_append_in_while_loop_subscript
def test_list_append_in_while_loop_subscript(x):
    x = base.dygraph.to_variable(x)
    iter_num = paddle.shape(x)[0]
    a = []
    i = 0
    while i < iter_num:
        x = x + 1
        a.append(x)
        i += 1
    out = paddle.concat(a)
    return out[0]


# test_list.py: test_list_append_in_for_loop_with_concat
def test_list_append_in_for_loop_with_concat(x, iter_num):
    x = base.dygraph.to_variable(x)
    a = []
    iter_num = paddle.tensor.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )
    for i in range(iter_num):
        a.append(x)
    a = paddle.concat(a, axis=0)
    return a


# test_list.py: test_list_append_in_while_loop
def test_list_append_in_while_loop(x, iter_num):
    x = base.dygraph.to_variable(x)
    iter_num = paddle.tensor.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )
    a = []
    i = 0
    while i < iter_num:
        a.append(x)
        i += 1
    return a[0]


# test_list.py: test_list_append_in_while_loop_with_stack
def test_list_append_in_while_loop_with_stack(x, iter_num):
    x = base.dygraph.to_variable(x)
    iter_num = paddle.tensor.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )
    a = []
    i = 0
    while i < paddle.numpy(iter_num)[0]:
        a.append(x)
        i += 1
    out = paddle.stack(a, axis=1)
    return out


# test_list.py: test_tensor_array_slice
def test_tensor_array_slice(x, iter_num):
    a = []
    for i in range(paddle.to_tensor(3)):
        a.append(paddle.to_tensor(i))
    t = a[1:3]
    return a[2]


# test_list.py: test_list_pop_without_control_flow_1
def test_list_pop_without_control_flow_1(x):
    x = base.dygraph.to_variable(x)
    a = []
    if 2 > 1:
        a.append(x)
    a.pop()
    return a


# test_list.py: test_list_pop_without_control_flow_2
def test_list_pop_without_control_flow_2(x):
    x = base.dygraph.to_variable(x)
    a = []
    if 2 > 1:
        a.append(x)
        a.append(x + 1)
    last_item = a.pop(1)
    return last_item


# test_list.py: test_list_pop_in_if
def test_list_pop_in_if(x):
    x = base.dygraph.to_variable(x)
    a = []
    b = [x * 2 + (x + 1)]
    if paddle.numpy(x)[0] > 0:
        a.append(x)
        b.append(x + 1)
        a.append(paddle.tensor.fill_constant(shape=[1], value=1, dtype="int64"))
    else:
        a.append(x + 1)
        b.append(x - 1)
        a.append(paddle.tensor.fill_constant(shape=[2], value=2, dtype="int64"))
    item1 = a.pop(1)
    return item1, b[-1]


# test_list.py: test_list_pop_in_for_loop
def test_list_pop_in_for_loop(x, iter_num):
    x = base.dygraph.to_variable(x)
    iter_num = paddle.tensor.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )

    a = []
    b = [x - 1, x + 1]
    for i in range(iter_num):
        a.append(x + i)
        b.append(x * 2)

    one = paddle.ones(shape=[1], dtype="int32")
    for i in range(paddle.numpy(one)[0]):
        item = a.pop()
    return a[0], item, b[1]


# test_list.py: test_list_pop_in_while_loop
def test_list_pop_in_while_loop(x, iter_num):
    x = base.dygraph.to_variable(x)
    iter_num = paddle.tensor.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )
    a = []
    b = [x]
    b.append(x)
    b.pop()
    i = 0

    while i < iter_num:
        a.append(x + i)
        b.append(x - i)
        i += 1
        if i % 2 == 1:
            a.pop()
    return a[0], b[2]


# test_list.py: ListWithCondNet.forward
def list_with_cond_net_forward(x, index):
    y = paddle.nn.functional.relu(x)
    a = []

    for i in y:
        a.append(i)

    if index > 0:
        res = a[0] * a[0]
        y = y + 1
    else:
        res = a[-1] * a[-1]
        y = y - 1

    z = a[-1] * res * y[0]
    return z


# test_dict.py: test_dic_pop
def test_dic_pop(x):
    x = paddle.to_tensor(x)
    dict_a = {"red": 0, "green": 1, "blue": 2}

    m = dict_a.pop("red")
    n = dict_a.pop("black", 3)

    out = x + m + n
    return out


# test_dict.py: test_dic_pop_2
def test_dic_pop_2(x):
    x = paddle.to_tensor(x)
    dict_a = {"red": x, "green": x + 1, "blue": x + 3}

    m = dict_a.pop("red")
    n = dict_a.pop("black", 3)

    out = x + m + n
    return out


# test_dict.py: TestDictCmpInFor.test_with_for.func
def dict_cmp_in_for():
    pos = [1, 3]
    neg = [-1, -3]
    dict_val = {'minus': 0}
    # test `zip` with `for`
    for x, y in zip(pos, neg):
        val = x - y
        dict_val.update(
            {k: val + dict_val[k] for k, v in dict_val.items()}
        )

    return dict_val


# test_dict.py: TestDictCmpInFor.test_with_for_enumerate.func
def dict_cmp_in_for_enumerate():
    pos = [1, 3]
    neg = [-1, -3]
    dict_val = {'minus': 0}
    # test `zip` with `for`
    for i, (x, y) in enumerate(zip(pos, neg)):
        val = x - y
        dict_val.update(
            {k: val + dict_val[k] for k, v in dict_val.items()}
        )

    return dict_val


# test_assert.py: dyfunc_assert_variable
def dyfunc_assert_variable(x):
    x_v = base.dygraph.to_variable(x)
    assert x_v


# test_assert.py: dyfunc_assert_non_variable
def dyfunc_assert_non_variable(x=True):
    assert x


# test_len.py: len_with_tensor
def len_with_tensor(x):
    x = base.dygraph.to_variable(x)
    x_len = len(x)
    return x_len
