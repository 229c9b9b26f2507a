"""Functions whose line events (sys.settrace) the converted ones must repeat
(test_python_fidelity)."""
import functools


def _deco(f):
    return f


@_deco
@functools.lru_cache(maxsize=None)
def decorated(x):
    y = x + 1
    return y


def falls_off_a_loop(xs):
    total = 0
    for x in xs:
        if x > 1:
            total += x
    print(total)


def falls_off_an_if(x):
    if x > 0:
        x = -x
    else:
        x = x * 2


def with_a_docstring(x):
    """Doc."""
    while x > 0:
        x -= 2
    return x


def returns_in_a_loop(xs):
    for i, x in enumerate(xs):
        if x == 3:
            return i
    return -1


def with_a_try(x):
    try:
        y = 1 / x
    except ZeroDivisionError:
        y = 0
    finally:
        x = None
    return y


def with_a_nested_function(x):
    def inner(y):
        return y * 2
    if x:
        x = inner(x)
    return x


def one_line(x): return x + 1


ag__entity = "the user's global"


def reads_a_global_named_like_autographs_names(x):
    if x:
        return ag__entity
    return None


def captures_builtin_names(subject):
    match subject:
        case [len]:
            return len(subject)
        case {"k": range, **rest}:
            return range(2), rest
        case object() as enumerate:
            return enumerate(subject)


def lists_its_names(x):
    y = x
    return sorted(dir())


def ranges_with_a_keyword(n):
    out = []
    for i in range(stop=n):
        out.append(i)
    return out


def enumerates_with_a_keyword(xs):
    return [i for i, _ in enumerate(xs, begin=1)]
