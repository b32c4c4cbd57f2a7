"""A conforming program: echoes every input (see _serve.py)."""

from _serve import serve

serve()
