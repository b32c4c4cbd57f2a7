"""Regenerate (``--write``) or check (``--check``) the shipped vectors, spec/vectors/, from the
hand-written sources (conformance/<profile>/vectors.py) and the reference.

    python -m tools.vectors --write   # nox -s vectors; commit the result
    python -m tools.vectors --check   # exit 1 when a file is stale
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from eventproof.conformance._errors import VectorBuildError
from eventproof.conformance._vectors import stale_files, vectors_directory, write_files


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate (``--write``) or check (``--check``) spec/vectors/."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.vectors",
        description="Generate spec/vectors/ from the hand-written sources and the reference.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite every vector file")
    mode.add_argument("--check", action="store_true", help="exit 1 when a file is stale")
    parser.add_argument("--dir", type=Path, default=None,
                        help="the vector directory (default: the eventproof.vectors package)")
    args = parser.parse_args(argv)
    try:
        if args.write:
            written = write_files(args.dir)
            counts = {name: len(json.loads((args.dir or vectors_directory()).joinpath(name)
                                           .read_text("utf-8"))["vectors"]) for name in written}
            print("wrote " + ", ".join(f"{name} ({n})" for name, n in counts.items()))
            return 0
        stale = stale_files(args.dir)
    except VectorBuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if stale:
        print("stale vector files (the sources in conformance/<profile>/vectors.py or the "
              "reference "
              f"changed): {', '.join(stale)}; run `nox -s vectors` and commit the result",
              file=sys.stderr)
        return 1
    print("every vector file is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
