"""Ports that read a text the delegation tool result carries otherwise (selection.md §3.3,
§5.6), one class each, otherwise the reference. ``TOOL_TEXT_MINIATURES`` maps each to the
operations whose answers its reading changes."""

from __future__ import annotations

import copy
import unicodedata
from typing import Any

from miniatures import Miniature

_PARTIAL = "\nPartial output before the run ended:\n"


def _top_text(blocks: list[Any]) -> str:
    return "".join(block["text"] for block in blocks
                   if isinstance(block, dict) and block.get("type") == "text")


def _with_text(answer: Any, old: str, new: str) -> Any:
    """``answer`` with its tool result built from the text ``new`` where the reference's has
    ``old`` (selection.md §5.6)."""
    result = answer.get("toolResult") if isinstance(answer, dict) else None
    if result is None or old == new:
        return answer
    text = result["text"]
    if not result["isError"]:
        text = new
    else:
        head = text[:len(text) - len(_PARTIAL) - len(old)] if old else text
        text = head + (_PARTIAL + new if new else "")
    return {**answer, "toolResult": {**result, "text": text}}


class DiagnosticFromTheLog(Miniature):
    """Writes the log's failure message (the ``turn/end`` error, else the ``finish`` failure) as
    the diagnostic line when the request gave none: §5.6 takes the diagnostic from the request
    alone. Caught by ``settle.tool-result``."""

    name = "diagnostic-from-the-log"

    def settle(self, input: dict[str, Any]) -> Any:
        if "diagnostic" not in input and input.get("mode") != "continuable":
            for event in reversed(input["events"]):
                reason = event.get("data", {}).get("reason") if isinstance(event, dict) else None
                if isinstance(reason, dict) and isinstance(reason.get("error"), dict):
                    input = {**input, "diagnostic": reason["error"]["message"]}
                    break
        return self.reference.run("settle", input)


def _block_ends_read(events: list[Any]) -> list[Any]:
    """``events`` with each text block-end standing for the deltas of its index: the deltas go
    and the block-end becomes one delta of its block's text."""
    ended = {}
    for event in events:
        chunk = event.get("data", {}).get("chunk") if isinstance(event, dict) else None
        if isinstance(chunk, dict) and chunk.get("type") == "block-end" and isinstance(
                chunk.get("block"), dict) and chunk["block"].get("type") == "text":
            ended[chunk.get("index")] = chunk["block"].get("text")
    out = []
    for event in events:
        chunk = event.get("data", {}).get("chunk") if isinstance(event, dict) else None
        if isinstance(chunk, dict) and chunk.get("index") in ended and chunk.get("type") in (
                "text-delta", "block-end"):
            if chunk["type"] == "block-end":
                event = copy.deepcopy(event)
                event["data"]["chunk"] = {"type": "text-delta", "index": chunk["index"],
                                          "text": ended[chunk["index"]]}
                out.append(event)
            continue
        out.append(event)
    return out


class FallbackReadsBlockEnds(Miniature):
    """Takes a streamed block's text from its ``block-end`` rather than from the deltas (a
    reader that trusts the finished block): §3.3 joins the deltas and §3.4 says a block-end
    never contributes. Caught by ``select.text-fallback``, ``fold.prefix`` and
    ``settle.output``."""

    name = "fallback-reads-block-ends"

    def select(self, input: dict[str, Any]) -> Any:
        return self.reference.run("select", {**input, "events": _block_ends_read(
            input["events"])})

    def settle(self, input: dict[str, Any]) -> Any:
        return self.reference.run("settle", {**input, "events": _block_ends_read(
            input["events"])})

    def fold(self, input: dict[str, Any]) -> Any:
        pushes = input["pushes"]
        if not all("event" in push for push in pushes):
            return self.reference.run("fold", input)
        # After each push, the selection of the events so far (selection.md §4.2), read so.
        events = [push["event"] for push in pushes]
        first = self.reference.run("fold", {"pushes": []})[0]
        return [first, *(self.select({"events": events[:i + 1]}) for i in range(len(events)))]


class TrimsToolText(Miniature):
    """Treats a text of white space only as no text in the tool result (``if (text.trim())``):
    a completed run answers ``""`` and a failed one drops its partial-output line. Caught by
    ``settle.tool-result``."""

    name = "trims-tool-text"

    def settle(self, input: dict[str, Any]) -> Any:
        answer = self.reference.run("settle", input)
        text = _top_text(answer["result"]["output"])
        return _with_text(answer, text, text if text.strip() else "")


class NormalizesToolText(Miniature):
    """Normalizes the tool result's text to NFC (a base and its combining mark become one code
    point): the text is the child's, code point for code point. Caught by
    ``settle.tool-result``."""

    name = "normalizes-tool-text"

    def settle(self, input: dict[str, Any]) -> Any:
        answer = self.reference.run("settle", input)
        text = _top_text(answer["result"]["output"])
        return _with_text(answer, text, unicodedata.normalize("NFC", text))


def _all_text(blocks: list[Any]) -> str:
    """Every ``text`` of ``blocks`` and of the blocks nested in their ``content``."""
    out = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if isinstance(block.get("content"), list):
            out.append(_all_text(block["content"]))
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            out.append(block["text"])
    return "".join(out)


class CollectsNestedText(Miniature):
    """Joins the text of blocks nested in other blocks (a tool result's content) into the tool
    result's text: §5.6 reads only top-level ``text`` blocks. Caught by
    ``settle.tool-result``."""

    name = "collects-nested-text"

    def settle(self, input: dict[str, Any]) -> Any:
        answer = self.reference.run("settle", input)
        output = answer["result"]["output"]
        return _with_text(answer, _top_text(output), _all_text(output))


#: Every miniature -> the operations its reading changes.
TOOL_TEXT_MINIATURES: dict[type[Miniature], tuple[str, ...]] = {
    DiagnosticFromTheLog: ("settle",),
    FallbackReadsBlockEnds: ("select", "fold", "settle"),
    TrimsToolText: ("settle",),
    NormalizesToolText: ("settle",),
    CollectsNestedText: ("settle",),
}
