"""Provides `plugin_sources`: where plugins come from, in the order that decides duplicate names.

Order: the shipped `plugins/` folder (with the offline model's demo tool, `plugins/examples/weather.py`, when
asked for: `[tools] demo_tools`), the user's plugin folder, each extra folder (`--plugins DIR`, then
`plugin_dirs` from config), then installed packages in the `tui_agent.plugins` entry-point group. Inside a
folder, files are taken in name order. An earlier source keeps a name several define (the registry offers
the others as `plugin__name`, unless `[tools] prefer` says otherwise). Folders and files that others
could change are refused (`tui_agent.file_trust`), except the shipped ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from tui_agent import paths
from tui_agent.file_trust import TrustScan
from tui_agent.tools.loader import PluginSource, file_source
from tui_agent.tools.problems import LoadProblem

ENTRY_POINT_GROUP = "tui_agent.plugins"
DEMO_PLUGIN = "weather.py"
"""The example plugin loaded for the offline model (`demo_sources`)."""


def shipped_plugins_dir() -> Path | None:
    """The shipped plugins: bundled in the wheel as `tui_agent/_shipped/plugins`, or the repo's `plugins/`."""
    folder = paths.shipped_dir("plugins")  # tries the bundled copy first, then the repository folder
    return folder if folder.is_dir() else None


def demo_sources() -> list[PluginSource]:
    """The offline model's demo tool (`plugins/examples/weather.py`: invented weather, so that the offline model has
    something to look up); shipped, but never offered to a real model unless `[tools] demo_tools = true` says so."""
    shipped = shipped_plugins_dir()
    weather = shipped / "examples" / DEMO_PLUGIN if shipped is not None else None
    return [file_source(weather)] if weather is not None and weather.is_file() else []


def folder_sources(folder: Path) -> list[PluginSource]:
    """Plugin modules (`name.py`) and packages (`name/__init__.py`) in a folder, by name."""
    found = []
    with os.scandir(folder) as listing:  # its entries know their kind: no stat a file (1000 plugins)
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        if entry.name.startswith(("_", ".")):
            continue
        path = Path(entry.path)
        if entry.name.endswith(".py") and entry.is_file():
            found.append(file_source(path))
        elif entry.is_dir() and (path / "__init__.py").is_file():
            found.append(file_source(path))
    return found


def entry_point_sources() -> list[PluginSource]:
    """Installed packages that declare plugins in the `tui_agent.plugins` entry-point group."""
    return [
        _entry_point_source(point)
        for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
    ]


def _entry_point_source(point: EntryPoint) -> PluginSource:
    package = point.dist.name if point.dist is not None else "an installed package"
    version = point.dist.version if point.dist is not None else ""
    return PluginSource(point.name, f"{package}: {point.value}", point.load, version=version)


def plugin_sources(
    extra_dirs: Iterable[Path],
    *,
    include_shipped: bool = True,
    include_user_dir: bool = True,
    include_entry_points: bool = True,
    include_demo: bool = False,
) -> tuple[list[PluginSource], list[LoadProblem]]:
    """Every plugin source in precedence order, and the folders that could not be read; `include_demo` adds the
    offline model's demo tool right after the shipped ones."""
    folders: list[Path] = []
    shipped = shipped_plugins_dir() if include_shipped else None
    if shipped is not None:
        folders.append(shipped)
    user = paths.user_plugins_dir() if include_user_dir else None
    if user is not None and user.is_dir():
        folders.append(user)
    sources: list[PluginSource] = []
    problems: list[LoadProblem] = []
    for folder in [*folders, *(Path(extra) for extra in extra_dirs)]:
        try:  # the shipped plugins are part of tui-agent's installation, like its code: not checked
            sources.extend(folder_sources(folder) if folder == shipped else _safe_sources(folder, problems))
            if folder == shipped and include_demo:
                sources.extend(demo_sources())
        except OSError as exc:
            problems.append(LoadProblem(str(folder), f"plugin folder cannot be read ({exc.strerror or exc})"))
    if include_entry_points:
        sources.extend(entry_point_sources())
    return sources, problems


def _safe_sources(folder: Path, problems: list[LoadProblem]) -> list[PluginSource]:
    """The plugins of a folder that only you (or root) can change; the others are reported."""
    listed = folder_sources(folder)  # first, so that a missing folder is reported as unreadable
    scan = TrustScan()  # the folders above are looked at once, not once a plugin
    if problem := scan.folder_problem(folder):
        problems.append(LoadProblem(str(folder), f"{problem}; no plugin in it is loaded"))
        return []
    safe = []
    for source in listed:
        assert source.path is not None
        if problem := plugin_problem(source.path, scan):
            problems.append(LoadProblem(source.location, f"{problem}; not loaded"))
        else:
            safe.append(source)
    return safe


def plugin_problem(path: Path, scan: TrustScan | None = None) -> str | None:
    """Why the plugin file or package at `path` may not be imported (a package: its `__init__.py` and folder)."""
    scan = scan or TrustScan()
    return scan.file_problem(path / "__init__.py", name=path) if path.is_dir() else scan.file_problem(path)
