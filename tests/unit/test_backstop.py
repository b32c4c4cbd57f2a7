"""The backstop (spec/wire.md §5): text, ids, the bounded form and both fit strategies."""

from __future__ import annotations

import json
from typing import Any

import pytest
from eventproof.reference import (
    ID_CLIP_CODE_POINTS,
    MARKER,
    MIN_MAX_BYTES,
    InvalidInput,
    bound_live_update,
    canonical_bytes,
    extract_text,
    project_event,
    well_formed,
)
from eventproof.reference._backstop import (
    BoundStats,
    _Measure,
    bound_with_line,
    bounded_form,
    check_fit_strategy,
    check_max_bytes,
    clip_id,
    halving_candidates,
    halving_tail,
    maximal_tail_clear,
    maximal_tail_fast,
    tail_of,
)
from eventproof.reference._canonical import canonical_bytes_clear
from hypothesis import given, settings
from hypothesis import strategies as st

# -- strategies --------------------------------------------------------------------------------

PIECES = st.one_of(
    st.sampled_from(["a", "line\n", "\x00", "\x1f", '"', "\\", "é", "€", "\U0001f600",
                     "\ud83d\ude00", "\ud800", "\udc00", "\u2028", "\x7f", "ab\tc"]),
    st.text(min_size=1, max_size=4),
)
#: Texts built by repeating a few pieces: big, escape-heavy, astral, with lone surrogates.
TEXT = st.builds(
    lambda parts: "".join(piece * count for piece, count in parts),
    st.lists(st.tuples(PIECES, st.integers(1, 3000)), min_size=1, max_size=5),
)
SMALL_TEXT = st.builds(
    lambda parts: "".join(piece * count for piece, count in parts),
    st.lists(st.tuples(PIECES, st.integers(1, 40)), max_size=4),
)
#: Texts long enough that most bounds cut them: a short head, then one piece repeated.
LONG_TEXT = st.builds(lambda head, body, count: head + body * count,
                      SMALL_TEXT, PIECES, st.integers(1500, 20_000))
IDS = st.one_of(
    st.sampled_from(["call_01", "", "bash"]),
    st.builds(lambda piece, count: piece * count, PIECES, st.integers(1, 5000)),
)
MAX_BYTES = st.one_of(st.integers(MIN_MAX_BYTES, MIN_MAX_BYTES + 2000),
                      st.integers(MIN_MAX_BYTES, 70_000))
STRATEGY = st.sampled_from(["halving", "maximal"])


def partial_results(text: st.SearchStrategy[str] = TEXT) -> st.SearchStrategy[Any]:
    """The usual {content, details} shape, bare strings, and the odd shapes of §5.3."""
    block = st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, text),
        st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
        st.just({"type": "text", "text": 5}),
        st.just("not a block"),
    )
    usual = st.builds(lambda blocks: {"content": blocks, "details": {"n": 1.0}},
                      st.lists(block, min_size=1, max_size=4))
    odd: st.SearchStrategy[Any] = st.sampled_from(
        [None, 12, [1, 2], {"details": {}}, {"content": "text"}])
    return st.one_of(usual, usual, text, text, odd)  # mostly shapes that carry text


def updates(ids: st.SearchStrategy[str] = IDS,
            results: st.SearchStrategy[Any] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda call_id, name, result: {
            "type": "tool_execution_update", "toolCallId": call_id, "toolName": name,
            "args": {"command": "make", "10": 1.5}, "partialResult": result,
        },
        ids, ids, results if results is not None else partial_results(),
    )


#: Updates whose text mostly overflows the bound, so the strategies really have to choose.
OVERSIZED = updates(results=st.one_of(
    LONG_TEXT,
    st.builds(lambda head, tail: {"content": [{"type": "text", "text": head},
                                              {"type": "image", "data": "AAAA"},
                                              {"type": "text", "text": tail}], "details": {}},
              SMALL_TEXT, LONG_TEXT),
    partial_results(TEXT),
))


def line_of(form: dict[str, Any]) -> bytes:
    line: bytes = canonical_bytes(form)
    return line


