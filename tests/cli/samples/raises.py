# A script that ends with an uncaught exception.
import sys


def check(values):
    total = 0
    for v in values:
        if v < 0:
            raise ValueError(f"negative value {v} after total {total}")
        total += v
    return total


print(check([1, 2, 3]))
print("to stderr", file=sys.stderr)
check([4, -5])
