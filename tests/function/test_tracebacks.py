"""Errors from rt.function show the user's frames: the runtime's and autograph's hidden
(as TensorFlow filters its own), all of them with rt.debugging.disable_traceback_filtering()."""
import logging
import logging.handlers
import os
import sys
import traceback

import pytest

import runtime as rt

HIDDEN = (os.path.dirname(os.path.abspath(rt.__file__)),
          os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(rt.__file__))), "autograph"))


def helper(v):
    return v[10]


@rt.function
def staged_branch(x):
    if x > 0:
        y = helper([1, 2])
    else:
        y = x
    return y


@rt.function
def bad_matmul(x):
    total = x
    for _ in range(2):
        total = rt.matmul(total, rt.ones([3, 3]))
    return total


def frames(e):
    got = traceback.extract_tb(e.__traceback__)
    if sys.version_info < (3, 11) and rt.debugging.is_traceback_filtering_enabled():
        # Before 3.11 a re-raised exception keeps the frame that re-raises it (the filter
        # can drop every other one): rt.function's own call, right after the caller's.
        ours = [f for f in got if f.filename.startswith(HIDDEN)]
        assert [(f.name, os.path.basename(f.filename)) for f in ours] == [
            ("__call__", "function.py")], ours
        got = [f for f in got if not f.filename.startswith(HIDDEN)]
    return got


def test_an_error_in_a_staged_branch_lists_the_users_frames_only():
    with pytest.raises(IndexError) as info:
        staged_branch(rt.constant(1.0))
    got = frames(info.value)
    assert not [f for f in got if f.filename.startswith(HIDDEN)]
    # (rt.function traces the converted body alone, so no frame calls it; see
    # ag.for_staging)
    assert [(f.name, f.line) for f in got[1:]] == [
        ("staged_branch", "if x > 0:"), ("staged_branch", "y = helper([1, 2])"),
        ("helper", "return v[10]")]


def test_an_op_error_ends_at_the_users_call():
    with pytest.raises(Exception) as info:
        bad_matmul(rt.ones([2, 2]))
    got = frames(info.value)
    assert not [f for f in got if f.filename.startswith(HIDDEN)]
    assert got[-1].line == "total = rt.matmul(total, rt.ones([3, 3]))"


def test_the_switch_shows_every_frame():
    rt.debugging.disable_traceback_filtering()
    try:
        assert not rt.debugging.is_traceback_filtering_enabled()
        with pytest.raises(IndexError) as info:
            staged_branch(rt.constant(2.0))
        assert [f for f in frames(info.value) if f.filename.startswith(HIDDEN)]
    finally:
        rt.debugging.enable_traceback_filtering()
    assert rt.debugging.is_traceback_filtering_enabled()


def test_the_environment_variable_shows_every_frame(tmp_path):
    import os
    import subprocess
    import sys
    script = tmp_path / "bad.py"
    script.write_text("import runtime as rt\n\n@rt.function\ndef f(x, w):\n"
                      "    return rt.matmul(x, w)\n\nf(rt.ones([2, 3]), rt.ones([4, 5]))\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    runtime_dir = os.path.join(root, "runtime")
    shown = {}
    for value in ("on", "off"):
        env = dict(os.environ, PYTHONPATH=root, RUNTIME_TRACEBACK_FILTERING=value)
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                             env=env, timeout=120)
        assert "Matrix size-incompatible" in out.stderr
        shown[value] = [line.strip() for line in out.stderr.splitlines()
                        if line.strip().startswith(f'File "{runtime_dir}')]
    # Python 3.10 prints a re-raised error with the traceback it had when caught: the
    # frame of rt.function's __call__, which filters and re-raises, stays (3.11 on print
    # the filtered one)
    kept = [] if sys.version_info >= (3, 11) else [
        f for f in shown["on"] if f.startswith(f'File "{os.path.join(runtime_dir, "function.py")}"')
        and f.endswith("in __call__")]
    assert shown["on"] == kept
    assert len(shown["off"]) > len(kept) + 3


def test_logging_while_tracing_names_the_users_function():
    logger = logging.getLogger("test_tracebacks")
    handler = logging.handlers.BufferingHandler(100)
    logger.addHandler(handler)

    @rt.function
    def traced(x):
        if x > 0:
            logger.warning("positive branch traced")
            y = x
        else:
            y = -x
        return y
    try:
        assert float(traced(rt.constant(3.0))) == 3.0
    finally:
        logger.removeHandler(handler)
    [record] = handler.buffer
    assert record.funcName == "traced"
    assert record.lineno == traced.python_function.__code__.co_firstlineno + 3
