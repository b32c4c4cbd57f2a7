"""The reference behind the protocol, with what a test asks of it on top.

    reference_port.py BYTES_BASE64 [stop|eof] [SEQ_LOG]

BYTES_BASE64 (empty: nothing) is written on stdout after the last answer, in answer to the stop
request (``stop``, the default) or only when stdin ends (``eof``), before exiting with status 0
(spec/protocol.md §6). With SEQ_LOG, ``<pid> <seq>`` of every run request is appended to that
file (§5.1).
"""

from __future__ import annotations

import base64
import json
import os
import sys

from eventproof.reference import Reference


def main() -> None:
    written = base64.b64decode(sys.argv[1]) if len(sys.argv) > 1 else b""
    when = sys.argv[2] if len(sys.argv) > 2 else "stop"
    log = open(sys.argv[3], "a", encoding="ascii") if len(sys.argv) > 3 else None  # noqa: SIM115
    impl, out = Reference(), sys.stdout.buffer
    for raw in sys.stdin.buffer:
        request = json.loads(raw)
        if request["cmd"] == "stop":
            if when == "stop":
                break
            continue
        if request["cmd"] == "start":
            answer = impl.start()
        else:
            if log is not None:
                log.write(f"{os.getpid()} {request['seq']}\n")
                log.flush()
            try:
                answer = {"seq": request["seq"],
                          "output": impl.run(request["op"], request["input"])}
            except Exception as error:
                answer = {"seq": request["seq"], "errored": {"message": str(error)}}
        out.write(json.dumps(answer, ensure_ascii=True).encode("ascii") + b"\n")
        out.flush()
    out.write(written)
    out.flush()


main()
