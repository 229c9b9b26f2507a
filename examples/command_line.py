"""The command line: convert a module with `autograph convert`, use the converted module
as a drop-in replacement, and print a function's graph with `python -m runtime graph`.

    python examples/command_line.py [WORK_DIR]

Runs the same commands a user types in a shell (shown as they run).
"""
import os
import subprocess
import sys
import tempfile
import textwrap

MODULE = textwrap.dedent('''
    """A user's module: plain Python, no autograph in it."""


    def count_divisible(n, k):
        count = 0
        i = 1
        while i <= n:
            if i % k == 0:
                count += 1
            i += 1
        return count
''')

USE = textwrap.dedent('''
    import runtime as rt
    import stats          # the converted module, imported as the original was
    print("python values:", stats.count_divisible(100, 7))
    staged = rt.function(stats.count_divisible)
    print("staged:       ", int(staged(rt.constant(100), rt.constant(7))))
''')


def run(args, cwd, env):
    shown = ["python" if a == sys.executable else "'<the code above>'" if "\n" in a
             else f"'{a}'" if " " in a else a for a in args]
    print("$", " ".join(shown))
    out = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    return out


if __name__ == "__main__":
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    src, converted = os.path.join(work, "src"), os.path.join(work, "converted")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "stats.py"), "w") as f:
        f.write(MODULE)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    py = sys.executable
    out = run([py, "-m", "autograph", "convert", "src", "-o", "converted"], work, env)
    print(out.stderr.strip())
    with open(os.path.join(converted, "stats.py")) as f:
        text = f.read()
    print(f"converted/stats.py: {len(text.splitlines())} lines, "
          f"{'stages its loop' if 'while_stmt' in text else 'NOT converted'}")
    env_use = dict(env, PYTHONPATH=converted + os.pathsep + env["PYTHONPATH"])
    print(run([py, "-c", USE], work, env_use).stdout, end="")
    out = run([py, "-m", "runtime", "graph", "src/stats.py:count_divisible",
               "--signature", "int32[]; int32[]", "--format", "text"], work, env)
    print(out.stdout, end="")
