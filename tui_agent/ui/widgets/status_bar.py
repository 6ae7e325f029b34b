"""Provides `StatusBar`: the session's agent (when it runs one), model, endpoint, session title and the
session's tokens in/out, on one line; and a warning while history is not being saved (database locked, disk
full, read-only).

With the engine's `Meter` it adds what the tokens cost (the last reply and the session, from the price table;
a model without a price shows tokens only) and the context gauge: the active branch's tokens against the
model's window (`~` marks an estimate; an unknown window shows the tokens alone), in the warning colour once
it reaches the share that compacts the next turn.

While MCP servers are still starting it names them ("mcp: github, jira starting…"): a prompt sent meanwhile
goes without their tools unless it names one.

While a reply has not begun, it says what it waits for ("rate limited — retrying in 3 s (1 of 2)",
"waiting for the server 12 s"), redrawn every `TICK` seconds so the timer moves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from tui_agent.sanitize import sanitize

if TYPE_CHECKING:  # events load with the engine, after the first paint
    from tui_agent.agent.events import ReplyWaiting
    from tui_agent.agent.meter import Meter

TICK = 0.25
MIN_TITLE = 16
"""Characters of the session title kept before the endpoint and then the model make room instead."""
MCP_NAMES_SHOWN = 3
"""Starting MCP servers named on the line; more are counted ("mcp: a, b, c +2 starting…")."""
MODE_STYLES = {"auto": "bold $error", "auto-edit": "bold $warning", "read-only": "bold $success"}
"""How each permission mode but ask is marked: the more it runs unasked, the louder."""


@dataclass(frozen=True)
class Detail:
    """What the status line spells out; each step of `FITTING` gives one more thing up."""

    wide_gaps: bool = True
    last_cost: bool = True
    """The last reply's cost beside the session's."""
    cached: bool = True
    """How many prompt tokens were cached."""
    exact_tokens: bool = True
    """Token counts to the unit (12,345) rather than short (12.3k)."""
    short_title: bool = False
    """The title may be shortened (down to `MIN_TITLE`)."""
    endpoint: bool = True
    model: bool = True


_TERSE = Detail(wide_gaps=False, last_cost=False, cached=False, exact_tokens=False, short_title=True)
FITTING = (
    Detail(),
    Detail(wide_gaps=False),
    Detail(wide_gaps=False, last_cost=False),
    Detail(wide_gaps=False, last_cost=False, cached=False),
    _TERSE,
    replace(_TERSE, endpoint=False),
    replace(_TERSE, endpoint=False, model=False),
)
"""The status line's forms, widest first: the first that fits is drawn. What matters least gives way first (the
wide gaps, the last reply's cost, the cached count, exact token counts), then the title is shortened, and only
when it is down to `MIN_TITLE` characters does the endpoint's host go, then the model."""


