"""The printer without the standard library's printer class (`ast._Unparser`, private;
Python 3.14 moves it to `_ast_unparse`): `unparsing` finds it where it is, and where it
finds none prints with `ast.unparse` a statement at a time. Converted code printed that
way compiles, and is the code the usual printer prints."""
import ast
import importlib
import inspect
import re
import sys
import types

import pytest

import autograph as ag
import corpus
import guide_examples
from autograph import module_converter, unparsing
from autograph.errors import ConversionError

STDLIB = ["textwrap", "heapq", "statistics", "shlex", "calendar", "json.decoder"]


def _functions():
    found = [v for m in (guide_examples, corpus) for v in vars(m).values()
             if isinstance(v, types.FunctionType) and v.__module__ == m.__name__]
    for name in STDLIB:
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if isinstance(obj, types.FunctionType) and obj.__module__ == module.__name__:
                found.append(obj)
            elif isinstance(obj, type) and obj.__module__ == module.__name__:
                found += [v for v in vars(obj).values() if isinstance(v, types.FunctionType)]
    return found


def _same_text(a: str, b: str) -> bool:
    """The printers agree; on 3.10 up to the space `ast.unparse` puts in `lambda : x`
    (autograph's printer writes `lambda: x` on every version; the fallback is 3.10's)."""
    if sys.version_info < (3, 11):
        a, b = (re.sub(r"\blambda :", "lambda:", s) for s in (a, b))
    return a == b


@pytest.fixture
def fallback(monkeypatch):
    """The printer as it is where the standard library has no printer class."""
    monkeypatch.setattr(unparsing, "Unparser", None)


def test_the_printer_class_is_found_where_python_keeps_it(monkeypatch):
    stdlib, module = unparsing._stdlib_printer()
    if hasattr(ast, "_Unparser"):               # Python 3.10 to 3.13
        assert stdlib is ast._Unparser
    monkeypatch.delattr(ast, "_Unparser", raising=False)
    moved = types.ModuleType("_ast_unparse")          # as Python 3.14 has it
    moved.Unparser = stdlib
    for name in ("_Precedence", "_ALL_QUOTES", "_MULTI_QUOTES"):
        setattr(moved, name, getattr(module, name))
    monkeypatch.setitem(sys.modules, "_ast_unparse", moved)
    assert unparsing._stdlib_printer()[0] is stdlib


def test_no_printer_class_means_the_fallback(monkeypatch):
    monkeypatch.delattr(ast, "_Unparser", raising=False)
    monkeypatch.setitem(sys.modules, "_ast_unparse", None)      # (import fails)
    assert unparsing._stdlib_printer() == (None, None)
    gone = types.ModuleType("_ast_unparse")                      # a class, but not one
    gone.Unparser = type("Unparser", (), {})                     # this module can build on
    monkeypatch.setitem(sys.modules, "_ast_unparse", gone)
    assert unparsing._stdlib_printer() == (None, None)


def test_converted_functions_print_the_same_and_compile(monkeypatch):
    checked = 0
    for fn in _functions():
        try:
            usual = ag.to_code(fn)
        except ConversionError:
            continue
        with monkeypatch.context() as m:
            m.setattr(unparsing, "Unparser", None)
            printed = ag.to_code(fn)
        compile(printed, "<fallback>", "exec")
        assert ast.dump(ast.parse(printed)) == ast.dump(ast.parse(usual)), fn.__qualname__
        assert _same_text(printed, usual), fn.__qualname__
        checked += 1
    assert checked > 100


SOURCE = '''"""A module: its docstring,
over two lines."""
import contextlib


# A comment before a decorated function.
@contextlib.contextmanager
def managed(x):
    """Its docstring,
    over two lines, indented."""
    # before the loop
    for i in range(x):   # on the loop's line
        if i > 2:
            # inside the if
            break
        elif i:
            continue
        else:
            x = x + 1
    else:
        x = -x
    yield x


class Shapes:
    """A class."""

    def area(self, shape):
        match shape:
            case {"w": w, "h": h} if w > 0:
                return w * h
            case [a, *rest]:
                return a
            case _:
                return 0

    def guarded(self, f, n):
        try:
            with open(f) as handle, contextlib.suppress(OSError):
                n = n + len(handle.read())
        except (OSError, ValueError) as e:
            n = -1
        except Exception:
            raise
        else:
            n = n * 2
        finally:
            n = n + 0
        while n > 10:
            n = n // 2   # halved
        return (lambda: n)() if n else [k for k in range(3) if k]
'''


def test_converted_modules_print_the_same_with_comments_and_docstrings(monkeypatch):
    sources = [SOURCE] + [inspect.getsource(importlib.import_module(m)) for m in STDLIB[:3]]
    for i, source in enumerate(sources):
        usual = module_converter.convert_source(source, "sample.py")[0]
        with monkeypatch.context() as m:
            m.setattr(unparsing, "Unparser", None)
            printed = module_converter.convert_source(source, "sample.py")[0]
        compile(printed, "<fallback>", "exec")
        assert ast.dump(ast.parse(printed)) == ast.dump(ast.parse(usual))
        assert _same_text(printed, usual)
        if i == 0:
            for comment in ("# before the loop", "# inside the if", "# halved"):
                assert comment in printed
            assert '"""Its docstring,\n    over two lines, indented."""' in printed


def test_trees_print_as_ast_unparse_prints_them(fallback):
    source = inspect.getsource(module_converter)
    printed = unparsing.unparse(ast.parse(source))
    assert _same_text(printed, ast.unparse(ast.parse(source)))
    expression = ast.parse("f(a, *b, k=lambda: c)", mode="eval").body
    assert _same_text(unparsing.unparse(expression), "f(a, *b, k=lambda: c)")
