"""Writes half an answer without a newline and sleeps, on a request with "misbehave": true."""

from __future__ import annotations

import time
from typing import Any, BinaryIO

from _serve import Answer, serve


def partial(request: dict[str, Any], out: BinaryIO) -> Answer | None:
    out.write(b'{"seq": %d, "out' % request["seq"])
    out.flush()
    time.sleep(3600)
    return None


serve(partial)
