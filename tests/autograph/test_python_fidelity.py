"""Converted functions behave like the originals on Python values, down to details a
program can observe: qualified names, private-name mangling, introspection, messages,
logging. Each test runs the plain function and `ag.to_graph(f)` side by side."""
import ast
import asyncio
import inspect
import linecache
import logging
import sys
import textwrap

import numpy as np
import pytest

import autograph as ag
from autograph import introspection, module_converter


def outcome(fn, *args):
    """(result, None) or (None, (exception type, message))."""
    try:
        return fn(*args), None
    except Exception as e:      # noqa: BLE001
        return None, (type(e), str(e))


def same(fn, *args):
    expected = outcome(fn, *args)
    assert outcome(ag.to_graph(fn), *args) == expected
    return expected[0]


def run_module(text, name):
    """The globals of `text` run as a module whose source linecache knows."""
    filename = f"<{name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"__name__": name}
    exec(compile(text, filename, "exec"), namespace)
    return namespace


def qualnames(values):
    return [v.__qualname__ for v in values]


# --- 1. __qualname__ of what a converted function defines ----------------------------

def defines_things(x):
    class Point:
        def norm(self):
            return 0

        def nested(self):
            def inner():
                return lambda: 0
            return inner

    def helper():
        def deeper():
            pass
        return deeper

    square = lambda v: v * v
    if x > 0:
        picked = [lambda: 1]
        class InBranch:
            pass
    else:
        picked = [lambda: 2]
        InBranch = None
    total = 0
    for i in range(2):
        def in_loop():
            return i
        total += i
    listed = [lambda: j for j in range(1)]
    return (Point, Point.norm, Point.nested, Point().nested(), Point().nested()(),
            helper, helper(), square, picked[0], InBranch, in_loop, listed[0])


def lambdas_in_expressions(c):
    global declared_global

    def declared_global():
        pass
    k = (lambda v: v) if c else None
    j = c and (lambda: 0)
    o = c or (lambda: 1)
    comp = [lambda: i for i in range(1)][0]
    gen = next(lambda: i for i in range(1))
    if c:
        nested = (lambda: (lambda: 2))()
    else:
        nested = None
    return k, j, o, comp, gen, nested, declared_global


def test_qualnames_of_lambdas_in_converted_expressions():
    for c in (0, 1):
        plain = [getattr(v, "__qualname__", None) for v in lambdas_in_expressions(c)]
        got = [getattr(v, "__qualname__", None) for v in ag.to_graph(lambdas_in_expressions)(c)]
        assert got == plain


def test_qualnames_of_nested_definitions():
    plain = qualnames(defines_things(1))
    assert plain[0] == "defines_things.<locals>.Point"
    assert qualnames(ag.to_graph(defines_things)(1)) == plain


class Holder:
    def method(self, flag):
        def g():
            return lambda: 0
        if flag:
            h = g
        else:
            h = None
        return g, h, g(), type(self).Inner

    class Inner:
        def m(self, x):
            def k():
                pass
            if x:
                y = k
            else:
                y = None
            return y


def test_qualnames_in_methods():
    plain = qualnames(Holder().method(True)[:3])
    assert plain[0] == "Holder.method.<locals>.g"
    assert qualnames(ag.to_graph(Holder().method)(True)[:3]) == plain
    assert (ag.to_graph(Holder.Inner().m)(1).__qualname__
            == Holder.Inner().m(1).__qualname__ == "Holder.Inner.m.<locals>.k")


def test_qualname_of_function_nested_in_converted_nested_function():
    def outer():
        def middle(flag):
            def innermost():
                pass
            if flag:
                return innermost
            return None
        return middle(True)
    assert ag.to_graph(outer)().__qualname__ == outer().__qualname__


# --- 2. private names (`self.__x`) ----------------------------------------------------

class Account:
    def __init__(self):
        self.__balance = 10

    def __fee(self, amount):
        return amount // 10

    def withdraw(self, amount):
        def charge():
            return self.__fee(amount)
        if amount > self.__balance:
            raise ValueError(f"only {self.__balance}")
        for _ in range(1):
            self.__balance -= amount + charge()
        check = lambda: self.__balance >= 0
        __local = [self.__balance]
        while not check():
            __local.append(self.__balance)
            self.__balance += 1
        return self.__balance, __local, (lambda: self.__fee(30))()

    def dunders(self):
        if self.__class__ is Account:
            return self.__dict__.copy(), self.__init__.__name__
        return None

    def nested_class(self, flag):
        class __Inner:
            def __init__(self):
                self.__v = 1

            def get(self):
                return self.__v, self.__dict__
        if flag:
            got = __Inner().get()
        else:
            got = None
        return got, self.__balance


