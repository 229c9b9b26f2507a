"""`if`/`else` and conditional expressions: programs from PaddlePaddle's dygraph-to-static
tests (test/dygraph_to_static/: ifelse_simple_func.py, test_ifelse.py), each body as
written there, with Paddle's API names going through paddle_shim and a tensor method
`t.m()` written `paddle.m(t)`. The comment above each names its file and function."""
import numpy as np

import paddle_shim as paddle
from paddle_shim import F

# ifelse_simple_func.py: add_fn


def add_fn(x):
    x = x + 1
    return x


# ifelse_simple_func.py: dyfunc_empty_nonlocal
def dyfunc_empty_nonlocal(x):
    flag = True
    if flag:
        print("It's a test for empty nonlocal stmt")

    if paddle.mean(x) < 0:
        x + 1

    out = x * 2
    return out


# ifelse_simple_func.py: dyfunc_with_if_else
def dyfunc_with_if_else(x_v, label=None):
    if paddle.numpy(paddle.mean(x_v)) > 5:
        x_v = x_v - 1
    else:
        x_v = x_v + 1
    # plain if in python
    if label is not None:
        raise NotImplementedError("cross_entropy")
    return x_v


# ifelse_simple_func.py: dyfunc_with_if_else2
def dyfunc_with_if_else2(x, col=100):
    row = 0
    if abs(col) > x.shape[-1]:
        col = paddle.tensor.fill_constant(shape=[], value=-1, dtype="int64")
    else:
        col = paddle.tensor.fill_constant(shape=[], value=1, dtype="int64")
    if paddle.numpy(paddle.mean(x)) > paddle.numpy(x)[row][col]:
        x_pow = paddle.pow(x, 2)
        y = paddle.nn.functional.relu(x_pow)
    else:
        x_pow = paddle.pow(x, 2)
        y = paddle.tanh(x_pow)
    return y


# ifelse_simple_func.py: dyfunc_with_if_else3
def dyfunc_with_if_else3(x):
    y = x + 1
    # NOTE: x_v[0] < 5 is True
    if paddle.numpy(paddle.mean(x)) < 5:
        x = x + 1
        z = x + 2
        q = x + 3
        m = x + 2
        n = x + 3
    else:
        y = y + 1
        z = x - 2
        q = x + 3
        m = x + 2
        n = x + 3

    q = q + 1
    n = q + 2
    x = n
    return x


# ifelse_simple_func.py: dyfunc_with_if_else_early_return1
def dyfunc_with_if_else_early_return1():
    x = paddle.to_tensor([10])
    if x == 0:
        a = paddle.zeros([2, 2])
        b = paddle.zeros([3, 3])
        return a, b
    a = paddle.zeros([2, 2]) + 1
    return a, paddle.zeros([3, 3]) + 1


# ifelse_simple_func.py: dyfunc_with_if_else_early_return2
def dyfunc_with_if_else_early_return2():
    x = paddle.to_tensor([10])
    if x == 0:
        a = paddle.zeros([2, 2])
        b = paddle.zeros([3, 3])
        return a, b
    elif x == 1:
        c = paddle.zeros([2, 2]) + 1
        d = paddle.zeros([3, 3]) + 1
        return c, d
    e = paddle.zeros([2, 2]) + 3
    return e, paddle.zeros([3, 3]) + 3


# ifelse_simple_func.py: dyfunc_with_if_else_with_list_generator
def dyfunc_with_if_else_with_list_generator(x):
    if 10 > 5:
        y = paddle.add_n(
            [paddle.full(shape=[2], fill_value=v) for v in range(5)]
        )
    else:
        y = x
    return y


