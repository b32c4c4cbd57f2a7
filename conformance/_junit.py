"""The one JUnit XML renderer: every command that writes ``--junit`` (``run``, ``report``,
``vectors``, ``audit``) turns its results into :class:`Suite` s of :class:`Case` s and this
module writes them, so the document's shape, its counts and its character rules are the same
everywhere.

The shape: a ``<testsuites>`` root (name, totals, the run's time), one ``<testsuite>`` per
group of cases (an operation, a vector file, the audit's logs), each with the run's
``<properties>`` (its ``exit-code`` and ``verdict`` among them, the one verdict the console
states) and one ``<testcase>`` per rule or vector. Counts are never given, always computed
from the cases: a case is a ``failure``, an ``error``, ``skipped`` or passed, and the totals
count exactly those.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["Case", "Kind", "Suite", "tree", "write", "xml_safe"]

#: What a case came to. ``failure`` and ``error`` fail a CI gate; ``skipped`` does not.
Kind = Literal["passed", "failure", "error", "skipped"]

#: Characters XML 1.0 cannot carry (§2.2 allows TAB, LF, CR and everything from U+0020 but
#: surrogates, U+FFFE and U+FFFF).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 cannot carry shown as a ``\\uXXXX`` escape."""
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


@dataclass(frozen=True)
class Case:
    """One rule or vector: its outcome in JUnit's terms and what a reader of CI needs."""

    classname: str
    name: str
    seconds: float = 0.0
    kind: Kind = "passed"
    #: The one-line summary (the ``message`` attribute) and the full text (the element's).
    message: str = ""
    #: The ``type`` attribute: the rule id broken, or the outcome (``xpass``, ``timeout``…).
    type: str = ""
    text: str = ""
    #: A passing or skipped case's note (``<system-out>``) and the program's ``<system-err>``.
    stdout: str = ""
    stderr: str = ""


@dataclass(frozen=True)
class Suite:
    """A group of cases (an operation, a vector file, the audit)."""

    name: str
    cases: tuple[Case, ...]
    #: Properties of this suite before the run's own (e.g. the vector file).
    properties: tuple[tuple[str, str], ...] = ()
    stdout: str = ""


def _seconds(value: float) -> str:
    return f"{max(0.0, round(value, 3)):.3f}"


def _counts(cases: Sequence[Case]) -> dict[str, str]:
    return {"tests": str(len(cases)),
            "failures": str(sum(case.kind == "failure" for case in cases)),
            "errors": str(sum(case.kind == "error" for case in cases)),
            "skipped": str(sum(case.kind == "skipped" for case in cases))}


def _case(case: Case) -> ET.Element:
    element = ET.Element("testcase", classname=xml_safe(case.classname),
                         name=xml_safe(case.name), time=_seconds(case.seconds))
    if case.kind != "passed":
        attributes = {"message": xml_safe(case.message)}
        if case.type:
            attributes["type"] = xml_safe(case.type)
        outcome = ET.SubElement(element, case.kind, attributes)
        if case.text:
            outcome.text = xml_safe(case.text)
    if case.stdout:
        ET.SubElement(element, "system-out").text = xml_safe(case.stdout)
    if case.stderr:
        ET.SubElement(element, "system-err").text = xml_safe(case.stderr)
    return element


def tree(name: str, suites: Sequence[Suite], *, seconds: float,
         properties: Sequence[tuple[str, object]] = ()) -> ET.ElementTree[ET.Element]:
    """The document: ``properties`` (the run's, ``exit-code`` and ``verdict`` among them) are
    repeated in every suite, since CI readers show a suite's properties, not the root's. A
    suite's time is the sum of its cases' times; the root's is the whole run's."""
    shown = [(key, str(value).lower() if isinstance(value, bool) else str(value))
             for key, value in properties]
    every = [case for suite in suites for case in suite.cases]
    root = ET.Element("testsuites", {"name": xml_safe(name), **_counts(every),
                                     "time": _seconds(seconds)})
    for suite in suites:
        element = ET.SubElement(root, "testsuite", {
            "name": xml_safe(suite.name), **_counts(suite.cases),
            "time": _seconds(sum(round(case.seconds, 3) for case in suite.cases))})
        listed = ET.SubElement(element, "properties")
        for key, value in (*suite.properties, *shown):
            ET.SubElement(listed, "property", name=key, value=xml_safe(value))
        element.extend(_case(case) for case in suite.cases)
        if suite.stdout:
            ET.SubElement(element, "system-out").text = xml_safe(suite.stdout)
    ET.indent(root)
    return ET.ElementTree(root)


def write(path: str | os.PathLike[str], document: ET.ElementTree[ET.Element]) -> None:
    """Write ``document`` to ``path`` as UTF-8 XML (parent directories created)."""
    target = Path(path)
    if target.parent != Path():
        target.parent.mkdir(parents=True, exist_ok=True)
    document.write(target, encoding="utf-8", xml_declaration=True)