def candidate_line(update: dict[str, Any], k: int) -> bytes:
    """The test's own statement of a candidate: the §5.2 form with the last k code points."""
    text = extract_text(update["partialResult"])
    tail = text[len(text) - k:] if k else ""
    line: bytes = canonical_bytes({
        "type": "tool_execution_update",
        "toolCallId": well_formed(update["toolCallId"])[:256],
        "toolName": well_formed(update["toolName"])[:256],
        "partialResult": {"content": [{"type": "text", "text": MARKER + tail}]},
    })
    return line


def bounded_text(form: dict[str, Any]) -> str:
    text: str = form["partialResult"]["content"][0]["text"]
    return text


# -- constants ---------------------------------------------------------------------------------


def test_constants() -> None:
    """The marker, the clip length and the smallest maxBytes are the values §5 fixes."""
    assert MARKER == "[live output truncated]\n"
    assert len(MARKER) == 24
    assert ID_CLIP_CODE_POINTS == 256
    assert MIN_MAX_BYTES == 3215


def test_envelope_size_and_worst_case_fit_the_proof() -> None:
    """The empty-tail form with empty ids is 143 bytes; with worst ids it is 3215, the minimum."""
    assert len(line_of(bounded_form("", "", ""))) == 143
    worst = "\x00" * ID_CLIP_CODE_POINTS
    assert len(line_of(bounded_form(worst, worst, ""))) == 143 + 2 * 6 * 256 == 3215
    assert MIN_MAX_BYTES == 3215



@pytest.mark.parametrize("strategy", ["halving", "maximal"])
def test_the_smallest_bound_reaches_the_empty_tail(strategy: str) -> None:
    """At maxBytes 3215 with worst-cost ids not one code point of a non-empty text fits: the
    answer is the marker alone in exactly 3215 bytes, the branch where slice(-0) looped (§5.6)."""
    update = {"type": "tool_execution_update", "toolCallId": "\x00" * 300,
              "toolName": "\x01" * 300, "args": {}, "partialResult": "abc"}
    stats = BoundStats()
    form = bound_live_update(update, max_bytes=MIN_MAX_BYTES, fit_strategy=strategy, stats=stats)
    assert len(line_of(form)) == MIN_MAX_BYTES
    assert bounded_text(form) == MARKER
    if strategy == "halving":
        assert stats.tried == [3, 1, 0]

# -- §5.3 text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("partial_result", "text"),
    [
        ("plain output", "plain output"),
        ({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, "ab"),
        ({"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x"},
                      {"type": "text", "text": "b"}], "details": {"x": 1}}, "ab"),
        ({"content": [{"type": "text", "text": 5}, {"type": "text"}, "text", None,
                      {"text": "untyped"}, {"type": "text", "text": "ok"}]}, "ok"),
        ({"content": []}, ""),
        ({"content": "a string, not an array"}, ""),
        ({"details": {"text": "x"}}, ""),
        (None, ""),
        (12, ""),
        (1.5, ""),
        (True, ""),
        ([{"type": "text", "text": "in a bare array"}], ""),
        ("\ud800", "\ufffd"),
        ("\ud83d\ude00", "\U0001f600"),
        ({"content": [{"type": "text", "text": "\ud83d"}, {"type": "text", "text": "\ude00"}]},
         "\ufffd\ufffd"),
    ],
)
def test_extract_text(partial_result: Any, text: str) -> None:
    """Text comes from a string or the text blocks of content; every other shape has none."""
    assert extract_text(partial_result) == text


# -- §5.4 ids ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "clipped"),
    [
        ("call_01", "call_01"),
        ("x" * 256, "x" * 256),
        ("x" * 257, "x" * 256),
        ("ab" * 1000, "ab" * 128),
        ("\U0001f600" * 300, "\U0001f600" * 256),
        ("\ud83d\ude00" * 300, "\U0001f600" * 256),
        ("\ud800" * 300, "\ufffd" * 256),
        ("", ""),
    ],
)
def test_clip_id_keeps_the_first_256_code_points(value: str, clipped: str) -> None:
    """Ids keep their first 256 code points (astral ones count once); shorter ids are unchanged."""
    assert clip_id(value) == clipped


