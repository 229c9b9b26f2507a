"""`for` loops over iterators whose calls are visible: how many times `__iter__` and
`__next__` run, what a second `next` after the end gives, when a generator is closed
(see test_iteration_fidelity.py). Python's `for` calls `iter` once and `next` until the
first StopIteration; a converted loop must do the same."""


class Counting:
    """Yields 1..n, counting calls; keeps counting (and stopping) after its end."""

    def __init__(self, n):
        self.n, self.nexts, self.iters = n, 0, 0

    def __iter__(self):
        self.iters += 1
        return self

    def __next__(self):
        self.nexts += 1
        if self.nexts > self.n:
            raise StopIteration
        return self.nexts


class Resumable:
    """Stops after each batch, then gives the next batch: not fused."""

    def __init__(self, batches):
        self.batches, self.current = [list(b) for b in batches], []

    def __iter__(self):
        return self

    def __next__(self):
        if not self.current:
            if not self.batches:
                raise StopIteration
            self.current = self.batches.pop(0)
            raise StopIteration
        return self.current.pop(0)


def counts_calls(n):
    it = Counting(n)
    total = 0
    for x in it:
        total += x
    return total, it.nexts, it.iters


def counts_calls_with_break(n):
    it = Counting(10)
    for x in it:
        if x == n:
            break
    return it.nexts, it.iters


def zip_consumes_as_python(n):
    a, b = iter(range(n + 3)), iter(range(n))
    pairs = []
    for x, y in zip(a, b):
        pairs.append(x + y)
    return pairs, list(a)


def map_consumes_as_python(n):
    src, lim = iter([1, 2, 3, 4, 5]), iter("ab"[:n])
    out = []
    for p in map(lambda s, c: (s, c), src, lim):
        out.append(p)
    return out, list(src)


def resumable_iterator(n):
    r = Resumable([[1, 2], [3]][:n])
    first = []
    for x in r:
        first.append(x)
    second = []
    for x in r:
        second.append(x)
    return first, second


def next_inside_the_body(n):
    it = iter(range(n))
    out = []
    for x in it:
        out.append((x, next(it, None)))
    return out


def generator_closed_at_break(n):
    log = []

    def g():
        try:
            for i in range(n + 10):
                yield i
        finally:
            log.append("closed")
    gen = g()
    for x in gen:
        if x == n:
            break
    log.append("after loop")
    return next(gen, "exhausted"), log


CASES = [(counts_calls, [0, 2, 5]), (counts_calls_with_break, [3, 20]),
         (zip_consumes_as_python, [0, 2]), (map_consumes_as_python, [0, 2]),
         (resumable_iterator, [1, 2]), (next_inside_the_body, [0, 5]),
         (generator_closed_at_break, [3, 1050])]
