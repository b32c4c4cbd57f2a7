"""A program that answers as the reference does and misbehaves once, as its arguments say.

    fault_program.py STATE FAULT WHERE AT [SIZE]

STATE is a directory of its own (it counts starts there, so that a restarted program knows it is
one, and it writes ``ready`` there when the fault is reached). AT is the message at fault: 0 is
the answer to the start request, N the answer to the Nth run request of the program's first life.

FAULT and WHERE:

- ``duplicate`` WHERE ∈ ``seq``, ``output``, ``nested`` (the first object inside the output),
  ``skipped``, ``errored``, ``context`` (deep inside an errored answer's context) for an answer;
  ``top``, ``implementation``, ``capabilities`` for the handshake: a member name written twice,
  the wrong value first and the right one last (a last-wins reader sees the right answer).
- ``huge`` WHERE ∈ ``output``, ``nested``, ``skipped``, ``errored``, ``context``, ``stderr``
  (then it exits), ``name`` (the handshake's implementation name, AT 0), ``issueUrl``: SIZE
  characters.
- ``handshake`` WHERE ∈ ``name``, ``version``, ``language``, ``fitStrategy``, ``ops``,
  ``loneSurrogates``, ``variableMaxBytes``: it exits at request AT, and answers the start request
  of every later life with that member changed.
- ``random``: from request AT on, an output of random JSON.
- ``signal``: from request AT on (in every life), it writes ``ready`` and answers slowly (for a
  signal the test sends to the harness).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from eventproof.reference import Reference

WRONG = "wrong-first-value"


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def with_repeat(value: dict[str, Any], name: str) -> str:
    """``value`` as JSON text with the member ``name`` written twice: a wrong value, then its
    own."""
    parts = [f"{dumps(name)}:{dumps(WRONG)}"]
    parts.extend(f"{dumps(key)}:{dumps(each)}" for key, each in value.items())
    return "{" + ",".join(parts) + "}"


def first_object(value: Any, path: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The path of the first non-empty object in ``value`` (depth first), if any."""
    if isinstance(value, dict) and value:
        return path
    items = (value.items() if isinstance(value, dict)
             else enumerate(value) if isinstance(value, list) else [])
    for key, each in items:
        found = first_object(each, (*path, key))
        if found is not None:
            return found
    return None


def text_with_repeat_at(value: Any, path: tuple[Any, ...]) -> str:
    """``value`` as JSON text, the object at ``path`` repeating its first member."""
    if not path:
        assert isinstance(value, dict)
        return with_repeat(value, next(iter(value)))
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return "{" + ",".join(
            f"{dumps(key)}:{text_with_repeat_at(each, rest) if key == head else dumps(each)}"
            for key, each in value.items()) + "}"
    return "[" + ",".join(text_with_repeat_at(each, rest) if index == head else dumps(each)
                          for index, each in enumerate(value)) + "]"


def changed_handshake(handshake: dict[str, Any], member: str) -> dict[str, Any]:
    identity = dict(handshake["implementation"])
    capabilities = dict(handshake["capabilities"])
    if member in ("name", "version", "language"):
        identity[member] = f"{identity.get(member, '')}-restarted"
    elif member == "fitStrategy":
        capabilities[member] = ("maximal" if capabilities.get(member, "halving") == "halving"
                                else "halving")
    elif member == "ops":
        capabilities["ops"] = ["select"] if capabilities["ops"] != ["select"] else ["fold"]
    else:
        capabilities[member] = not capabilities.get(member, True)
    return {**handshake, "implementation": identity, "capabilities": capabilities}


