"""`autograph convert` through a subprocess, as a user runs it: converted sample programs
behave like the originals, and bad input is one line on stderr with no output file."""
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

SAMPLES = os.path.join(os.path.dirname(__file__), "samples")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_FILES = sorted(f for f in os.listdir(SAMPLES) if f.endswith(".py"))


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def convert(*args, cwd=None):
    return run("-m", "autograph", "convert", *args, cwd=cwd)


def _without_traceback(stderr: str) -> str:
    """stderr with each traceback reduced to its last line (frames name other files)."""
    out, in_traceback = [], False
    for line in stderr.splitlines():
        if line.startswith("Traceback (most recent call last):"):
            in_traceback = True
            continue
        if in_traceback and (line.startswith(" ") or not line):
            continue
        in_traceback = False
        out.append(line)
    return "\n".join(out)


def _convert_to(tmp_path, name, *extra):
    out = tmp_path / name.replace(".py", "_converted.py")
    result = convert(os.path.join(SAMPLES, name), "-o", str(out), *extra)
    assert result.returncode == 0, result.stderr
    return out, result


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_converted_script_runs_like_the_original(tmp_path, name):
    out, _ = _convert_to(tmp_path, name)
    original = run(os.path.join(SAMPLES, name))
    converted = run(str(out))
    assert converted.stdout == original.stdout
    assert converted.returncode == original.returncode
    assert _without_traceback(converted.stderr) == _without_traceback(original.stderr)
    assert original.stdout                      # the sample does something


def test_samples_exercise_exit_codes_and_exceptions():
    assert run(os.path.join(SAMPLES, "programs.py")).returncode == 3
    raised = run(os.path.join(SAMPLES, "raises.py"))
    assert raised.returncode == 1
    assert _without_traceback(raised.stderr).endswith(
        "ValueError: negative value -5 after total 4")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module            # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _load_pair(original, converted, name):
    """(original module, converted module), imported side by side."""
    sys.path.insert(0, ROOT)
    try:
        return _load(str(original), name + "_plain"), _load(str(converted), name + "_conv")
    finally:
        sys.path.remove(ROOT)
        sys.modules.pop(name + "_plain", None)
        sys.modules.pop(name + "_conv", None)


