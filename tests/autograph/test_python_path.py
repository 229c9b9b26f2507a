"""The Python path: while nothing is staged, a converted function runs its original body.

So on Python values converted code has the original's frames: what `logging`,
`warnings`, `inspect.stack()`, `sys._getframe`, tracebacks and the recursion limit see
is what they see unconverted. Inside `Staging()` (as while a graph is built) the
converted body runs instead, and gives the same results on Python values.
"""
import importlib
import inspect
import logging
import logging.handlers
import sys
import threading
import traceback
import types
import warnings

import pytest

import autograph as ag
from autograph import module_converter, operators
from autograph.operators import Staging, python_path

pytestmark = pytest.mark.python_path


def where_am_i():
    caller = inspect.stack()[1]
    return caller.function, caller.lineno


def aliased_frame_locals():
    return getattr(sys, "_getframe")(1).f_locals.get("secret")


def deprecated(x):
    warnings.warn("old", DeprecationWarning, stacklevel=2)
    return x


def frames(x):
    out = []
    for i in range(x):
        if i % 2:
            out.append(where_am_i())
    secret = "mine"
    while x > 0:
        x -= 1
        if x == 1:
            out.append(aliased_frame_locals())
    return out, secret


def warns(n):
    total = 0
    for i in range(n):
        if i == 1:
            total += deprecated(i)
    return total


def logs(n, logger):
    for i in range(n):
        if i == 2:
            logger.warning("two")
    return n


def depth(n):
    if n == 0:
        return 0
    return 1 + depth(n - 1)


def fails(xs):
    total = 0
    for x in xs:
        if x:
            total += 10 // x
        else:
            total += 10 // x
    return total


def fails_reading(xs, k=10):
    total = 0
    for x in xs:        # (the loop reads `k`, which it does not assign)
        if x:
            total += k // x
        else:
            total += k // x
    return total


def test_the_flag_is_false_outside_staging_and_counts_scopes():
    assert not operators.staging
    with Staging():
        with Staging():
            assert operators.staging and python_path.scopes_open() == 2
        assert operators.staging and python_path.scopes_open() == 1
    assert not operators.staging and python_path.scopes_open() == 0


def test_inspect_stack_and_an_aliased_getframe_see_the_original_frames():
    assert ag.to_graph(frames)(4) == frames(4)
    names = {name for name, _ in ag.to_graph(frames)(4)[0][:-1]}
    assert names == {"frames"}


