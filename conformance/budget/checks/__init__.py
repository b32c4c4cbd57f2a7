"""The budget profile's checks, one module per rule-id prefix (spec/budget.md).

``CHECKS`` lists each operation's checks most specific first; ``CHECK_BY_RULE`` maps every rule
id to its check.
"""

from __future__ import annotations

from ..._model import Check
from . import details, lane, publish, roster

CHECKS: dict[str, tuple[Check, ...]] = {
    "details": details.CHECKS, "roster": roster.CHECKS, "lane": lane.CHECKS,
    "publish": publish.CHECKS,
}
CHECK_BY_RULE: dict[str, Check] = {
    **details.CHECK_BY_RULE, **roster.CHECK_BY_RULE, **lane.CHECK_BY_RULE,
    **publish.CHECK_BY_RULE,
}
