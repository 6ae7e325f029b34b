"""Shared helpers for the tools tests."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tui_agent.config import ToolsSettings
from tui_agent.tools.registry import ToolRegistry

BROKEN = Path(__file__).parent / "broken_plugins"
FAST_IMPORT = 2.0
"""Import deadline for the broken folder: long enough for the healthy plugins, short for `hangs.py`."""
WAIT_LIMIT = 60.0
"""Seconds to wait for a log's line before failing (bounds a hang; not a timing check)."""


def read(path: Path) -> str:
    """The file's text, or "" while it does not exist."""
    return path.read_text() if path.exists() else ""


async def wait_for_text(path: Path, text: str) -> str:
    """The file once `text` is in it (an MCP server log's reader thread writes what the server said a moment
    later, maybe after the server's reply has come)."""
    deadline = time.monotonic() + WAIT_LIMIT
    while text not in (found := read(path)):
        assert time.monotonic() < deadline, f"{text!r} never reached {path}: {found!r}"
        await asyncio.sleep(0.02)
    return found


def only_from(*folders: Path, settings: ToolsSettings | None = None) -> ToolRegistry:
    """A registry of the given folders alone (no shipped, user or installed plugins)."""
    return ToolRegistry.from_plugins(
        folders,
        settings or ToolsSettings(import_timeout=FAST_IMPORT),
        include_user_dir=False,
        include_entry_points=False,
        include_shipped=False,
    )


def shipped(demo_tools: bool = False) -> ToolRegistry:
    """A registry of the shipped plugins alone (with the offline model's demo tool, `demo_tools`)."""
    return ToolRegistry.from_plugins(
        (), ToolsSettings(demo_tools=demo_tools), include_user_dir=False, include_entry_points=False
    )
