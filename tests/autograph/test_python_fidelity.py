"""Converted functions behave like the originals on Python values, down to details a
program can observe: qualified names, private-name mangling, introspection, messages,
logging. Each test runs the plain function and `ag.to_graph(f)` side by side."""
import linecache
import textwrap

import pytest

import autograph as ag
from autograph import module_converter


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
    source = textwrap.dedent('''
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
                while not check():
                    self.__balance += 1
                return self.__balance, (lambda: self.__fee(30))()
    ''')
    text, report = module_converter.convert_source(source, "account.py")
    assert "Account.withdraw" in report.converted
    plain, converted = run_module(source, "account_plain"), run_module(text, "account_converted")
    for amount in (3, 5, 100):
        assert (outcome(converted["Account"]().withdraw, amount)
                == outcome(plain["Account"]().withdraw, amount))
