"""Talk to an implementation under test, in this process or as a long-lived program.

An :class:`Adapter` turns one request into one outcome and never hangs or crashes the harness:
an implementation that loops, dies, writes garbage or floods its streams gets a
:class:`TimedOut`, :class:`Crashed` or :class:`Broken` answer within bounded time and memory,
and is restarted (spec/protocol.md §7). :func:`adapter_for` turns what the user passed to
``--impl`` into an adapter, or an :class:`ImplementationError` that says how to fix it.

One module per job: ``_base`` (the answers and the protocol every adapter follows),
``in_process``, ``pipes`` (the streams of a program), ``subprocess`` and ``impl_spec``
(``--impl`` parsing).
"""

from .._errors import ImplementationError
from ._base import (
    DEFAULT_MAX_LINE_BYTES,
    STDERR_TAIL_BYTES,
    Adapter,
    AfterLastAnswer,
    Broken,
    Crashed,
    Ok,
    Response,
    Skipped,
    TimedOut,
    non_json_reason,
)
from .impl_spec import adapter_for
from .in_process import InProcessAdapter, call_with_deadline
from .subprocess import IsolatedAdapter, SubprocessAdapter

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "STDERR_TAIL_BYTES",
    "Adapter",
    "AfterLastAnswer",
    "Broken",
    "Crashed",
    "ImplementationError",
    "InProcessAdapter",
    "IsolatedAdapter",
    "Ok",
    "Response",
    "Skipped",
    "SubprocessAdapter",
    "TimedOut",
    "adapter_for",
    "call_with_deadline",
    "non_json_reason",
]
