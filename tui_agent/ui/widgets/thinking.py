"""Provides `ThinkingBlock`: a reply's reasoning, shown above its answer as one dimmed line until opened.

Collapsed it reads "▸ thinking… (N words)" while the model reasons and "▸ thought (N words)" once the answer
begins; expanded ("▾") the reasoning itself follows, as plain text, sanitised like every model text. Reasoning
that comes after the answer began (interleaved thinking, or a continued reply's, after `REASONING_BREAK`) is
appended, and the block says "thinking…" again until the answer goes on. Enter or space (when it has focus)
and a click toggle it. Streamed reasoning is drawn at most every `FLUSH_INTERVAL` seconds, so a fast stream
costs a few redraws, not one per delta.

The block shows a part of any kind the same way, with its own `PartLabels` (see `tui_agent.ui.widgets.parts`,
which says which kind is shown how).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

from textual.binding import Binding
from textual.content import Content
from textual.events import Click
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Static

from tui_agent.agent.records import PART_BREAK
from tui_agent.sanitize import StreamSanitizer, sanitize
from tui_agent.ui.widgets.let_go import LetGo

FLUSH_INTERVAL = 0.05
"""Seconds between redraws of a block whose reasoning is streaming."""


class PartLabels(NamedTuple):
    """What a block's one line says: while the part streams, once it is done, and when no answer followed."""

    streaming: str
    done: str
    alone: str


THINKING = PartLabels("thinking…", "thought", "thought — no answer followed")


class ThinkingBlock(Static, can_focus=True):
    """The reasoning of reply `message_id`; `expanded` shows it whole, else one line says how much there is."""

    DEFAULT_CSS = """
    ThinkingBlock {
        margin: 1 0 0 0;
        padding: 0 1;
        color: $text-muted;
        text-style: italic;
    }
    ThinkingBlock:focus {
        background: $boost;
    }
    ThinkingBlock.-expanded {
        border-left: outer $foreground 30%;
    }
    """
    BINDINGS = [
        Binding("enter,space", "toggle_expanded", "Show / hide the thinking", show=False, id="toggle_thinking_block"),
    ]

    expanded = var(False, toggle_class="-expanded")
    """The reasoning is shown whole (else only its one-line summary)."""

    def __init__(
        self, message_id: str, *, expanded: bool = False, kind: str = "reasoning", labels: PartLabels = THINKING
    ) -> None:
        super().__init__()
        self.message_id = message_id
        self.kind = kind
        """The kind of part shown ("reasoning", ...)."""
        self.labels = labels
        self.done = False
        """The answer began (or the reply ended): the model thinks no more, unless more reasoning comes."""
        self.alone = False
        """The reply ended with reasoning only: no answer followed it."""
        self.ended = False
        """The reply ended: no more reasoning comes (unless it is continued)."""
        self._sanitizer = StreamSanitizer()
        self._text = ""
        self._pending: list[str] = []
        self._timer: Timer | None = None
        self.set_reactive(ThinkingBlock.expanded, expanded)
        self.set_class(expanded, "-expanded")
        self.update(self._content())

    @classmethod
    def finished(
        cls,
        message_id: str,
        text: str,
        *,
        expanded: bool = False,
        alone: bool = False,
        kind: str = "reasoning",
        labels: PartLabels = THINKING,
    ) -> ThinkingBlock:
        """A stored reply's reasoning (or part of `kind`), complete (`alone`: the reply has no answer)."""
        block = cls(message_id, expanded=expanded, kind=kind, labels=labels)
        block._text = sanitize(text)
        block.finish(alone=alone)
        return block

    @property
    def text(self) -> str:
        """The reasoning as shown (sanitised)."""
        return self._text + "".join(self._pending)

    @property
    def words(self) -> int:
        """Words of reasoning (the continuation marks left out)."""
        return len(self.text.replace(PART_BREAK.strip(), " ").split())

    @property
    def settled(self) -> bool:
        """Only an ended reply's block may be let go: reasoning can come again until then."""
        return self.ended

    def let_go(self) -> LetGo:
        return LetGo(
            partial(
                type(self).finished,
                self.message_id,
                self.text,
                expanded=self.expanded,
                alone=self.alone,
                kind=self.kind,
                labels=self.labels,
            )
        )

    def append(self, chunk: str) -> None:
        """More streamed reasoning, drawn within `FLUSH_INTERVAL` (after the answer began too: the model thinks
        again)."""
        if self.done:
            self.done = self.ended = False
            self.update(self._content())
        self._pending.append(self._sanitizer.feed(chunk))
        if self._timer is None:
            self._timer = self.set_timer(FLUSH_INTERVAL, self._flush, name="thinking-flush")

    def finish(self, *, alone: bool = False, ended: bool = True) -> None:
        """The model stopped thinking (`alone`: and said nothing else; `ended=False`: the answer began, the
        reply goes on)."""
        self.alone = self.alone or alone
        self.ended = self.ended or ended
        if not self.done:
            self.done = True
            self._pending.append(self._sanitizer.flush())
        self._flush()

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._text += "".join(self._pending)
        self._pending.clear()
        self.update(self._content())

    def _content(self) -> Content:
        words = self.words
        count = f"{words} word{'s' if words != 1 else ''}"
        if not self.done:
            state = self.labels.streaming
        else:
            state = self.labels.alone if self.alone else self.labels.done
        summary = f"{'▾' if self.expanded else '▸'} {state} ({count})"
        return Content(f"{summary}\n{self._text}" if self.expanded and self._text else summary)

    def watch_expanded(self) -> None:
        self._flush()

    def action_toggle_expanded(self) -> None:
        self.expanded = not self.expanded

    def on_click(self, event: Click) -> None:
        event.stop()
        self.action_toggle_expanded()
