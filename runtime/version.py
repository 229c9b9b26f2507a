"""The runtime's version (saved files record it)."""
__version__ = "0.1.0"
