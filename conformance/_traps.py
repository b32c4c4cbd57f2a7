"""The traps of the languages ports are written in, planted in every operation's inputs.

:data:`TRAPS` is the one list: each entry names a way a port in JavaScript, TypeScript, Go, Rust,
Java or C# typically reads JSON wrongly, and how to plant the input that exposes it (a
:class:`Plant`). The port checklist's table of them (docs/port-checklist.md, "Traps every run
plants") is rendered from this list (:func:`checklist_table`) and a test holds the two equal, so
a new trap is one line here and one regenerated table.

:data:`SIZES` lists inputs past the fixed sizes ports give their buffers (1,024 items, 4,096
and 65,536 characters), the same way.

Each operation's ``language-traps`` and ``past-fixed-sizes`` families (:func:`trap_families`)
are built, not drawn: every trap is planted in one of the operation's own vector inputs
(spec/vectors/, hand-written, schema-valid, each pinning a rule), the one where it shows most
(``_trap_build``, which writes the plan ``_trap_plan.py``: which vector, and where the schema
refused the plant), and each family is a fixed share of exactly those inputs
(:attr:`Family.examples`), so every run on every seed asks each of them once and none is shrunk.
A plant that would make an input break its schema is taken back where the schema refused it (a
closed object keeps its members, a bounded number its value); a trap that changes nothing of an
operation's inputs is not planted there. Planting is a pure function of the vector, so a run
builds the families without validating anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from eventproof.reference import DEFAULT_MAX_BYTES

from ._model import Capabilities, Family
from ._vector_files import shipped, unsendable_reason

__all__ = ["MISREADS", "PLANTS", "SIZES", "TRAPS", "Plant", "Trap", "checklist_table", "plant",
           "trap_families", "trap_inputs"]

Path = tuple[str | int, ...]

#: Member names whose string values name a thing (an id, an agent, a tool): the values a port
#: keys its maps by.
_ID_NAME = re.compile(r"(^id$|Id$|^agent$|^toolName$|^name$)")
#: Member names whose string values are text a port reads, echoes, cuts or measures.
TEXT_MEMBERS: frozenset[str] = frozenset({
    "text", "delta", "content", "task", "output", "errorMessage", "stderr", "diagnostic",
    "message", "thinking", "errorText", "summary", "title", "error",
})
#: Member names whose string values are drawn from a fixed set (a type, a role, a kind, a
#: status): a port that compares them ignoring case, or looks them up in a plain object, errs.
_NAMING_MEMBERS: frozenset[str] = frozenset({
    "type", "role", "kind", "status", "stopReason", "blockType", "target", "reason",
})

@dataclass(frozen=True)
class Plant:
    """How a trap is planted in an input: :attr:`how` names one of :data:`PLANTS`, and
    :attr:`value` is what it plants (a member name, an integer, a text form)."""

    how: str
    value: Any = None

    def describe(self) -> str:
        """The input that exposes the trap, in words (the checklist's last column)."""
        shown = json.dumps(self.value, ensure_ascii=True) if self.value is not None else ""
        sized = self.how in ("long-texts", "many-items")
        length, which = self.value if sized else (
            (self.value, "") if self.how == "nested-items" else ("", ""))
        names = ", ".join(f"`{name}`" for name in self.value) if self.how == "members" else ""
        texted = self.how in ("text", "naming-form", "type-form")
        return PLANTS[self.how][0].format(
            value=shown, names=names, text=_TEXT_FORMS[self.value][0] if texted else "",
            length=f"{length:,}" if length else "", which={"every": "every", "last": "the last",
                                                          }.get(which, which))


@dataclass(frozen=True)
class Trap:
    """One way a port reads JSON wrongly, and the input that exposes it."""

    #: A stable name, unique in :data:`TRAPS`.
    name: str
    #: The languages whose ports typically fall into it.
    ports: str
    #: What such a port does.
    mistake: str
    plant: Plant


# -- the plants: each a pure function of an input, given where the schema refused it -------------

Blocked = Callable[[Path], bool]


def _nodes(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every value inside ``value`` with its path, outermost first."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, (*path, index))


def _member_name(path: Path) -> str | None:
    """The member a value is held by: its own name, or its array's (``[1, 2]`` under
    ``sourceEventSeqs``)."""
    for key in reversed(path):
        if isinstance(key, str):
            return key
    return None


def _place(path: Path) -> tuple[str | None, ...] | None:
    """Where a value is held, whatever the array indexes (``events[*].data.turn``): values in
    one place are one kind of thing (a message's id, not a block's); None at the top."""
    if _member_name(path) is None:
        return None
    return tuple(key if isinstance(key, str) else None for key in path)


def _rebuild(value: Any, edit: Callable[[Path, Any], Any], path: Path = ()) -> Any:
    """``value`` with ``edit(path, node)`` applied to every node, innermost first."""
    if isinstance(value, dict):
        value = {key: _rebuild(item, edit, (*path, key)) for key, item in value.items()}
    elif isinstance(value, list):
        value = [_rebuild(item, edit, (*path, index)) for index, item in enumerate(value)]
    return edit(path, value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _add_member(value: Any, blocked: Blocked, name: str, planted: Any) -> Any:
    """A member ``name`` on every object that has none."""
    def edit(path: Path, node: Any) -> Any:
        if isinstance(node, dict) and name not in node and not blocked((*path, name)):
            return {**node, name: planted}
        return node
    return _rebuild(value, edit)


def _add_members(value: Any, blocked: Blocked, names: tuple[str, ...]) -> Any:
    """Members ``names`` on every object that has none of that name."""
    for name in names:
        value = _add_member(value, blocked, name, f"planted {name}")
    return value


def _case_twins(value: Any, blocked: Blocked, _: Any) -> Any:
    """Beside every string or integer member, its name in upper case with another value, after
    it (a decoder matching names without case takes the last)."""
    def edit(path: Path, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        twins: dict[str, Any] = {}
        for key, item in node.items():
            twin = key.upper()
            if twin == key or twin in node or blocked((*path, twin)):
                continue
            if isinstance(item, str):
                twins[twin] = item + " (twin)"
            elif _is_int(item):
                twins[twin] = item + 1
        return {**node, **twins} if twins else node
    return _rebuild(value, edit)


def _relabel_strings(value: Any, blocked: Blocked, names: Callable[[str], bool],
                     labels: Callable[[list[str]], dict[str, str]]) -> Any:
    """The string values of the members ``names`` admits, relabelled member by member: the
    distinct values of one member name, in order of first appearance, go to ``labels``."""
    distinct: dict[tuple[str | None, ...], list[str]] = {}
    for path, node in _nodes(value):
        name, place = _member_name(path), _place(path)
        if (isinstance(node, str) and name is not None and place is not None and names(name)
                and not blocked(path)):
            seen = distinct.setdefault(place, [])
            if node not in seen:
                seen.append(node)
    mappings = {place: labels(seen) for place, seen in distinct.items()}

    def edit(path: Path, node: Any) -> Any:
        place = _place(path)
        if isinstance(node, str) and place in mappings and not blocked(path):
            return mappings[place].get(node, node)
        return node
    return _rebuild(value, edit)


def _is_id(name: str) -> bool:
    return bool(_ID_NAME.search(name))


def _first_id_is(value: Any, blocked: Blocked, label: str) -> Any:
    """The first id of every id member (``id``, ``toolCallId``, ``agent`` …) named ``label``."""
    return _relabel_strings(value, blocked, _is_id,
                            lambda seen: {seen[0]: label} if label not in seen else {})


def _last_id_repeats_first(value: Any, blocked: Blocked, _: Any) -> Any:
    """The last distinct id of every id member made equal to its first: an id reused later."""
    return _relabel_strings(value, blocked, _is_id,
                            lambda seen: {seen[-1]: seen[0]} if len(seen) > 1 else {})


def _ids_as_indexes(value: Any, blocked: Blocked, _: Any) -> Any:
    """The distinct ids of every id member renamed to array-index names in descending order
    (``"9"``, ``"8"`` …): a plain JavaScript object iterates them backwards."""
    return _relabel_strings(value, blocked, _is_id, lambda seen: {
        old: str(len(seen) - index) for index, old in enumerate(seen)})


def _ids_by_case(value: Any, blocked: Blocked, _: Any) -> Any:
    """The distinct ids of every id member renamed to names differing only by case."""
    def labels(seen: list[str]) -> dict[str, str]:
        forms = [format(index, "b").replace("0", "a").replace("1", "A") for index in
                 range(2, 2 + len(seen))]
        return {old: "id" + form for old, form in zip(seen, forms, strict=True)}
    return _relabel_strings(value, blocked, _is_id, labels)


def _naming_is(value: Any, blocked: Blocked, label: str) -> Any:
    """The first value of every naming member (``type``, ``role`` …) named ``label``."""
    return _relabel_strings(value, blocked, lambda name: name in _NAMING_MEMBERS,
                            lambda seen: {seen[0]: label} if label not in seen else {})


def _naming_as(value: Any, blocked: Blocked, form: str, types: bool) -> Any:
    """The first value of every ``type`` member (``types``), or of every other naming member
    (``kind``, ``role`` …), in ``form`` (a text form of :data:`_TEXT_FORMS`): a look-alike of a
    known name, which is another name. Types and the rest are planted apart, since an event
    whose type is no longer known hides what its kind would have shown."""
    change = _TEXT_FORMS[form][1]
    return _relabel_strings(value, blocked,
                            lambda name: name in _NAMING_MEMBERS and (name == "type") == types,
                            lambda seen: {seen[0]: change(seen[0])}
                            if change(seen[0]) not in seen else {})


def _naming_case(value: Any, blocked: Blocked, _: Any) -> Any:
    """Every value of every naming member with its first letter in upper case (``Assistant``)."""
    return _relabel_strings(value, blocked, lambda name: name in _NAMING_MEMBERS,
                            lambda seen: {old: old[:1].upper() + old[1:] for old in seen})


def _integers_at(value: Any, blocked: Blocked, target: int) -> Any:
    """The integers of every member (and of its arrays) moved together onto ``target``: the
    smallest becomes ``target`` (the largest, for a negative one), and differences and order
    stay."""
    groups: dict[tuple[str | None, ...], list[int]] = {}
    for path, node in _nodes(value):
        place = _place(path)
        if _is_int(node) and place is not None and not blocked(path):
            groups.setdefault(place, []).append(node)
    shifts = {place: target - (min(found) if target >= 0 else max(found))
              for place, found in groups.items()}

    def edit(path: Path, node: Any) -> Any:
        place = _place(path)
        if _is_int(node) and place in shifts and not blocked(path):
            return node + shifts[place]
        return node
    return _rebuild(value, edit)


def _integers_alias(value: Any, blocked: Blocked, width: int) -> Any:
    """The first distinct integer of every member that has two made another of its integers
    plus ``width``: the two are one number once wrapped at that width."""
    groups: dict[tuple[str | None, ...], list[int]] = {}
    for path, node in _nodes(value):
        place = _place(path)
        if _is_int(node) and place is not None and not blocked(path):
            found = groups.setdefault(place, [])
            if node not in found:
                found.append(node)
    aliases = {place: (found[0], found[1] + width) for place, found in groups.items()
               if len(found) > 1 and found[1] + width not in found}

    def edit(path: Path, node: Any) -> Any:
        place = _place(path)
        if (_is_int(node) and place in aliases and node == aliases[place][0]
                and not blocked(path)):
            return aliases[place][1]
        return node
    return _rebuild(value, edit)


def _integers_wrapping(value: Any, blocked: Blocked, width: int) -> Any:
    """In every member holding integers, the last occurrence of its first integer made itself
    plus ``width``: another number, which a port holding ``width`` bits reads as the one the
    other occurrences hold (a turn ended under the number it started with, once wrapped)."""
    first: dict[tuple[str | None, ...], int] = {}
    last: dict[tuple[str | None, ...], Path] = {}
    for path, node in _nodes(value):
        place = _place(path)
        if _is_int(node) and place is not None and not blocked(path):
            first.setdefault(place, node)
            if node == first[place]:
                last[place] = path
    chosen = set(last.values())

    def edit(path: Path, node: Any) -> Any:
        return node + width if path in chosen and _is_int(node) else node
    return _rebuild(value, edit)


#: The forms a text trap gives every text: its description, and the function.
_TEXT_FORMS: dict[str, tuple[str, Callable[[str], str]]] = {
    "nfd": ("a decomposed character (`e` U+0301) after it, which NFC composes",
            lambda text: text + "e\u0301"),
    "nfc": ("a composed character (U+00E9) after it, which NFD decomposes",
            lambda text: text + "\u00e9"),
    "padded": ("white space on both ends, which a trim removes", lambda text: f"  {text} \n"),
    "blank": ("white space only in its place", lambda text: " \t\n"),
    "combining": ("a combining mark (U+0301) first, with nothing to combine with",
                  lambda text: "\u0301" + text),
    "case": ("letters whose case mapping changes their length (`İ`, `ß`, `ǅ`) after it",
             lambda text: text + "İßǅ"),
    "astral": ("an astral character (U+1F600, two UTF-16 units) after it",
               lambda text: text + "\U0001f600"),
    "nul": ("a NUL (U+0000) in its middle, where a C string ends",
            lambda text: text[:1] + "\u0000" + text[1:]),
    "bom": ("a byte order mark (U+FEFF) first, which some decoders strip",
            lambda text: "\ufeff" + text),
    "crlf": ("CR LF line ends, which some readers turn into LF", lambda text: text + "\r\n.\r"),
    "fullwidth": ("its letters in fullwidth forms (`ｍ` U+FF4D), which NFKC folds to ASCII",
                  lambda text: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c
                                       for c in text) or "\uff58"),
}


#: The forms the ``unusual-text`` trap gives a text at once: each one a port may lose alone.
_UNUSUAL = ("bom", "combining", "nfd", "nfc", "case", "astral", "nul", "crlf")
_TEXT_FORMS["unusual"] = (
    "a byte order mark and a lone combining mark first, then a decomposed `e` U+0301, a "
    "composed U+00E9, `İßǅ`, an astral character, a NUL inside and CR LF line ends",
    lambda text: _unusual(text))


def _unusual(text: str) -> str:
    for form in _UNUSUAL:
        text = _TEXT_FORMS[form][1](text or "x")
    return text


def _texts_as(value: Any, blocked: Blocked, form: str) -> Any:
    """Every text (a string under a text member, :data:`TEXT_MEMBERS`) in ``form``."""
    change = _TEXT_FORMS[form][1]

    def edit(path: Path, node: Any) -> Any:
        if (isinstance(node, str) and path and isinstance(path[-1], str)
                and path[-1] in TEXT_MEMBERS and not blocked(path)):
            return change(node)
        return node
    return _rebuild(value, edit)


def _texts_long(value: Any, blocked: Blocked, size: tuple[int, str]) -> Any:
    """Every text (or the last), built by repetition to ``size[0]`` characters."""
    length, which = size
    texts = [path for path, node in _nodes(value) if isinstance(node, str) and path
             and isinstance(path[-1], str) and path[-1] in TEXT_MEMBERS and not blocked(path)]
    chosen = set(texts if which == "every" else texts[-1:])

    def edit(path: Path, node: Any) -> Any:
        if path in chosen:
            seed = node or "x"
            return (seed * (length // len(seed) + 1))[:length]
        return node
    return _rebuild(value, edit)


def _items_long(value: Any, blocked: Blocked, size: tuple[int, str]) -> Any:
    """Every array of objects under a member of the input itself (``events``, ``pushes``,
    ``records``, ``updates``) lengthened to ``size[0]`` items with copies of its first item
    before its items, or of its last item after them (a timeline stays in time order; an
    input a plant makes erroneous is not planted, :func:`trap_inputs`)."""
    length, where = size

    def edit(path: Path, node: Any) -> Any:
        if (len(path) == 1 and isinstance(node, list) and node and isinstance(node[0], dict)
                and len(node) < length and not blocked(path)):
            if where == "before":
                return [node[0]] * (length - len(node)) + node
            return node + [node[-1]] * (length - len(node))
        return node
    return _rebuild(value, edit)


def _nested_items_long(value: Any, blocked: Blocked, length: int) -> Any:
    """Every array of objects below the input's own members (a message's blocks, a result's
    messages) lengthened to ``length`` items with copies of its last item."""
    def edit(path: Path, node: Any) -> Any:
        if (len(path) > 1 and isinstance(node, list) and node and isinstance(node[-1], dict)
                and len(node) < length and not blocked(path)):
            return node + [node[-1]] * (length - len(node))
        return node
    return _rebuild(value, edit)


#: Doubles whose shortest writing needs 17 significant digits, the edges of the double range,
#: and the integral doubles where JavaScript's writing turns to exponent notation.
_DOUBLES = [0.30000000000000004, 2.0000000000000004, 1.7976931348623157e308, 5e-324, 1e21,
            1e-7, 123456789012345680000.0, 9007199254740993.0]


def _repeat_first(value: Any, blocked: Blocked, _: Any) -> Any:
    """In each top-level array, a copy of the first of two items holding an id in one place (two
    messages, two records) after its last item: an id, and an event, used again later."""
    def edit(path: Path, node: Any) -> Any:
        if len(path) != 1 or not isinstance(node, list) or blocked(path):
            return node
        holders: dict[tuple[str | None, ...], list[int]] = {}
        for index, item in enumerate(node):
            for inner, leaf in _nodes(item, (*path, index)):
                name, place = _member_name(inner), _place(inner)
                if isinstance(leaf, str) and name is not None and _is_id(name) and place:
                    found = holders.setdefault(place, [])
                    if index not in found:
                        found.append(index)
        repeated = [found for found in holders.values() if len(found) > 1]
        if not repeated:
            return node
        return [*node, node[min(found[0] for found in repeated)]]
    return _rebuild(value, edit)


def _ended_otherwise(value: Any, blocked: Blocked, suffix: str) -> Any:
    """Every text a block-end's ``block`` carries, with ``suffix`` its deltas never sent."""
    def edit(path: Path, node: Any) -> Any:
        if (isinstance(node, str) and len(path) > 1 and path[-1] == "text"
                and "block" in path[:-1] and not blocked(path)):
            return node + suffix
        return node
    return _rebuild(value, edit)


def _nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


#: Every way of planting: a description of the input (``{value}``: the planted value as JSON,
#: ``{text}``: a text form's description) and the function ``(input, blocked, value) -> input``.
PLANTS: dict[str, tuple[str, Callable[[Any, Blocked, Any], Any]]] = {
    "members": ("members named {names} on every open object",
                lambda value, blocked, names: _add_members(value, blocked, names)),
    "deep-member": ("a member holding arrays nested {value} deep on every open object",
                    lambda value, blocked, depth: _add_member(value, blocked, "x-nested",
                                                              _nested(depth))),
    "case-twin": ("beside every string and integer member, its name in upper case with another "
                  "value, after it", _case_twins),
    "id": ("the first id of every id member (`id`, `toolCallId`, `agent`, `name` …) is {value}",
           _first_id_is),
    "repeated-id": ("the last distinct id of every id member is its first again (an id reused "
                    "later)", _last_id_repeats_first),
    "repeat-first": ("in each top-level array, a copy of the first of two items holding an id "
                     "(a message, a record) after its last", _repeat_first),
    "index-ids": ("the ids of every id member are array-index names in descending order "
                  "(`\"3\"`, `\"2\"`, `\"1\"`)", _ids_as_indexes),
    "case-ids": ("the ids of every id member differ only by case (`idAa`, `idAA` …)",
                 _ids_by_case),
    "naming": ("the first value of every naming member (`type`, `role`, `kind`, `status` …) "
               "is {value}", _naming_is),
    "naming-case": ("every value of every naming member starts in upper case (`Assistant`)",
                    _naming_case),
    "integer": ("the integers held in one place (`events[*].data.turn`, its arrays) moved together "
                "so the smallest is {value} (the largest, when negative)", _integers_at),
    "alias": ("the first of two distinct integers held in one place is the second plus "
              "{value} (one number once wrapped)", _integers_alias),
    "wrap": ("in every member holding integers, the last occurrence of its first integer is "
             "itself plus {value} (one number for a port that wraps)", _integers_wrapping),
    "text": ("every text with {text}", _texts_as),
    "type-form": ("the first value of every `type` member with {text}",
                  lambda value, blocked, form: _naming_as(value, blocked, form, True)),
    "naming-form": ("the first value of every other naming member (`kind`, `role`, `status` …) "
                    "with {text}", lambda value, blocked, form: _naming_as(value, blocked, form,
                                                                           False)),
    "doubles": ("a member holding doubles that need 17 significant digits "
                "(`0.30000000000000004`), the largest and smallest doubles, `1e21` and `1e-7` on "
                "every open object", lambda value, blocked, _: _add_member(
                    value, blocked, "x-doubles", list(_DOUBLES))),
    "nested-items": ("every array of objects inside a member (a message's blocks) lengthened "
                     "to {length} items with copies of its last", lambda value, blocked, length:
                     _nested_items_long(value, blocked, length)),
    "block-end": ("every text a block-end carries ends with {value}, which its deltas never "
                  "sent", _ended_otherwise),
    "long-texts": ("{which} text built by repetition to {length} characters", _texts_long),
    "many-items": ("each top-level array of objects lengthened to {length} items with copies "
                   "of its first, {which} its own", _items_long),
}

def _wrapped(value: Any, width: int) -> Any:
    """``value`` as a port holding ``width`` bits reads it: every integer of ``width`` or more
    taken modulo ``width``."""
    def edit(path: Path, node: Any) -> Any:
        return node % width if _is_int(node) and node >= width else node
    return _rebuild(value, edit)


#: How a port that falls into a trap reads an input it was planted in, for the plants whose
#: input the reference may answer as before (two integers that are one once wrapped): such a
#: trap shows where this reading's answer differs (``tools/trap_build.py``), and is planted even
#: where the reference's own answer stays.
MISREADS: dict[str, Callable[[Any, Any], Any]] = {"alias": _wrapped, "wrap": _wrapped}

#: The traps, one line each: name, ports, what such a port does, and the input that exposes it.
TRAPS: tuple[Trap, ...] = (
    Trap("prototype-members", "JavaScript, TypeScript",
         "a copy made with `{}` or `Object.assign` turns `__proto__` into a prototype (the "
         "member vanishes); `key in object` finds `constructor` and `toString`; an object "
         "writes array-index names first, and the largest (2^32 - 2) or the first that is not "
         "one (2^32 - 1) goes wrong", Plant("members", ("__proto__", "constructor", "toString",
                                                       "0", "4294967295"))),
    Trap("deep-nesting", "Rust, C#, Java",
         "a parser's nesting limit (128 in serde_json, 64 in System.Text.Json) refuses the "
         "request", Plant("deep-member", 200)),
    Trap("case-insensitive-members", "Go, C#",
         "`encoding/json` (and case-insensitive options elsewhere) matches member names without "
         "case: the last of `text` / `TEXT` wins", Plant("case-twin")),
    Trap("proto-id", "JavaScript, TypeScript",
         "a plain object keyed by id: an id `__proto__` is never stored", Plant("id",
                                                                              "__proto__")),
    Trap("constructor-id", "JavaScript, TypeScript",
         "a plain object keyed by id finds `constructor` before it is stored",
         Plant("id", "constructor")),
    Trap("hasownproperty-id", "JavaScript, TypeScript",
         "a plain object keyed by id: `hasOwnProperty` shadows the method the port calls",
         Plant("id", "hasOwnProperty")),
    Trap("repeated-id", "every language",
         "a map keyed by id keeps an id at its first place (insertion order), or the first of "
         "two equal ids", Plant("repeated-id")),
    Trap("repeated-item", "every language",
         "a map keyed by id (or by the whole event) keeps a repeated one at its first place, "
         "or drops it", Plant("repeat-first")),
    Trap("index-ids", "JavaScript, TypeScript",
         "a plain object keyed by id iterates array-index names in numeric order, not "
         "insertion order", Plant("index-ids")),
    Trap("case-ids", "C#, Go, every language",
         "ids compared or keyed without case (`OrdinalIgnoreCase`, `strings.EqualFold`)",
         Plant("case-ids")),
    Trap("constructor-type", "JavaScript, TypeScript",
         "a table of known types in a plain object finds `constructor` as a known type",
         Plant("naming", "constructor")),
    Trap("tostring-type", "JavaScript, TypeScript",
         "a table of known types in a plain object finds `toString`", Plant("naming",
                                                                            "toString")),
    Trap("proto-type", "JavaScript, TypeScript",
         "a table of known types in a plain object finds `__proto__`", Plant("naming",
                                                                             "__proto__")),
    Trap("naming-case", "every language",
         "a type, role, kind or status compared without case", Plant("naming-case")),
    Trap("zero", "JavaScript, TypeScript, Go",
         "0 read as absent (`if (x)`, `x || default`, Go's zero value)", Plant("integer", 0)),
    Trap("int32-over", "Java, C#, Go, JavaScript (`x | 0`)",
         "a number held in 32 bits wraps negative at 2^31", Plant("integer", 2**31)),
    Trap("uint32-over", "C#, Go, Rust",
         "a number held in 32 unsigned bits wraps to 0 at 2^32", Plant("integer", 2**32)),
    Trap("int32-min", "Java, C#, Go",
         "a negative number held in 32 bits wraps below -2^31", Plant("integer", -(2**31) - 1)),
    Trap("safe-max", "JavaScript, every double reader",
         "2^53 - 1, the largest integer every double holds with its neighbours",
         Plant("integer", 2**53 - 1)),
    Trap("safe-over", "JavaScript, every double reader",
         "2^53, a double exactly, whose next integer is not", Plant("integer", 2**53)),
    Trap("unsafe", "JavaScript, every double reader",
         "2^53 + 1 read as a double is 2^53: two integers merge", Plant("integer", 2**53 + 1)),
    Trap("unsafe-negative", "JavaScript, every double reader",
         "-2^53 - 1 read as a double is -2^53", Plant("integer", -(2**53) - 1)),
    Trap("int64-over", "Java, C#, Go, Rust",
         "a number held in 64 bits wraps or is refused at 2^63 (a double holds it exactly)",
         Plant("integer", 2**63)),
    Trap("int64-min", "Java, C#, Go, Rust",
         "a negative number held in 64 bits: -2^63 - 1 does not fit", Plant("integer",
                                                                           -(2**63) - 1)),
    Trap("uint64-over", "Go, Rust",
         "a number held in 64 unsigned bits overflows at 2^64 (a double holds it exactly)",
         Plant("integer", 2**64)),
    Trap("uint32-alias", "Java, C#, Go, Rust, JavaScript (`x | 0`, `x >>> 0`)",
         "two numbers 2^32 apart held in 32 bits are one", Plant("alias", 2**32)),
    Trap("uint64-alias", "Java, C#, Go, Rust",
         "two numbers 2^64 apart held in 64 bits are one", Plant("alias", 2**64)),
    Trap("padded-type", "every language",
         "an event or block type trimmed before it is compared (`message_update ` taken for a "
         "frame)", Plant("type-form", "padded")),
    Trap("padded-naming", "every language",
         "a kind, role or status trimmed before it is compared (`completed ` taken for "
         "`completed`)", Plant("naming-form", "padded")),
    Trap("compatibility-type", "C#, Java, Swift, every language normalizing to NFKC",
         "an event or block type normalized (NFKC) or matched as a look-alike before it is "
         "compared", Plant("type-form", "fullwidth")),
    Trap("compatibility-naming", "C#, Java, Swift, every language normalizing to NFKC",
         "a kind, role or status normalized (NFKC) or matched as a look-alike before it is "
         "compared", Plant("naming-form", "fullwidth")),
    Trap("double-digits", "C#, Java, C, Go (`%g`, `G15`, `float32`)",
         "a double written with fewer than 17 significant digits, in another notation, or held "
         "in 32 bits", Plant("doubles")),
    Trap("uint32-wrap", "Java, C#, Go, Rust, JavaScript (`x | 0`, `x >>> 0`)",
         "a number held in 32 bits: 2^32 + 1 is 1, the number another event holds",
         Plant("wrap", 2**32)),
    Trap("uint64-wrap", "Java, C#, Go, Rust",
         "a number held in 64 bits: 2^64 + 1 is 1, the number another event holds",
         Plant("wrap", 2**64)),
    Trap("padded-text", "every language", "text trimmed (`trim()`, `strings.TrimSpace`)",
         Plant("text", "padded")),
    Trap("blank-text", "every language",
         "white-space-only text taken for no text (`isBlank`, `IsNullOrWhiteSpace`)",
         Plant("text", "blank")),
    Trap("unusual-text", "every language",
         "text normalized (NFC or NFD), folded to one case, cut at U+0000, stripped of a "
         "leading U+FEFF, its line ends or a combining mark with nothing before it, or counted "
         "in UTF-16 units", Plant("text", "unusual")),
    Trap("block-end-disagrees", "every language",
         "the text of a block-end taken for the streamed deltas' (or the other way round)",
         Plant("block-end", " (as ended)")),
)


#: Inputs past the fixed sizes ports give their buffers (items and characters): every run asks
#: each operation each of them, built, never shrunk. (The spec's own bounds, ``maxBytes`` and
#: the budget floors, have families of their own in each profile.)
SIZES: tuple[Trap, ...] = (
    Trap("texts-past-4096", "C, Go, Rust, every language with a fixed buffer",
         "text cut at 1,024 or 4,096 characters (a page)", Plant("long-texts", (4097, "every"))),
    Trap("text-past-65536", "Go (`bufio.Scanner`), Java, C#, every language",
         "text, or the request line, cut at 65,536 characters (64 KiB)",
         Plant("long-texts", (65537, "last"))),
    Trap("items-past-1024-before", "every language with a ring buffer",
         "only the first 1,024 events, records or updates kept", Plant("many-items",
                                                                     (1025, "before"))),
    Trap("nested-items-past-256", "C, Go, Rust, every language with a fixed array",
         "only the first 16, 64 or 256 blocks of a message (or items of another inner list) "
         "kept", Plant("nested-items", 257)),
    Trap("items-past-1024-after", "every language with a ring buffer",
         "only the last 1,024 events, records or updates kept", Plant("many-items",
                                                                    (1025, "after"))),
)


def checklist_table(traps: tuple[Trap, ...] | None = None) -> str:
    """The checklist's table of ``traps`` (:data:`TRAPS`, or :data:`SIZES`), as
    docs/port-checklist.md holds it."""
    lines = ["| trap | ports | what the port does | the input every run plants |",
             "|---|---|---|---|"]
    for trap in TRAPS if traps is None else traps:
        lines.append(f"| `{trap.name}` | {trap.ports} | {trap.mistake} | "
                     f"{trap.plant.describe()} |")
    return "\n".join(lines) + "\n"


# -- the families --------------------------------------------------------------------------------

#: Inputs of each operation a trap is planted in (the richest vectors, in rotation).
BASES_PER_TRAP = 1

#: A recipe: the trap's name, the vector whose input it is planted in, and where the schema
#: refused it: paths where it is not planted, and paths under which nothing is.
Recipe = tuple[str, str, tuple[Path, ...], tuple[Path, ...]]


@cache
def _vectors() -> dict[str, tuple[str, Any]]:
    """The shipped vectors every implementation is sent whole, by id: ``(op, input)``; not those
    pinned to a fit strategy, holding a lone surrogate or a ``maxBytes`` other than the default
    (an implementation may not be sent those)."""
    from ._json import holds_lone_surrogate

    strictest = Capabilities(variable_max_bytes=False)
    return {vector: (op, op_input) for vector, op, op_input, pinned in shipped()
            if pinned is None and not holds_lone_surrogate(op_input)
            and unsendable_reason(op, op_input, pinned, strictest) is None}


@cache
def _shipped(op: str, capabilities: Capabilities) -> tuple[Any, ...]:
    """The inputs of ``op``'s shipped vectors an implementation of ``capabilities`` may be sent
    (:func:`._vector_files.unsendable_reason`: those of its fit strategy or of none, of another
    ``maxBytes`` only when it takes any)."""
    every_op = replace(capabilities, ops=frozenset({op}))
    return tuple(op_input for _, of, op_input, pinned in shipped()
                 if of == op and unsendable_reason(of, op_input, pinned, every_op) is None)


def _blocker(exact: tuple[Path, ...], under: tuple[Path, ...]) -> Blocked:
    exact_set = set(exact)

    def blocked(path: Path) -> bool:
        return path in exact_set or any(path[:len(where)] == where for where in under)
    return blocked


def plant(trap: Trap, op_input: Any, exact: tuple[Path, ...] = (),
          under: tuple[Path, ...] = ()) -> Any:
    """``op_input`` with ``trap`` planted, except at the paths ``exact`` and under ``under``."""
    return PLANTS[trap.plant.how][1](op_input, _blocker(exact, under), trap.plant.value)


def _refusals(error: Any) -> tuple[list[Path], list[Path]]:
    """Where a schema error refuses a plant: the members an object may not hold (exactly), or
    else the whole value at the error's path."""
    closed: list[Any] = []

    def collect(found: Any) -> None:
        if found.validator in ("additionalProperties", "unevaluatedProperties"):
            closed.append(found)
        for inner in found.context or ():
            collect(inner)

    collect(error)
    if closed:
        return ([(*found.absolute_path, key) for found in closed
                 if isinstance(found.instance, dict) for key in found.instance], [])
    return [], [tuple(error.absolute_path)]


def _stand_in(trap: Trap, op_input: Any) -> Trap:
    """The trap validated in ``trap``'s place: itself, or for long arrays the same arrays two
    copies longer (the copies are of an item the schema took; only counts can differ)."""
    if trap.plant.how == "nested-items":
        longest = max((len(node) for path, node in _nodes(op_input)
                       if len(path) > 1 and isinstance(node, list)), default=0)
        return Trap(trap.name, trap.ports, trap.mistake,
                    Plant(trap.plant.how, min(trap.plant.value, longest + 2)))
    if trap.plant.how != "many-items" or not isinstance(op_input, dict):
        return trap
    longest = max((len(item) for item in op_input.values() if isinstance(item, list)),
                  default=0)
    length, where = trap.plant.value
    return Trap(trap.name, trap.ports, trap.mistake,
                Plant(trap.plant.how, (min(length, longest + 2), where)))


def _recipe(trap: Trap, vector: str, op_input: Any, schema: str) -> Recipe | None:
    """How ``trap`` is planted in ``op_input`` so it stays valid against ``schema``; None when
    nothing of it is left."""
    from ._schemas import validator_for

    validator = validator_for(schema + "#/$defs/input")
    exact: list[Path] = []
    under: list[Path] = []
    checked = _stand_in(trap, op_input)
    for _ in range(8):
        planted = plant(trap, op_input, tuple(exact), tuple(under))
        if planted == op_input:
            return None
        errors = list(validator.iter_errors(plant(checked, op_input, tuple(exact),
                                                  tuple(under))))
        if not errors:
            return trap.name, vector, tuple(exact), tuple(under)
        for error in errors:
            more_exact, more_under = _refusals(error)
            exact += more_exact
            under += more_under
    return None


@cache
def trap_inputs(op: str, traps: str = "TRAPS") -> tuple[tuple[str, Any], ...]:
    """Every trap of :data:`TRAPS` (or of :data:`SIZES`, when ``traps`` says so) planted in
    ``op``'s inputs as the plan says: ``(trap name, input)`` pairs, in the list's order."""
    from ._trap_plan import PLAN

    by_name = {trap.name: trap for trap in (TRAPS if traps == "TRAPS" else SIZES)}
    vectors = _vectors()
    planted = ((name, vectors[vector][1], plant(by_name[name], vectors[vector][1], exact, under))
               for name, vector, exact, under in PLAN.get(op, ())
               if name in by_name and vector in vectors)
    # A plant must not turn an input the spec accepts into one it refuses (a timeline lengthened
    # past its one return): that input would judge the refusal, not the trap.
    return tuple((name, op_input) for name, original, op_input in planted
                 if _accepted(op, op_input) or not _accepted(op, original))


def _accepted(op: str, op_input: Any) -> bool:
    """Whether the reference answers ``op_input`` rather than refusing it as erroneous."""
    from eventproof.reference import InvalidInput, Reference

    try:
        Reference().run(op, op_input)
    except InvalidInput:
        return False
    return True


def trap_families(op: str, capabilities: Capabilities | None) -> tuple[Family, ...]:
    """The ``shipped-vectors``, ``language-traps`` and ``past-fixed-sizes`` families of ``op``:
    every shipped vector input of ``op`` as it is (each pins a rule with a fact a drawn search
    may miss on some seed: deltas joined in log order whatever their index, a message of empty
    texts counting as non-empty), then every input of :func:`trap_inputs`, each asked once on
    every run (a fixed share, never shrunk)."""
    from hypothesis import strategies as st

    # The engine sends each input as the implementation declared it reads it; a program whose
    # bound is fixed is never sent another maxBytes (spec/protocol.md §4.2).
    fixed = capabilities is not None and not capabilities.variable_max_bytes
    families = []
    shipped = _shipped(op, capabilities or Capabilities())
    planted = {kind: tuple(found for _, found in trap_inputs(op, kind))
               for kind in ("TRAPS", "SIZES")}
    for name, built in (("shipped-vectors", shipped), ("language-traps", planted["TRAPS"]),
                        ("past-fixed-sizes", planted["SIZES"])):
        inputs = tuple(op_input for op_input in built
                       if not (fixed and isinstance(op_input, dict) and op_input.get(
                           "maxBytes", DEFAULT_MAX_BYTES) != DEFAULT_MAX_BYTES))
        if inputs:
            families.append(Family(name, 1, st.sampled_from(inputs), examples=len(inputs)))
    return tuple(families)
