"""The compiled byte walk (``byte_walk`` of reference/_speedups.c) counts what the Python walk
(``ByteStats._walk``) counts: the same paths, counts, sizes and digests, in the same order.

The Python walk is the specification: it learns the members' spans from the line's writing for
small objects and one-element arrays, and writes every other member again; the compiled walk
reads every span from the writing. Both are run on generated JSON values of every shape (deep
nesting, objects of more than 64 members, one-element arrays, members named ``[*]``, strings
with escapes, quotes and non-ASCII text, heavy values repeated at any depth), on lines orjson
cannot write (lone surrogates, integers past 64 bits: the Python walk alone counts those), and on
every line of the corpus of real logs. A walk that differs from the specification in one of
those shapes is found by the same comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from eventproof.conformance.audit import _bytes
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(
    _bytes.BYTE_WALK is None, reason="built without a C compiler, or EVENTPROOF_NO_EXTENSIONS set")

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
CORPUS = Path(__file__).resolve().parents[1] / "corpus"

#: Figures of one walk: the paths counted and the digests recorded, in the order first met.
Figures = tuple[list[tuple[tuple[str, str], list[int]]],
                list[tuple[tuple[str, str], list[tuple[int, int]]]]]
Walk = Callable[[_bytes.ByteStats, Any, bytes], None]


def python_walk(stats: _bytes.ByteStats, value: Any, data: bytes) -> None:
    stats._walk("kind", "$", value, data, 0, len(data), own=False)


def unspanned_walk(stats: _bytes.ByteStats, value: Any, data: bytes) -> None:
    """The Python walk writing every member again (no span read from the line's writing)."""
    def every_member(value: Any, data: Any, low: int, high: int) -> Iterator[_bytes.Span]:
        items = value.items() if isinstance(value, dict) else (("[*]", item) for item in value)
        return ((key, item, None) for key, item in items)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bytes, "_spans", every_member)
        python_walk(stats, value, data)


def compiled_walk(stats: _bytes.ByteStats, value: Any, data: bytes) -> None:
    assert _bytes.BYTE_WALK is not None
    _bytes.BYTE_WALK(stats.by_path, stats.repeats, "kind", value, data)


def figures(walk: Walk, values: list[Any]) -> Figures:
    """What ``walk`` counts over ``values`` (each as orjson writes it), one stats for all."""
    stats = _bytes.ByteStats()
    for value in values:
        walk(stats, value, orjson.dumps(value))
    return (list(stats.by_path.items()),
            [(key, list(seen.items())) for key, seen in stats.repeats.items()])


_HEAVY_TEXT = ["heavy " * 700, "lourd é " * 600, 'quoted "x" \\ ' * 400, "\x01\n\t" * 1500]
_KEYS = st.sampled_from(["a", "b", "text", "[*]", "é", "ключ", '"q"', "back\\slash", ',"b":',
                         "[0]", ""]) | st.text(max_size=3)
_LEAVES = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6)
           | st.sampled_from(_HEAVY_TEXT)
           | st.builds(lambda piece, times: piece * times, st.text(min_size=1, max_size=3),
                       st.integers(60, 900)))


def _nested(value: Any, steps: list[bool]) -> Any:
    for in_list in steps:
        value = [value] if in_list else {"n": value}
    return value


def _wide(members: list[Any], inner: Any, at: int) -> dict[str, Any]:
    members.insert(at % (len(members) + 1), inner)
    return {f"k{index}": member for index, member in enumerate(members)}


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return (st.lists(inner, max_size=5) | st.lists(inner, min_size=1, max_size=1)
            | st.dictionaries(_KEYS, inner, min_size=1, max_size=7)
            | st.builds(_nested, inner, st.lists(st.booleans(), min_size=1, max_size=40))
            | st.builds(_wide, st.lists(_LEAVES, min_size=60, max_size=70), inner,
                        st.integers(0, 70)))


#: JSON values orjson writes, heavy ones (4 KiB and more) among them at any depth.
VALUES = st.recursive(_LEAVES, _containers, max_leaves=30).filter(
    lambda value: isinstance(value, dict | list))


@SETTINGS
@given(st.lists(VALUES, min_size=1, max_size=4))
def test_the_compiled_walk_counts_what_the_python_walk_counts(values: list[Any]) -> None:
    """For values orjson writes, both walks count the same paths, sizes and digests, in order;
    so does the Python walk writing every member again (the spans read are the writings)."""
    assert figures(compiled_walk, values) == figures(python_walk, values)
    # (its digests of a small object are the CRC-32 of its whole writing: sizes and counts agree)
    counted, digested = figures(compiled_walk, values)
    again, digested_again = figures(unspanned_walk, values)
    assert counted == again
    assert [(key, [(digest >> 32, count) for digest, count in seen]) for key, seen in digested] \
        == [(key, [(digest >> 32, count) for digest, count in seen])
            for key, seen in digested_again]


