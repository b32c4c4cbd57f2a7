"""The select and fold generators put text where no output comes from (selection.md §3.4): for each
way a careless reader takes such text as the output, a wrong implementation, caught by a quick
search (``--budget quick``) on several seeds.

Each wrong implementation is the reference reading one more kind of event as an assistant message:
it rewrites the log so that the events it misreads become ``assistant/message`` events with the
content it would take, then selects as the reference does.
"""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.conformance.selection.strategies.events import DECOY_FORMS
from eventproof.reference import Reference
from helpers import conforms_on_a_quick_run

DEFAULT_SEEDS = (0,)
SLOW_SEEDS = (1, 2, 3, 4, 5, 6, 7)
_SOURCE = {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}


def _as_message(event: dict[str, Any], content: list[Any]) -> dict[str, Any]:
    return {"type": "assistant/message", "seq": event.get("seq", 0), "time": event.get("time", 0),
            "data": {"turn": 0, "step": 0, "message": {
                "id": "misread", "role": "assistant", "content": content,
                "source": dict(_SOURCE)}}}


def _content(value: Any) -> list[Any] | None:
    content = value.get("content") if isinstance(value, dict) else None
    return content if isinstance(content, list) and content else None


class _Misreader(Reference):
    """The reference, after :meth:`misread` has rewritten each event of the log."""

    def run(self, op: str, input: Any) -> Any:
        if op == "select" and isinstance(input, dict) and isinstance(input.get("events"), list):
            input = {**input, "events": [self._rewritten(e) for e in input["events"]]}
        elif op == "fold" and isinstance(input, dict) and isinstance(input.get("pushes"), list):
            input = {**input, "pushes": [
                {**push, "event": self._rewritten(push["event"])}
                if isinstance(push, dict) and "event" in push else push
                for push in input["pushes"]]}
        return super().run(op, input)

    def _rewritten(self, event: Any) -> Any:
        if not isinstance(event, dict) or event.get("type") == "assistant/message":
            return event
        data = event.get("data")
        content = self.misread(str(event.get("type")), data if isinstance(data, dict) else {})
        return event if content is None else _as_message(event, content)

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        raise NotImplementedError


class AnyDataMessage(_Misreader):
    """Takes the content of any event's ``data.message`` (a tool result's among them)."""

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        return _content(data.get("message"))


class UserMessageText(_Misreader):
    """Takes a user message's content: the last message with content, whoever wrote it."""

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        return _content(data) if kind == "user/message" else None


class UserMessageCarried(_Misreader):
    """Reads a ``user/message`` as an envelope whose ``data.message`` is the message."""

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        return _content(data.get("message")) if kind == "user/message" else None


class FramingCarried(_Misreader):
    """Takes a message that turn and step events carry."""

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        framing = kind.startswith(("turn/", "step/"))
        return _content(data.get("message")) if framing else None


class SplicedMessages(_Misreader):
    """Takes the last message a splice inserts into the pending input."""

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        inserted = data.get("inserted")
        if kind != "agent/inbox/spliced" or not isinstance(inserted, list) or not inserted:
            return None
        return _content(inserted[-1])


class LookAlikeTypes(_Misreader):
    """Compares event types without case and takes ``assistant/messages`` for its singular."""

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        alike = kind.lower().rstrip("s") == "assistant/message"
        return _content(data.get("message")) if alike else None


class ToolResultText(_Misreader):
    """Takes the text a tool result returned."""

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        message = data.get("message")
        blocks = _content(message) if kind == "tool/result" else None
        inner = _content(blocks[0]) if blocks and isinstance(blocks[0], dict) else None
        return inner


class ChunkCarried(_Misreader):
    """Takes a message a chunk event carries beside its chunk."""

    def misread(self, kind: str, data: dict[str, Any]) -> list[Any] | None:
        return _content(data.get("message")) if kind == "assistant/chunk" else None


WRONG = (AnyDataMessage, UserMessageText, UserMessageCarried, FramingCarried, SplicedMessages,
         LookAlikeTypes, ToolResultText, ChunkCarried)
OPS = ("select", "fold")


def _assert_caught(wrong: type[_Misreader], op: str, seed: int) -> None:
    assert not conforms_on_a_quick_run(wrong(), op, seed), (
        f"{wrong.__name__} conforms on a quick {op} run, seed {seed}")


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
@pytest.mark.parametrize("wrong", WRONG, ids=lambda cls: cls.__name__)
def test_a_quick_search_catches_each_misreading(wrong: type[_Misreader], seed: int) -> None:
    _assert_caught(wrong, "select", seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("wrong", WRONG, ids=lambda cls: cls.__name__)
def test_a_quick_search_catches_each_misreading_on_more_seeds(
        wrong: type[_Misreader], op: str, seed: int) -> None:
    _assert_caught(wrong, op, seed)


_ANSWER = {"type": "assistant/message", "seq": 1, "time": 0, "data": {
    "turn": 1, "step": 0, "message": {"id": "m1", "role": "assistant",
                                      "content": [{"type": "text", "text": "42"}],
                                      "source": dict(_SOURCE)}}}


@pytest.mark.parametrize("wrong", WRONG, ids=lambda cls: cls.__name__)
def test_each_misreader_agrees_with_the_reference_without_decoys(
        wrong: type[_Misreader]) -> None:
    """On a log holding only the answer, the misreader answers as the reference does."""
    for op, request in (("select", {"events": [_ANSWER]}),
                        ("fold", {"pushes": [{"event": _ANSWER}]})):
        assert wrong().run(op, request) == Reference().run(op, request)


def test_every_non_contributing_type_is_a_decoy_carrier() -> None:
    """The decoys carry an assistant message on every event type that contributes nothing and
    has no message of its own (§3.4): user input, tool calls, turn and step framing, splices,
    chunks, and types the spec does not name."""
    carried = {form.removeprefix("carried:") for form in DECOY_FORMS if form.startswith("carried:")}
    assert {"user/message", "tool/call", "turn/start", "turn/end", "step/start", "step/end",
            "agent/inbox/spliced", "assistant/chunk"} <= carried
    assert "assistant/message" not in carried
