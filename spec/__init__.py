"""The normative spec of eventproof (its Markdown), shipped as package data so that
``eventproof spec SECTION`` prints any section a report points to."""