# -- §5.5 candidates ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "sequence"),
    [(0, [0]), (1, [1, 0]), (2, [2, 1, 0]), (3, [3, 1, 0]), (10, [10, 5, 2, 1, 0]),
     (1024, [1024, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1, 0])],
)
def test_halving_candidates(n: int, sequence: list[int]) -> None:
    """halving tries n, ⌊n/2⌋, …, 1, 0: ⌊log2 n⌋ + 2 candidates for n >= 1."""
    assert list(halving_candidates(n)) == sequence


def test_tail_of_zero_is_empty() -> None:
    """A zero-length tail is empty, never the whole text (the slice(-0) bug of wire.md §5.5)."""
    assert tail_of("abc", 0) == ""
    assert tail_of("abc", 1) == "c"
    assert tail_of("abc", 3) == "abc"


def test_halving_reaches_the_empty_tail_and_stops() -> None:
    """When even one code point does not fit, halving ends at k = 0 with the marker alone."""
    # The historical infinite loop (wire.md §5.5): at one kept character, slice(-0) returned the
    # whole text and the loop never advanced. The search is driven directly with the empty-tail
    # size as bound; test_the_smallest_bound_reaches_the_empty_tail does it through the API.
    measure = _Measure("id", "name", "\x00" * 7, BoundStats())
    empty = len(line_of(bounded_form("id", "name", "")))
    assert halving_tail(measure, empty) == 0
    assert measure.stats.candidates == [7, 3, 1, 0]
    assert measure.last is not None
    assert measure.last[1] == line_of(bounded_form("id", "name", ""))
    assert maximal_tail_clear(_Measure("id", "name", "\x00" * 7, BoundStats()), empty) == 0
    assert maximal_tail_fast(_Measure("id", "name", "\x00" * 7, BoundStats()), empty) == 0


# -- the bounded form --------------------------------------------------------------------------


def test_bounded_form_bytes_for_a_small_bound() -> None:
    """A 5000-byte bound keeps the newest output after the marker, in the exact key order."""
    update = {"type": "tool_execution_update", "toolCallId": "call_01", "toolName": "bash",
              "args": {"command": "make"},
              "partialResult": {"content": [{"type": "text", "text": "0123456789" * 1000}],
                                "details": {"exitCode": None}}}
    halving = bound_with_line(update, max_bytes=5000, fit_strategy="halving")[1]
    maximal = bound_with_line(update, max_bytes=5000, fit_strategy="maximal")[1]
    prefix = (b'{"type":"tool_execution_update","toolCallId":"call_01","toolName":"bash",'
              b'"partialResult":{"content":[{"type":"text","text":"[live output truncated]\\n')
    assert halving == prefix + b"0123456789" * 250 + b'"}]}}'  # 2500 of 10000 code points
    assert len(maximal) == 5000
    assert maximal.startswith(prefix)
    assert maximal.endswith(b'6789"}]}}')
    # 143 + len("call_01") + len("bash") = 154 bytes of envelope: 4846 code points of ASCII
    assert len(maximal) - len(prefix) - len(b'"}]}}') == 5000 - 154


def test_bound_live_update_returns_the_form() -> None:
    """bound_live_update answers the dict whose canonical bytes are the bounded line."""
    update = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n", "args": {},
              "partialResult": "x" * 9000}
    form = bound_live_update(update, max_bytes=4096, fit_strategy="maximal")
    assert list(form) == ["type", "toolCallId", "toolName", "partialResult"]
    assert len(line_of(form)) == 4096
    assert form == json.loads(bound_with_line(update, max_bytes=4096, fit_strategy="maximal")[1])


@settings(max_examples=60)
@given(OVERSIZED, MAX_BYTES, STRATEGY)
def test_bounded_line_always_fits(update: dict[str, Any], max_bytes: int, strategy: str) -> None:
    """For every maxBytes >= 4096 and any ids, the bounded line is at most maxBytes bytes."""
    form, line = bound_with_line(update, max_bytes=max_bytes, fit_strategy=strategy)
    assert len(line) <= max_bytes
    assert line == line_of(form)
    line.decode("utf-8")  # well-formed UTF-8


