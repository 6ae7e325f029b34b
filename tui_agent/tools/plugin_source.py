"""Provides `PluginSource`: the shipped tools, the plugin folders and the installed packages' entry points, as
one tool source (`tools.source.ToolSource`).

They are found and imported together (`ToolRegistry.load_plugins`: the order decides who keeps a name, and one
import journal guards them all), in a thread: importing a plugin may take a while.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tui_agent.config import Settings
from tui_agent.tools.problems import LoadProblem
from tui_agent.tools.registry import ENABLED, ToolRegistry
from tui_agent.tools.source import Finding, Listener, Redact


class PluginSource:
    """The Python tools of a run: shipped, from the plugin folders, from installed packages."""

    name = "plugins"

    def __init__(self, folders: Sequence[Path]) -> None:
        self.folders = list(folders)
        self.problems: list[LoadProblem] = []
        """What went wrong while loading (a crashed plugin's journal entry too)."""
        self._enabled = 0

    @classmethod
    def from_settings(cls, settings: Settings, redact: Redact) -> PluginSource:
        """The source of the run's settings (`plugin_dirs`; `[tools]` is the registry's)."""
        return cls(settings.plugin_dirs)

    async def start(self, registry: ToolRegistry) -> None:
        before = len(registry.problems)
        await asyncio.to_thread(registry.load_plugins, self.folders)
        self.problems = registry.problems[before:]
        self._enabled = sum(1 for entry in registry.entries if entry.status == ENABLED)

    async def settled(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def watch(self, listener: Listener) -> None:
        return None  # everything is said at start (`notices`)

    def notices(self) -> list[str]:
        return [f"Plugin problem: {problem.file}: {problem.message}" for problem in self.problems]

    def summary(self) -> Mapping[str, list[dict[str, Any]]]:
        return {}  # the tools and problems are the registry's, which the report lists

    def findings(self) -> list[Finding]:
        """Each import problem fails (a clash or a cut description warns); else how many tools are enabled."""
        problems = [
            Finding(
                "warn" if problem.warning else "fail",
                "plugin",
                f"{problem.file}: {problem.message}",
                None if problem.warning else "fix or remove the plugin, or list it in tools.disabled_plugins",
            )
            for problem in self.problems
        ]
        if any(finding.level == "fail" for finding in problems):
            return problems
        return [Finding("ok", "plugins", f"{self._enabled} tools enabled"), *problems]
