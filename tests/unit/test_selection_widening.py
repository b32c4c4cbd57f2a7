"""The select and fold generators reach the chunk shapes the schemas allow: for each class of shape
the widened generators draw, a wrong implementation that only such a shape shows, caught by a quick
search (``--budget quick``) on several seeds.

Each wrong implementation is the reference with one mistake a port makes: reading a chunk's
``index`` (which selection never needs, selection.md §3.3) into a 32-bit or exact integer type,
or refusing a chunk with members of its own (an open object, §2.1).
"""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.reference import InvalidInput, Reference
from helpers import conforms_on_a_quick_run

DEFAULT_SEEDS = (0,)
SLOW_SEEDS = (1, 2, 3, 4, 5, 6, 7)
#: The members each known chunk type names (schemas/chunk.json).
CHUNK_MEMBERS = {
    "text-delta": {"type", "index", "text"},
    "reasoning-delta": {"type", "index", "text"},
    "tool-call-delta": {"type", "index", "id", "name", "argumentsDelta"},
    "block-start": {"type", "index", "blockType"},
    "block-end": {"type", "index", "block"},
}


def _chunks_of(op: str, request: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every chunk of a select or fold request, with its path."""
    if op == "select":
        events = [(f"$.events[{i}]", event) for i, event in enumerate(request["events"])]
    else:
        events = [(f"$.pushes[{i}].event", push["event"])
                  for i, push in enumerate(request["pushes"]) if "event" in push]
    found = []
    for path, event in events:
        data = event.get("data") if isinstance(event, dict) else None
        chunk = data.get("chunk") if isinstance(data, dict) else None
        if event.get("type") == "assistant/chunk" and isinstance(chunk, dict):
            found.append((f"{path}.data.chunk", chunk))
    return found


class _Wrong(Reference):
    """The reference with one mistake in ``select`` and ``fold``: :meth:`refuse` looks at each
    chunk first."""

    def run(self, op: str, input: Any) -> Any:
        if op in ("select", "fold") and isinstance(input, dict):
            for path, chunk in _chunks_of(op, input):
                self.refuse(path, chunk)
        return super().run(op, input)

    def refuse(self, path: str, chunk: dict[str, Any]) -> None:
        raise NotImplementedError


class IndexAsInt32(_Wrong):
    """A port that reads every chunk's ``index`` into a 32-bit integer and refuses what does
    not fit (``2^53 - 1``)."""

    def refuse(self, path: str, chunk: dict[str, Any]) -> None:
        index = chunk.get("index")
        if isinstance(index, int | float) and not 0 <= index < 2**31:
            raise InvalidInput(value=index, path=f"{path}.index", reason="overflows", fix="-")


class IndexAsExactInteger(_Wrong):
    """A port that wants ``index`` written as an integer literal and refuses ``1.0`` (§1: the
    same integer)."""

    def refuse(self, path: str, chunk: dict[str, Any]) -> None:
        if isinstance(chunk.get("index"), float):
            raise InvalidInput(value=chunk["index"], path=f"{path}.index",
                               reason="is not an integer", fix="-")


class ClosedChunks(_Wrong):
    """A port that refuses a known chunk with a member its schema does not name."""

    def refuse(self, path: str, chunk: dict[str, Any]) -> None:
        named = CHUNK_MEMBERS.get(chunk.get("type"))  # type: ignore[arg-type]
        if named is not None and not chunk.keys() <= named:
            raise InvalidInput(value=sorted(chunk.keys() - named), path=path,
                               reason="holds unknown members", fix="-")


WRONG = (IndexAsInt32, IndexAsExactInteger, ClosedChunks)
OPS = ("select", "fold")


def _assert_caught(wrong: type[_Wrong], op: str, seed: int) -> None:
    assert not conforms_on_a_quick_run(wrong(), op, seed), (
        f"{wrong.__name__} conforms on a quick {op} run, seed {seed}")


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("wrong", WRONG, ids=lambda cls: cls.__name__)
def test_a_quick_search_catches_each_class_of_chunk_shape(wrong: type[_Wrong], op: str,
                                                          seed: int) -> None:
    _assert_caught(wrong, op, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("wrong", WRONG, ids=lambda cls: cls.__name__)
def test_a_quick_search_catches_each_class_of_chunk_shape_on_more_seeds(
        wrong: type[_Wrong], op: str, seed: int) -> None:
    _assert_caught(wrong, op, seed)


@pytest.mark.parametrize("wrong", WRONG, ids=lambda cls: cls.__name__)
def test_each_wrong_implementation_agrees_with_the_reference_elsewhere(
        wrong: type[_Wrong]) -> None:
    """On chunks indexed from 0 with only their named members, the wrong implementation answers
    as the reference does."""
    chunk = {"type": "assistant/chunk", "seq": 1, "time": 0,
             "data": {"turn": 1, "step": 0, "chunk": {"type": "text-delta", "index": 0,
                                                      "text": "hi"}}}
    assert wrong().run("select", {"events": [chunk]}) == Reference().run(
        "select", {"events": [chunk]})
    assert wrong().run("fold", {"pushes": [{"event": chunk}]}) == Reference().run(
        "fold", {"pushes": [{"event": chunk}]})
