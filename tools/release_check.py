"""The release check (``nox -s release``): the version in pyproject.toml, the top release of
CHANGELOG.md and every tag the docs, README, templates and action name (``@vX.Y.Z``,
``/blob/vX.Y.Z/``) must be one version, and ``--tag`` (a CI's tag, e.g. ``$GITHUB_REF_NAME``),
when given, that version's tag; without ``--tag``, the checkout must have the tag the documents
name (a pin or link to a tag that does not exist leads nowhere). Prints each disagreement with
its file and line; exit 1 when there is one."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where a tag of the kit is named: pinned installs, the action, links into the repository.
TAG = re.compile(r"(?:eventproof/eventproof(?:\.git)?@|/(?:blob|tree|releases/tag)/)"
                 r"(?P<tag>v\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?)")
RELEASE = re.compile(r"^## \[(?P<version>\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?)\]", re.MULTILINE)


def _documents(root: Path) -> Iterator[Path]:
    yield root / "README.md"
    yield root / "action.yml"
    yield from sorted(root.glob("docs/**/*.md"))
    yield from sorted(root.glob("examples/**/README.md"))
    yield from sorted(root.glob(".github/**/*.yml"))


def problems(root: Path = ROOT, tag: str | None = None, *,
             require_tag: bool = False) -> list[str]:
    """Every disagreement between the version, the changelog and the tags named, in words;
    with ``require_tag``, also a named tag the git checkout at ``root`` does not have."""
    version = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    found: list[str] = []
    changelog = root / "CHANGELOG.md"
    if not changelog.is_file():
        found.append("CHANGELOG.md: missing; add it with a '## [{version}]' section")
    else:
        release = RELEASE.search(changelog.read_text("utf-8"))
        if release is None:
            found.append(f"CHANGELOG.md: no '## [{version}]' release heading")
        elif release["version"] != version:
            line = changelog.read_text("utf-8")[:release.start()].count("\n") + 1
            found.append(f"CHANGELOG.md:{line}: the top release is {release['version']}, "
                         f"pyproject.toml's version is {version}")
    for path in _documents(root):
        if not path.is_file():
            continue
        for number, text in enumerate(path.read_text("utf-8").splitlines(), start=1):
            for match in TAG.finditer(text):
                if match["tag"] != f"v{version}":
                    found.append(f"{path.relative_to(root)}:{number}: names {match['tag']}, "
                                 f"pyproject.toml's version is {version} (v{version})")
    if tag and tag != f"v{version}":
        found.append(f"the tag being released is {tag}, pyproject.toml's version is {version}")
    named = sum(len(TAG.findall(path.read_text("utf-8"))) for path in _documents(root)
                if path.is_file())
    if require_tag and named and not tag and not _tag_exists(root, f"v{version}"):
        found.append(f"{named} pinned installs and links name v{version}, and this repository "
                     f"has no tag v{version}: tag the release (git tag v{version} && git push "
                     f"origin v{version}), or pass --tag v{version} when checking the tag "
                     "being pushed")
    return found


def _tag_exists(root: Path, name: str) -> bool:
    """Whether the checkout at ``root`` has the tag ``name`` (fetched tags included)."""
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "-q", "--verify",
                           f"refs/tags/{name}"], capture_output=True, text=True, check=False)
    return done.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tag", default=None, help="The tag being released (vX.Y.Z).")
    args = parser.parse_args(argv)
    found = problems(tag=args.tag, require_tag=True)
    for problem in found:
        print(problem)
    if not found:
        print("release check: version, changelog and every tag named agree")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
