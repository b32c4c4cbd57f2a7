"""Deliberately wrong implementations: each answers like the reference except for one bug."""

from __future__ import annotations

from typing import Any, ClassVar

from eventproof.reference import Reference

#: Seconds one request of a miniature may take before the harness calls it hung.
REQUEST_TIMEOUT = 2.0
#: The same for a miniature whose bug is a hang (``bound.converges``): it burns a core until the
#: deadline, so it gets a shorter one.
HANG_TIMEOUT = 1.0


def timeout_for(rule: str) -> float:
    """The request timeout to check a miniature of ``rule`` with."""
    return HANG_TIMEOUT if rule == "bound.converges" else REQUEST_TIMEOUT


class Miniature:
    """The reference under another name; a subclass plants one bug in one operation by defining
    a method named after it (``select``, ``project``, ...)."""

    #: The implementation name the handshake reports.
    name: ClassVar[str] = "miniature"
    #: The fit strategy the handshake declares.
    declared_strategy: ClassVar[str] = "halving"

    def __init__(self) -> None:
        self.reference = Reference(self.declared_strategy)

    def start(self) -> dict[str, Any]:
        handshake = self.reference.start()
        handshake["implementation"] = {**handshake["implementation"], "name": self.name}
        return handshake

    def run(self, op: str, input: Any) -> Any:
        planted = getattr(self, op, None)
        if planted is not None:
            return planted(input)
        return self.reference.run(op, input)