# ifelse_simple_func.py: nested_if_else
def nested_if_else(x_v):
    batch_size = 16
    feat_size = x_v.shape[-1]
    bias = paddle.tensor.fill_constant([feat_size], dtype='float32', value=1)
    if x_v.shape[0] != batch_size:
        batch_size = paddle.shape(x_v)[0]

    # if tensor.shape is [1], now support to compare with numpy.
    if paddle.numpy(paddle.mean(x_v)) < 0:
        y = x_v + bias
        w = paddle.tensor.fill_constant([feat_size], dtype='float32', value=10)
        if paddle.numpy(y)[0] < 10:
            tmp = y * w
            y = paddle.nn.functional.relu(tmp)
            if paddle.numpy(paddle.mean(y)) < batch_size:
                tmp = paddle.tensor.fill_constant(
                    y.shape, dtype='float32', value=-1
                )
                y = paddle.abs(y)
            else:
                tmp = paddle.tensor.fill_constant(
                    y.shape, dtype='float32', value=-1
                )
                y = y - tmp
        else:
            tmp = y * w
            y = paddle.nn.functional.relu(tmp)
            if paddle.numpy(paddle.mean(y)) < batch_size:
                tmp = paddle.tensor.fill_constant(
                    y.shape, dtype='float32', value=-1
                )
                y = paddle.abs(y)
            else:
                tmp = paddle.tensor.fill_constant(
                    y.shape, dtype='float32', value=-1
                )
                y = y - tmp
    else:
        y = x_v - bias
        w = paddle.tensor.fill_constant([feat_size], dtype='float32', value=10)
        tmp = y * w
        y = paddle.nn.functional.relu(tmp)
        tmp = paddle.tensor.fill_constant(y.shape, dtype='float32', value=-1)
        y = paddle.abs(y)
    return y


# ifelse_simple_func.py: nested_if_else_2
def nested_if_else_2(x):
    y = paddle.reshape(x, [-1, 1])
    b = 2
    if b < 1:
        # var `z` is not visible for outer scope
        z = y
    x_shape_0 = x.shape[0]
    if x_shape_0 < 1:
        if paddle.numpy(paddle.shape(y))[0] < 1:
            res = paddle.tensor.fill_constant(
                value=2, shape=x.shape, dtype="int32"
            )
            # `z` is a new var here.
            z = y + 1
        else:
            res = paddle.tensor.fill_constant(
                value=3, shape=x.shape, dtype="int32"
            )
    else:
        res = x
    return res


# ifelse_simple_func.py: nested_if_else_3
def nested_if_else_3(x):
    y = paddle.reshape(x, [-1, 1])
    b = 2
    # var `z` is visible for func.body
    if b < 1:
        z = y
    else:
        z = x

    if b < 1:
        res = x
        # var `out` is only visible for current `if`
        if b > 1:
            out = x + 1
        else:
            out = x - 1
    else:
        y_shape = paddle.shape(y)
        if paddle.numpy(y_shape)[0] < 1:
            res = paddle.tensor.fill_constant(
                value=2, shape=x.shape, dtype="int32"
            )
            # `z` is created in above code block.
            z = y + 1
            out = x - 1
        else:
            res = paddle.tensor.fill_constant(
                value=3, shape=x.shape, dtype="int32"
            )
            # `out` is a new var.
            out = x + 1
            z = y - 1
    return res


# ifelse_simple_func.py: if_with_and_or
def if_with_and_or(x_v, label=None):
    batch_size = paddle.shape(x_v)
    if (
        x_v is not None
        and (paddle.numpy(paddle.mean(x_v)) > 0 or label is not None)
        and batch_size[0] > 1
        and True
    ):
        x_v = x_v - 1
    else:
        x_v = x_v + 1

    if label is not None:
        raise NotImplementedError("cross_entropy")
    return x_v


# ifelse_simple_func.py: if_with_and_or_1
def if_with_and_or_1(x, y=None):
    batch_size = paddle.shape(x)
    if batch_size[0] > 1 and y is not None:
        x = x + 1
    if y is not None or batch_size[0] > 1:
        x = x - 1
    return x


# ifelse_simple_func.py: if_with_and_or_2
def if_with_and_or_2(x, y=None):
    batch_size = paddle.shape(x)
    if x is not None and batch_size[0] > 1 and y is not None:
        x = x + 1
    if batch_size[0] > 1 or y is not None or x is not None:
        x = x - 1
    return x


