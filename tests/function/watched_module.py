"""A module whose global a helper rebinds (test_composite_state: changes made through
another module are seen)."""
COUNT = 0


def bump():
    global COUNT
    COUNT += 1
