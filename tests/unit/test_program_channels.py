"""The program's channels, piece by piece: what crosses between the processes of ``--jobs`` has no
depth limit; the restart limit is one count for a run, across worker processes; a line never
ended is reported with its bytes; an integer too long to read is named by its path, in any
member; a command that cannot start names the word at fault (spec/protocol.md §2.3, §2.4, §7)."""

from __future__ import annotations

import json
import multiprocessing
import shlex
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance import _flat
from eventproof.conformance._adapters import SubprocessAdapter, TimedOut
from eventproof.conformance._adapters._base import not_found, shebang_problem
from eventproof.conformance._adapters.restarts import RestartCount
from eventproof.conformance._errors import ImplementationError
from eventproof.conformance._protocol import (
    MAX_INTEGER_DIGITS,
    HugeInteger,
    RunRequest,
    decode_run_response,
    decode_start_response,
)
from hypothesis import given
from hypothesis import strategies as st

PROGRAMS = Path(__file__).resolve().parents[1] / "integration" / "programs"
names = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=6)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | names,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names, inner, max_size=4),
    max_leaves=20,
)
REQUEST = RunRequest(seq=17, op="project", input={"event": {"type": "agent_start"}})


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def depth_of(value: Any) -> int:
    depth = 0
    while isinstance(value, list | dict):
        value = value[0] if isinstance(value, list) else value["k"]
        depth += 1
    return depth


DEEP = {depth: nested(depth) for depth in (0, 1, 2_000)}


@given(value=json_values, depth=st.sampled_from(sorted(DEEP)))
def test_what_crosses_between_processes_comes_back_the_same(value: Any, depth: int) -> None:
    """A value holding answers pickles flat and reads back equal, containers and all."""
    wrapped = {"answer": value, "deep": DEEP[depth], "tuple": (1, [value])}
    back = _flat.loads(_flat.dumps(wrapped))
    assert json.dumps(back["answer"]) == json.dumps(value)
    assert json.dumps(back["tuple"][1]) == json.dumps([value])
    assert depth_of(back["deep"]) == depth


def test_an_answer_of_any_depth_crosses_between_processes() -> None:
    """100,000 deep, where pickle itself runs out of stack (a 500-deep answer once stopped a
    run of --jobs auto with 'ran out of stack while pickling')."""
    assert depth_of(_flat.loads(_flat.dumps({"deep": nested(100_000)}))["deep"]) == 100_000


def test_a_value_holding_itself_still_pickles() -> None:
    """A cycle is left to pickle's memo, which keeps it."""
    looped: list[Any] = []
    looped.append(looped)
    back = _flat.loads(_flat.dumps(looped))
    assert back[0] is back


def _take_all(restarts: RestartCount, taken: Any) -> None:
    while restarts.take() is not None:
        with taken.get_lock():
            taken.value += 1


