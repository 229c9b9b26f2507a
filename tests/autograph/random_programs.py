"""Random small programs with nested if/while/for, break/continue/return, and/or/not:
a generator of differential test cases for constructs combined in unforeseen ways.

Every program terminates (each `while` has its own bounded counter) and keeps its
integers small (`% 97`), so the same program runs as Python, converted, and staged.
"""
import random

VARS = ["a", "b", "c"]


class Generator:
    """`python=True` adds constructs that only Python values support (try/except,
    `with`, lists, lambdas, nested functions, comprehensions, walrus): those programs
    are checked plain against converted, not staged."""

    def __init__(self, seed: int, python: bool = False):
        self.rng = random.Random(seed)
        self.python = python
        self.loops = 0
        self.lines: list = []

    def expr(self):
        r = self.rng
        v = r.choice(VARS + ["x", "n"])
        kind = r.randrange(4)
        if kind == 0:
            return f"({v} + {r.randrange(1, 9)}) % 97"
        if kind == 1:
            return f"({v} * {r.choice(VARS + ['x'])} + {r.randrange(5)}) % 97"
        if kind == 2:
            return f"({v} - {r.choice(VARS)}) % 97"
        return str(r.randrange(20))

    def cond(self, depth=0):
        r = self.rng
        kind = r.randrange(6 if depth < 1 else 3)
        if kind == 0:
            return f"{r.choice(VARS + ['x'])} > {r.randrange(40)}"
        if kind == 1:
            return f"{r.choice(VARS)} % {r.randrange(2, 5)} == 0"
        if kind == 2:
            return f"{r.choice(VARS)} < {r.choice(VARS + ['x', 'n'])}"
        if kind == 3:
            return f"{self.cond(depth + 1)} and {self.cond(depth + 1)}"
        if kind == 4:
            return f"{self.cond(depth + 1)} or {self.cond(depth + 1)}"
        return f"not ({self.cond(depth + 1)})"

    def block(self, indent, depth, in_loop):
        for _ in range(self.rng.randrange(1, 4)):
            self.stmt(indent, depth, in_loop)

    def stmt(self, indent, depth, in_loop):
        r = self.rng
        pad = "    " * indent
        choices = ["assign", "assign", "ifexp", "assign_d"]
        if depth < 3:
            choices += ["if", "if", "while", "for"]
        if in_loop:
            choices += ["break", "continue"]
        choices += ["return"]
        if self.python:
            choices += ["try", "with", "append", "lambda", "nested_def", "comprehension",
                        "walrus", "divide"]
        kind = r.choice(choices)
        if kind == "assign":
            self.lines.append(f"{pad}{r.choice(VARS)} = {self.expr()}")
        elif kind == "assign_d":          # `d` is assigned on some paths only
            self.lines.append(f"{pad}d = {self.expr()}")
        elif kind == "ifexp":
            self.lines.append(f"{pad}{r.choice(VARS)} = {self.expr()} if {self.cond()} else {self.expr()}")
        elif kind == "if":
            self.lines.append(f"{pad}if {self.cond()}:")
            self.block(indent + 1, depth + 1, in_loop)
            if r.random() < 0.5:
                self.lines.append(f"{pad}else:")
                self.block(indent + 1, depth + 1, in_loop)
        elif kind == "while":
            self.loops += 1
            k = f"k{self.loops}"
            self.lines.append(f"{pad}{k} = 0")
            self.lines.append(f"{pad}while {k} < n and {self.cond(1)}:")
            self.lines.append(f"{pad}    {k} += 1")
            self.block(indent + 1, depth + 1, True)
            if r.random() < 0.3:
                self.lines.append(f"{pad}else:")
                self.lines.append(f"{pad}    {r.choice(VARS)} = {self.expr()}")
        elif kind == "for":
            self.loops += 1
            self.lines.append(f"{pad}for i{self.loops} in range(n):")
            self.lines.append(f"{pad}    {r.choice(VARS)} = (a + i{self.loops}) % 97")
            self.block(indent + 1, depth + 1, True)
            if r.random() < 0.3:
                self.lines.append(f"{pad}else:")
                self.lines.append(f"{pad}    {r.choice(VARS)} = {self.expr()}")
        elif kind == "break":
            self.lines.append(f"{pad}if {self.cond()}:")
            self.lines.append(f"{pad}    break")
        elif kind == "continue":
            self.lines.append(f"{pad}if {self.cond()}:")
            self.lines.append(f"{pad}    continue")
        elif kind == "return":
            self.lines.append(f"{pad}if {self.cond()}:")
            self.lines.append(f"{pad}    return {self.expr()}")
        else:
            self.python_stmt(kind, pad, indent, depth, in_loop)

    def python_stmt(self, kind, pad, indent, depth, in_loop):
        r = self.rng
        v = r.choice(VARS)
        if kind == "try":
            self.lines.append(f"{pad}try:")
            self.lines.append(f"{pad}    {v} = (a * 7) // ({r.choice(VARS)} % 3)")
            self.block(indent + 1, depth + 1, in_loop)
            self.lines.append(f"{pad}except ZeroDivisionError:")
            self.lines.append(f"{pad}    out.append({r.choice(VARS)})")
            if r.random() < 0.5:
                self.lines.append(f"{pad}finally:")
                self.lines.append(f"{pad}    out.append(-{r.choice(VARS)})")
        elif kind == "with":
            manager = r.choice(["contextlib.suppress(ZeroDivisionError)", "contextlib.nullcontext()"])
            self.lines.append(f"{pad}with {manager}:")
            self.lines.append(f"{pad}    {v} = (b * 5) // ({r.choice(VARS)} % 2)")
            self.block(indent + 1, depth + 1, in_loop)
        elif kind == "append":
            self.lines.append(f"{pad}out.append({self.expr()})")
        elif kind == "lambda":
            self.lines.append(f"{pad}fns.append(lambda: {r.choice(VARS)})")
        elif kind == "nested_def":
            self.lines.append(f"{pad}def g(v):")
            self.lines.append(f"{pad}    return (v + {r.choice(VARS)}) % 97")
            self.lines.append(f"{pad}{v} = g({r.choice(VARS)})")
        elif kind == "comprehension":
            self.lines.append(f"{pad}{v} = sum(w * {r.choice(VARS)} for w in range(n) if w % 2) % 97")
        elif kind == "walrus":
            self.lines.append(f"{pad}if (d := {self.expr()}) > 20:")
            self.lines.append(f"{pad}    {v} = d")
        else:
            self.lines.append(f"{pad}{v} = {r.choice(VARS)} // ({self.expr()} % 4)")

    def program(self, name):
        self.lines = [f"def {name}(x, n):", "    a = x", "    b = 1", "    c = 0"]
        if self.python:
            self.lines += ["    out = []", "    fns = []"]
        self.block(1, 0, False)
        result = "(a * 3 + b * 5 + c * 7) % 97"
        if any(line.lstrip().startswith("d = ") for line in self.lines):
            result = "(a * 3 + b * 5 + c * 7 + d) % 97"
        if self.python:
            result = f"{result}, out, [f() for f in fns]"
        self.lines.append(f"    return {result}")
        return "\n".join(self.lines) + "\n"


def make(seed: int, python: bool = False):
    """(source, function) of random program number `seed`, defined in a registered file
    so that autograph can read its source."""
    import linecache
    name = f"random_{'python_' if python else ''}program_{seed}"
    source = Generator(seed, python).program(name)
    filename = f"<{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"contextlib": __import__("contextlib")}
    exec(compile(source, filename, "exec"), namespace)
    return source, namespace[name]
