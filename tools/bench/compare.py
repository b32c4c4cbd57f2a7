"""Compare the reference at another commit with this one, paired, on whole streams.

    python tools/bench/compare.py REV [--rounds N] [--streams light,heavy]

The reference of commit ``REV`` (``git archive REV reference``) is imported beside the installed
one, and every round runs ``orjson.dumps``, then both references with each fit strategy, on
fresh streams (:mod:`paired`); the table gives each reference's per-round ratio to orjson, so a
change is judged on one machine in one hour, drift cancelled. Both references must write the
same lines, or the run stops: a speed-up that changes a byte is not one.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import orjson  # noqa: E402
from eventproof import reference as current  # noqa: E402
from eventproof.conformance._workloads import build_stream  # noqa: E402
from paired import Spread, Variant, measure, project_stream  # noqa: E402

FITS = ("halving", "maximal")


def load_reference(revision: str, into: Path) -> Any:
    """The reference package of ``revision``, importable as ``reference_at_<rev>``."""
    name = "reference_at_" + "".join(char if char.isalnum() else "_" for char in revision)
    archive = into / "reference.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", revision, "reference"], stdout=out,
                       check=True)
    target = into / name
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (into / "reference").rename(target)
    sys.path.insert(0, str(into))
    return importlib.import_module(name)



def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the commit whose reference to compare with")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--streams", default="light,heavy")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        try:
            before = load_reference(args.revision, Path(folder))
        except subprocess.CalledProcessError:
            parser.error(f"git archive {args.revision!r} failed: name a commit of this "
                         "repository that has reference/")
        print(f"reference at {args.revision} against the installed one; process time, "
              f"{args.rounds} paired rounds; figure: median ratio to orjson.dumps "
              "(IQR, range)")
        for kind in args.streams.split(","):
            def plain(kind: str = kind) -> Any:
                return build_stream(kind, events=args.events, well_formed=True)

            def raw(kind: str = kind) -> Any:
                return build_stream(kind, events=args.events)

            variants = [Variant("orjson", plain, lambda events: [orjson.dumps(event)
                                                                 for event in events])]
            for fit in FITS:
                variants += [Variant(f"{args.revision} {fit}", raw, project_stream(fit, before)),
                             Variant(f"now {fit}", raw, project_stream(fit, current))]
            paired = measure(variants, rounds=args.rounds, warmup=args.warmup)
            for fit in FITS:
                if paired.results[f"{args.revision} {fit}"] != paired.results[f"now {fit}"]:
                    print(f"error: the two references wrote different {fit} lines on {kind}",
                          file=sys.stderr)
                    return 1
            print(f"{kind} (orjson median {paired.median('orjson') * 1e3:,.1f} ms):")
            for variant in variants[1:]:
                print(f"  {variant.name:>24}: "
                      f"{Spread.of(paired.ratios(variant.name, 'orjson')).text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
