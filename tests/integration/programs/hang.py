"""Hangs (sleeps for an hour) on a request whose input has "misbehave": true."""

from __future__ import annotations

import time
from typing import Any, BinaryIO

from _serve import Answer, serve


def hang(request: dict[str, Any], out: BinaryIO) -> Answer | None:
    time.sleep(3600)
    return None


serve(hang)
