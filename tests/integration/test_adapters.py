"""The adapters at the process boundary: every misbehaviour gets its outcome in bounded time.

The programs in ``programs/`` are well-behaved echoes (see ``programs/_serve.py``) except on a
request whose input holds ``"misbehave": true``; then each misbehaves its own way.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._adapters import (
    STDERR_TAIL_BYTES,
    Broken,
    Crashed,
    ImplementationError,
    InProcessAdapter,
    Ok,
    Skipped,
    SubprocessAdapter,
    TimedOut,
    adapter_for,
)
from eventproof.conformance._model import ImplErrored
from eventproof.conformance._protocol import ProtocolError
from eventproof.reference import Reference

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "programs"
STARTED = "test-program: handshake"  # what programs/_serve.py logs per handshake
MISBEHAVE = {"misbehave": True}
TIMEOUT = 1.0
#: Slack for starting a Python program and killing one, on a slow machine.
SLACK = 3.0

HANDSHAKE: dict[str, Any] = {
    "version": 1,
    "implementation": {"name": "in-process", "language": "python"},
    "capabilities": {"ops": ["select", "classify"]},
}


def program(name: str, *args: str) -> list[str]:
    return [sys.executable, str(PROGRAMS / name), *args]


@pytest.fixture
def spawn() -> Iterator[Callable[..., SubprocessAdapter]]:
    """Builds started subprocess adapters and stops them all after the test."""
    adapters: list[SubprocessAdapter] = []

    def make(name: str, **options: Any) -> SubprocessAdapter:
        options.setdefault("timeout", TIMEOUT)
        adapter = SubprocessAdapter(program(name), **options)
        adapters.append(adapter)
        adapter.start()
        return adapter

    yield make
    for adapter in adapters:
        adapter.stop()


class Clock:
    """Measures one call."""

    def __enter__(self) -> Clock:
        self.started = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.monotonic() - self.started


def eventually(condition: Callable[[], bool], seconds: float = SLACK) -> bool:
    """Whether ``condition`` holds within ``seconds``: stderr is read by a thread of its own,
    so what a program wrote there can arrive a moment after its answer."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def echoed(value: Any, op: str = "select") -> Ok:
    return Ok({"op": op, "input": value})


# -- a conforming program ----------------------------------------------------------------------


def test_echo_program_handshakes_answers_and_stops(spawn: Callable[..., SubprocessAdapter]) -> None:
    """A conforming program's handshake and answers come through, and stop ends it with 0."""
    adapter = spawn("echo.py")
    handshake = adapter.start()
    assert handshake.implementation.name == "echo"
    assert handshake.capabilities.ops == frozenset({"select", "classify"})
    assert adapter.run("select", {"a": 1}) == echoed({"a": 1})
    assert adapter.run("classify", [1, None]) == echoed([1, None], "classify")
    process = adapter._program
    assert process is not None
    adapter.stop()
    assert process.popen.returncode == 0
    adapter.stop()  # idempotent
    with pytest.raises(RuntimeError):
        adapter.run("select", {})


def test_skipped_and_errored_answers_map_to_outcomes(
    spawn: Callable[..., SubprocessAdapter],
) -> None:
    """skipped keeps its reason and link; errored becomes ImplErrored with its context shown."""
    adapter = spawn("echo.py")
    assert adapter.run("select", {"skip": "not ported"}) == Skipped(
        "not ported", "https://example.com/issues/1"
    )
    answer = adapter.run("select", {"error": "bad event"})
    assert isinstance(answer, ImplErrored)
    assert answer.message.startswith("bad event")
    assert '"seen": true' in answer.message


STRANGE_STRINGS = ["\ud800", "a\udfffb", "\U0001f600", "\x00\x1f\x7f", "\u2028é", "\udfff\ud800"]
#: A high and a low surrogate side by side are one astral character once in JSON text, on
#: either path (as in JavaScript); lone ones, in either order, stay as they are.
PAIR, JOINED = "\ud83d\ude00", "\U0001f600"


