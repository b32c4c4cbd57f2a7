"""Echoes the right seq, with a member the protocol does not know, when "misbehave": true."""

from __future__ import annotations

from typing import Any, BinaryIO

from _serve import Answer, echo, serve


def bad_member(request: dict[str, Any], out: BinaryIO) -> Answer | None:
    return {**echo(request), "debug": "a member the schema refuses"}


serve(bad_member)
