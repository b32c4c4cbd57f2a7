"""Programs in any language speaking spec/protocol.md on stdin/stdout: the handshake, one
request at a time, restarts within a limit."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any

from .._clip import STDERR_CHARACTERS, clip_text
from .._errors import HarnessError, ImplementationError, ProtocolError
from .._model import ImplErrored
from .._protocol import (
    START,
    DuplicateMember,
    HandshakeChanged,
    HugeInteger,
    RunErrored,
    RunOutput,
    RunRequest,
    RunResponse,
    RunSkipped,
    StartResponse,
    encode,
    handshake_changed,
    parse_line,
    run_response_from_json,
    shown,
    start_response_from_json,
)
from ._base import (
    DEFAULT_MAX_LINE_BYTES,
    STDERR_TAIL_BYTES,
    AfterLastAnswer,
    Broken,
    Crashed,
    Ok,
    Response,
    Skipped,
    TimedOut,
    shebang_problem,
)
from ._base import not_found as _not_found
from .pipes import (
    _Abandoned,
    _EndOfStream,
    _exit_words,
    _LeaderExited,
    _Overlong,
    _Program,
    _StartFailed,
    _StderrRing,
)
from .restarts import MAX_RESTARTS, RestartCount, SeqCounter

_STILL_OPEN = (" (a process it started kept its stdout open; it was killed with the whole "
               "process group)")


class SubprocessAdapter:
    """One long-lived program speaking spec/protocol.md on its stdin and stdout.

    Every request has a deadline. A program that hangs, dies, or breaks the protocol is killed
    with everything it started, and restarted before the next request with the handshake
    replayed, at most ``max_restarts`` times in a row: an answered request resets the count, so
    a program that hangs on some inputs is checked to the end while one that can no longer
    answer anything is given up on; after that every request answers :class:`Crashed` at once.
    The count is :attr:`restart_count`'s, which the run's worker processes share (``--jobs``): one
    giving up ends the request under way in every other at once.
    stderr is read all the time into a bounded buffer.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        max_restarts: int = MAX_RESTARTS,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        use_shell: bool = False,
        start_timeout: float | None = None,
        description: str | None = None,
        source: str = "--impl",
    ) -> None:
        #: The command: a program and its arguments, or (with ``use_shell``) one shell command.
        self.argv = list(argv)
        self.description = description or (
            " ".join(self.argv) if use_shell else shlex.join(self.argv)
        )
        if not self.argv or not self.argv[0].strip():
            raise ImplementationError(
                value=self.description, source=source, reason="is an empty command",
                fix="Name the program that speaks spec/protocol.md, e.g. --impl 'node "
                    "my-port/eventproof-port.mjs', or an object in process: "
                    "--impl python:MODULE:ATTR",
            )
        self.timeout = timeout
        #: The handshake gets this long (default: :attr:`timeout`).
        self.start_timeout = timeout if start_timeout is None else start_timeout
        self.max_restarts = max_restarts
        self.max_line_bytes = max_line_bytes
        #: How many times the program was restarted so far.
        self.restarts = 0
        #: The run's restart limit (replaced by a shared one in a worker process of --jobs).
        self.restart_count = RestartCount(max_restarts)
        self._env = None if env is None else dict(env)
        self._cwd = cwd
        self._use_shell = use_shell
        self._source = source
        self._stderr = _StderrRing(STDERR_TAIL_BYTES)
        self._program: _Program | None = None
        self._handshake: StartResponse | None = None
        self._needs_restart = False
        #: What went wrong with this adapter's program last (the reason a restart is needed):
        #: said when the restart limit is reached, even if other workers spent the restarts.
        self._last_failure = "it failed before"
        self._given_up: str | None = None
        #: Set once a restarted program answered another handshake (the run must stop).
        self._changed: HandshakeChanged | None = None
        self._stopped = False
        #: Where each run request's seq comes from (shared by the worker processes of --jobs).
        self.seqs = SeqCounter()
        self._previous: RunRequest | None = None
        #: What the program wrote after its last answer, found when it was stopped.
        self._after_last: AfterLastAnswer | None = None
        self._peak_line_bytes = 0
        #: How long the last request waited for its answer (restarts and handshakes excluded).
        self.last_exchange_seconds = 0.0

    # -- the Adapter protocol ---------------------------------------------------------------------

    def start(self) -> StartResponse:
        if self._stopped:
            raise RuntimeError(f"{self.description} was stopped; start a new adapter")
        if self._handshake is not None:
            return self._handshake
        program = self._spawn()
        try:
            self._handshake = self._shake_hands(program)
        except _StartFailed as failure:
            if failure.error is not None:  # the message names the program
                raise replace(failure.error, message=f"{failure.error.message} from "
                              f"{self._source} {self.description!r}") from None
            problem = None if self._use_shell else shebang_problem(self.argv[0])
            if problem is not None:  # env did not find the interpreter: say which
                raise self._usage_error(f"cannot start: {problem[0]} ({failure.reason})",
                                        problem[1]) from None
            raise ImplementationError(
                value=self.description, source=self._source, reason=failure.reason,
                detail=self._stderr_excerpt(),
                fix="Run the command by hand and type {\"cmd\":\"start\",\"version\":1}: it must "
                "keep running, read requests line by line from stdin and answer each with one JSON "
                "line on stdout, flushed at once (spec/protocol.md §2, §4). If it only starts "
                "slowly, raise --timeout",
            ) from None
        self._program = program
        return self._handshake

    @property
    def restarts_in_a_row(self) -> int:
        """Restarts since the last answered request, in the whole run; bounded by
        :attr:`max_restarts`."""
        return self.restart_count.in_a_row

    def given_up(self) -> str | None:
        """Why the run gave the program up (when, and the last failure), or None."""
        return self._given_up or self.restart_count.given_up()

    def run(self, op: str, input: Any, *, timeout: float | None = None) -> Response:
        if self._stopped:
            raise RuntimeError(f"{self.description} was stopped; start a new adapter")
        self.start()
        if self._changed is not None:
            raise self._changed  # every later request too: the run must stop
        response = self._run(op, input, timeout)
        if self._needs_restart and self._given_up is None:
            self._last_failure = _failure_words(response)
            if self.restart_count.spent():
                # No restart is left: the program is given up on now, not at the next request.
                self._give_up(self._last_failure)
        return response

    def _run(self, op: str, input: Any, timeout: float | None) -> Response:
        if self._given_up is None and (elsewhere := self.restart_count.given_up()) is not None:
            self._given_up = elsewhere  # another worker process gave the program up
        if self._needs_restart and self._given_up is None:
            self._restart()
        if self._given_up is not None:
            return Crashed(self._given_up, self._stderr.tail())
        program = self._program
        assert program is not None
        seconds = self.timeout if timeout is None else timeout
        self.last_exchange_seconds = 0.0
        request = RunRequest(self.seqs.next(), op, input)
        previous, self._previous = self._previous, request
        payload = encode(request)
        mark = self._stderr.mark()
        stray = program.lines.ready()
        if stray is not None:
            # Something arrived after the last answer and before this request was sent.
            return self._between_requests(program, stray, previous, request, mark)
        line = program.exchange(payload, seconds, self._abandoned)
        self.last_exchange_seconds = program.seconds
        if isinstance(line, _Abandoned):
            program.kill()
            self._lost(program)
            self._given_up = self.restart_count.given_up()
            return Crashed(f"{self._given_up}; {request.describe()} was under way and abandoned",
                           self._stderr.since(mark))
        if line is None:
            unfinished = program.lines.unfinished()
            program.kill()
            self._lost(program)
            return TimedOut(seconds, self._stderr.since(mark), unfinished=unfinished)
        if isinstance(line, _EndOfStream | _LeaderExited):
            code = (program.exit_after_eof() if isinstance(line, _EndOfStream)
                    else _exit_code(program.kill(), line.code))
            self._lost(program)
            unfinished = program.lines.unfinished()
            return Crashed(
                f"the program {_exit_words(code)} while answering {request.describe()}"
                + (_STILL_OPEN if isinstance(line, _LeaderExited) else "")
                + (f"; {unfinished}" if unfinished else ""),
                self._stderr.since(mark), code,
            )
        message = f"the answer to {request.describe()}"
        if isinstance(line, _Overlong):
            program.kill()  # the rest of the line is still coming; only a restart resyncs
            self._lost(program)
            return Broken(self._overlong(message, line), self._stderr.since(mark))
        value: Any = None
        try:
            value = parse_line(line, message)
            response = run_response_from_json(value, request)
        except ProtocolError as error:
            if isinstance(error, DuplicateMember | HugeInteger):
                # A name given twice, or an integer too long to read: the line was whole, and
                # a seq given once still tells whether the two sides are in step.
                value = {"seq": error.seq}
            if not _in_step(value, request):
                # Garbage, or another request's answer: whatever is still in the pipe cannot be
                # trusted, so the next request starts on a fresh program (spec §7.3).
                program.kill()
                self._lost(program)
                error = _late_answer(error, value, previous) or error
            return Broken(error, self._stderr.since(mark))
        self.restart_count.answered()
        return _outcome_of_response(response)

    def _overlong(self, message: str, line: _Overlong) -> ProtocolError:
        arrived = (f"{line.received} bytes had arrived without a newline when the harness "
                   "stopped reading" if line.received else "no newline within the limit")
        return ProtocolError(
            message=message, field="the line",
            expected=f"at most {self.max_line_bytes} bytes before the newline",
            received=f"a line of more than {self.max_line_bytes} bytes ({arrived}), starting "
                     f"{_prefix(line.prefix)}",
            fix="End every answer with a newline and write nothing else on stdout "
                "(spec/protocol.md §2.3).",
        )

    def _between_requests(self, program: _Program, stray: Any, previous: RunRequest | None,
                          request: RunRequest, mark: int) -> Response:
        """A line, or the end of stdout, that came after the last answer and before
        ``request`` was sent: the program is out of step, or gone. ``request`` is not sent."""
        after = f"after answering {previous.describe()}" if previous else "after the handshake"
        if isinstance(stray, _EndOfStream | _LeaderExited):
            code = (program.exit_after_eof() if isinstance(stray, _EndOfStream)
                    else _exit_code(program.kill(), stray.code))
            self._lost(program)
            return Crashed(f"the program {_exit_words(code)} {after}, before "
                           f"{request.describe()} was sent", self._stderr.since(mark), code)
        program.kill()
        self._lost(program)
        if isinstance(stray, _Overlong):
            text = f"a line of more than {self.max_line_bytes} bytes"
        else:
            text = shown(bytes(stray), 160)
        twice = (f"a second answer to {previous.describe()} (input {shown(previous.input, 160)})"
                 if previous else "a line nobody asked for")
        return Broken(ProtocolError(
            message=f"the program's stdout {after}", field="the line",
            expected=f"nothing until {request.describe()} is sent",
            received=f"{text}: {twice}; {request.describe()} was not sent, since the two "
                     "sides are out of step",
            fix="Answer every run request with exactly one line, and write nothing else on "
                "stdout (spec/protocol.md §5.1, §7.5).",
        ), self._stderr.since(mark))

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        program, self._program = self._program, None
        if program is not None:
            mark = self._stderr.mark()
            written = program.stop()
            self._note_peak(program)
            previous = self._previous
            if written is not None and previous is not None:
                self._after_last = AfterLastAnswer(previous.op, previous.input, Broken(
                    self._written_after(written, previous), self._stderr.since(mark)))

    def after_last_answer(self) -> AfterLastAnswer | None:
        return self._after_last

    def _written_after(self, written: Any, previous: RunRequest) -> ProtocolError:
        """The protocol error of output that came after the answer to ``previous``, the last
        request, once the program was stopped (spec/protocol.md §6)."""
        if isinstance(written, _Overlong):
            text = f"a line of more than {self.max_line_bytes} bytes"
        elif isinstance(written, _EndOfStream):
            text = f"{written.pending} bytes that no newline ended, then the end of stdout"
        else:
            text = shown(bytes(written), 160)
        return ProtocolError(
            message=f"the program's stdout after answering {previous.describe()}, its last "
                    "request", field="the line",
            expected="nothing: no run request was left to answer, and the stop request has "
                     "no answer",
            received=f"{text}: a second answer to {previous.describe()} (input "
                     f"{shown(previous.input, 160)}), or an answer to the stop request",
            fix="Answer every run request with exactly one line, write nothing else on stdout, "
                "and answer the stop request with nothing (spec/protocol.md §5.1, §6).",
        )

    def stderr_tail(self) -> str:
        return self._stderr.tail()

    def exhausted(self) -> bool:
        if self._given_up is None and self._needs_restart and self.restart_count.spent():
            # The program needs a restart and the run has none left (another worker may have
            # spent them): it is given up on now, as the restart it would need would give it
            # up, so that whoever asks learns why and when.
            self._give_up(self._last_failure)
        return self.given_up() is not None

    @property
    def peak_line_bytes(self) -> int:
        """The most bytes of one answer line ever held in memory (never above the line limit)."""
        current = self._program.lines.peak if self._program is not None else 0
        return max(self._peak_line_bytes, current)

    def __enter__(self) -> SubprocessAdapter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- the program's life -----------------------------------------------------------------------

    def _usage_error(self, reason: str, fix: str) -> ImplementationError:
        return ImplementationError(value=self.description, source=self._source, reason=reason,
                                   fix=fix)

    def _stderr_excerpt(self) -> str:
        tail = self._stderr.tail().strip()
        if not tail:
            return "It wrote nothing on stderr."
        if len(tail) > 2000:
            tail = "…" + tail[-2000:]
        return "Its stderr ends with:\n" + "\n".join(f"  | {line}" for line in tail.splitlines())

    def _spawn(self) -> _Program:
        options: dict[str, Any] = {}
        if os.name == "posix":
            options["start_new_session"] = True  # a process group to kill as a whole (spec §7)
        else:  # pragma: no cover - exercised on Windows only
            options["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        command: str | list[str] = " ".join(self.argv) if self._use_shell else self.argv
        try:
            popen = subprocess.Popen(
                command, shell=self._use_shell, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, bufsize=0, env=self._env, cwd=self._cwd, **options,
            )
        except FileNotFoundError:
            raise _not_found(self.argv[0], self.description, self._source,
                             self.argv) from None
        except PermissionError:
            raise self._usage_error(
                f"cannot run {self.argv[0]!r}: it is not executable",
                f"Make it executable (chmod +x {shlex.quote(self.argv[0])}) or run it through "
                f"its interpreter, e.g. 'node {self.argv[0]}' or 'python3 {self.argv[0]}'",
            ) from None
        except OSError as error:
            raise self._usage_error(
                f"could not be started: {error}",
                "Check the command, its working directory and its environment",
            ) from None
        return _Program(popen, self.max_line_bytes, self._stderr)

    def _abandoned(self) -> bool:
        """Whether the run gave the program up (another worker process may have)."""
        return self.restart_count.given_up() is not None

    def _shake_hands(self, program: _Program, *, restarted: bool = False) -> StartResponse:
        """Send the start request to a fresh program; on failure it is killed."""
        try:
            line = program.exchange(encode(START), self.start_timeout,
                                    self._abandoned if restarted else None)
            if isinstance(line, _Abandoned):
                raise _StartFailed("was given up on while it answered the start request")
            if line is None:
                unfinished = program.lines.unfinished()
                raise _StartFailed(
                    f"did not answer the start request within {self.start_timeout:g} s"
                    + (f": {unfinished}" if unfinished else
                       " (it wrote nothing on stdout)"))
            if isinstance(line, _EndOfStream):
                code = program.exit_after_eof()
                unfinished = program.lines.unfinished()
                raise _StartFailed(f"{_exit_words(code)} before answering the start request"
                                   + (f"; {unfinished}" if unfinished else ""))
            if isinstance(line, _LeaderExited):
                code = _exit_code(program.kill(), line.code)
                raise _StartFailed(f"{_exit_words(code)} before answering the start request"
                                   + _STILL_OPEN)
            if isinstance(line, _Overlong):
                raise _StartFailed(
                    "answered the start request with a line longer than "
                    f"{self.max_line_bytes} bytes",
                    replace(self._overlong("the answer to the start request", line),
                            fix="Answer the start request with one short JSON line "
                                "(spec/protocol.md §4.2)."),
                )
            try:
                return start_response_from_json(
                    parse_line(line, "the answer to the start request")
                )
            except ProtocolError as error:
                raise _StartFailed(str(error), error) from None
        except BaseException:  # a failed start, or a signal ending the run: nothing is left
            program.kill()
            self._note_peak(program)
            raise

    def _lost(self, program: _Program) -> None:
        self._note_peak(program)
        self._program = None
        self._needs_restart = True

    def _note_peak(self, program: _Program) -> None:
        self._peak_line_bytes = max(self._peak_line_bytes, program.lines.peak)

    def _restart(self) -> None:
        """Start the program afresh and replay the handshake, within the restart limit."""
        # Another worker may have spent the last restarts since this program failed: the reason
        # given is then what this program did.
        reason = self._last_failure
        while (number := self.restart_count.take()) is not None:
            self.restarts += 1
            limit = self.restart_count.limit
            self._stderr.append(f"\n[eventproof: restart {number} of {limit} in a row]\n".encode())
            try:
                program = self._spawn()
                again = self._shake_hands(program, restarted=True)
            except ImplementationError as error:
                reason = error.reason
                continue
            except _StartFailed as failure:
                reason = f"the restarted program {failure.reason}"
                continue
            assert self._handshake is not None
            changed = handshake_changed(
                self._handshake, again,
                f"when it was restarted (restart {self.restarts} of the run)")
            if changed is not None:
                program.kill()
                self._note_peak(program)
                self._changed = changed
                raise changed
            self._program = program
            self._needs_restart = False
            return
        self._give_up(reason)

    def _give_up(self, last: str) -> None:
        """Give the program up for the rest of the run: every later request is a crash at once."""
        count = self.restart_count
        self._given_up = count.give_up(
            f"restart limit reached: the program (--impl {shlex.quote(self.description)}) "
            f"was restarted {count.in_a_row} "
            f"time(s) in a row without answering a request (max_restarts={count.limit}, "
            "counted across the whole run: every operation and worker process) and is not "
            f"started again; the last failure: {last}"
        )
        self._needs_restart = False


def _failure_words(response: Response) -> str:
    """What went wrong with an unanswered request, in a few words."""
    if isinstance(response, TimedOut):
        return response.describe()
    if isinstance(response, Crashed):
        return response.message
    if isinstance(response, Broken):
        return str(response.error).split(". ")[0]
    return "no answer"


def _in_step(value: Any, request: RunRequest) -> bool:
    """Whether a rejected answer still echoed the right seq, so the stream is in step."""
    return isinstance(value, dict) and type(value.get("seq")) is int and value["seq"] == request.seq


def _outcome_of_response(response: RunResponse) -> Response:
    if isinstance(response, RunOutput):
        return Ok(response.output)
    if isinstance(response, RunSkipped):
        return Skipped(response.reason, response.issue_url)
    assert isinstance(response, RunErrored)
    message = response.message
    if response.context is not None:
        message = f"{message} (context: {shown(response.context, 500)})"
    return ImplErrored(message)




def _exit_code(after_kill: int | None, seen: int | None) -> int | None:
    """The leader's exit status: the one seen when it exited, else what the kill reaped."""
    return seen if seen is not None else after_kill


def _prefix(data: bytes) -> str:
    """The first bytes of an overlong line, marked as a beginning only."""
    return repr(data[:80]) + ("…" if len(data) > 80 else "")


def _late_answer(error: ProtocolError, value: Any, previous: RunRequest | None) -> \
        ProtocolError | None:
    """When a rejected answer echoes the previous request's seq: say it is a second (or late)
    answer to that request, which this one's input did not cause."""
    if (previous is None or not isinstance(value, dict) or type(value.get("seq")) is not int
            or value["seq"] != previous.seq):
        return None
    return replace(
        error, field="$.seq",
        received=(f"{previous.seq}: a second answer to {previous.describe()}, already answered "
                  f"(its input: {shown(previous.input, 160)}); this request was never answered "
                  "and its input is not at fault"),
        fix="Answer every run request exactly once, in order, and flush after each answer "
            "(spec/protocol.md §5.1, §7.5).",
    )


#: The module that serves a ``python:`` implementation in a process of its own (``--isolate``).
WORKER_MODULE = __name__.rsplit(".", 2)[0] + "._worker"
#: How the worker marks, on stderr, the whole text of a refusal to start.
REFUSAL_MARK = "eventproof-worker refused: "


class IsolatedAdapter(SubprocessAdapter):
    """A ``python:MODULE:ATTR`` implementation in a worker process speaking spec/protocol.md
    (``--isolate``): ``os._exit``, signals, ``print()`` and hangs are handled exactly as for any
    program. The target is imported in the worker only."""

    def __init__(self, spec: str, *, timeout: float, source: str = "--impl") -> None:
        super().__init__([sys.executable, "-m", WORKER_MODULE, spec], timeout=timeout,
                         description=spec, source=source)

    def start(self) -> StartResponse:
        try:
            return super().start()
        except ProtocolError as error:
            if error.field != "$.error":
                raise
            # The worker could not load the target: its refusal, written whole on stderr too,
            # is the in-process message.
            refusal = error.received
            for line in reversed(self.stderr_tail().splitlines()):
                if line.startswith(REFUSAL_MARK):
                    with contextlib.suppress(ValueError):
                        refusal = json.loads(line[len(REFUSAL_MARK):])
                    break
            raise HarnessError(f"{clip_text(str(refusal), STDERR_CHARACTERS)} (loaded in a "
                               "worker process: --isolate)") from None
