"""Every error the harness reports to a user, in one place: frozen classes with fields, whose
``str()`` says what is wrong, where, why it matters and how to fix it.

They are exported from ``eventproof.conformance``. None of them is raised for anything an
implementation under test does: that is a verdict, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

__all__ = [
    "EventproofError",
    "ExpectationsError",
    "HarnessError",
    "ImplementationError",
    "ProtocolError",
    "ReplayError",
    "VectorBuildError",
    "frozen_exception",
]

_E = TypeVar("_E", bound=BaseException)
#: What Python itself assigns on a raised exception (``raise ... from``, ``contextlib``,
#: ``add_note``); a frozen dataclass would refuse these and turn a clear error into a confusing one.
_EXCEPTION_STATE = frozenset(
    {"__traceback__", "__cause__", "__context__", "__suppress_context__", "__notes__"}
)


def frozen_exception(cls: type[_E]) -> type[_E]:
    """Finish a ``@dataclass(frozen=True)`` exception: traceback state stays assignable, and it
    pickles.

    Apply it outside ``@dataclass``. The fields stay frozen; only the members Python's own
    machinery writes on every raised exception are let through.
    """
    frozen_setattr = cls.__setattr__

    def __setattr__(self: _E, name: str, value: Any) -> None:
        if name in _EXCEPTION_STATE:
            BaseException.__setattr__(self, name, value)
        else:
            frozen_setattr(self, name, value)

    def __reduce__(self: _E) -> tuple[Any, ...]:
        # BaseException pickles its ``args``, which a dataclass leaves empty.
        return (type(self), tuple(getattr(self, each.name) for each in fields(self)))  # type: ignore[arg-type]

    setattr(cls, "__setattr__", __setattr__)  # noqa: B010 - mypy forbids assigning a method
    setattr(cls, "__reduce__", __reduce__)  # noqa: B010
    return cls


class EventproofError(Exception):
    """The base of every error the harness reports to a user (exit code 2 on the command line):
    catch this one class to handle them all. None is ever raised for a verdict."""


@frozen_exception
@dataclass(frozen=True)
class ProtocolError(EventproofError):
    """A message broke spec/protocol.md: which message, where, what was expected, what came, and
    the fix."""

    #: Which message, e.g. ``the answer to run request seq 17 (op project)``.
    message: str
    #: Where in it: a JSONPath such as ``$.seq``, or ``the line`` when the line itself is wrong.
    field: str
    #: What the protocol demands there.
    expected: str
    #: What arrived, already rendered and cut to a readable length (see :func:`shown`).
    received: str
    #: What to change, citing the spec section.
    fix: str

    def __str__(self) -> str:
        subject = self.message[:1].upper() + self.message[1:]
        return (
            f"{subject} breaks the protocol at {self.field}: expected {self.expected}, "
            f"received {self.received}. {self.fix}"
        )


@frozen_exception
@dataclass(frozen=True)
class ImplementationError(EventproofError):
    """What the user named as the implementation cannot be used: the value, where, why, the fix."""

    #: The value as the user gave it.
    value: str
    #: Where it came from, e.g. ``--impl``.
    source: str
    #: Why it cannot be used.
    reason: str
    #: What to do instead.
    fix: str
    #: Evidence shown after the fix, e.g. the end of the program's stderr; often empty.
    detail: str = ""

    def __str__(self) -> str:
        end = "" if self.fix.endswith((".", "?", "!")) else "."
        text = f"{self.source} {self.value!r}: {self.reason}. {self.fix}{end}"
        return f"{text}\n{self.detail}" if self.detail else text


@frozen_exception
@dataclass(frozen=True)
class ExpectationsError(EventproofError):
    """An expectations file that cannot be used: the file, the line, the text, why, and the fix."""

    #: The expectations file as the user named it.
    path: str
    #: The 1-based line number, or None when the whole file is the problem.
    line: int | None
    #: The offending line as written ("" when the whole file is the problem).
    text: str
    #: What is wrong.
    reason: str
    #: What to do about it.
    fix: str

    def __str__(self) -> str:
        where = f"{self.path}, line {self.line}" if self.line is not None else self.path
        shown = f": {self.text!r}" if self.text else ""
        return f"expectations file {where}{shown}: {self.reason}. {self.fix}"


@frozen_exception
@dataclass(frozen=True)
class ReplayError(EventproofError):
    """A case file could not be used: which file, where in it, why, and the fix."""

    #: The case file as the user named it.
    path: str
    #: A JSONPath inside the file (``$.input``), or ``""`` for the whole file.
    where: str
    #: What is wrong.
    reason: str
    #: What to do about it.
    fix: str

    def __str__(self) -> str:
        at = f" at {self.where}" if self.where else ""
        return f"replay case {self.path}{at}: {self.reason}. {self.fix}"


@frozen_exception
@dataclass(frozen=True)
class HarnessError(EventproofError):
    """The harness itself could not go on (exit code 2): the message says why and what to do."""

    message: str

    def __str__(self) -> str:
        return self.message


@frozen_exception
@dataclass(frozen=True)
class VectorBuildError(EventproofError):
    """A vector source is inconsistent (a message for whoever edits the sources)."""

    message: str

    def __str__(self) -> str:
        return self.message
