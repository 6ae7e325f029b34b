"""Shared helpers for the tools tests."""

from __future__ import annotations

from pathlib import Path

from tui_agent.config import ToolsSettings
from tui_agent.tools.registry import ToolRegistry

BROKEN = Path(__file__).parent / "broken_plugins"
FAST_IMPORT = 2.0
"""Import deadline for the broken folder: long enough for the healthy plugins, short for `hangs.py`."""


def only_from(*folders: Path, settings: ToolsSettings | None = None) -> ToolRegistry:
    """A registry of the given folders alone (no shipped, user or installed plugins)."""
    return ToolRegistry.from_plugins(
        folders,
        settings or ToolsSettings(import_timeout=FAST_IMPORT),
        include_user_dir=False,
        include_entry_points=False,
        include_shipped=False,
    )


def shipped() -> ToolRegistry:
    """A registry of the shipped plugins alone."""
    return ToolRegistry.from_plugins((), ToolsSettings(), include_user_dir=False, include_entry_points=False)
