"""The wire profile (spec/wire.md): facts and frames, compact projections and the byte bound on
live tool updates. ``PROFILE`` is this package's entry in the harness's operation table."""

from __future__ import annotations

from eventproof.reference import classify_event, project_event

from .._model import Deferred, Operation, Profile, Rule, RuleGroup, reference_answer
from .checks import bound, canon, classify, project
from .rules import CLASSES, RULES
from .vectors import bound_sources, canon_sources, classify_sources, project_sources


def _strategies(name: str) -> Deferred:
    """A function of .strategies, imported once a search needs it."""
    return Deferred(f"{__name__}.strategies", name)


classify_inputs, project_inputs = map(_strategies, ("classify_inputs", "project_inputs"))


def _rules(op: str) -> tuple[Rule, ...]:
    return tuple(rule for rule in RULES if rule.op == op)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        name="classify", profile="wire", rules=_rules("classify"),
        families=_strategies("classify_families"), inputs=classify_inputs,
        reference=reference_answer("classify", classify_event),
        checks=(classify.check_classify_kind,),
        observer=None, agreement_rule="classify.kind", hang_rule="classify.kind",
        input_schema="op-classify.json", classes=CLASSES["classify"],
    ),
    Operation(
        name="project", profile="wire", rules=_rules("project"),
        families=_strategies("project_families"), inputs=project_inputs,
        reference=reference_answer("project", project_event),
        # Most specific first: the verdict reports the first rule a case breaks.
        checks=(
            project.check_numbers,
            project.check_erroneous,
            project.check_frame_opt_in,
            canon.check_utf8,
            bound.check_only_updates,
            bound.check_shape,
            bound.check_ids,
            bound.check_text,
            bound.check_fits,
            bound.check_tail,
            bound.check_only_when_over,
            project.check_message_update,
            project.check_turn_end,
            project.check_agent_end,
            project.check_fact_passthrough,
            project.check_project_agrees,
            canon.check_canonical_bytes,
        ),
        observer=_strategies("observe_project"), agreement_rule="project.agrees",
        # wire.md §5.6: a projection that never answers is a shrink loop that did not converge.
        hang_rule="bound.converges", input_schema="op-project.json",
        classes=CLASSES["project"], repair=canon.repair_lone_surrogates,
    ),
)

PROFILE = Profile(
    name="wire", spec="wire.md", operations=OPERATIONS,
    groups=(
        RuleGroup("classify", "Facts and frames (spec/wire.md §3).", classify_sources),
        RuleGroup("project", "Projection of agent events to wire lines (spec/wire.md §4).",
                  project_sources),
        RuleGroup("bound", "The backstop for oversized live updates (spec/wire.md §5), for both "
                  "fit strategies.", bound_sources),
        RuleGroup("canon", "Canonical serialization (spec/wire.md §6): the exact bytes of a "
                  "line.", canon_sources),
    ),
)