class StatusBar(Static):
    """The line at the very bottom of the chat screen."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.agent = ""
        self.team = ""
        """The team the prompts go to ("": none); shown instead of the agent."""
        self.model = ""
        self.endpoint = ""
        self.title = ""
        self.tokens_in = 0
        self.tokens_out = 0
        self.busy = False
        self.unsaved: str | None = None
        self.waiting: ReplyWaiting | None = None
        self.branch_note: str | None = None
        """Set while the conversation shown is not its newest branch ("older branch 1/2")."""
        self._ticker: Timer | None = None
        self.meter: Meter | None = None
        self.compacting = False
        self.mode = "ask"
        """The permission mode (`tui_agent.tools.modes`); shown unless it is the default, ask."""
        self.sandboxed = True
        """Whether auto mode's commands run in the OS sandbox (false only with the loud unsandboxed flag)."""
        self.starting: list[str] = []
        """The MCP servers still starting (their tools are not offered yet)."""

    @property
    def _model_in_endpoint(self) -> bool:
        """The endpoint's label already names the model (the model `offline` of the "offline model"): said once."""
        return bool(self.model) and self.model in self.endpoint.split()

    def show(self, *, model: str, endpoint: str, title: str) -> None:
        self.model, self.endpoint, self.title = model, endpoint, title
        self._redraw()

    def set_agent(self, agent: str) -> None:
        """Show the agent the session runs ("": none, nothing shown)."""
        self.agent = agent
        self._redraw()

    def set_team(self, team: str) -> None:
        """Show the team the prompts go to, in the agent's place ("": none, the agent is shown)."""
        self.team = team
        self._redraw()

    def set_usage(self, tokens_in: int, tokens_out: int) -> None:
        self.tokens_in, self.tokens_out = tokens_in, tokens_out
        self._redraw()

    def set_meter(self, meter: Meter | None) -> None:
        """Show the session's cost and context (None: nothing known yet, tokens only)."""
        self.meter = meter
        self._redraw()

    def set_mode(self, mode: str) -> None:
        if mode != self.mode:
            self.mode = mode
            self._redraw()

    def set_sandboxed(self, sandboxed: bool) -> None:
        if sandboxed != self.sandboxed:
            self.sandboxed = sandboxed
            self._redraw()

    def set_starting(self, servers: list[str]) -> None:
        """Name the MCP servers still starting (empty: none is, nothing shown)."""
        if servers != self.starting:
            self.starting = list(servers)
            self._redraw()

    @property
    def _starting_mark(self) -> list[Content]:
        """ "mcp: github, jira starting…" while any is; nothing otherwise."""
        if not self.starting:
            return []
        names = ", ".join(sanitize(name) for name in self.starting[:MCP_NAMES_SHOWN])
        more = len(self.starting) - MCP_NAMES_SHOWN
        return [Content.styled(f"mcp: {names}{f' +{more}' if more > 0 else ''} starting…", "$text-muted")]

    @property
    def _mode_mark(self) -> str:
        """The mode as marked ("⏵⏵ auto-edit"); auto says whether its commands are sandboxed."""
        if self.mode != "auto":
            return f"⏵⏵ {self.mode}"
        return "⏵⏵ auto · sandboxed" if self.sandboxed else "⏵⏵ auto · NOT sandboxed"

    def set_compacting(self, compacting: bool) -> None:
        self.compacting = compacting
        self._redraw()

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        if not busy:
            self.set_waiting(None)
        self._redraw()

    def set_unsaved(self, unsaved: str | None) -> None:
        """Show why history is not being saved (None: it is)."""
        self.unsaved = unsaved
        self._redraw()

    def set_branch_note(self, note: str | None) -> None:
        if note != self.branch_note:
            self.branch_note = note
            self._redraw()

    def set_waiting(self, waiting: ReplyWaiting | None) -> None:
        """Say what the reply waits for, with a moving timer (events carry `time.monotonic()` readings, so the
        bar reads that clock); None once the reply has begun."""
        if waiting is None and self.waiting is None:
            return
        self.waiting = waiting
        if waiting is not None and self._ticker is None:
            self._ticker = self.set_interval(TICK, self._redraw, name="waiting-timer")
        elif waiting is None and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self._redraw()

    @property
    def state(self) -> str:
        """The first part of the line: ready, replying, or what the reply waits for."""
        if self.compacting:
            return "◌ compacting older turns into a summary…"
        if not self.busy:
            return "○ ready"
        if self.waiting is not None:
            return f"◌ {self.waiting.describe(time.monotonic())} — Esc stops"
        return "● replying — Esc stops"

    def _redraw(self) -> None:
        """The line, fitted to the width (see `FITTING`): what matters least gives way first, and only as much
        as the width needs, so the state, the title, the tokens, the cost and the context gauge stay in view."""
        room = self.size.width - self.styles.gutter.width
        title = sanitize(self.title)
        line = self._line(title, FITTING[0])
        if room > 0 and line.cell_length > room:
            line = self._fitted(title, room)
        self.update(line)

    def _fitted(self, title: str, room: int) -> Content:
        for detail in FITTING[1:]:
            line = self._line(title, detail)
            over = line.cell_length - room
            if over <= 0:
                return line
            if detail.short_title and len(title) - over - 1 >= MIN_TITLE:
                return self._line(title[: len(title) - over - 1] + "…", detail)
        short = title[: MIN_TITLE - 1] + "…" if len(title) > MIN_TITLE else title
        return self._line(short, FITTING[-1])

    @property
    def _who(self) -> list[Content]:
        """Who answers the next prompt: the team it goes to, else the session's agent (none: nothing)."""
        if self.team:
            return [Content.styled(f"team {sanitize(self.team)}", "bold $accent")]
        return [Content.styled(f"agent {sanitize(self.agent)}", "bold $accent")] if self.agent else []

    def _line(self, title: str, detail: Detail) -> Content:
        warning = [] if self.unsaved is None else [Content.styled(f"⚠ not saved: {self.unsaved}", "bold $warning")]
        parts = [
            Content(self.state),
            *warning,
            *self._starting_mark,
            *([] if self.mode == "ask" else [Content.styled(self._mode_mark, MODE_STYLES.get(self.mode, "bold"))]),
            *self._who,
            *([] if self.branch_note is None else [Content.styled(f"⑂ {self.branch_note}", "$text-warning")]),
            *([Content.styled(sanitize(self.model), "bold")] if detail.model and not self._model_in_endpoint else []),
            *([Content(sanitize(self.endpoint))] if detail.endpoint else []),
            Content(title),
            Content(self._tokens(detail) + self._costs(detail)),
            *self._gauge,
        ]
        return Content("  │  " if detail.wide_gaps else " │ ").join(parts)

    def _tokens(self, detail: Detail) -> str:
        """ "tokens in 12,345 (4,096 cached) / out 2,345", or shorter: "tokens in 12.3k / out 2.3k"."""
        cached = self.meter.cached_in if self.meter is not None and detail.cached else 0
        said = f" ({cached:,} cached)" if cached else ""
        if detail.exact_tokens:
            return f"tokens in {self.tokens_in:,}{said} / out {self.tokens_out:,}"
        from tui_agent.prices import format_tokens  # deferred: the price table loads with the engine's meter

        return f"tokens in {format_tokens(self.tokens_in)} / out {format_tokens(self.tokens_out)}"

    def on_resize(self) -> None:
        self._redraw()

    def _costs(self, detail: Detail) -> str:
        """ " · $0.0012 last · $0.0345 session" (the session's alone when room is short), or nothing for a model
        without a price."""
        meter = self.meter
        if meter is None or meter.session_cost is None and meter.last_cost is None:
            return ""
        from tui_agent.prices import format_cost  # deferred: with the engine's meter: not before the first frame

        last = "" if meter.last_cost is None or not detail.last_cost else f" · {format_cost(meter.last_cost)} last"
        session = "" if meter.session_cost is None else f" · {format_cost(meter.session_cost)} session"
        return last + session

    @property
    def _gauge(self) -> list[Content]:
        """ "context 3.4k / 128k (3%)", "context ~900" (window unknown, an estimate); none before any."""
        meter = self.meter
        if meter is None or not meter.context_tokens:
            return []
        from tui_agent.prices import format_tokens  # deferred: with the engine's meter: not before the first frame

        tokens = ("~" if meter.context_estimated else "") + format_tokens(meter.context_tokens)
        share = meter.context_share
        if share is None or meter.context_window is None:
            return [Content(f"context {tokens}")]
        text = f"context {tokens} / {format_tokens(meter.context_window)} ({share:.0%})"
        return [Content.styled(text, "bold $warning") if meter.needs_compaction else Content(text)]