def test_strange_strings_survive_both_paths_identically(
    spawn: Callable[..., SubprocessAdapter],
) -> None:
    """Lone surrogates, astral and control characters reach a program and come back unchanged,
    exactly as the in-process path returns them; a surrogate pair arrives joined on both."""

    class Echo:
        def start(self) -> dict[str, Any]:
            return HANDSHAKE

        def run(self, op: str, input: Any) -> Any:
            return {"op": op, "input": input}

    subprocess_adapter = spawn("echo.py")
    in_process = InProcessAdapter(Echo(), timeout=TIMEOUT)
    value = {text: [text, {"k": text}] for text in STRANGE_STRINGS}
    assert subprocess_adapter.run("select", value) == echoed(value)
    assert in_process.run("select", value) == echoed(value)
    assert subprocess_adapter.run("select", [PAIR]) == echoed([JOINED])
    assert in_process.run("select", [PAIR]) == echoed([JOINED])


# -- misbehaving programs ------------------------------------------------------------------------


def test_hang_times_out_and_the_restart_replays_the_handshake(
    spawn: Callable[..., SubprocessAdapter],
) -> None:
    """A hung request is TimedOut after its deadline; the next request goes to a restarted
    program that received the handshake again (it refuses runs before a handshake)."""
    adapter = spawn("hang.py")
    with Clock() as clock:
        answer = adapter.run("select", MISBEHAVE)
    assert isinstance(answer, TimedOut)
    assert answer.seconds == TIMEOUT
    assert TIMEOUT <= clock.seconds < TIMEOUT + SLACK
    assert adapter.run("select", {"after": 1}) == echoed({"after": 1})
    assert adapter.restarts == 1
    assert eventually(lambda: adapter.stderr_tail().count(STARTED) == 2)


def test_per_request_timeout_overrides_the_default(
    spawn: Callable[..., SubprocessAdapter],
) -> None:
    """run(timeout=…) bounds that request, and the TimedOut says which bound applied."""
    adapter = spawn("hang.py", timeout=30.0)
    with Clock() as clock:
        answer = adapter.run("select", MISBEHAVE, timeout=0.5)
    assert isinstance(answer, TimedOut)
    assert answer.seconds == 0.5
    assert clock.seconds < 0.5 + SLACK


def test_crash_reports_exit_code_and_stderr(spawn: Callable[..., SubprocessAdapter]) -> None:
    """A program that exits mid-request is Crashed with its exit code and what it said."""
    adapter = spawn("crash.py")
    adapter.run("select", {"first": 1})
    answer = adapter.run("select", MISBEHAVE)
    assert isinstance(answer, Crashed)
    assert answer.exit_code == 3
    assert "exited with code 3 while answering run request seq 2 (op select)" in answer.message
    assert "fatal: boom while answering 2" in answer.stderr
    assert adapter.run("select", {"after": 1}) == echoed({"after": 1})


def test_garbage_line_is_broken_and_the_program_restarted(
    spawn: Callable[..., SubprocessAdapter],
) -> None:
    """A stray line on stdout is Broken, quoted in the error, and the next request is clean."""
    adapter = spawn("garbage.py")
    answer = adapter.run("select", MISBEHAVE)
    assert isinstance(answer, Broken)
    assert answer.error.field == "the line"
    assert "debug: computing the answer..." in answer.error.received
    assert "stderr" in answer.error.fix
    assert adapter.run("select", {"after": 1}) == echoed({"after": 1})
    assert adapter.restarts == 1


def test_wrong_seq_is_broken(spawn: Callable[..., SubprocessAdapter]) -> None:
    """An answer carrying another seq is Broken at $.seq, naming the request."""
    adapter = spawn("wrong_seq.py")
    answer = adapter.run("select", MISBEHAVE)
    assert isinstance(answer, Broken)
    assert answer.error.field == "$.seq"
    assert answer.error.message == "the answer to run request seq 1 (op select)"
    assert answer.error.received == "2"
    assert adapter.run("select", {"after": 1}) == echoed({"after": 1})


