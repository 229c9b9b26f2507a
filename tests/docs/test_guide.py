"""docs/guide.md runs: its `python` blocks in order as one program (in a child process,
so that its output is the program's own), each `text` block that follows a `python`
block being what that block prints."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUIDE = os.path.join(ROOT, "docs", "guide.md")
MARK = "=== guide block {} ==="


def _blocks():
    with open(GUIDE) as f:
        text = f.read()
    found = re.findall(r"```(\w+)\n(.*?)```", text, re.S)
    blocks = []
    for kind, body in found:
        if kind == "python":
            blocks.append([body, None])
        elif kind == "text" and blocks and blocks[-1][1] is None:
            blocks[-1][1] = body
    return blocks


def test_the_guide_runs_and_prints_what_it_says(tmp_path):
    blocks = _blocks()
    assert len(blocks) >= 10
    program = []
    for i, (code, _) in enumerate(blocks):
        program.append(f"print({MARK.format(i)!r}, flush=True)\n{code}")
    script = tmp_path / "guide.py"
    script.write_text("".join(program))
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("AUTOGRAPH_VERBOSITY", None)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr
    printed = out.stdout.split("\n")
    sections, current = {}, None
    for line in printed:
        m = re.fullmatch(r"=== guide block (\d+) ===", line)
        if m:
            current = int(m.group(1))
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    for i, (code, expected) in enumerate(blocks):
        if expected is None:
            continue
        got = "\n".join(sections[i]).rstrip("\n") + "\n"
        assert got == expected, f"block {i}:\n{code}"
