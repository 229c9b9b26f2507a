"""Generic functions (`def f[T](...)`, Python 3.12) convert like any other: their type
parameters are the live function's, read from its closure where the body reads them."""
import sys

import pytest

import autograph as ag
from autograph import api

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="`def f[T]` is 3.12 syntax")


def test_generic_functions_and_methods_convert(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_STRICT", "1")      # a conversion that fails raises
    import py312_generics as g
    for fn, args in [(g.first, ([0, 3],)), (g.first, ([0],)), (g.Box().get, (1,)),
                     (g.Box().get, (0,))]:
        converted = ag.to_graph(fn)
        assert converted(*args) == fn(*args)
        assert converted.__type_params__ == fn.__type_params__
    assert ag.to_code(g.first).startswith("def first[T](xs: list[T]) -> T:")


def test_the_standard_librarys_generic_functions_convert():
    import typing
    for fn in (typing.reveal_type, typing.override):
        api._compile(fn, True)


def test_generics_defined_in_a_converted_function_keep_their_qualified_names():
    """(3.12 compiles `class C[T]` in a scope of its own, `<generic parameters of C>`,
    which the names of what it holds leave out)"""
    import py312_generics as g
    assert ag.to_graph(g.defines_generics)(1) == g.defines_generics(1) == (
        "defines_generics.<locals>.Box", "defines_generics.<locals>.Box.get",
        "defines_generics.<locals>.Box.get.<locals>.inner", "defines_generics.<locals>.ident",
        "defines_generics.<locals>.ident.<locals>.In")
