"""`autograph convert`'s layout: the converted body printed under `if __ag__.staging:`,
then the original body as the user wrote it (verbatim text), or, where the text cannot
follow printed code as it is, both bodies printed. Either way both paths behave as the
original."""
import contextlib
import sys

import pytest

from autograph import module_converter
from autograph.operators import Staging

CASES = {
    # name: (source, verbatim layout expected; None: nothing conversion changes, the
    # function is written out as it is)
    "plain": ("def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n",
              True),
    "global in a block": ("g = 0\ndef f(n):\n    for i in range(n):\n        if i:\n"
                          "            global g\n            g += i\n    return g\n", True),
    "global continued": ("g = 0\ndef f(n):\n    global \\\n        g  \n"
                         "    for i in range(n):\n        g += 1\n    return g\n", True),
    "global with a comment": ("g = 0\ndef f(n):\n    global g  # the count\n"
                              "    for i in range(n):\n        g += 1\n    return g\n", True),
    "global after ;": ("g = 0\ndef f(n):\n    global g; g += n\n    for i in range(n):\n"
                       "        g += 1\n    return g\n", False),
    "nonlocal": ("def f(n):\n    t = 0\n    def g():\n        nonlocal t\n"
                 "        for i in range(n):\n            t += i\n        return t\n"
                 "    return g()\n", True),
    "tabs": ("def f(n):\n\tt = 0\n\tfor i in range(n):\n\t\tt += i\n\treturn t\n", False),
    "two spaces": ("def f(n):\n  t = 0\n  for i in range(n):\n    t += i\n  return t\n", False),
    "crlf": ("def f(n):\r\n    t = 0\r\n    for i in range(n):\r\n        t += i  # c\r\n"
             "    return t\r\n", True),
    "docstring sharing a line": ("def f(n):\n    '''d'''; t = 0\n    for i in range(n):\n"
                                 "        t += i\n    return t\n", False),
    "one line": ("def f(n): return n + 1\n", False),
    "docstring only": ("def f(n):\n    '''Doc.'''\n", None),
    "nothing to change": ("def f(n):\n    '''Doc.'''\n    t = [n + 1]\n    return t\n", None),
    "calls only": ("def f(n):\n    # c\n    return abs(n - 2)\n", True),
    # Straight-line code: the converted statements stand in the function itself.
    "super and a private name": ("class B:\n    def m(self, n):\n        return n + 1\n"
                                 "class C(B):\n    __k = 3\n    def m(self, n):\n"
                                 "        return (super().m(n) * self.__k\n"
                                 "                + len(__class__.__name__))\n"
                                 "def f(n):\n    return C().m(n)\n", True),
    "closures": ("def f(n):\n    t = n\n    def bump(k=2):\n        nonlocal t\n"
                 "        t = t * k\n    bump()\n    return abs(t - 1)\n", True),
    "global and del": ("g = 0\ndef f(n):\n    global g\n    g = abs(n) + 1\n    del n\n"
                       "    return g\n", True),
    "no final newline": ("def f(n):\n    t = 0\n    while n:\n        n -= 1\n        t += n\n"
                         "    return t", True),
    "header on lines": ("def f(\n    n,  # the n\n):\n    # first\n\n    t = 0\n"
                        "    for i in range(n):\n        t += i\n    return t\n", True),
    "strings": ('def f(n):\n    s = """a\n# b\n  c"""\n    if n:\n        s += "x"\n'
                '    return s\n', True),
    # the body's first statement is decorated: its text starts at the `@`
    "decorated first statement": ("import functools\ndef f(n):\n    @functools.lru_cache(None)\n"
                                  "    def g(k):\n        return k * 2\n    t = 0\n"
                                  "    for i in range(n):\n        t += g(i % 2)\n"
                                  "    return t + g.cache_info().hits\n", True),
    "method": ("class C:\n    def m(self, n):\n        '''Doc.'''\n        # why\n"
               "        if n > 2:\n            n = 2; k = 1\n        return n\n"
               "def f(n):\n    return C().m(n)\n", True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_both_paths_behave_as_the_original(name):
    source, verbatim = CASES[name]
    text, report = module_converter.convert_source(source, "m.py")
    assert not report.skipped
    assert ("if __ag__.staging:" in text) == bool(verbatim)
    assert ("if not __ag__.staging:" in text) == (verbatim is False)
    if verbatim is None:
        assert text.endswith(source)
    plain, converted = {}, {}
    exec(compile(source, "m.py", "exec"), plain)
    exec(compile(text, "m.py", "exec"), converted)
    # The original body reads its variables as the original does: none is a cell that
    # was not one (the converted body is a function of its own where its functions
    # read them).
    original, new = plain["f"].__code__, converted["f"].__code__
    assert set(new.co_cellvars) & set(original.co_varnames) <= set(original.co_cellvars)
    for n in (0, 1, 4):
        for ns in (plain, converted):
            ns["g"] = 0
        expected = plain["f"](n), plain.get("g")
        assert (converted["f"](n), converted.get("g")) == expected
        converted["g"] = 0
        with Staging():
            assert (converted["f"](n), converted.get("g")) == expected
    assert converted["f"].__doc__ == plain["f"].__doc__


def test_the_original_text_is_copied_as_written():
    source = ("def f(x):\n    '''Doc.'''\n    # a comment\n    y = (x +\n         1)  # inline\n"
              "    if y:\n        y = [1,\n             2]\n    return y\n")
    text, _ = module_converter.convert_source(source, "m.py")
    original = source[source.index("    # a comment"):]
    assert text.endswith(original)
    assert text.count('"""Doc."""') == 1 and text.count("# inline") == 1   # printed once


def test_declarations_of_the_original_text_become_pass_in_place():
    source = "g = 0\ndef f():\n    global g  # why\n    for i in range(2):\n        g += i\n"
    text, _ = module_converter.convert_source(source, "m.py")
    assert "    global g\n    if __ag__.staging:" in text
    assert text.endswith("        return\n    pass  # why\n"
                         "    for i in range(2):\n        g += i\n")


def test_printed_code_that_does_not_compile_leaves_the_function_as_written(monkeypatch):
    """Only the printed part of a converted function is compiled while converting (the
    original text after it compiles where the input does): a function whose printed code
    does not compile stays as written, and the rest of the module converts."""
    from autograph import unparsing
    real = unparsing.unparse

    def broken(node, *args, **kwargs):
        text = real(node, *args, **kwargs)
        return text + "\n    nonlocal zz" if getattr(node, "name", "") == "f" else text
    monkeypatch.setattr(unparsing, "unparse", broken)
    source = ("class C:\n    def m(self, x):\n        return x if x else -x\n\n"
              + CASES["global in a block"][0] + "def h(x):\n    return x and 2\n")
    text, report = module_converter.convert_source(source, "m.py")
    assert report.converted == ["C.m", "h"]
    assert [(name, reason) for name, _, reason in report.skipped] == [
        ("f", "its converted code does not compile: no binding for nonlocal 'zz' found")]
    namespace = {}
    exec(compile(text, "m.py", "exec"), namespace)
    assert namespace["f"](4) == 6 and namespace["h"](3) == 2 and namespace["C"]().m(0) == 0


@pytest.mark.parametrize("future", ["", "from __future__ import annotations\n"])
def test_printed_code_is_checked_under_the_modules_future_imports(monkeypatch, future):
    """The check parses and resolves scopes as the module's `from __future__` imports
    say: under `annotations`, an annotation may not hold a `yield` (a printer that wrote
    one there would make a module that fails to import); without it, a local variable's
    annotation is never evaluated, and Python accepts it."""
    from autograph import unparsing
    real = unparsing.unparse

    def annotated(node, *args, **kwargs):
        text = real(node, *args, **kwargs)
        return text + "\n    w: (yield) = 1" if getattr(node, "name", "") == "f" else text
    monkeypatch.setattr(unparsing, "unparse", annotated)
    source = future + "def f(x):\n    return x if x else -x\n"
    text, report = module_converter.convert_source(source, "m.py")
    assert report.converted == ([] if future else ["f"])
    compile(text, "m.py", "exec")


def test_a_jump_that_conversion_left_outside_a_loop_leaves_the_function_as_written(
        monkeypatch):
    """Python's parser and symbol table (what checks the printed code) accept a `break`
    outside a loop; only its code generator refuses it. Conversion moves loop bodies
    into functions, so it looks for such jumps in what it made itself."""
    from autograph import nodes, pipeline
    real = pipeline.convert

    def leaves_a_jump(node, ctx):
        node = real(node, ctx)
        if node.name == "f":
            node.body.insert(0, nodes.Continue())
        return node
    monkeypatch.setattr(pipeline, "convert", leaves_a_jump)
    source = ("def f(xs):\n    t = 0\n    for x in xs:\n        if x < 0:\n            break\n"
              "        t += x\n    return t\n\n"
              "def g(xs):\n    for x in xs:\n        if x:\n            return x\n")
    text, report = module_converter.convert_source(source, "m.py")
    assert report.converted == ["g"]
    assert [(name, reason) for name, _, reason in report.skipped] == [
        ("f", "its converted code has a `continue` outside a loop")]
    namespace = {}
    exec(compile(text, "m.py", "exec"), namespace)
    assert namespace["f"]([1, 2, -1, 5]) == 3 and namespace["g"]([0, 3]) == 3


@pytest.mark.parametrize("body, nested", [
    ("return a and b", True),            # `lambda: b`, a function the original has not
    ("return a if b else 0", True),
    ("return 0 < a < b", True),          # `and_(0 < a, lambda: a < b)`
    ("assert a, 'no a'\n    return b", False),      # `lambda: 'no a'` reads no variable
    ("assert a\n    return b", False),
    ("return a in [b]", False),
    ("return not abs(a)", False),
    ("return [x for x in (a, b)]", False),   # the original's own comprehension
    # Control flow: the functions it becomes take the state as arguments...
    ("t = 0\n    for i in range(a):\n        t += i\n    return t", False),
    ("while a > 0:\n        a -= 1\n        b += a\n    return b", False),
    ("if a > b:\n        a, b = b, a\n    return a - b", False),
    # ...and read the rest from the function's scope, as cells
    ("t = 0\n    for i in range(a):\n        t += b\n    return t", True),
    ("while a > b:\n        a -= 1\n    return a", True),       # `loop_test` reads b
    ("if a:\n        return b\n    return 0", True),
    # written through, as an enclosing `try` sees it part-way
    ("t = 0\n    try:\n        for i in range(a):\n            t += 10 // (i - b)\n"
     "    except ZeroDivisionError:\n        pass\n    return t", True),
])
def test_the_converted_body_is_a_function_only_where_its_functions_read_variables(body, nested):
    source = f"def f(a, b):\n    {body}\n"
    text, report = module_converter.convert_source(source, "m.py")
    assert report.converted == ["f"]
    assert ("def converted_body(" in text) == nested
    plain, converted = {}, {}
    exec(compile(source, "m.py", "exec"), plain)
    exec(compile(text, "m.py", "exec"), converted)
    for a, b in ((1, 2), (0, 2), (3, 1)):
        try:
            expected = plain["f"](a, b)
        except AssertionError:
            expected = AssertionError
        for staged in (False, True):
            with Staging() if staged else contextlib.nullcontext():
                try:
                    got = converted["f"](a, b)
                except AssertionError:
                    got = AssertionError
            assert got == expected, (a, b, staged)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="`def f[T]` is 3.12 syntax")
def test_type_parameters_are_kept():
    source = ("def first[T](xs: list[T]) -> T:\n    for x in xs:\n        if x:\n"
              "            return x\n    return T.__name__\n"
              "class Box[T]:\n    def get[U](self, u: U) -> tuple:\n        if u:\n"
              "            return (T, u)\n        return (U, 0)\n")
    text, report = module_converter.convert_source(source, "m.py")
    assert report.converted == ["first", "Box.get"]
    plain, converted = {}, {}
    exec(compile(source, "m.py", "exec"), plain)
    exec(compile(text, "m.py", "exec"), converted)
    for args in ([0, 3],), ([0],):
        assert converted["first"](*args) == plain["first"](*args)
    assert converted["first"].__type_params__[0].__name__ == "T"
    for u in (0, 1):
        got, expected = converted["Box"]().get(u), plain["Box"]().get(u)
        assert [getattr(v, "__name__", v) for v in got] == [
            getattr(v, "__name__", v) for v in expected]


@pytest.mark.parametrize("binding", ["def __ag__():\n    return 1\n",
                                     "import os as __ag_converted__\n",
                                     "def g():\n    global __ag__\n    __ag__ = 1\n"])
def test_a_module_that_binds_the_prelude_names_is_refused(binding):
    source = "def f(x):\n    if x:\n        return 1\n    return 0\n" + binding
    with pytest.raises(module_converter.SourceError, match="the module binds __ag"):
        module_converter.convert_source(source, "m.py")
