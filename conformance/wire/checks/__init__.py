"""The wire checks, one module per rule group (the rule-id prefix and its vector file)."""