@pytest.mark.parametrize("amount", [3, 5, 100])
def test_private_names_in_methods_nested_functions_and_branches(amount):
    expected = outcome(Account().withdraw, amount)
    assert outcome(ag.to_graph(Account().withdraw), amount) == expected


def test_dunder_names_are_not_mangled():
    assert ag.to_graph(Account().dunders)() == Account().dunders()
    assert ag.to_graph(Account().nested_class)(True) == Account().nested_class(True)


def test_to_code_prints_private_names_as_written():
    assert "self.__balance" in ag.to_code(Account.withdraw)


def test_module_converter_mangles_like_python():
    source = inspect.getsource(Account)      # the class above, as a file of its own
    text, report = module_converter.convert_source(source, "account.py")
    assert "Account.withdraw" in report.converted
    plain, converted = run_module(source, "account_plain"), run_module(text, "account_converted")
    for amount in (3, 5, 100):
        assert (outcome(converted["Account"]().withdraw, amount)
                == outcome(plain["Account"]().withdraw, amount))


# --- 3. functions that look at their own frame stay as written -------------------------

def reads_locals(x):
    if x > 0:
        y = 1
    else:
        y = 2
    return sorted(locals())


def reads_vars(x):
    for i in range(x):
        pass
    return sorted(vars())


def runs_exec(x):
    exec("x = x + 1")
    if x:
        z = 1
    else:
        z = 2
    return z, sorted(locals())


def runs_eval(x):
    if x:
        z = eval("x + 1")
    else:
        z = 0
    return z


def frame_name(x):
    if x:
        return sys._getframe().f_code.co_name
    return None


def frame_locals(x):
    if x:
        y = 3
    else:
        y = 4
    return sorted(inspect.currentframe().f_locals)


def stack_depth(x):
    if x:
        return inspect.stack()[0].function
    return None


INTROSPECTING = [reads_locals, reads_vars, runs_exec, runs_eval, frame_name, frame_locals,
                 stack_depth]


