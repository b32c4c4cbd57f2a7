"""The harness reads top-down: no module of ``conformance/`` imports, directly or through
others, a module that imports it back (eagerly or inside a function)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "conformance"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ``conformance`` it imports, anywhere in its code."""
    paths = {_module_name(path): path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        if name == "":
            package = []
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package[:len(package) - node.level + 1] if node.level > 1 else package
                target = ".".join([*base, *([node.module] if node.module else [])])
            elif (node.module or "").startswith("eventproof.conformance"):
                target = node.module[len("eventproof.conformance"):].lstrip(".")  # type: ignore[index]
            else:
                continue
            named = {f"{target}.{alias.name}".strip(".") for alias in node.names}
            found = {each for each in named if each in paths} or (
                {target} if target in paths else set())
            graph[name] |= found - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_in_the_harness() -> None:
    """Every import, eager or deferred into a function, goes one way."""
    assert cycles(import_graph()) == []


@pytest.mark.parametrize(("module", "imports"), [
    ("_results", {"_engine", "_check", "_parallel", "_reports", "_adapters", "cli"}),
    ("_engine", {"_check", "_parallel", "_reports", "_matrix", "cli"}),
    ("_reports", {"_engine", "_check", "_parallel", "cli"}),
])
def test_lower_layers_never_reach_up(module: str, imports: set[str]) -> None:
    """The results model, the search and the renderers import nothing above them."""
    graph = import_graph()
    reach: set[str] = set()
    todo = [module]
    while todo:
        for other in graph[todo.pop()]:
            if other not in reach:
                reach.add(other)
                todo.append(other)
    assert not (reach & imports), f"{module} reaches {sorted(reach & imports)}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    """A planted cycle is found (the test above can fail)."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_measuring_apparatus_lives_in_tools() -> None:
    """tests/benchmarks holds benchmarks and tests only (and their conftest); the scripts that
    measure and publish figures, and the workloads they share, live in tools/bench/ with the
    other maintainer tools, outside the suite."""
    folder = ROOT.parent / "tests" / "benchmarks"
    strays = sorted(path.name for path in folder.glob("*.py")
                    if not (path.name.startswith("test_") or path.name == "conftest.py"))
    assert not strays, f"move these to tools/bench/: {strays}"
    assert (ROOT.parent / "tools" / "bench" / "run.py").is_file()
