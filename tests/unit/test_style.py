"""Every HTML page the kit writes uses the one style sheet (conformance/_style.py), and no
element of any page has its text the colour of its background."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from audit_logs import START, audit_bytes, line
from eventproof.conformance import _results
from eventproof.conformance._style import STYLE
from eventproof.conformance.audit._render import page as audit_page
from test_matrix import broken, render, report

#: A rule of the sheet whose selector is classes only (``.pill.o-fail``), with its colours.
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_VARIABLES = dict(re.findall(r"--([a-z-]+):\s*([^;}]+)", STYLE))


def _value(text: str) -> str:
    text = text.strip().removesuffix("!important").strip()
    match = re.fullmatch(r"var\(--([a-z-]+)\)", text)
    return _VARIABLES.get(match.group(1), text).strip() if match else text


def _class_rules(css: str) -> list[tuple[frozenset[str], dict[str, str]]]:
    rules = []
    for selectors, body in _RULE.findall(css):
        declarations = {}
        for declaration in body.split(";"):
            name, _, value = declaration.partition(":")
            if name.strip() in ("color", "background", "background-color"):
                declarations["background" if name.strip() != "color" else "color"] = _value(
                    value)
        if not declarations:
            continue
        for selector in selectors.split(","):
            if re.fullmatch(r"(\.[A-Za-z0-9_-]+)+", selector.strip()):
                rules.append((frozenset(selector.strip()[1:].split(".")), declarations))
    return rules


def clashes(page: str) -> list[str]:
    """Elements whose own rules give the text and the background the same colour (a class
    cascade: later and more specific class rules win)."""
    css = "".join(re.findall(r"<style>(.*?)</style>", page, re.S))
    rules = sorted(enumerate(_class_rules(css)), key=lambda item: (len(item[1][0]), item[0]))
    found: list[str] = []

    class Walk(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            classes = set((dict(attrs).get("class") or "").split())
            style: dict[str, str] = {}
            for _, (selector, declarations) in rules:
                if selector <= classes:
                    style.update(declarations)
            if style.get("color") and style.get("color") == style.get("background"):
                found.append(f"<{tag} class={' '.join(sorted(classes))!r}>: {style}")

    Walk().feed(page)
    return found


def _pages(tmp_path: Path) -> dict[str, str]:
    _, matrix, _ = render(tmp_path, report("port", broken()))
    audited = audit_bytes(line(START) + b'{"type":"x","type":"y"}\n' + line(
        {"type": "turn_end", "message": {"role": "assistant", "content": []}}))
    return {"matrix": matrix, "audit": audit_page(audited)}


def test_every_page_has_the_one_style_sheet(tmp_path: Path) -> None:
    """The matrix and the audit's page carry the same sheet, whole."""
    for name, text in _pages(tmp_path).items():
        assert re.findall(r"<style>(.*?)</style>", text, re.S) == [STYLE], name


def test_no_element_has_text_the_colour_of_its_background(tmp_path: Path) -> None:
    """On every page, an outcome (every one the results model has) and everything else is
    readable: no element's text is the colour of its background."""
    for name, text in _pages(tmp_path).items():
        assert clashes(text) == [], name
    every = "".join(f'<span class="pill o-{outcome}">{outcome}</span>'
                    for outcome in _results.OUTCOMES)
    assert clashes(f"<style>{STYLE}</style>{every}") == []


def test_the_check_catches_an_outcome_written_in_its_own_colour() -> None:
    """Wrong: the audit page of an earlier release coloured an outcome's text with the colour
    the sheet gives its background."""
    wrong = STYLE + ".o-pass{color:#1a7f37}"
    assert clashes(f'<style>{wrong}</style><td class="o-pass">pass</td>')
