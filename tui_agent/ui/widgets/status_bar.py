"""Provides `StatusBar`: the session's agent (when it runs one), model, endpoint, session title and the
session's tokens in/out, on one line; and a warning while history is not being saved (database locked, disk
full, read-only).

With the engine's `Meter` it adds what the tokens cost (the last reply and the session, from the price table;
a model without a price shows tokens only) and the context gauge: the active branch's tokens against the
model's window (`~` marks an estimate; an unknown window shows the tokens alone), in the warning colour once
it reaches the share that compacts the next turn.

While a reply has not begun, it says what it waits for ("rate limited — retrying in 3 s (1 of 2)",
"waiting for the server 12 s"), redrawn every `TICK` seconds so the timer moves.
"""

from __future__ import annotations

import time
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
"""Characters of the session title kept before the model makes room instead (the endpoint makes room first)."""


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
        """The line, fitted to the width: the endpoint is left out first, then the title shortened, then the model
        left out, so the state, the title, the tokens, the cost and the context gauge stay in view."""
        room = self.size.width - self.styles.gutter.width
        title = sanitize(self.title)
        line = self._line(title, endpoint=True, model=True)
        if room > 0 and line.cell_length > room:
            line = self._fitted(title, room)
        self.update(line)

    def _fitted(self, title: str, room: int) -> Content:
        line = Content()
        for model in (True, False):
            line = self._line(title, endpoint=False, model=model)
            over = line.cell_length - room
            if over <= 0:
                return line
            if len(title) - over - 1 >= MIN_TITLE:
                return self._line(title[: len(title) - over - 1] + "…", endpoint=False, model=model)
        short = title[: MIN_TITLE - 1] + "…" if len(title) > MIN_TITLE else title
        return self._line(short, endpoint=False, model=False)

    @property
    def _who(self) -> list[Content]:
        """Who answers the next prompt: the team it goes to, else the session's agent (none: nothing)."""
        if self.team:
            return [Content.styled(f"team {sanitize(self.team)}", "bold $accent")]
        return [Content.styled(f"agent {sanitize(self.agent)}", "bold $accent")] if self.agent else []

    def _line(self, title: str, *, endpoint: bool, model: bool) -> Content:
        warning = [] if self.unsaved is None else [Content.styled(f"⚠ not saved: {self.unsaved}", "bold $warning")]
        parts = [
            Content(self.state),
            *warning,
            *self._who,
            *([] if self.branch_note is None else [Content.styled(f"⑂ {self.branch_note}", "$text-warning")]),
            *([Content.styled(sanitize(self.model), "bold")] if model else []),
            *([Content(sanitize(self.endpoint))] if endpoint else []),
            Content(title),
            Content(f"tokens in {self.tokens_in:,}{self._cached} / out {self.tokens_out:,}{self._costs}"),
            *self._gauge,
        ]
        return Content("  │  ").join(parts)

    def on_resize(self) -> None:
        self._redraw()

    @property
    def _cached(self) -> str:
        cached = self.meter.cached_in if self.meter is not None else 0
        return f" ({cached:,} cached)" if cached else ""

    @property
    def _costs(self) -> str:
        """ " · $0.0012 last · $0.0345 session", or nothing for a model without a price."""
        meter = self.meter
        if meter is None or meter.session_cost is None and meter.last_cost is None:
            return ""
        from tui_agent.prices import format_cost  # deferred: with the engine's meter: not before the first frame

        last = "" if meter.last_cost is None else f" · {format_cost(meter.last_cost)} last"
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
