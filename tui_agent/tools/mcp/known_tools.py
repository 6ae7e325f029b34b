"""Provides `KnownTools`: the tool names each MCP server offered when it was last ready, remembered across runs
beside its log (`<server>.tools`, JSON, 0600), so a prompt naming one of them can be recognised while the server
is still starting (`servers.named_in`). A server never seen ready has none: a turn then waits for it, as nothing
says what it will offer.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tui_agent.tools.mcp.specs import safe_name

PRIVATE = 0o600


class KnownTools:
    """The remembered tool names of the servers of one log folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, server: str) -> Path:
        return self.folder / f"{safe_name(server)}.tools"

    def of(self, server: str) -> list[str] | None:
        """The names `server` offered when last ready; None when it was never seen ready (or the file is bad)."""
        try:
            names = json.loads(self._path(server).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return [name for name in names if isinstance(name, str)] if isinstance(names, list) else None

    def remember(self, server: str, names: list[str]) -> None:
        """Keep `names` for the next run (a failure to write only costs that run a wait)."""
        path = self._path(server)
        if self.of(server) == names:
            return
        partial = path.with_name(path.name + ".partial")
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(names, handle)
            os.replace(partial, path)
        except OSError:
            return
