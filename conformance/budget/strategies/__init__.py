"""Hypothesis strategies for the budget profile (spec/budget.md): task records and op inputs.

The inputs aim at what broke the seed's bounds: batches at the scale it measured (up to 1,000
tasks, 300 KB answers, output of control characters that cost six bytes each, chains whose task
splices the previous answer), budgets exhausted early, and the edges (a shared budget and floors
of 0 or 1, so that an allowance is exactly 0 or 1; a roster that fits exactly; merges that recover
the whole roster; an empty lane; changes exactly one window apart).

Big strings repeat a short drawn unit, and big batches repeat a few drawn records under fresh
ids: drawing 300 KB of characters, or 1,000 records one by one, would spend the example budget on
generation and give the shrinker nothing to do.

The strategies are split by domain: ``values``, ``families``."""

from __future__ import annotations

from .families import (  # noqa: F401 - the profile's strategies, by name
    CUT_UNITS,
    FAMILIES,
    SEED_SCALE_DEMAND,
    _aligned_timelines,
    _answer,
    _burst_timelines,
    _defaults,
    _details,
    _empty_roster,
    _failures,
    _live,
    _prefix_sizes,
    _roster,
    _spenders,
    _update,
    aligned,
    bursts,
    cut_details,
    details_families,
    edge_details,
    empty_lanes,
    exact_fit_rosters,
    exhausted_details,
    failure_details,
    inputs_for,
    lane_families,
    large_lanes,
    large_rosters,
    publish_families,
    random_lanes,
    recovering_lanes,
    reused_lanes,
    roster_families,
    seed_scale_details,
    small_details,
    small_floor,
    spread_details,
    timelines,
)
from .values import (  # noqa: F401 - the profile's strategies, by name
    _AGENTS,
    _EXTRA_NAMES,
    _EXTRA_VALUES,
    _PRESENT,
    AWKWARD,
    EXTRA_MEMBERS,
    STATUSES,
    UNITS,
    OpInput,
    Record,
    _batches,
    _permutations,
    _picks,
    _repeat,
    _task_records,
    batches,
    heavy_text,
    ids,
    repeated,
    short_text,
    task_records,
)