def test_the_restart_limit_is_one_count_for_every_worker_process() -> None:
    """Restarts taken in several processes add up to the run's limit, not to one limit each;
    giving up in one process is seen, with its reason, in every other."""
    context: Any = multiprocessing.get_context("spawn" if sys.platform != "linux" else "fork")
    restarts = RestartCount(3, context=context)
    taken = context.Value("i", 0)
    processes = [context.Process(target=_take_all, args=(restarts, taken)) for _ in range(3)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(30)
    assert taken.value == 3
    assert restarts.spent()
    giver = context.Process(target=restarts.give_up, args=("the last failure: no answer",))
    giver.start()
    giver.join(30)
    reason = restarts.given_up()
    assert reason is not None
    assert reason.startswith("the last failure: no answer (given up on ")
    assert restarts.give_up("a later reason") == reason  # the first reason stands


def test_an_answer_resets_the_row_unless_the_program_was_given_up() -> None:
    """Any answered request starts the row again; a given-up program stays given up."""
    restarts = RestartCount(2)
    assert restarts.take() == 1
    restarts.answered()
    assert (restarts.take(), restarts.take(), restarts.take()) == (1, 2, None)
    restarts.give_up("gone")
    restarts.answered()
    assert restarts.take() is None
    assert restarts.given_up_at is not None


@pytest.mark.parametrize(("fault", "said"), [
    ("cr", ["but no line feed (\\n) after them", "carriage return (\\r) alone", "\\r'"]),
    ("halfline", ["but no line feed (\\n) after them", "b'{\"seq\":1,"]),
])
def test_a_line_never_ended_is_reported_with_its_bytes(
        fault: str, said: list[str], tmp_path: Path) -> None:
    """A program that writes an answer but no LF (CR alone, or half a line) did not answer, and
    the timeout says what it wrote and the fix, rather than that it wrote nothing."""
    argv = [sys.executable, str(PROGRAMS / "channel_fault.py"), str(tmp_path), fault, "1", "0"]
    with SubprocessAdapter(argv, timeout=1.0) as adapter:
        answer = adapter.run("select", {"events": []})
    assert isinstance(answer, TimedOut)
    for words in said:
        assert words in answer.describe()


def test_a_handshake_line_never_ended_is_reported_with_its_bytes(tmp_path: Path) -> None:
    """The same holds for the start request: the usage error shows the bytes and the fix."""
    argv = [sys.executable, str(PROGRAMS / "channel_fault.py"), str(tmp_path), "cr", "0", "0"]
    adapter = SubprocessAdapter(argv, timeout=1.0)
    with pytest.raises(ImplementationError) as caught:
        adapter.start()
    adapter.stop()
    assert "carriage return (\\r) alone, which does not end a line" in str(caught.value)
    assert '"version":1' in str(caught.value)


@st.composite
def placed(draw: st.DrawFn) -> tuple[str, str, int]:
    """An answer as JSON text with a too-long integer placed in a drawn member of its output
    (which no schema names), the JSONPath of that member, and the answer's seq."""
    output = draw(st.dictionaries(st.sampled_from(["a", "b", "c"]), json_values, min_size=1))
    holder: Any = output
    path, key = "$.output", draw(st.sampled_from(sorted(output)))
    while isinstance(holder[key], dict) and holder[key] and draw(st.booleans()):
        path, holder = f"{path}.{key}", holder[key]
        key = draw(st.sampled_from(sorted(holder)))
    if not (key.isidentifier() and key.isascii()):
        return draw(placed())
    holder[key] = "HUGE-INTEGER"
    digits = draw(st.integers(MAX_INTEGER_DIGITS + 1, MAX_INTEGER_DIGITS + 3000))
    try:  # an answer that is JSON but for the integer (no NaN or Infinity: another fault)
        written = json.dumps({"seq": REQUEST.seq, "output": output}, allow_nan=False)
    except ValueError:
        return draw(placed())
    text = written.replace('"HUGE-INTEGER"', "9" * digits)
    return text, f"{path}.{key}", REQUEST.seq


@given(answer=placed())
def test_an_integer_too_long_to_read_is_named_by_its_path_anywhere(
        answer: tuple[str, str, int]) -> None:
    """Wherever it stands, an integer of more than 4300 digits is a protocol error naming its
    path, and the seq it came with keeps the sides in step."""
    text, path, seq = answer
    with pytest.raises(HugeInteger) as caught:
        decode_run_response(text, REQUEST)
    assert caught.value.field == path
    assert caught.value.seq == seq


def test_an_integer_too_long_in_the_handshake_is_named_by_its_path() -> None:
    """In the handshake too (a member of the implementation no schema names)."""
    text = ('{"version":1,"implementation":{"name":"p","language":"go","version":"1",'
            '"extra":[0,' + "1" * 5000 + ']},"capabilities":{"ops":["select"]}}')
    with pytest.raises(HugeInteger) as caught:
        decode_start_response(text)
    assert caught.value.field == "$.implementation.extra[1]"


def script(tmp_path: Path, first_line: str) -> Path:
    path = tmp_path / "port.py"
    path.write_text(f"{first_line}\nprint(1)\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize(("first_line", "said"), [
    ("#!/usr/bin/env nosuchinterp-9", "was not found on PATH: 'nosuchinterp-9'"),
    ("#!/usr/bin/env -S nosuchinterp-9 -u", "was not found on PATH: 'nosuchinterp-9'"),
    ("#!/no/such/dir/python3", "does not exist: '/no/such/dir/python3'"),
])
def test_a_script_whose_interpreter_is_missing_says_which(
        first_line: str, said: str, tmp_path: Path) -> None:
    """A script whose first line names an interpreter that is not there is reported as such,
    with the line, before it is run (not as a missing program, nor as exit status 127)."""
    path = script(tmp_path, first_line)
    problem = shebang_problem(str(path))
    assert problem is not None
    reason, fix = problem
    assert said in reason
    assert first_line in reason
    assert str(path) in fix
    with pytest.raises(ImplementationError) as caught:
        SubprocessAdapter([str(path)], timeout=5).start()
    assert said in str(caught.value)


