"""Small user functions that every mode must agree on (plain Python, converted on Python
values, converted and staged on symbolic values).

`CASES` lists (function, argument tuples for Python values, staged). `staged=True` means
the same arguments converted to symbolic values must stage and give the same results.
"""
# ruff: noqa
import math


# --- if / elif / else ---------------------------------------------------------------

def relu(x):
    if x > 0:
        return x
    else:
        return 0


def abs_assign(x):
    if x >= 0:
        y = x
    else:
        y = -x
    return y


def sign(x):
    if x > 0:
        s = 1
    elif x < 0:
        s = -1
    else:
        s = 0
    return s * 10


def if_no_else(x):
    y = x
    if x > 2:
        y = y * 2
    return y + 1


def nested_if(x, y):
    r = 0
    if x > 0:
        if y > 0:
            r = 1
        else:
            r = 2
    else:
        if y > 0:
            r = 3
    return r


def early_return_then_more(x):
    if x > 3:
        return x * 2
    y = x + 1
    z = y * y
    return z


def early_return_chain(x):
    if x < 0:
        return -1
    if x == 0:
        return 0
    if x < 10:
        return 1
    return 2


def fall_off(x):
    if x > 0:
        return x


def defined_in_one_branch(x):
    if x > 0:
        y = x + 1
    return y


def assign_in_branches_used_later(x):
    a = 1
    if x > 5:
        a = a + x
        b = 2
    else:
        b = 3
    return a * b


# --- while ----------------------------------------------------------------------

def sum_to(n):
    i = 0
    s = 0
    while i < n:
        s = s + i
        i = i + 1
    return s


def collatz_steps(x):
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return steps


def while_break(n):
    i = 0
    while i < 100:
        if i * i >= n:
            break
        i += 1
    return i


