"""The messages of the subprocess protocol (spec/protocol.md) as small frozen classes.

Every message that crosses the process boundary is checked against ``schemas/protocol.json`` in
both directions: :func:`encode` refuses to send a request the schema rejects, and the ``decode_*``
functions refuse an answer that breaks it, with a :class:`ProtocolError` that says which message,
which member, what was expected, what arrived and how to fix it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

from ._clip import IDENTITY_CHARACTERS, clip_text
from ._errors import ProtocolError, frozen_exception
from ._model import Capabilities, FitStrategy

if TYPE_CHECKING:
    from jsonschema.exceptions import (  # type: ignore[import-untyped, unused-ignore]
        ValidationError,
    )

# jsonschema and the operation table (every profile's rules, checks and vectors) are imported
# where they are used: the worker process of ``--isolate`` speaks this protocol without
# validating it, and starts again after every crash of the implementation.

#: The protocol version this harness speaks (spec/protocol.md §4.3).
PROTOCOL_VERSION: Final = 1
#: The schema file every message is checked against.
SCHEMA: Final = "protocol.json"

_SHOWN_CHARACTERS = 200

def shown(value: Any, limit: int = _SHOWN_CHARACTERS) -> str:
    """``value`` as a reader should see it in a message: JSON where possible, cut at ``limit``."""
    if isinstance(value, bytes | bytearray):
        text = repr(bytes(value[: limit + 1]))
        total = len(value)
        unit = "bytes"
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            try:
                text = repr(value)
            except RecursionError:
                text = f"<a {type(value).__name__} nested too deeply to show>"
        total = len(text)
        unit = "characters"
    if len(text) <= limit and total <= limit:
        return text
    return f"{text[:limit]}… ({total} {unit} in all)"


# -- requests (harness -> program) ----------------------------------------------------------------


@dataclass(frozen=True)
class StartRequest:
    """``{"cmd": "start", "version": 1}``: the handshake request (spec/protocol.md §4.1)."""

    schema_def: ClassVar[str] = "startRequest"

    version: int = PROTOCOL_VERSION

    def to_json(self) -> dict[str, Any]:
        return {"cmd": "start", "version": self.version}

    def describe(self) -> str:
        return "the start request"


@dataclass(frozen=True)
class RunRequest:
    """``{"cmd": "run", "seq", "op", "input"}``: one operation on one input (protocol.md §5.1)."""

    schema_def: ClassVar[str] = "runRequest"

    #: The sequence id the answer must echo.
    seq: int
    #: The operation (``select``, ``fold``, ``settle``, ``classify``, ``project``).
    op: str
    #: The operation input, a JSON value.
    input: Any

    def to_json(self) -> dict[str, Any]:
        return {"cmd": "run", "seq": self.seq, "op": self.op, "input": self.input}

    def describe(self) -> str:
        return f"run request seq {self.seq} (op {self.op})"


@dataclass(frozen=True)
class StopRequest:
    """``{"cmd": "stop"}``: the program exits with status 0 and answers nothing (protocol.md §6)."""

    schema_def: ClassVar[str] = "stopRequest"

    def to_json(self) -> dict[str, Any]:
        return {"cmd": "stop"}

    def describe(self) -> str:
        return "the stop request"


Request = StartRequest | RunRequest | StopRequest

# -- answers (program -> harness) -----------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """Who answers: the ``implementation`` member of the handshake (spec/protocol.md §4.2)."""

    name: str
    language: str
    version: str | None = None
    homepage: str | None = None
    issues: str | None = None

    def __post_init__(self) -> None:
        # The implementation's own text: every report shows it, so it is clipped (_clip).
        for each in fields(self):
            value = getattr(self, each.name)
            if isinstance(value, str):
                object.__setattr__(self, each.name, clip_text(value, IDENTITY_CHARACTERS))

    def to_json(self) -> dict[str, Any]:
        """The wire form; absent members stay absent."""
        return {
            each.name: getattr(self, each.name)
            for each in fields(self)
            if getattr(self, each.name) is not None
        }


@dataclass(frozen=True)
class StartResponse:
    """The handshake answer: identity and capabilities (spec/protocol.md §4.2)."""

    schema_def: ClassVar[str] = "startResponse"

    implementation: Identity
    capabilities: Capabilities
    version: int = PROTOCOL_VERSION

    def to_json(self) -> dict[str, Any]:
        capabilities = self.capabilities
        return {
            "version": self.version,
            "implementation": self.implementation.to_json(),
            "capabilities": {
                # The declared order is lost in a frozenset; the spec order is a stable one.
                "ops": sorted(capabilities.ops, key=_op_order),
                "fitStrategy": capabilities.fit_strategy,
                "variableMaxBytes": capabilities.variable_max_bytes,
                **({} if capabilities.lone_surrogates else {"loneSurrogates": False}),
                **({} if capabilities.numbers == "exact" else {"numbers": capabilities.numbers}),
            },
        }

    def implementation_dict(self) -> dict[str, Any]:
        """The identity as reports show it (the wire form of ``implementation``)."""
        return self.implementation.to_json()

    def identity_key(self) -> str:
        """A stable string naming this implementation and everything that changes its answers."""
        return json.dumps(
            [self.implementation.to_json(), self.to_json()["capabilities"]],
            sort_keys=True, separators=(",", ":"),
        )

    def describe(self) -> str:
        return "the answer to the start request"


def handshake_difference(first: Mapping[str, Any], again: Mapping[str, Any]) -> str:
    """Every member in which two handshakes (their wire form, :meth:`StartResponse.to_json`)
    differ, as ``$.capabilities.ops was [...], is now [...]``; "" when they are the same."""
    changes: list[str] = []

    def compare(path: str, before: Any, after: Any) -> None:
        if isinstance(before, Mapping) and isinstance(after, Mapping):
            for name in [*before, *(name for name in after if name not in before)]:
                compare(f"{path}.{name}", before.get(name, _ABSENT), after.get(name, _ABSENT))
        elif before != after or type(before) is not type(after):
            changes.append(f"{path} was {_said(before)}, is now {_said(after)}")

    compare("$", first, again)
    return "; ".join(changes)


_ABSENT: Final = object()


def _said(value: Any) -> str:
    return "absent" if value is _ABSENT else shown(value, 120)


class HandshakeChanged(BaseException):
    """A restarted implementation answered the start request with another handshake than the
    first (spec/protocol.md §7.4): the run stops with a harness error (exit code 2).

    Not an ``Exception``, so that a search (Hypothesis) passes it straight through rather than
    shrinking it as a failure of the input; ``str()`` is the message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def handshake_changed(first: StartResponse, again: StartResponse, when: str) -> \
        HandshakeChanged | None:
    """The error for a handshake ``again`` that differs from the ``first`` of the run (``when``
    says which start it answered), or None when it is the same."""
    difference = handshake_difference(first.to_json(), again.to_json())
    if not difference:
        return None
    return HandshakeChanged(
        f"the implementation's handshake changed {when}: {difference}. A run judges one "
        "implementation with one set of capabilities: every start request must get the same "
        "handshake, name, version, fit strategy, operations and limits alike (spec/protocol.md "
        "§7.4). Make the program's handshake a constant, and check that the command starts the "
        "same program every time")


