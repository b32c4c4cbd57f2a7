"""mkdocs hooks: build one site from the repository's own layout.

The site mirrors the repository: README.md is the home page, spec/ and docs/ keep their paths, and
schemas/ is published as files, so every relative link that works on GitHub works on the site. A
relative link to another file of the repository that the site does not publish (a source file, a
test) is pointed at the file on GitHub; a link to a file that exists nowhere is left alone, so
strict mode fails on it.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY = "https://github.com/eventproof/eventproof/blob/main/"
PUBLISHED = ("spec/*.md", "schemas/*.json", "schemas/examples/*.json")
# An inline Markdown link or image whose target is relative (no scheme, not an anchor).
LINK = re.compile(r"(!?\[[^\]]*\]\()(?![a-z][a-z0-9+.-]*:|#|/)([^)\s#]+)(#[^)\s]*)?\)")
FENCE = re.compile(r"^(```|~~~)")


def _file(config: Any, path: str) -> File:
    return File(path, str(ROOT), config["site_dir"], config["use_directory_urls"])


def on_files(files: Files, config: Any) -> Files:
    site = Files([])
    docs = Path(config["docs_dir"]).resolve()
    for file in files:
        if file.abs_src_path is None or not Path(file.abs_src_path).is_relative_to(docs):
            site.append(file)  # the theme's own files
        elif not file.src_uri.startswith("_hooks/"):
            site.append(_file(config, f"docs/{file.src_uri}"))  # docs/ keeps its path
    for pattern in PUBLISHED:
        for path in sorted(ROOT.glob(pattern)):
            site.append(_file(config, path.relative_to(ROOT).as_posix()))
    site.append(File.generated(config, "index.md", abs_src_path=str(ROOT / "README.md")))
    # Made from the code at every build, so they cannot go stale.
    # The pages' maker is a maintainer tool of the checkout (tools/docs_pages.py).
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tools.docs_pages import commands_page, rules_page, settings_page

    site.append(File.generated(config, "reference/rules.md", content=rules_page()))
    site.append(File.generated(config, "reference/commands.md", content=commands_page()))
    site.append(File.generated(config, "reference/settings.md", content=settings_page()))
    return site


def _outside_links(markdown: str, page_dir: str, files: Files) -> str:
    def repoint(match: re.Match[str]) -> str:
        opening, target, anchor = match.group(1), match.group(2), match.group(3) or ""
        resolved = posixpath.normpath(posixpath.join(page_dir, target))
        if files.get_file_from_path(resolved) is not None or resolved.startswith(".."):
            return match.group(0)
        if (ROOT / resolved).exists():
            return f"{opening}{REPOSITORY}{resolved}{anchor})"
        return match.group(0)  # broken: strict mode reports it

    lines, fenced = [], False
    for line in markdown.splitlines(keepends=True):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        lines.append(line if fenced else LINK.sub(repoint, line))
    return "".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    source = page.file.src_uri
    if source == "index.md":
        page.edit_url = REPOSITORY + "README.md"
        page_dir = ""
    else:
        page_dir = posixpath.dirname(source)
    return _outside_links(markdown, page_dir, files)
