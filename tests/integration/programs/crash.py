"""Exits with status 3 on a request whose input has "misbehave": true, saying why on stderr."""

from __future__ import annotations

import sys
from typing import Any, BinaryIO

from _serve import Answer, serve


def crash(request: dict[str, Any], out: BinaryIO) -> Answer | None:
    print("fatal: boom while answering", request["seq"], file=sys.stderr, flush=True)
    sys.exit(3)


serve(crash)