@dataclass(frozen=True)
class RunOutput:
    """``{"seq", "output"}``: the operation's output (spec/protocol.md §5.2)."""

    schema_def: ClassVar[str] = "outputResponse"

    seq: int
    output: Any

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "output": self.output}

    def describe(self) -> str:
        return f"an output answer with seq {self.seq}"


@dataclass(frozen=True)
class RunSkipped:
    """``{"seq", "skipped": {"reason", "issueUrl"?}}``: not answered, and why (protocol.md §5.3)."""

    schema_def: ClassVar[str] = "skippedResponse"

    seq: int
    reason: str
    issue_url: str | None = None

    def to_json(self) -> dict[str, Any]:
        skipped: dict[str, Any] = {"reason": self.reason}
        if self.issue_url is not None:
            skipped["issueUrl"] = self.issue_url
        return {"seq": self.seq, "skipped": skipped}

    def describe(self) -> str:
        return f"a skipped answer with seq {self.seq}"


@dataclass(frozen=True)
class RunErrored:
    """``{"seq", "errored": {"message", "context"?}}``: refused or failed (protocol.md §5.4)."""

    schema_def: ClassVar[str] = "erroredResponse"

    seq: int
    message: str
    #: Anything the implementation adds to explain itself; ``None`` when absent.
    context: Any = None

    def to_json(self) -> dict[str, Any]:
        errored: dict[str, Any] = {"message": self.message}
        if self.context is not None:
            errored["context"] = self.context
        return {"seq": self.seq, "errored": errored}

    def describe(self) -> str:
        return f"an errored answer with seq {self.seq}"