def main(argv: list[str]) -> int:
    state, fault, where, at = Path(argv[0]), argv[1], argv[2], int(argv[3])
    size = int(argv[4]) if len(argv) > 4 else 1_000_000
    state.mkdir(parents=True, exist_ok=True)
    life = len(list(state.glob("start-*")))
    (state / f"start-{life}").touch()
    reference = Reference()
    handshake = reference.start()
    handshake["implementation"]["name"] = "fault-program"
    if fault == "handshake" and life > 0:
        handshake = changed_handshake(handshake, where)
    out = sys.stdout.buffer
    count = 0
    for raw in sys.stdin.buffer:
        request = json.loads(raw)
        if request["cmd"] == "stop":
            return 0
        if request["cmd"] == "start":
            text = dumps(handshake)
            if life == 0 and at == 0 and fault == "duplicate":
                target = handshake if where == "top" else handshake[where]
                inner = with_repeat(target, next(iter(target)))
                text = inner if where == "top" else text.replace(dumps(target), inner, 1)
            elif life == 0 and at == 0 and fault == "huge" and where == "name":
                text = dumps({**handshake, "implementation": {
                    **handshake["implementation"], "name": "n" * size}})
            out.write(text.encode("ascii") + b"\n")
            out.flush()
            continue
        count += 1
        seq = request["seq"]
        try:
            answer: dict[str, Any] = {"seq": seq, "output": reference.run(request["op"],
                                                                         request["input"])}
        except Exception as error:
            answer = {"seq": seq, "errored": {"message": str(error)}}
        text = dumps(answer)
        here = life == 0 and count == at
        if fault == "signal" and count >= at:  # in every life: --jobs starts several
            (state / "ready").touch()
            time.sleep(0.2)
        elif fault == "random" and life == 0 and count >= at:
            text = dumps({"seq": seq, "output": random.choice(
                [None, True, 7, "x" * random.randrange(9), [1, {"a": []}], {"b": "c"}])})
        elif here and fault == "handshake":
            return 3
        elif here and fault == "duplicate":
            text = duplicate_answer(answer, where, seq)
        elif here and fault == "huge":
            text = huge_answer(answer, where, seq, size)
            if text is None:
                return 4
        out.write(text.encode("ascii") + b"\n")
        out.flush()
    return 0


def duplicate_answer(answer: dict[str, Any], where: str, seq: int) -> str:
    if where == "seq":
        return with_repeat(answer, "seq")
    if where == "output" and "output" in answer:
        return with_repeat(answer, "output")
    if where == "nested" and "output" in answer:
        path = first_object(answer["output"])
        if path is not None:
            return text_with_repeat_at(answer, ("output", *path))
    if where == "skipped":
        return dumps({"seq": seq})[:-1] + ',"skipped":' + with_repeat(
            {"reason": "not now"}, "reason") + "}"
    # errored, context, and the fallbacks of output and nested
    inner = {"a": {"b": [0, {"c": 1}]}} if where != "errored" else {}
    errored = {"message": "refused"} if where == "errored" else {
        "message": "refused", "context": inner}
    if where == "errored":
        return dumps({"seq": seq})[:-1] + ',"errored":' + with_repeat(errored, "message") + "}"
    return text_with_repeat_at({"seq": seq, "errored": errored},
                               ("errored", "context", "a", "b", 1))


def huge_answer(answer: dict[str, Any], where: str, seq: int, size: int) -> str | None:
    big = "h" * size
    if where == "output":
        return dumps({"seq": seq, "output": big})
    if where == "nested":
        return dumps({"seq": seq, "output": [{"type": "text", "text": big, big[:1000]: [big]}]})
    if where == "skipped":
        return dumps({"seq": seq, "skipped": {"reason": big}})
    if where == "issueUrl":
        return dumps({"seq": seq, "skipped": {"reason": "later", "issueUrl": "https://x/" + big}})
    if where == "errored":
        return dumps({"seq": seq, "errored": {"message": big}})
    if where == "context":
        return dumps({"seq": seq, "errored": {"message": "m", "context": {big: big}}})
    if where == "stderr":
        sys.stderr.write(big)
        sys.stderr.flush()
        return None
    return dumps(answer)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main(sys.argv[1:]))