def _convert_file(tmp_path, name, text):
    """Write `text` to NAME.py, convert it; (source path, output path, output text)."""
    source = tmp_path / f"{name}.py"
    source.write_text(text)
    out = tmp_path / f"{name}_converted.py"
    result = convert(str(source), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return source, out, out.read_text()


def test_imported_converted_module_behaves_like_the_original(tmp_path):
    out, _ = _convert_to(tmp_path, "programs.py")
    plain, conv = _load_pair(os.path.join(SAMPLES, "programs.py"), out, "programs")
    assert conv.collatz.__autograph_converted__ and not hasattr(plain.collatz, "__autograph_converted__")
    for fn, args in [("collatz", (97,)), ("first_negative", ([5, -1],)), ("loop_control", (7,)),
                     ("with_exceptions", ([2, 0],)), ("logic", (0, 0, 0)), ("shapes", ([1, 2],)),
                     ("star", (1,)), ("fact", (5,))]:
        assert getattr(conv, fn)(*args) == getattr(plain, fn)(*args), fn
    assert conv.__doc__ == plain.__doc__ and conv.collatz.__doc__ == plain.collatz.__doc__
    assert conv.collatz.__annotations__ == plain.collatz.__annotations__
    assert conv.Account.balance.fget(conv.Account("a", 5)) == 5
    assert list(conv.squares(3)) == [0, 1, 4]
    assert conv.Savings("s", 120).withdraw(70) == plain.Savings("s", 120).withdraw(70)
    with pytest.raises(ValueError, match="insufficient funds for 99"):
        conv.Account("a", 1).withdraw(99)


def test_converted_module_adds_no_public_names(tmp_path):
    """`from OUT import *` and checks of a module's public names see what the original
    has: the operators are imported as `__ag__`, also inside f-strings."""
    source, out, text = _convert_file(
        tmp_path, "public", "def helper(x):\n    return x + 1\n\n\n"
                            "def describe(x):\n"
                            "    return f\"{helper(x)} {x if x else helper(2)!r:>4}\"\n")
    assert "__ag__.converted(helper)(x)" in text
    assert re.search(r"(?<![\w.])ag__\b", text) is None          # no bare `ag__` left
    plain, conv = _load_pair(source, out, "public")

    def public(module):
        return {name for name in vars(module) if not name.startswith("_")}
    assert public(conv) == public(plain) == {"helper", "describe"}
    assert conv.describe(3) == plain.describe(3) and conv.describe(0) == plain.describe(0)


def test_output_keeps_what_is_not_a_function(tmp_path):
    out, _ = _convert_to(tmp_path, "programs.py")
    text = out.read_text()
    lines = text.splitlines()
    assert lines[0].startswith('"""Sample program')                  # docstring stays first
    assert lines.index("from __future__ import annotations") < lines.index(
        "from autograph import operators as __ag__")
    assert "@traced\n@__ag_converted__\ndef fib(n):" in text              # decorators kept
    assert "    @property\n    @__ag_converted__\n    def balance(self):" in text
    assert "ag__.while_stmt(" in text and "ag__.for_stmt(" in text      # really converted
    assert 'if __name__ == "__main__":\n    sys.exit(main())' in text
    assert "COUNTER = 0" in text and "@dataclass\nclass Point:" in text


def test_unconverted_functions_get_a_comment_and_the_summary_counts_them(tmp_path):
    out, result = _convert_to(tmp_path, "programs.py")
    text = out.read_text()
    assert ("# autograph: not converted: generator function\n@__ag__.do_not_convert\n"
            "def squares(n):\n    for i in range(n):\n        yield i * i\n") in text
    assert "# autograph: not converted: async def\n@__ag__.do_not_convert\nasync def later():" in text
    assert re.search(r"programs\.py:\d+: squares not converted: generator function", result.stderr)
    summary = result.stderr.strip().splitlines()[-1]
    assert summary.endswith("programs.py: converted 21 functions, skipped 2")


def test_function_filter_converts_only_the_named_functions(tmp_path):
    out, result = _convert_to(tmp_path, "programs.py", "--function", "collatz",
                              "Account.withdraw")
    text = out.read_text()
    assert text.count("@__ag_converted__") == 2
    assert "@__ag_converted__\ndef collatz(" in text
    assert "    @__ag_converted__\n    def withdraw(self, amount):\n        def if_true" not in text
    assert re.search(r"@__ag_converted__\n    def withdraw\(self, amount\):", text)
    assert "    def withdraw(self, amount):\n        while amount > 50:" in text   # Savings'
    assert "def first_negative(xs):\n    for i, x in enumerate(xs):\n        if x < 0:" in text
    assert result.stderr.strip().endswith("converted 2 functions, skipped 0")
    assert run(str(out)).stdout == run(os.path.join(SAMPLES, "programs.py")).stdout


def test_function_filter_repeated_flag_and_bare_method_name(tmp_path):
    out, result = _convert_to(tmp_path, "programs.py", "--function", "collatz",
                              "--function", "withdraw")
    assert out.read_text().count("@__ag_converted__") == 3     # collatz, both withdraws
    assert result.stderr.strip().endswith("converted 3 functions, skipped 0")


def test_stdout_when_no_output_file():
    result = convert(os.path.join(SAMPLES, "shadowing.py"))
    assert result.returncode == 0
    assert result.stdout.startswith('"""A module that shadows')
    assert "def use_range(n):" in result.stdout
    compile(result.stdout, "<stdout>", "exec")
    assert result.stderr.strip() == (
        f"autograph: {os.path.join(SAMPLES, 'shadowing.py')}: converted 6 functions, skipped 0")


def test_quiet_has_no_summary(tmp_path):
    result = convert(os.path.join(SAMPLES, "shadowing.py"), "-q", "-o", str(tmp_path / "o.py"))
    assert result.returncode == 0 and result.stderr == ""


def test_shadowed_builtins_are_not_treated_as_builtins(tmp_path):
    out, _ = _convert_to(tmp_path, "shadowing.py")
    text = out.read_text()
    assert "ag__.range_" not in text and "ag__.enumerate_" not in text
    assert "ag__.converted(len)(xs)" in text


# --- bad input: one line on stderr, non-zero exit, no traceback, no output file ----------

def _bad(tmp_path, *args, expect):
    out = tmp_path / "out.py"
    result = convert(*args, "-o", str(out), cwd=tmp_path)
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert re.search(expect, lines[0]), lines[0]
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".autograph")] == []
    return lines[0]