@settings(max_examples=60)
@given(OVERSIZED, MAX_BYTES, STRATEGY)
def test_bounded_text_is_marker_plus_suffix(update: dict[str, Any], max_bytes: int,
                                            strategy: str) -> None:
    """The bounded text is the marker followed by a suffix of the extracted, well-formed text."""
    form = bound_live_update(update, max_bytes=max_bytes, fit_strategy=strategy)
    text = bounded_text(form)
    assert text.startswith(MARKER)
    assert extract_text(update["partialResult"]).endswith(text[len(MARKER):])
    assert form["toolCallId"] == clip_id(update["toolCallId"])
    assert form["toolName"] == clip_id(update["toolName"])
    assert list(form) == ["type", "toolCallId", "toolName", "partialResult"]


@settings(max_examples=60)
@given(OVERSIZED, MAX_BYTES)
def test_halving_keeps_the_first_fitting_candidate(update: dict[str, Any],
                                                   max_bytes: int) -> None:
    """halving keeps exactly the first candidate of n, ⌊n/2⌋, … whose line fits, trying no more."""
    n = len(extract_text(update["partialResult"]))
    tried = []
    for k in halving_candidates(n):
        tried.append(k)
        if len(candidate_line(update, k)) <= max_bytes:
            break
    for method in ("fast", "clear"):
        stats = BoundStats()
        form, line = bound_with_line(update, max_bytes=max_bytes, fit_strategy="halving",
                                     stats=stats, method=method)
        assert len(bounded_text(form)) - len(MARKER) == tried[-1]
        assert line == candidate_line(update, tried[-1])
        assert stats.tried == tried
        if method == "clear":
            assert stats.candidates == tried
            assert stats.serializations == len(tried)
        else:
            assert stats.serializations <= 2  # the empty-tail envelope, then the answer


@settings(max_examples=60)
@given(OVERSIZED, MAX_BYTES)
def test_maximal_keeps_the_largest_fitting_tail(update: dict[str, Any], max_bytes: int) -> None:
    """maximal keeps a tail that fits and whose one-longer neighbour does not (fit is monotone)."""
    n = len(extract_text(update["partialResult"]))
    form, line = bound_with_line(update, max_bytes=max_bytes, fit_strategy="maximal")
    k = len(bounded_text(form)) - len(MARKER)
    assert line == candidate_line(update, k)
    assert len(line) <= max_bytes
    assert k == n or len(candidate_line(update, k + 1)) > max_bytes


@given(updates(ids=st.sampled_from(["c", "\x00" * 300]), results=SMALL_TEXT),
       st.integers(MIN_MAX_BYTES, MIN_MAX_BYTES + 400))
def test_maximal_is_the_brute_force_largest(update: dict[str, Any], max_bytes: int) -> None:
    """On small texts, maximal equals the largest k found by trying every k from 0 to n."""
    n = len(extract_text(update["partialResult"]))
    best = max(k for k in range(n + 1) if len(candidate_line(update, k)) <= max_bytes)
    form = bound_live_update(update, max_bytes=max_bytes, fit_strategy="maximal")
    assert len(bounded_text(form)) - len(MARKER) == best


@settings(max_examples=80)
@given(OVERSIZED, MAX_BYTES)
def test_fast_maximal_equals_clear_maximal(update: dict[str, Any], max_bytes: int) -> None:
    """The O(n) maximal search answers exactly what serializing candidates answers."""
    fast_stats, clear_stats = BoundStats(), BoundStats()
    fast = bound_with_line(update, max_bytes=max_bytes, fit_strategy="maximal",
                           stats=fast_stats)
    clear = bound_with_line(update, max_bytes=max_bytes, fit_strategy="maximal",
                            stats=clear_stats, method="clear")
    assert fast == clear
    assert fast_stats.serializations <= 2  # the empty-tail envelope, then the answer


@settings(max_examples=80)
@given(OVERSIZED, MAX_BYTES)
def test_fast_halving_equals_clear_halving(update: dict[str, Any], max_bytes: int) -> None:
    """The halving search that measures tails answers exactly what serializing candidates does,
    and reads at most twice the budget's code points of the text, however long it is."""
    fast_stats, clear_stats = BoundStats(), BoundStats()
    fast = bound_with_line(update, max_bytes=max_bytes, fit_strategy="halving",
                           stats=fast_stats)
    clear = bound_with_line(update, max_bytes=max_bytes, fit_strategy="halving",
                            stats=clear_stats, method="clear")
    assert fast == clear
    assert fast_stats.tried == clear_stats.tried
    assert fast_stats.measured <= 2 * max_bytes


