"""What a newcomer from TensorFlow meets first, made to behave as TensorFlow does: a function
with no readable source is said to run unconverted; numpy operands of a tensor's operators
take its dtype; numpy scalars keep theirs; errors of eager ops end at the user's line."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FOR_OVER_A_TENSOR = textwrap.dedent("""
    import runtime as rt
    @rt.function
    def total(x):
        s = 0
        for v in x:
            s += v
        return s
    for _ in range(2):
        try:
            total(rt.constant([1, 2, 3]))
        except TypeError as e:
            print("ERROR", type(e).__name__, *getattr(e, "__notes__", ()))
    """)

IF_ON_A_TENSOR = textwrap.dedent("""
    import dataclasses
    import runtime as rt

    @dataclasses.dataclass
    class Box:
        v: object

    def helper(x):
        return Box(x).v
    @rt.function
    def absolute(x):
        if helper(x) > 0:
            return x
        return -x
    try:
        absolute(rt.constant(3))
    except TypeError as e:
        print("ERROR", type(e).__name__, *getattr(e, "__notes__", ()))
    """)


def _python(args, stdin=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("AUTOGRAPH_VERBOSITY", None)
    out = subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True,
                         env=env, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout, out.stderr


def test_python_c_warns_once_that_the_function_runs_unconverted_and_the_error_says_why():
    out, err = _python(["-c", FOR_OVER_A_TENSOR])
    assert err.count("autograph could not convert") == 1, err      # once, at the first call
    assert "could not convert total (<string>:3)" in err
    assert "source code could not be read" in err and "put the function in a file" in err
    assert out.count("ERROR OperatorNotAllowedInGraphError") == 2, out
    assert out.count("total was not converted by autograph (<string>:3)") == 2, out
    assert out.count("put the function in a file") == 2


def test_python_reading_stdin_warns_for_the_traced_function():
    out, err = _python(["-"], stdin=IF_ON_A_TENSOR)
    # (what it calls runs as Python, unconverted, as in TensorFlow: nothing to say of it)
    assert err.count("autograph could not convert") == 1, err
    assert "could not convert absolute (<stdin>:11)" in err
    assert "ERROR OperatorNotAllowedInGraphError" in out, out
    assert "absolute was not converted by autograph (<stdin>:" in out


def test_the_same_program_in_a_file_converts_and_warns_of_nothing(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(FOR_OVER_A_TENSOR.replace("ERROR", "NEVER") + "print(total(rt.constant([1, 2, 3])))\n")
    out, err = _python([str(script)])
    assert err == "" and out.strip() == "rt.Tensor(6, shape=(), dtype=int32)"


def test_code_made_by_exec_without_a_file_warns_but_not_a_dataclass_or_namedtuple(caplog):
    import collections
    import dataclasses
    import logging

    import autograph as ag

    namespace = {}
    exec(compile("def typed_in(x):\n    return x\n", "<string>", "exec"), namespace)
    point = dataclasses.make_dataclass("Point", ["x"])
    pair = collections.namedtuple("Pair", "a b")
    with caplog.at_level(logging.WARNING, logger="autograph"):
        for made in (point.__init__, pair.__new__, point.__eq__):
            assert ag.to_graph(made) is made
        assert not caplog.text
        for _ in range(2):
            assert ag.to_graph(namespace["typed_in"])(5) == 5
            assert ag.for_staging(namespace["typed_in"])(5) == 5
    assert caplog.text.count("could not convert typed_in (<string>:1)") == 1
