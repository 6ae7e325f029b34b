"""Provides `McpScreen` (palette: "MCP servers"), as Claude Code's `/mcp` does: each configured MCP server with
its state — ✔ ready with N tools, ✘ failed: why, ○ disabled, … starting — and under the list, for the
highlighted one, how it is reached, its state in full and the tools it offers the model (name and the first line
of its description; then its prompts and its resources). For that server: restart (r), toggle
for this run (t), its stderr log in place of the tools (l, again to go back), and for an HTTP server its
OAuth sign-in (a) and sign-out (o). The screen follows state
changes as they happen (it is re-read a few times a second: servers change state in their own tasks, and a
small list costs nothing to redraw).
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
from tui_agent.ui.screens.session_dialogs import one_line

if TYPE_CHECKING:
    from tui_agent.agent.port import McpServers, ServerOverview, ToolLine

LOG_LINES = 200
STATE_STYLE = {"ready": "$success", "failed": "$error", "crashed": "$warning", "starting": "$accent"}
STATE_MARK = {"ready": "✔", "failed": "✘", "crashed": "!", "starting": "…", "disabled": "○", "stopped": "○"}
LIST_ROWS = 8
"""Rows the server list takes at most (it scrolls beyond)."""
DETAIL_ROWS = 24
"""Rows the detail (or the log) takes at most."""
CHROME_ROWS = 7
"""Rows around the list and the detail: the box's border, the title, the list's border, a gap and the keys."""
NAME_WIDTH = 24
"""Columns a tool's name takes at most before its description."""
FOOTER = "r restart · t turn on/off for this run · l log / tools · Esc close"