def test_warnings_stacklevel_points_at_the_users_line():
    def lines(fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(3)
        return [(w.filename, w.lineno) for w in caught]
    assert lines(ag.to_graph(warns)) == lines(warns) == [(__file__, warns.__code__.co_firstlineno + 4)]


def test_logging_records_name_the_users_function_and_line():
    def records(fn):
        logger = logging.getLogger("test_python_path")
        handler = logging.handlers.BufferingHandler(100)
        logger.addHandler(handler)
        try:
            fn(3, logger)
        finally:
            logger.removeHandler(handler)
        return [(r.funcName, r.lineno, r.pathname) for r in handler.buffer]
    assert records(ag.to_graph(logs)) == records(logs)
    assert records(logs)[0][0] == "logs"


def test_recursion_reaches_the_original_depth():
    def deepest(fn):
        n = 100
        while True:
            try:
                fn(n)
            except RecursionError:
                return n
            n += 100
    converted = ag.to_graph(depth)
    # the converted function's recursive calls go to the original through its globals:
    # convert the global too, as a converted module does
    globals()["depth"] = converted
    try:
        got = deepest(converted)
    finally:
        globals()["depth"] = converted.__wrapped__
    assert got >= deepest(depth) - 100


def test_tracebacks_list_the_same_frames():
    def frames_of(fn):
        try:
            fn([1, 0])
        except ZeroDivisionError as e:
            return [(f.name, f.lineno, f.line) for f in traceback.extract_tb(e.__traceback__)][1:]
    assert frames_of(ag.to_graph(fails)) == frames_of(fails)
    assert frames_of(fails) == [("fails", fails.__code__.co_firstlineno + 6, "total += 10 // x")]


def test_the_converted_body_runs_inside_staging_and_agrees():
    calls = []
    original = operators.for_stmt

    def spy(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)
    converted = ag.to_graph(fails)
    operators.for_stmt = spy
    try:
        assert converted([1, 2, 5]) == fails([1, 2, 5])
        assert not calls                       # the Python path
        with Staging():
            assert converted([1, 2, 5]) == fails([1, 2, 5])
        assert calls                           # the converted body
    finally:
        operators.for_stmt = original


def test_another_threads_staging_leaves_this_thread_on_the_original_body():
    converted = ag.to_graph(frames)
    inside, release = threading.Event(), threading.Event()

    def stage():
        with Staging():
            inside.set()
            release.wait(5)
    t = threading.Thread(target=stage)
    t.start()
    try:
        assert inside.wait(5)
        assert not operators.staging          # (staging in the other thread only)
        assert converted(4) == frames(4)      # the original body's frames
        assert converted(4)[1] == "mine"
    finally:
        release.set()
        t.join()


G = 0


def declares_midway(n):
    """Counts into G."""
    for i in range(n):
        if i > 1:
            global G
            G += i
    return G


def test_global_declared_midway_and_the_docstring():
    global G
    converted = ag.to_graph(declares_midway)
    assert converted.__doc__ == "Counts into G."
    G = 0
    assert converted(4) == 5
    with Staging():
        G = 0
        assert converted(4) == 5


def test_nonlocal_and_closures():
    def outer():
        count = 0

        def bump(n):
            nonlocal count
            while n > 0:
                n -= 1
                count += 1
            return count
        return bump
    plain, converted = outer(), ag.to_graph(outer())
    assert [plain(2), plain(3)] == [converted(2), converted(3)] == [2, 5]
    with Staging():
        assert converted(1) == 6


def test_converted_modules_run_the_original_body(tmp_path):
    source = ("import inspect\n"
              "def who():\n    return inspect.stack()[1].function\n"
              "def f(n):\n    '''Doc.'''\n    out = []\n    for i in range(n):\n"
              "        if i % 2:\n            out.append(who())\n    return out\n")
    text, report = module_converter.convert_source(source, "m.py")
    assert report.converted == ["f"]            # `who` looks at frames: as written
    namespace = {"__name__": "m"}
    exec(compile(text, "m.py", "exec"), namespace)
    assert namespace["f"](4) == ["f", "f"]
    assert namespace["f"].__doc__ == "Doc."
    with Staging():
        assert len(namespace["f"](4)) == 2


def test_lambdas_have_both_paths():
    fn = lambda x: where_am_i()[0] if x > 2 else (x and x + 1)   # noqa: E731
    converted = ag.to_graph(fn)
    assert [converted(i) for i in range(5)] == [fn(i) for i in range(5)]
    assert converted(3) == "<lambda>"             # called from the lambda's own frame
    with Staging():
        assert converted(3) == "<lambda>"
    with Staging():
        assert [converted(i) for i in range(5)] == [fn(i) for i in range(5)]


@pytest.mark.parametrize("fn, nested", [(fails, False), (fails_reading, True)])
def test_the_converted_bodys_tracebacks_hide_the_operators(fn, nested):
    """While staging, an error passing out of `if_stmt`/`for_stmt`/... loses their frames:
    the traceback lists the user's lines, as the original's does (with the generated
    branch and loop functions, under the user's function name)."""
    def frames_of(fn):
        try:
            fn([1, 0])
        except ZeroDivisionError as e:
            return [(f.name, f.lineno) for f in traceback.extract_tb(e.__traceback__)][1:]
    with Staging():
        got = frames_of(ag.to_graph(fn))
    if sys.version_info < (3, 11):
        # Python 3.10's bare `raise` re-raises the traceback it caught, not the exception's
        # `__traceback__`: the frame of the outermost operator, which re-raises, stays (the
        # others go, as does every frame between it and the user's next one).
        operator = [f for f in got if f[0] == "for_stmt"]
        assert len(operator) == 1
        got.remove(operator[0])
    first, name = fn.__code__.co_firstlineno, fn.__name__
    # The user's lines of the loop, the `if` and the division; before them, where the
    # converted body is a function nested in the function (its loop reads a variable
    # of the function: see Context.converted_body_scope), the function at its `def`,
    # which calls it.
    assert got == [(name, first)] * nested + [(name, first + 2), (name, first + 3),
                                              (name, first + 6)]
    assert got[-1] == frames_of(fn)[-1]


def straight(xs):
    first = xs[0]
    return first + 10 // xs[1]


def test_straight_line_code_adds_no_frame_while_staging():
    """A converted body that defines no function (no converted `if` or loop, no
    `lambda:` operand) stays in the function: while staging, a traceback lists exactly
    the original's frames, and the function's code has no nested code of its own."""
    def frames_of(fn):
        try:
            fn([1, 0])
        except ZeroDivisionError as e:
            return [(f.name, f.lineno, f.line) for f in traceback.extract_tb(e.__traceback__)][1:]
    converted = ag.to_graph(straight)
    with Staging():
        assert frames_of(converted) == frames_of(straight)
        assert converted([1, 2]) == straight([1, 2])
    assert not [c for c in converted.__code__.co_consts if inspect.iscode(c)]
    assert [c.co_name for c in ag.to_graph(fails).__code__.co_consts if inspect.iscode(c)] \
        == ["fails"]           # (its converted body, under the user's function name)


def caller_locals_through_an_alias():
    getframe = getattr(sys, "_getframe", lambda _: None)
    frame = getframe(1)
    if frame is None:
        return None
    return sorted(k for k in frame.f_locals if not k.startswith("_"))


def test_a_frame_read_through_getattr_stays_as_written():
    """pyparsing's autoname_elements reads its caller's locals through
    `getattr(sys, "_getframe")`: it stays as written, so both paths see the caller."""
    assert ag.to_graph(caller_locals_through_an_alias) is caller_locals_through_an_alias

    def caller():
        marker = 1
        return caller_locals_through_an_alias()
    assert caller() == ["marker"]
    # (a converted function's frame also holds the operators, `ag__`, a closure cell)
    assert [k for k in ag.to_graph(caller)() if k != "ag__"] == ["marker"]
    with Staging():
        assert [k for k in ag.to_graph(caller)() if k != "ag__"] == ["marker"]
    source = inspect.getsource(caller_locals_through_an_alias)
    _, report = module_converter.convert_source(source, "alias.py")
    assert report.converted == [] and "through getattr" in report.skipped[0][2]


def _functions(module):
    """The functions of `module` and the methods of its classes."""
    for value in vars(module).values():
        if isinstance(value, type) and value.__module__ == module.__name__:
            for attribute in vars(value).values():
                attribute = getattr(attribute, "__func__", attribute)
                if isinstance(attribute, types.FunctionType):
                    yield attribute
        elif isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            yield value


@pytest.mark.parametrize("module", ["corpus", "corpus_python", "textwrap", "statistics",
                                    "fractions", "difflib", "shlex", "typing", "calendar"])
def test_the_converted_body_stands_in_the_function_only_where_it_adds_no_cell(module,
                                                                            monkeypatch):
    """A variable the converted body's functions read becomes a cell of the function they
    are defined in, and a cell is read more slowly than a local: where a function that
    conversion made reads one of the original body's variables, the converted body is a
    function of its own (see Context.converted_body_scope). So the function's cells are
    those it has when the converted body is always a function of its own: checked on
    every function of the module that converts."""
    from autograph import api
    from autograph.converters.context import Context
    from autograph.errors import ConversionError
    module = importlib.import_module(module)
    compiled = []
    for fn in _functions(module):
        try:
            compiled.append((fn, api._compile(fn, True)))
        except ConversionError:
            pass            # (a generator, a function that reads its own frame, ...)
    monkeypatch.setattr(Context, "converted_body_scope",
                        lambda self, cells=frozenset(): self.new_scopes)
    for fn, code in compiled:
        nested = api._compile(fn, True)
        names = set(fn.__code__.co_varnames)
        assert set(code.co_cellvars) & names <= set(nested.co_cellvars), fn.__qualname__
    assert len(compiled) > 5
