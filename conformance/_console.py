"""The console every command prints to, and the one way a command stops on a user's mistake.

Styles come from rich ``Text`` objects only: the console reads no markup, so text from a schema,
a spec line, an input or an implementation is always printed as written.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from rich.console import Console
from rich.text import Text

from ._results import ExitCode


def console(*, stderr: bool = False) -> Console:
    """A console that never hard-wraps a line in a pipe (``eventproof rules | grep`` keeps a rule
    on one line) and writes no escape code at all for NO_COLOR, TERM=dumb (or --no-color) and
    outside a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    plain = bool(os.environ.get("NO_COLOR")) or os.environ.get("TERM") == "dumb"
    # markup=False: text from a schema, a spec line, an input or an implementation never becomes
    # console markup (``[a-z]`` in a pattern would vanish); styles come from Text objects only.
    return Console(highlight=False, stderr=stderr, soft_wrap=not stream.isatty(),
                   color_system=None if plain else "auto", markup=False)


def fail(message: str) -> NoReturn:
    console(stderr=True).print(Text.assemble(("error:", "bold red"), " ", message))
    sys.exit(ExitCode.USAGE)
