"""Save a function with its Variables, load it in a fresh process, and call it there.

    python examples/save_and_load.py [DIRECTORY]

The saved directory holds the traced graphs and the Variables' values (`saved.json` and
`arrays.npz`); loading runs nothing from the files and needs none of this source.
"""
import os
import subprocess
import sys
import tempfile

import runtime as rt

scale = rt.Variable(2.0, name="scale")


@rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
def clipped_sum(xs):
    """Sum of scale * x over the x below 10, stopping at the first negative one."""
    total = 0.0
    for x in xs:
        if x < 0.0:
            break
        if x < 10.0:
            total += scale * x
    return total


LOADER = """
import sys
import runtime as rt
loaded = rt.saved.load(sys.argv[1])
f = loaded.signatures["serving_default"]
print("loaded:", float(f(rt.constant([1.0, 20.0, 3.0, -1.0, 5.0]))))
print("variables:", [(v.name, float(v.numpy())) for v in loaded.variables])
"""

if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "clipped_sum")
    print("here:  ", float(clipped_sum(rt.constant([1.0, 20.0, 3.0, -1.0, 5.0]))))
    rt.saved.save(clipped_sum, path)
    print("saved to", path, sorted(os.listdir(path)))
    # a fresh interpreter, which never imports this file
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", LOADER, path], capture_output=True, text=True,
                         env=env, check=True)
    print(out.stdout, end="")
