"""Explains on stderr that it cannot start, and exits with status 2 before answering anything."""

import sys

print("error: cannot find my-port.config.json", file=sys.stderr)
sys.exit(2)