def test_schema_error_with_the_right_seq_keeps_the_program(
    spawn: Callable[..., SubprocessAdapter],
) -> None:
    """An answer that breaks the schema but echoes the right seq is Broken without a restart."""
    adapter = spawn("bad_member.py")
    answer = adapter.run("select", MISBEHAVE)
    assert isinstance(answer, Broken)
    assert '"debug"' in answer.error.expected
    assert adapter.run("select", {"after": 1}) == echoed({"after": 1})
    assert adapter.restarts == 0


def test_partial_line_times_out(spawn: Callable[..., SubprocessAdapter]) -> None:
    """Half an answer without a newline is no answer: TimedOut, then a clean restart."""
    adapter = spawn("partial_line.py")
    with Clock() as clock:
        answer = adapter.run("select", MISBEHAVE)
    assert isinstance(answer, TimedOut)
    assert clock.seconds < TIMEOUT + SLACK
    assert adapter.run("select", {"after": 1}) == echoed({"after": 1})


def test_giant_line_is_cut_at_the_cap_in_bounded_memory(
    spawn: Callable[..., SubprocessAdapter],
) -> None:
    """A 100 MB line is Broken once the cap is reached; no more than the cap is ever held."""
    cap = 1024 * 1024
    adapter = spawn("giant_line.py", max_line_bytes=cap)
    tracemalloc.start()
    try:
        with Clock() as clock:
            answer = adapter.run("select", MISBEHAVE)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(answer, Broken)
    assert answer.error.field == "the line"
    assert f"more than {cap} bytes" in answer.error.received
    assert clock.seconds < SLACK
    assert adapter.peak_line_bytes <= cap
    assert peak < 8 * cap  # the cap, a read chunk and bookkeeping; never the 100 MB
    assert adapter.run("select", {"after": 1}) == echoed({"after": 1})


def test_chatty_stderr_never_blocks_and_is_bounded(
    spawn: Callable[..., SubprocessAdapter],
) -> None:
    """10 MB on stderr neither blocks the answer nor grows the kept tail past its bound."""
    adapter = spawn("chatty.py")
    with Clock() as clock:
        answer = adapter.run("select", MISBEHAVE)
    assert answer == echoed(MISBEHAVE)
    assert clock.seconds < SLACK
    assert eventually(lambda: adapter.stderr_tail().rstrip().endswith("last words"))
    tail = adapter.stderr_tail()
    assert len(tail.encode()) <= STDERR_TAIL_BYTES + 100
    assert "earlier bytes not kept" in tail


def test_restart_limit_is_enforced(spawn: Callable[..., SubprocessAdapter]) -> None:
    """After max_restarts restarts, every request is Crashed at once, without a new program."""
    adapter = spawn("crash.py", max_restarts=2)
    for _ in range(3):
        answer = adapter.run("select", MISBEHAVE)
        assert isinstance(answer, Crashed)
        assert answer.exit_code == 3
    assert adapter.exhausted()
    with Clock() as clock:
        answer = adapter.run("select", {"fine": True})
    assert isinstance(answer, Crashed)
    assert answer.message.startswith("restart limit reached")
    assert "max_restarts=2" in answer.message
    assert clock.seconds < 0.5
    assert adapter.restarts == 2
    assert adapter.stderr_tail().count(STARTED) == 3


def test_program_ignoring_stop_is_killed() -> None:
    """A program that ignores stop, end of input and SIGTERM is still gone after stop()."""
    adapter = SubprocessAdapter(program("ignore_stop.py"), timeout=TIMEOUT)
    adapter.start()
    assert adapter.run("select", {"a": 1}) == echoed({"a": 1})
    process = adapter._program
    assert process is not None
    with Clock() as clock:
        adapter.stop()
    assert process.popen.returncode is not None
    assert clock.seconds < 2 + SLACK


def test_context_manager_stops_the_program() -> None:
    """Leaving the with block stops the program."""
    with SubprocessAdapter(program("echo.py"), timeout=TIMEOUT) as adapter:
        adapter.start()
        process = adapter._program
    assert process is not None
    assert process.popen.returncode == 0


