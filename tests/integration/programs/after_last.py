"""The reference behind the protocol, writing on stdout after its last answer as its argument
says (base64 of the bytes, written when the stop request or the end of stdin comes; empty:
nothing), then exiting with status 0 (spec/protocol.md §6).

    after_last.py BYTES_BASE64 [stop|eof]

With ``stop`` the bytes answer the stop request (the default); with ``eof`` they come only when
stdin ends, after the stop request.
"""

from __future__ import annotations

import base64
import json
import sys

from eventproof.reference import Reference


def main() -> None:
    written = base64.b64decode(sys.argv[1]) if len(sys.argv) > 1 else b""
    when = sys.argv[2] if len(sys.argv) > 2 else "stop"
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
