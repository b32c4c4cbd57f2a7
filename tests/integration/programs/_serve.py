"""The request loop the test programs share: a well-behaved echo that each program bends.

A program answers ``{"op": op, "input": input}`` as the output of every run request, skips when
the input has ``"skip"``, errs when it has ``"error"``, refuses runs before the handshake, and
calls its ``misbehave`` hook when the input has ``"misbehave": true``. Each handshake it receives
is logged on stderr, so tests can count them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

HANDSHAKE: dict[str, Any] = {
    "version": 1,
    "implementation": {"name": "echo", "language": "python", "version": "1.0"},
    "capabilities": {"ops": ["select", "classify"], "fitStrategy": "halving",
                     "variableMaxBytes": True},
}
STARTED = "test-program: handshake"

Answer = dict[str, Any]


def write(out: BinaryIO, answer: Any) -> None:
    """One answer line, ASCII-only like the harness's own lines."""
    out.write(json.dumps(answer, ensure_ascii=True).encode("ascii") + b"\n")
    out.flush()


def echo(request: dict[str, Any]) -> Answer:
    """The well-behaved answer to a run request."""
    seq, data = request["seq"], request["input"]
    if isinstance(data, dict) and "skip" in data:
        skipped = {"reason": data["skip"], "issueUrl": "https://example.com/issues/1"}
        return {"seq": seq, "skipped": skipped}
    if isinstance(data, dict) and "error" in data:
        return {"seq": seq, "errored": {"message": data["error"], "context": {"seen": True}}}
    return {"seq": seq, "output": {"op": request["op"], "input": data}}


def misbehaves(request: dict[str, Any]) -> bool:
    data = request.get("input")
    return isinstance(data, dict) and data.get("misbehave") is True


def serve(
    misbehave: Callable[[dict[str, Any], BinaryIO], Answer | None] | None = None,
    handshake: dict[str, Any] | None = None,
    obey_stop: bool = True,
) -> None:
    """Serve stdin until stop or end of input; ``misbehave`` replaces the answer when triggered."""
    out = sys.stdout.buffer
    started = False
    for raw in sys.stdin.buffer:
        request = json.loads(raw)
        command = request.get("cmd")
        if command == "start":
            print(STARTED, file=sys.stderr, flush=True)
            started = True
            write(out, handshake or HANDSHAKE)
        elif command == "stop":
            if obey_stop:
                return
        elif not started:
            write(out, {"seq": request["seq"], "errored": {"message": "run before start"}})
        elif misbehave is not None and misbehaves(request):
            answer = misbehave(request, out)
            if answer is not None:
                write(out, answer)
        else:
            write(out, echo(request))