# ifelse_simple_func.py: if_with_and_or_3
def if_with_and_or_3(x, y=None):
    batch_size = paddle.shape(x)
    mean_res = paddle.mean(x)
    if (
        x is not None
        and batch_size[0] > 1
        and y is not None
        and paddle.numpy(mean_res) > 0
    ):
        x = x + 1
    if paddle.numpy(mean_res) > 0 and (x is not None and batch_size[0] > 1) and y:
        x = x - 1
    return x


# ifelse_simple_func.py: if_with_and_or_4
def if_with_and_or_4(x, y=None):
    batch_size = paddle.shape(x)
    mean_res = paddle.mean(x)
    if (x is not None and batch_size[0] > 1) or (
        y is not None and paddle.numpy(mean_res) > 0
    ):
        x = x + 1
    if (x is not None or batch_size[0] > 1) and (
        y is not None or paddle.numpy(mean_res) > 0
    ):
        x = x - 1
    return x


# ifelse_simple_func.py: if_with_class_var
def if_with_class_var(x, y=None):
    class Foo:
        def __init__(self):
            self.a = 1
            self.b = 2

    foo = Foo()
    batch_size = paddle.shape(x)
    mean_res = paddle.mean(x)

    if batch_size[0] > foo.a:
        x = x + foo.b
    else:
        x = x - foo.b
    return x


# ifelse_simple_func.py: if_tensor_case
def if_tensor_case(x):
    x = paddle.assign(x)
    mean = paddle.mean(x)
    # It is equivalent to `if mean != 0`
    if mean:
        for i in range(0, 10):
            if i > 5:
                x += 1
                break
            x += 1
    else:
        for i in range(0, 37):
            x += 1
            break
            x += i

    # join `and`/`or`
    if paddle.mean(x) + 1 and mean > 1 and x is not None or 2 > 1:
        x -= 1

    # `not` statement
    if not (x[0][0] and (mean * x)[0][0]):
        x += 1

    return x


