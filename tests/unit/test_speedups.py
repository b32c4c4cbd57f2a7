"""The compiled plain-tree walks (reference/_speedups.c) answer what the Python walks answer.

``_plain_tree`` and ``_plain_tree_code_points`` decide which values orjson may write (see
test_wire_fast_path.py for the lines themselves). When the package was built with a C compiler
they are the compiled functions; the Python ones (``*_py``) are their specification. Both are
run on every Python value the fast-path tests draw (enums, UUIDs, fragments, subclasses,
tuples, big integers, every kind of float, array-index, odd and surrogate member names) and on
nesting deeper than Python recurses; Python's RecursionError counts as the compiled walk's
decline.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Any

import pytest
from eventproof.reference import _canonical, canonical_bytes
from eventproof.reference._canonical import canonical_bytes_clear
from hypothesis import Phase, example, find, given, settings
from hypothesis import strategies as st
from test_wire_fast_path import VALUES, outcome

#: How deep the compiled walk follows nesting (MAX_DEPTH in reference/_speedups.c).
COMPILED_DEPTH = 512

compiled = pytest.mark.skipif(not _canonical.COMPILED,
                              reason="built without a C compiler, or EVENTPROOF_NO_EXTENSIONS set")


def python_walks(value: Any) -> tuple[bool, int]:
    """The Python walks' answers, a RecursionError read as a decline."""
    try:
        plain = _canonical._plain_tree_py(value)
    except RecursionError:
        plain = False
    try:
        points = _canonical._plain_tree_code_points_py(value)
    except RecursionError:
        points = -1
    return plain, points


def compiled_walks(value: Any) -> tuple[bool, int]:
    from eventproof.reference import _speedups

    return _speedups.plain_tree(value), _speedups.plain_tree_code_points(value)


def nested(depth: int, leaf: Any, *, in_list: bool) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if in_list else {"a": value}
    return value


@compiled
@settings(max_examples=300)
@given(VALUES)
def test_the_compiled_walks_answer_what_the_python_walks_answer(value: Any) -> None:
    assert compiled_walks(value) == python_walks(value)


@compiled
@settings(max_examples=60)
@given(depth=st.integers(0, 3000), in_list=st.booleans(),
       leaf=st.sampled_from(["text", 1.0, 0.5, None, [], {}]))
@example(depth=COMPILED_DEPTH, in_list=True, leaf=[])  # the deepest the compiled walk follows
@example(depth=COMPILED_DEPTH + 1, in_list=False, leaf={})  # one deeper: declined
def test_deep_nesting_is_walked_alike_and_written_alike(depth: int, in_list: bool,
                                                         leaf: Any) -> None:
    """Up to the compiled walk's depth both walks agree; beyond it the compiled one declines
    where Python may still walk, and either way the line (or refusal) is the clear encoder's:
    orjson refuses nesting deeper than 255 itself, so the general path decides there."""
    value = nested(depth, leaf, in_list=in_list)
    if depth <= COMPILED_DEPTH:
        assert compiled_walks(value) == python_walks(value)
    else:
        assert compiled_walks(value) == (False, -1)
    assert outcome(canonical_bytes, value) == outcome(canonical_bytes_clear, value)


def test_the_compiled_walks_are_used_where_a_compiler_was_at_hand() -> None:
    """A build on a machine with a C compiler has the compiled walks in place (CI has one); a
    silently failed build would leave the fast path at the Python walks' cost."""
    if os.environ.get("EVENTPROOF_NO_EXTENSIONS"):
        assert not _canonical.COMPILED
        assert _canonical._plain_tree is _canonical._plain_tree_py
        return
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) on this machine")
    assert _canonical.COMPILED
    assert _canonical._plain_tree is not _canonical._plain_tree_py


def test_the_environment_switch_keeps_the_python_walks() -> None:
    """EVENTPROOF_NO_EXTENSIONS=1 runs the reference on the Python walks, writing the same."""
    code = (
        "from eventproof.reference import _canonical, project_event\n"
        "assert not _canonical.COMPILED\n"
        "assert _canonical._plain_tree is _canonical._plain_tree_py\n"
        "event = {'type': 'tool_execution_end', 'result': {'content': [{'text': 'é'}]},"
        " 'n': [1, 0.5, 30.0]}\n"
        "print(project_event(event, include_live_events=False).decode())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "EVENTPROOF_NO_EXTENSIONS": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        '{"type":"tool_execution_end","result":{"content":[{"text":"é"}]},"n":[1,0.5,30]}')


# -- the wrong walks the comparison catches ------------------------------------------------------


def _integral_floats_too(value: Any) -> tuple[bool, int]:
    """Wrong: every finite float taken as native (orjson writes 30.0 as "30.0", not "30")."""
    swapped = _swap_floats(value)
    return python_walks(swapped)


def _swap_floats(value: Any) -> Any:
    if type(value) is float and value == value and abs(value) != float("inf"):
        return 0.5
    if type(value) is dict:
        return {key: _swap_floats(item) for key, item in value.items()}
    if type(value) is list:
        return [_swap_floats(item) for item in value]
    return value


def _digit_names_too(value: Any) -> tuple[bool, int]:
    """Wrong: member names led by a digit taken (an array index sorts first in JSON.stringify)."""
    return python_walks(_rename_digits(value))


def _rename_digits(value: Any) -> Any:
    if type(value) is dict:
        return {("k" + key if type(key) is str and key[:1].isdigit() else key):
                _rename_digits(item) for key, item in value.items()}
    if type(value) is list:
        return [_rename_digits(item) for item in value]
    return value


def _subclasses_too(value: Any) -> tuple[bool, int]:
    """Wrong: isinstance instead of exact types (an Enum or str subclass is written by orjson)."""
    def walk(item: Any) -> int:
        if isinstance(item, str):
            return len(item)
        if isinstance(item, (bool, int)) or item is None:
            return 0
        if isinstance(item, float):
            return 0 if _canonical._native_float(item) else -1
        if isinstance(item, dict):
            total = 0
            for key, inner in item.items():
                if not isinstance(key, str) or key[:1].isdigit():
                    return -1
                points = walk(inner)
                if points < 0:
                    return -1
                total += len(key) + points
            return total
        if isinstance(item, list):
            points = [walk(inner) for inner in item]
            return -1 if any(point < 0 for point in points) else sum(points)
        return -1

    try:
        points = walk(value) if isinstance(value, (dict, list)) else -1
    except RecursionError:
        points = -1
    return points >= 0, points


@pytest.mark.parametrize("wrong", [_integral_floats_too, _digit_names_too, _subclasses_too])
def test_the_comparison_catches_a_wrong_walk(wrong: Any) -> None:
    """Each wrong walk answers differently from the Python walks on some drawn value."""
    found = find(VALUES, lambda value: wrong(value) != python_walks(value),
                 settings=settings(max_examples=3000, database=None, derandomize=True,
                                   phases=[Phase.generate]))
    assert wrong(found) != python_walks(found)
