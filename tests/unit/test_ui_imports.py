"""The UI package's shape, read from its source with `ast` (no import, so it is cheap): its modules import
one another one way only — the app, then screens, then widgets, then small shared modules — with no import
circle, and every import inside a function says why it waits (`# deferred: ...`, on its line or the line
above): the only good reason is the first frame (`test_import_hygiene.py`), never hiding a circle.

Imports under `if TYPE_CHECKING:` run only for the type checker, but a circle there is still one module
knowing its owner: the graph with them has no circle either. A lower module names what it needs of its owner as
a narrow `Protocol` (`tui_agent/ui/hosts.py`, or its own `...Host`), or posts a message up.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import tui_agent.ui

UI = Path(tui_agent.ui.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(UI.parent).with_suffix("").parts
    return ".".join(("tui_agent", *parts[:-1])) if parts[-1] == "__init__" else ".".join(("tui_agent", *parts))


def runtime_imports(tree: ast.Module, *, type_only: bool = False) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import that runs (not under `if TYPE_CHECKING:`, unless `type_only` asks for those too), and
    whether it is inside a function."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test) and not type_only:
                yield from (found for other in child.orelse for found in walk(other, in_function))
            elif isinstance(child, ast.Import | ast.ImportFrom):
                yield child, in_function
            else:
                inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                yield from walk(child, inside)

    yield from walk(tree, False)


def imported_modules(node: ast.Import | ast.ImportFrom, importer: str, known: set[str]) -> set[str]:
    """The modules of `known` that `node` loads (`from a.b import c` loads `a.b.c` when that is a module)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names} & known
    base = node.module or ""
    if node.level:
        package = importer.split(".")[: -node.level]
        base = ".".join([*package, base] if base else package)
    found = {f"{base}.{alias.name}" for alias in node.names} & known
    return found | ({base} & known)


def ui_sources() -> dict[str, str]:
    """Each module's source, by module name."""
    return {module_name(path): path.read_text() for path in sorted(UI.rglob("*.py"))}


def import_graph(sources: Mapping[str, str], *, type_only: bool = False) -> dict[str, set[str]]:
    """Which modules of `sources` each one loads when it runs (at import or inside a function), and with
    `type_only` also those it names for the type checker only."""
    known = set(sources)
    return {
        name: {
            target
            for node, _ in runtime_imports(ast.parse(source), type_only=type_only)
            for target in imported_modules(node, name, known)
            if target != name and not name.startswith(f"{target}.")  # a package's __init__ is not a circle
        }
        for name, source in sources.items()
    }


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while (top := stack.pop()) != module:
                component.append(top)
            component.append(module)
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def undeferred_imports(sources: Mapping[str, str]) -> list[str]:
    """`module:line  import...` for each import inside a function with no `# deferred:` reason."""
    found = []
    for name, source in sources.items():
        lines = source.splitlines()
        for node, in_function in runtime_imports(ast.parse(source)):
            own = lines[node.lineno - 1 : node.end_lineno]
            above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            said = any("# deferred:" in line for line in own) or above.startswith("# deferred:")
            if in_function and not said:
                found.append(f"{name}:{node.lineno}  {ast.unparse(node)}")
    return found


def test_the_ui_package_has_no_import_circle() -> None:
    """Not at run time, nor for the type checker: no module imports one that imports it, type-only or not."""
    assert circles(import_graph(ui_sources())) == []
    assert circles(import_graph(ui_sources(), type_only=True)) == []


def test_every_import_inside_a_function_says_why_it_waits() -> None:
    assert undeferred_imports(ui_sources()) == []


def test_the_checks_can_fail() -> None:
    """A circle through an import inside a function, and such an import with no reason, are both found."""
    screen = "def show() -> None:\n    from tui_agent.ui.widget import W\n"
    widget = "from tui_agent.ui.screen import S\n"
    sources = {"tui_agent.ui.screen": screen, "tui_agent.ui.widget": widget}
    assert circles(import_graph(sources)) == [["tui_agent.ui.screen", "tui_agent.ui.widget"]]
    assert undeferred_imports(sources) == ["tui_agent.ui.screen:2  from tui_agent.ui.widget import W"]

    typing_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tui_agent.ui.widget import W\n"
    deferred = "def show() -> None:\n    # deferred: after the first frame\n    from tui_agent.ui.widget import W\n"
    assert circles(import_graph({**sources, "tui_agent.ui.screen": typing_only})) == []
    typing_circle = import_graph({**sources, "tui_agent.ui.screen": typing_only}, type_only=True)
    assert circles(typing_circle) == [["tui_agent.ui.screen", "tui_agent.ui.widget"]]
    assert undeferred_imports({**sources, "tui_agent.ui.screen": deferred}) == []
