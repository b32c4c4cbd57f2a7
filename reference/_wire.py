"""Classification and projection of agent events to wire lines (spec/wire.md §3-4).

A *frame* (``message_update``, ``tool_execution_update``) is ephemeral progress; every other type,
unknown ones included, is a *fact*. A projected line is the canonical serialization (§6) of the
projected value; only a ``tool_execution_update`` line longer than ``maxBytes`` is replaced by the
bounded form of the backstop (§5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeGuard

from ._backstop import (
    DEFAULT_MAX_BYTES,
    FIT_STRATEGIES,
    MIN_MAX_BYTES,
    BoundStats,
    bound_with_line,
    check_fit_strategy,
    check_max_bytes,
)
from ._canonical import (
    _PLAIN_SHORTCUT,
    _STRICT_INTEGER,
    JSONEncodeError,
    _dumps,
    _plain_tree,
    _plain_tree_code_points,
    canonical_bytes,
    canonical_bytes_clear,
    has_surrogate,
)
from ._errors import InvalidInput

#: The ephemeral types (wire.md §3); everything else is durable.
FRAME_TYPES = frozenset({"message_update", "tool_execution_update"})
#: The event types §4 does not write as they are: the frames, and the facts it projects.
_RESHAPED = FRAME_TYPES | {"turn_end", "agent_end"}

_EVENT = "$.event"
_MESSAGE = f"{_EVENT}.message"
_MESSAGE_EVENT = f"{_EVENT}.assistantMessageEvent"


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, a plain dict first (the ABC check costs ten times more)."""
    return type(value) is dict or isinstance(value, Mapping)


def _require_event(event: Any) -> Mapping[str, Any]:
    if not _is_mapping(event):
        raise InvalidInput(
            value=event, path=_EVENT, reason="is not a JSON object",
            fix="Send the agent event as an object with a string 'type' (wire.md §2).",
        )
    kind = event.get("type")
    if not isinstance(kind, str):
        raise InvalidInput(
            value=kind, path=f"{_EVENT}.type", reason="is not a string, so the event has no type",
            fix="Every agent event carries a string 'type' (wire.md §2, §7).",
        )
    return event


def classify_event(event: Any) -> Literal["fact", "frame"]:
    """``"frame"`` for ``message_update`` and ``tool_execution_update``, else ``"fact"`` (§3).

    A plain dict with a plain string type (what a JSON reader builds) is classified without
    the checks' calls; anything else is checked first.
    """
    kind = event.get("type") if type(event) is dict else None
    if type(kind) is not str:
        kind = _require_event(event)["type"]
    return "frame" if kind in FRAME_TYPES else "fact"


# -- §4 projection -----------------------------------------------------------------------------


def _mapping(value: Any, path: str, what: str) -> Mapping[str, Any]:
    if not _is_mapping(value):
        raise InvalidInput(
            value=value, path=path, reason=f"is not an object, so it is not {what} (wire.md §7)",
            fix=f"Send {what} as schemas/agent-event.json describes.",
        )
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidInput(
            value=value, path=path, reason="is not an array (wire.md §7)",
            fix="Send an array here, as schemas/agent-event.json describes.",
        )
    return value


def _role(message: Mapping[str, Any], path: str) -> str:
    role = message.get("role")
    if not isinstance(role, str):
        raise InvalidInput(
            value=role, path=f"{path}.role", reason="is not a string, so the message has no role",
            fix="Send the message's role as a string (wire.md §2, §7).",
        )
    return role


