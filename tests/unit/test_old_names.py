"""The Python names of the effort before it was called effort (``examples=``, ``budget=``,
``RunReport.budget``) still work, each with a DeprecationWarning naming the new one; an old name
and the new one that disagree are an error, never a silent choice."""

from __future__ import annotations

import pytest
from eventproof.conformance import CheckOptions, HarnessError, check_implementation
from eventproof.reference import Reference
from hypothesis import given
from hypothesis import strategies as st

EFFORTS = st.sampled_from(["quick", "default", "thorough"])


@pytest.mark.parametrize("old", ["examples", "budget"])
def test_check_implementation_takes_an_old_keyword_with_a_warning(old: str) -> None:
    """``check_implementation(examples=...)`` and ``budget=...`` set the run's effort, with a
    DeprecationWarning that names ``effort``."""
    with pytest.warns(DeprecationWarning, match=rf"check_implementation\({old}=\.\.\.\) is now "
                      r"effort=\.\.\."):
        report = check_implementation(Reference(), ops=["classify"], max_examples=3,
                                      **{old: "thorough"})
    assert report.effort == "thorough"
    with pytest.warns(DeprecationWarning, match=r"RunReport\.budget is now RunReport\.effort"):
        assert report.budget == "thorough"


@given(effort=EFFORTS, old=EFFORTS)
def test_an_old_keyword_that_disagrees_with_effort_is_an_error(effort: str, old: str) -> None:
    """The same effort twice is that effort; two different ones are an error naming both."""
    options = {"examples": old}
    if effort == old:
        with pytest.warns(DeprecationWarning, match="is now CheckOptions"):
            same = CheckOptions(effort=effort, **options)
        assert same.effort == effort
        return
    with pytest.raises(HarnessError, match=f"effort={effort!r} and examples={old!r} disagree"), \
            pytest.warns(DeprecationWarning, match="is now CheckOptions"):
        CheckOptions(effort=effort, **options)


@given(old=EFFORTS)
def test_check_options_takes_examples_as_the_old_name_of_effort(old: str) -> None:
    """``CheckOptions(examples=...)`` is ``CheckOptions(effort=...)``, with a warning."""
    with pytest.warns(DeprecationWarning, match=r"CheckOptions\(examples=\.\.\.\) is now"):
        options = CheckOptions(examples=old)
    assert options == CheckOptions(effort=old)
