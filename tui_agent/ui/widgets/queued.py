"""Provides `QueuedPrompts`: the strip above the prompt listing prompts sent while a reply was running.

Several may wait; they are sent in the order they were written, one turn each, as each turn ends (however
it ends: done, stopped or failed). Esc on the empty prompt takes the newest one back into the prompt box to
edit (sending it again queues it again). Nothing here reaches the conversation until it is sent, so the
live reply above is never split by a prompt that has not been sent yet.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from tui_agent.sanitize import sanitize

PREVIEW_WIDTH = 100
SHOWN = 4
"""Queued prompts listed; more are counted."""
HINT = "sent when the reply ends · Esc on an empty prompt takes the last one back to edit"


def one_line(text: str, width: int = PREVIEW_WIDTH) -> str:
    """The prompt on one line, shortened with an ellipsis."""
    flat = " ".join(sanitize(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class QueuedPrompts(Static):
    """Prompts waiting for the running turn to end, oldest first; hidden when there are none."""

    DEFAULT_CSS = """
    QueuedPrompts {
        height: auto;
        max-height: 7;
        padding: 0 1;
        color: $text-muted;
        background: $boost;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.prompts: list[str] = []
        self.display = False

    def push(self, prompt: str) -> None:
        self.prompts.append(prompt)
        self._redraw()

    def take_first(self) -> str | None:
        """The oldest waiting prompt, now leaving the queue to be sent."""
        return self._take(0)

    def take_last(self) -> str | None:
        """The newest waiting prompt, taken back to edit."""
        return self._take(-1)

    def _take(self, index: int) -> str | None:
        if not self.prompts:
            return None
        prompt = self.prompts.pop(index)
        self._redraw()
        return prompt

    def _redraw(self) -> None:
        self.display = bool(self.prompts)
        lines = [Content.assemble(("⏸ queued  ", "bold $warning"), one_line(prompt)) for prompt in self.prompts[:SHOWN]]
        if len(self.prompts) > SHOWN:
            lines.append(Content(f"… and {len(self.prompts) - SHOWN} more"))
        lines.append(Content.styled(HINT, "dim italic"))
        self.update(Content("\n").join(lines))
