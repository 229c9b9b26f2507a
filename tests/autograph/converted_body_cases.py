"""Functions whose converted body once differed from the original on Python values
(see test_converted_body_cases.py)."""


def deleted_parameter(a, c):
    if c:
        del a
    if c > 5:
        return 1
    return a


def deleted_then_assigned_in_a_later_if(c):
    x = 1
    if c:
        del x
    if c:
        x = 2
    return x


def walrus_in_the_iterable(n):
    for v in [(d := n)]:
        if v > 100:
            d = 0
    return d == n


X = "the global X"


def local_read_before_its_only_assignment(c):
    r = X
    if c:
        X = 1      # noqa: F841  (X is local: the read above raises, as in Python)
    return r


def default_of_a_nested_def_unassigned(c):
    if c:
        y = 1

    def g(v=y):
        return v
    return g()


def default_of_a_lambda_unassigned(c):
    if c:
        y = 1
    f = lambda v=y: v      # noqa: E731
    return f is not None


def comprehension_over_an_unassigned_name(c):
    if c:
        y = [1]
    return [v for v in y]


def augmented_assignment_of_an_unassigned_name(c):
    import contextlib
    if c:
        d = 1
    with contextlib.suppress(TypeError):
        d += 6
    return "survived"


class Base:
    def __init__(self, tag):
        self.tag = tag

    def name(self):
        return self.tag


class Derived(Base):
    def super_after_rebinding_self(self, other):
        if other is not None:
            self = other
        return super().name()

    def super_in_a_nested_function(self, other):
        def inner(obj):
            return super().name()
        return inner(other)

    def super_in_a_nested_function_with_an_if(self, other):
        def inner(obj, c):
            if c:
                return super().name()
            return "none"
        return inner(other, True)

    def super_in_a_generator_expression(self, other):
        return list(super().name() for _ in range(1))


OTHER = Derived("other")
CASES = [(deleted_parameter, [(2, 0), (2, 1), (2, 7)]),
         (deleted_then_assigned_in_a_later_if, [(0,), (1,)]),
         (walrus_in_the_iterable, [(3,), (200,)]),
         (local_read_before_its_only_assignment, [(0,), (1,)]),
         (default_of_a_nested_def_unassigned, [(0,), (1,)]),
         (default_of_a_lambda_unassigned, [(0,), (1,)]),
         (comprehension_over_an_unassigned_name, [(0,), (1,)]),
         (augmented_assignment_of_an_unassigned_name, [(0,), (1,)])]
METHODS = [(Derived.super_after_rebinding_self, [(OTHER,), (None,)]),
           (Derived.super_in_a_nested_function, [(OTHER,)]),
           (Derived.super_in_a_nested_function_with_an_if, [(OTHER,)]),
           (Derived.super_in_a_generator_expression, [(OTHER,)])]
