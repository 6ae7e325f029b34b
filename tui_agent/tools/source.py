"""Provides `ToolSource`, what every source of tools is to the builder, and `Finding`, what a source says about
itself (one line of `tui-agent doctor`).

A source (the shipped tools and plugin folders, MCP servers, later OpenAPI or ACP agents) is started once per
run with the run's `ToolRegistry` and puts its `ToolSpec`s there (`ToolRegistry.add` for fixed ones,
`replace_source` for live ones); `settled` waits for what it still starts in the background; `close` stops it.
What it has to say during a run goes to whoever `watch`es; what `plugins` and `doctor` report comes from
`summary` and `findings`. The builder (`tui_agent.agent.tool_set`) knows sources only through this.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from tui_agent.config import Settings
from tui_agent.tools.registry import ToolRegistry

Level = Literal["ok", "warn", "fail"]
Listener = Callable[[str], None]
Redact = Callable[[str], str]
"""What a source's own logs go through (history's redaction)."""


@dataclass(frozen=True)
class Finding:
    """One thing a source found about itself: how it went, what it was, the detail, what to do on a problem."""

    level: Level
    what: str
    detail: str
    fix: str | None = None


class ToolSource(Protocol):
    """A source of tools, as the builder starts, waits for, reports and closes it."""

    @property
    def name(self) -> str:
        """Its entry's name in the builder's registry ("plugins", "mcp", ...)."""
        ...

    async def start(self, registry: ToolRegistry) -> None:
        """Put its tools in `registry`; what takes long may go on in the background (then `settled` waits)."""
        ...

    async def settled(self) -> None:
        """Wait until nothing it started is still starting (bounded by the source)."""
        ...

    async def close(self) -> None:
        """Stop what it started (once it is closed its tools are no longer called)."""
        ...

    def watch(self, listener: Listener) -> None:
        """Tell `listener` what the user should know, so far and from now on (a notice per sentence)."""
        ...

    def notices(self) -> list[str]:
        """What to say once at start (said with the build's other notices)."""
        ...

    def summary(self) -> Mapping[str, list[dict[str, Any]]]:
        """Rows `tui-agent plugins --json` adds to its report, by key ({} for none)."""
        ...

    def findings(self) -> list[Finding]:
        """What `tui-agent doctor` says about it, after `settled`."""
        ...


SourceFactory = Callable[[Settings, Redact], ToolSource]
"""How the builder makes a source from the run's settings: an entry of its registry of tool sources."""
