"""`python -m autograph convert FILE.py [-o OUT.py] [--function NAME ...]`; see autograph.cli."""
import sys

from autograph.cli import main

if __name__ == "__main__":
    sys.exit(main())