class _Dict(dict[str, Any]):
    pass


class _List(list[Any]):
    pass


class _Str(str):
    __slots__ = ()


def _subclassed(value: Any) -> Any:
    """``value`` made of subclasses of dict, list and str (orjson writes them as their bases)."""
    if isinstance(value, dict):
        return _Dict({key: _subclassed(item) for key, item in value.items()})
    if isinstance(value, list):
        return _List(_subclassed(item) for item in value)
    return _Str(value) if isinstance(value, str) else value


@settings(SETTINGS, max_examples=40)
@given(st.lists(VALUES, min_size=1, max_size=3))
def test_subclasses_are_counted_as_their_bases(values: list[Any]) -> None:
    """Objects, arrays and strings that are subclasses are counted as the Python walk's
    isinstance counts them: as the values they subclass."""
    subclassed = [_subclassed(value) for value in values]
    assert figures(compiled_walk, subclassed) == figures(python_walk, subclassed) \
        == figures(python_walk, values)


#: Values orjson refuses to write somewhere inside: the Python walk counts those lines.
_UNWRITABLE = st.sampled_from(["\ud800", "a\udfff" * 300, 2**64, -(2**63) - 1, 10**30])


@settings(SETTINGS, max_examples=60)
@given(st.lists(st.recursive(_LEAVES | _UNWRITABLE, _containers, max_leaves=40), min_size=1,
                max_size=4))
def test_a_line_counts_the_same_with_the_compiled_walk_or_without(values: list[Any]) -> None:
    """Through ``ByteStats.line`` (which takes the compiled walk only for what orjson writes),
    the report's byte figures are the same with the compiled walk and without it."""
    def document(walk: Any) -> dict[str, Any]:
        stats = _bytes.ByteStats()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_bytes, "BYTE_WALK", walk)
            for number, value in enumerate(values):
                event = {"type": "x", "v": value}
                try:
                    size = len(orjson.dumps(event))
                except TypeError:
                    size = _bytes.HEAVY_BYTES
                stats.line("run.jsonl", number, 0, "x", size, event)
        return stats.document()

    assert document(_bytes.BYTE_WALK) == document(None)


def _corpus_lines() -> Iterator[Any]:
    for path in sorted(CORPUS.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, dict | list):
                yield value


def test_the_walks_agree_on_every_line_of_the_corpus() -> None:
    """Every line of the real logs is counted alike by both walks (and some are heavy)."""
    values = list(_corpus_lines())
    assert values
    walked = figures(compiled_walk, values)
    assert walked == figures(python_walk, values)
    assert walked[0], "the corpus holds no member of 256 bytes or more: nothing was compared"


def _wrong_walks() -> dict[str, Walk]:
    """Walks that each differ from the specification in one shape of value."""
    def no_span_limit(stats: _bytes.ByteStats, value: Any, data: bytes) -> None:
        with pytest.MonkeyPatch.context() as patch:  # wide objects read by spans
            patch.setattr(_bytes, "SPANNED_MEMBERS", 10**9)
            python_walk(stats, value, data)

    def star_is_a_name(stats: _bytes.ByteStats, value: Any, data: bytes) -> None:
        def renamed(item: Any) -> Any:  # a member named [*] walked as any other name
            if isinstance(item, dict):
                return {"[+]" if key == "[*]" else key: renamed(inner)
                        for key, inner in item.items()}
            return [renamed(inner) for inner in item] if isinstance(item, list) else item

        other = renamed(value)
        python_walk(stats, other, orjson.dumps(other))
        def named(key: tuple[str, str]) -> tuple[str, str]:
            return key[0], key[1].replace(".[+]", ".[*]")

        stats.by_path = {named(key): totals for key, totals in stats.by_path.items()}
        stats.repeats = {named(key): seen for key, seen in stats.repeats.items()}

    def spans_by_byte_length(stats: _bytes.ByteStats, value: Any, data: bytes) -> None:
        with pytest.MonkeyPatch.context() as patch:  # a string counted by bytes, not code points
            patch.setattr(_bytes, "SMALL_BYTES", 300)
            python_walk(stats, value, data)

    return {"no span limit": no_span_limit, "star is a name": star_is_a_name,
            "small threshold": spans_by_byte_length}


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")  # large reprs
@pytest.mark.parametrize("name", sorted(_wrong_walks()))
def test_a_walk_that_differs_in_one_shape_is_found(name: str) -> None:
    """The generated values reach each shape a wrong walk gets wrong: the comparison fails."""
    wrong = _wrong_walks()[name]
    found = find(st.lists(VALUES, min_size=1, max_size=2),
                 lambda values: figures(wrong, values) != figures(compiled_walk, values),
                 settings=settings(SETTINGS, max_examples=1000, phases=[Phase.generate]))
    assert found
