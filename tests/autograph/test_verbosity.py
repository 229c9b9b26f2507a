"""`ag.set_verbosity`: level 1 logs each conversion, level 2 also its code, each record
printed once whether or not the program configured logging (before or after)."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = textwrap.dedent("""
    import logging, sys
    import autograph as ag
    if "before" in sys.argv: logging.basicConfig()
    ag.set_verbosity(int(sys.argv[1]))
    if "after" in sys.argv: logging.basicConfig()
    def f(x):
        if x > 0:
            x = -x
        return x
    print(ag.to_graph(f)(3))
""")


def _run(tmp_path, *args):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("AUTOGRAPH_VERBOSITY", None)
    out = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "-3"
    return out.stderr


def test_level_0_says_nothing_on_success(tmp_path):
    assert _run(tmp_path, "0") == ""


def test_level_1_logs_each_conversion_once(tmp_path):
    err = _run(tmp_path, "1")
    assert err.count("converted f (") == 1 and "prog.py:7" in err
    assert "if_stmt" not in err


def test_level_2_also_logs_the_code(tmp_path):
    err = _run(tmp_path, "2")
    assert err.count("converted f (") == 1
    assert err.count("ag__.if_stmt(x > 0") == 1


def test_no_double_printing_with_basic_config(tmp_path):
    for when in ("before", "after"):
        err = _run(tmp_path, "2", when)
        assert err.count("converted f (") == 1, when
        assert err.count("ag__.if_stmt(x > 0") == 1, when
        assert "INFO:autograph:" in err, when        # through the program's handler
