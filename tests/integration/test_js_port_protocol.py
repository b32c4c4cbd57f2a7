"""The JavaScript port in examples/js speaks protocol v1 and agrees with the reference.

The port runs as one long-lived ``node`` process per configuration; the tests write JSON request
lines to it and read its answers, without the harness in between, so a failure here points at the
port or the protocol rather than at the engine. Inputs come from a seeded generator that builds
the cases ports get wrong: empty terminal messages, control characters, astral characters, lone
surrogates (sent escaped, as ``json.dumps`` does by default), huge ids, updates just over
``maxBytes``, integer-like keys, integral floats and unknown types.
"""

from __future__ import annotations

import json
import os
import queue
import random
import shutil
import subprocess
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from eventproof.reference import MARKER, InvalidInput, Reference

pytestmark = pytest.mark.node

ROOT = Path(__file__).resolve().parents[2]
PORT = ROOT / "examples" / "js" / "eventproof-port.mjs"
SELFTEST = ROOT / "examples" / "js" / "selftest.mjs"
#: The overlay that plants the bugs named in EVENTPROOF_JS_BUG, and its own self-test.
BUGS_DIR = ROOT / "tests" / "integration" / "programs" / "js-bugs"
BUGGY_PORT = BUGS_DIR / "eventproof-port-bugs.mjs"
NODE = shutil.which("node")
OPS = ("select", "fold", "settle", "classify", "project")
#: What the port declares: these and the budget operations (spec/budget.md).
DECLARED_OPS = (*OPS, "details", "roster", "lane", "publish")
FITS = ("halving", "maximal")
#: Inputs generated per operation; the seed keeps every run identical.
PER_OP = 300
SEED = 20260101
#: Generous next to the few milliseconds an answer takes; only a hung port reaches it.
ANSWER_TIMEOUT = 5.0

if NODE is None:
    pytest.skip("node is not on PATH: the JavaScript port cannot run (install Node.js 20+)",
                allow_module_level=True)

HUNG = object()  # the port did not answer within ANSWER_TIMEOUT
ERRORED = object()  # an `errored` answer, or the reference raising InvalidInput


# -- the port as a subprocess ---------------------------------------------------------------------


