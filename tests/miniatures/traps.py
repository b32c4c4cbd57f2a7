"""Wrong implementations that fall into the traps of the languages ports are written in
(docs/port-checklist.md, "Traps every run plants"): each is the reference behind one reading of
JSON that a port in JavaScript, Go, Java or C# makes, written from the spec alone.

Each reads its request the way such a port would (a JavaScript copy, Go's decoder, a fixed-width
integer, a normalizing string library) and answers what the reference answers to what it read.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from eventproof.reference import InvalidInput, Reference

#: Member names whose string values are text (the spec's texts, tasks, outputs, diagnostics).
TEXT_MEMBERS = frozenset({"text", "delta", "content", "task", "output", "errorMessage", "stderr",
                          "diagnostic", "message", "thinking"})
#: Names a plain JavaScript object answers from its prototype.
PROTOTYPE_NAMES = frozenset({"__proto__", "constructor", "toString", "hasOwnProperty",
                             "valueOf", "isPrototypeOf", "toLocaleString",
                             "propertyIsEnumerable", "__defineGetter__"})


def _rebuild(value: Any, edit: Callable[[Any, str | None], Any], name: str | None = None) -> Any:
    """``value`` with ``edit(node, member name)`` applied to every node, innermost first."""
    if isinstance(value, dict):
        value = {key: _rebuild(item, edit, key) for key, item in value.items()}
    elif isinstance(value, list):
        value = [_rebuild(item, edit, name) for item in value]
    return edit(value, name)


class _Reading(Reference):
    """The reference answering what a port read: :meth:`read` turns the request's input into
    what the port's JSON reading leaves of it."""

    def run(self, op: str, input: Any) -> Any:
        return super().run(op, self.read(op, input))

    def read(self, op: str, input: Any) -> Any:
        raise NotImplementedError


class ProtoMemberDropped(_Reading):
    """JavaScript: copies every object with ``Object.assign({}, …)``, so a member named
    ``__proto__`` sets the copy's prototype and is gone (every member is carried, selection.md
    §2.1, wire.md §4.2)."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, _: {k: v for k, v in node.items() if k != "__proto__"}
                        if isinstance(node, dict) else node)


class CaseInsensitiveMembers(_Reading):
    """Go: ``encoding/json`` matches member names without case, and the last of ``text`` and
    ``TEXT`` wins (a member differing by case is another member, §2.1)."""

    def read(self, op: str, input: Any) -> Any:
        def edit(node: Any, _: str | None) -> Any:
            if not isinstance(node, dict):
                return node
            read = dict(node)
            for key, value in node.items():
                for named in node:
                    if named != key and named.lower() == key.lower():
                        read[named] = value  # the later one overwrites the field
            return read
        return _rebuild(input, edit)


def _wrapped(bits: int) -> Callable[[Any, str | None], Any]:
    def edit(node: Any, _: str | None) -> Any:
        if isinstance(node, int) and not isinstance(node, bool):
            node %= 2**bits
            return node - 2**bits if node >= 2**(bits - 1) else node
        return node
    return edit


class Int32Numbers(_Reading):
    """Java or C#: every integer read into an ``int``, wrapping at 2^31 (the profiles' integers
    go up to 2^53 - 1 and beyond, selection.md §1, budget.md §1)."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, _wrapped(32))


class Int64Numbers(_Reading):
    """Go or Rust: every integer read into an ``int64``, wrapping at 2^63 (selection.md §2.4:
    turn numbers are any integers)."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, _wrapped(64))


class NfcText(_Reading):
    """A port whose string library normalizes text to NFC on the way in (texts are carried
    code point for code point)."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, _: unicodedata.normalize("NFC", node)
                        if isinstance(node, str) else node)


class TrimmedText(_Reading):
    """A port that trims every text it reads (``strings.TrimSpace``): white space at the ends is
    text like any other."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, name: node.strip()
                        if isinstance(node, str) and name in TEXT_MEMBERS else node)


class CaseFoldedNames(_Reading):
    """A port that compares types, roles, kinds and statuses without case (they are exact
    names: ``Assistant`` is not ``assistant``)."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, name: node.lower()
                        if isinstance(node, str)
                        and name in ("type", "role", "kind", "status", "stopReason")
                        else node)