def test_shell_flag_runs_through_the_shell() -> None:
    """With use_shell the command line reaches the shell as it is (a redirection works)."""
    command = f"{sys.executable} {PROGRAMS / 'echo.py'} 2>/dev/null"
    adapter = adapter_for(command, timeout=TIMEOUT, use_shell=True)
    assert isinstance(adapter, SubprocessAdapter)
    with adapter:
        assert adapter.start().implementation.name == "echo"
        assert adapter.stderr_tail() == ""  # the shell sent it elsewhere
        assert adapter.run("select", 1) == echoed(1)


# -- failures at the handshake --------------------------------------------------------------------


def test_silent_start_is_a_usage_error_in_bounded_time() -> None:
    """A program that never answers the handshake is an ImplementationError naming the command
    and fix."""
    adapter = SubprocessAdapter(program("silent_start.py"), timeout=TIMEOUT)
    with Clock() as clock, pytest.raises(ImplementationError) as caught:
        adapter.start()
    text = str(caught.value)
    assert clock.seconds < TIMEOUT + SLACK
    assert text.startswith("--impl ")
    assert "silent_start.py" in text
    assert "did not answer the start request within 1 s" in text
    assert "Run the command by hand" in text
    adapter.stop()


def test_exit_before_start_shows_exit_code_and_stderr() -> None:
    """A program that exits before the handshake is an ImplementationError with its code and
    stderr."""
    adapter = SubprocessAdapter(program("exit_before_start.py"), timeout=TIMEOUT)
    with pytest.raises(ImplementationError) as caught:
        adapter.start()
    text = str(caught.value)
    assert "exited with code 2 before answering the start request" in text
    assert "cannot find my-port.config.json" in text
    adapter.stop()


def test_version_two_names_both_versions() -> None:
    """A handshake in protocol version 2 is a ProtocolError naming versions 1 and 2."""
    adapter = SubprocessAdapter(program("version_two.py"), timeout=TIMEOUT)
    with pytest.raises(ProtocolError) as caught:
        adapter.start()
    assert caught.value.field == "$.version"
    assert "protocol version 1" in str(caught.value)
    assert "protocol version 2" in str(caught.value)
    adapter.stop()


# -- in process --------------------------------------------------------------------------------


class Busy:
    """Spins forever on a request with "spin"; counts how often it was built and started."""

    built = 0
    started = 0

    def __init__(self) -> None:
        type(self).built += 1

    def start(self) -> dict[str, Any]:
        type(self).started += 1
        return HANDSHAKE

    def run(self, op: str, input: Any) -> Any:
        if isinstance(input, dict) and input.get("spin"):
            while True:
                pass
        return {"op": op, "input": input}


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="needs SIGALRM")
def test_sigalrm_interrupts_a_busy_loop_and_rebuilds_the_factory() -> None:
    """A pure-Python `while True: pass` is interrupted at the deadline, and a factory-built
    implementation is built and started again before the next request."""
    Busy.built = Busy.started = 0
    adapter = InProcessAdapter(Busy, timeout=0.3)
    adapter.start()
    with Clock() as clock:
        answer = adapter.run("select", {"spin": True})
    assert answer == TimedOut(0.3)
    assert 0.3 <= clock.seconds < 0.3 + SLACK
    assert (Busy.built, Busy.started) == (2, 2)
    assert adapter.run("select", {"after": 1}) == echoed({"after": 1})


def test_an_object_given_as_is_is_not_rebuilt() -> None:
    """After a timeout an object handed over as it is keeps being used."""
    Busy.built = Busy.started = 0
    impl = Busy()
    adapter = InProcessAdapter(impl, timeout=0.3)
    assert isinstance(adapter.run("select", {"spin": True}), TimedOut)
    assert adapter.run("select", 1) == echoed(1)
    assert (Busy.built, Busy.started) == (1, 1)


