"""The reference behind the protocol, appending ``<pid> <seq>`` for every run request it is sent
to the file its argument names (spec/protocol.md §5.1: a seq is different for every run request
over the harness's whole run, and increasing)."""

from __future__ import annotations

import json
import os
import sys

from eventproof.reference import Reference


def main() -> None:
    impl, out = Reference(), sys.stdout.buffer
    with open(sys.argv[1], "a", encoding="ascii") as log:
        for raw in sys.stdin.buffer:
            request = json.loads(raw)
            if request["cmd"] == "stop":
                return
            if request["cmd"] == "start":
                answer = impl.start()
            else:
                log.write(f"{os.getpid()} {request['seq']}\n")
                log.flush()
                try:
                    answer = {"seq": request["seq"],
                              "output": impl.run(request["op"], request["input"])}
                except Exception as error:
                    answer = {"seq": request["seq"], "errored": {"message": str(error)}}
            out.write(json.dumps(answer, ensure_ascii=True).encode("ascii") + b"\n")
            out.flush()


main()