# ifelse_simple_func.py: dyfunc_ifelse_ret_int1
def dyfunc_ifelse_ret_int1(x):
    index = 0
    pred = paddle.to_tensor([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return y, index
    else:
        y = x[index] + 2
        index = index + 1
        return y, index


# ifelse_simple_func.py: dyfunc_ifelse_ret_int2
def dyfunc_ifelse_ret_int2(x):
    index = 0
    pred = paddle.to_tensor([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return y, index
    else:
        y = x[index] + 2
        index = index + 1
        return y


# ifelse_simple_func.py: dyfunc_ifelse_ret_int3
def dyfunc_ifelse_ret_int3(x):
    index = 0
    pred = paddle.to_tensor([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return index
    else:
        y = x[index] + 2
        return y


# ifelse_simple_func.py: dyfunc_ifelse_ret_int4
def dyfunc_ifelse_ret_int4(x):
    index = 0
    pred = paddle.to_tensor([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return 'unsupport ret'
    else:
        y = x[index] + 2
        return y


# test_ifelse.py: dyfunc_ifExp_with_while
def dyfunc_ifExp_with_while(x):
    y = [x]

    def add_fn(x):
        x = x + 1
        return x

    def cond(i, ten, y):
        return i < ten

    def map_func(func, tensor_list):
        return [func(x) for x in tensor_list]

    def body(i, ten, y):
        y = map_func(lambda x: x if (i == 0) is not None else add_fn(x), y)
        i += 1
        return [i, ten, y]

    i = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=0)
    ten = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=10)
    i, ten, y = paddle.static.nn.while_loop(cond, body, [i, ten, y])
    return y[0]


# test_ifelse.py: dyfunc_ifExp
def dyfunc_ifExp(x):
    y = [x]

    def add_fn(x):
        x = x + 1
        return x

    def map_func(func, tensor_list):
        return [func(x) for x in tensor_list]

    i = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=0)
    y = map_func(lambda x: x if i == 1 else add_fn(x), y)
    return y[0]


# test_ifelse.py: relu
def relu(x):
    return F.relu(x)


# test_ifelse.py: call_external_func
def call_external_func(x, label=None):
    if paddle.mean(x) < 0:
        x_v = x - 1
    else:
        x_v = add_fn(x)

    x_v = relu(x_v)
    if label is not None:
        raise NotImplementedError("loss_fn")
    return x_v


# test_ifelse.py: DiffModeNet1.forward
class DiffModeNet1:
    def __init__(self, mode):
        self.mode = mode

    def forward(self, x, y):
        if self.mode == 'train':
            out = x + y
        elif self.mode == 'infer':
            out = x - y
        else:
            raise ValueError('Illegal mode')
        return out


# test_ifelse.py: DiffModeNet2.forward
class DiffModeNet2:
    def __init__(self, mode):
        self.mode = mode

    def forward(self, x, y):
        if self.mode == 'train':
            out = x + y
            return out
        elif self.mode == 'infer':
            out = x - y
            return out
        else:
            raise ValueError('Illegal mode')


# test_ifelse.py: TestNewVarCreateInOneBranch.case_func
def case_func(training):
    # targets and targets_list is dynamically defined by training
    if training:
        targets = [1, 2, 3]
        targets_list = [targets]

    num_step = 3
    for i in range(num_step):
        if i > 0:
            rois, rosi_num = 1, 2
            # targets is in loop_vars.
            if training:
                ros, rosi_num, targets = -1, -2, [-1, -2, -3]
                targets_list.append(targets)

    return rosi_num


# The inputs: Paddle's tests use np.random.random([10, 16]) float32 for the `if` programs
# (a second case, its negation, takes the other branches), [3] int32 for the logical ones,
# [1, 3] float32 for the lambdas, [[1, 2, 3], [4, 5, 6]] for the convert_operators ones.
X = np.random.RandomState(1).random_sample([10, 16]).astype(np.float32)
IFELSE = [(X,), (-X,)]
LOGICAL = [(np.array([3], np.int32),), (np.array([12], np.int32),), (np.array([-2], np.int32),)]
LAMBDA = [(np.array([1, 3], np.float32),), (np.array([1.5, 1.25], np.float32),)]
X23 = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
X5 = np.random.RandomState(2).random_sample([5]).astype(np.float32)

PROGRAMS = [
    (dyfunc_empty_nonlocal, IFELSE),
    (dyfunc_with_if_else, IFELSE),
    (dyfunc_with_if_else2, IFELSE),
    (dyfunc_with_if_else3, IFELSE),
    (dyfunc_with_if_else_early_return1, [()]),
    (dyfunc_with_if_else_early_return2, [()]),
    (dyfunc_with_if_else_with_list_generator, IFELSE),
    (nested_if_else, IFELSE),
    (nested_if_else_2, IFELSE),
    (nested_if_else_3, IFELSE),
    (if_with_and_or, IFELSE),
    (if_with_and_or_1, IFELSE),
    (if_with_and_or_2, IFELSE),
    (if_with_and_or_3, IFELSE),
    (if_with_and_or_4, IFELSE),
    (if_with_class_var, IFELSE),
    (if_tensor_case, IFELSE),
    (dyfunc_ifelse_ret_int1, [(X5,)]),
    (dyfunc_ifelse_ret_int2, [(X5,)]),
    (dyfunc_ifelse_ret_int3, [(X5,)]),
    (dyfunc_ifelse_ret_int4, [(X5,)]),
    (dyfunc_ifExp_with_while, IFELSE),
    (dyfunc_ifExp, IFELSE),
    (call_external_func, IFELSE),
    (DiffModeNet1('train').forward, [(X, -X)]),
    (DiffModeNet1('infer').forward, [(X, -X)]),
    (DiffModeNet2('train').forward, [(X, -X)]),
    (DiffModeNet2('infer').forward, [(X, -X)]),
    (case_func, [(False,), (True,)]),
]