class NestingLimit(_Reading):
    """Rust: ``serde_json`` refuses a request nested deeper than 128 levels (any JSON value is
    carried, whatever its depth)."""

    def read(self, op: str, input: Any) -> Any:
        def depth(value: Any) -> int:
            if isinstance(value, dict):
                return 1 + max(map(depth, value.values()), default=0)
            if isinstance(value, list):
                return 1 + max(map(depth, value), default=0)
            return 0
        if depth(input) > 128:
            raise ValueError("recursion limit exceeded")
        return input


class IdsInPlainObject(_Reading):
    """JavaScript: keeps what it has seen by id in a plain object, so an id named after a
    property of ``Object.prototype`` (``constructor``, ``__proto__``) is seen before it is
    stored and every thing so named is dropped (ids are any strings)."""

    def read(self, op: str, input: Any) -> Any:
        def edit(node: Any, _: str | None) -> Any:
            if isinstance(node, list):
                return [item for item in node if not _named_by_prototype(item)]
            return node
        return _rebuild(input, edit)


def _named_by_prototype(item: Any) -> bool:
    """Whether ``item`` is an object (or an event's message, a record) whose id a plain object
    answers from its prototype."""
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("event"), dict):  # a fold's push
        item = item["event"]
    data = item.get("data")
    message = data.get("message") if isinstance(data, dict) else None
    for holder in (item, message if isinstance(message, dict) else {}):
        for key in ("id", "toolCallId"):
            if holder.get(key) in PROTOTYPE_NAMES:
                return True
    return False


class TypesInPlainObject(Reference):
    """JavaScript: looks event types up in a plain object of the frame types, so a type named
    after a property of ``Object.prototype`` is taken for a frame (wire.md §3: a type is a frame
    by its exact name)."""

    def run(self, op: str, input: Any) -> Any:
        event = input.get("event") if isinstance(input, dict) else None
        if op == "classify" and isinstance(event, dict) and event.get("type") in PROTOTYPE_NAMES:
            return "frame"
        return super().run(op, input)


class FirstPlaceById(_Reading):
    """Keeps messages in an insertion-ordered map keyed by ``message.id``: a message whose id
    was used before takes the earlier one's place instead of coming last (selection.md §3.1:
    the last message in log order)."""

    def read(self, op: str, input: Any) -> Any:
        if op not in ("select", "settle") or not isinstance(input, dict):
            return input
        events = list(input.get("events", []))
        first: dict[Any, int] = {}
        kept: list[Any] = []
        for event in events:
            data = event.get("data") if isinstance(event, dict) else None
            message = data.get("message") if isinstance(data, dict) else None
            key = message.get("id") if isinstance(message, dict) else None
            if event.get("type") == "assistant/message" and isinstance(key, str):
                if key in first:
                    kept[first[key]] = event
                    continue
                first[key] = len(kept)
            kept.append(event)
        return {**input, "events": kept}


class RefusesWideIntegers(_Reading):
    """A port reading integers as 64-bit and refusing what does not fit (``i64`` in Rust): a
    request with an integer past 2^63 - 1 is refused."""

    def read(self, op: str, input: Any) -> Any:
        def edit(node: Any, _: str | None) -> Any:
            if isinstance(node, int) and not isinstance(node, bool) and not (
                    -(2**63) <= node < 2**63):
                raise InvalidInput(value=node, path="$", reason="does not fit an i64", fix="-")
            return node
        return _rebuild(input, edit)


class _Kept(_Reading):
    """A port with a fixed buffer of :attr:`items` items per list at the top of a request
    (events, pushes, records, updates), keeping the first or the last ones."""

    items = 1024
    last = True

    def read(self, op: str, input: Any) -> Any:
        if not isinstance(input, dict):
            return input
        return {key: (value[-self.items:] if self.last else value[:self.items])
                if isinstance(value, list) else value for key, value in input.items()}


class LastItemsKept(_Kept):
    """Keeps the last 1,024 events, pushes, records or updates in a ring buffer (a log, a
    batch, a timeline has any length: selection.md §2, budget.md §2)."""


class FirstItemsKept(_Kept):
    """Keeps the first 1,024 events, pushes, records or updates in a fixed array (a log, a
    batch, a timeline has any length: selection.md §2, budget.md §2)."""

    last = False


class _Cut(_Reading):
    """A port reading every string into a buffer of :attr:`size` characters."""

    size = 65536

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, _: node[:self.size] if isinstance(node, str)
                        else node)


