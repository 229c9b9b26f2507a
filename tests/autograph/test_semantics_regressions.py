"""Python semantics the converter once got wrong, found by converting the standard library
(tools/stdlib_check.py): each function must give the same result converted as plain."""
import pytest

import autograph as ag


def first_that_works(fs):
    """A `return` whose value raises inside a `try` in a loop has not returned."""
    i = 0
    while i < len(fs):
        f = fs[i]
        i += 1
        try:
            return f()
        except ValueError:
            pass
    raise LookupError("none worked")


def _fails():
    raise ValueError


def _works():
    return 7


def setdefault_walrus(d, k):
    """A name the `if` test binds (walrus) is defined when the branches run."""
    if (r := d.get(k)) is None:
        d[k] = r = [k]
    return r


def last_seen(items):
    """A loop variable that a nested function writes through `nonlocal` is the
    function's cell: the loop must not take it over as local state."""
    result = None

    def setter(v):
        nonlocal result
        result = v

    for it in items:
        if it > 2:
            result = 0
        setter(it)
    return result


def counter(n):
    x = None

    def g():
        nonlocal x
        x = 1

    i = 0
    while i < n:
        x = 5
        g()
        i += 1
    return x


@pytest.mark.parametrize("fn, args", [
    (first_that_works, ([_fails, _works],)),
    (first_that_works, ([_works, _fails],)),
    (setdefault_walrus, ({}, "a")),
    (setdefault_walrus, ({"a": [1]}, "a")),
    (last_seen, ([1, 3, 2],)),
    (last_seen, ([],)),
    (counter, (3,)),
    (counter, (0,)),
])
def test_converted_matches_plain(fn, args):
    converted = ag.to_graph(fn)
    assert converted is not fn
    assert converted(*[a.copy() if isinstance(a, (dict, list)) else a for a in args]) == \
        fn(*[a.copy() if isinstance(a, (dict, list)) else a for a in args])


def test_return_value_raising_everywhere_falls_through():
    with pytest.raises(LookupError):
        ag.to_graph(first_that_works)([_fails, _fails])


def _chain_source(k: int, jump: str) -> str:
    """k `if`s in a row, each with a jump on some paths only: removing the jumps copies
    what follows each one into both of its branches, doubling it k times."""
    checks = "".join(f"        if a == {i}:\n            if b:\n                {jump}\n"
                     f"            a += 1\n" for i in range(k))
    if jump == "return a":
        return (f"def chain(a, b):\n    if a >= 0:\n{checks}"
                f"        a = a * 2\n    return -a\n")
    return (f"def chain(a, b):\n    t = 0\n    for _ in range(3):\n{checks}"
            f"        t += a\n    return t\n")


@pytest.mark.parametrize("jump", ["return a", "continue", "break"])
def test_many_partial_jumps_do_not_multiply_the_code(tmp_path, jump):
    """Lowering jumps copies code; where the copies would multiply (2**30 here) the
    construct stays Python instead, so conversion finishes and the code stays small."""
    source = _chain_source(30, jump)
    path = tmp_path / "chain.py"
    path.write_text(source)
    namespace: dict = {}
    exec(compile(source, str(path), "exec"), namespace)
    import linecache
    linecache.checkcache(str(path))
    plain = namespace["chain"]
    code = ag.to_code(plain)
    assert code.count("\n") < 10 * source.count("\n")
    converted = ag.to_graph(plain)
    for a in range(-1, 33):
        for b in (0, 1):
            assert converted(a, b) == plain(a, b), (a, b)


def counting_len(xs):
    """Used as `builtins.len` below, converted: its `if` and `for` run the operators."""
    if xs is None:
        return 0
    n = 0
    for _ in xs:
        n += 1
    return n


def test_operators_do_not_call_a_replaced_builtin(monkeypatch):
    """CPython's functools tests set `builtins.len` to a wrapper whose code is converted;
    operators calling the replacement would recurse forever."""
    import builtins
    converted = ag.to_graph(counting_len)
    assert converted is not counting_len
    monkeypatch.setattr(builtins, "len", converted)
    assert converted([4, 5, 6]) == 3 and converted(None) == 0
    assert len("abcd") == 4


def _imports_after_an_early_return(name):
    if name is None:
        return None
    try:
        from os.path import basename
    except ImportError:
        return None
    try:
        result = basename(name)
    except KeyError:
        result = None
    if result is not None:
        return result.upper()
    return None


def test_a_name_an_import_binds_is_state_like_an_assignment():
    # flag lowering puts the import and its use in different generated functions: the
    # imported name must travel between them as an assigned one does
    converted = ag.to_graph(_imports_after_an_early_return)
    for value in (None, "/a/b.txt", ""):
        assert converted(value) == _imports_after_an_early_return(value)


# --- found converting real packages (pyparsing, networkx) with their converted bodies ---

class _StaticCall:
    @staticmethod
    def __call__(t):
        return t + 1


class _ClassCall:
    k = 10

    @classmethod
    def __call__(cls, t):
        return t + cls.k


def calls_callable_objects(x):
    total = 0
    for obj in (_StaticCall(), _ClassCall()):
        if x:
            total += obj(x)
    return total


def test_callable_objects_with_static_and_class_call():
    assert ag.to_graph(calls_callable_objects)(5) == calls_callable_objects(5) == 21


def walrus_rebound_in_branch(v):
    if m := {x for x in v}:
        m = ",".join(sorted(m))
    return "ok"


def walrus_read_after(v):
    if m := {x for x in v}:
        m = ",".join(sorted(m))
    return m


def test_a_name_the_test_binds_and_a_branch_rebinds():
    for fn in (walrus_rebound_in_branch, walrus_read_after):
        for v in (["b", "a"], []):
            assert ag.to_graph(fn)(v) == fn(v)


def test_converted_closures_are_freed():
    import gc
    import weakref
    from autograph.operators import converted

    def make(i):
        def inner(x):
            if x > i:
                return x
            return -x
        return inner
    refs = []
    for i in range(20):
        f = make(i)
        refs.append(weakref.ref(f))
        assert converted(f)(3) == f(3) and ag.to_graph(f)(3) == f(3)
        del f
    gc.collect()
    assert not [r for r in refs if r() is not None]


def test_a_wrapper_that_copied_the_dict_is_converted_as_itself():
    import functools

    def plain(x):
        if x:
            return "plain"
        return None

    @functools.wraps(plain)
    def wrapper(x):
        if x:
            return "wrapper"
        return None
    assert ag.to_graph(plain)(1) == "plain"
    @functools.wraps(plain)
    def later(x):
        return "later" if x else None
    assert ag.to_graph(later)(1) == "later" and ag.to_graph(wrapper)(1) == "wrapper"


def annotated_inside(x):
    def inner(y: int) -> int:
        return y
    if x:
        z: int = 1
    return inner.__annotations__


def test_annotations_in_converted_code_are_evaluated_as_the_module_says(tmp_path, monkeypatch):
    """The converter's own `from __future__ import annotations` must not leak into the
    code it compiles; the user's module's does carry over."""
    assert ag.to_graph(annotated_inside)(1) == annotated_inside(1) == {"y": int, "return": int}
    (tmp_path / "postponed_mod.py").write_text(
        "from __future__ import annotations\n"
        "def f(x):\n    def inner(y: int) -> int:\n        return y\n"
        "    if x:\n        pass\n    return inner.__annotations__\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import postponed_mod
    assert ag.to_graph(postponed_mod.f)(1) == postponed_mod.f(1) == {"y": "int", "return": "int"}