def test_a_script_whose_interpreter_is_there_has_no_problem(tmp_path: Path) -> None:
    """No false alarm: an installed interpreter, or no #! line at all."""
    assert shebang_problem(str(script(tmp_path, f"#!{sys.executable}"))) is None
    assert shebang_problem(str(script(tmp_path, "#!/usr/bin/env sh"))) is None
    assert shebang_problem(str(script(tmp_path, "# no interpreter line"))) is None


def test_a_missing_interpreter_named_on_the_command_line_says_it_is_the_interpreter(
        tmp_path: Path) -> None:
    """``python9 port.py``: the interpreter, named to run a file that exists, is missing."""
    path = script(tmp_path, "")
    error = not_found("python9", f"python9 {shlex.quote(str(path))}", "--impl",
                      ["python9", str(path)])
    assert f"the interpreter 'python9', named to run {path}, was not found on PATH" in str(error)



def _fails_at_every_request(how: str) -> list[str]:
    """A program that answers its handshake, then at its first request exits or hangs, in every
    life."""
    from eventproof.reference import Reference
    handshake = json.dumps(Reference().start(), separators=(",", ":"))
    fault = "exit 3" if how == "exits" else "sleep 30"
    return ["sh", "-c", f"read line; printf '%s\\n' {shlex.quote(handshake)}; read line; {fault}"]


@pytest.mark.parametrize("how", ["exits", "hangs"])
def test_a_program_no_restart_is_left_for_is_given_up_whoever_spent_the_restarts(
        how: str) -> None:
    """Two adapters (two workers of --jobs) share the run's restart limit. A's program failed
    and needs a restart; B takes the last restart and its request is under way. A can answer no
    more (exhausted): the program is then given up on, with a reason that says what A's program
    did, so that a search that stops asking learns why. (A worker once stopped its search there
    with no reason: the violation it had met was lost, and its rules were judged on the few
    requests it had made, a pass.)"""
    restarts = RestartCount(1)
    a, b = (SubprocessAdapter(_fails_at_every_request(how), timeout=0.5) for _ in range(2))
    a.restart_count = b.restart_count = restarts  # as each worker process of --jobs has it
    try:
        a.run("select", {"events": []})
        b.run("select", {"events": []})
        assert not a.exhausted()
        assert restarts.in_a_row == 0
        under_way = threading.Thread(target=b.run, args=("select", {"events": []}))
        under_way.start()
        deadline = time.monotonic() + 10
        while restarts.in_a_row < 1 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert restarts.spent()
        assert a.exhausted()
        reason = a.given_up()
        assert reason is not None
        assert "restart limit reached" in reason
        assert ("exited with code 3" if how == "exits" else "no answer within") in reason
        under_way.join(10)
        assert b.exhausted()
        assert b.given_up() == reason
    finally:
        a.stop()
        b.stop()
