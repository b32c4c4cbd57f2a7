"""Hypothesis strategies for the selection profile: session logs, and select/fold/settle inputs.

Logs are drawn from the *shapes* real runs take (spec/selection.md §2), not from uniform noise, so
that every rule's boundary is met within a hundred examples:

- a max-tokens step whose tool calls were dropped leaves an empty, usage-only ``assistant/message``,
  often the last event of the log, after real text (§3.2);
- a cancelled run: ``interrupted: true`` message prefixes, aborted turns, streams cut mid-block
  (``block-start`` and deltas without ``block-end``), no ``turn/end`` at all (§3.3, §5.2);
- reasoning-only and tool-call-only messages before streamed text: content length decides (§3.1);
- tool calls, tool results, user messages and unknown event and chunk types, none of which
  contribute (§3.4, §2.6);
- and two *mixtures*, the workhorses: every kind of message competing with streamed text, and
  everything that surrounds streamed text when no message has content. Each holds most kinds at
  once, so one log meets many rules.

Every event has the shape the agent loop of the system this profile comes from writes
(selection.md §2, Appendix A): numeric ``time``, ``{turn, step}`` on step, chunk and message
events, message ``id`` and ``source``, tool-call ``arguments`` as a raw JSON string (sometimes cut
short), tool results as user-role messages holding one ``tool-result`` block, and inbox splices.
A port's adapter can pass them through untouched. Unknown event, chunk and block types and extra
members appear throughout (§2.1, §2.6): they must be carried, never dropped.

Hypothesis explores far fewer independent cases than it runs examples (it mutates earlier ones),
so each region where a rule can break is made likely on its own, not merely possible. Every
decoration of a shape (framing, streaming, usage chunks, trailing events) is optional and shrinks
away, so a counterexample comes out as the few events that matter. Strings stay short: the
selection profile is about which text wins, not how big it is.

The strategies are split by domain: ``values``, ``events``, ``logs``, ``families``,
``settle_forms`` (how a settle log is written), ``tour`` (a log of every shape the schemas
allow), ``observers``."""

from __future__ import annotations

from .events import (
    EDGE_INDEXES,
    ENVELOPE_FORMS,
    INDEX_SPELLINGS,
    MAX_SAFE_INTEGER,
    SOURCE_EXTRAS,
    SPLICE_REMOVALS,
    SPLICE_STARTS,
    STEP_ENDINGS,
    TURN_FORMS,
    LogForm,
    assistant_messages,
    edge_index,
    session_events,
    turn_end_reason,
)
from .families import (
    SETTLE_CLASS_AIMS,
    SETTLE_CLASS_ENDS,
    SETTLE_FAMILY_AIMS,
    fold_families,
    fold_inputs,
    select_families,
    select_inputs,
    settle_families,
    settle_inputs,
)
from .logs import (
    session_logs,
)
from .observers import (
    TARGET_CAP,
    log_observations,
    observe_fold,
    observe_select,
    observe_settle,
)
from .settle_forms import (
    EDGE_CHUNK_INDEXES,
    EDGE_COUNTS,
    EDGE_REMOVALS,
    EDGE_STARTS,
    EDGE_STATUSES,
    EDGE_STEPS,
    EDGE_TURNS,
    EXTRA,
    ORDERS,
    TURN_WRITINGS,
    written,
)
from .values import (
    BASE_TIME,
    BLOCK_KINDS,
    EDGE_INTEGERS,
    INTEGRAL_DOUBLES,
    REASON_KINDS,
    UNKNOWN_EVENT_TYPES,
    UNKNOWN_REASON_KINDS,
    Block,
    Event,
    chunks,
    content_blocks,
    failures,
    json_objects,
    raw_arguments,
    text_pieces,
    usages,
)

__all__ = [
    "BASE_TIME",
    "BLOCK_KINDS",
    "EDGE_CHUNK_INDEXES",
    "EDGE_COUNTS",
    "EDGE_INDEXES",
    "EDGE_INTEGERS",
    "EDGE_REMOVALS",
    "EDGE_STARTS",
    "EDGE_STATUSES",
    "EDGE_STEPS",
    "EDGE_TURNS",
    "ENVELOPE_FORMS",
    "EXTRA",
    "INDEX_SPELLINGS",
    "INTEGRAL_DOUBLES",
    "MAX_SAFE_INTEGER",
    "ORDERS",
    "REASON_KINDS",
    "SETTLE_CLASS_AIMS",
    "SETTLE_CLASS_ENDS",
    "SETTLE_FAMILY_AIMS",
    "SOURCE_EXTRAS",
    "SPLICE_REMOVALS",
    "SPLICE_STARTS",
    "STEP_ENDINGS",
    "TARGET_CAP",
    "TURN_FORMS",
    "TURN_WRITINGS",
    "UNKNOWN_EVENT_TYPES",
    "UNKNOWN_REASON_KINDS",
    "Block",
    "Event",
    "LogForm",
    "assistant_messages",
    "chunks",
    "content_blocks",
    "edge_index",
    "failures",
    "fold_families",
    "fold_inputs",
    "json_objects",
    "log_observations",
    "observe_fold",
    "observe_select",
    "observe_settle",
    "raw_arguments",
    "select_families",
    "select_inputs",
    "session_events",
    "session_logs",
    "settle_families",
    "settle_inputs",
    "text_pieces",
    "turn_end_reason",
    "usages",
    "written",
]
