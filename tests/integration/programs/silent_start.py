"""Reads requests but never answers anything, the start request included."""

import sys

for _line in sys.stdin:
    pass
