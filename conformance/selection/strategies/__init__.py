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
``observers``."""

from __future__ import annotations

from .events import (  # noqa: F401 - the profile's strategies, by name
    _ENVELOPE_EXTRA_DRAWS,
    _ENVELOPE_EXTRAS,
    _FAR_TURN_FORMS,
    _FIRST_SEQS,
    _LOG_FORMS,
    _MESSAGE_EXTRAS,
    _STEP_EVENTS,
    _TURN_SHIFTS,
    ENVELOPE_FORMS,
    MAX_SAFE_INTEGER,
    SOURCE_EXTRAS,
    SPLICE_REMOVALS,
    SPLICE_STARTS,
    STEP_ENDINGS,
    TURN_FORMS,
    LogForm,
    _cancellation,
    _chunk,
    _claim,
    _event,
    _event_drafts,
    _in_turn,
    _insertion,
    _interleaved,
    _kept_prefix,
    _likely,
    _message,
    _message_drafts,
    _numbered,
    _reason_kinds,
    _splice,
    _splice_drafts,
    _step,
    _step_end,
    _step_start,
    _streamed_block,
    _tool_call,
    _tool_result,
    _turn_end,
    _turn_start,
    _unknown_event_drafts,
    _user_message,
    _user_value,
    _with_envelope,
    assistant_messages,
    session_events,
    turn_end_reason,
)
from .families import (  # noqa: F401 - the profile's strategies, by name
    _CANCELLED,
    _CLAIMED_ENDS,
    _DIAGNOSTICS,
    _KEEP,
    _MODES,
    _MOSTLY_CONTINUABLE,
    _OUTPUT_ENDS,
    _OUTPUT_EVENTS,
    _PATH_ENDS,
    _STEPPED_ENDS,
    _UNSTEPPED_ENDS,
    SETTLE_CLASS_AIMS,
    SETTLE_CLASS_ENDS,
    SETTLE_FAMILY_AIMS,
    _agent_loop_run,
    _agent_loop_runs,
    _answered_logs,
    _answers,
    _cancelled_work,
    _claimed_unstepped,
    _diagnostics,
    _far_irregular_turns,
    _irregular_events,
    _irregular_turns,
    _is_text_delta,
    _model_step,
    _outputless_logs,
    _outputs,
    _path_differences,
    _pushes,
    _request,
    _settle_class_families,
    _settled_as,
    _stepped_then_unstepped,
    _stepped_turn,
    _streamed_text_logs,
    _unstepped_turn,
    fold_inputs,
    select_families,
    select_inputs,
    settle_families,
    settle_inputs,
)
from .logs import (  # noqa: F401 - the profile's strategies, by name
    _COMPETING,
    _FALLBACK,
    _SHAPES,
    _WEIGHTED_SHAPES,
    _answer_with_many_blocks,
    _competing_outputs,
    _empty_messages_and_text,
    _essential_events,
    _fallback_material,
    _keyed,
    _kinds,
    _log_drafts,
    _many_turns,
    _maybe_step,
    _message_then_cut_stream,
    _mixture,
    _noise,
    _only_chunks,
    _session_logs,
    _step_of,
    _text_among_empty_messages,
    _text_then_empty_message,
    _textless_message_then_text,
    _tool_round_trip,
    _trailing,
    _turn,
    session_logs,
)
from .observers import (  # noqa: F401 - the profile's strategies, by name
    TARGET_CAP,
    _capped,
    _chunk_type,
    _content_length,
    _data,
    log_observations,
    observe_fold,
    observe_select,
    observe_settle,
)
from .values import (  # noqa: F401 - the profile's strategies, by name
    _BLOCKS,
    _CALL_IDS,
    _EXTRA_BLOCK_KEYS,
    _INDEXES,
    _MODEL_SOURCE,
    _OBJECTS,
    _RAW_ARGUMENTS,
    _SCALARS,
    _TOOL_NAMES,
    _TRICKY,
    _WORDS,
    BASE_TIME,
    BLOCK_KINDS,
    EDGE_INTEGERS,
    INTEGRAL_DOUBLES,
    REASON_KINDS,
    UNKNOWN_EVENT_TYPES,
    UNKNOWN_REASON_KINDS,
    Block,
    Event,
    _block,
    _content_blocks,
    _copied,
    _either,
    _image_blocks,
    _maybe,
    _pair,
    _some,
    _text_blocks,
    _texts,
    _tool_call_blocks,
    _tool_result_blocks,
    _unknown_blocks,
    chunks,
    content_blocks,
    json_objects,
    raw_arguments,
    text_pieces,
    usages,
)
