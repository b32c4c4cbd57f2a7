"""The budget profile's strategies: heavy fields whose cost sits a few bytes from their floor or
allowance while holding every character whose cost a port may measure otherwise (budget.md §1:
the cost is the wire measure, wire.md §6.5).

A port that measures U+2028 as its six-byte escape, a control character as ``\\u00xx`` where
the short form costs two, ``/`` as ``\\/``, a lone surrogate as its escape rather than U+FFFD,
or UTF-16 units for bytes, cuts a field of cost ``allowance + k``, k in -3..3, where the reference
keeps it whole, or keeps whole one the reference cuts: a MUST answer (``details.rejected``,
``details.cut``, ``details.agrees``, ``roster.prefix``) and not a byte form alone. The
characters sit in the part a cut keeps and in the part it drops.
"""

from __future__ import annotations

from eventproof.reference import (
    DEFAULT_DIAGNOSTIC_FLOOR_BYTES,
    DEFAULT_OUTPUT_FLOOR_BYTES,
    DEFAULT_TASK_FLOOR_BYTES,
    canonical_bytes,
)
from eventproof.reference._budget import cost

from .values import OpInput, Record

#: Characters whose cost (wire.md §6.5) a port may measure otherwise, each after an ``x`` (no
#: two surrogates meet): raw U+2028 and U+2029 (3 bytes), a six-byte control, the two-byte
#: short escapes, ``"`` and ``\\``, ``/`` (1), a lone surrogate (U+FFFD, 3), an astral character
#: (4 bytes, 2 UTF-16 units), a two- and a three-byte one. 41 bytes in all: under every floor.
BYTE_FORM_TEXT = "".join("x" + char for char in (
    "\u2028", "\u2029", "\x00", "\n", "\t", '"', "\\", "/", "\ud800", "\U0001f600", "\u00e9",
    "\u20ac"))
#: Where the characters sit: in the part of a cut field that is kept, or in the part cut off.
PLACES = ("kept", "cut")
OFFSETS = tuple(range(-3, 4))
#: The shared budget of the inputs whose allowance is a floor plus a share.
SHARE = 100


def costing(total: int, side: str, place: str) -> str:
    """A text of cost ``total`` holding :data:`BYTE_FORM_TEXT` at the end a ``side`` cut keeps
    (``place`` "kept": the start of a head, the end of a tail) or at the other one."""
    padding = "x" * (total - cost(BYTE_FORM_TEXT))
    at_start = (side == "head") == (place == "kept")
    return BYTE_FORM_TEXT + padding if at_start else padding + BYTE_FORM_TEXT


def _record(i: int, status: str, **fields: str) -> Record:
    return {"id": f"call_{i}", "agent": "worker", "status": status, **fields}


def byte_form_details(place: str, offset: int) -> tuple[OpInput, OpInput]:
    """Two ``details`` inputs: with no shared budget, each field of cost its floor plus
    ``offset`` (``task``, ``output``, ``errorMessage``, and ``stderr`` of a failure with no
    message); and one record whose output costs the floor plus the share plus ``offset``."""
    task, output, diagnostic = (DEFAULT_TASK_FLOOR_BYTES, DEFAULT_OUTPUT_FLOOR_BYTES,
                                DEFAULT_DIAGNOSTIC_FLOOR_BYTES)
    at_floors = [
        _record(0, "completed", task=costing(task + offset, "head", place),
                output=costing(output + offset, "tail", place)),
        _record(1, "failed", task="t", errorMessage=costing(diagnostic + offset, "head", place),
                output="o"),
        _record(2, "failed", task="t", stderr=costing(diagnostic + offset, "tail", place)),
    ]
    shared = [_record(0, "completed", task="t",
                      output=costing(output + SHARE + offset, "tail", place))]
    floors = {"taskFloorBytes": task, "outputFloorBytes": output,
              "diagnosticFloorBytes": diagnostic}
    return ({"records": at_floors, "sharedBytes": 0, **floors},
            {"records": shared, "sharedBytes": SHARE, **floors})


def byte_form_details_inputs() -> tuple[OpInput, ...]:
    """Every place and offset of :func:`byte_form_details`."""
    return tuple(op_input for place in PLACES for offset in OFFSETS
                 for op_input in byte_form_details(place, offset))


def byte_form_rosters() -> tuple[OpInput, ...]:
    """``roster`` inputs whose first live records, each holding the characters in a task and an
    output within the live cuts, serialize to ``maxBytes + k`` bytes for k in -3..3: the
    longest prefix that fits is decided by the characters' cost."""
    records = [_record(i, "running", task=BYTE_FORM_TEXT, output=BYTE_FORM_TEXT)
               for i in range(3)]
    two = len(canonical_bytes(records[:2]))
    return tuple({"records": records, "maxBytes": two - offset} for offset in OFFSETS)