def _index(value: Any) -> int | None:
    """A JSON integer as a Python int (``1.0`` is 1, as in JSON); ``None`` for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _tool_call_fields(message_event: Mapping[str, Any]) -> tuple[str, str]:
    """The ``id`` and ``name`` of the tool call a ``toolcall_start`` announces (wire.md §4.3)."""
    base = f"{_EVENT}.assistantMessageEvent"
    partial = _mapping(message_event.get("partial"), f"{base}.partial",
                       "an assistant message snapshot")
    content = _list(partial.get("content"), f"{base}.partial.content")
    raw_index = message_event.get("contentIndex")
    index = _index(raw_index)
    # A JS reader indexes content[contentIndex]: a negative, fractional or absent index, or
    # one past the end, finds no block at all (never Python's content[-1]).
    if index is None or not 0 <= index < len(content):
        raise InvalidInput(
            value=raw_index, path=f"{base}.contentIndex",
            reason=f"points at no block of partial.content (it has {len(content)}): a "
                   "toolcall_start must announce a tool call that exists (wire.md §4.5)",
            fix="Send the index of the toolCall block this toolcall_start opens.",
        )
    block_path = f"{base}.partial.content[{index}]"
    block = content[index]
    if not isinstance(block, Mapping) or block.get("type") != "toolCall":
        raise InvalidInput(
            value=block, path=block_path,
            reason="is not a toolCall block: a toolcall_start must announce a tool call "
                   "(wire.md §4.5)",
            fix="Point contentIndex at the toolCall block, or send another event type.",
        )
    fields = []
    for key in ("id", "name"):
        value = block.get(key)
        if not isinstance(value, str):
            raise InvalidInput(
                value=value, path=f"{block_path}.{key}", reason="is not a string (wire.md §7)",
                fix=f"Send the tool call's {key} as a string.",
            )
        fields.append(value)
    return fields[0], fields[1]


def _project_message_update(event: Mapping[str, Any]) -> dict[str, Any]:
    """``{type, usage?, assistantMessageEvent minus partial}`` (wire.md §4.3)."""
    message = event.get("message")
    if type(message) is not dict:  # the checks' calls, only for what may fail them
        message = _mapping(message, _MESSAGE, "a message")
    role = message.get("role")
    if type(role) is not str:
        role = _role(message, _MESSAGE)
    if role != "assistant":
        raise InvalidInput(
            value=role, path=f"{_EVENT}.message.role",
            reason="is not 'assistant': a message_update streams an assistant message, so "
                   "this event is erroneous (wire.md §4.5)",
            fix="Send message_update only for assistant messages.",
        )
    message_event = event.get("assistantMessageEvent")
    if type(message_event) is dict:  # the same copy as below, made by C code
        projected_event = message_event.copy()
        projected_event.pop("partial", None)
    else:
        message_event = _mapping(message_event, _MESSAGE_EVENT, "an assistantMessageEvent")
        projected_event = {key: value for key, value in message_event.items()
                           if key != "partial"}
    if message_event.get("type") == "toolcall_start":
        # JS object spread: an existing key keeps its position, its value is replaced.
        projected_event["id"], projected_event["toolName"] = _tool_call_fields(message_event)
    projected: dict[str, Any] = {"type": event["type"]}
    if "usage" in message:
        projected["usage"] = message["usage"]
    projected["assistantMessageEvent"] = projected_event
    return projected


def _project_turn_end(event: Mapping[str, Any]) -> dict[str, Any]:
    """``{type, messageRole, toolResultCount}`` (wire.md §4.4)."""
    message = _mapping(event.get("message"), f"{_EVENT}.message", "a message")
    return {
        "type": event["type"],
        "messageRole": _role(message, f"{_EVENT}.message"),
        "toolResultCount": len(_list(event.get("toolResults"), f"{_EVENT}.toolResults")),
    }


def _project_agent_end(event: Mapping[str, Any]) -> dict[str, Any]:
    """``{type, willRetry, messageCount}``; ``willRetry`` is false when absent (wire.md §4.4)."""
    will_retry = event.get("willRetry", False)
    if not isinstance(will_retry, bool):
        raise InvalidInput(
            value=will_retry, path=f"{_EVENT}.willRetry", reason="is not a boolean (wire.md §7)",
            fix="Send true or false, or leave willRetry out (it then reads as false).",
        )
    return {
        "type": event["type"],
        "willRetry": will_retry,
        "messageCount": len(_list(event.get("messages"), f"{_EVENT}.messages")),
    }


# Where the members of a message_update projection that can hold numbers came from (§7).
_MESSAGE_UPDATE_SOURCES = {
    "usage": f"{_EVENT}.message.usage",
    "assistantMessageEvent": f"{_EVENT}.assistantMessageEvent",
}


def _input_path(kind: str, path: str) -> str:
    """Where the value at ``path`` of a projected value sat in the operation input."""
    if kind == "message_update":  # only usage and the event can hold numbers (type is a str)
        member = "usage" if path.startswith("$.usage") else "assistantMessageEvent"
        return _MESSAGE_UPDATE_SOURCES[member] + path[len("$." + member):]
    return _EVENT + path[1:]  # every other projection that copies values copies the event


def _serialize(projected: Mapping[str, Any], kind: str,
               encode: Callable[[Any], bytes] = canonical_bytes) -> bytes:
    """The canonical line of ``projected``; a refused number is named where the input had it."""
    try:
        return encode(projected)
    except InvalidInput as error:
        raise InvalidInput(value=error.value, path=_input_path(kind, error.path),
                           reason=error.reason, fix=error.fix) from None


# -- an update provably over the bound -------------------------------------------------------
#
# Most of an oversized update's bytes are its text, and its line L is thrown away for the
# bounded form (§5.1). So L is not written when its size provably exceeds maxBytes: every string
# of the event reaches L, and each code point of a string costs at least one byte there (§6.5:
# a surrogate pair becomes one four-byte character, a lone surrogate a three-byte U+FFFD), so L
# is longer than the code points of its strings together. One exception: two member names that
# differ only in surrogates become equal (§6.1) and one member disappears, value and all; an
# event with a surrogate in a member name is therefore never taken this way. L must still be
# writable, or the event is refused (§7); strings never stand in the way of that, so the check
# serializes the event with every long string replaced by "", which raises exactly what L would.

#: Strings at least this long are replaced by "" in the copy that checks an update is writable.
_BLANKED_FROM = 64
#: Nesting deeper than this is left to the ordinary path (the copy is made recursively).
_SHORTCUT_DEPTH = 64
_SCALARS = (int, float, bool, type(None))


def _string_code_points(value: Any, depth: int = _SHORTCUT_DEPTH) -> int:
    """Code points of every string and member name in ``value``, or -1 when ``value`` is not
    made of plain dicts, lists, strings and numbers, nests too deep, or has a member name with
    a surrogate in it."""
    kind = type(value)
    if kind is str:
        return len(value)
    if kind in _SCALARS:
        return 0
    if depth == 0:
        return -1
    total = 0
    if kind is dict:
        for key, item in value.items():
            if type(key) is str:
                if not key.isascii() and has_surrogate(key):
                    return -1
                total += len(key)
            inner = _string_code_points(item, depth - 1)
            if inner < 0:
                return -1
            total += inner
        return total
    if kind is list:
        for item in value:
            inner = _string_code_points(item, depth - 1)
            if inner < 0:
                return -1
            total += inner
        return total
    return -1


def _blank_long_strings(value: Any) -> Any:
    """``value`` with every string of :data:`_BLANKED_FROM` code points or more made ``""``."""
    kind = type(value)
    if kind is str:
        return "" if len(value) >= _BLANKED_FROM else value
    if kind is dict:
        return {key: _blank_long_strings(item) for key, item in value.items()}
    if kind is list:
        return [_blank_long_strings(item) for item in value]
    return value


def project_event_clear(
    event: Any, *, include_live_events: bool, max_bytes: int = DEFAULT_MAX_BYTES,
    fit_strategy: str = "halving", stats: BoundStats | None = None,
) -> bytes | None:
    """:func:`project_event` as wire.md §4 reads: every check, the clear canonical encoder, and
    the line of an oversized update written before it is bounded. The fast path is tested
    against it over every family of project inputs (tests/unit/test_wire_fast_path.py)."""
    if not isinstance(include_live_events, bool):
        raise InvalidInput(value=include_live_events, path="$.includeLiveEvents",
                           reason="is not a boolean", fix="Send true or false.")
    max_bytes = check_max_bytes(max_bytes)
    check_fit_strategy(fit_strategy)
    event = _require_event(event)
    kind = event["type"]
    if kind in FRAME_TYPES and not include_live_events:
        return None  # §4.1 comes first: a frame nobody opted into is never looked at
    if kind == "message_update":
        projected = _project_message_update(event)
    elif kind == "turn_end":
        projected = _project_turn_end(event)
    elif kind == "agent_end":
        projected = _project_agent_end(event)
    else:
        projected = event  # §4.2: every other fact, and an opted-in tool_execution_update
    line = _serialize(projected, kind, canonical_bytes_clear)
    if kind == "tool_execution_update" and len(line) > max_bytes:
        _, line = bound_with_line(event, max_bytes=max_bytes, fit_strategy=fit_strategy,
                                  stats=stats)
    return line


def project_event(
    event: Any, *, include_live_events: bool, max_bytes: int = DEFAULT_MAX_BYTES,
    fit_strategy: str = "halving", stats: BoundStats | None = None,
) -> bytes | None:
    """The canonical wire line of ``event``, or ``None`` for a frame not opted into (wire.md §4).

    Raises :class:`InvalidInput` for an erroneous event (§4.5), for a value whose serialization
    the canonical form refuses (§7), and for ``max_bytes`` that is not an integer >= 3215. A
    :class:`BoundStats` passed as ``stats`` counts the backstop's serializations.

    Writes exactly what :func:`project_event_clear` writes. When the arguments are of the exact
    types a JSON reader builds, the checks they would pass are skipped; see also
    :func:`_project` (the code-point shortcut) and ``canonical_bytes`` (the orjson fast path).
    """
    if (type(event) is dict and type(include_live_events) is bool
            and type(max_bytes) is int and max_bytes >= MIN_MAX_BYTES
            and type(fit_strategy) is str and fit_strategy in FIT_STRATEGIES):
        kind = event.get("type")
        if type(kind) is str:
            if _PLAIN_SHORTCUT and kind not in _RESHAPED:
                # §4.2, the commonest event: a fact written as it is. _project's own shortcut,
                # without the call (a call is a good part of a small event's cost).
                try:
                    if _plain_tree(event):
                        line: bytes = _dumps(event, None, _STRICT_INTEGER)
                        return line
                except (RecursionError, JSONEncodeError):
                    pass  # deep nesting, a lone surrogate or a big integer: _project decides
            return _project(event, kind, include_live_events, max_bytes, fit_strategy, stats)
    if not isinstance(include_live_events, bool):
        raise InvalidInput(value=include_live_events, path="$.includeLiveEvents",
                           reason="is not a boolean", fix="Send true or false.")
    max_bytes = check_max_bytes(max_bytes)
    check_fit_strategy(fit_strategy)
    event = _require_event(event)
    return _project(event, event["type"], include_live_events, max_bytes, fit_strategy, stats)


def _project(event: Mapping[str, Any], kind: str, include_live_events: bool, max_bytes: int,
             fit_strategy: str, stats: BoundStats | None) -> bytes | None:
    """:func:`project_event` once its arguments are checked."""
    if kind in FRAME_TYPES:
        if not include_live_events:
            return None  # §4.1 comes first: a frame nobody opted into is never looked at
        if kind != "message_update":
            return _project_update(event, max_bytes, fit_strategy, stats)
        projected = _project_message_update(event)
    elif kind == "turn_end":
        projected = _project_turn_end(event)
    elif kind == "agent_end":
        projected = _project_agent_end(event)
    else:
        # §4.2: every other fact as it is (a plain dict is serialized in place: nothing below
        # changes it)
        projected = event if type(event) is dict else dict(event)
    # canonical_bytes' plain-tree shortcut, without the two calls in between (most events are
    # small, and a call is a good part of their cost).
    if _PLAIN_SHORTCUT:
        try:
            if _plain_tree(projected):
                line: bytes = _dumps(projected, None, _STRICT_INTEGER)
                return line
        except (RecursionError, JSONEncodeError):
            pass  # deep nesting, a lone surrogate or a big integer: canonical_bytes decides
    return _serialize(projected, kind)


def _project_update(event: Mapping[str, Any], max_bytes: int, fit_strategy: str,
                    stats: BoundStats | None) -> bytes:
    """An opted-in ``tool_execution_update``: its line, or its bounded form past ``maxBytes``."""
    kind = "tool_execution_update"
    if _PLAIN_SHORTCUT:
        # One walk for the commonest update, a plain one within the bound: it would pass the
        # test below (its code points are the same count), so orjson writes it as
        # canonical_bytes would.
        try:
            within = 0 <= _plain_tree_code_points(event) <= max_bytes
        except RecursionError:
            within = False
        if within:
            try:
                line: bytes = _dumps(event, None, _STRICT_INTEGER)
            except JSONEncodeError:  # a lone surrogate or a big integer: canonical_bytes decides
                line = _serialize(event, kind)
            if len(line) > max_bytes:
                _, line = bound_with_line(event, max_bytes=max_bytes, fit_strategy=fit_strategy,
                                          stats=stats)
            return line
    if _string_code_points(event) > max_bytes:
        # L provably exceeds maxBytes (see above): check that it is writable, never write it.
        _serialize(_blank_long_strings(event), kind)
        _, line = bound_with_line(event, max_bytes=max_bytes, fit_strategy=fit_strategy,
                                  stats=stats)
        return line
    line = _serialize(event if type(event) is dict else dict(event), kind)
    if len(line) > max_bytes:
        _, line = bound_with_line(event, max_bytes=max_bytes, fit_strategy=fit_strategy,
                                  stats=stats)
    return line
