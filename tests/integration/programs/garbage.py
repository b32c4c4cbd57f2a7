"""Writes a line that is not JSON, then the answer, on a request with "misbehave": true."""

from __future__ import annotations

from typing import Any, BinaryIO

from _serve import Answer, echo, serve


def garbage(request: dict[str, Any], out: BinaryIO) -> Answer | None:
    out.write(b"debug: computing the answer...\n")
    return echo(request)


serve(garbage)