class TextCutAt65536(_Cut):
    """Reads every string into a 64 KiB buffer: text past 65,536 characters is lost (texts have
    any length, selection.md §2.5, wire.md §5)."""


class TextCutAt4096(_Cut):
    """Reads every string into a buffer of a page, 4,096 characters (texts have any length,
    selection.md §2.5, wire.md §5)."""

    size = 4096


#: Member names whose values name a thing from a fixed set (the spec compares them exactly).
NAMING_MEMBERS = ("type", "role", "kind", "status", "stopReason")


class TrimmedNames(_Reading):
    """A port that trims every type, role, kind and status before it compares it (they are exact
    names: ``completed `` is an unknown kind, ``message_update `` an unknown type)."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, name: node.strip()
                        if isinstance(node, str) and name in NAMING_MEMBERS else node)


class CompatibilityNames(_Reading):
    """A port that normalizes every type, role, kind and status to NFKC before it compares it,
    so that a fullwidth look-alike (``ｍessage_update``) is taken for the name it resembles."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, name: unicodedata.normalize("NFKC", node)
                        if isinstance(node, str) and name in NAMING_MEMBERS else node)


class Uint32Numbers(_Reading):
    """C#, Go or Rust: every integer read into 32 unsigned bits, so ``2^32 + 1`` is ``1`` (turn
    numbers, counts and times are any integers, selection.md §1, budget.md §1)."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, _: node % 2**32
                        if isinstance(node, int) and not isinstance(node, bool) and node >= 2**32
                        else node)


class InnerItemsKept(_Reading):
    """A port copying every list inside a request (a message's blocks, a result's messages) into
    a fixed array of 16 items (a list has any length, selection.md §2.5, wire.md §4)."""

    def read(self, op: str, input: Any) -> Any:
        def cut(node: Any, depth: int) -> Any:
            if isinstance(node, dict):
                return {key: cut(item, depth + 1) for key, item in node.items()}
            if isinstance(node, list):
                # The request's own lists (events, pushes, records, updates) are read whole.
                return [cut(item, depth + 1) for item in (node if depth <= 1 else node[:16])]
            return node
        return cut(input, 0)


class FifteenDigitDoubles(_Reading):
    """C# before .NET Core 3.0, or C's ``%.15g``: every double held to 15 significant digits,
    so ``0.30000000000000004`` is ``0.3`` (a number is carried as it was written, as a double
    reads it: selection.md §1, wire.md §7)."""

    def read(self, op: str, input: Any) -> Any:
        return _rebuild(input, lambda node, _: float(f"{node:.15g}")
                        if isinstance(node, float) else node)


#: Each wrong implementation and the operations whose quick run must catch it.
TRAP_MINIATURES: dict[type[Reference], tuple[str, ...]] = {
    ProtoMemberDropped: ("select", "fold", "settle", "project"),
    CaseInsensitiveMembers: ("select", "fold", "project"),
    Int32Numbers: ("select", "settle", "project", "details", "roster", "lane", "publish"),
    Int64Numbers: ("select",),
    NfcText: ("select", "fold", "settle", "project", "details", "roster", "lane"),
    TrimmedText: ("select", "fold", "settle", "project", "details", "roster", "lane"),
    CaseFoldedNames: ("select", "fold", "settle", "classify", "project"),
    NestingLimit: ("select", "fold", "settle", "classify", "project", "details", "roster"),
    IdsInPlainObject: ("select", "fold", "settle"),
    TypesInPlainObject: ("classify",),
    FirstPlaceById: ("select",),
    RefusesWideIntegers: ("select", "fold", "settle"),
    LastItemsKept: ("select", "fold", "settle", "details", "roster", "lane"),
    FirstItemsKept: ("select", "fold", "settle", "details", "roster", "lane", "publish"),
    TextCutAt65536: ("select", "fold", "settle", "project", "details", "lane"),
    TextCutAt4096: ("select", "fold", "settle", "project", "details", "lane"),
    TrimmedNames: ("settle", "classify", "project"),
    CompatibilityNames: ("settle", "classify", "project"),
    Uint32Numbers: ("settle", "details", "lane", "publish"),
    InnerItemsKept: ("select", "settle", "project"),
    FifteenDigitDoubles: ("select", "project", "publish"),
}