def test_off_the_main_thread_the_call_is_abandoned_at_the_deadline() -> None:
    """Where SIGALRM cannot be used, a slow call still answers TimedOut at its deadline."""
    release = threading.Event()

    class Slow:
        def start(self) -> dict[str, Any]:
            return HANDSHAKE

        def run(self, op: str, input: Any) -> Any:
            release.wait(10)
            return None

    results: list[Any] = []

    def worker() -> None:
        adapter = InProcessAdapter(Slow(), timeout=0.3)
        started = time.monotonic()
        results.append(adapter.run("select", {}))
        results.append(time.monotonic() - started)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(10)
    release.set()
    assert results[0] == TimedOut(0.3)
    assert results[1] < 0.3 + SLACK


class Moody:
    """Answers according to the op it is asked, to exercise each outcome."""

    def start(self) -> dict[str, Any]:
        return HANDSHAKE

    def run(self, op: str, input: Any) -> Any:
        if op == "skip":
            raise NotImplementedError("fold is not ported yet")
        if op == "skip-bare":
            raise NotImplementedError
        if op == "raise":
            raise ValueError("not an assistant message")
        if op == "exit":
            sys.exit(4)
        if op == "mutate":
            input["events"].append("added by the implementation")
            return input
        return input


@pytest.mark.parametrize(
    ("op", "expected"),
    [
        ("skip", Skipped("fold is not ported yet")),
        ("skip-bare", Skipped("run() raised NotImplementedError for op skip-bare")),
        ("raise", ImplErrored("ValueError: not an assistant message")),
        ("exit", Crashed("run() called sys.exit(4) on op exit", exit_code=4)),
    ],
)
def test_in_process_exceptions_map_to_outcomes(op: str, expected: Any) -> None:
    """NotImplementedError skips, sys.exit crashes, any other exception errs as 'Type: message'."""
    assert InProcessAdapter(Moody(), timeout=TIMEOUT).run(op, {}) == expected


@pytest.mark.parametrize(
    ("output", "fragment"),
    [
        ((1, 2), "$ is a tuple; JSON has arrays only: return a list"),
        ({1: "a"}, "$ has the key 1 (int); JSON object keys are strings"),
        ({"a": [{"b": {1, 2}}]}, '$["a"][0]["b"] is a value of type set'),
        ([float("nan")], "$[0] is nan, which JSON cannot represent"),
        ({"x": float("inf")}, '$["x"] is inf'),
        ({"x": b"bytes"}, '$["x"] is a value of type bytes'),
        (object(), "$ is a value of type object"),
    ],
)
def test_non_json_outputs_are_errored_with_the_path(output: Any, fragment: str) -> None:
    """An output that is not a JSON value is ImplErrored, naming the path and the fix."""

    class Returns:
        def start(self) -> dict[str, Any]:
            return HANDSHAKE

        def run(self, op: str, input: Any) -> Any:
            return output

    answer = InProcessAdapter(Returns(), timeout=TIMEOUT).run("select", {})
    assert isinstance(answer, ImplErrored)
    assert answer.message.startswith("the output is not a JSON value: ")
    assert fragment in answer.message


def test_inputs_and_outputs_are_copies() -> None:
    """The implementation gets its own copy of the input, and the harness its own output."""
    original = {"events": [1]}
    adapter = InProcessAdapter(Moody(), timeout=TIMEOUT)
    answer = adapter.run("mutate", original)
    assert original == {"events": [1]}
    assert answer == Ok({"events": [1, "added by the implementation"]})


def test_in_process_handshake_is_checked() -> None:
    """start() answering protocol version 2 is refused exactly as a program's would be."""

    class Future:
        def start(self) -> dict[str, Any]:
            return {**HANDSHAKE, "version": 2}

        def run(self, op: str, input: Any) -> Any:
            return None

    with pytest.raises(ProtocolError) as caught:
        InProcessAdapter(Future(), timeout=TIMEOUT).start()
    assert "protocol version 2" in str(caught.value)


