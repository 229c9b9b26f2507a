"""The example functions of TensorFlow's public guides to `tf.function` and AutoGraph
("Better performance with tf.function", "Introduction to graphs and tf.function", the
AutoGraph reference), with `rt` for `tf`: what `to_code` is measured on (see measure.py)
and what the readability tests print."""
# ruff: noqa
try:
    import runtime as rt
except ImportError:          # the converter does not need the runtime to convert these
    rt = None


def a_regular_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def my_relu(x):
    return rt.maximum(0., x)


def get_MSE(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = rt.pow(y_true - y_pred, 2)
    return rt.reduce_mean(sq_diff)


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def a_function_with_python_side_effect(x):
    print("Tracing!")
    return x * x + rt.constant(2)


def f(x):
    while rt.reduce_sum(x) > 1:
        rt.print(x)
        x = rt.tanh(x)
    return x


def fizzbuzz(n):
    for i in rt.range(1, n + 1):
        print('Tracing for loop')
        if i % 15 == 0:
            print('Tracing fizzbuzz branch')
            rt.print('fizzbuzz')
        elif i % 3 == 0:
            print('Tracing fizz branch')
            rt.print('fizz')
        elif i % 5 == 0:
            print('Tracing buzz branch')
            rt.print('buzz')
        else:
            print('Tracing default branch')
            rt.print(i)


def next_collatz(x):
    print("Tracing with", x)
    return rt.where(x % 2 == 0, x // 2, 3 * x + 1)


def train_one_step():
    pass


def train(num_steps):
    print("Tracing with num_steps = ", num_steps)
    rt.print("Executing with num_steps = ", num_steps)
    for _ in rt.range(num_steps):
        train_one_step()


def rnn_step(inp, state):
    return inp + state


def dynamic_rnn(rnn_step, input_data, initial_state):
    input_data = rt.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = rt.TensorArray(rt.float32, size=max_seq_len)
    state = initial_state
    for i in rt.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return rt.transpose(states.stack(), [1, 0, 2])


def recursive_fn(n):
    if n > 0:
        return recursive_fn(n - 1)
    else:
        return 1


def pow_(a, b):
    return a ** b


EXAMPLES = [a_regular_function, simple_relu, my_relu, get_MSE, power,
            a_function_with_python_side_effect, f, fizzbuzz, next_collatz, train, dynamic_rnn,
            recursive_fn]
