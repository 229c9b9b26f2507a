"""A module that shadows builtins the converter treats specially."""


def range(n):                      # noqa: A001
    return [n, n + 1]


def use_range(n):
    out = []
    for i in range(n):
        out.append(i)
    return out


def len(x):                        # noqa: A001
    return 42


def use_len(xs):
    if len(xs) > 10:
        return "long"
    return "short"


def use_enumerate(xs):
    pairs = []
    for i, x in enumerate(xs):
        pairs.append((i, x))
    return pairs


def enumerate(xs):                 # noqa: A001
    return [("e", x) for x in xs]


if __name__ == "__main__":
    print(use_range(5), use_len([1]), use_enumerate("ab"))