#: Texts whose bytes per code point change along the way, so a size estimated from the end
#: of the text is wrong for the rest of it: ASCII after CJK, emoji after controls, ...
MIXED_TEXT = st.builds(
    lambda parts: "".join(piece * count for piece, count in parts),
    st.lists(st.tuples(st.sampled_from(["a", "\x00", "漢", "\U0001f600", "é", '"', "ab\n"]),
                       st.integers(1, 6000)), min_size=2, max_size=6),
)


@settings(max_examples=80)
@given(updates(results=MIXED_TEXT), MAX_BYTES, STRATEGY)
def test_fast_searches_equal_clear_ones_on_mixed_text(update: dict[str, Any], max_bytes: int,
                                                      strategy: str) -> None:
    """Both fast searches agree with the clear ones where the cost per code point varies, and
    maximal measures little more than the tail it keeps plus the budget."""
    fast_stats = BoundStats()
    fast = bound_with_line(update, max_bytes=max_bytes, fit_strategy=strategy,
                           stats=fast_stats)
    clear = bound_with_line(update, max_bytes=max_bytes, fit_strategy=strategy,
                            method="clear")
    assert fast == clear
    assert fast_stats.serializations <= 2
    if strategy == "maximal":
        assert fast_stats.measured <= 3 * max_bytes


@settings(max_examples=40)
@given(updates(ids=st.sampled_from(["c", "\U0001f600" * 300]),
               results=st.builds(lambda n: "\ud83d\ude00" * n + "é\ud83d\ude00" * n,
                                 st.integers(1, 4000))),
       MAX_BYTES, STRATEGY)
def test_tails_never_split_a_surrogate_pair(update: dict[str, Any], max_bytes: int,
                                            strategy: str) -> None:
    """A tail starts at a code point boundary: no half of a pair, no U+FFFD from a split."""
    form, line = bound_with_line(update, max_bytes=max_bytes, fit_strategy=strategy)
    tail = bounded_text(form)[len(MARKER):]
    assert "\ufffd" not in tail
    assert all(ord(char) < 0xD800 or ord(char) > 0xDFFF for char in tail)
    assert "\ufffd".encode() not in line


def test_serialization_counts() -> None:
    """The fast searches serialize twice; clear maximal about log2 n times; clear halving once
    per try."""
    update = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n", "args": {},
              "partialResult": "y" * 100_000}
    counts = {}
    measured = {}
    for strategy, method in [("halving", "fast"), ("halving", "clear"), ("maximal", "fast"),
                             ("maximal", "clear")]:
        stats = BoundStats()
        bound_live_update(update, max_bytes=4096, fit_strategy=strategy, stats=stats,
                          method=method)
        counts[strategy, method] = stats.serializations
        measured[strategy, method] = stats.measured
    assert counts["maximal", "fast"] == 2
    assert counts["halving", "fast"] == 2
    assert counts["halving", "clear"] == 6  # 100000, 50000, 25000, 12500, 6250, 3125
    # The envelope is 143 + 1 + 1 = 145 bytes, so the budget is 3951: halving skips every
    # candidate above it unmeasured, and 3125 (more than a sixth of it) is measured and fits.
    assert measured["halving", "fast"] == 3125
    # One byte per code point everywhere: the sample predicts every piece, each fits, and the
    # search measures exactly the 3951 code points it keeps.
    assert measured["maximal", "fast"] == 3951
    assert 17 <= counts["maximal", "clear"] <= 19


def test_empty_text_gives_the_marker_alone() -> None:
    """An update with no text bounds to the marker alone, with one serialization."""
    update: dict[str, Any] = {"type": "tool_execution_update", "toolCallId": "c" * 9000,
                              "toolName": "n", "args": {}, "partialResult": None}
    for strategy in ("halving", "maximal"):
        stats = BoundStats()
        form = bound_live_update(update, max_bytes=4096, fit_strategy=strategy, stats=stats)
        assert bounded_text(form) == MARKER
        assert stats.serializations == 1
        assert form["toolCallId"] == "c" * 256


def test_missing_partial_result_has_no_text() -> None:
    """An update without partialResult bounds like one whose text is empty."""
    update = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n"}
    assert bounded_text(bound_live_update(update, max_bytes=4096,
                                          fit_strategy="halving")) == MARKER