RunResponse = RunOutput | RunSkipped | RunErrored
Message = Request | StartResponse | RunResponse

#: The request every (re)started program receives first.
START: Final = StartRequest()
#: The last request.
STOP: Final = StopRequest()


def _op_order(op: str) -> tuple[int, str]:
    from ._operations import OPS

    return (OPS.index(op), op) if op in OPS else (len(OPS), op)


# -- schema checks -----------------------------------------------------------------------------

_FIXES = {
    "startRequest": "Send {\"cmd\": \"start\", \"version\": 1} (spec/protocol.md §4.1).",
    "runRequest": "Send {\"cmd\": \"run\", \"seq\": <integer>, \"op\": <operation>, \"input\": "
                  "<JSON value>} (spec/protocol.md §5.1).",
    "stopRequest": "Send {\"cmd\": \"stop\"} (spec/protocol.md §6).",
    "request": "Send one of the three requests of spec/protocol.md §3: start, run, stop.",
    "startResponse": "Answer the start request with {\"version\": 1, \"implementation\": "
                     "{\"name\", \"language\", ...}, \"capabilities\": {\"ops\": [...], ...}} "
                     "(spec/protocol.md §4.2).",
    "startRefusal": "Answer the start request with the handshake of spec/protocol.md §4.2.",
    "outputResponse": "Answer a run request with {\"seq\": <its seq>, \"output\": <JSON value>} "
                      "(spec/protocol.md §5.2).",
    "skippedResponse": "Skip a request with {\"seq\": <its seq>, \"skipped\": {\"reason\": "
                       "<non-empty text>, \"issueUrl\"?: <URL>}} (spec/protocol.md §5.3).",
    "erroredResponse": "Refuse a request with {\"seq\": <its seq>, \"errored\": {\"message\": "
                       "<text>, \"context\"?: <JSON value>}} (spec/protocol.md §5.4).",
    "runResponse": "Answer a run request with exactly one of output, skipped or errored next to "
                   "its seq (spec/protocol.md §5.2-5.4).",
}


def _expected(error: ValidationError) -> str:
    """What the schema wanted at the place ``error`` points to, in words."""
    keyword, instance = error.validator, error.instance
    wanted: Any = error.validator_value
    if keyword == "required" and isinstance(instance, dict):
        missing = [name for name in wanted if name not in instance]
        members = ", ".join(json.dumps(name) for name in missing)
        return f"an object with the member{'s' if len(missing) > 1 else ''} {members}"
    if keyword == "additionalProperties" and isinstance(instance, dict):
        allowed = list(error.schema.get("properties", {})) if isinstance(error.schema, dict) else []
        extra = [name for name in instance if name not in allowed]
        return (f"only the members {', '.join(json.dumps(name) for name in allowed)} "
                f"(not {', '.join(json.dumps(name) for name in extra)})")
    if keyword == "type":
        kinds = wanted if isinstance(wanted, list) else [wanted]
        return "a JSON " + " or ".join(kinds)
    if keyword == "const":
        return json.dumps(wanted)
    if keyword == "enum":
        return "one of " + ", ".join(json.dumps(each) for each in wanted)
    if keyword == "minLength":
        return "a non-empty string"
    if keyword == "minimum":
        return f"a number of at least {wanted}"
    if keyword == "uniqueItems":
        return "a list without duplicates"
    if keyword in ("oneOf", "anyOf"):
        return "exactly one of the shapes the schema allows there"
    return str(error.message)


