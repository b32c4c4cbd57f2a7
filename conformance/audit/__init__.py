"""``eventproof audit``: check the JSON Lines logs a harness really wrote against every rule of
the spec that a written log can show, and show where their bytes go (docs/audit.md)."""

from __future__ import annotations

from ._audit import AuditReport, Settings, audit
from ._command import audit_command
from ._render import document
from ._source import Source, SourceError, expand

__all__ = ["AuditReport", "Settings", "Source", "SourceError", "audit", "audit_command",
           "document", "expand"]
