"""``python -m eventproof.conformance`` is the ``eventproof`` command."""

from .cli import main

main(prog_name="eventproof")