def while_continue(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        total += i
    return total


def while_else(n):
    i = 0
    while i < n:
        if i == 7:
            break
        i += 1
    else:
        i = -1
    return i


def while_return(n):
    i = 0
    while i < n:
        if i * 3 > 10:
            return i
        i += 1
    return -1


def nested_while(n):
    i = 0
    total = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total


def first_assigned_in_loop(n):
    i = 0
    while i < n:
        last = i * 2
        i += 1
    return last


# --- for ------------------------------------------------------------------------

def for_range_sum(n):
    s = 0
    for i in range(n):
        s += i
    return s


def for_list(xs):
    s = 0
    for x in xs:
        s = s * 2 + x
    return s


def for_break(xs):
    found = -1
    for x in xs:
        if x > 3:
            found = x
            break
    return found


def for_continue(xs):
    total = 0
    for x in xs:
        if x % 2:
            continue
        total += x
    return total


def for_else(xs):
    for x in xs:
        if x < 0:
            result = x
            break
    else:
        result = 0
    return result


def for_return(xs, t):
    for i, x in enumerate(xs):
        if x == t:
            return i
    return -1


def nested_for_return(n):
    for i in range(n):
        for j in range(n):
            if i * j == 6:
                return i, j
    return None


def nested_for_break(n):
    count = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            count += 1
    return count


def loop_var_after(n):
    i = -5
    for i in range(n):
        pass
    return i


def for_dict(d):
    keys = []
    total = 0
    for k, v in sorted(d.items()):
        keys.append(k)
        total += v
    return keys, total


def for_zip(xs, ys):
    out = []
    for x, y in zip(xs, ys):
        out.append(x * y)
    return out


def for_range_tensor(n):
    s = 0
    for i in range(n):
        s = s + i * i
    return s


def for_range_start_step(n):
    s = 0
    for i in range(1, n + 1, 2):
        s = s + i
    return s


def loop_var_iterator_consumed(n):
    it = iter(range(n))
    for x in it:
        if x == 2:
            break
    return list(it)


# --- logical and conditional expressions ------------------------------------------

def logic(a, b, c):
    return (a and b) or (not c)


def logic_values(a, b):
    return a and b, a or b, not a


def short_circuit(x):
    log = []

    def check(v, r):
        log.append(v)
        return r

    r = check(1, x > 0) and check(2, x > 5) or check(3, x < -5)
    return r, log


def cond_expr(x):
    return x * 2 if x > 0 else -x


def nested_cond_expr(x):
    return 'big' if x > 10 else 'mid' if x > 5 else 'small'


def cond_in_if(x, y):
    if x > 0 and y > 0:
        r = 1
    elif x > 0 or y > 0:
        r = 2
    else:
        r = 3
    return r


def not_in_while(n):
    done = False
    i = 0
    while not done:
        i += 1
        done = i >= n
    return i


# --- assert -----------------------------------------------------------------------

def checked_sqrt(x):
    assert x >= 0, 'x must be non-negative'
    return math.sqrt(x)


def bare_assert(x):
    assert x
    return x


def assert_message_lazy(x):
    calls = []
    assert x > 0, calls.append('evaluated') or 'bad'
    return calls


# --- calls, closures, methods, lambdas --------------------------------------------

def helper_double(x):
    if x > 0:
        return x * 2
    return x


def calls_helper(x):
    return helper_double(x) + helper_double(-x)


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def make_adder(k):
    def add(x):
        if x > 0:
            return x + k
        return x - k
    return add


def uses_closure(x):
    add = make_adder(10)
    return add(x)


def uses_lambda(xs):
    key = lambda v: -v if v % 2 else v
    return sorted(xs, key=key)


def lambda_in_expression(x):
    return (lambda a, b: a if a > b else b)(x, 3) + 1


class Counter:
    def __init__(self, start):
        self.count = start

    def bump(self, by):
        if by > 0:
            self.count += by
        else:
            self.count -= 1
        return self.count


def uses_method(x):
    c = Counter(5)
    c.bump(x)
    return c.bump(-1)


def star_args(*args, **kwargs):
    total = 0
    for a in args:
        total += a
    for k in kwargs:
        total += len(k)
    return total


def default_args(x, y=3, *, z=4):
    if x > y:
        return x + z
    return y - z


def nested_def(x):
    def inner(y):
        total = 0
        while y > 0:
            total += y
            y -= 1
        return total
    return inner(x) + inner(2)


def recursion_mutual(n):
    return is_even(n)


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


# --- Python semantics that must not change ------------------------------------------

def try_in_loop(xs):
    out = []
    for x in xs:
        try:
            out.append(10 // x)
        except ZeroDivisionError:
            out.append(None)
            continue
        finally:
            out.append('f')
    return out


def try_return_in_loop(xs):
    for x in xs:
        try:
            if x == 0:
                return 'zero'
        finally:
            pass
    return 'none'


def with_statement(x):
    import contextlib
    log = []

    @contextlib.contextmanager
    def ctx():
        log.append('enter')
        yield
        log.append('exit')

    with ctx():
        if x > 0:
            log.append('pos')
        else:
            log.append('neg')
    return log


def return_in_with(x):
    import contextlib
    log = []

    @contextlib.contextmanager
    def ctx():
        log.append('enter')
        yield
        log.append('exit')

    with ctx():
        if x > 0:
            return log
        log.append('rest')
    return log


COUNTER = [0]
TOTAL = 0


def uses_global(n):
    global TOTAL
    TOTAL = 0
    for i in range(n):
        if i % 2:
            TOTAL += i
    return TOTAL


def uses_nonlocal(n):
    count = 0

    def bump():
        nonlocal count
        for i in range(n):
            if i > 1:
                count += i
    bump()
    return count


def comprehensions(n):
    xs = [i * i for i in range(n) if i % 2 == 0]
    ys = {i: i + 1 for i in xs if i and i > 1}
    return xs, ys, sum(x for x in xs)


def walrus(xs):
    out = []
    for x in xs:
        if (y := x * 2) > 4:
            out.append(y)
    return out, [z for x in xs if (z := x + 1) > 2]


def deletes(x):
    y = x + 1
    if x > 0:
        del y
        y = 5
    return y


def aug_assign_targets(x):
    d = {'a': 1}
    lst = [0, 1]
    for i in range(x):
        d['a'] += i
        lst[0] -= i
    return d, lst


def class_in_function(x):
    class Box:
        scale = 3
        value = x * scale if x > 0 else 0

        def get(self):
            return self.value if self.value else -1

    return Box().get()


def late_binding_lambdas(n):
    fns = []
    for i in range(n):
        fns.append(lambda: i)
    return [f() for f in fns]


def generator_fn(n):
    for i in range(n):
        if i % 2:
            yield i


def uses_generator(n):
    return list(generator_fn(n))


def raises_in_branch(x):
    if x > 0:
        raise ValueError('positive')
    return x


def exception_order(xs):
    log = []
    for x in xs:
        log.append(x)
        if x == 2:
            raise KeyError(x)
    return log


def unbound_local_python(flag):
    if flag:
        value = 1
    return value


def while_true_break(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i


def docstring_fn(x):
    """A docstring stays first."""
    if x:
        y = 1
    else:
        y = 2
    return y


def string_ops(s):
    out = ''
    for ch in s:
        if ch.isupper():
            out += ch.lower()
        elif ch == ' ':
            continue
        else:
            out += ch.upper()
    return out


def fizzbuzz(n):
    out = []
    for i in range(1, n + 1):
        if i % 15 == 0:
            out.append('fizzbuzz')
        elif i % 3 == 0:
            out.append('fizz')
        elif i % 5 == 0:
            out.append('buzz')
        else:
            out.append(i)
    return out


def early_return_in_nested_branch(x, y):
    if x > 0:
        if y > 0:
            return 1
        z = 2
    else:
        z = 3
    return z + y


def multiple_return_values(x):
    if x > 0:
        return x, x + 1
    return x - 1, x


def loop_with_return_and_else(xs):
    for x in xs:
        if x > 10:
            return x
    else:
        return 'none'


def while_cond_becomes_staged(n):
    i = 0
    count = 0
    while i < 7:
        i = i + n
        count += 1
    return i, count


def partial_state_on_exception(xs):
    total = 0
    try:
        for x in xs:
            total += 10 // x
    except ZeroDivisionError:
        pass
    return total


def suppress_keeps_partial_state(xs):
    import contextlib
    total = 0
    with contextlib.suppress(ZeroDivisionError):
        for x in xs:
            total += 10 // x
    return total


def handler_reads_branch_state(x):
    log = []
    n = 0
    try:
        if x > 0:
            n = 5
            raise ValueError
    except ValueError:
        log.append(n)
    return log, n


def loop_inside_try_body_unobserved(xs):
    try:
        total = 0
        for x in xs:
            total += x
        return total
    except TypeError:
        return -1


LAST = None


def global_loop_target(n):
    global LAST
    for LAST in range(n):
        if LAST > 100:
            break
    return LAST


def staged_nested_loops(n):
    total = 0
    i = 0
    while i < n:
        j = 0
        while j < n:
            if j > i:
                break
            if (i + j) % 2 == 0:
                j += 1
                continue
            total += i * j
            j += 1
        i += 1
    return total


def staged_for_break_continue(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if total > 20:
            break
        total += i
    return total


def loop_in_branch(x, n):
    total = 0
    if x > 0:
        i = 0
        while i < n:
            total += x
            i += 1
    else:
        for j in range(n):
            total -= j
    return total


def branch_loop_branch(x, n):
    r = 0
    if x > 1:
        for i in range(n):
            if i % 2 == 0:
                r += i * x
            else:
                r -= 1
    return r


def while_in_for(n):
    total = 0
    for i in range(n):
        j = i
        while j > 0:
            total += j
            j -= 2
    return total


def early_return_in_nested_loops_in_branch(x, n):
    if x > 0:
        for i in range(n):
            j = 0
            while j < n:
                if i * j == x:
                    return i * 100 + j
                j += 1
    return -1


def chained_comparison(x):
    if 0 < x <= 10:
        r = 1
    elif -5 < x < 0 < 1:
        r = 2
    else:
        r = 3
    return r


PY = [
    (relu, [(3,), (-2,), (0,)], True),
    (abs_assign, [(3,), (-4,)], True),
    (sign, [(5,), (-5,), (0,)], True),
    (if_no_else, [(1,), (5,)], True),
    (nested_if, [(1, 1), (1, -1), (-1, 1), (-1, -1)], True),
    (early_return_then_more, [(5,), (2,)], True),
    (early_return_chain, [(-3,), (0,), (5,), (50,)], True),
    (fall_off, [(3,), (-1,)], False),
    (defined_in_one_branch, [(3,), (-1,)], False),
    (assign_in_branches_used_later, [(7,), (2,)], True),
    (sum_to, [(0,), (5,), (10,)], True),
    (collatz_steps, [(1,), (6,), (27,)], True),
    (while_break, [(0,), (10,), (50,)], True),
    (while_continue, [(0,), (10,)], True),
    (while_else, [(3,), (10,)], True),
    (while_return, [(2,), (10,)], True),
    (nested_while, [(0,), (5,)], True),
    (first_assigned_in_loop, [(3,), (0,)], False),
    (for_range_sum, [(0,), (6,)], True),
    (for_list, [([1, 2, 3],), ([],)], False),
    (for_break, [([1, 5, 7],), ([1, 2],)], False),
    (for_continue, [([1, 2, 3, 4],)], False),
    (for_else, [([1, -2, 3],), ([1, 2],)], False),
    (for_return, [([1, 2, 3], 2), ([1, 2], 5)], False),
    (nested_for_return, [(2,), (5,)], False),
    (nested_for_break, [(4,)], False),
    (loop_var_after, [(0,), (4,)], False),
    (for_dict, [({'b': 2, 'a': 1},)], False),
    (for_zip, [([1, 2], [3, 4, 5])], False),
    (for_range_tensor, [(0,), (5,)], True),
    (for_range_start_step, [(6,), (1,)], True),
    (loop_var_iterator_consumed, [(6,)], False),
    (logic, [(True, False, True), (0, 5, 0), (1, 2, 3), ('', 'x', [])], False),
    (logic_values, [(0, 3), (2, 0), ([], 'a')], False),
    (short_circuit, [(3,), (7,), (-7,), (0,)], False),
    (cond_expr, [(3,), (-3,)], True),
    (nested_cond_expr, [(1,), (7,), (20,)], False),
    (cond_in_if, [(1, 1), (1, -1), (-1, -1)], True),
    (not_in_while, [(1,), (4,)], True),
    (checked_sqrt, [(4,), (-1,)], False),
    (bare_assert, [(1,), (0,)], False),
    (assert_message_lazy, [(1,), (-1,)], False),
    (calls_helper, [(3,), (-3,)], True),
    (factorial, [(1,), (5,)], False),
    (uses_closure, [(1,), (-1,)], True),
    (uses_lambda, [([3, 1, 2, 4],)], False),
    (lambda_in_expression, [(1,), (5,)], True),
    (uses_method, [(3,), (-3,)], False),
    (star_args, [(1, 2, 3), ()], False),
    (default_args, [(1,), (5,)], False),
    (nested_def, [(4,), (0,)], True),
    (recursion_mutual, [(4,), (7,)], False),
    (try_in_loop, [([1, 0, 5],)], False),
    (try_return_in_loop, [([1, 0],), ([1, 2],)], False),
    (with_statement, [(1,), (-1,)], False),
    (return_in_with, [(1,), (-1,)], False),
    (uses_global, [(5,)], False),
    (uses_nonlocal, [(5,)], False),
    (comprehensions, [(6,)], False),
    (walrus, [([1, 2, 3],)], False),
    (deletes, [(1,), (-1,)], False),
    (aug_assign_targets, [(4,)], False),
    (class_in_function, [(2,), (0,)], False),
    (late_binding_lambdas, [(3,)], False),
    (uses_generator, [(6,)], False),
    (raises_in_branch, [(1,), (-1,)], False),
    (exception_order, [([1, 3],), ([1, 2, 3],)], False),
    (unbound_local_python, [(True,), (False,)], False),
    (while_true_break, [(1,), (5,)], True),
    (docstring_fn, [(1,), (0,)], False),
    (string_ops, [('Hello World',)], False),
    (fizzbuzz, [(16,)], False),
    (early_return_in_nested_branch, [(1, 1), (1, -1), (-1, 2)], True),
    (multiple_return_values, [(2,), (-2,)], True),
    (loop_with_return_and_else, [([1, 20],), ([1],)], False),
    (while_cond_becomes_staged, [(2,), (10,)], True),
    (global_loop_target, [(3,)], False),
    (chained_comparison, [(5,), (-3,), (20,), (0,)], True),
    (loop_in_branch, [(2, 3), (-1, 4), (1, 0)], True),
    (branch_loop_branch, [(3, 5), (0, 5)], True),
    (while_in_for, [(0,), (5,)], True),
    (early_return_in_nested_loops_in_branch, [(6, 5), (7, 3), (-1, 3)], True),
    (staged_nested_loops, [(0,), (4,), (7,)], True),
    (staged_for_break_continue, [(0,), (5,), (20,)], True),
    (partial_state_on_exception, [([1, 2, 0, 5],), ([1, 2],)], False),
    (suppress_keeps_partial_state, [([1, 2, 0, 5],), ([5],)], False),
    (handler_reads_branch_state, [(1,), (-1,)], False),
    (loop_inside_try_body_unobserved, [([1, 2],), ([1, 'a'],)], False),
]


# --- state that is not a local name (carried through staged constructs) -----------

class _Holder:
    def __init__(self, v):
        self.v = v


def attr_in_if(x):
    h = _Holder(0)
    if x > 0:
        h.v = x * 2
    else:
        h.v = -x
    return h.v


def item_in_while(n):
    d = {"s": 0}
    i = 0
    while i < n:
        d["s"] = d["s"] + i
        i = i + 1
    return d["s"]


def item_in_for_with_break(n):
    acc = [0, 0]
    for i in range(n):
        if acc[0] > 5:
            break
        acc[0] = acc[0] + i
    return acc[0]


_G = 0


def global_in_if(x):
    global _G
    _G = 1
    if x > 0:
        _G = x
    return _G


class Doubling:
    """A property whose setter runs code (it doubles): staging a write of it under a
    tensor `if` would run the setter once per branch, so that is an error."""

    def __init__(self):
        self._v = 0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = value * 2


def through_property(x):
    p = Doubling()
    if x > 0:
        p.v = x
    return p.v


PY += [
    (through_property, [(3,), (-2,)], False),
    (attr_in_if, [(3,), (-2,)], True),
    (item_in_while, [(0,), (4,)], True),
    (item_in_for_with_break, [(2,), (8,)], True),
    (global_in_if, [(3,), (-2,)], True),
]


# --- walrus and closures over loop variables (staged on the second backend too) ------

def walrus_while_test(x):
    n = 0
    while (y := x // 2) > 0:
        x = y
        n = n + 1
    return n * 100 + x


def walrus_in_and(x):
    if x > 0 and (y := x * 2) > 5:
        return y
    return -1


def closure_reads_loop_variable(n):
    s = 0
    for i in range(n):
        f = lambda: i * 2
        s = s + f()
    return s


PY += [
    (walrus_while_test, [(0,), (20,), (37,)], True),
    (walrus_in_and, [(-2,), (1,), (4,)], True),
    (closure_reads_loop_variable, [(0,), (4,)], True),
]


# --- chained comparisons whose middle operands are expressions: each evaluated once ----

def chained_expression_middles(x):
    if -1 < x * 2 + 1 < 15:
        r = x
    elif x * x >= 100 > x:
        r = -1
    else:
        r = -x
    return r


def chained_evaluation_order(x):
    seen = []

    def v(k):
        seen.append(k)
        return k
    r = v(0) < v(x) < v(5) <= v(x + 3)
    return r, seen


def chained_membership_and_identity(x):
    return 0 < len([x]) in [1, 2], None is not x + 1 is not None, 1 < x + 1 not in (3, 4)


PY += [
    (chained_expression_middles, [(0,), (3,), (7,), (-20,), (12,)], True),
    (chained_evaluation_order, [(3,), (7,), (-1,)], False),
    (chained_membership_and_identity, [(0,), (2,), (3,)], False),
]