def _check(instance: Any, schema_def: str, message: str) -> None:
    """Raise :class:`ProtocolError` when ``instance`` breaks ``protocol.json#/$defs/<def>``."""
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped, unused-ignore]

    from ._schemas import validator_for

    validator = validator_for(f"{SCHEMA}#/$defs/{schema_def}")
    error = best_match(validator.iter_errors(instance))
    if error is None:
        return
    raise ProtocolError(
        message=message, field=error.json_path, expected=_expected(error),
        received=shown(error.instance), fix=_FIXES[schema_def],
    )


# -- encoding ----------------------------------------------------------------------------------


def encode(message: Message) -> bytes:
    """One line: ASCII-only JSON (so lone surrogates survive transport) and a newline (spec §2.1).

    Raises :class:`ProtocolError` when the message breaks its schema or is not JSON; for a
    request that is a fault of the harness, never of the program under test.
    """
    value = message.to_json()
    try:
        text = dumps_literal(value)
    except (TypeError, ValueError) as exc:
        raise ProtocolError(
            message=message.describe(), field="$", expected="a JSON value",
            received=f"{shown(value)} ({exc})",
            fix="Only JSON values (dict with str keys, list, str, int, finite float, bool, None) "
                "can cross the process boundary.",
        ) from None
    _check(value, message.schema_def, message.describe())
    return text.encode("ascii") + b"\n"


#: Stands for an overflowing number while a message is encoded (see :func:`dumps_literal`).
_OVERFLOW = {1: "\u0000eventproof-overflow:+\u0000", -1: "\u0000eventproof-overflow:-\u0000"}


def _mark_overflows(value: Any) -> tuple[Any, bool]:
    """``value`` with each infinity replaced by its marker string, and whether there was one."""
    if isinstance(value, float) and math.isinf(value):
        return _OVERFLOW[1 if value > 0 else -1], True
    if isinstance(value, dict):
        pairs = [(key, *_mark_overflows(item)) for key, item in value.items()]
        if any(found for _, _, found in pairs):
            return {key: item for key, item, _ in pairs}, True
        return value, False
    if isinstance(value, list):
        items = [_mark_overflows(item) for item in value]
        if any(found for _, found in items):
            return [item for item, _ in items], True
        return value, False
    return value, False


def dumps_literal(value: Any, *, indent: int | None = None) -> str:
    """Compact ASCII JSON in which an infinity is written as the literal a parser reads as one:
    ``1e400`` (``-1e400``), never the non-JSON token ``Infinity`` (wire.md §7: an overflowing
    number is how an infinity reaches a program). NaN has no JSON spelling and is refused."""
    separators = (",", ":") if indent is None else (",", ": ")
    try:  # the common case, no infinity: one pass of the C encoder, no walk
        return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=separators,
                          indent=indent)
    except ValueError:  # an infinity (or a NaN, refused below), or a cycle
        pass
    marked, found = _mark_overflows(value)
    text = json.dumps(marked, ensure_ascii=True, allow_nan=False, separators=separators,
                      indent=indent)
    if found:
        for sign, marker in _OVERFLOW.items():
            quoted = json.dumps(marker, ensure_ascii=True)
            text = text.replace(quoted, "1e400" if sign > 0 else "-1e400")
    return text


