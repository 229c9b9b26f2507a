"""Random small programs with nested if/while/for, break/continue/return, and/or/not:
a generator of differential test cases for constructs combined in unforeseen ways.

Every program terminates (each `while` has its own bounded counter) and keeps its
integers small (`% 97`), so the same program runs as Python, converted, and staged.
"""
import random

VARS = ["a", "b", "c"]
# State that is not a local name (composite=True): attributes, items with fixed keys, a global.
PLACES = ["o.v", "o.w", 'd2["k"]', 'd2["j"]', "l2[0]", "l2[1]", "G"]
# Module-level code of a composite program: a tiny class and the global counter.
COMPOSITE_PRELUDE = """\
class O:
    def __init__(self):
        self.v = 0
        self.w = 1


G = 0


"""


class Generator:
    """`python=True` adds constructs that only Python values support (try/except,
    `with`, lists, lambdas, nested functions, comprehensions, walrus): those programs
    are checked plain against converted, not staged.

    `composite=True` adds state that is not a local name, read in conditions and
    expressions and written (plainly and augmented) anywhere: an object `o` with
    attributes `o.v`, `o.w` (a class of the module), a dict `d2` and a list `l2` with
    fixed keys, and the module's global `G` (declared `global`, reset on entry); plus
    lambdas called at once that read locals (loop variables become cells). The result
    folds them all in. `lists=True` appends to a Python list `out` (returned as the
    second result): staged lists, so for the runtime only. Programs of the default
    options are the same as before these options existed (the rng draws are unchanged).
    """

    def __init__(self, seed: int, python: bool = False, composite: bool = False,
                 lists: bool = False):
        self.rng = random.Random(seed)
        self.python = python
        self.composite = composite
        self.lists = lists
        self.loops = 0
        self.lines: list = []
        self.places = PLACES if composite else []

    def expr(self):
        r = self.rng
        v = r.choice(VARS + ["x", "n"] + self.places)
        kind = r.randrange(4)
        if kind == 0:
            return f"({v} + {r.randrange(1, 9)}) % 97"
        if kind == 1:
            return f"({v} * {r.choice(VARS + ['x'] + self.places)} + {r.randrange(5)}) % 97"
        if kind == 2:
            return f"({v} - {r.choice(VARS + self.places)}) % 97"
        return str(r.randrange(20))

    def cond(self, depth=0):
        r = self.rng
        kind = r.randrange(6 if depth < 1 else 3)
        if kind == 0:
            return f"{r.choice(VARS + ['x'] + self.places)} > {r.randrange(40)}"
        if kind == 1:
            return f"{r.choice(VARS + self.places)} % {r.randrange(2, 5)} == 0"
        if kind == 2:
            return f"{r.choice(VARS + self.places)} < {r.choice(VARS + ['x', 'n'] + self.places)}"
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
        if self.composite:
            choices += ["place", "place", "place_aug", "place_aug", "place_ifexp", "call_lambda"]
        if self.lists:
            choices += ["list_append"]
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
            bound = "n"
            if self.composite and r.random() < 0.3:    # a bound read from composite state
                bound = f"{r.choice(self.places)} % 5"
            self.lines.append(f"{pad}for i{self.loops} in range({bound}):")
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
            self.lines.append(f"{pad}    return {self.expr()}{', out' if self.lists else ''}")
        elif kind in ("place", "place_aug", "place_ifexp", "call_lambda", "list_append"):
            self.composite_stmt(kind, pad)
        else:
            self.python_stmt(kind, pad, indent, depth, in_loop)

    def composite_stmt(self, kind, pad):
        r = self.rng
        target = r.choice(self.places) if self.places else None
        if kind == "place":
            self.lines.append(f"{pad}{target} = {self.expr()}")
        elif kind == "place_ifexp":
            self.lines.append(f"{pad}{target} = {self.expr()} if {self.cond()} else {self.expr()}")
        elif kind == "place_aug":
            op = r.randrange(3)
            if op == 0:
                self.lines.append(f"{pad}{target} += {r.randrange(1, 6)}")
            elif op == 1:
                self.lines.append(f"{pad}{target} = ({target} + {self.expr()}) % 97")
            else:
                self.lines.append(f"{pad}{target} %= {r.randrange(5, 40)}")
        elif kind == "call_lambda":       # a lambda reading locals and places
            read = r.choice(VARS + self.places)
            self.lines.append(f"{pad}{r.choice(VARS)} = (lambda: ({r.choice(VARS)} + {read}) % 97)()")
        else:
            self.lines.append(f"{pad}out.append({self.expr()})")

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
        if self.composite:
            self.lines += ["    global G", "    G = 0", "    o = O()",
                           '    d2 = {"k": 0, "j": 1}', "    l2 = [0, 0]"]
        if self.python or self.lists:
            self.lines += ["    out = []"]
        if self.python:
            self.lines += ["    fns = []"]
        self.block(1, 0, False)
        result = "(a * 3 + b * 5 + c * 7) % 97"
        if any(line.lstrip().startswith("d = ") for line in self.lines):
            result = "(a * 3 + b * 5 + c * 7 + d) % 97"
        if self.composite:
            result = (f"({result[:-5]} + o.v + o.w * 2 + d2['k'] * 3 + d2['j'] * 4 + l2[0] * 5"
                      f" + l2[1] * 6 + G * 7) % 97")
        if self.python:
            result = f"{result}, out, [f() for f in fns]"
        elif self.lists:
            result = f"{result}, out"
        self.lines.append(f"    return {result}")
        source = "\n".join(self.lines) + "\n"
        return COMPOSITE_PRELUDE + source if self.composite else source


def make(seed: int, python: bool = False, composite: bool = False, lists: bool = False):
    """(source, function) of random program number `seed`, defined in a registered file
    so that autograph can read its source."""
    import linecache
    tag = "".join(f"{option}_" for option, on in
                  (("python", python), ("composite", composite), ("lists", lists)) if on)
    name = f"random_{tag}program_{seed}"
    source = Generator(seed, python, composite, lists).program(name)
    filename = f"<{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"contextlib": __import__("contextlib")}
    exec(compile(source, filename, "exec"), namespace)
    return source, namespace[name]
