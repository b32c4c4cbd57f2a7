"""Spec links go to the section's anchor on GitHub, at the tag of the kit that judged the run."""

from __future__ import annotations

from pathlib import Path

import pytest
from eventproof.conformance._operations import RULES
from eventproof.conformance._reports import section_url
from eventproof.conformance._spec_links import (
    SECTION_ANCHORS,
    heading_anchors,
    kit_ref,
    spec_url,
)
from eventproof.conformance._versions import SUITE_VERSION

SPEC = Path(__file__).resolve().parents[2] / "spec"


def test_the_anchor_table_is_the_spec_s_headings() -> None:
    derived = {f"{path.name}#{number}": anchor
               for path in sorted(SPEC.glob("*.md"))
               for number, anchor in heading_anchors(path.read_text("utf-8")).items()}
    table = "\n".join(f'    "{section}": "{anchor}",' for section, anchor in derived.items())
    assert dict(SECTION_ANCHORS) == derived, (
        "a spec heading changed: replace SECTION_ANCHORS in conformance/_spec_links.py with\n"
        + table)


def test_every_rule_section_has_an_anchor() -> None:
    missing = sorted({rule.section for rule in RULES} - set(SECTION_ANCHORS))
    assert missing == []


@pytest.mark.parametrize(("heading", "anchor"), [
    ("### 4.5. The backstop", "45-the-backstop"),
    ("### 2.2. `assistant/message`", "22-assistantmessage"),
    ("### 4.4. `turn_end` and `agent_end`", "44-turn_end-and-agent_end"),
    ("## 8. Implementations in process (Python)", "8-implementations-in-process-python"),
    ("## 3. *Frames* and [lines](x.md)", "3-frames-and-lines"),
])
def test_anchors_as_github_gives_them(heading: str, anchor: str) -> None:
    number = heading.split()[1].rstrip(".")
    assert heading_anchors(heading) == {number: anchor}


def test_a_repeated_heading_gets_a_suffix_and_fences_hold_no_heading() -> None:
    text = "## Example\n```\n## 9. not a heading\n```\n## Example\n### 1. Example\n"
    assert heading_anchors(text) == {"1": "1-example"}
    assert heading_anchors("## 1. A\n## 1. A\n## 2. A\n") == {"1": "1-a", "2": "2-a"}


def test_links_are_at_the_kit_s_tag() -> None:
    assert kit_ref("0.1.0") == "v0.1.0"
    assert kit_ref("1.2rc1") == "v1.2rc1"
    assert kit_ref("0.1.1.dev3+g0abc") == "main"
    assert kit_ref("0+unknown") == "main"
    url = spec_url("wire.md#4.4", "0.1.0")
    assert url == ("https://github.com/eventproof/eventproof/blob/v0.1.0/spec/"
                   "wire.md#44-turn_end-and-agent_end")
    assert spec_url("wire.md", "0.1.0").endswith("/blob/v0.1.0/spec/wire.md")
    assert spec_url("wire.md#99.9", "0.1.0").endswith("/spec/wire.md")  # never a dead anchor
    # The reports link with the same function, at this kit's version.
    for rule in RULES:
        assert section_url(rule.section) == spec_url(rule.section, SUITE_VERSION)
        assert "#" in section_url(rule.section)
