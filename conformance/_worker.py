"""A ``python:`` implementation behind the subprocess protocol, in a process of its own
(``eventproof run --isolate``, spec/protocol.md §8).

``python -m eventproof.conformance._worker python:MODULE:ATTR`` imports the target as the
in-process path does and answers spec/protocol.md on stdin/stdout. The harness talks to it as to
any program, so an implementation that calls ``os._exit``, is killed by a signal, prints, or
hangs is a crash, a stderr line or a timeout, never the end of the harness.

Whatever the implementation writes on file descriptor 1 (``print``, a C library) goes to stderr:
the protocol has a descriptor of its own.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, BinaryIO

from ._adapters._base import non_json_reason
from ._adapters.impl_spec import WORKER_PATH_VARIABLE, _import_target
from ._adapters.in_process import _OBJECT_FIX, _has_start_and_run, _required_parameters
from ._adapters.subprocess import REFUSAL_MARK
from ._clip import TEXT_CHARACTERS, foreign_text
from ._errors import ImplementationError, ProtocolError
from ._protocol import parse_line


def _write(out: BinaryIO, answer: Any) -> None:
    try:
        text = json.dumps(answer, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    except RecursionError:
        text = json.dumps({"seq": answer.get("seq"), "errored": {
            "message": "the output is nested too deeply to be copied as JSON"}})
    out.write(text.encode("ascii") + b"\n")
    out.flush()


def _refuse(out: BinaryIO, reason: str) -> int:
    """Refuse the start request (spec/protocol.md §4.3); the whole reason goes on stderr too."""
    print(REFUSAL_MARK + json.dumps(reason), file=sys.stderr, flush=True)
    _write(out, {"version": 1, "error": reason})
    return 1


def _load(spec: str) -> Any:
    """The implementation object that ``spec`` names (a factory is called once)."""
    target = _import_target(spec, "--impl")
    if _has_start_and_run(target):
        return target
    if not callable(target):
        raise ImplementationError(value=spec, source="--impl", reason=f"names a value of type "
                         f"{type(target).__name__}, which has no start() and run()",
                         fix=_OBJECT_FIX)
    missing = _required_parameters(target)
    if missing:
        raise ImplementationError(value=spec, source="--impl",
                         reason=f"is a callable that needs the argument(s) {', '.join(missing)}",
                         fix="Point at a class or function callable with no arguments")
    try:
        built = target()
    except Exception as error:
        raise ImplementationError(value=spec, source="--impl",
                         reason=f"raised {_error_text(error)} when called with no arguments",
                         fix="Make it callable with no arguments") from None
    if not _has_start_and_run(built):
        raise ImplementationError(value=spec, source="--impl", reason=f"returned a value of type "
                         f"{type(built).__name__}, which has no start() and run()",
                         fix=_OBJECT_FIX)
    return built


def _message(error: BaseException) -> str:
    return foreign_text(lambda: str(error), "the message", TEXT_CHARACTERS)


def _error_text(error: BaseException) -> str:
    """``"<exception type>: <message>"``, as the in-process path words it (spec §8)."""
    return f"{type(error).__name__}: {_message(error)}"


def _answer(impl: Any, request: dict[str, Any]) -> dict[str, Any]:
    """The answer to one run request. ``NotImplementedError`` skips and any other ``Exception``
    errs; ``sys.exit`` or a ``BaseException`` of the implementation's own ends this process,
    which the harness reports as a crash of the request (spec/protocol.md §8)."""
    seq = request["seq"]
    try:
        output = impl.run(request["op"], request["input"])
        problem = non_json_reason(output)
        if problem is None:
            # Copied here, so that what _write sends is plain JSON (a subclass's own methods
            # run now, inside this fence).
            output = json.loads(json.dumps(output, allow_nan=False))
    except NotImplementedError as error:
        return {"seq": seq, "skipped": {
            "reason": _message(error) or f"run() raised NotImplementedError for op "
                                         f"{request['op']}"}}
    except RecursionError:
        return {"seq": seq, "errored": {
            "message": "the output is nested too deeply to be copied as JSON"}}
    except Exception as error:
        return {"seq": seq, "errored": {"message": _error_text(error)}}
    except SystemExit:
        raise
    except BaseException as error:  # its own BaseException, KeyboardInterrupt, GeneratorExit
        print(f"eventproof-worker: run() raised {_error_text(error)} on op {request['op']}, "
              "which is not an Exception: the request crashed (spec/protocol.md §8)",
              file=sys.stderr, flush=True)
        os._exit(1)
    if problem is not None:
        return {"seq": seq, "errored": {"message": f"the output is not a JSON value: {problem}"}}
    return {"seq": seq, "output": output}


def main(argv: list[str]) -> int:
    # The protocol keeps a private copy of descriptor 1; descriptor 1 itself becomes stderr.
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if len(argv) != 1:
        print("usage: python -m eventproof.conformance._worker python:MODULE:ATTR",
              file=sys.stderr)
        return 2
    handed = os.environ.get(WORKER_PATH_VARIABLE)
    if handed:
        first = [entry for entry in handed.split(os.pathsep) if entry]
        sys.path[:] = first + [entry for entry in sys.path if entry not in first]
    impl: Any = None
    for raw in sys.stdin.buffer:
        try:
            request = parse_line(raw, "a request from the harness")
        except ProtocolError as error:
            print(f"eventproof-worker: {error}", file=sys.stderr, flush=True)
            return 2
        command = request.get("cmd")
        if command == "stop":
            return 0
        if command == "start":
            if impl is None:
                try:
                    impl = _load(argv[0])
                except ImplementationError as error:
                    return _refuse(out, str(error))
            try:
                handshake = impl.start()
                problem = non_json_reason(handshake)
                if problem is None:
                    handshake = json.loads(json.dumps(handshake, allow_nan=False))
            except Exception as error:
                return _refuse(out, f"--impl {argv[0]!r}: raised {_error_text(error)} in "
                               "start(). start() must return the handshake dict of "
                               "spec/protocol.md §4.2")
            if problem is not None:
                handshake = {"version": 1, "error": f"start() returned a value that is not "
                             f"JSON: {problem}"}
            _write(out, handshake)
            continue
        _write(out, _answer(impl, request))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
