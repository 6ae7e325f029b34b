"""Where an MCP server is in its life (its own module: the server list asks it of every server without
importing the server's machinery, which `-p` with no servers configured never needs)."""

from __future__ import annotations

from enum import StrEnum


class ServerState(StrEnum):
    STARTING = "starting"
    READY = "ready"
    CRASHED = "crashed"
    FAILED = "failed"
    DISABLED = "disabled"
    STOPPED = "stopped"