def read_log_tail(path: Path, lines: int = LOG_LINES) -> str:
    """The last `lines` of a server's log, made safe to show (servers write colours and worse)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log yet)"
    return sanitize("\n".join(text.splitlines()[-lines:])) or "(the log is empty)"


def server_line(row: dict[str, object]) -> Content:
    """A server's row in the list: its state's mark, its name, its state in a sentence."""
    state = str(row["state"])
    style = STATE_STYLE.get(state, "$text-muted")
    return Content.assemble(
        (f"{STATE_MARK.get(state, ' ')} ", style),
        (str(row["name"]).ljust(16), "bold"),
        (sanitize(str(row["status"])), style),
    )


def server_detail(server: ServerOverview, width: int) -> Content:
    """What the screen says of the highlighted server, its tools one a line fitted to `width` columns."""
    style = STATE_STYLE.get(server.state, "$text-muted")
    lines = [
        Content.assemble(
            (sanitize(server.name), "bold"),
            " · ",
            (one_line(server.reached_by, max(width - len(server.name) - 3, 20)), "dim"),
        ),
        Content.styled(sanitize(server.status), style),
        Content(""),
    ]
    if server.tools:
        lines += named_lines("Tools", server.tools, width)
    elif server.state == "ready":
        lines.append(Content.styled("It offers no tools.", "dim"))
    else:
        lines.append(Content.styled("No tools while it is not running.", "dim"))
    if server.left_out:
        lines.append(
            Content.styled(f"  and {server.left_out} not offered (see the status above, or the config)", "dim")
        )
    for title, items in (("Prompts", server.prompts), ("Resources", server.resources)):
        lines += named_lines(title, items, width) if items else []
    if server.sign_in is not None:  # an HTTP server: its OAuth keys, said where they apply
        keys = "o signs out, a signs in again" if server.sign_in == "signed in" else "a signs in"
        lines.append(Content.styled(f"OAuth: {server.sign_in} ({keys})", "dim"))
    lines.append(Content.styled(f"Log: {sanitize(server.log)} (l shows it)", "dim"))
    return Content("\n").join(lines)


def named_lines(title: str, items: list[ToolLine], width: int) -> list[Content]:
    """A heading with the count, then one line per item: its name and the first line of its description."""
    lines = [Content.styled(f"{title} ({len(items)})", "bold")]
    name_width = min(max(len(item.name) for item in items), NAME_WIDTH)
    for item in items:
        name = one_line(item.name, NAME_WIDTH).ljust(name_width)
        room = max(width - name_width - 4, 10)
        lines.append(Content.assemble("  ", (name, "$accent"), "  ", one_line(item.description, room)))
    return lines


class McpScreen(ReportingModal[None]):
    """The MCP servers of this run."""

    DEFAULT_CSS = """
    McpScreen { align: center middle; }
    McpScreen > Vertical {
        width: 120; max-width: 100%; height: auto; max-height: 100%;
        background: $surface; border: round $primary; padding: 0 1;
    }
    McpScreen #mcp-title { text-style: bold; color: $primary; }
    McpScreen OptionList { height: auto; max-height: 10; }
    McpScreen #mcp-detail { height: auto; max-height: 24; margin-top: 1; }
    McpScreen #mcp-log { height: auto; max-height: 24; margin-top: 1; display: none; }
    McpScreen.-showing-log #mcp-log { display: block; }
    McpScreen.-showing-log #mcp-detail { display: none; }
    McpScreen #mcp-footer { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", priority=True, id="mcp.close"),
        Binding("r", "restart", "Restart", id="mcp.restart"),
        Binding("t", "toggle_server", "Turn on or off for this run", id="mcp.toggle_server"),
        Binding("l", "show_log", "Show log (again: its tools)", id="mcp.show_log"),
        Binding("a", "sign_in", "Sign in (OAuth)", id="mcp.sign_in"),
        Binding("o", "sign_out", "Sign out (OAuth)", id="mcp.sign_out"),
    ]

    showing_log = var(False, toggle_class="-showing-log")
    """The highlighted server's log is shown in place of its tools (l)."""

    def __init__(self, servers: McpServers) -> None:
        super().__init__()
        self.servers = servers
        self._shown: tuple[ServerOverview, int] | None = None
        """The detail drawn last, and at what width (drawn again only when either changes)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("MCP servers", id="mcp-title")
            yield OptionList(*self._options(), id="mcp-list")
            with VerticalScroll(id="mcp-detail"):
                yield Static("", id="mcp-detail-text")
            with VerticalScroll(id="mcp-log"):
                yield Static("", id="mcp-log-text", markup=False)
            yield Static(FOOTER, id="mcp-footer")

    def on_mount(self) -> None:
        self.set_interval(0.3, self._refresh_states)
        self.call_after_refresh(self._show_detail)

    def _options(self) -> list[Option]:
        return [Option(server_line(row), id=row["name"]) for row in self.servers.summary()]

    def _refresh_states(self) -> None:
        options = self.query_one(OptionList)
        for row in self.servers.summary():
            options.replace_option_prompt(str(row["name"]), server_line(row))
        self._show_detail()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.showing_log = False  # the log shown was another server's
        self._show_detail()

    def on_resize(self) -> None:
        """The detail (or the log) takes the rows the title, the list and the keys leave, and scrolls in them."""
        rows = min(len(self.servers.servers), LIST_ROWS) + CHROME_ROWS
        for part in self.query("#mcp-detail, #mcp-log"):
            part.styles.max_height = max(min(self.size.height - rows, DETAIL_ROWS), 3)
        self._show_detail()

    def _show_detail(self) -> None:
        """Draw the highlighted server's detail when it (or the room for it) changed since it was drawn."""
        name = self._selected()
        if name is None:
            return
        server = self.servers.overview(name)
        width = self.query_one("#mcp-detail").scrollable_content_region.width or 76
        if self._shown != (server, width):
            self._shown = (server, width)
            self.query_one("#mcp-detail-text", Static).update(server_detail(server, width))

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

    def action_sign_in(self) -> None:
        """Sign in to the highlighted HTTP server in the browser (it restarts; the address is also shown)."""
        if (name := self._selected()) is None:
            return
        if self.servers.overview(name).sign_in is None:
            self.notify(f"{name} does not sign in with OAuth (an HTTP server does, unless its entry says otherwise).")
            return
        self.notify(f"Signing in to {name}…")
        self.run_worker(self.servers.sign_in(name), group="mcp", exit_on_error=False)

    def action_sign_out(self) -> None:
        """Revoke and forget the highlighted server's sign-in."""
        if (name := self._selected()) is not None:
            self.run_worker(self._sign_out(name), group="mcp", exit_on_error=False)

    async def _sign_out(self, name: str) -> None:
        self.notify(await self.servers.sign_out(name), markup=False)

    def action_show_log(self) -> None:
        if (name := self._selected()) is None:
            return
        if self.showing_log:
            self.showing_log = False
            return
        log = self.query_one("#mcp-log")
        text = read_log_tail(self.servers.servers[name].log_path)
        self.query_one("#mcp-log-text", Static).update(f"{self.servers.servers[name].log_path}\n\n{text}")
        self.showing_log = True
        log.scroll_end(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
