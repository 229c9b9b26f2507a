# Nested functions, generators and classes inside converted functions: calling them from
# converted code must neither convert them again nor warn on stderr.


def outer(n):
    def gen():
        for i in range(n):
            yield i

    def helper(x):
        if x > 1:
            return x * 2
        return x

    class Local:
        def twice(self, v):
            if v:
                return v * 2
            return 0

        def values(self):
            yield from range(2)

    pick = lambda v: v if v % 2 else -v    # noqa: E731
    return [helper(v) for v in gen()], Local().twice(n), list(Local().values()), pick(n)


print(outer(3), outer(0))