# -- the seed's bugs ---------------------------------------------------------------------------


def test_control_characters_cost_six_bytes() -> None:
    """Fewer characters than maxBytes can still overflow it: "\\u0000" costs 6 bytes each."""
    event = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "bash", "args": {},
             "partialResult": {"content": [{"type": "text", "text": "\x00" * 50_000}]}}
    line = project_event(event, include_live_events=True, max_bytes=262144)
    assert line is not None
    assert len(line) <= 262144
    assert line.startswith(b'{"type":"tool_execution_update","toolCallId":"c","toolName":"bash",')
    assert b'"args"' not in line


@pytest.mark.parametrize("strategy", ["halving", "maximal"])
def test_an_id_longer_than_max_bytes_still_converges(strategy: str) -> None:
    """A toolCallId alone longer than maxBytes is clipped so the bounded line fits."""
    event = {"type": "tool_execution_update", "toolCallId": "\x00" * 10_000,
             "toolName": "n" * 10_000, "args": {}, "partialResult": "z" * 10_000}
    line = project_event(event, include_live_events=True, max_bytes=4096,
                         fit_strategy=strategy)
    assert line is not None
    assert len(line) <= 4096
    form = json.loads(line)
    assert form["toolCallId"] == "\x00" * 256
    assert form["toolName"] == "n" * 256
    assert bounded_text(form).startswith(MARKER + "z")


# -- arguments ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [3214, 0, -1, True, False, "4096", None, 4096.5, [4096]])
def test_max_bytes_must_be_an_integer_of_at_least_3215(value: Any) -> None:
    """maxBytes below 3215, a boolean, or anything not an integer is refused."""
    with pytest.raises(InvalidInput) as caught:
        check_max_bytes(value)
    assert caught.value.path == "$.maxBytes"


@pytest.mark.parametrize(("value", "expected"),
                         [(3215, 3215), (4096, 4096), (4096.0, 4096), (10**12, 10**12)])
def test_max_bytes_accepts_integers(value: Any, expected: int) -> None:
    """An integer >= 3215 is accepted; 4096.0 is the same JSON number as 4096."""
    assert check_max_bytes(value) == expected


def test_unknown_strategy_and_method_are_refused() -> None:
    """A fit strategy or search method outside the spec's is refused."""
    update = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n",
              "partialResult": ""}
    with pytest.raises(InvalidInput, match="fit strategy"):
        check_fit_strategy("binary")
    with pytest.raises(InvalidInput, match="fit strategy"):
        bound_live_update(update, max_bytes=4096, fit_strategy="greedy")
    with pytest.raises(InvalidInput, match="search method"):
        bound_live_update(update, max_bytes=4096, fit_strategy="maximal", method="quick")


@pytest.mark.parametrize("key", ["toolCallId", "toolName"])
@pytest.mark.parametrize("value", [None, 7, ["a"]])
def test_ids_that_are_not_strings_are_refused(key: str, value: Any) -> None:
    """The bounded form carries string ids; another value is refused with its path."""
    update = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n",
              "partialResult": "x", key: value}
    with pytest.raises(InvalidInput) as caught:
        bound_live_update(update, max_bytes=4096, fit_strategy="halving")
    assert caught.value.path == f"$.event.{key}"


# -- projection of an update provably over the bound ------------------------------------------
#
# project_event does not write the line of an update whose strings alone hold more code points
# than maxBytes (reference/_wire.py); it checks the update is writable on a copy with the long
# strings blanked. These tests hold that path to the spec as written: serialize the event
# (§4.2), bound it when the line is over maxBytes (§5.1) with the search that serializes every
# candidate, and refuse what cannot be serialized (§7) with the same path.

def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


#: Values that the canonical form refuses, or that make the strings' count an overestimate.
AWKWARD = st.one_of(
    st.sampled_from([float("nan"), float("inf"), 2**53, -(2**60), 1.5, 30.0, None, True]),
    st.just({1: "a non-string member name"}),
    # names equal once well-formed (ruff reads the two literals as one, so built from pairs):
    st.just(dict([("\ud800", "x" * 9000), ("\udc00", "")])),
    st.just({"\ud83d\ude00": "z" * 9000}),
    st.just(("a", "tuple")),
    st.just({"deep": _nested(41, "x" * 5000)}),
    st.builds(lambda n: {"nested": _nested(n, "y" * 6000)}, st.integers(60, 70)),
    st.text(max_size=3),
)


