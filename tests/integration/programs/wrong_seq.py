"""Answers a request whose input has "misbehave": true with the wrong seq."""

from __future__ import annotations

from typing import Any, BinaryIO

from _serve import Answer, echo, serve


def wrong_seq(request: dict[str, Any], out: BinaryIO) -> Answer | None:
    answer = echo(request)
    answer["seq"] = request["seq"] + 1
    return answer


serve(wrong_seq)
