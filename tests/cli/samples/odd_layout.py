import sys

class T:
	def f(self, xs):
		"""Tabs.

		Second line.
		"""
		for x in xs:
			if x:
				return x
		return None


def one(): return 1 if T().f([0, 5]) else 2


# café
def café(s="naïve"):
    """Ünicode."""
    return s.upper() if s else s

print(T().f([0, 7]), one(), café(), café.__doc__, T.f.__doc__)
