"""Provides `McpScreen` (palette: "MCP servers"): each configured MCP server with its state — starting,
ready with N tools, failed: why, disabled — and, for the highlighted one, restart (r), toggle for this run
(t) and its stderr log (l). The list follows state changes as they happen (it is re-read a few times a
second: servers change state in their own tasks, and a small list costs nothing to redraw).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import var
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui_agent.sanitize import sanitize
from tui_agent.ui.screens.reporting import ReportingModal

if TYPE_CHECKING:
    from tui_agent.agent.port import McpServers

LOG_LINES = 200
STATE_STYLE = {"ready": "$success", "failed": "$error", "crashed": "$warning", "starting": "$accent"}


def read_log_tail(path: Path, lines: int = LOG_LINES) -> str:
    """The last `lines` of a server's log, made safe to show (servers write colours and worse)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log yet)"
    return sanitize("\n".join(text.splitlines()[-lines:])) or "(the log is empty)"


class McpScreen(ReportingModal[None]):
    """The MCP servers of this run."""

    DEFAULT_CSS = """
    McpScreen { align: center middle; }
    McpScreen > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 90%;
        background: $surface; border: round $primary; padding: 0 1;
    }
    McpScreen #mcp-title { text-style: bold; color: $primary; }
    McpScreen OptionList { height: auto; max-height: 12; }
    McpScreen #mcp-log { height: auto; max-height: 20; display: none; }
    McpScreen.-showing-log #mcp-log { display: block; }
    McpScreen #mcp-footer { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", priority=True, id="mcp.close"),
        Binding("r", "restart", "Restart", id="mcp.restart"),
        Binding("t", "toggle_server", "Turn on or off for this run", id="mcp.toggle_server"),
        Binding("l", "show_log", "Show log", id="mcp.show_log"),
    ]

    showing_log = var(False, toggle_class="-showing-log")
    """The highlighted server's log is shown under the list (l)."""

    def __init__(self, servers: McpServers) -> None:
        super().__init__()
        self.servers = servers

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("MCP servers", id="mcp-title")
            yield OptionList(*self._options(), id="mcp-list")
            with VerticalScroll(id="mcp-log"):
                yield Static("", id="mcp-log-text", markup=False)
            yield Static("r restart · t turn on/off for this run · l show log · Esc close", id="mcp-footer")

    def on_mount(self) -> None:
        self.set_interval(0.3, self._refresh_states)

    def _options(self) -> list[Option]:
        return [Option(self._line(row), id=row["name"]) for row in self.servers.summary()]

    @staticmethod
    def _line(row: dict[str, object]) -> Content:
        style = STATE_STYLE.get(str(row["state"]), "$text-muted")
        return Content.assemble((str(row["name"]).ljust(16), "bold"), (sanitize(str(row["status"])), style))

    def _refresh_states(self) -> None:
        options = self.query_one(OptionList)
        for row in self.servers.summary():
            options.replace_option_prompt(str(row["name"]), self._line(row))

    def _selected(self) -> str | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        return options.get_option_at_index(options.highlighted).id

    def action_restart(self) -> None:
        if (name := self._selected()) is not None:
            self.notify(f"Restarting {name}…")
            self.run_worker(self.servers.restart(name), group="mcp", exit_on_error=False)

    def action_toggle_server(self) -> None:
        if (name := self._selected()) is not None:
            self.run_worker(self.servers.toggle(name), group="mcp", exit_on_error=False)

    def action_show_log(self) -> None:
        if (name := self._selected()) is None:
            return
        log = self.query_one("#mcp-log")
        text = read_log_tail(self.servers.servers[name].log_path)
        self.query_one("#mcp-log-text", Static).update(f"{self.servers.servers[name].log_path}\n\n{text}")
        self.showing_log = True
        log.scroll_end(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
