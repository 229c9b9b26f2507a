"""More Python-semantics corpus: closures, generator expressions, try/with inside loops,
nested loops with else, chained comparisons, unpacking. Each checked plain vs converted."""
# ruff: noqa
import contextlib

def t1(xs):
    out = []
    for x in xs:
        if x > 0:
            prev = x
        else:
            out.append(prev)
    return out

def t2(n):
    i = 0
    while i < n:
        i += 1
        if i == 4:
            return 'four'
    else:
        return 'done'

def t3(xs):
    a = b = 0
    for x in xs:
        a = b = a + x
    return a, b

def t4(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

def t5(xs):
    arr = [0] * 3
    for i in range(len(xs)):
        arr[xs[i] % 3] += 1
    return arr

def t6(x):
    if 0 < x < 10:
        return 'in'
    return 'out'

def t7(x):
    if x:
        pass
    for i in range(x):
        pass
    while False:
        pass
    return x

def t8(n):
    i = 0
    while True:
        i += 1
        if i * i > n:
            return i

def t9(m):
    for row in m:
        for v in row:
            if v < 0:
                return v
    return None

def t10(n, acc=1):
    if n <= 1:
        return acc
    return t10(n - 1, acc=acc * n)

def t11(*args, **kwargs):
    def inner(*a, **k):
        return len(a) + len(k)
    return inner(*args, **kwargs) + inner(1, x=2, fn=3, f=4)

def t12(xs):
    gens = []
    for i in range(3):
        gens.append(sum(x * i for x in xs))
    lazy = []
    for i in range(3):
        lazy.append(x * i for x in xs)
    return gens, [list(g) for g in lazy]

def t13(x):
    try:
        if x > 0:
            return 1 / x
        return -1
    except ZeroDivisionError:
        return 'zde'

def t14(x):
    if x > 0:
        try:
            return 10 // x
        except ZeroDivisionError:
            return None
    else:
        return 0

def t15(xs):
    total = 0
    for x in xs:
        with contextlib.nullcontext():
            if x % 2:
                total += x
    return total

def t16(x):
    if x:
        import json
        y = json.dumps(x)
    else:
        y = None
    return y

def t17(n):
    res = []
    i = 0
    while i < n:
        try:
            if i == 2:
                raise ValueError
            res.append(i)
        except ValueError:
            res.append('v')
            i += 1
            continue
        i += 1
    return res

def t18(d):
    out = {}
    for k in d:
        v = d[k]
        if isinstance(v, int) and v > 1 or k == 'z':
            out[k] = v
    return out

def t19(n):
    x = 0
    for i in range(n):
        for j in range(i):
            if j == 2:
                break
            x += j
        else:
            x += 100
    return x

def t20(s):
    vowels = 0
    i = 0
    while i < len(s):
        c = s[i]
        i += 1
        if c not in 'aeiou':
            continue
        vowels += 1
    return vowels, i

def t21(n):
    k = 0
    for k in range(n):
        pass
    else:
        k += 1
    return k

def t22(x):
    y = [x]
    def get():
        return y[0]
    if x > 0:
        y[0] = x * 2
    return get()

def t23(x):
    f = None
    if x:
        def f():
            return 'defined'
    return f() if f else 'none'

def t24(n):
    out = []
    for i in range(n):
        def g(i=i):
            return i * 2
        out.append(g())
    return out

def t25(x):
    class K:
        def m(self):
            return x + 1
    if x > 0:
        return K().m()
    return 0

def t26(n):
    total = 0
    for i in range(n):
        if i % 2 == 0:
            if i % 4 == 0:
                continue
            total += 1
        elif i > 5:
            break
        total += 10
    return total

def t27(x):
    while x > 0:
        x -= 1
        if x == 5:
            break
    else:
        return 'no break'
    return x

def t28(xs):
    it = iter(xs)
    first = next(it, None)
    for x in it:
        if x == first:
            break
    return list(it)

def t29(n):
    (a, b), c = (1, 2), 3
    for i in range(n):
        (a, b), c = (b, c), a + b + c
    return a, b, c

def t30(x, y):
    return not x == y, not (x and y), x or y and not x


PY = [
    (t1, [([1, -1, 2, -3],), ([-1],)]), (t2, [(3,), (10,)]), (t3, [([1, 2, 3],)]),
    (t4, [(10,)]), (t5, [([1, 2, 3, 4, 5],)]), (t6, [(5,), (11,)]), (t7, [(3,)]), (t8, [(10,)]),
    (t9, [([[1, 2], [3, -4]],), ([[1]],)]), (t10, [(5,)]), (t11, [(1, 2, 3)]), (t12, [([1, 2],)]),
    (t13, [(2,), (0,), (-1,)]), (t14, [(2,), (-1,)]), (t15, [([1, 2, 3],)]), (t16, [(3,), (0,)]),
    (t17, [(5,)]), (t18, [({'a': 2, 'b': 'x', 'z': 0},)]), (t19, [(6,)]), (t20, [('banana',)]),
    (t21, [(3,), (0,)]), (t22, [(3,), (-1,)]), (t23, [(1,), (0,)]), (t24, [(3,)]),
    (t25, [(1,), (-1,)]), (t26, [(12,)]), (t27, [(10,), (3,)]), (t28, [([1, 2, 1, 3],)]),
    (t29, [(4,)]), (t30, [(1, 1), (0, 2), (3, 0)]),
]


def t31(cmd):
    match cmd:
        case [x, y] if x > 0:
            if y > 0:
                r = x + y
            else:
                r = x - y
        case {'k': v, **rest}:
            r = (v, sorted(rest))
        case str() as s:
            r = s.upper()
        case _:
            r = None
    total = 0
    for i in range(3):
        total += i
    return r, total


def t32(xs):
    i = 0
    for x in xs:
        match x:
            case 0:
                break
            case _:
                i += x
    return i


PY += [(t31, [([1, 2],), ([3, -1],), ({'k': 1, 'a': 2},), ('hi',), (5,)]), (t32, [([1, 2, 0, 5],)])]


class _Private:
    def __init__(self):
        self.__count = 0

    def bump(self, n):
        for i in range(n):
            if i % 2:
                self.__count += i
        return self.__count


def t33(n):
    return _Private().bump(n)


PY += [(t33, [(5,)])]