def test_missing_file(tmp_path):
    _bad(tmp_path, "nope.py", expect=r"^autograph: error: nope\.py: no such file$")


def test_directory(tmp_path):
    (tmp_path / "pkg").mkdir()
    _bad(tmp_path, "pkg", expect=r"pkg: is a directory")


def test_syntax_error_names_file_and_line(tmp_path):
    (tmp_path / "broken.py").write_text("x = 1\n\ndef f(:\n    pass\n")
    _bad(tmp_path, "broken.py", expect=r"^autograph: error: broken\.py:3: syntax error: ")


def test_undecodable_file_names_the_line(tmp_path):
    (tmp_path / "bytes.py").write_bytes(b"def f():\n    return 1\nx = '\xff\xfe'\n")
    _bad(tmp_path, "bytes.py",
         expect=r"bytes\.py:3: not a Python source file: cannot decode it as utf-8")


def test_unknown_encoding_cookie(tmp_path):
    (tmp_path / "cookie.py").write_bytes(b"# -*- coding: klingon -*-\ndef f():\n    pass\n")
    _bad(tmp_path, "cookie.py",
         expect=r"cookie\.py: not a Python source file \(unknown encoding: klingon\)")


def test_null_bytes(tmp_path):
    (tmp_path / "nul.py").write_bytes(b"def f():\n    return '\x00'\n")
    _bad(tmp_path, "nul.py", expect=r"nul\.py: not a Python source file \(it holds binary data\)")


def test_binary_file(tmp_path):
    (tmp_path / "image.py").write_bytes(bytes(range(256)) * 4)
    _bad(tmp_path, "image.py",
         expect=r"^autograph: error: image\.py: not a Python source file \(it holds binary data\)$")


def test_dash_reads_stdin(tmp_path):
    source = "def f(x):\n    if x > 0:\n        x = -x\n    return x\n\nprint(f(3))\n"
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-m", "autograph", "convert", "-"], input=source,
                            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "if_stmt" in result.stdout and "<stdin>" in result.stderr
    out = tmp_path / "converted.py"
    out.write_text(result.stdout)
    ran = run(str(out))
    assert ran.stdout == "-3\n", ran.stderr


def test_empty_file(tmp_path):
    (tmp_path / "empty.py").write_text("")
    _bad(tmp_path, "empty.py", expect=r"empty\.py: the file is empty; nothing to convert")


def test_file_without_functions(tmp_path):
    (tmp_path / "data.py").write_text("# just data\nX = [1, 2]\n")
    _bad(tmp_path, "data.py", expect=r"data\.py: no functions or methods; nothing to convert")


def test_function_naming_nothing(tmp_path):
    shutil.copy(os.path.join(SAMPLES, "shadowing.py"), tmp_path / "s.py")
    _bad(tmp_path, "s.py", "--function", "use_range", "missing", "Nope.f",
         expect=r"s\.py: no function named Nope\.f, missing$")