# -- decoding ----------------------------------------------------------------------------------


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: The longest integer literal read (Python's own conversion limit, sys.int_info).
MAX_INTEGER_DIGITS: Final = 4300


class _HugeInteger(ValueError):
    """An integer literal longer than :data:`MAX_INTEGER_DIGITS`."""


class BeyondDouble(float):
    """A number literal too large for any double (``1e400``): it reads as an infinity, which is
    never the same as any value (spec/protocol.md §1.1), and keeps its literal for reports."""

    literal: str

    def __new__(cls, literal: str) -> BeyondDouble:
        value = super().__new__(cls, literal)
        value.literal = literal
        return value


def _parse_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INTEGER_DIGITS:
        raise _HugeInteger(digits)
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else BeyondDouble(text)


class _Repeated(Exception):
    """Raised by :func:`_pairs` at the first object that repeats a member name."""


class _Duplicated(dict[str, Any]):
    """An object in which a member name occurs more than once (its last value kept), with the
    first such name: found after parsing, so that the error can say where it is."""

    name: str = ""
    times: int = 0
    repeated: frozenset[str] = frozenset()


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: an object, marked when a member name occurs twice in it."""
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    raise _Repeated


def _marking_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of the second reading, once a name is known to repeat: each object
    that repeats one is marked, so that the error can say where it is."""
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    marked = _Duplicated(value)
    seen: dict[str, int] = {}
    for name, _ in pairs:
        seen[name] = seen.get(name, 0) + 1
    marked.name = next(name for name, _ in pairs if seen[name] > 1)
    marked.times = seen[marked.name]
    marked.repeated = frozenset(name for name, count in seen.items() if count > 1)
    return marked


def _member_path(path: str, name: str) -> str:
    """``$.a`` plus the member ``name``: ``$.a.b``, or ``$.a["b c"]`` when ``name`` is no
    identifier (a long name is shown cut)."""
    if name.isidentifier() and name.isascii() and len(name) <= 64:
        return f"{path}.{name}"
    return f"{path}[{shown(name, 64)}]"


def _first_duplicate(value: Any) -> tuple[str, _Duplicated, int] | None:
    """The first object (document order) holding a repeated member name: its JSONPath, the
    object and its depth (the top-level object is depth 1)."""
    stack: list[tuple[str, Any, int]] = [("$", value, 1)]
    while stack:
        path, item, depth = stack.pop()
        if isinstance(item, _Duplicated):
            return path, item, depth
        if isinstance(item, dict):
            stack.extend((_member_path(path, name), each, depth + 1)
                         for name, each in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{path}[{index}]", each, depth + 1)
                         for index, each in reversed(list(enumerate(item))))
    return None


@frozen_exception
@dataclass(frozen=True)
class DuplicateMember(ProtocolError):
    """A member name given twice in one object of a message (spec/protocol.md §2.1): RFC 8259
    §4 leaves the meaning of such an object open, so no reading of it is judged."""

    #: The top-level ``seq`` when it was given once (whether the two sides are still in step).
    seq: Any = None


@frozen_exception
@dataclass(frozen=True)
class HugeInteger(ProtocolError):
    """An integer literal too long to read (spec/protocol.md §2.1), at the path :attr:`field`
    names, whatever member holds it."""

    #: The top-level ``seq`` when it was readable (whether the two sides are still in step).
    seq: Any = None


def _refuse_duplicates(value: Any, message: str) -> None:
    """Raise :class:`DuplicateMember` for the first object of ``value`` that repeats a name."""
    found = _first_duplicate(value)
    if found is None:
        return
    path, item, depth = found
    if len(path) > 400:  # a path thousands of objects deep: its end says where
        path = "$…" + path[-400:]
    seq = None
    if isinstance(value, dict) and not (isinstance(value, _Duplicated)
                                        and "seq" in value.repeated):
        seq = value.get("seq")
    raise DuplicateMember(
        message=message, field=_member_path(path, item.name),
        expected="every member name at most once in an object",
        received=(f"the member {shown(item.name, 64)} {item.times} times in the object at "
                  f"{path} (depth {depth}): a reader that keeps the first and one that keeps "
                  "the last see two different messages"),
        fix="Write each member once: build the answer as a map (a dict, an object) and let the "
            "JSON encoder write it, rather than joining strings (spec/protocol.md §2.1, "
            "RFC 8259 §4).",
        seq=seq if type(seq) is int else None,
    )


def _read(text: str, hook: Any) -> Any:
    return json.loads(text, parse_constant=_refuse_constant, parse_int=_parse_int,
                      parse_float=_parse_float, object_pairs_hook=hook)


class _HugeMark:
    """Where an integer literal too long to read stood (see :func:`_huge_integer_path`)."""


def _marking_int(text: str) -> Any:
    digits = len(text) - text.startswith("-")
    return _HugeMark() if digits > MAX_INTEGER_DIGITS else int(text)


def _huge_integer_path(text: str) -> tuple[str, int | None]:
    """The JSONPath of the first integer literal of ``text`` longer than
    :data:`MAX_INTEGER_DIGITS` (in whatever member, named by a schema or not), or "the line"
    when it cannot be told; and the message's ``seq`` when it is a whole number."""
    try:
        value = json.loads(text, parse_int=_marking_int, parse_float=lambda _text: 0.0,
                           parse_constant=lambda _text: 0.0)
    except (ValueError, RecursionError):
        return "the line", None
    seq = value.get("seq") if isinstance(value, dict) else None
    seq = seq if type(seq) is int else None
    stack: list[tuple[str, Any]] = [("$", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _HugeMark):
            return path, seq
        if isinstance(item, dict):
            stack.extend((_member_path(path, name), each)
                         for name, each in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{path}[{index}]", each)
                         for index, each in reversed(list(enumerate(item))))
    return "the line", seq


def parse_line(line: bytes | bytearray | str, message: str) -> Any:
    """The JSON value on ``line``; ``message`` names it for the error (spec/protocol.md §2.1).

    Every message read passes here: a member name given twice in one object, at any depth, is a
    :class:`DuplicateMember` error naming the name, its path and depth, and the message."""
    if isinstance(line, bytes | bytearray):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(
                message=message, field="the line", expected="UTF-8 text",
                received=f"{shown(line)} (byte {exc.start} is not UTF-8)",
                fix="Write UTF-8; a JSON encoder that escapes non-ASCII characters writes pure "
                    "ASCII, which is always safe (spec/protocol.md §2.1).",
            ) from None
    else:
        text = line
    try:
        # NaN and Infinity are not JSON (RFC 8259 §6), though Python's parser accepts them.
        try:
            value = _read(text, _pairs)
        except _Repeated:
            # Read again, marking the objects, only to say where the name repeats.
            _refuse_duplicates(_read(text, _marking_pairs), message)
            raise AssertionError("a repeated member name was not found again") from None
    except _HugeInteger as exc:
        path, seq = _huge_integer_path(text)
        raise HugeInteger(
            message=message, field=path, seq=seq,
            expected=f"integers of at most {MAX_INTEGER_DIGITS} digits",
            received=f"an integer literal of {exc.args[0]} digits, in {shown(text, 120)}",
            fix="No operation of this spec needs such an integer; check what the program "
                "writes, and write the number the implementation computed "
                "(spec/protocol.md §2.1).",
        ) from None
    except RecursionError:
        raise ProtocolError(
            message=message, field="the line", expected="JSON nested at most a few hundred deep",
            received=f"{shown(text[:200])} (nested deeper than this harness's JSON parser goes)",
            fix="No operation of this spec needs such nesting; check what the program writes "
                "(spec/protocol.md §2.1).",
        ) from None
    except ValueError as exc:
        raise ProtocolError(
            message=message, field="the line", expected="one JSON object on one line",
            received=f"{shown(text)} ({exc})",
            fix="Write exactly one JSON object and a newline per answer on stdout, and nothing "
                "else there: logs and diagnostics belong on stderr (spec/protocol.md §2.2).",
        ) from None
    return value


def decode_request(line: bytes | bytearray | str) -> Request:
    """The request on ``line`` (the program's side of the boundary), schema-checked."""
    what = "a request from the harness"
    value = parse_line(line, what)
    if not isinstance(value, dict):
        raise ProtocolError(message=what, field="$", expected="a JSON object",
                            received=shown(value), fix=_FIXES["request"])
    command = value.get("cmd")
    schema_def = {"start": "startRequest", "run": "runRequest", "stop": "stopRequest"}.get(
        command if isinstance(command, str) else ""
    )
    if schema_def is None:
        raise ProtocolError(message=what, field="$.cmd",
                            expected='one of "start", "run", "stop"',
                            received=shown(command), fix=_FIXES["request"])
    _check(value, schema_def, what)
    if command == "start":
        return StartRequest(version=value["version"])
    if command == "run":
        return RunRequest(seq=int(value["seq"]), op=value["op"], input=value["input"])
    return StopRequest()


def start_response_from_json(value: Any, request: StartRequest = START) -> StartResponse:
    """The handshake in the parsed answer ``value``, or a :class:`ProtocolError`."""
    message = f"the answer to {request.describe()}"
    if isinstance(value, dict) and "version" in value and value["version"] != request.version:
        # Checked before the schema so that the error names both versions (spec §4.3).
        refusal = value.get("error")
        said = f" and said: {shown(refusal)}" if isinstance(refusal, str) else ""
        raise ProtocolError(
            message=message, field="$.version",
            expected=f"{request.version} (this harness speaks protocol version {request.version})",
            received=f"{shown(value['version'])}: the program speaks protocol version "
                     f"{shown(value['version'])}{said}",
            fix=f"Use a harness release that speaks protocol version {shown(value['version'])}, "
                f"or make the program answer version {request.version} as spec/protocol.md "
                "§4.3 describes.",
        )
    if isinstance(value, dict) and "error" in value:
        _check(value, "startRefusal", message)
        raise ProtocolError(
            message=message, field="$.error", expected="a handshake, not a refusal",
            received=shown(value["error"]),
            fix="The program refused to start; its error says why (spec/protocol.md §4.3).",
        )
    _check(value, "startResponse", message)
    identity = value["implementation"]
    declared = value["capabilities"]
    defaults = Capabilities()
    capabilities = Capabilities(
        ops=frozenset(declared["ops"]),
        fit_strategy=cast(FitStrategy, declared.get("fitStrategy", defaults.fit_strategy)),
        variable_max_bytes=declared.get("variableMaxBytes", defaults.variable_max_bytes),
        lone_surrogates=declared.get("loneSurrogates", defaults.lone_surrogates),
        numbers=declared.get("numbers", defaults.numbers),
    )
    return StartResponse(
        version=value["version"],
        implementation=Identity(
            name=identity["name"], language=identity["language"],
            version=identity.get("version"), homepage=identity.get("homepage"),
            issues=identity.get("issues"),
        ),
        capabilities=capabilities,
    )


def decode_start_response(
    line: bytes | bytearray | str, request: StartRequest = START
) -> StartResponse:
    """The handshake on ``line``, schema- and version-checked (spec/protocol.md §4)."""
    value = parse_line(line, f"the answer to {request.describe()}")
    return start_response_from_json(value, request)


_ANSWER_KINDS = ("output", "skipped", "errored")


def run_response_from_json(value: Any, request: RunRequest) -> RunResponse:
    """The answer to ``request`` in the parsed ``value``, or a :class:`ProtocolError`."""
    message = f"the answer to {request.describe()}"
    if not isinstance(value, dict):
        raise ProtocolError(message=message, field="$", expected="a JSON object",
                            received=shown(value), fix=_FIXES["runResponse"])
    kinds = [kind for kind in _ANSWER_KINDS if kind in value]
    if len(kinds) != 1:
        raise ProtocolError(
            message=message, field="$",
            expected="exactly one of the members \"output\", \"skipped\", \"errored\"",
            received=shown(value), fix=_FIXES["runResponse"],
        )
    kind = kinds[0]
    # Checking against the one variant that applies gives a precise error, not oneOf's summary.
    _check(value, f"{kind}Response", message)
    seq = value["seq"]
    if seq != request.seq:
        raise ProtocolError(
            message=message, field="$.seq",
            expected=f"{request.seq}, the seq of the request it answers",
            received=shown(seq),
            fix="Echo the seq of each run request unchanged in its answer, and answer requests "
                "in the order they arrive (spec/protocol.md §5.1).",
        )
    if kind == "output":
        return RunOutput(seq=request.seq, output=value["output"])
    if kind == "skipped":
        skipped = value["skipped"]
        return RunSkipped(seq=request.seq, reason=skipped["reason"],
                          issue_url=skipped.get("issueUrl"))
    errored = value["errored"]
    return RunErrored(seq=request.seq, message=errored["message"], context=errored.get("context"))


def decode_run_response(line: bytes | bytearray | str, request: RunRequest) -> RunResponse:
    """The answer to ``request`` on ``line``, schema- and seq-checked (spec/protocol.md §5)."""
    return run_response_from_json(parse_line(line, f"the answer to {request.describe()}"), request)
