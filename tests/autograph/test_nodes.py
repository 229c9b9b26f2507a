"""autograph.nodes: the converter's node classes are gast's and `ast`'s at once, so that a
converted tree compiles as it stands. Compiled that way, it must give the very code that
compiling it after `parsing.to_ast` (gast -> ast, positions fixed) gives; and where it
cannot (an `except ... as name`, a node conversion made without a position), the tree
is converted and compiled again."""
import ast
import importlib
import inspect
import sys
import types

import gast
import pytest

import corpus
import corpus_python
import guide_examples
from autograph import api, nodes, parsing, pipeline

MODULES = ["textwrap", "difflib", "json.encoder", "heapq", "statistics", "fractions",
           "shlex", "csv", "pprint", "tokenize", "configparser", "urllib.parse",
           "ipaddress", "calendar", "argparse", "dataclasses", "email.utils"]


def _functions(module):
    for value in vars(module).values():
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            yield value
        elif isinstance(value, type) and value.__module__ == module.__name__:
            yield from (v for v in vars(value).values() if isinstance(v, types.FunctionType))


CORPUS = ([fn for fn, _, _ in corpus.PY] + [fn for fn, _ in corpus_python.PY]
          + list(guide_examples.EXAMPLES)
          + [fn for m in MODULES for fn in _functions(importlib.import_module(m))])


def _described(code: types.CodeType) -> tuple:
    """Everything compile() decides about `code` and the code nested in it."""
    consts = tuple(_described(c) if isinstance(c, types.CodeType) else (type(c), repr(c))
                   for c in code.co_consts)
    lines = (list(code.co_positions()) if sys.version_info >= (3, 11)
             else list(code.co_lines()))
    return (code.co_name, getattr(code, "co_qualname", None), code.co_firstlineno,
            code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_cellvars, code.co_flags, lines,
            getattr(code, "co_exceptiontable", None))


def _converted_through_to_ast(fn, monkeypatch):
    """`api._compile(fn)`, the tree converted by `parsing.to_ast` before compiling (as it
    was before autograph.nodes)."""
    real = compile

    def compile_as_ast(tree, *args, **kwargs):
        factory = tree.body[0]
        for stmt in factory.body:
            for node in (stmt.body if type(stmt) is ast.ClassDef else [stmt]):
                parsing.to_ast(node, factory.lineno)
        return real(tree, *args, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(api, "compile", compile_as_ast, raising=False)
        return api._compile(fn, True)


def _convertible(fn) -> bool:
    try:
        api._compile(fn, True)
        return True
    except Exception:           # generators, functions left as written, ...
        return False


# (every function, converted or not: converting them all while collecting would cost each
# worker the time of this test)
@pytest.mark.parametrize("fn", CORPUS, ids=lambda f: f"{f.__module__}.{f.__qualname__}")
def test_compiled_as_it_stands_is_compiled_as_ast(fn, monkeypatch):
    if not _convertible(fn):
        pytest.skip("not converted")
    assert _described(api._compile(fn, True)) == \
        _described(_converted_through_to_ast(fn, monkeypatch))


def test_corpus_compiles_without_to_ast(monkeypatch):
    """Conversion gives every node it makes a position; only functions with an `except`
    (`except ... as name`) are converted to `ast`'s classes before compiling."""
    converted = []
    real = parsing.to_ast

    def to_ast(node, lineno=1):
        converted.append(node)
        return real(node, lineno)
    monkeypatch.setattr(parsing, "to_ast", to_ast)
    checked = 0
    for fn in CORPUS:
        if not _convertible(fn):
            continue
        del converted[:]
        api._compile(fn, True)
        handlers = any(isinstance(n, nodes.ExceptHandler) for n in nodes.walk(parsing.parse_function(fn)[0]))
        assert bool(converted) == handlers, fn.__qualname__
        checked += 1
    assert checked > 300


def _adds(x):
    if x > 0:
        y = x * 2
    else:
        y = 0
    return y


def test_a_node_made_without_a_position_compiles_at_its_parents_line(monkeypatch):
    """Conversion that left a node of its own without a position (`y + 0` for `y`)."""
    made = []
    real = pipeline.convert

    def convert(node, ctx):
        node = real(node, ctx)
        for n in nodes.walk(node):
            if type(n) is nodes.Return and type(n.value) is nodes.Name:
                n.value = nodes.BinOp(left=n.value, op=nodes.Add(),
                                      right=nodes.Constant(value=0, kind=None))
                made.append(n)
        return node
    monkeypatch.setattr(pipeline, "convert", convert)
    api._compile(_adds, True)
    assert made        # (`return y`, and the branches' returns of `y`)
    for r in made:
        assert r.value.lineno == r.value.right.lineno == r.lineno


def _handles(x):
    try:
        return 1 / x
    except ZeroDivisionError as e:
        return type(e).__name__


def test_an_except_name_compiles():
    import autograph as ag
    converted = ag.to_graph(_handles)
    assert converted(2) == 0.5
    assert converted(0) == "ZeroDivisionError"


def test_node_classes_are_gasts_and_asts():
    for name in ("Name", "Call", "FunctionDef", "If", "Load", "Add", "arguments", "keyword"):
        cls = getattr(nodes, name)
        assert issubclass(cls, getattr(gast, name)) and issubclass(cls, getattr(ast, name))
    assert nodes.Param is gast.Param        # compile never reads a parameter's context
    tree = parsing.parse("def f(a, *b, c=1, **d):\n    return a + c\n")
    assert type(tree.body[0].args.args[0]) is nodes.Name
    namespace = {}
    exec(compile(nodes.fix_missing_locations(nodes.Module(body=tree.body, type_ignores=[])),
                 "<test>", "exec"), namespace)
    assert namespace["f"](1, 2, c=3) == 4


def test_copies_are_whole():
    """`copy` and `pickle` go through `ast`'s `__reduce__` (its fields in `ast`'s order,
    on 3.13 positional ones too): the copy must have gast's fields and classes."""
    import copy
    import pickle
    import textwrap

    def described(n):
        if isinstance(n, list):
            return [described(x) for x in n]
        if not isinstance(n, ast.AST):
            return n
        return (type(n), [(f, described(getattr(n, f, "<missing>"))) for f in n._fields],
                [(a, getattr(n, a, "<missing>")) for a in n._attributes])
    tree = parsing.parse(inspect.getsource(textwrap))
    expected = described(tree)
    assert described(copy.deepcopy(tree)) == expected
    assert described(pickle.loads(pickle.dumps(tree))) == expected
    assert [described(copy.copy(s)) for s in tree.body] == expected[1][0][1]