class Port:
    """One running port: requests go in as JSON lines, answers come back as parsed JSON."""

    def __init__(self, fit: str = "halving", bug: str | None = None,
                 args: tuple[str, ...] | None = None, env: dict[str, str] | None = None,
                 timeout: float = ANSWER_TIMEOUT) -> None:
        self.fit, self.bug, self.timeout = fit, bug, timeout
        self._args = (f"--fit={fit}",) if args is None else args
        self._env = dict(os.environ)
        for key in ("EVENTPROOF_JS_BUG", "EVENTPROOF_JS_FIT"):
            self._env.pop(key, None)
        if bug:
            self._env["EVENTPROOF_JS_BUG"] = bug
        self._env.update(env or {})
        self._seq = 0
        self._spawn()

    def _spawn(self) -> None:
        assert NODE is not None
        # Open for the life of the process: stderr must never fill a pipe nobody reads.
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115
        self.proc = subprocess.Popen(
            [NODE, str(BUGGY_PORT if self.bug else PORT), *self._args], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.stderr, env=self._env,
        )
        self._answers: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self._answers.put(line)

    def send(self, message: dict[str, Any]) -> None:
        """Write one request line (ASCII JSON: lone surrogates travel as escapes)."""
        self.send_text(json.dumps(message))

    def send_text(self, line: str) -> None:
        """Write one request line given as JSON text."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode("ascii") + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> Any:
        """The next answer, parsed; HUNG when none came in time (the port is then restarted)."""
        try:
            raw = self._answers.get(timeout=self.timeout)
        except queue.Empty:
            self.kill()
            self._spawn()
            self.start()
            return HUNG
        # protocol.md: every answer line is UTF-8 JSON; a strict decode proves it.
        return json.loads(raw.decode("utf-8"))

    def start(self) -> dict[str, Any]:
        self.send({"cmd": "start", "version": 1})
        answer = self.receive()
        assert isinstance(answer, dict), answer
        return answer

    def run(self, op: str, input: Any, *, text: str | None = None) -> Any:
        """The port's answer to one request: its output, ERRORED or HUNG (``text``, when given,
        is the input's JSON text, spelled as written)."""
        self._seq += 1
        if text is None:
            self.send({"cmd": "run", "seq": self._seq, "op": op, "input": input})
        else:
            self.send_text(f'{{"cmd": "run", "seq": {self._seq}, "op": "{op}", "input": {text}}}')
        answer = self.receive()
        if answer is HUNG:
            return HUNG
        assert answer.get("seq") == self._seq, f"answer {answer!r} does not echo seq {self._seq}"
        if "errored" in answer:
            assert isinstance(answer["errored"].get("message"), str), answer
            return ERRORED
        assert "output" in answer, f"answer {answer!r} has neither output nor errored"
        return answer["output"]

    def stop(self) -> int:
        self.send({"cmd": "stop"})
        return self.proc.wait(timeout=10)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)

    def diagnostics(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")


@pytest.fixture
def port() -> Iterator[Port]:
    running = Port()
    yield running
    if running.proc.poll() is None:
        running.kill()


# -- generated inputs -----------------------------------------------------------------------------

ATOMS = [
    "a", "hello ", "x", " ", "\n", "\t", "\r", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", "\u2028",
    "\u2029", "é", "日本", "🙂", "\U0001f600", '"', "\\", "/", "<", "0", "\ufeff", "\ufffd",
    # lone surrogates, and a pair spelled as two code points (JSON joins it into one astral one)
    "\ud800", "\udfff", "\ud83d", "\ude00", "\ud83d\ude00",
]
KEYS = [
    "a", "type", "b", "0", "7", "10", "4294967294", "4294967295", "01", "-1", "1.0", "",
    "__proto__", "\ud800", "\udbff", "\ufffd", "é", "🙂", "toolCallId",
]
NUMBERS: list[Any] = [
    0, 1, -1, 7, 2**53 - 1, -(2**53 - 1), 30.0, -0.0, 0.1, 1e-7, 1.5e-7, 1e21, 1e20,
    1.2345678901234568e20, 5e-324, 1.7976931348623157e308, 123.456, -2.5, 1e300,
]


def text(r: random.Random, most: int = 6) -> str:
    return "".join(r.choice(ATOMS) for _ in range(r.randint(0, most)))


def nonempty_text(r: random.Random, most: int = 6) -> str:
    return text(r, most) or r.choice(ATOMS)


def json_value(r: random.Random, depth: int = 2) -> Any:
    roll = r.random()
    if depth <= 0 or roll < 0.5:
        return r.choice([None, True, False, r.choice(NUMBERS), text(r), r.randint(-1000, 1000)])
    if roll < 0.75:
        return [json_value(r, depth - 1) for _ in range(r.randint(0, 3))]
    return {r.choice(KEYS): json_value(r, depth - 1) for _ in range(r.randint(0, 4))}


# selection profile ------------------------------------------------------------------------------


def block(r: random.Random) -> dict[str, Any]:
    kind = r.choice(["text", "text", "reasoning", "image", "tool-call", "tool-result"])
    if kind in ("text", "reasoning"):
        return {"type": kind, "text": text(r)}
    if kind == "image":
        return {"type": "image", "attachment": {"mime": "image/png", "7": 1.0}}
    if kind == "tool-call":
        return {"type": "tool-call", "id": text(r), "name": "bash", "arguments": json_value(r)}
    return {"type": "tool-result", "toolCallId": text(r),
            "content": [{"type": "text", "text": text(r)}], "isError": r.random() < 0.5}


def session_event(r: random.Random, seq: int) -> dict[str, Any]:
    roll = r.random()
    data: dict[str, Any]
    if roll < 0.25:
        kind = "assistant/message"
        content = [] if r.random() < 0.35 else [block(r) for _ in range(r.randint(1, 3))]
        data = {"message": {"role": "assistant", "content": content}}
        if r.random() < 0.4:
            data["usage"] = {"output": r.randint(0, 99), "cost": 0.0}
        if r.random() < 0.2:
            data["interrupted"] = True
    elif roll < 0.6:
        kind = "assistant/chunk"
        chunk = r.choice([
            {"type": "text-delta", "index": 0, "text": text(r)},
            {"type": "text-delta", "index": 1, "text": text(r)},
            {"type": "reasoning-delta", "index": 0, "text": text(r)},
            {"type": "tool-call-delta", "index": 2, "id": "call_1", "argumentsDelta": "{\"a\":"},
            {"type": "block-start", "index": 0, "blockType": "text"},
            {"type": "block-end", "index": 0, "block": {"type": "text", "text": text(r)}},
            {"type": "usage", "usage": {"input": 3}},
            {"type": "finish", "reason": {"kind": "max-tokens"}},
            {"type": "brand-new-chunk", "index": 0, "text": "never output"},
        ])
        data = {"chunk": chunk}
    elif roll < 0.72:
        kind = "turn/end"
        data = {"turn": r.randint(0, 3), "reason": {"kind": r.choice(
            ["completed", "aborted", "blocked", "error", "max-tokens", "interrupted", "mystery",
             "toString", "__proto__"])}}
    else:
        kind = r.choice(["tool/result", "tool/call", "turn/start", "step/start", "step/end",
                         "user/message", "brand/new", "assistant/messages", ""])
        data = {"content": block(r), "turn": 1, "step": 2,
                "message": {"role": "user", "content": [{"type": "text", "text": "user text"}]},
                r.choice(KEYS): json_value(r)}
    event: dict[str, Any] = {"type": kind, "seq": seq, "time": "2026-01-01T00:00:00Z", "data": data}
    if r.random() < 0.1:
        event[r.choice(KEYS)] = json_value(r)
    if r.random() < 0.02:  # a malformed event: both sides must refuse it when they read it
        breakage = r.randrange(5)
        if breakage == 0:
            del event["data"]
        elif breakage == 1:
            event["type"] = 3
        else:
            event["data"].update([
                ("message", {"role": "assistant", "content": None}),
                ("chunk", {"type": "text-delta", "text": 5}),
                ("reason", "completed"),
            ][breakage - 2:breakage - 1])
    return event


def session_log(r: random.Random) -> list[dict[str, Any]]:
    return [session_event(r, seq) for seq in range(r.randint(0, 10))]


def select_input(r: random.Random) -> dict[str, Any]:
    return {"events": session_log(r)}


def fold_input(r: random.Random) -> dict[str, Any]:
    pushes = [{"text": text(r)} if r.random() < 0.3 else {"event": event}
              for event in session_log(r)]
    return {"pushes": pushes}


def settle_input(r: random.Random) -> dict[str, Any]:
    events = session_log(r)
    if r.random() < 0.5:
        # A turn that reached a model step accounts for work (selection.md §5.1): its end, of
        # any kind, settles the run, so every mapping (and a cancelled completed run) comes up.
        turn = r.randint(0, 3)
        kind = r.choice(["completed", "max-tokens", "aborted", "blocked", "error", "interrupted"])
        events = [{"type": "turn/start", "data": {"turn": turn}},
                  {"type": "step/start", "data": {"turn": turn, "step": 0}}, *events,
                  {"type": "turn/end", "data": {"turn": turn, "reason": {"kind": kind}}}]
        events = [{**event, "seq": seq, "time": event.get("time", "2026-01-01T00:00:00Z")}
                  for seq, event in enumerate(events)]
    request: dict[str, Any] = {"events": events, "cancelled": r.random() < 0.4}
    if r.random() < 0.5:
        request["diagnostic"] = r.choice(["", "exit code 1", text(r)])
    return request


# wire profile -----------------------------------------------------------------------------------

AGENT_TYPES = [
    "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_update",
    "message_end", "tool_execution_start", "tool_execution_update", "tool_execution_end",
    "brand_new_event", "Message_Update", "",
]


def assistant_message(r: random.Random) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": [
        r.choice([{"type": "text", "text": text(r)}, {"type": "thinking", "thinking": text(r)},
                  {"type": "toolCall", "id": text(r), "name": text(r), "arguments": json_value(r)}])
        for _ in range(r.randint(0, 3))]}
    if r.random() < 0.6:
        message["usage"] = {"input": r.randint(0, 9), "cost": {"total": r.choice(NUMBERS)}}
    return message