def test_function_flag_without_names(tmp_path):
    shutil.copy(os.path.join(SAMPLES, "shadowing.py"), tmp_path / "s.py")
    line = _bad(tmp_path, "s.py", "--function", expect=r"--function: expected at least one")
    assert line.startswith("autograph convert: error:")


def test_failed_conversion_leaves_an_existing_output_untouched(tmp_path):
    out = tmp_path / "out.py"
    out.write_text("previous\n")
    (tmp_path / "broken.py").write_text("def f(:\n")
    result = convert("broken.py", "-o", str(out), cwd=tmp_path)
    assert result.returncode == 1 and out.read_text() == "previous\n"


def test_output_into_missing_directory(tmp_path):
    result = convert(os.path.join(SAMPLES, "shadowing.py"), "-o",
                     str(tmp_path / "no" / "such" / "out.py"))
    assert result.returncode == 1 and "does not exist" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# --- help and version -------------------------------------------------------------------

def test_help_explains_the_command():
    top = run("-m", "autograph", "--help")
    assert top.returncode == 0 and "convert" in top.stdout
    sub = run("-m", "autograph", "convert", "--help")
    assert sub.returncode == 0
    for word in ("FILE.py", "-o OUT.py", "--function NAME", "runs on its own", "generators"):
        assert word in " ".join(sub.stdout.split()), word


def test_version():
    from autograph.cli import version
    result = run("-m", "autograph", "--version")
    assert result.returncode == 0 and result.stdout.strip() == f"autograph {version()}"
    assert re.fullmatch(r"autograph \d+\.\d+\.\d+", result.stdout.strip())


def test_no_command_prints_help_and_fails():
    result = run("-m", "autograph")
    assert result.returncode == 2 and "convert" in result.stderr


@pytest.mark.skipif(shutil.which("autograph") is None, reason="console script not installed")
def test_console_script(tmp_path):
    result = subprocess.run(["autograph", "convert", os.path.join(SAMPLES, "shadowing.py"),
                             "-o", str(tmp_path / "o.py")], capture_output=True, text=True)
    assert result.returncode == 0 and (tmp_path / "o.py").exists()


# --- layouts met in the standard library (in process: fast) --------------------------------

def _convert_text(source, **kwargs):
    from autograph.module_converter import convert_source
    return convert_source(source, "layout.py", **kwargs)


def _exec(text):
    namespace = {"__name__": "layout"}
    exec(compile(text, "layout.py", "exec"), namespace)
    return namespace


def test_functions_in_try_except_else_stay_in_their_branches():
    source = ("try:\n    import no_such_module_x\nexcept ImportError:\n"
              "    def pick(x):\n        if x:\n            return 'fallback'\n        return ''\n"
              "else:\n    def pick(x):\n        return 'module'\n"
              "finally:\n    def done():\n        return 1\n")
    text, report = _convert_text(source)
    assert report.converted == ["pick", "pick", "done"]
    namespace = _exec(text)
    assert namespace["pick"](1) == "fallback" and namespace["done"]() == 1


def test_last_line_without_newline_and_crlf():
    text, _ = _convert_text("x = 1\r\ndef f(a):\r\n    if a:\r\n        return x\r\n    return 0")
    assert _exec(text)["f"](1) == 1


def test_one_line_def_and_docstring_on_the_def_line():
    text, _ = _convert_text('def f(a): return a if a else -1\ndef g(): "doc"; return 2\n')
    namespace = _exec(text)
    assert namespace["f"](0) == -1 and namespace["g"]() == 2 and namespace["g"].__doc__ == "doc"


def test_errors_only_compile_finds_are_syntax_errors_of_the_original():
    from autograph.module_converter import SourceError
    with pytest.raises(SourceError, match=r"layout\.py:2: syntax error: from __future__"):
        _convert_text("import os\nfrom __future__ import annotations\ndef f():\n    pass\n")


