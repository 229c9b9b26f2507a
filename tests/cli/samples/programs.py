"""Sample program for the command-line converter: control flow of every kind, run as a
script, compared line by line with its converted form."""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass

COUNTER = 0


def collatz(n: int = 27) -> int:
    """Steps to reach 1."""
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def first_negative(xs):
    for i, x in enumerate(xs):
        if x < 0:
            return i
    else:
        return None


def loop_control(n):
    out = []
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 10:
            break
        out.append(i)
    k = 0
    while True:
        k += 1
        if k >= 5:
            break
    else:
        out.append("never")
    return out, k


def bump():
    global COUNTER
    for _ in range(3):
        COUNTER += 1
    return COUNTER


def make_counter():
    count = 0

    def step(by=1):
        nonlocal count
        if by > 0:
            count += by
        return count
    return step


def with_exceptions(values):
    total = 0
    for v in values:
        try:
            total += 10 // v
        except ZeroDivisionError as e:
            total -= 1
            last = str(e)
        finally:
            total += 100
    return total, last


def logic(a, b, c=None):
    x = a and b or c
    y = not a
    z = [v for v in (a, b, c) if v and v != 2]
    assert x is not None or c is None, "message"
    return x, y, z, (lambda q: q * 2 if q else -1)(b)


def shapes(value):
    match value:
        case {"kind": "circle", "r": r}:
            return f"circle {r}"
        case [x, y]:
            return f"point {x},{y}"
        case int(n) if n > 100:
            return "big"
        case _:
            return "other"


def star(*args, sep="-", **kwargs):
    parts = [str(a) for a in args]
    for key in sorted(kwargs):
        parts.append(f"{key}={kwargs[key]}")
    return sep.join(parts)


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        result = fn(*args)
        print(f"  {fn.__name__}{args} -> {result}")
        return result
    return wrapper


@traced
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@functools.lru_cache(maxsize=None)
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def squares(n):
    for i in range(n):
        yield i * i


async def later():
    return 1


class Account:
    """An account."""

    fee = 1

    def __init__(self, owner, balance=0):
        self.owner = owner
        self.__balance = balance

    @property
    def balance(self):
        return self.__balance

    def withdraw(self, amount):
        if amount > self.__balance:
            raise ValueError(f"{self.owner}: insufficient funds for {amount}")
        self.__balance -= amount + self.fee
        return self.__balance

    @staticmethod
    def parse(text):
        owner, _, amount = text.partition(":")
        return Account(owner, int(amount) if amount else 0)

    @classmethod
    def empty(cls):
        return cls("nobody")

    def __repr__(self):
        return f"Account({self.owner!r}, {self.__balance})"


class Savings(Account):
    fee = 0

    def withdraw(self, amount):
        while amount > 50:
            super().withdraw(50)
            amount -= 50
        return super().withdraw(amount)


@dataclass
class Point:
    x: int
    y: int = 0

    def norm1(self):
        return abs(self.x) + abs(self.y)


def main():
    print(collatz(), collatz(1), first_negative([3, 1, -4]), first_negative([]))
    print(loop_control(20))
    print(bump(), bump())
    step = make_counter()
    print(step(), step(5), step(-1))
    print(with_exceptions([1, 0, 5]))
    print(logic(1, 2), logic(0, 2, 3), logic(1, 0))
    print([shapes(v) for v in ({"kind": "circle", "r": 2}, [1, 2], 500, "x")])
    print(star(1, 2, sep="+", b=2, a=1))
    print(fib(4), fact(10), list(squares(4)), later.__name__)
    acct = Account.parse("ann:120")
    print(acct, acct.withdraw(20), acct.balance, Account.empty())
    s = Savings("bob", 175)
    print(s.withdraw(120), s, Point(3, -4).norm1(), Point(1))
    try:
        acct.withdraw(10 ** 6)
    except ValueError as e:
        print("error:", e)
    print(collatz.__doc__, Account.__doc__, __doc__.split("\n")[0])
    return 3


if __name__ == "__main__":
    sys.exit(main())
