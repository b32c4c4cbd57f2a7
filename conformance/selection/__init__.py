"""The selection profile (spec/selection.md): which output a child agent produced, and how its
run settles. ``PROFILE`` is this package's entry in the harness's operation table."""

from __future__ import annotations

from eventproof.reference import fold_results, select_output, settle_run

from .._model import Deferred, Operation, Profile, Rule, RuleGroup, reference_answer
from .checks import fold, select, settle
from .rules import CLASSES, RULES
from .vectors import fold_sources, select_sources, settle_sources


def _strategies(name: str) -> Deferred:
    """A function of .strategies, imported once a search needs it."""
    return Deferred(f"{__name__}.strategies", name)


select_inputs, fold_inputs, settle_inputs = map(
    _strategies, ("select_inputs", "fold_inputs", "settle_inputs"))


def _rules(op: str) -> tuple[Rule, ...]:
    return tuple(rule for rule in RULES if rule.op == op)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        name="select", profile="selection", rules=_rules("select"),
        families=_strategies("select_families"), inputs=select_inputs,
        reference=reference_answer("select", select_output),
        checks=(select.check_select_never_empty, select.check_select_last_message,
                select.check_select_text_fallback, select.check_select_agrees),
        observer=_strategies("observe_select"), agreement_rule="select.agrees",
        hang_rule="select.agrees", input_schema="op-select.json", classes=CLASSES["select"],
    ),
    Operation(
        name="fold", profile="selection", rules=_rules("fold"),
        families=_strategies("fold_families"), inputs=fold_inputs,
        reference=reference_answer("fold", fold_results),
        checks=(fold.check_fold_shape, fold.check_fold_prefix),
        observer=_strategies("observe_fold"), agreement_rule="fold.prefix",
        hang_rule="fold.prefix", input_schema="op-fold.json",
    ),
    Operation(
        name="settle", profile="selection", rules=_rules("settle"),
        families=_strategies("settle_families"), inputs=settle_inputs,
        reference=reference_answer("settle", settle_run),
        # The stop-reason checks are exclusive: each wrong stop reason is blamed on one rule
        # (checks/settle.py says how). The catch-all comes last.
        checks=(settle.check_settle_accounting_turn, settle.check_settle_dropped_unrun,
                settle.check_settle_one_shot_reason, settle.check_settle_cancelled,
                settle.check_settle_continuable_reason, settle.check_settle_output,
                settle.check_settle_last_assistant, settle.check_settle_tool_result,
                settle.check_settle_agrees),
        observer=_strategies("observe_settle"), agreement_rule="settle.agrees",
        hang_rule="settle.agrees", input_schema="op-settle.json", classes=CLASSES["settle"],
    ),
)

PROFILE = Profile(
    name="selection", spec="selection.md", operations=OPERATIONS,
    groups=(
        RuleGroup("select", "The selection rule (spec/selection.md §3): which content a child's "
                  "log produced.", select_sources),
        RuleGroup("fold", "The incremental selection (spec/selection.md §4): collect() after "
                  "every push.", fold_sources),
        RuleGroup("settle", "How a run settles (spec/selection.md §5): consumed work, the stop "
                  "reason of both paths, result, lifecycle event and the delegation tool's "
                  "result.", settle_sources),
    ),
)