def test_module_without_docstring_gets_the_prelude_first():
    text, _ = _convert_text("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport os\n"
                            "def f():\n    return os.sep\n")
    assert text.splitlines()[:3] == ["#!/usr/bin/env python", "# -*- coding: utf-8 -*-",
                                     "from autograph import operators as __ag__"]


def test_stdout_keeps_the_file_encoding(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-m", "autograph", "convert", "-q",
                             os.path.join(SAMPLES, "latin1.py")], capture_output=True, env=env)
    assert result.returncode == 0
    assert b"Jos\xe9" in result.stdout                     # latin-1 bytes, as the cookie says
    (tmp_path / "out.py").write_bytes(result.stdout)
    assert run(str(tmp_path / "out.py")).stdout == run(os.path.join(SAMPLES, "latin1.py")).stdout


def test_library_calls_stay_plain_and_module_names_are_checked_at_run_time():
    text, _ = _convert_text("import math\nfrom os.path import join as j\n"
                            "def helper(x):\n    return x\n"
                            "def f(x):\n    if x:\n        return math.sqrt(x) + len(j('a', 'b'))\n"
                            "    return helper(x)\n")
    assert "math.sqrt(x)" in text and "__ag__.len_(j('a', 'b'))" in text
    assert "ag__.converted(helper)(x)" in text


def test_star_import_of_an_unknown_module_makes_every_name_unknown():
    text, _ = _convert_text("from somewhere_else import *\n"
                            "def f(xs):\n    for i in range(len(xs)):\n        pass\n")
    assert "ag__.range_" not in text and "ag__.converted(len)(xs)" in text


def test_functions_that_count_stack_frames_stay_as_written_and_their_callers_convert():
    source = ("import sys, warnings\n"
              "def caller_name():\n    return sys._getframe(2).f_code.co_name\n"
              "def who(x):\n    if x:\n        return caller_name()\n    return None\n"
              "def old(x):\n    if x:\n        warnings.warn('old', DeprecationWarning, stacklevel=2)\n"
              "    return x\n"
              "def unrelated(x):\n    return -x if x else x\n")
    text, report = _convert_text(source)
    reasons = {name: reason for name, _, reason in report.skipped}
    assert reasons == {"caller_name": "_getframe() looks at the call stack, which converted "
                                      "code deepens while it stages"}
    assert report.converted == ["who", "old", "unrelated"]
    # On Python values converted functions run their original bodies: the frames are
    # the original's, so the caller is found and the warning points at the caller's line.
    namespace = _exec(text + "def main():\n    return who(1)\n"
                             "def warns():\n    return old(1)\n")
    assert namespace["main"]() == "main"
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        namespace["warns"]()
    assert [w.lineno for w in caught] == [text.count("\n") + 4]


def test_prelude_goes_before_a_decorated_first_statement():
    text, _ = _convert_text("@staticmethod\ndef f(x):\n    return x\n")
    assert text.startswith("from autograph import operators as __ag__\n")
    assert "@staticmethod\n@__ag_converted__\ndef f(x):" in text


def test_a_converter_failure_keeps_the_function_with_the_reason(monkeypatch):
    from autograph import module_converter, pipeline
    real = pipeline.convert

    def failing(node, ctx):
        if node.name == "bad":
            raise RuntimeError("boom\nsecond line")
        return real(node, ctx)
    monkeypatch.setattr(module_converter.pipeline, "convert", failing)
    text, report = _convert_text("def good(x):\n    return x or 1\n\n"
                                 "def bad(x):\n    return x or 2\n")
    assert report.converted == ["good"]
    assert report.skipped == [("bad", 4, "converter error: RuntimeError: boom")]
    assert ("# autograph: not converted: converter error: RuntimeError: boom\n"
            "@__ag__.do_not_convert\ndef bad(x):\n    return x or 2\n") in text
    assert _exec(text)["bad"](0) == 2


