"""Generic functions and methods (`def f[T](...)`: Python 3.12 syntax; imported by
test_generic_functions only there)."""


def first[T](xs: list[T]) -> T:
    for x in xs:
        if isinstance(x, int) and x > 1:
            return x
    return T.__name__            # a type parameter read in the body


class Box[T]:
    def get[U](self, u: U) -> tuple:
        if u:
            return (T, u)
        return (U, 0)


def defines_generics(x):
    class Box[T]:
        def get[U](self, u: U) -> U:
            def inner():
                return u
            return inner.__qualname__

    def ident[T](a: T) -> T:
        class In[V]:
            pass
        return In.__qualname__
    if x:
        pass
    return Box.__qualname__, Box.get.__qualname__, Box().get(1), ident.__qualname__, ident(1)
