"""A program that answers as the reference does until its fault, as its arguments say.

    channel_fault.py STATE FAULT WHEN LASTING

STATE is a directory of its own: the program counts its lives there (a restarted program knows
it is one), numbers the run requests of all its lives there, and writes ``ready`` there when it
reaches its fault. WHEN is ``0`` for the handshake of the first life, or N for the Nth run request
of the whole run, whichever life gets it: under ``--jobs`` the first life may be the copy the
harness starts only for the handshake, and a worker may get few requests, but the Nth request
of the run always comes. LASTING is ``1`` when the fault, once reached, stays (every life
commits it from then on, at its next request: a program that can no longer answer), ``0`` when
it happens once.

FAULT:

- ``hang``: never answers (it sleeps).
- ``noread``: stops reading its stdin, and never answers.
- ``exit``: exits with code 3 without answering.
- ``cr``: ends its answer with a carriage return alone, no line feed.
- ``halfline``: writes half of its answer, then hangs (mid-line).
- ``halfexit``: writes half of its answer, then exits (mid-line).
- ``deep``: answers an output nested 500 deep (a wrong answer, but one to judge and report).
- ``bigint``: puts a 5,000-digit integer in a member no schema names.
- ``stray``: answers, then writes a second line nobody asked for (after answering).
"""

from __future__ import annotations

import fcntl
import json
import sys
import time
from pathlib import Path
from typing import Any

from eventproof.reference import Reference


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def commit(fault: str, text: str, state: Path) -> int | None:
    """Write ``text`` (an answer line, without its newline) as ``fault`` bends it; an exit code
    when the program must end."""
    (state / "ready").touch()
    out = sys.stdout.buffer
    if fault in ("hang", "noread"):
        time.sleep(3600)
    if fault == "exit":
        return 3
    if fault == "cr":
        out.write(text.encode("ascii") + b"\r")
    elif fault in ("halfline", "halfexit"):
        out.write(text[: len(text) // 2].encode("ascii"))
        out.flush()
        if fault == "halfexit":
            return 4
        time.sleep(3600)
    elif fault == "deep":
        seq = json.loads(text)["seq"]
        out.write(('{"seq":' + str(seq) + ',"output":' + "[" * 500 + "]" * 500 + "}\n")
                  .encode("ascii"))
    elif fault == "bigint":
        out.write(text[:-1].encode("ascii") + b',"note":{"n":' + b"7" * 5000 + b"}}\n")
    elif fault == "stray":
        out.write(text.encode("ascii") + b"\n" + text.encode("ascii") + b"\n")
    out.flush()
    return None


def number_of_request(state: Path) -> int:
    """The number of this run request in the whole run (from 1), across every life."""
    with (state / "lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        counter = state / "requests"
        number = int(counter.read_text() or 0) + 1 if counter.exists() else 1
        counter.write_text(str(number))
        return number


def main(argv: list[str]) -> int:
    state, fault, when, lasting = Path(argv[0]), argv[1], int(argv[2]), argv[3] == "1"
    state.mkdir(parents=True, exist_ok=True)
    life = len(list(state.glob("life-*")))
    (state / f"life-{life}").touch()
    faulty = (state / "faulty").exists()  # a lasting fault was reached in an earlier life
    reference = Reference()
    handshake = reference.start()
    handshake["implementation"]["name"] = "channel-fault"
    stdin = sys.stdin.buffer
    while raw := stdin.readline():
        request = json.loads(raw)
        if request["cmd"] == "stop":
            return 0
        if request["cmd"] == "start":
            text = dumps(handshake)
            if when == 0 and (life == 0 or (lasting and faulty)):
                if lasting:
                    (state / "faulty").touch()
                    faulty = True
                code = commit(fault, text, state)
                if code is not None:
                    return code
                continue
            sys.stdout.buffer.write(text.encode("ascii") + b"\n")
            sys.stdout.buffer.flush()
            continue
        number = number_of_request(state)
        seq = request["seq"]
        try:
            answer: dict[str, Any] = {"seq": seq, "output": reference.run(request["op"],
                                                                         request["input"])}
        except Exception as error:
            answer = {"seq": seq, "errored": {"message": str(error)}}
        text = dumps(answer)
        # A lasting fault reached by another life running at once (a worker of --jobs) counts.
        faulty = faulty or (lasting and (state / "faulty").exists())
        if number == when or (lasting and faulty and when > 0):
            if lasting:
                (state / "faulty").touch()
                faulty = True
            code = commit(fault, text, state)
            if code is not None:
                return code
            continue
        sys.stdout.buffer.write(text.encode("ascii") + b"\n")
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
