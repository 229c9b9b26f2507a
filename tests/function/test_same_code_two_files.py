"""Two files holding the same function (equal code objects: CPython does not compare
file names) each get their own conversion: an error raised while tracing one names its
own file and line, and names resolve in each function's own module."""
import importlib.util
import textwrap

import pytest

import runtime as rt

SOURCE = textwrap.dedent("""
    import runtime as rt

    def helper(x):
        return x

    def f(x):
        if x > 0:
            y = helper(x)
        else:
            y = x
        return y.no_such_attribute  # line 12: an AttributeError while tracing
""")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_errors_name_each_functions_own_file(tmp_path):
    paths = []
    for name in ("first_copy", "second_copy"):
        path = tmp_path / f"{name}.py"
        path.write_text(SOURCE)
        paths.append(path)
    modules = [_load(p, p.stem) for p in paths]
    assert modules[0].f.__code__ == modules[1].f.__code__      # (why the key needs more)
    for path, module in zip(paths, modules):
        with pytest.raises(Exception) as info:
            rt.function(module.f)(rt.constant(1.0))
        text = "".join(__import__("traceback").format_exception(info.value))
        assert f"{path}\", line 12" in text, text
        other = [p for p in paths if p != path][0]
        assert str(other) not in text