def test_function_filter_with_a_class_name_converts_its_methods():
    text, report = _convert_text("class A:\n    def f(self):\n        return 1\n"
                                 "    class B:\n        def g(self):\n            return 2\n"
                                 "def h():\n    return 3\n", only=["A"])
    assert report.converted == ["A.f", "A.B.g"]
    text, report = _convert_text("class A:\n    def f(self):\n        return 1\n"
                                 "    class B:\n        def g(self):\n            return 2\n",
                                 only=["A.B"])
    assert report.converted == ["A.B.g"]


def test_an_internal_error_is_one_line(monkeypatch, capsys):
    from autograph import cli, module_converter

    def broken(*args, **kwargs):
        raise RuntimeError("oops")
    monkeypatch.setattr(module_converter, "convert_source", broken)
    monkeypatch.delenv("AUTOGRAPH_STRICT", raising=False)
    assert cli.main(["convert", os.path.join(SAMPLES, "shadowing.py")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: RuntimeError: oops" in err
    monkeypatch.setenv("AUTOGRAPH_STRICT", "1")
    with pytest.raises(RuntimeError):
        cli.main(["convert", os.path.join(SAMPLES, "shadowing.py")])


def test_nested_functions_are_marked_like_top_level_ones(tmp_path):
    out, _ = _convert_to(tmp_path, "nested.py")
    text = out.read_text()
    # in the converted body (under `if __ag__.staging:`; the original text follows as
    # written)
    assert "        @__ag__.do_not_convert\n        def gen():" in text
    assert "        @__ag_converted__\n        def helper(x):" in text
    assert "            def twice(self, v):" in text
    assert "@__ag_converted__\n            def twice" not in text
    assert "\n    def gen():\n        for i in range(n):" in text      # the original text
    assert run(str(out)).stderr == ""


def test_comments_in_converted_bodies_are_kept(tmp_path):
    """Comments on lines of their own stay before the statement they preceded, also when
    it moves into a generated branch or loop-body function; `#` lines inside strings
    are string content, not comments (inline comments are not kept)."""
    source, out, text = _convert_file(
        tmp_path, "commented",
        'def f(x, xs):\n'
        '    """Doc.\n\n    # inside the docstring\n    """\n'
        '    # Start with the total.\n'
        '    total = 0\n'
        '    for v in xs:\n'
        '        # Skip the negatives.\n'
        '        if v < 0:\n'
        '            continue\n'
        '        total += v\n'
        '    # Then the sign.\n'
        '    if x > 0:\n'
        '        # positive\n'
        '        y = x\n'
        '    else:\n'
        '        y = -x\n'
        '    s = """a\n# inside a string\nb"""\n'
        '    return total + y, s\n\n\n'
        'print(f(2, [1, -5, 3]), f(-1, []))\n')
    assert "__ag__.for_stmt(" in text and "__ag__.if_stmt(" in text
    comments = [line.strip() for line in text.splitlines() if line.strip().startswith("# ")]
    body_comments = ["# Start with the total.", "# Skip the negatives.", "# Then the sign.",
                     "# positive"]      # in the converted body, then in the original text
    # (the original body is the user's text, verbatim: the string's lines are as written)
    assert comments == (["# inside the docstring"] + body_comments * 2
                        + ["# inside a string"])
    assert text.count("a\\n# inside a string\\nb") == 1         # printed, in the converted body
    assert '    s = """a\n# inside a string\nb"""\n' in text       # as written
    body = text[text.index("def loop_body"):text.index("__ag__.for_stmt(")]
    assert "# Skip the negatives." in body                  # moved with its statement
    assert run(str(out)).stdout == run(str(source)).stdout
    assert run(str(source)).stdout.startswith("(6, ")


def test_graph_is_the_runtimes_command():
    result = run("-m", "autograph", "graph", "model.py:f")
    assert result.returncode == 2
    assert "python -m runtime graph FILE.py:FUNC --signature" in result.stderr
