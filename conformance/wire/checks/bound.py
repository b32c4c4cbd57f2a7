"""Checks of the ``bound`` rules (spec/wire.md §5): the backstop for oversized live updates."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from eventproof.reference import MARKER

from ..._json import describe_char, well_formed
from ..._json import kind as json_kind
from ..._model import Case, Violation, judges
from ..explain import (
    BOUNDED_KEYS,
    BYTE_FORM_KIND,
    BYTE_FORM_RULE,
    ID_CLIP_CODE_POINTS,
    MARKER_IN_JSON,
    UPDATE,
    Bound,
    Line,
    ProjectView,
    compact,
    describe_forms,
    difference_text,
    escaped_size,
    measured_as_written,
    project_view,
    same_json,
    shown,
    size_hints,
    utf8_size,
    written_forms,
)


@judges("bound.only-updates")
def check_only_updates(case: Case) -> Iterator[Violation]:
    """bound.only-updates (wire.md §5.1): the backstop never touches another type."""
    view = project_view(case)
    if view is None or view.is_update:
        return
    line = view.judged_line()
    if line is None or view.restated()[0] != "line" or not view.over:
        return
    want = view.want()
    if same_json(line.value, want):
        return
    marked = MARKER_IN_JSON in line.text and MARKER_IN_JSON not in compact(want)
    if line.size > view.max_bytes and not marked:
        return  # not shrunk: some other projection rule explains the difference
    marker = " and it carries the marker " + compact(MARKER) if marked else ""
    yield Violation("bound.only-updates", (
        f"a {view.type} is never bounded: its line is {view.projected_size()} bytes, over "
        f"maxBytes {view.max_bytes}, and is still written in full (the backstop applies only to "
        f"tool_execution_update, wire.md §5.1). Your line is {line.size} bytes{marker}; "
        f"{difference_text(line.value, want)}"))


@judges("bound.shape")
def check_shape(case: Case) -> Iterator[Violation]:
    """bound.shape (wire.md §5.2): the bounded form, exactly."""
    view = project_view(case)
    line = view.bounded_attempt() if view else None
    if view is None or line is None:
        return
    problems = _shape_problems(line.value)
    if problems:
        yield Violation("bound.shape", (
            f"the event's line is {view.projected_size()} bytes, over maxBytes {view.max_bytes}, "
            "so the line is exactly the bounded form {\"type\":\"tool_execution_update\","
            "\"toolCallId\":…,\"toolName\":…,\"partialResult\":{\"content\":[{\"type\":\"text\","
            "\"text\":…}]}} with args, details and every other member dropped (wire.md §5.2); "
            + "; ".join(problems)))


def _shape_problems(value: Any) -> list[str]:
    if not isinstance(value, Mapping):
        return [f"your line is {json_kind(value)}, not an object"]
    problems = []
    keys = list(value)
    if keys != list(BOUNDED_KEYS):
        extra = [key for key in keys if key not in BOUNDED_KEYS]
        missing = [key for key in BOUNDED_KEYS if key not in keys]
        detail = []
        if extra:
            detail.append(f"drop {', '.join(map(compact, extra))}")
        if missing:
            detail.append(f"add {', '.join(map(compact, missing))}")
        if not detail:
            detail.append("reorder them")
        problems.append(f"your members are {shown(keys, 100)}; the bounded form has exactly "
                        f"{compact(list(BOUNDED_KEYS))} in this order: {' and '.join(detail)}")
    if value.get("type") != UPDATE and "type" in value:
        problems.append(f"type is {shown(value.get('type'))}")
    for key in ("toolCallId", "toolName"):
        if key in value and not isinstance(value[key], str):
            problems.append(f"{key} is {json_kind(value[key])}, not a string")
    if "partialResult" in value:
        result = value["partialResult"]
        content = result.get("content") if isinstance(result, Mapping) else None
        block = content[0] if isinstance(content, list) and len(content) == 1 else None
        if not (isinstance(result, Mapping) and list(result) == ["content"]
                and isinstance(block, Mapping) and list(block) == ["type", "text"]
                and block["type"] == "text" and isinstance(block["text"], str)):
            problems.append(f"partialResult is {shown(result, 100)}; it must be exactly "
                            "{\"content\":[{\"type\":\"text\",\"text\":<marker + tail>}]} (no "
                            "details, one text block)")
    return problems


def _bounded_parts(view: ProjectView) -> tuple[Line, Bound] | None:
    """The actual bounded line and the restated arithmetic, once the shape is right."""
    line = view.bounded_attempt()
    if line is None or _shape_problems(line.value):
        return None
    bound = view.bound()
    return (line, bound) if bound is not None else None


@judges("bound.ids")
def check_ids(case: Case) -> Iterator[Violation]:
    """bound.ids (wire.md §5.4): ids keep their first 256 code points, and only then."""
    view = project_view(case)
    parts = _bounded_parts(view) if view else None
    if view is None or parts is None:
        return
    line, _ = parts
    for key in ("toolCallId", "toolName"):
        original = well_formed(view.event[key])
        want = original[:ID_CLIP_CODE_POINTS]
        got = line.value[key]
        if got == want:
            continue
        n = len(original)
        units = original.encode("utf-16-le", "surrogatepass")[: 2 * ID_CLIP_CODE_POINTS]
        if got == original and n > ID_CLIP_CODE_POINTS:
            why = (f"your {key} keeps all {n} code points ({utf8_size(got)} bytes); the bounded "
                   f"form keeps its first {ID_CLIP_CODE_POINTS} code points, so that the empty "
                   "tail always fits and the shrink loop converges (wire.md §5.4, §5.6)")
        elif got in (units.decode("utf-16-le", "ignore"),
                     well_formed(units.decode("utf-16-le", "surrogatepass"))):
            why = (f"your {key} is clipped at {ID_CLIP_CODE_POINTS} UTF-16 units ({len(got)} code "
                   f"points); clip at {ID_CLIP_CODE_POINTS} code points, where an astral "
                   f"character counts once (the original has {n} code points, "
                   f"{len(original.encode('utf-16-le', 'surrogatepass')) // 2} UTF-16 units)")
        elif n <= ID_CLIP_CODE_POINTS:
            why = (f"the original {key} has {n} code points (at most {ID_CLIP_CODE_POINTS}), so "
                   f"the bounded form keeps it unchanged; yours is {shown(got)}")
        elif got == original[-ID_CLIP_CODE_POINTS:]:
            why = (f"your {key} keeps the last {ID_CLIP_CODE_POINTS} code points; keep the first "
                   "ones (an id's type prefix is at its start)")
        else:
            why = (f"your {key} ({len(got)} code points, {shown(got)}) is not the first "
                   f"{ID_CLIP_CODE_POINTS} code points of the original ({n} code points, "
                   f"{shown(original)})")
        yield Violation("bound.ids", why)
        return


@judges("bound.text")
def check_text(case: Case) -> Iterator[Violation]:
    """bound.text (wire.md §5.3): the marker, then a suffix of the original text."""
    view = project_view(case)
    parts = _bounded_parts(view) if view else None
    if view is None or parts is None:
        return
    line, bound = parts
    text = line.value["partialResult"]["content"][0]["text"]
    original = bound.text
    if not text.startswith(MARKER):
        if text.endswith(MARKER):
            why = (f"your marker is after the tail: the bounded text is the marker "
                   f"{compact(MARKER)} followed by the tail, so a reader meets the warning before "
                   "the newest output")
        elif MARKER.rstrip("\n") in text:
            why = (f"your text contains the marker but does not begin with it exactly "
                   f"({compact(MARKER)}, 23 characters and a line feed); yours begins "
                   f"{shown(text[:40])}")
        else:
            why = (f"your bounded text does not begin with the marker {compact(MARKER)}; it begins "
                   f"{shown(text[:40])}")
        yield Violation("bound.text", why + " (wire.md §5.3)")
        return
    tail = text[len(MARKER):]
    if original.endswith(tail):
        return
    n = len(original)
    start = n - len(tail)
    if tail[:1] == "\ufffd" and 0 <= start < n and original.endswith(tail[1:]) and \
            ord(original[start]) > 0xFFFF:
        why = (f"your tail begins with U+FFFD where the original text has "
               f"{describe_char(original[start])}: it split a surrogate pair (count code points, "
               "not UTF-16 units)")
    elif original.startswith(tail):
        why = (f"your tail ({len(tail)} code points) is the start of the text; keep its end, "
               "which is the newest output")
    else:
        common = 0
        while common < min(len(tail), n) and tail[-1 - common] == original[-1 - common]:
            common += 1
        why = (f"your tail ({len(tail)} code points, {shown(tail)}) is not a suffix of the "
               f"original text ({n} code points, {shown(original)}); they agree on the last "
               f"{common} code points only")
    yield Violation("bound.text", (
        f"{why}. The original text is {bound.text_origin} (wire.md §5.3)"))


@judges("bound.fits")
def check_fits(case: Case) -> Iterator[Violation]:
    """bound.fits (wire.md §5.1): a tool_execution_update line is at most maxBytes bytes."""
    view = project_view(case)
    if view is None or not view.is_update or view.actual.kind != "line":
        return
    if view.expected.kind == "errored":
        return
    line = view.actual.line
    assert line is not None
    if line.size <= view.max_bytes:
        return
    notes = []
    bound = view.bound()
    specific = (_tail_hints(line.value, bound, line.size, view.max_bytes)
                if line.parsed and isinstance(line.value, Mapping) and bound is not None else [])
    # A hint read off the bounded text itself names the bug; the general size hints then
    # would only guess at another one.
    hints = specific or size_hints(line, view.max_bytes)
    if line.parsed and same_json(line.value, view.want()):
        notes.append("it is the whole event: a tool_execution_update over maxBytes is replaced "
                     "by the bounded form (wire.md §5.2)")
        if not hints and line.size <= 262144:
            notes.append(f"the bound is the request's maxBytes ({view.max_bytes}), even when it "
                         "is not the default 262144")
    notes.extend(hints)
    if line.parsed and isinstance(line.value, Mapping) and bound is not None:
        for key in ("toolCallId", "toolName"):
            got = line.value.get(key)
            if isinstance(got, str) and len(got) > ID_CLIP_CODE_POINTS:
                notes.append(f"your {key} keeps {len(got)} code points; clip it to "
                             f"{ID_CLIP_CODE_POINTS} so that the empty tail always fits")
    detail = f" ({'; '.join(notes)})" if notes else ""
    yield Violation("bound.fits", (
        f"your line is {line.size} bytes, over maxBytes {view.max_bytes}: the bound is "
        f"measured on the UTF-8 bytes of the serialized line, after JSON escaping{detail}"))


#: The marker's bytes in a serialized string (its newline is written ``\\n``).
_MARKER_BYTES = escaped_size(MARKER)


def _bounded_text(value: Mapping[str, Any]) -> str | None:
    """The text of a line shaped like the bounded form, else None."""
    result = value.get("partialResult")
    content = result.get("content") if isinstance(result, Mapping) else None
    block = content[0] if isinstance(content, list) and len(content) == 1 else None
    text = block.get("text") if isinstance(block, Mapping) else None
    return text if isinstance(text, str) else None


def _tail_hints(value: Mapping[str, Any], bound: Bound, size: int, max_bytes: int) -> list[str]:
    """What an over-long bounded line's own text says about the bug that made it."""
    text = _bounded_text(value)
    if text is None or not text.startswith(MARKER):
        return []
    tail = text[len(MARKER):]
    hints = []
    if tail == bound.text and bound.text and bound.size(1) > max_bytes:
        hints.append("not one code point of tail fits, so the tail is empty, but yours is the "
                     "whole text: a tail of 0 code points is the empty string (text.slice(-0) "
                     "is the whole text)")
    elif bound.text.endswith(tail) and len(tail) in (
            bound.maximal(max_bytes + _MARKER_BYTES), bound.halving(max_bytes + _MARKER_BYTES)[-1]):
        # Exactly the tail a search picks when it sizes candidates without the marker.
        hints.append(f"without the marker ({_MARKER_BYTES} bytes) it would fit: size each "
                     "candidate with the marker in place (wire.md §5.2)")
    return hints


