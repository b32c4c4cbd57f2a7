"""Checks of the ``fold`` rules (spec/selection.md §4): collect() after every push."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..._model import Case, Errored, ImplErrored, Violation, judges
from ..explain import (
    Log,
    cite,
    describe_selection,
    errored,
    field_of,
    judged,
    prefix_selections,
    same_json,
    selection,
    show,
)


def _pushed_events(pushes: Sequence[Any]) -> list[Any]:
    """The events a fold has seen: a text push is a text-delta chunk with that text (§4.1)."""
    events: list[Any] = []
    for push in pushes:
        if isinstance(push, Mapping) and "text" in push:
            events.append({"type": "assistant/chunk",
                           "data": {"chunk": {"type": "text-delta", "index": 0,
                                              "text": push["text"]}}})
        else:
            events.append(field_of(push, "event"))
    return events


def _pushes(case: Case) -> list[Any]:
    pushes = field_of(case.input, "pushes")
    return pushes if isinstance(pushes, list) else []


@judges("fold.shape")
def check_fold_shape(case: Case) -> Iterator[Violation]:
    """``fold.shape``: one collect() before the first push and one after each (§4.1)."""
    if not judged(case):
        return
    pushes = _pushes(case)
    want = len(pushes) + 1
    if not isinstance(case.actual, list):
        yield Violation("fold.shape", (
            f"your fold answered {show(case.actual)}, not a list of collect() results; for "
            f"{len(pushes)} push(es) it answers a list of {want}: one collect() before the first "
            f"push and one after each push ({cite('fold.shape')})."))
    elif len(case.actual) != want:
        yield Violation("fold.shape", (
            f"your fold answered {len(case.actual)} collect() result(s) for {len(pushes)} "
            f"push(es), but it answers {want}: one before the first push and one after each push "
            f"({cite('fold.shape')}); your answer: {show(case.actual)}."))


@judges("fold.prefix")
def check_fold_prefix(case: Case) -> Iterator[Violation]:
    """``fold.prefix``: after every push, collect() is the batch selection so far (§4.2)."""
    if isinstance(case.expected, Errored):
        return
    if isinstance(case.actual, ImplErrored):
        yield errored("fold.prefix", case.actual, (
            "Every push of a schema-valid input is accepted: an unknown event type is ignored "
            "and an empty push_text is a no-op"))
        return
    if not isinstance(case.actual, list):
        return  # fold.shape says what is wrong
    pushes = _pushes(case)
    events = _pushed_events(pushes)
    log = Log(events, lambda i: f"push #{i + 1}")
    final = selection(events)
    for count, (collected, want) in enumerate(zip(case.actual[: len(pushes) + 1],
                                                  prefix_selections(events), strict=False)):
        if same_json(collected, want):
            continue
        if count == 0:
            said = (f"before the first push your collect() was {show(collected)}, but a fold that "
                    "has seen nothing collects null")
        else:
            prefix = Log(events[:count], log.name)
            said = (f"after push #{count} ({show(pushes[count - 1], 120)}) your collect() was "
                    f"{show(collected)}, but the batch selection of the first {count} push(es) is "
                    f"{show(want)}: {describe_selection(prefix)}")
        hints: list[str] = []
        if count and field_of(pushes[count - 1], "text") == "":
            hints.append('an empty push_text ("") is a no-op')
        without_text = selection([e for p, e in zip(pushes[:count], events[:count], strict=True)
                                  if not (isinstance(p, Mapping) and "text" in p)])
        if any(isinstance(p, Mapping) and "text" in p for p in pushes[:count]) and same_json(
                collected, without_text):
            hints.append("your answer is the selection of the event pushes alone: pushed text "
                         "counts exactly like a text-delta chunk")
        if count < len(pushes) and same_json(collected, final) and not same_json(want, final):
            hints.append(f"that is the selection of all {len(pushes)} pushes: collect() answers "
                         "for the pushes seen so far")
        if len(case.actual) == len(pushes) + 1 and same_json(case.actual[-1], final):
            hints.append("your last collect() is right, but the fold must agree at every prefix")
        hint = f" ({'; '.join(hints)})" if hints else ""
        yield Violation("fold.prefix", f"{said}{hint} ({cite('fold.prefix')}).")
        return


