"""The one error the reference raises for erroneous input (selection.md §6, wire.md §7)."""

from __future__ import annotations

from typing import Any


class InvalidInput(ValueError):
    """An input breaks the spec: what the value was, where it sat, why it matters, and the fix."""

    def __init__(self, *, value: Any, path: str, reason: str, fix: str) -> None:
        #: The offending value, as received.
        self.value = value
        #: Where it sat, as a JSONPath-like location (``$.events[3].data.message``).
        self.path = path
        #: Why the spec refuses it, citing the section.
        self.reason = reason
        #: What to send instead.
        self.fix = fix
        super().__init__(str(self))

    def __str__(self) -> str:
        shown = repr(self.value)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        return f"{self.path}: {shown} {self.reason}. {self.fix}"

    def __reduce__(self) -> tuple[Any, ...]:  # keep pickling (multiprocessing) working
        return (_rebuild, (self.value, self.path, self.reason, self.fix))


def _rebuild(value: Any, path: str, reason: str, fix: str) -> InvalidInput:
    return InvalidInput(value=value, path=path, reason=reason, fix=fix)