def _halvings(n: int) -> Iterator[int]:
    while n:
        yield n
        n //= 2
    yield 0


def _candidates(tried: list[int], bound: Bound, max_bytes: int) -> str:
    shown_k = tried if len(tried) <= 8 else [*tried[:5], -1, *tried[-2:]]
    parts = []
    for k in shown_k:
        if k < 0:
            parts.append("…")
            continue
        size = bound.size(k)
        parts.append(f"{k} ({size} bytes, {'fits' if size <= max_bytes else 'over'})")
    return ", ".join(parts)


@judges("bound.tail")
def check_tail(case: Case) -> Iterator[Violation]:
    """bound.tail (wire.md §5.5): the tail has the length the declared strategy picks."""
    view = project_view(case)
    parts = _bounded_parts(view) if view else None
    if view is None or parts is None:
        return
    line, bound = parts
    text = line.value["partialResult"]["content"][0]["text"]
    if not text.startswith(MARKER) or not bound.text.endswith(text[len(MARKER):]):
        return  # bound.text explains it
    if line.size > view.max_bytes:
        return  # bound.fits explains it
    got = len(text) - len(MARKER)
    strategy = case.capabilities.fit_strategy
    n = len(bound.text)
    want = bound.pick(strategy, view.max_bytes)
    if got == want:
        return
    if strategy == "halving":
        tried = bound.halving(view.max_bytes)
        steps = _candidates(tried, bound, view.max_bytes)
        why = (f"your tail is {got} code points; halving tries k = {steps}, and the first that "
               f"fits is {want}")
        other = bound.maximal(view.max_bytes)
    else:
        why = (f"your tail is {got} code points; maximal keeps the largest tail that fits: "
               f"{want} code points ({bound.size(want)} bytes)"
               + (f"; {want + 1} would be {bound.size(want + 1)} bytes" if want < n else ""))
        other = bound.halving(view.max_bytes)[-1]
    notes = []
    if got == other and other != want:
        other_name = "maximal" if strategy == "halving" else "halving"
        notes.append(f"that is what {other_name} picks, but your handshake declares "
                     f"fitStrategy \"{strategy}\"")
    units = len(bound.text.encode("utf-16-le")) // 2
    tail_units = len(text[len(MARKER):].encode("utf-16-le")) // 2
    if units != n and got != other and any(
            abs(tail_units - k) <= 1 for k in _halvings(units)):
        notes.append(f"your tail looks measured in UTF-16 units ({tail_units} of them): the text "
                     f"has {n} code points but {units} UTF-16 units; count code points, not "
                     "UTF-16 units")
    if got < want:
        notes.append(f"your line is {line.size} bytes; {want} code points make "
                     f"{bound.size(want)} bytes, within maxBytes {view.max_bytes}")
        # Only when `<` for `<=` is the cause: the tail is the one a search comparing with `<`
        # picks (the pick for one byte less), not merely some shorter one.
        if (bound.size(want) == view.max_bytes
                and got == bound.pick(strategy, view.max_bytes - 1)):
            notes.append("a line of exactly maxBytes bytes fits: compare with <=, not <")
    detail = f" ({'; '.join(notes)})" if notes else ""
    yield Violation("bound.tail", (
        f"{why} (the text has {n} code points, the empty-tail line is {bound.envelope} bytes, "
        f"maxBytes is {view.max_bytes}){detail} (wire.md §5.5)"))


