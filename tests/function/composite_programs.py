"""Functions that write attributes, items, globals and Python lists inside `if`, `while`
and `for`: each must give the same answer as plain Python when converted and when
staged by rt.function on tensors (or raise a clear error where it cannot be staged)."""
# ruff: noqa
import asyncio

import autograph as ag
import runtime as rt


def if_basic_dict(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x


def if_basic_list(a):
    x = [a, 0]
    if x[0] > 0:
        x[1] = 1
    else:
        x[1] = -1
    return x


def if_read_after(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x["b"] * 10


def while_basic_dict(x, a, b):
    y = {"a": a, "b": b}
    while x > 0:
        x -= 1
        y["a"] += 1
    return y


def while_state_only_list(a, b):
    y = [a, b]
    while y[1] <= 10:
        y[0] += 1
        y[1] *= 2
    return y


def while_imbalanced(b):
    y = {"b": b}
    while y["b"] <= 10:
        y["a"] = y["b"] + 1
        y["b"] *= 2
    return y


def for_basic_dict(n, x, a, b):
    y = {"a": a, "b": b}
    for i in range(n):
        x -= 1
        y["a"] += i
    return y


def for_state_only_list(n, a, b):
    y = [a, b]
    for _ in range(n):
        y[0] += 1
    return y


def for_imbalanced(n, x):
    y = {}
    for i in range(n):
        x -= i
        y["a"] = x
    return y


class Box:
    pass


def attribute_chain(a):
    o = Box()
    o.p = Box()
    o.p.q = 0
    if a > 0:
        o.p.q = a * 2
    return o.p.q


def key_variable(n):
    d = {"k": 0}
    k = "k"
    for i in range(n):
        d[k] += i
    return d


def nested_loops(n):
    y = {"s": 0}
    for i in range(n):
        for j in range(n):
            if i > j:
                y["s"] += i * j
    return y


def loop_with_break(n):
    y = {"s": 0}
    for i in range(n):
        if i > 2:
            break
        y["s"] += i
    return y


def loop_with_return(n):
    y = {"s": 0}
    for i in range(n):
        y["s"] += i
        if y["s"] > 3:
            return y["s"]
    return -1


class Tracker:
    def __init__(self):
        self.best = 0

    def update(self, x):
        if x > self.best:
            self.best = x
        return self.best


def tracker(x):
    t = Tracker()
    t.best = 2
    return t.update(x)


def counter_object(n):
    t = Tracker()
    i = 0
    while i < n:
        t.best = t.best + i
        i += 1
    return t.best


TOTAL = 0


def global_total(n):
    global TOTAL
    TOTAL = 0
    for i in range(n):
        TOTAL += i
    return TOTAL


def nonlocal_total(n):
    c = 0

    def inner():
        nonlocal c
        for i in range(n):
            c += i
    inner()
    return c


def async_nonlocal_writer(n):
    # An `async def` writing a variable of ours, run by a call in the loop: carried too.
    c = 0

    async def bump():
        nonlocal c
        c += 2
    for i in range(n):
        asyncio.run(bump())
    return c


def method_nonlocal_writer(n):
    # A method of a class defined here, writing a variable of ours: carried too.
    c = 0

    class Counter:
        def bump(self):
            nonlocal c
            c += 3
    counter = Counter()
    for i in range(n):
        counter.bump()
    return c


# -- Python lists ----------------------------------------------------------------------

def collect(n):
    out = []
    for i in range(n):
        out.append(i * i)
    return ag.stack(out)


def collect_while(n):
    out = [0]
    i = 1
    while i < n:
        out.append(out[i - 1] + i)
        i += 1
    return ag.stack(out)


def collect_if(x):
    out = [x]
    if x > 0:
        out.append(x * 2)
    else:
        out.append(-x)
    return ag.stack(out)


def simple_fill(n):
    l = []
    ag.set_element_type(l, rt.int32)
    for i in range(n):
        l.append(i)
    return ag.stack(l, strict=False)


def nested_fill(m, n):
    mat = []
    ag.set_element_type(mat, rt.int32)
    for _ in range(m):
        l = []
        ag.set_element_type(l, rt.int32)
        for j in range(n):
            l.append(j)
        mat.append(ag.stack(l, strict=False))
    return ag.stack(mat, strict=False)


def read_write_loop(n):
    l = []
    l.append(1)
    l.append(1)
    ag.set_element_type(l, rt.int32)
    for i in range(2, n):
        l.append(l[i - 1] + l[i - 2])
        l[i - 2] = -l[i - 2]
    return ag.stack(l, strict=False)


def pop_loop(n):
    l = [1, 2, 3, 4]
    ag.set_element_type(l, rt.int32, ())
    s = 0
    for _ in range(n):
        s += l.pop()
    return ag.stack(l, strict=False), s


# (function, argument tuples, positions of the arguments given as tensors when staged)
CASES = [
    (if_basic_dict, [(0,), (1,)], (0,)),
    (if_basic_list, [(0,), (1,)], (0,)),
    (if_read_after, [(0,), (3,)], (0,)),
    (while_basic_dict, [(0, 3, 0), (2, 3, 0)], (0,)),
    (while_state_only_list, [(0, 3), (0, 6)], (1,)),
    (while_imbalanced, [(5,)], (0,)),
    (for_basic_dict, [(0, 1, 1, 1), (2, 1, 1, 1)], (0,)),
    (for_state_only_list, [(0, 1, 1), (2, 1, 1)], (0,)),
    (for_imbalanced, [(2, 0)], (0,)),
    (attribute_chain, [(0,), (1,)], (0,)),
    (key_variable, [(0,), (3,)], (0,)),
    (nested_loops, [(0,), (3,)], (0,)),
    (loop_with_break, [(3,), (6,)], (0,)),
    (loop_with_return, [(2,), (5,)], (0,)),
    (tracker, [(1,), (5,)], (0,)),
    (counter_object, [(0,), (4,)], (0,)),
    (global_total, [(0,), (3,)], (0,)),
    (nonlocal_total, [(0,), (3,)], (0,)),
    (async_nonlocal_writer, [(0,), (3,)], (0,)),
    (method_nonlocal_writer, [(0,), (3,)], (0,)),
    (collect, [(1,), (4,)], (0,)),
    (collect_while, [(1,), (4,)], (0,)),
    (collect_if, [(3,), (-2,)], (0,)),
    (simple_fill, [(5,)], (0,)),
    (nested_fill, [(5, 3)], (0, 1)),
    (read_write_loop, [(4,), (6,)], (0,)),
    (pop_loop, [(0,), (2,), (4,)], (0,)),
]
