"""Wrong implementations that only a shape the schemas allow, and the generators once drew on some
seeds only, shows: each caught by a quick search (``--budget quick``) on every seed, by the
families that meet every shape by construction (the selection tour, the wire shapes).

Each is the reference with one reading that a typed port makes: members decoded into fixed
structures, or a rule applied to the types a port expected instead of to every type.
"""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.reference import Reference
from helpers import conforms_on_a_quick_run

DEFAULT_SEEDS = (0,)
SLOW_SEEDS = (1, 2, 3, 4, 5, 6, 7)
#: The streaming types of wire.md §2.4: the ones that carry ``partial``.
_STREAMING = ("start", "text_start", "text_delta", "text_end", "thinking_start", "thinking_delta",
              "thinking_end", "toolcall_start", "toolcall_delta", "toolcall_end")


def _assistant_event(input: Any) -> dict[str, Any] | None:
    """The ``assistantMessageEvent`` of a ``project`` input's ``message_update``, if any."""
    event = input.get("event") if isinstance(input, dict) else None
    if not isinstance(event, dict) or event.get("type") != "message_update":
        return None
    inner = event.get("assistantMessageEvent")
    return inner if isinstance(inner, dict) else None


def _with_assistant_event(input: Any, inner: dict[str, Any]) -> Any:
    return {**input, "event": {**input["event"], "assistantMessageEvent": inner}}


class TypedFinalEvents(Reference):
    """Decodes ``done`` and ``error`` into structures of the members their type names, and
    writes those back: a member no schema names is lost (§4.3: every member but ``partial``
    is kept)."""

    def run(self, op: str, input: Any) -> Any:
        inner = _assistant_event(input) if op == "project" else None
        if inner is not None and inner.get("type") in ("done", "error"):
            input = _with_assistant_event(input, {
                key: value for key, value in inner.items()
                if key in ("type", "reason", "message", "error", "partial")})
        return super().run(op, input)


class PartialKeptOffStream(Reference):
    """Drops ``partial`` only from the ten streaming types that must carry it, and keeps it on
    any other type that has one (§4.3: ``E`` is the event without its ``partial``)."""

    def run(self, op: str, input: Any) -> Any:
        inner = _assistant_event(input) if op == "project" else None
        if inner is None or "partial" not in inner or inner.get("type") in _STREAMING:
            return super().run(op, input)
        # The snapshot, in its place, under a name the projection keeps.
        renamed = super().run(op, _with_assistant_event(input, {
            ("x-snapshot" if key == "partial" else key): value for key, value in inner.items()}))
        return renamed.replace('"x-snapshot":', '"partial":') if isinstance(renamed, str) \
            else renamed


def _objects(value: Any) -> Any:
    """Every object in ``value``, outermost first."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


class _Refusing(Reference):
    """The reference, refusing (an error answer) any selection input holding an object that
    :meth:`refuses`: the error a typed decoder raises on a shape it was not written for."""

    def run(self, op: str, input: Any) -> Any:
        if op in ("select", "fold", "settle"):
            for value in _objects(input):
                if self.refuses(value):
                    raise ValueError(f"{type(self).__name__}: cannot decode {value!r:.80}")
        return super().run(op, input)

    def refuses(self, value: dict[str, Any]) -> bool:
        raise NotImplementedError


def _is_splice(value: dict[str, Any]) -> bool:
    return "target" in value and "inserted" in value


class StatusRequired(_Refusing):
    """Decodes a provider failure into a structure whose HTTP ``status`` is not optional
    (selection.md §2.3: it is)."""

    def refuses(self, value: dict[str, Any]) -> bool:
        failure = "message" in value and "code" in value and "role" not in value
        return failure and "status" not in value


class FirstInsertedRead(_Refusing):
    """Reads a splice's first inserted message unconditionally: a splice inserting nothing
    fails (§2.4: ``inserted`` may be empty)."""

    def refuses(self, value: dict[str, Any]) -> bool:
        return _is_splice(value) and value["inserted"] == []


class NextTurnTargetOnly(_Refusing):
    """Decodes a splice's ``target`` into an enumeration that lacks ``next-step`` (§2.4 names
    both)."""

    def refuses(self, value: dict[str, Any]) -> bool:
        return _is_splice(value) and value["target"] != "next-turn"


class FourBlocksAtMost(_Refusing):
    """Keeps a message's blocks in a fixed array of four: more is refused (§2.5: content is
    any list)."""

    def refuses(self, value: dict[str, Any]) -> bool:
        return isinstance(value.get("content"), list) and len(value["content"]) > 4


#: Each wrong implementation and the operations that must catch it. Measured on seeds 0-7 with
#: the generators before the tour and the shapes (caught / 8): TypedFinalEvents 0,
#: PartialKeptOffStream 6; StatusRequired 3 (select) and 1 (fold); FirstInsertedRead and
#: NextTurnTargetOnly 1 (select) and 0 (fold); FourBlocksAtMost 1 (select), 2 (fold), 3
#: (settle). Now every one on every seed.
WRONG: tuple[tuple[type[Reference], tuple[str, ...]], ...] = (
    (TypedFinalEvents, ("project",)),
    (PartialKeptOffStream, ("project",)),
    (StatusRequired, ("select", "fold")),
    (FirstInsertedRead, ("select", "fold")),
    (NextTurnTargetOnly, ("select", "fold")),
    (FourBlocksAtMost, ("select", "fold", "settle")),
)
CASES = [(wrong, op) for wrong, ops in WRONG for op in ops]


def _assert_caught(wrong: type[Reference], op: str, seed: int) -> None:
    assert not conforms_on_a_quick_run(wrong(), op, seed), (
        f"{wrong.__name__} conforms on a quick {op} run, seed {seed}")


#: Every wrong implementation with each operation that must catch it.
each_case = pytest.mark.parametrize(("wrong", "op"), CASES,
                                    ids=[f"{wrong.__name__}-{op}" for wrong, op in CASES])


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
@each_case
def test_a_quick_search_catches_each_typed_reading(wrong: type[Reference], op: str,
                                                   seed: int) -> None:
    _assert_caught(wrong, op, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@each_case
def test_every_seed_catches_each_typed_reading(wrong: type[Reference], op: str,
                                               seed: int) -> None:
    _assert_caught(wrong, op, seed)
