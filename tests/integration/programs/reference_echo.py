"""A conforming program: the reference implementation behind the protocol."""

from __future__ import annotations

import json
import sys

from eventproof.reference import Reference


def main() -> None:
    impl = Reference(sys.argv[1] if len(sys.argv) > 1 else "halving")
    for raw in sys.stdin.buffer:
        request = json.loads(raw)
        if request["cmd"] == "stop":
            return
        if request["cmd"] == "start":
            answer = impl.start()
        else:
            try:
                output = impl.run(request["op"], request["input"])
                answer = {"seq": request["seq"], "output": output}
            except Exception as error:
                answer = {"seq": request["seq"], "errored": {"message": str(error)}}
        sys.stdout.write(json.dumps(answer, ensure_ascii=True) + "\n")
        sys.stdout.flush()


main()