@pytest.mark.parametrize("fn", INTROSPECTING, ids=lambda f: f.__name__)
def test_introspecting_functions_run_as_written(fn, caplog, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_STRICT", "1")     # a choice, not a failure: never raised
    with caplog.at_level(logging.INFO, logger="autograph"):
        assert ag.to_graph(fn) is fn
    [record] = [r for r in caplog.records if fn.__name__ in r.getMessage()]
    assert record.levelno == logging.INFO
    assert "not converted" in record.getMessage() and "()" in record.getMessage()
    same(fn, 2)


def test_introspecting_callee_runs_as_written_from_converted_code():
    def caller(x):
        if x:
            r = reads_locals(x), frame_locals(x)
        else:
            r = None
        return r
    assert same(caller, 1) == (["x", "y"], ["x", "y"])


def uses_vars_of_an_object(o):
    if o is not None:
        return sorted(vars(o))
    return []


def uses_numpy_stack(xs):
    if xs:
        return np.stack(xs).tolist()
    return []


def test_lookalikes_are_converted():
    for fn, arg in [(uses_vars_of_an_object, Account()), (uses_numpy_stack, [1, 2])]:
        assert ag.to_graph(fn) is not fn
        same(fn, arg)


def test_module_converter_follows_the_same_rule():
    source = textwrap.dedent('''
        import sys
        def names(x):
            if x:
                y = 1
            return sorted(locals())
        def run(x):
            exec("y = 1")
            return x
        def where():
            return sys._getframe().f_code.co_name
        def plain(x):
            return -x if x else x
    ''')
    text, report = module_converter.convert_source(source, "introspect.py")
    reasons = {name: reason for name, _, reason in report.skipped}
    assert reasons == {"names": introspection.introspection(ast.parse(source).body[1])[0],
                       "run": introspection.introspection(ast.parse(source).body[2])[0],
                       "where": introspection.introspection(ast.parse(source).body[3])[0]}
    assert reasons["names"].startswith("locals()") and reasons["where"].startswith("_getframe()")
    assert report.converted == ["plain"]
    converted = run_module(text, "introspect_converted")
    plain = run_module(source, "introspect_plain")
    assert converted["names"](1) == plain["names"](1) == ["x", "y"]


# --- 4. a user's own `ag__` --------------------------------------------------------------

def param_named_ag(ag__):
    if ag__ > 0:
        y = ag__ + 1
    else:
        y = 0
    return y


def local_named_ag(x):
    ag__ = 3
    if x:
        y = ag__
    else:
        y = -1
    return y, [ag__ for _ in range(1)], (lambda: ag__)()


def loop_state_named_ag(n):
    for i in range(n):
        ag__ = i
        if i > 5:
            break
    while n > 0:
        n -= 1
        ag__ = ag__ + n if n else ag__
    return ag__


def dunder_ag(x):
    __ag__ = 3
    if x:
        y = __ag__
    else:
        y = -1
    return y


def closes_over_ag(x):
    ag__ = x

    def inner():
        if ag__:
            return ag__ * 2
        return 0
    return inner()


@pytest.mark.parametrize("fn", [param_named_ag, local_named_ag, loop_state_named_ag, dunder_ag,
                                closes_over_ag], ids=lambda f: f.__name__)
@pytest.mark.parametrize("arg", [0, 3, 8])
def test_user_variables_named_like_the_operators(fn, arg, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_STRICT", "1")
    assert ag.to_graph(fn) is not fn
    same(fn, arg)


def test_to_code_renames_the_operators_not_the_user_variable():
    code = ag.to_code(param_named_ag)
    assert "ag__1.if_stmt(ag__ > 0" in code and "y = ag__ + 1" in code
    assert "ag__.if_stmt" in ag.to_code(dunder_ag)


def test_module_converter_with_a_user_ag():
    source = textwrap.dedent('''
        def loop(n):
            total = 0
            for i in range(n):
                ag__ = i
                if i > 5:
                    break
                total += ag__
            return total, ag__
        def hides_prelude(x):
            __ag__ = x
            if x:
                return __ag__
            return 0
    ''')
    text, report = module_converter.convert_source(source, "user_ag.py")
    assert report.converted == ["loop"]
    assert [name for name, _, _ in report.skipped] == ["hides_prelude"]
    converted, plain = run_module(text, "user_ag_converted"), run_module(source, "user_ag_plain")
    for n in (0, 3, 9):
        for name in ("loop", "hides_prelude"):
            assert outcome(converted[name], n) == outcome(plain[name], n)


# --- 5. UnboundLocalError: Python's message, no location ----------------------------------

def unbound_after_if(x):
    if x > 0:
        y = 1
    return y


def unbound_after_loop(n):
    for i in range(n):
        last = i
    return last


def unbound_in_loop(n):
    i = 0
    while i < n:
        if i == 1:
            seen = i
        i += 1
        print_it = seen
    return print_it


@pytest.mark.parametrize("fn", [unbound_after_if, unbound_after_loop, unbound_in_loop],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("arg", [0, 1, 3])
def test_unbound_local_error_message_is_pythons(fn, arg):
    expected = outcome(fn, arg)
    got = outcome(ag.to_graph(fn), arg)
    assert got == expected
    if arg == 0:
        assert got[1][0] is UnboundLocalError and "(" not in got[1][1]


def test_unbound_local_error_keeps_its_location_for_staging():
    with pytest.raises(UnboundLocalError) as info:
        ag.to_graph(unbound_after_if)(0)
    name, where = info.value.ag_undefined
    assert name == "y" and where.startswith(__file__ + ":")


# --- 6. generators called from converted code -------------------------------------------

def numbers(n):
    for i in range(n):
        yield i


async def later(x):
    return x + 1


class Counter:
    def __call__(self, n):
        yield from range(n)

    def evens(self, n):
        for i in range(n):
            if i % 2 == 0:
                yield i


def calls_generators(n):
    if n > 0:
        out = list(numbers(n)) + list(Counter()(n)) + list(Counter().evens(n))
        out.append(asyncio.run(later(n)))
    else:
        out = []
    return out


def test_generators_are_called_as_they_are_without_logging(caplog):
    ag.to_graph(calls_generators)      # conversion itself may log decisions; calls may not
    with caplog.at_level(logging.DEBUG, logger="autograph"):
        assert same(calls_generators, 4) == [0, 1, 2, 3, 0, 1, 2, 3, 0, 2, 5]
    assert [r for r in caplog.records if r.levelno > logging.DEBUG] == []


def stacks_its_own(parts):
    class Parts(list):
        def stack(self):
            return sum(self, [])
    ps = Parts(parts)
    if ps:
        return ps.stack()
    return []


def test_a_method_named_stack_is_not_frame_inspection():
    assert ag.to_graph(stacks_its_own) is not stacks_its_own
    same(stacks_its_own, [[1], [2]])


def test_the_operators_import_without_the_converter():
    # converted modules import `autograph.operators` only: no parser, converter or logging
    import subprocess
    import sys
    code = ("import sys\nfrom autograph import operators\n"
            "heavy = [m for m in ('gast', 'logging', 'autograph.api', 'autograph.pipeline',"
            " 'autograph.converters', 'inspect') if m in sys.modules]\n"
            "print(heavy)\n"
            "import autograph\nprint(autograph.to_graph.__name__, 'gast' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "to_graph True"]


# -- what a tracer sees (sys.settrace: debuggers, coverage) ---------------------------

def _events(fn, *args):
    name, seen = fn.__code__.co_name, []

    def tracer(frame, event, arg):
        if frame.f_code.co_name == name and event in ("call", "line", "return"):
            seen.append((event, frame.f_lineno))
        return tracer
    sys.settrace(tracer)
    try:
        fn(*args)
    except ZeroDivisionError:
        pass
    finally:
        sys.settrace(None)
    return seen


@pytest.mark.python_path
@pytest.mark.parametrize("name, args", [
    ("decorated", (1,)), ("falls_off_a_loop", ([1, 2, 3],)), ("falls_off_an_if", (1,)),
    ("falls_off_an_if", (-1,)), ("with_a_docstring", (5,)), ("returns_in_a_loop", ([1, 3],)),
    ("returns_in_a_loop", ([1],)), ("with_a_try", (0,)), ("with_a_try", (2,)),
    ("with_a_nested_function", (2,)), ("one_line", (1,))])
def test_a_tracer_sees_the_lines_the_original_runs(name, args, capsys):
    import traced_shapes
    fn = getattr(traced_shapes, name)
    fn = getattr(fn, "__wrapped__", fn)
    converted = ag.to_graph(fn)
    assert converted.__code__.co_firstlineno == fn.__code__.co_firstlineno
    assert _events(converted, *args) == _events(fn, *args)


@pytest.mark.python_path
def test_a_decorated_functions_code_starts_at_its_decorator():
    import traced_shapes
    fn = traced_shapes.decorated.__wrapped__
    assert inspect.getsource(ag.to_graph(fn)) == inspect.getsource(fn)


@pytest.mark.parametrize("staging", [False, True])
def test_names_that_conversion_uses_are_the_users_too(staging):
    """A global named like the name a function is compiled under (`ag__entity`) is the
    user's; names a `case` pattern binds (`len`, `range`) are locals, not the builtins;
    `dir()` lists the function's own names (it runs as written)."""
    import contextlib

    from autograph.operators import Staging
    import traced_shapes as t

    cases = [(t.reads_a_global_named_like_autographs_names, 1),
             (t.captures_builtin_names, [lambda s: "captured"]),
             (t.captures_builtin_names, {"k": lambda n: ("r", n), "z": 1}),
             (t.captures_builtin_names, lambda s: "called"), (t.lists_its_names, 1)]
    for fn, arg in cases:
        expected = fn(arg)
        with Staging() if staging else contextlib.nullcontext():
            assert ag.to_graph(fn)(arg) == expected, fn.__name__


@pytest.mark.parametrize("name", ["ranges_with_a_keyword", "enumerates_with_a_keyword"])
def test_a_call_the_builtin_refuses_fails_with_the_builtins_message(name):
    """(`range(stop=n)` in a `for` became `ag__.range_(stop=n)`: a message naming range_)"""
    import traced_shapes
    fn = getattr(traced_shapes, name)
    with pytest.raises(TypeError) as expected:
        fn(3)
    with pytest.raises(TypeError) as got:
        ag.to_graph(fn)(3)
    assert str(got.value) == str(expected.value)
