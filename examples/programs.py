"""The example programs that the tests, the benchmarks and the docs share: plain Python over
tensors, undecorated (wrap one in `rt.function`, or convert it with `ag.to_graph`).

    from examples import programs      # the repository's root on sys.path

The docs show their own copies as text; tests/docs/test_shared_programs.py checks that
each copy is the program here.
"""
import inspect
import linecache

import runtime as rt


def collatz_steps(n):
    """How many Collatz steps take n to 1 -- a data-dependent `while` with an `if` inside."""
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def fizzbuzz(n):
    """Prints 1..n as fizz, buzz, fizzbuzz or the number: a staged loop over staged branches
    (TensorFlow's guide's example)."""
    for i in rt.range(1, n + 1):
        if i % 15 == 0:
            rt.print("fizzbuzz")
        elif i % 3 == 0:
            rt.print("fizz")
        elif i % 5 == 0:
            rt.print("buzz")
        else:
            rt.print(i)


def fizzbuzz_counts(n):
    """Counts fizz, buzz, fizzbuzz and plain numbers in 1..n."""
    fizz = 0
    buzz = 0
    fizzbuzz = 0
    numbers = 0
    for i in rt.range(1, n + 1):
        if i % 15 == 0:
            fizzbuzz += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
        else:
            numbers += 1
    return fizz, buzz, fizzbuzz, numbers


def tanh_loop(x):
    """Squashes x with tanh until its elements sum to 1 or less: a loop on a reduction."""
    while rt.reduce_sum(x) > 1:
        x = rt.tanh(x)
    return x


def fresh_copy(fn, k: int):
    """A new function object made from `fn`'s source, its docstring starting "(variant k)"
    and filed as `<bench-NAME-k>`: its own code and its own text, so that no cache of
    conversions or traces can hit (what the benchmarks time)."""
    filename = f"<bench-{fn.__name__}-{k}>"
    source = inspect.getsource(fn).replace('"""', f'"""(variant {k}) ', 1)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"rt": rt}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[fn.__name__]
