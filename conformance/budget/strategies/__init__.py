"""Hypothesis strategies for the budget profile (spec/budget.md): task records and op inputs.

The inputs aim at what broke the seed's bounds: batches at the scale it measured (up to 1,000
tasks, 300 KB answers, output of control characters that cost six bytes each, chains whose task
splices the previous answer), budgets exhausted early, and the edges (a shared budget and floors
of 0 or 1, so that an allowance is exactly 0 or 1; a roster that fits exactly; merges that recover
the whole roster; an empty lane; changes exactly one window apart), and every threshold the spec
states: fields costing their allowance, one byte less or more, at each floor, share and claim
order; live records at their head and tail; identities at the clip; events at the end of the
window the events before them left open; integers up to the largest (2^53 - 1) and written as
integral doubles.

Big strings repeat a short drawn unit, and big batches repeat a few drawn records under fresh
ids: drawing 300 KB of characters, or 1,000 records one by one, would spend the example budget on
generation and give the shrinker nothing to do.

The strategies are split by domain: ``values``, ``families``."""

from __future__ import annotations

from .families import (
    CUT_UNITS,
    FAMILIES,
    SEED_SCALE_DEMAND,
    aligned,
    budget_edge_details,
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
    live_edge_rosters,
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
    window_edges,
)
from .values import (
    AWKWARD,
    CLIP,
    EDGE_UNITS,
    EXTRA_MEMBERS,
    MAX_INTEGER,
    STATUSES,
    UNITS,
    WIDE_INTEGERS,
    OpInput,
    Record,
    batches,
    clip_edge,
    costing,
    heavy_text,
    ids,
    repeated,
    short_text,
    spelled_as_doubles,
    task_records,
    wide,
)

__all__ = [
    "AWKWARD",
    "CLIP",
    "CUT_UNITS",
    "EDGE_UNITS",
    "EXTRA_MEMBERS",
    "FAMILIES",
    "MAX_INTEGER",
    "SEED_SCALE_DEMAND",
    "STATUSES",
    "UNITS",
    "WIDE_INTEGERS",
    "OpInput",
    "Record",
    "aligned",
    "batches",
    "budget_edge_details",
    "bursts",
    "clip_edge",
    "costing",
    "cut_details",
    "details_families",
    "edge_details",
    "empty_lanes",
    "exact_fit_rosters",
    "exhausted_details",
    "failure_details",
    "heavy_text",
    "ids",
    "inputs_for",
    "lane_families",
    "large_lanes",
    "large_rosters",
    "live_edge_rosters",
    "publish_families",
    "random_lanes",
    "recovering_lanes",
    "repeated",
    "reused_lanes",
    "roster_families",
    "seed_scale_details",
    "short_text",
    "small_details",
    "small_floor",
    "spelled_as_doubles",
    "spread_details",
    "task_records",
    "timelines",
    "wide",
    "window_edges",
]
