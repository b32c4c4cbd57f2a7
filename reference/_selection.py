"""Which output a child agent produced: the selection rule and its fold (spec/selection.md §3-4).

There is one rule and it lives in :class:`OutputFold`. The batch function :func:`select_output` is
defined as folding the whole event list, and the ``fold`` operation (:func:`fold_results`) is the
same fold observed after every push, so the three can never disagree (selection.md §4.2).

Input is a JSON value. The code checks exactly the values it reads and raises
:class:`~eventproof.reference.InvalidInput` for a malformed one (selection.md §6); unknown event
types, unknown chunk types and extra keys are ignored (selection.md §2.6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._errors import InvalidInput

#: The event types the rule reads (selection.md §2.2, §2.3); every other type is ignored.
ASSISTANT_MESSAGE = "assistant/message"
ASSISTANT_CHUNK = "assistant/chunk"
#: The one chunk type whose text contributes (selection.md §3.3).
TEXT_DELTA = "text-delta"


def require_object(value: Any, path: str, what: str, fix: str) -> Mapping[str, Any]:
    """``value`` when it is a JSON object; otherwise :class:`InvalidInput` at ``path``."""
    if not isinstance(value, Mapping):
        raise InvalidInput(
            value=value, path=path,
            reason=f"is not a JSON object, but {what} must be one (selection.md §6)", fix=fix,
        )
    return value


def require_list(value: Any, path: str, what: str, fix: str) -> list[Any]:
    """``value`` when it is a JSON array; otherwise :class:`InvalidInput` at ``path``."""
    if not isinstance(value, list):
        raise InvalidInput(
            value=value, path=path,
            reason=f"is not a JSON array, but {what} must be one (selection.md §6)", fix=fix,
        )
    return value


def require_string(value: Any, path: str, what: str, fix: str) -> str:
    """``value`` when it is a JSON string; otherwise :class:`InvalidInput` at ``path``."""
    if not isinstance(value, str):
        raise InvalidInput(
            value=value, path=path,
            reason=f"is not a string, but {what} must be one (selection.md §6)", fix=fix,
        )
    return value


def event_type(event: Any, path: str) -> str:
    """The ``type`` of the session event at ``path`` (selection.md §2.1)."""
    envelope = require_object(
        event, path, "a session event",
        'Send each event as an object {"type", "seq", "time", "data"} (selection.md §2.1).',
    )
    return require_string(
        envelope.get("type"), f"{path}.type", "the type of a session event",
        'Give every event a string "type"; unknown types are allowed and ignored '
        "(selection.md §2.6).",
    )


def event_data(event: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """The ``data`` object of a session event the rule reads (selection.md §2.1)."""
    return require_object(
        event.get("data"), f"{path}.data", "the data of a session event",
        'Give the event a "data" object (selection.md §2.1).',
    )


def message_content(event: Mapping[str, Any], path: str) -> list[Any]:
    """``data.message.content`` of an ``assistant/message`` event (selection.md §2.2)."""
    data = event_data(event, path)
    message = require_object(
        data.get("message"), f"{path}.data.message", "the message of an assistant/message",
        'Send {"message": {"role": "assistant", "content": [...]}} (selection.md §2.2).',
    )
    return require_list(
        message.get("content"), f"{path}.data.message.content",
        "the content of an assistant message",
        "Send the content blocks as a list; a usage-only message has [] (selection.md §2.2).",
    )


def text_delta_text(event: Mapping[str, Any], path: str) -> str | None:
    """The text an ``assistant/chunk`` event streams, or None when it is not a text delta.

    Reasoning deltas, tool-call deltas and every other chunk type give None: they never
    contribute (selection.md §3.4).
    """
    chunk = require_object(
        event_data(event, path).get("chunk"), f"{path}.data.chunk",
        "the chunk of an assistant/chunk",
        'Send {"chunk": {"type": ..., ...}} (selection.md §2.3).',
    )
    chunk_type = require_string(
        chunk.get("type"), f"{path}.data.chunk.type", "the type of a chunk",
        'Give every chunk a string "type"; unknown chunk types are ignored (selection.md §2.3).',
    )
    if chunk_type != TEXT_DELTA:
        return None
    return require_string(
        chunk.get("text"), f"{path}.data.chunk.text", "the text of a text-delta chunk",
        'Send {"type": "text-delta", "index": <int>, "text": "<string>"} (selection.md §2.3).',
    )


class OutputFold:
    """The selection rule, one event at a time (selection.md §4).

    It keeps two things: the content of the last assistant message whose content is non-empty
    (§3.1, §3.2) and the text-delta text streamed so far (§3.3). :meth:`collect` prefers the first,
    falls back to the second, and answers None when both are missing.
    """

    def __init__(self) -> None:
        self._last_content: list[Any] | None = None
        self._last_content_path: str | None = None
        self._text = ""

    def push(self, event: Any, *, path: str = "$") -> None:
        """Fold in one session event; ``path`` locates it in error messages."""
        kind = event_type(event, path)
        if kind == ASSISTANT_MESSAGE:
            content = message_content(event, path)
            # selection.md §3.2: content length decides; an empty (usage-only) message never
            # replaces an earlier one and never hides streamed text. Interrupted messages count
            # like any other (§3.1).
            if len(content) > 0:
                self._last_content = content
                self._last_content_path = f"{path}.data.message.content"
        elif kind == ASSISTANT_CHUNK:
            text = text_delta_text(event, path)
            if text is not None:
                self._add_text(text)
        # selection.md §3.4 and §2.6: every other type (tool results, user messages, turns,
        # unknown types) never contributes.

    def push_text(self, text: Any, *, path: str = "$") -> None:
        """Fold in raw streamed text, exactly as a text-delta chunk with this text (§4.1)."""
        self._add_text(require_string(
            text, path, "pushed text", 'Push text as {"text": "<string>"} (selection.md §4.1).',
        ))

    def _add_text(self, text: str) -> None:
        # selection.md §3.3: concatenation in log order; an empty piece changes nothing.
        self._text += text

    def collect(self) -> list[Any] | None:
        """The output selected so far: message content, else streamed text, else None (§3)."""
        if self._last_content is not None:
            return list(self._last_content)  # §3.1: the list as given, block for block
        if self._text:
            return [{"type": "text", "text": self._text}]  # §3.3
        return None  # §3.3: no output at all

    @property
    def content_path(self) -> str | None:
        """Where the selected message content sat, or None when it is not a message's content."""
        return self._last_content_path


