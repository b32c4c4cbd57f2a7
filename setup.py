"""The one compiled module, optional: without a C compiler the package installs without it and
the reference takes its pure-Python path, which writes the same bytes (pyproject.toml holds
everything else)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("eventproof.reference._speedups", ["reference/_speedups.c"], optional=True),
    ],
)