def spec_projection(event: dict[str, Any], max_bytes: int, strategy: str) -> bytes:
    """§4.2 then §5.1, as the spec reads: the line, bounded when it is over maxBytes."""
    try:
        line: bytes = canonical_bytes_clear(dict(event))
    except InvalidInput as error:
        raise InvalidInput(value=error.value, path="$.event" + error.path[1:],
                           reason=error.reason, fix=error.fix) from None
    if len(line) <= max_bytes:
        return line
    return bound_with_line(event, max_bytes=max_bytes, fit_strategy=strategy,
                           method="clear")[1]


def outcome(call: Any) -> tuple[str, Any]:
    try:
        return "line", call()
    except InvalidInput as error:
        return "refused", (error.path, repr(error.value))


@settings(max_examples=120)
@given(st.builds(lambda update, args, details: {**update, "args": args, "details": details},
                 updates(results=st.one_of(LONG_TEXT, partial_results(TEXT))), AWKWARD,
                 AWKWARD),
       MAX_BYTES, STRATEGY)
def test_projection_of_updates_equals_the_spec_statement(update: dict[str, Any], max_bytes: int,
                                                         strategy: str) -> None:
    """Every update projects to the spec's line, or is refused at the same path, whether or not
    the projection could tell it was over the bound without writing it."""
    expected = outcome(lambda: spec_projection(update, max_bytes, strategy))
    actual = outcome(lambda: project_event(update, include_live_events=True,
                                           max_bytes=max_bytes, fit_strategy=strategy))
    assert actual == expected


def test_names_equal_once_well_formed_are_not_counted_twice() -> None:
    """Two names that become one drop a member with its 9000-character value (§6.1): the line
    is short and written unchanged, although the strings' code points exceed maxBytes."""
    event = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n",
             "details": dict([("\ud800", "x" * 9000), ("\udfff", "short")]),
             "partialResult": "ok"}
    line = project_event(event, include_live_events=True, max_bytes=4096)
    assert line == (b'{"type":"tool_execution_update","toolCallId":"c","toolName":"n",'
                    b'"details":{"\xef\xbf\xbd":"short"},"partialResult":"ok"}')


@pytest.mark.parametrize(("bad", "path"), [
    (float("nan"), "$.event.details.x"), (2**53, "$.event.details.x"),
    ({3: "x"}, "$.event.details.x"),
])
def test_an_update_over_the_bound_with_an_unwritable_member_is_refused(bad: Any,
                                                                        path: str) -> None:
    """Bounding drops details, but the update's own line must be writable first (§7)."""
    event = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n",
             "details": {"x": bad}, "partialResult": "y" * 100_000}
    with pytest.raises(InvalidInput) as caught:
        project_event(event, include_live_events=True, max_bytes=4096)
    assert caught.value.path == path


def test_an_update_provably_over_the_bound_is_never_serialized_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """64 MiB of text is bounded without a serialization longer than maxBytes: the writability
    check writes the event with its long strings blanked, and the searches only tails."""
    from eventproof.reference import _backstop, _canonical, _wire

    largest = [0]
    real = _canonical.canonical_bytes
    real_size = _canonical.escaped_size

    def recording(value: Any) -> bytes:
        line: bytes = real(value)
        largest[0] = max(largest[0], len(line))
        return line

    def recording_size(text: str) -> int:
        largest[0] = max(largest[0], len(text))
        return real_size(text)

    monkeypatch.setattr(_wire, "canonical_bytes", recording)
    monkeypatch.setattr(_backstop, "canonical_bytes", recording)
    monkeypatch.setattr(_backstop, "escaped_size", recording_size)
    event = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n",
             "args": {"command": "make"},
             "partialResult": {"content": [{"type": "text", "text": "log line\n" * 7_500_000}],
                               "details": {}}}
    for strategy in ("halving", "maximal"):
        largest[0] = 0
        line = project_event(event, include_live_events=True, fit_strategy=strategy)
        assert line is not None
        assert 0 < largest[0] <= 262144