@judges("bound.only-when-over")
def check_only_when_over(case: Case) -> Iterator[Violation]:
    """bound.only-when-over (wire.md §5.1): an update that fits is written unchanged."""
    view = project_view(case)
    if view is None or not view.is_update or not view.include or view.over:
        return
    line = view.judged_line()
    size = view.projected_size()
    if line is None or size is None:
        return
    want = view.want()
    if same_json(line.value, want):
        return
    looks_bounded = MARKER_IN_JSON in line.text
    what = ("your line is the bounded form" if looks_bounded
            else f"your line differs: {difference_text(line.value, want)}")
    # Each hint is given only when its condition holds of this answer: the size the
    # implementation measured is read off the byte form its own line shows.
    forms = written_forms(line) if line.parsed else {}
    measured = measured_as_written(want, forms) if forms else size
    notes = []
    kind = ""
    if looks_bounded and measured > view.max_bytes >= size:
        kind = BYTE_FORM_KIND
        notes.append(
            f"the cause is your line's byte form, not the comparison: your encoder writes "
            f"{describe_forms(forms)}, so written (and measured) that way the event's line is "
            f"{measured} bytes, over maxBytes; the bound is measured on the canonical line. The "
            f"same cause as {BYTE_FORM_RULE} (SHOULD, wire.md §6): write the canonical bytes")
    elif looks_bounded and measured == view.max_bytes:
        notes.append("a line of exactly maxBytes fits: bound only a line longer than maxBytes "
                     "(>), not one that reaches it (>=)")
    elif looks_bounded and not forms:
        try:
            ascii_size = len(json.dumps(want, ensure_ascii=True, separators=(",", ":")))
        except (TypeError, ValueError):
            ascii_size = size
        if ascii_size > view.max_bytes > size:
            notes.append(f"with non-ASCII escaped as \\uXXXX the line would be {ascii_size} "
                         "bytes: measure the canonical line, which writes non-ASCII raw as UTF-8")
    detail = f" ({'; '.join(notes)})" if notes else ""
    yield Violation("bound.only-when-over", (
        f"the event's canonical line is {size} bytes, within maxBytes {view.max_bytes}, so it is "
        f"written unchanged (wire.md §5.1); {what}{detail}"), kind=kind)


