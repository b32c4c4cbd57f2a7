"""Writes 10 MB on stderr before answering a request whose input has "misbehave": true."""

from __future__ import annotations

import sys
from typing import Any, BinaryIO

from _serve import Answer, echo, serve

LINE = b"chatter " * 127 + b"\n"  # 1 KiB


def chatter(request: dict[str, Any], out: BinaryIO) -> Answer | None:
    for _ in range(10 * 1024):
        sys.stderr.buffer.write(LINE)
    sys.stderr.buffer.write(b"last words\n")
    sys.stderr.buffer.flush()
    return echo(request)


serve(chatter)