def test_in_process_start_raising_is_a_usage_error() -> None:
    """start() raising is an ImplementationError that names the object and the exception."""

    class Broken:
        def start(self) -> dict[str, Any]:
            raise RuntimeError("config missing")

        def run(self, op: str, input: Any) -> Any:
            return None

    with pytest.raises(ImplementationError) as caught:
        InProcessAdapter(Broken(), timeout=TIMEOUT).start()
    assert "raised RuntimeError: config missing in start()" in str(caught.value)
    assert "spec/protocol.md §4.2" in str(caught.value)


# -- adapter_for --------------------------------------------------------------------------------

MODULE = '''
import sys

HANDSHAKE = {"version": 1, "implementation": {"name": "user", "language": "python"},
             "capabilities": {"ops": ["select"]}}


class Impl:
    def start(self):
        return HANDSHAKE

    def run(self, op, input):
        return {"op": op, "input": input}


class Holder:
    impl = Impl()


def make():
    return Impl()


def needs_args(option):
    return Impl()


def returns_int():
    return 7


CONSTANT = "text"
'''


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module named uniquely for the test, in the current directory (as a user's would be)."""
    name = f"user_impl_{re.sub(r'[^0-9a-z]', '_', tmp_path.name.lower())}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    (tmp_path / "imports_missing.py").write_text("import not_installed_dependency_xyz\n")
    (tmp_path / "fails_on_import.py").write_text("raise RuntimeError('no config')\n")
    (tmp_path / "not_executable.sh").write_text("echo hi\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    for each in ("imports_missing", "fails_on_import"):
        monkeypatch.delitem(sys.modules, each, raising=False)
    return name


@pytest.mark.parametrize("attr", ["Impl", "Holder.impl", "make"])
def test_python_spec_imports_from_the_current_directory(user_module: str, attr: str) -> None:
    """python:MODULE:ATTR finds a module in the current directory; ATTR may be an object, a
    dotted path or a factory."""
    adapter = adapter_for(f"python:{user_module}:{attr}", timeout=TIMEOUT)
    assert isinstance(adapter, InProcessAdapter)
    assert adapter.start().implementation.name == "user"
    assert adapter.run("select", [1]) == echoed([1])


def test_objects_and_factories_are_used_in_process() -> None:
    """An object, or a zero-argument factory, passed directly runs in process."""
    for impl in (Reference(), Reference, lambda: Reference("maximal")):
        adapter = adapter_for(impl, timeout=TIMEOUT)
        assert isinstance(adapter, InProcessAdapter)
        assert adapter.run("classify", {"event": {"type": "message_update"}}) == Ok("frame")


def test_command_lines_are_split_without_a_shell() -> None:
    """Any other string is split like a POSIX shell would and started as a program."""
    command = f"'{sys.executable}' '{PROGRAMS / 'echo.py'}'"
    adapter = adapter_for(command, timeout=TIMEOUT)
    assert isinstance(adapter, SubprocessAdapter)
    assert adapter.argv == program("echo.py")
    adapter.stop()


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("python:no_such_module_xyz:Impl", ["cannot be found", "Check the spelling"]),
        ("python:imports_missing:Impl", ["'not_installed_dependency_xyz'", "Install"]),
        ("python:fails_on_import:Impl", ["raised RuntimeError: no config", "python -c"]),
        ("python:{module}:Impll", ["has no attribute 'Impll'",
                                   "Did you mean python:{module}:Impl?"]),
        ("python:{module}:Holder.imp", ["has no attribute 'imp'",
                                        "Did you mean python:{module}:Holder.impl?"]),
        ("python:{module}.Impl", ["python:MODULE:ATTR", "Did you mean python:{module}:Impl?"]),
        ("python:{module}.py:Impl", ["not a module", "Did you mean python:{module}:Impl?"]),
        ("python:{module}:CONSTANT", ["value of type str, which has no start() and run()",
                                      "python:eventproof.reference:Reference"]),
        ("python:{module}:needs_args", ["needs the argument(s) option", "no arguments"]),
        ("python:{module}:returns_int", ["returned a value of type int", "start() -> dict"]),
        ("", ["is empty", "python:MODULE:ATTR"]),
        ("   ", ["is empty", "python:MODULE:ATTR"]),
        ("no-such-program-xyz --flag", ["'no-such-program-xyz' was not found on PATH",
                                        "--shell"]),
        ("{module}:Impl", ["not found on PATH", "Did you mean python:{module}:Impl?"]),
        ("adapter.js", ["not found on PATH", "node adapter.js"]),
        ("'unbalanced", ["cannot be split into words", "Balance the quotes"]),
        ("./not_executable.sh", ["is not executable", "chmod +x"]),
    ],
)
def test_every_usage_error_names_the_value_the_source_and_the_fix(
    user_module: str, spec: str, fragments: list[str]
) -> None:
    """Each mistake in --impl is an ImplementationError naming the value, --impl, why, and the
    fix."""
    spec = spec.format(module=user_module)
    with pytest.raises(ImplementationError) as caught:
        adapter_for(spec, timeout=TIMEOUT)
    text = str(caught.value)
    assert text.startswith(f"--impl {spec!r}: ")
    for fragment in fragments:
        assert fragment.format(module=user_module) in text
    assert "Traceback" not in text