def fold_events(events: Any, path: str = "$.events") -> OutputFold:
    """A fold that has taken every event of ``events`` in log order."""
    fold = OutputFold()
    for index, event in enumerate(require_list(
        events, path, "a session log", "Send the events as a list (selection.md §2.1).",
    )):
        fold.push(event, path=f"{path}[{index}]")
    return fold


def select_output(events: Any) -> list[Any] | None:
    """The ``select`` operation: the output the child produced, or None (selection.md §3).

    Defined as folding the whole log, so it is the fold's answer by construction (§4.2).
    """
    return fold_events(events).collect()


def fold_results(pushes: Any) -> list[list[Any] | None]:
    """The ``fold`` operation: ``collect()`` before the first push and after each one (§4.1).

    Each push is ``{"event": <session event>}`` or ``{"text": "<string>"}``.
    """
    fold = OutputFold()
    results = [fold.collect()]
    for index, push in enumerate(require_list(
        pushes, "$.pushes", "the list of pushes",
        'Send {"pushes": [{"event": ...} or {"text": "..."}, ...]} (selection.md §7).',
    )):
        path = f"$.pushes[{index}]"
        if isinstance(push, Mapping) and ("event" in push) != ("text" in push):
            if "event" in push:
                fold.push(push["event"], path=f"{path}.event")
            else:
                fold.push_text(push["text"], path=f"{path}.text")
        else:
            raise InvalidInput(
                value=push, path=path,
                reason="is neither {\"event\": ...} nor {\"text\": ...} (selection.md §4.1)",
                fix='Send each push as an object with exactly one of the keys "event" and "text".',
            )
        results.append(fold.collect())
    return results
