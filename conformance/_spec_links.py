"""Links into the published spec: a rule's section, at the tag of the kit that judged it.

A rule cites its section as ``wire.md#4.5``. On GitHub that section's heading, ``### 4.5. Title``,
gets the anchor ``45-title`` (the heading's text, lower-cased, punctuation dropped, spaces as
hyphens), so the link is ``…/blob/v0.1.0/spec/wire.md#45-title``. The anchors are a table
(:data:`SECTION_ANCHORS`); a unit test derives it from spec/*.md with :func:`heading_anchors` and
fails, printing the table to paste, when a heading changes. The spec's Markdown also ships with
the package, and ``eventproof spec SECTION`` prints a section without a link
(:mod:`._spec_text`). :func:`spec_url` is the one function every report links the spec with.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ._versions import SUITE_VERSION

__all__ = ["REPOSITORY", "SECTION_ANCHORS", "heading_anchors", "kit_ref", "spec_url"]

#: The kit's public repository.
REPOSITORY = "https://github.com/eventproof/eventproof"

_RELEASE = re.compile(r"\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\.?(?:\s|$)")


def kit_ref(version: str = SUITE_VERSION) -> str:
    """The git ref that holds the spec of kit ``version``: its tag (``v0.1.0``) for a release,
    ``main`` for a development or local build, which has no tag."""
    return f"v{version}" if _RELEASE.fullmatch(version) else "main"


def _slug(text: str) -> str:
    """The anchor GitHub gives a heading: its text as shown (code spans, emphasis and link
    targets dropped), lower-cased, every character but letters, digits, ``_``, ``-`` and
    spaces removed, spaces turned into hyphens."""
    shown = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    shown = shown.replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", shown.strip().lower()).replace(" ", "-")


def heading_anchors(markdown: str) -> dict[str, str]:
    """Each numbered heading's number (``4.5``) and its GitHub anchor in one Markdown text.
    Headings in fenced code are not headings; a repeated anchor gets ``-1``, ``-2`` … as on
    GitHub."""
    anchors: dict[str, str] = {}
    seen: dict[str, int] = {}
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        slug = _slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchor = f"{slug}-{count}" if count else slug
        number = _NUMBERED.match(match.group(2))
        if number is not None:
            anchors.setdefault(number.group(1), anchor)
    return anchors


def spec_url(section: str, version: str = SUITE_VERSION) -> str:
    """The published text of a section (``wire.md#4.5``) at the tag of kit ``version``; a
    section the table does not hold links to its file."""
    file, _, number = section.partition("#")
    base = f"{REPOSITORY}/blob/{kit_ref(version)}/spec/{file}"
    anchor = SECTION_ANCHORS.get(section) if number else None
    return f"{base}#{anchor}" if anchor else base


#: Every numbered section of spec/*.md and its anchor on GitHub (checked against the spec by
#: tests/unit/test_spec_links.py).
SECTION_ANCHORS: Mapping[str, str] = {
    "budget.md#1": "1-conventions",
    "budget.md#2": "2-task-records",
    "budget.md#2.1": "21-the-input-record",
    "budget.md#2.2": "22-status",
    "budget.md#2.3": "23-heavy-fields-and-the-allow-lists",
    "budget.md#3": "3-final-records",
    "budget.md#3.1": "31-members",
    "budget.md#3.2": "32-identity",
    "budget.md#4": "4-cutting-a-heavy-field",
    "budget.md#5": "5-the-final-budget",
    "budget.md#5.1": "51-numbers",
    "budget.md#5.2": "52-floors",
    "budget.md#5.3": "53-fair-share",
    "budget.md#5.4": "54-claim-order",
    "budget.md#5.5": "55-rejected-fields",
    "budget.md#5.6": "56-the-bound",
    "budget.md#5.7": "57-example",
    "budget.md#6": "6-the-live-roster",
    "budget.md#6.1": "61-live-records",
    "budget.md#6.2": "62-the-bound",
    "budget.md#6.3": "63-the-count",
    "budget.md#7": "7-the-lane",
    "budget.md#7.1": "71-merge",
    "budget.md#7.2": "72-count",
    "budget.md#8": "8-publish-cadence",
    "budget.md#8.1": "81-timeline",
    "budget.md#8.2": "82-coalescing",
    "budget.md#8.3": "83-return",
    "budget.md#9": "9-invalid-input",
    "budget.md#10": "10-operations",
    "protocol.md#1": "1-conventions",
    "protocol.md#1.1": "11-the-same-json-value",
    "protocol.md#1.2": "12-how-a-program-reads-numbers",
    "protocol.md#2": "2-transport",
    "protocol.md#2.1": "21-lines",
    "protocol.md#2.2": "22-standard-streams",
    "protocol.md#2.3": "23-sizes",
    "protocol.md#2.4": "24-starting-the-program",
    "protocol.md#3": "3-messages",
    "protocol.md#4": "4-the-handshake",
    "protocol.md#4.1": "41-the-start-request",
    "protocol.md#4.2": "42-the-handshake-answer",
    "protocol.md#4.3": "43-versions",
    "protocol.md#5": "5-running-operations",
    "protocol.md#5.1": "51-the-run-request-and-sequence-ids",
    "protocol.md#5.2": "52-output",
    "protocol.md#5.3": "53-skipped",
    "protocol.md#5.4": "54-errored",
    "protocol.md#5.5": "55-the-operations",
    "protocol.md#5.6": "56-coverage-and-untested-rules",
    "protocol.md#6": "6-stopping",
    "protocol.md#7": "7-timeouts-crashes-and-restarts",
    "protocol.md#7.1": "71-deadlines",
    "protocol.md#7.2": "72-crashes",
    "protocol.md#7.3": "73-broken-answers",
    "protocol.md#7.4": "74-restarts-and-the-restart-limit",
    "protocol.md#7.5": "75-what-a-program-must-not-do",
    "protocol.md#8": "8-implementations-in-process-python",
    "protocol.md#9": "9-a-complete-program-in-python",
    "selection.md#1": "1-conventions",
    "selection.md#2": "2-session-events",
    "selection.md#2.1": "21-envelope",
    "selection.md#2.2": "22-assistantmessage",
    "selection.md#2.3": "23-assistantchunk",
    "selection.md#2.4": "24-tool-turn-step-user-and-inbox-events",
    "selection.md#2.5": "25-content-blocks",
    "selection.md#2.6": "26-unknown-event-types",
    "selection.md#3": "3-selection",
    "selection.md#3.1": "31-the-last-non-empty-message",
    "selection.md#3.2": "32-empty-messages-never-count",
    "selection.md#3.3": "33-streamed-text-fallback",
    "selection.md#3.4": "34-what-never-contributes",
    "selection.md#4": "4-fold",
    "selection.md#4.1": "41-shape",
    "selection.md#4.2": "42-equal-to-the-batch-rule-at-every-prefix",
    "selection.md#5": "5-result-contract",
    "selection.md#5.1": "51-consumed-work",
    "selection.md#5.2": "52-one-shot-stop-reason",
    "selection.md#5.3": "53-continuable-stop-reason",
    "selection.md#5.4": "54-resultoutput",
    "selection.md#5.5": "55-lifecycle-event",
    "selection.md#5.6": "56-delegation-tool-result",
    "selection.md#5.7": "57-outside-this-profile",
    "selection.md#6": "6-invalid-input",
    "selection.md#7": "7-operations",
    "wire.md#1": "1-conventions",
    "wire.md#2": "2-agent-events",
    "wire.md#2.1": "21-envelope",
    "wire.md#2.2": "22-event-types",
    "wire.md#2.3": "23-messages-and-content-blocks",
    "wire.md#2.4": "24-assistantmessageevent",
    "wire.md#2.5": "25-unknown-types",
    "wire.md#3": "3-classification",
    "wire.md#4": "4-projection",
    "wire.md#4.1": "41-opt-in",
    "wire.md#4.2": "42-facts-pass-through",
    "wire.md#4.3": "43-message_update",
    "wire.md#4.4": "44-turn_end-and-agent_end",
    "wire.md#4.5": "45-erroneous-events",
    "wire.md#5": "5-backstop",
    "wire.md#5.1": "51-when-it-applies",
    "wire.md#5.2": "52-bounded-form",
    "wire.md#5.3": "53-text-and-marker",
    "wire.md#5.4": "54-ids",
    "wire.md#5.5": "55-fit-strategies",
    "wire.md#5.6": "56-smallest-maxbytes-and-convergence-proof",
    "wire.md#6": "6-canonical-serialization",
    "wire.md#6.1": "61-well-formed-text",
    "wire.md#6.2": "62-strings",
    "wire.md#6.3": "63-numbers",
    "wire.md#6.4": "64-member-order",
    "wire.md#6.5": "65-byte-measure",
    "wire.md#7": "7-invalid-input-and-numbers",
    "wire.md#8": "8-operations",
}