def big_text(r: random.Random, target_bytes: int) -> str:
    """About ``target_bytes`` of serialized text, built by repeating one random piece."""
    piece = nonempty_text(r, 4)
    cost = len(json.dumps(piece, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2
    return piece * max(1, target_bytes // max(1, cost))


def long_id(r: random.Random) -> str:
    roll = r.random()
    if roll < 0.7:
        return r.choice(["call_1", "toolu_01", "", text(r)])
    return (nonempty_text(r, 2) * 400)[: r.choice([255, 256, 257, 300, 1000])]


def message_update(r: random.Random) -> dict[str, Any]:
    partial = assistant_message(r)
    ame_type = r.choice(["start", "text_start", "text_delta", "text_end", "thinking_delta",
                         "toolcall_start", "toolcall_start", "toolcall_delta", "done", "error"])
    ame: dict[str, Any] = {"type": ame_type}
    if r.random() < 0.3:
        ame["id"] = "before"
    index = r.randint(0, 3)
    if ame_type == "toolcall_start" and r.random() < 0.85:  # usually well-formed (wire.md §4.5)
        while len(partial["content"]) <= index:
            partial["content"].append({"type": "text", "text": "t"})
        partial["content"][index] = {"type": "toolCall", "id": long_id(r), "name": text(r),
                                     "arguments": json_value(r)}
    ame["contentIndex"] = index
    if r.random() < 0.7:
        ame["delta"] = text(r)
    ame["partial"] = partial
    if r.random() < 0.3:
        ame[r.choice(KEYS)] = json_value(r)
    message = assistant_message(r)
    if r.random() < 0.05:
        message["role"] = "user"  # erroneous (wire.md §4.5)
    return {"type": "message_update", "message": message, "assistantMessageEvent": ame}


def partial_result(r: random.Random, target_bytes: int) -> Any:
    roll = r.random()
    body = big_text(r, target_bytes)
    if roll < 0.55:
        result: dict[str, Any] = {"content": [{"type": "text", "text": body}]}
        if r.random() < 0.5:
            result["content"].insert(0, {"type": "text", "text": text(r)})
            result["content"].append({"type": "image", "data": "aGk="})
            result["content"].append({"type": "text", "text": 7})
        if r.random() < 0.6:
            result["details"] = {"7": 30.0, "0": [1.0, -0.0], "log": body[:100]}
        return result
    if roll < 0.75:
        return body
    return r.choice([None, 12, [body], {"details": body}, {"content": body}, {"content": [body]}])


def agent_event(r: random.Random, max_bytes: int) -> dict[str, Any]:
    kind = r.choice(AGENT_TYPES + ["tool_execution_update"] * 6 + ["message_update"] * 2)
    near = max_bytes + r.randint(-400, 400) if r.random() < 0.7 else r.randint(0, 3 * max_bytes)
    if kind == "message_update":
        return message_update(r)
    if kind == "tool_execution_update":
        return {"type": kind, "toolCallId": long_id(r), "toolName": long_id(r),
                "args": json_value(r), "partialResult": partial_result(r, near)}
    if kind == "tool_execution_end":
        return {"type": kind, "toolCallId": long_id(r), "toolName": "bash",
                "result": {"content": [{"type": "text", "text": big_text(r, near)}]},
                "isError": r.random() < 0.5}
    event: dict[str, Any] = {"type": kind}
    if kind == "turn_end":
        event.update(message=assistant_message(r), toolResults=[json_value(r)] * r.randint(0, 3))
    elif kind == "agent_end":
        event["messages"] = [assistant_message(r) for _ in range(r.randint(0, 3))]
        if r.random() < 0.6:
            event["willRetry"] = r.random() < 0.5
    elif kind in ("message_start", "message_end"):
        event["message"] = assistant_message(r)
    for _ in range(r.randint(0, 3)):
        event[r.choice(KEYS)] = json_value(r)
    return event


def classify_input(r: random.Random) -> dict[str, Any]:
    return {"event": agent_event(r, 4096)}


def project_input(r: random.Random) -> dict[str, Any]:
    max_bytes = r.choice([4096, 4096, 4096, 4097, 5000, 8192, 262144])
    request: dict[str, Any] = {"event": agent_event(r, max_bytes),
                               "includeLiveEvents": r.random() < 0.8, "maxBytes": max_bytes}
    if r.random() < 0.03:
        request["maxBytes"] = r.choice([3214, 0, -1, 4096.5])  # erroneous (wire.md §5.6)
    return request


GENERATORS: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "select": select_input, "fold": fold_input, "settle": settle_input,
    "classify": classify_input, "project": project_input,
}


def expected_answer(reference: Reference, op: str, input: Any) -> Any:
    try:
        return reference.run(op, input)
    except InvalidInput:
        return ERRORED


def cases_for(fit: str) -> list[tuple[str, Any, Any]]:
    """(op, input, reference answer) for every generated input, the same inputs for both fits."""
    reference = Reference(fit)
    cases = []
    for op in OPS:
        r = random.Random(f"{SEED}-{op}")
        for _ in range(PER_OP):
            request = GENERATORS[op](r)
            cases.append((op, request, expected_answer(reference, op, request)))
    return cases


def joined(value: Any) -> Any:
    """``value`` as a JSON.parse reader sees it: a surrogate pair spelled as two code points is
    one code point, and every number is a double (the port writes 1.2345678901234568e20 back as
    123456789012345680000, which Python reads as an int that is not equal to the float)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    if isinstance(value, list):
        return [joined(item) for item in value]
    if isinstance(value, dict):
        return {joined(key): joined(item) for key, item in value.items()}
    return value


def same(op: str, expected: Any, actual: Any) -> bool:
    if expected is ERRORED or actual is ERRORED or actual is HUNG:
        return expected is actual
    if op == "project" and expected is not None and actual is not None:
        return bool(expected == actual)  # the canonical line, character for character
    return bool(joined(expected) == joined(actual))


@pytest.fixture(scope="module")
def cases() -> dict[str, list[tuple[str, Any, Any]]]:
    return {fit: cases_for(fit) for fit in FITS}


# -- the protocol ---------------------------------------------------------------------------------


def test_handshake_declares_every_op_and_the_chosen_fit() -> None:
    """The start answer names the port and declares all five ops, the fit chosen by flag or
    environment, and a variable maxBytes."""
    for args, env, fit in [((), {}, "halving"), (("--fit=maximal",), {}, "maximal"),
                           ((), {"EVENTPROOF_JS_FIT": "maximal"}, "maximal")]:
        running = Port(args=args, env=env)
        answer = running.start()
        assert answer == {
            "version": 1,
            "implementation": {
                "name": "eventproof-js-example", "language": "javascript", "version": "0.1.0",
                "homepage": answer["implementation"]["homepage"],
            },
            "capabilities": {"ops": list(DECLARED_OPS), "fitStrategy": fit,
                             "variableMaxBytes": True},
        }
        assert answer["implementation"]["homepage"].startswith("https://")
        assert running.stop() == 0


def test_stop_and_end_of_input_both_exit_zero(port: Port) -> None:
    """The port exits 0 on a stop request and on the end of its input, writing nothing more."""
    port.start()
    assert port.stop() == 0
    other = Port()
    other.start()
    assert other.proc.stdin is not None
    other.proc.stdin.close()
    assert other.proc.wait(timeout=10) == 0
    assert other._answers.empty()


def test_erroneous_requests_are_answered_errored_and_the_port_keeps_serving(port: Port) -> None:
    """Each erroneous request gets an errored answer with a message, and the next request is
    still answered."""
    port.start()
    update = {"type": "message_update", "message": {"role": "user", "content": []},
              "assistantMessageEvent": {"type": "text_delta", "partial": {}}}
    no_tool_call = {"type": "message_update", "message": {"role": "assistant", "content": []},
                    "assistantMessageEvent": {"type": "toolcall_start", "contentIndex": 0,
                                              "partial": {"content": [{"type": "text"}]}}}
    for op, request in [
        ("project", {"event": update, "includeLiveEvents": True, "maxBytes": 4096}),
        ("project", {"event": no_tool_call, "includeLiveEvents": True, "maxBytes": 4096}),
        ("project", {"event": {"type": "agent_start"}, "includeLiveEvents": False,
                     "maxBytes": 3214}),
        ("select", {"events": "not a list"}),
        ("no-such-op", {}),
    ]:
        assert port.run(op, request) is ERRORED, (op, request)
    assert port.run("classify", {"event": {"type": "message_update"}}) == "frame"
    assert port.stop() == 0


def test_unknown_planted_bug_is_refused_at_startup() -> None:
    """A misspelt EVENTPROOF_JS_BUG refuses the handshake with a reason that lists the valid
    bugs, and the port exits with status 2."""
    assert NODE is not None
    done = subprocess.run([NODE, str(BUGGY_PORT)], input=b'{"cmd": "start", "version": 1}\n',
                          capture_output=True, timeout=30,
                          env={**os.environ, "EVENTPROOF_JS_BUG": "no-such-bug"})
    assert done.returncode == 2
    refusal = json.loads(done.stdout)
    assert refusal["version"] == 1
    assert "no-such-bug" in refusal["error"]
    assert "slice-zero" in refusal["error"]
    assert b"no-such-bug" in done.stderr


def test_other_protocol_versions_are_refused(port: Port) -> None:
    """A start request for another protocol version is answered with version 1 and a reason."""
    port.send({"cmd": "start", "version": 2})
    answer = port.receive()
    assert answer["version"] == 1
    assert "2" in answer["error"]


def test_planted_bugs_that_cannot_be_planted_together_are_refused() -> None:
    """Two planted bugs that patch the same code refuse the handshake, naming both; the port
    never serves with only one of them planted."""
    assert NODE is not None
    done = subprocess.run([NODE, str(BUGGY_PORT)], input=b'{"cmd": "start", "version": 1}\n',
                          capture_output=True, timeout=30,
                          env={**os.environ,
                               "EVENTPROOF_JS_BUG": "unfiltered-last-message,text-presence"})
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert "planted bug text-presence" in error
    assert "planted together" in error


def test_the_shipped_port_holds_no_planted_bug() -> None:
    """What a porter copies is clean: no module of examples/js reads EVENTPROOF_JS_BUG or refers
    to a planted bug, and the port answers correctly with EVENTPROOF_JS_BUG set."""
    for module in sorted(PORT.parent.iterdir()):
        text = module.read_text(encoding="utf-8")
        assert "EVENTPROOF_JS_BUG" not in text, module.name
        assert "bugs.mjs" not in text, module.name
    running = Port(env={"EVENTPROOF_JS_BUG": "text-presence"})
    running.start()
    reasoning = [{"type": "reasoning", "text": "Hi"}]
    events = [{"type": "assistant/message", "seq": 0, "time": "t",
               "data": {"message": {"role": "assistant", "content": reasoning}}}]
    assert running.run("select", {"events": events}) == reasoning
    assert running.stop() == 0


def test_selftest_passes() -> None:
    """The port's own dependency-free self-test passes under node."""
    assert NODE is not None
    done = subprocess.run([NODE, str(SELFTEST)], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def test_every_planted_bug_plants_and_changes_its_answer() -> None:
    """The overlay's self-test: each bug's patches apply to the port's code exactly once, the
    patched port loads, the listed bugs change the answer they are planted to change and the
    clean port gives none of those answers."""
    assert NODE is not None
    done = subprocess.run([NODE, str(BUGS_DIR / "selftest-bugs.mjs")], capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert b"not ok" not in done.stdout


# -- agreement with the reference -----------------------------------------------------------------


@pytest.mark.parametrize("fit", FITS)
def test_port_agrees_with_the_reference(fit: str, cases: dict[str, list[Any]]) -> None:
    """On every generated input of every op, the correct port answers exactly what the reference
    answers for the same fit strategy (errored where the reference raises InvalidInput)."""
    running = Port(fit)
    assert running.start()["capabilities"]["fitStrategy"] == fit
    agreed: Counter[str] = Counter()
    disagreements = []
    for op, request, expected in cases[fit]:
        actual = running.run(op, request)
        if same(op, expected, actual):
            agreed[op] += 1
        else:
            disagreements.append((op, request, expected, actual))
    assert running.stop() == 0
    # Every op saw both kinds of answer the spec allows, so the comparison was not vacuous.
    assert all(agreed[op] > 0 for op in OPS)
    detail = "\n".join(f"{op}: expected {str(e)[:300]} got {str(a)[:300]} for {str(i)[:300]}"
                       for op, i, e, a in disagreements[:5])
    assert not disagreements, (
        f"{len(disagreements)} disagreements (agreed: {dict(agreed)}); first ones:\n{detail}\n"
        f"stderr:\n{running.diagnostics()[-2000:]}")


def test_generated_inputs_reach_the_interesting_answers(cases: dict[str, list[Any]]) -> None:
    """The generated inputs include erroneous ones, null selections, bounded lines of both
    fits and lines over 4096 bytes, so agreement covers each branch of the spec."""
    for fit in FITS:
        answers = [(op, expected) for op, _, expected in cases[fit]]
        assert any(e is ERRORED for op, e in answers if op == "project")
        assert any(e is None for op, e in answers if op == "select")
        bounded = [e for op, e in answers if op == "project" and isinstance(e, dict)
                   and "[live output truncated]" in e["line"]]
        assert len(bounded) >= 20, len(bounded)


NUMBER_CASES = [
    # (op, input as JSON text): integer literals beyond 2^53-1 and infinities (wire.md §7)
    ("project", '{"event": {"type": "tool_execution_start", "args": {"seed": 9007199254740993}}, '
                '"includeLiveEvents": false, "maxBytes": 4096}'),
    ("project", '{"event": {"type": "x", "n": [-9007199254740992]}, "includeLiveEvents": false, '
                '"maxBytes": 4096}'),
    ("project", '{"event": {"type": "x", "n": 9007199254740991, "m": -9007199254740991}, '
                '"includeLiveEvents": false, "maxBytes": 4096}'),
    ("project", '{"event": {"type": "x", "n": 9007199254740993.0, "m": 1e400}, '
                '"includeLiveEvents": false, "maxBytes": 4096}'),
    ("project", '{"event": {"type": "x", "n": 9007199254740993.0, "m": 1e20, '
                '"o": 12345678901234567890e0}, "includeLiveEvents": false, "maxBytes": 4096}'),
    ("project", '{"event": {"type": "tool_execution_update", "toolCallId": "c", "toolName": "t", '
                '"args": {"big": 18446744073709551616}, "partialResult": "' + "x" * 6000 + '"}, '
                '"includeLiveEvents": true, "maxBytes": 4096}'),
    ("project", '{"event": {"type": "tool_execution_update", "toolCallId": "c", "toolName": "t", '
                '"args": {"big": 18446744073709551616}, "partialResult": ""}, '
                '"includeLiveEvents": false, "maxBytes": 4096}'),
    ("project", '{"event": {"type": "message_update", "message": {"role": "assistant", '
                '"usage": {"total": 90071992547409930}}, '
                '"assistantMessageEvent": {"type": "done"}}, "includeLiveEvents": true, '
                '"maxBytes": 4096}'),
    ("project", '{"event": {"type": "message_update", "message": {"role": "assistant", '
                '"content": [9007199254740993]}, "assistantMessageEvent": {"type": "text_delta", '
                '"contentIndex": 0, "delta": "x", "partial": {"n": 9007199254740993}}}, '
                '"includeLiveEvents": true, "maxBytes": 4096}'),
    ("project", '{"event": {"type": "message_update", "message": {"role": "assistant"}, '
                '"assistantMessageEvent": {"type": "x", "ts": 9007199254740993}}, '
                '"includeLiveEvents": true, "maxBytes": 4096}'),
    ("project", '{"event": {"type": "turn_end", "message": {"role": "assistant", "n": 1e400}, '
                '"toolResults": [9007199254740993]}, "includeLiveEvents": false, '
                '"maxBytes": 4096}'),
    ("classify", '{"event": {"type": "x", "n": 9007199254740993}}'),
]


@pytest.mark.parametrize("fit", FITS)
def test_numbers_a_line_cannot_carry_are_refused_like_the_reference(fit: str) -> None:
    """Integer literals beyond 2^53-1 and infinities in a projected value get errored, as the
    reference answers, while the same numbers in dropped members, in frames nobody opted into
    and in classify do not (wire.md §7)."""
    reference, running = Reference(fit), Port(fit)
    running.start()
    answers = [(op, text, expected_answer(reference, op, json.loads(text)),
                running.run(op, None, text=text)) for op, text in NUMBER_CASES]
    assert running.stop() == 0
    assert [expected is ERRORED for _, _, expected, _ in answers].count(True) == 6
    for op, text, expected, actual in answers:
        assert same(op, expected, actual), (text[:200], expected, actual)


# -- planted bugs ---------------------------------------------------------------------------------

BUGS = [
    "unfiltered-last-message", "message-beats-nothing", "no-text-fallback", "text-presence",
    "chars-not-bytes", "no-id-clip", "bound-end-too", "frames-always", "keep-partial",
    "utf16-tail", "empty-array-last-assistant", "cancelled-completed-wrong",
]  # slice-zero needs the edge of wire.md §5.6: see test_slice_zero_spins_at_the_smallest_bound


@pytest.mark.parametrize("bug", BUGS)
def test_planted_bug_changes_an_answer(bug: str, cases: dict[str, list[Any]]) -> None:
    """With the bug planted, at least one generated input gets an answer different from the
    reference's (a hang counts as different)."""
    for fit in FITS:
        running = Port(fit, bug=bug)
        running.start()
        try:
            for op, request, expected in cases[fit]:
                if not same(op, expected, running.run(op, request)):
                    return
        finally:
            if running.proc.poll() is None:
                running.kill()
    pytest.fail(f"planting {bug} changed no answer on {sum(map(len, cases.values()))} inputs")


def test_unclipped_ids_make_the_halving_loop_spin() -> None:
    """With no-id-clip planted, an oversized update whose ids alone exceed maxBytes gets no
    answer under halving (the historical non-converging loop), and the port serves on once
    restarted."""
    running = Port("halving", bug="no-id-clip", timeout=2.0)
    running.start()
    huge = {"type": "tool_execution_update", "toolCallId": "\x00" * 3000, "toolName": "bash",
            "args": {}, "partialResult": "x" * 5000}
    try:
        assert running.run("project", {"event": huge, "includeLiveEvents": True,
                                       "maxBytes": 4096}) is HUNG
        assert running.run("classify", {"event": huge}) == "frame"
    finally:
        running.kill()
    correct = Port("halving")
    correct.start()
    line = correct.run("project", {"event": huge, "includeLiveEvents": True, "maxBytes": 4096})
    assert correct.stop() == 0
    assert len(line["line"].encode("utf-8")) <= 4096


def test_slice_zero_spins_at_the_smallest_bound() -> None:
    """At maxBytes 3215 with worst-cost ids only the empty tail fits a non-empty text; the
    slice(-0) bug keeps the whole text there and never answers, while the correct port writes
    the empty tail in exactly 3215 bytes (wire.md §5.6)."""
    edge = {"type": "tool_execution_update", "toolCallId": "\x00" * 300, "toolName": "\x01" * 300,
            "args": {}, "partialResult": {"content": [{"type": "text", "text": "abc"}]}}
    request = {"event": edge, "includeLiveEvents": True, "maxBytes": 3215}
    buggy = Port("halving", bug="slice-zero", timeout=2.0)
    buggy.start()
    try:
        assert buggy.run("project", request) is HUNG
    finally:
        buggy.kill()
    correct = Port("halving")
    correct.start()
    line = correct.run("project", request)
    assert correct.stop() == 0
    assert len(line["line"].encode("utf-8")) == 3215
    assert json.loads(line["line"])["partialResult"]["content"][0]["text"] == MARKER


@pytest.mark.slow
@pytest.mark.parametrize("fit", FITS)
def test_port_conforms_at_the_default_budget(fit: str) -> None:
    """The whole default run of every operation passes under each fit (``nox -s slow``): the
    template a porter copies conforms as ``eventproof run`` judges it."""
    from eventproof.conformance import check_implementation

    report = check_implementation(f"node {PORT} --fit={fit}")
    assert report.conforms
    assert report.capabilities.fit_strategy == fit
    outcomes: dict[str, set[str]] = {}
    for result in report.results:
        outcomes.setdefault(result.rule.op, set()).add(result.outcome)
    assert outcomes == {op: {"pass"} for op in DECLARED_OPS}, outcomes