def test_a_built_adapter_is_passed_through() -> None:
    """An adapter built by hand (with its own options) is used as it is, not wrapped."""
    adapter = SubprocessAdapter(program("echo.py"), timeout=TIMEOUT, max_restarts=0)
    assert adapter_for(adapter, timeout=TIMEOUT) is adapter


def test_deep_outputs_are_errored_not_raised() -> None:
    """An output nested deeper than JSON can be copied is ImplErrored, not a harness crash."""
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]

    class Deep:
        def start(self) -> dict[str, Any]:
            return HANDSHAKE

        def run(self, op: str, input: Any) -> Any:
            return deep

    assert isinstance(InProcessAdapter(Deep(), timeout=TIMEOUT).run("select", {}), ImplErrored)


def test_a_value_without_start_and_run_is_a_usage_error() -> None:
    """A non-callable object without start/run passed directly is refused with the fix."""
    with pytest.raises(ImplementationError) as caught:
        adapter_for(42, timeout=TIMEOUT)
    assert "has no start() and run()" in str(caught.value)


def test_usage_error_is_frozen_and_picklable() -> None:
    """ImplementationError keeps its fields and pickles (reports may cross processes)."""
    import pickle

    error = ImplementationError(value="x", source="--impl", reason="is wrong", fix="Do better")
    assert pickle.loads(pickle.dumps(error)) == error
    assert str(error) == "--impl 'x': is wrong. Do better."


# -- the worked examples in the documentation ------------------------------------------------------


def _code_block(document: Path, language: str, after: str) -> str:
    text = document.read_text("utf-8")
    start = text.index(after)
    match = re.search(rf"```{language}\n(.*?)```", text[start:], re.DOTALL)
    assert match is not None, f"no {language} block after {after!r} in {document}"
    return match.group(1)


REQUESTS: list[tuple[str, Any]] = [
    ("classify", {"event": {"type": "message_update"}}),
    ("select", {"events": [{"type": "assistant/chunk", "seq": 0, "time": "t",
                            "data": {"chunk": {"type": "text-delta", "index": 0, "text": "Hi"}}}]}),
    ("project", {"event": {"type": "turn_end", "message": {"role": "assistant", "content": []},
                           "toolResults": []},
                 "includeLiveEvents": False, "maxBytes": 262144}),
    ("project", {"event": {"type": "tool_execution_update", "toolCallId": "c\ud800",
                           "toolName": "t", "args": {}, "partialResult": "x" * 5000},
                 "includeLiveEvents": True, "maxBytes": 4096}),
]


