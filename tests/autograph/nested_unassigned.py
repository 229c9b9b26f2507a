"""Functions whose nested scopes read a variable of theirs that some path leaves unassigned
(see test_nested_unassigned.py): Python raises NameError (a free variable) or, for a list
comprehension that Python 3.12+ inlines, UnboundLocalError; a converted function must too,
not hand over autograph's marker for an unassigned name."""


def closure_defined_before(c):
    def g():
        return y
    if c:
        y = 1
    return g()


def closure_defined_after(c):
    if c:
        y = 1

    def g():
        return y
    return g()


def closure_returned(c):
    if c:
        y = 1

    def g():
        return y + 1
    return g


def closure_called_after_assignment(c):
    def g():
        return y * 2
    if c:
        y = 1
    y = 5
    return g()


def lambda_reads(c):
    if c:
        y = 1
    return (lambda: y)()


def list_comprehension(c):
    if c:
        y = 1
    return [y for _ in range(2)]


def comprehension_iterable(c):
    if c:
        y = [1, 2]
    return [v * 2 for v in y]


def set_and_dict_comprehensions(c):
    if c:
        y = 3
    return sorted({y + i for i in range(2)}), {i: y for i in range(2)}


def generator_expression(c):
    if c:
        y = 1
    return list(y + i for i in range(2))


def nested_two_deep(c):
    if c:
        y = 1

    def outer():
        def inner():
            return y
        return inner()
    return outer()


def shadowed_by_a_parameter(c):
    if c:
        y = 1

    def g(y=10):
        return y
    return g(), (lambda y: y)(4), [y for y in range(2)]


def shadowed_by_a_local(c):
    if c:
        y = 1

    def g():
        y = 7
        return y
    return g()


def read_through_nonlocal(c):
    if c:
        y = 1

    def g():
        nonlocal y
        return y
    return g()


def class_body_reads(c):
    if c:
        y = 1

    class K:
        z = y
    return K.z


def in_a_loop(n):
    total = 0
    for i in range(n):
        if i > 1:
            last = i
        total += (lambda: last)() if i > 1 else 0
    return total, (lambda: last)()


def caught(c):
    if c:
        y = 1

    def g():
        return y
    try:
        return g()
    except NameError as e:
        return "caught " + type(e).__name__


CASES = [(closure_defined_before, [True, False]), (closure_defined_after, [True, False]),
         (closure_called_after_assignment, [True, False]), (lambda_reads, [True, False]),
         (list_comprehension, [True, False]), (comprehension_iterable, [True, False]),
         (set_and_dict_comprehensions, [True, False]), (generator_expression, [True, False]),
         (nested_two_deep, [True, False]), (shadowed_by_a_parameter, [True, False]),
         (shadowed_by_a_local, [True, False]), (read_through_nonlocal, [True, False]),
         (class_body_reads, [True, False]), (in_a_loop, [0, 1, 4]), (caught, [True, False])]
