"""Writes a 100 MB line (without building it in memory) when the input has "misbehave": true."""

from __future__ import annotations

from typing import Any, BinaryIO

from _serve import Answer, serve

CHUNK = b'{"seq": 0, "output": "' + b"x" * (1024 * 1024)


def giant(request: dict[str, Any], out: BinaryIO) -> Answer | None:
    for _ in range(100):
        out.write(CHUNK)
    out.write(b'"}\n')
    out.flush()
    return None


serve(giant)