def test_the_spec_worked_example_agrees_with_the_reference_in_process(tmp_path: Path) -> None:
    """The Python program of spec/protocol.md §9 speaks the protocol and answers exactly what
    the reference answers in process, erroneous inputs included."""
    source = _code_block(ROOT / "spec" / "protocol.md", "python", "## 9.")
    path = tmp_path / "eventproof_program.py"
    path.write_text(source)
    erroneous = ("project", {"event": {"type": "message_update", "message": {"role": "user"},
                                       "assistantMessageEvent": {"type": "start"}},
                             "includeLiveEvents": True, "maxBytes": 4096})
    with SubprocessAdapter([sys.executable, str(path), "maximal"], timeout=10.0) as program_:
        in_process = InProcessAdapter(Reference("maximal"), timeout=10.0)
        assert program_.start() == in_process.start()
        for op, value in [*REQUESTS, erroneous]:
            assert program_.run(op, value) == in_process.run(op, value), op
        assert isinstance(program_.run(*erroneous), ImplErrored)


NODE_PORT = """
const FRAMES = new Set(["message_update", "tool_execution_update"]);
export const classifyEvent = (event) => {
  if (typeof event.type !== "string") throw new Error("event.type is not a string");
  console.log("classifying", event.type);
  return FRAMES.has(event.type) ? "frame" : "fact";
};
export const selectOutput = (events) => events;
"""


@pytest.mark.node
@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js on PATH")
def test_the_guide_node_adapter_speaks_the_protocol(tmp_path: Path) -> None:
    """The JavaScript adapter of docs/write-an-adapter.md declares what the port exports,
    answers, errs, skips, keeps stdout clean and exits 0 on stop."""
    source = _code_block(ROOT / "docs" / "write-an-adapter.md", "javascript", "## 2.")
    (tmp_path / "eventproof-adapter.mjs").write_text(source)
    (tmp_path / "my-port.mjs").write_text(NODE_PORT)
    adapter = SubprocessAdapter(["node", str(tmp_path / "eventproof-adapter.mjs")], timeout=10.0)
    handshake = adapter.start()
    assert handshake.capabilities.ops == frozenset({"select", "classify"})
    assert adapter.run("classify", {"event": {"type": "message_update"}}) == Ok("frame")
    assert adapter.run("classify", {"event": {"type": 3}}) == ImplErrored(
        "event.type is not a string"
    )
    assert adapter.run("fold", {"pushes": []}) == Skipped("fold is not implemented")
    strange = {"events": STRANGE_STRINGS}
    assert adapter.run("select", strange) == Ok(STRANGE_STRINGS)
    process = adapter._program
    assert process is not None
    adapter.stop()
    assert process.popen.returncode == 0
    assert "classifying message_update" in adapter.stderr_tail()  # reaped: stderr complete


def test_protocol_lines_in_the_spec_are_valid_messages() -> None:
    """Every → and ← line in spec/protocol.md and the guide is a schema-valid message."""
    from eventproof.conformance._schemas import schema_issues

    checked = 0
    for document in (ROOT / "spec" / "protocol.md", ROOT / "docs" / "write-an-adapter.md"):
        for line in document.read_text("utf-8").splitlines():
            if line.startswith(("→ ", "← ")):
                message = json.loads(line[2:])
                ref = "request" if line.startswith("→") else (
                    "startAnswer" if "version" in message else "runResponse"
                )
                assert schema_issues(message, f"protocol.json#/$defs/{ref}") == [], line
                checked += 1
    assert checked >= 10


def test_a_limit_spent_by_another_worker_gives_up_with_what_this_program_did(
        spawn: Callable[..., SubprocessAdapter]) -> None:
    """Under --jobs the restart limit is the run's: when another worker's restarts spend it
    between this program's failure and its restart, the run gives the program up with what this
    program did (here, exiting with code 3 while answering), never with a bare "it failed
    before"."""
    adapter = spawn("crash.py", max_restarts=2)
    assert isinstance(adapter.run("select", MISBEHAVE), Crashed)
    # Another worker process takes the run's remaining restarts (the count is shared).
    while adapter.restart_count.take() is not None:
        pass
    answer = adapter.run("select", {"fine": True})
    assert isinstance(answer, Crashed)
    assert answer.message.startswith("restart limit reached")
    assert "it failed before" not in answer.message
    assert "exited with code 3 while answering" in answer.message, answer.message
