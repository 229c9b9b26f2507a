"""Example programs, and the programs they share with the tests and benchmarks (programs.py)."""
